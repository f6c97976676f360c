use mcp_contract::prelude::*;

/// The object viewer's HTML, with settings `ui(..)` does not take.
#[mcp_resource(
    uri = "ui://museum/object-viewer",
    ui(
        connect_domain = ["https://collection.example"],
        resource_domains = "https://cdn.example",
        permissions(clipboard, camera),
        prefers_border = "yes",
    )
)]
fn object_viewer() -> Result<String, McpError> {
    Ok("<!doctype html>".into())
}

/// Sandbox settings given as a value, not a list.
#[mcp_resource(uri = "ui://museum/other-viewer", ui = "strict")]
fn other_viewer() -> Result<String, McpError> {
    Ok("<!doctype html>".into())
}

fn main() {}
