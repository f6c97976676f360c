use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ObjectParams {
    object_id: u32,
}

/// One object.
#[mcp_resource(uri = "museum://objects/{object id}")]
fn space_in_name(params: ObjectParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

/// One object.
#[mcp_resource(uri = "museum://objects/{=object_id}")]
fn reserved_operator(params: ObjectParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

/// One object.
#[mcp_resource(uri = "museum://objects/{object_id")]
fn unclosed(params: ObjectParams) -> Result<String, McpError> {
    Ok(params.object_id.to_string())
}

fn main() {}
