use mcp_contract::prelude::*;

/// Opening hours.
#[mcp_resource(name = "about")]
fn about() -> Result<String, McpError> {
    Ok("Open daily.".into())
}

fn main() {}
