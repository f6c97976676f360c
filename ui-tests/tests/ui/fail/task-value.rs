use mcp_contract::prelude::*;

/// Export the collection.
#[mcp_tool(task(sometimes))]
fn export() -> Result<String, McpError> {
    Ok("exported".into())
}

/// Export the archive.
#[mcp_tool(task = "required")]
fn export_archive() -> Result<String, McpError> {
    Ok("exported".into())
}

fn main() {}
