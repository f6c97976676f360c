#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Read the catalogue.
#[mcp_tool]
fn catalogue() -> Result<String, McpError> {
    match std::fs::read_to_string("catalogue.json") {
        Ok(text) => Ok(text),
        Err(err) => Err(McpError::internal_error(format!("read failed: {err:?}")).with_cause(err)),
    }
}

fn main() {}
