use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors = "not_found")]
fn lookup() -> Result<String, McpError> {
    Ok(String::new())
}

fn main() {}
