#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(missing(code = NotFound, when = "No object has this ID",
    recovery = "Search with search_objects first to find valid IDs.")))]
fn lookup(ctx: Ctx) -> Result<String, McpError> {
    if ctx.is_cancelled() {
        return Err(McpError::forbidden("Not allowed."));
    }
    Err(ctx.fail(missing, "No such object."))
}

fn main() {}
