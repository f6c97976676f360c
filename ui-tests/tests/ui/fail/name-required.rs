use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(name = "")]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
