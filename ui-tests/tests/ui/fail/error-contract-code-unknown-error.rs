#![deny(deprecated)]
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(allow(error-contract-reason-unused), errors(broken(code = UnknownError, when = "Something broke",
    recovery = "Try the call again in a minute.")))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
