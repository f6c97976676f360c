use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(nmae = "lookup", errors(missing(cod = NotFound, when = "No object has this ID",
    recovery = "Search with search_objects first to find valid IDs.")))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}


/// Look an object up again.
#[mcp_tool(errors = "none", allow(error-contract-emtpy))]
fn lookup_again() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
