#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Opening hours.
#[mcp_resource(uri = "museum://about", name = "museum://about")]
fn about() -> Result<String, McpError> {
    Ok("Open daily.".into())
}

fn main() {}
