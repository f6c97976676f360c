//! `errors(..)` on a resource and a prompt is checked as on a tool.
use mcp_contract::prelude::*;

/// About the museum.
#[mcp_resource(uri = "museum://about", errors(closed(code = NotFund, when = "The museum is closed today",
    recovery = "Read the resource again tomorrow morning.")))]
fn about(ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(closed, "Closed."))
}

/// Plan a visit.
#[mcp_prompt(errors(closed(code = 404, when = "The museum is closed today",
    recovery = "Plan the visit for another day instead.")))]
fn plan_visit(ctx: Ctx) -> Result<Vec<PromptMessage>, McpError> {
    Err(ctx.fail(closed, "Closed."))
}

fn main() {}
