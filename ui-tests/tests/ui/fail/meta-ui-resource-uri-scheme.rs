#![deny(deprecated)]

use mcp_contract::prelude::*;

/// Show one object in the viewer.
#[mcp_tool(app = "https://museum.example/viewer")]
fn show_object() -> Result<String, McpError> {
    Ok("shown".into())
}

/// The viewer's HTML, served at a URI hosts do not fetch apps from.
#[mcp_resource(uri = "museum://viewer", ui)]
fn viewer() -> Result<String, McpError> {
    Ok("<!doctype html>".into())
}

fn main() {}
