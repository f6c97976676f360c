//! The error envelope of an advertised output schema.
//!
//! A tool error result carries `structuredContent: {"error": {code, message,
//! data?}}`. Strict clients (the official TypeScript SDK, the MCP Inspector)
//! validate `structuredContent` against the tool's `outputSchema` even when
//! `isError` is true, so a plain success schema makes them reject every error
//! result. The advertised schema therefore also admits the envelope: the
//! success fields become optional and an `error` property is added.
//!
//! It stays one typed object schema, with no `anyOf` branch, because some
//! vendors (Gemini) reject typeless `anyOf` branches and `$defs`.
//!
//! This is the minimal piece the server needs; the portable-schema module may
//! widen schemas itself, which this function detects and leaves alone.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::errors::JsonObject;

/// The `error` property of a widened output schema.
fn envelope() -> Value {
    json!({
        "type": "object",
        "description": "Present only when the call failed (isError is true): the error's JSON-RPC code, message and data.",
        "properties": {
            "code": { "type": "integer", "description": "The JSON-RPC error code." },
            "message": { "type": "string", "description": "What went wrong, for the model." },
            "data": { "type": "object", "description": "Details: `reason` of a declared failure mode, `recovery.hint`, and more." },
        },
        "required": ["code", "message"],
    })
}

/// `schema` widened to also accept an error result's `structuredContent`.
///
/// Idempotent: a schema that already has an `error` property is returned as it is.
pub(crate) fn with_error_envelope(schema: &Arc<JsonObject>) -> Arc<JsonObject> {
    if schema.get("properties").and_then(|properties| properties.get("error")).is_some() {
        return Arc::clone(schema);
    }
    let mut widened = JsonObject::clone(schema);
    widened.entry("type").or_insert_with(|| Value::String("object".to_owned()));
    // On an error result no success field is present, so none can stay required.
    widened.remove("required");
    let properties = widened.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
    if let Value::Object(properties) = properties {
        properties.insert("error".to_owned(), envelope());
    }
    Arc::new(widened)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Arc<JsonObject> {
        match value {
            Value::Object(object) => Arc::new(object),
            _ => unreachable!("test fixtures are objects"),
        }
    }

    #[test]
    fn success_fields_become_optional_and_error_is_added() {
        let schema = object(json!({
            "type": "object",
            "properties": {"title": {"type": "string"}},
            "required": ["title"],
            "additionalProperties": false,
        }));
        let widened = with_error_envelope(&schema);
        assert_eq!(widened.get("required"), None);
        assert_eq!(widened["additionalProperties"], false);
        assert_eq!(widened["properties"]["title"], json!({"type": "string"}));
        assert_eq!(widened["properties"]["error"]["required"], json!(["code", "message"]));
        assert!(!Value::Object(JsonObject::clone(&widened)).to_string().contains("anyOf"));
    }

    #[test]
    fn widening_twice_changes_nothing() {
        let schema = object(json!({"type": "object", "properties": {}}));
        let once = with_error_envelope(&schema);
        let twice = with_error_envelope(&once);
        assert!(Arc::ptr_eq(&once, &twice));
    }

    #[test]
    fn a_schema_without_properties_gets_them() {
        let widened = with_error_envelope(&object(json!({})));
        assert_eq!(widened["type"], "object");
        assert_eq!(widened["properties"]["error"]["type"], "object");
    }
}
