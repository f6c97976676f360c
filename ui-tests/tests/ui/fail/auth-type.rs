use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(auth = "objects:read")]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

/// Look another object up.
#[mcp_tool(auth(objects_read, 7))]
fn lookup_other() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
