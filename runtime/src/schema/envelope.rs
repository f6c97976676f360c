//! The output schema a server advertises: the success shape or the error envelope.

use serde_json::{Value, json};

use super::{ANNOTATIONS, into_object, is_object_schema, portable};
use crate::error::JsonObject;

/// The schema a server advertises as the `outputSchema` of a tool whose
/// success shape is `success`: it also accepts the tool's error results,
/// `{"error": {code, message, data?}}`.
///
/// Needed because the official TypeScript SDK validates the `structuredContent`
/// of error results too (see the [module documentation](super)). The success
/// shape stays exactly as strict as `success` says; `success` is made
/// [`portable`] first.
///
/// When `success` is a plain object schema (properties, `required`,
/// `additionalProperties`, annotations, `$defs`) with no property named
/// `error`, its properties stay at the top, `error` joins them, and the required
/// fields move into an `anyOf` of two typed branches: the tool's fields, or
/// `error`. Clients that read `outputSchema.properties` keep working. Otherwise
/// (a tagged enum, a field named `error`, other keywords) the result is
/// `{"type": "object", "anyOf": [success, error envelope]}`.
///
/// ```
/// use mcp_contract::schema::{output_schema, widen_for_error_results};
/// use serde_json::json;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Output { title: String }
///
/// let widened = widen_for_error_results(&output_schema::<Output>());
/// assert_eq!(widened["anyOf"], json!([
///     {"type": "object", "required": ["title"]},
///     {"type": "object", "required": ["error"]}
/// ]));
/// assert_eq!(widened["properties"]["title"], json!({"type": "string"}));
/// assert_eq!(widened["properties"]["error"]["required"], json!(["code", "message"]));
/// ```
pub fn widen_for_error_results(success: &JsonObject) -> JsonObject {
    let mut success = portable(success.clone());
    let mergeable = is_object_schema(&success)
        && success.get("properties").and_then(Value::as_object).is_some_and(|props| !props.contains_key("error"))
        && success.keys().all(|key| {
            ANNOTATIONS.contains(&key.as_str())
                || ["type", "properties", "required", "additionalProperties", "$defs"].contains(&key.as_str())
        });
    if mergeable {
        let mut success_branch = into_object(json!({"type": "object"}));
        if let Some(required) = success.remove("required")
            && required.as_array().is_some_and(|required| !required.is_empty())
        {
            success_branch.insert("required".to_owned(), required);
        }
        if let Some(Value::Object(properties)) = success.get_mut("properties") {
            properties.insert("error".to_owned(), Value::Object(error_object_schema()));
        }
        success.insert("anyOf".to_owned(), json!([success_branch, {"type": "object", "required": ["error"]}]));
        return success;
    }
    let defs = success.remove("$defs");
    let mut widened = JsonObject::new();
    widened.insert("type".to_owned(), json!("object"));
    widened.insert("anyOf".to_owned(), json!([success, error_envelope_schema()]));
    if let Some(defs) = defs {
        widened.insert("$defs".to_owned(), defs);
    }
    widened
}

/// The schema of a tool error's structured content alone: `{"error": {code, message, data?}}`.
///
/// ```
/// use mcp_contract::{McpError, errors::render::structured_error, schema::error_envelope_schema};
/// let schema = error_envelope_schema();
/// assert_eq!(schema["required"], serde_json::json!(["error"]));
/// // What `render` sends has exactly the fields the schema allows.
/// let sent = structured_error(&McpError::not_found("No object 42.").with_reason("not_in_collection"));
/// let allowed = schema["properties"]["error"]["properties"].as_object().unwrap();
/// assert!(sent["error"].as_object().unwrap().keys().all(|key| allowed.contains_key(key)));
/// ```
pub fn error_envelope_schema() -> JsonObject {
    into_object(json!({
        "type": "object",
        "properties": {"error": error_object_schema()},
        "required": ["error"],
        "additionalProperties": false
    }))
}

fn error_object_schema() -> JsonObject {
    into_object(json!({
        "description": "Present only when the call failed (`isError: true`).",
        "type": "object",
        "properties": {
            "code": {"description": "The JSON-RPC error code, e.g. -32001 for NotFound.", "type": "integer"},
            "message": {"description": "What went wrong.", "type": "string"},
            "data": {
                "description": "Details: `reason` names the declared failure mode; `recovery.hint` says what to do next.",
                "type": "object"
            }
        },
        "required": ["code", "message"],
        "additionalProperties": false
    }))
}
