//! JSON Schemas of tool input and output.

use std::sync::Arc;

use schemars::JsonSchema;
use serde_json::Value;

use crate::errors::JsonObject;

/// The input schema of `T`.
pub fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    Arc::new(object(schemars::schema_for!(T).to_value()))
}

/// The output schema of `T`.
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    Arc::new(object(schemars::schema_for!(T).to_value()))
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}
