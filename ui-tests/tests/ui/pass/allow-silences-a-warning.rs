#![deny(deprecated)]
//! `allow(rule-id)` on the tool and a forwarded `#[allow(deprecated)]` both silence warnings.
use mcp_contract::prelude::*;

#[mcp_tool(allow(description-required, error-contract-recovery-min-words, error-contract-reason-unused),
    errors(missing(code = NotFound, when = "No object has this ID", recovery = "Search first.")))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

#[allow(deprecated)]
#[mcp_tool(errors())]
fn forwarded() -> Result<String, McpError> {
    Ok("found".into())
}

fn main() {}

/// Body rules are silenced the same way.
#[mcp_tool(allow(prefer-error-factory))]
fn spelled_out() -> Result<String, McpError> {
    Err(McpError::new(JsonRpcErrorCode::InternalError, "The index is corrupt."))
}
