use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(
    missing(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid IDs."),
    missing(code = Conflict, when = "The object is locked",
        recovery = "Wait until the edit finishes, then try again."),
))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
