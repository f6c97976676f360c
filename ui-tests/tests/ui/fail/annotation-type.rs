use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(annotations(read_only = "yes", title = 3))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
