#![deny(deprecated)]
//! A declared reason the resource or prompt never fails with; `allow(..)` silences it.
use mcp_contract::prelude::*;

/// About the museum.
#[mcp_resource(uri = "museum://about", errors(
    closed(code = ServiceUnavailable, when = "The museum is closed today",
        recovery = "Read the resource again tomorrow morning."),
    moved(code = NotFound, when = "The museum moved",
        recovery = "Read museum://address for the new address."),
))]
fn about(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(closed, "Closed."))
}

/// Plan a visit.
#[mcp_prompt(errors(
    closed(code = ServiceUnavailable, when = "The museum is closed today",
        recovery = "Plan the visit for another day instead."),
))]
fn plan_visit() -> Result<Vec<PromptMessage>, McpError> {
    Ok(Vec::new())
}

/// Silenced for this prompt.
#[mcp_prompt(allow(error-contract-reason-unused), errors(
    closed(code = ServiceUnavailable, when = "The museum is closed today",
        recovery = "Plan the visit for another day instead."),
))]
fn quiet() -> Result<Vec<PromptMessage>, McpError> {
    Ok(Vec::new())
}

fn main() {}
