use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(
    http_status(code = 404, when = "w", recovery = "Search first to find a valid object ID."),
    wire_number(code = -32003, when = "w", recovery = "Wait thirty seconds, then try again."),
    quoted(code = "NotFound", when = "w", recovery = "Search first to find a valid object ID."),
    quoted_typo(code = "NotFund", when = "w", recovery = "Search first to find a valid object ID."),
    odd_number(code = 7, when = "w", recovery = "Search first to find a valid object ID."),
))]
fn lookup() -> Result<String, McpError> {
    Ok(String::new())
}

fn main() {}
