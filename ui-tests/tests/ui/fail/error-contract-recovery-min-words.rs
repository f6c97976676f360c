#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(allow(error-contract-reason-unused), errors(missing(code = NotFound, when = "No object has this ID", recovery = "Search first.")))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
