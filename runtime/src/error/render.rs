//! Rendering an [`McpError`] to the two surfaces MCP clients read.
//!
//! Clients differ in what they show the model: some read only the text content,
//! others only `structuredContent`. A tool error therefore goes out on both:
//!
//! - `content[0].text`: `Error: <message>`, then `\n\nRecovery: <hint>` when
//!   `data.recovery.hint` is a non-empty string the message does not already
//!   hold, then the terms line `\n\n(reason <reason> · not retryable · request
//!   <id>)` with the terms `data` holds (see [`error_text`]);
//! - `structuredContent.error`: the error's wire form `{code, message, data?}`;
//! - `isError: true`.

use serde_json::{Value, json};

use crate::error::McpError;

/// The text surface of an error: `Error: <message>`; `\n\nRecovery: <hint>`
/// with a recovery hint; and a last line of the terms a caller branches on,
/// read from `data` so that the two surfaces say the same thing:
/// `reason <reason>` for a non-empty `data.reason`, `retryable` or `not
/// retryable` for a boolean `data.retryable`, `request <id>` for
/// `data.requestId`, joined by ` · ` in parentheses. The reference's shape
/// (0.13.5 for reason and retryable, 0.13.10 for the request); a client that
/// shows only the text still sees what `structuredContent` holds.
///
/// ```
/// use mcp_contract::{McpError, errors::render::error_text};
/// let err = McpError::not_found("No object 42.").with_recovery_hint("Search first.");
/// assert_eq!(error_text(&err), "Error: No object 42.\n\nRecovery: Search first.");
/// let err = err.with_reason("not_in_collection").with_data_field("retryable", false);
/// assert_eq!(
///     error_text(&err),
///     "Error: No object 42.\n\nRecovery: Search first.\n\n(reason not_in_collection · not retryable)"
/// );
/// ```
pub fn error_text(err: &McpError) -> String {
    let message = err.message();
    let mut text = match recovery_hint(err) {
        Some(hint) if !message.contains(hint) => format!("Error: {message}\n\nRecovery: {hint}"),
        _ => format!("Error: {message}"),
    };
    let terms = terms(err);
    if !terms.is_empty() {
        text.push_str("\n\n(");
        text.push_str(&terms.join(" · "));
        text.push(')');
    }
    text
}

/// The terms of `data` the text surface ends with, in the reference's order.
fn terms(err: &McpError) -> Vec<String> {
    let Some(data) = err.data() else { return Vec::new() };
    let mut terms = Vec::new();
    if let Some(reason) = data.get("reason").and_then(Value::as_str).filter(|reason| !reason.trim().is_empty()) {
        terms.push(format!("reason {reason}"));
    }
    match data.get("retryable").and_then(Value::as_bool) {
        Some(true) => terms.push("retryable".to_owned()),
        Some(false) => terms.push("not retryable".to_owned()),
        None => {}
    }
    if let Some(id) = data.get("requestId").and_then(Value::as_str) {
        terms.push(format!("request {id}"));
    }
    terms
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
      "text": "Error: No object 436535 in the collection.\n\nRecovery: Search with search_objects first to find valid object IDs.\n\n(reason not_in_collection)",
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
    fn the_terms_line_says_what_data_says() {
        let err = McpError::not_found("No object 7.")
            .with_data_field("retryable", true)
            .with_data_field("requestId", "7Q2XK-4M9TD")
            .with_reason("not_in_collection");
        assert_eq!(
            error_text(&err),
            "Error: No object 7.\n\n(reason not_in_collection · retryable · request 7Q2XK-4M9TD)"
        );
        let only_id = McpError::internal_error("Broke.").with_data_field("requestId", "AAAAA-BBBBB");
        assert_eq!(error_text(&only_id), "Error: Broke.\n\n(request AAAAA-BBBBB)");
        let odd = McpError::timeout("Slow.").with_data(json!({"reason": " ", "retryable": "no", "requestId": 7}));
        assert_eq!(error_text(&odd), "Error: Slow.", "terms of the wrong type are not invented");
    }

    #[test]
    fn no_recovery_line_without_a_hint_or_when_the_message_has_it() {
        let plain = McpError::new(JsonRpcErrorCode::Conflict, "Already exists.");
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
