use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ObjectParams {
    object_id: u32,
}

/// A variable that is no field of the params struct.
#[mcp_resource(uri = "museum://objects/{objectid}")]
fn misspelled(params: ObjectParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

/// Variables without a params struct.
#[mcp_resource(uri = "museum://objects/{object_id}")]
fn no_params() -> Result<String, McpError> {
    Ok(String::new())
}

/// A params struct for a static URI.
#[mcp_resource(uri = "museum://about")]
fn static_with_params(params: ObjectParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

#[derive(Deserialize, JsonSchema)]
struct ImageParams {
    object_id: u32,
    size: Option<String>,
}

/// A field that no variable fills.
#[mcp_resource(uri = "museum://objects/{object_id}/image")]
fn extra_field(params: ImageParams) -> Result<String, McpError> {
    Ok(format!("{}{:?}", params.object_id, params.size))
}

fn main() {}
