#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Ping the server.
#[mcp_tool(errors())]
fn ping() -> Result<String, McpError> {
    Ok("pong".into())
}

fn main() {}
