use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(busy(code = RateLimited, retryable = "yes", when = "The API throttles us",
    recovery = "Wait thirty seconds, then try again.")))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
