#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(allow(error-contract-reason-unused), errors(NotInCollection(code = NotFound, when = "No object has this ID",
    recovery = "Search with search_objects first to find valid IDs.")))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
