use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(
    "not_found",
    gone = "NotFound",
    withdrawn(code = Forbidden, when = "The object was withdrawn", recovery = "Pick another object of the collection."),
))]
fn lookup(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(withdrawn, "withdrawn"))
}

fn main() {}
