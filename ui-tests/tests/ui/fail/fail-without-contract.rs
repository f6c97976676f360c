use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool]
fn lookup(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail("missing", "No such object."))
}

fn main() {}
