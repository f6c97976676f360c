use mcp_contract::prelude::*;

/// Ask the user before deleting.
#[mcp_tool(requires(elicitations))]
fn delete() -> Result<String, McpError> {
    Ok("deleted".into())
}

/// Summarize with the client's model.
#[mcp_tool(requires = "sampling")]
fn summarize() -> Result<String, McpError> {
    Ok("summary".into())
}

fn main() {}
