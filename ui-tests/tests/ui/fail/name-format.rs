use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(name = "look up/object")]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
