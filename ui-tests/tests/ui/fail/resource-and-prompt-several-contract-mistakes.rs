#![deny(deprecated)]
//! Every contract rule holds on resources and prompts, and one build reports
//! every mistake of each attribute.
use mcp_contract::prelude::*;

/// About the museum.
#[mcp_resource(uri = "museum://about", errors(
    closed(code = ServiceUnavailable, recovery = "Read the resource again tomorrow morning."),
    closed(code = ServiceUnavailable, when = "The museum is closed today",
        recovery = "Read the resource again tomorrow morning."),
    Moved(code = NotFound, when = "The museum moved", recovery = "Look it up."),
    broken(code = UnknownError, when = "Something broke", recovery = "", retryable = "yes"),
))]
fn about(ctx: Ctx) -> Result<String, McpError> {
    let _ = ctx;
    Ok(String::new())
}

/// Plan a visit.
#[mcp_prompt(errors())]
fn plan_visit() -> Result<Vec<PromptMessage>, McpError> {
    Ok(Vec::new())
}

/// Plan a tour.
#[mcp_prompt(errors(
    closed(code = ServiceUnavailable, when = "The museum is closed today",
        recovery = "Plan the tour for another day instead."),
))]
fn plan_tour(ctx: Ctx) -> Result<Vec<PromptMessage>, McpError> {
    if ctx.is_cancelled() {
        return Err(McpError::service_unavailable("Closed."));
    }
    Err(McpError::conflict("Already planned."))
}

fn main() {}
