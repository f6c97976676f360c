#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(allow(error-contract-reason-unused), errors(missing(code = NotFound, when = "No object has this ID",
    recovery = "Search with search_objects first to find valid IDs.")))]
fn lookup(_ctx: Ctx) -> Result<String, McpError> {
    Err(McpError::not_found("No such object."))
}

fn main() {}
