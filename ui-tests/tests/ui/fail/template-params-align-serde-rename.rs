//! A params struct that renames its fields for serde: the macro compares Rust
//! field names, so it needs `params_renamed` (see the pass case of the same
//! name); `allow(..)` of the error rule says so.
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ObjectParams {
    #[serde(rename = "objectId")]
    object_id: u32,
}

/// Without `params_renamed`: the variable is no Rust field.
#[mcp_resource(uri = "museum://objects/{objectId}")]
fn object_record(params: ObjectParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

/// An error rule cannot be allowed.
#[mcp_resource(uri = "museum://objects/{objectId}/image", allow(template-params-align))]
fn object_image(params: ObjectParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

fn main() {}
