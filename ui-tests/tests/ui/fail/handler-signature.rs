use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool]
fn lookup() -> String {
    "found".into()
}



/// Two inputs.
#[mcp_tool]
fn two_inputs(first: u32, second: u32) -> Result<String, McpError> {
    Ok(format!("{first}{second}"))
}
fn main() {}
