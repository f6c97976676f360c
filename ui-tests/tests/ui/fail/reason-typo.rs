use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(not_in_collection(code = NotFound, when = "No object has this ID",
    recovery = "Search with search_objects first to find valid IDs.")))]
fn lookup(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(not_in_colection, "No such object."))
}

fn main() {}
