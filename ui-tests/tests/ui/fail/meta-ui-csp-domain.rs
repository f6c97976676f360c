use mcp_contract::prelude::*;

/// The object viewer's HTML, with CSP domains that are no origins.
#[mcp_resource(
    uri = "ui://museum/object-viewer",
    ui(
        connect_domains = ["collection.example", "https://ok.example"],
        resource_domains = ["https://cdn.example; script-src *"],
        frame_domains = ["https://player.example/embed"],
    )
)]
fn object_viewer() -> Result<String, McpError> {
    Ok("<!doctype html>".into())
}

fn main() {}
