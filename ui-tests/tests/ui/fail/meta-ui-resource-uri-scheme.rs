#![deny(deprecated)]

use mcp_contract::prelude::*;

/// Show one object in the viewer.
#[mcp_tool(app = "https://museum.example/viewer")]
fn show_object() -> Result<String, McpError> {
    Ok("shown".into())
}

fn main() {}
