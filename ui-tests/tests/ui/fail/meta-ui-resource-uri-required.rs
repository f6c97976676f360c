use mcp_contract::prelude::*;

/// Show one object in the viewer.
#[mcp_tool(app = "")]
fn show_object() -> Result<String, McpError> {
    Ok("shown".into())
}

fn main() {}
