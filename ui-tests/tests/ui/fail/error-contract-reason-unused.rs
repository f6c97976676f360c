#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[allow(unused_variables)]
#[mcp_tool(errors(
    not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid IDs."),
    upstream_busy(code = RateLimited, when = "The collection API throttles us",
        recovery = "Wait thirty seconds, then call lookup again."),
))]
fn lookup(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(not_in_collection, "No such object."))
}

/// Silenced for this tool.
#[mcp_tool(allow(error-contract-reason-unused), errors(
    upstream_busy(code = RateLimited, when = "The collection API throttles us",
        recovery = "Wait thirty seconds, then call lookup again."),
))]
fn quiet() -> Result<String, McpError> {
    Ok(String::new())
}

fn main() {}
