use mcp_contract::prelude::*;

/// The object viewer's HTML, served as plain HTML: hosts would not render it as an app.
#[mcp_resource(uri = "ui://museum/object-viewer", mime_type = "text/html", ui(prefers_border = true))]
fn object_viewer() -> Result<String, McpError> {
    Ok("<!doctype html>".into())
}

fn main() {}
