#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(annotations(read_only, destructive = false))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
