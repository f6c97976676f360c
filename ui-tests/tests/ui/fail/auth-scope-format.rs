use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(auth("objects:read", "", "objects write"))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
