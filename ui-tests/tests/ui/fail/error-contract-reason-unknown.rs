use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(
    not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid IDs."),
    upstream_busy(code = RateLimited, when = "The collection API throttles us",
        recovery = "Wait thirty seconds, then call lookup again."),
))]
async fn lookup(ctx: Ctx) -> Result<String, McpError> {
    if ctx.is_cancelled() {
        // Inside a macro call too.
        return Err(tokio::select! { () = std::future::ready(()) => ctx.fail(upstream_bsy, "Throttled.") });
    }
    Err(ctx.fail(not_in_colection, "No such object."))
}

/// Search the notes.
#[mcp_tool(errors(
    no_match(code = NotFound, when = "No note matches the query",
        recovery = "Search again with fewer words in the query."),
))]
async fn search_notes(ctx: Ctx) -> Result<String, McpError> {
    // A typo written as a path gets the declared reasons too, not rustc's plain E0599.
    Err(ctx.fail(SearchNotesReason::NoMtch, "Nothing matches."))
}

fn main() {}
