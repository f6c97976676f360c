//! Rendering an [`McpError`] to the two surfaces MCP clients read.
//!
//! Clients differ in what they show the model: some read only the text content,
//! others only `structuredContent`. A tool error therefore goes out on both:
//!
//! - `content[0].text`: `Error: <message>`, then `\n\nRecovery: <hint>` when
//!   `data.recovery.hint` is a non-empty string the message does not already hold;
//! - `structuredContent.error`: the error's wire form `{code, message, data?}`;
//! - `isError: true`.

use serde_json::{Value, json};

use crate::error::McpError;

/// The text surface of an error: `Error: <message>` and, when a recovery hint was
/// opted in, `\n\nRecovery: <hint>`.
///
/// ```
/// use mcp_contract::{McpError, errors::render::error_text};
/// let err = McpError::not_found("No object 42.").with_recovery_hint("Search first.");
/// assert_eq!(error_text(&err), "Error: No object 42.\n\nRecovery: Search first.");
/// ```
pub fn error_text(err: &McpError) -> String {
    let message = err.message();
    match recovery_hint(err) {
        Some(hint) if !message.contains(hint) => format!("Error: {message}\n\nRecovery: {hint}"),
        _ => format!("Error: {message}"),
    }
}

/// The tool-error result of `err` as MCP's `CallToolResult` JSON.
///
/// ```
/// use mcp_contract::{McpError, errors::render::tool_error_result};
/// use serde_json::json;
/// let result = tool_error_result(&McpError::rate_limited("Slow down."));
/// assert_eq!(result, json!({
///     "content": [{"type": "text", "text": "Error: Slow down."}],
///     "structuredContent": {"error": {"code": -32003, "message": "Slow down."}},
///     "isError": true,
/// }));
/// ```
pub fn tool_error_result(err: &McpError) -> Value {
    json!({
        "content": [{ "type": "text", "text": error_text(err) }],
        "structuredContent": structured_error(err),
        "isError": true,
    })
}

/// The structured surface of an error: `{"error": {code, message, data?}}`.
pub fn structured_error(err: &McpError) -> Value {
    json!({ "error": err })
}

/// `data.recovery.hint`, when it is a non-empty string. Read from the wire data
/// rather than the builder field so that errors decoded from elsewhere render alike.
fn recovery_hint(err: &McpError) -> Option<&str> {
    let hint = err.data()?.get("recovery")?.get("hint")?.as_str()?;
    (!hint.trim().is_empty()).then_some(hint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::JsonRpcErrorCode;

    #[test]
    fn error_with_reason_and_recovery_renders_both_surfaces() {
        let err = McpError::not_found("No object 436535 in the collection.")
            .with_data(json!({"objectId": 436535}))
            .with_reason("not_in_collection")
            .with_recovery_hint("Search with search_objects first to find valid object IDs.");
        assert_eq!(
            serde_json::to_string_pretty(&tool_error_result(&err)).unwrap(),
            r#"{
  "content": [
    {
      "text": "Error: No object 436535 in the collection.\n\nRecovery: Search with search_objects first to find valid object IDs.",
      "type": "text"
    }
  ],
  "isError": true,
  "structuredContent": {
    "error": {
      "code": -32001,
      "data": {
        "objectId": 436535,
        "reason": "not_in_collection",
        "recovery": {
          "hint": "Search with search_objects first to find valid object IDs."
        }
      },
      "message": "No object 436535 in the collection."
    }
  }
}"#
        );
    }

    #[test]
    fn no_recovery_line_without_a_hint_or_when_the_message_has_it() {
        let plain = McpError::new(JsonRpcErrorCode::Conflict, "Already exists.").with_reason("duplicate");
        assert_eq!(error_text(&plain), "Error: Already exists.");
        let repeated = McpError::timeout("Timed out. Try a smaller page.").with_recovery_hint("Try a smaller page.");
        assert_eq!(error_text(&repeated), "Error: Timed out. Try a smaller page.");
        let blank = McpError::timeout("Timed out.").with_data(json!({"recovery": {"hint": "  "}}));
        assert_eq!(error_text(&blank), "Error: Timed out.");
        let not_a_string = McpError::timeout("Timed out.").with_data(json!({"recovery": {"hint": 3}}));
        assert_eq!(error_text(&not_a_string), "Error: Timed out.");
    }

    #[test]
    fn auto_classified_errors_render_without_data() {
        let err =
            McpError::from_error(std::io::Error::new(std::io::ErrorKind::TimedOut, "socket /var/run/x timed out"));
        assert_eq!(
            tool_error_result(&err)["structuredContent"],
            json!({"error": {"code": -32004, "message": "socket /var/run/x timed out"}})
        );
    }
}
