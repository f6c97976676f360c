use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(missing(code = NotFound, when = "No object has this ID", recovery = "  ")))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
