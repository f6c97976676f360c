#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool]
fn lookup() -> Result<String, McpError> {
    Err(McpError::new(JsonRpcErrorCode::InternalError, "The index is corrupt."))
}

fn main() {}
