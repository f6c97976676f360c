use mcp_contract::prelude::*;

/// Look an object up: each entry's `severity` is none of the four levels.
#[mcp_tool(errors(
    missing(code = NotFound, when = "No object has this ID", severity = notise,
        recovery = "Search with search_objects first to find valid IDs."),
    broken(code = ValidationError, when = "The ID is malformed", severity = error,
        recovery = "Send the numeric ID that search_objects returned."),
    busy(code = RateLimited, when = "The collection API throttles us", severity = 3,
        recovery = "Wait thirty seconds, then call lookup again."),
))]
fn lookup(ctx: Ctx) -> Result<String, McpError> {
    Err(match 0 {
        0 => ctx.fail(missing, "No such object."),
        1 => ctx.fail(broken, "Bad ID."),
        _ => ctx.fail(busy, "Slow down."),
    })
}

fn main() {}
