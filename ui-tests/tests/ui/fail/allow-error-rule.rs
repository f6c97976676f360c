use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(name = "", allow(name-required, no-such-rule))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
