#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Read the catalogue.
#[mcp_tool]
fn catalogue() -> Result<String, McpError> {
    std::fs::read_to_string("catalogue.json").map_err(|_| McpError::internal_error("The catalogue is unreadable."))
}

fn main() {}
