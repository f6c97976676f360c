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

/// Export the library: `input_first` without `optional` or `required`.
#[mcp_tool(task(input_first))]
fn export_library() -> Result<String, McpError> {
    Ok("exported".into())
}

/// Export the catalogue: a word twice, and an unknown one.
#[mcp_tool(task(required, input_first, optional, later))]
fn export_catalogue() -> Result<String, McpError> {
    Ok("exported".into())
}

fn main() {}
