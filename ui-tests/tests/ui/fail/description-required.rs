#![deny(deprecated)]
use mcp_contract::prelude::*;

#[mcp_tool]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
