#![deny(deprecated)]
//! One attribute with many mistakes: every one is reported in one build.
use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(errors(
    Missing(code = NotFund, when = "No object has this ID", recovery = "Search first."),
    busy(code = RateLimited, retryable = 1, recovery = ""),
    busy(code = Timeout, when = "Too slow", recovery = "Try again with a smaller page size."),
    gone(when = "Deleted"),
))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}
