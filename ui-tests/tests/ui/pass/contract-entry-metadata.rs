#![deny(deprecated)]
//! A contract entry's `severity`, `recovery_private` and `raised_by = service`:
//! the reason a service raises is no `error-contract-reason-unused` warning
//! (denied here), and each key reaches the built contract.
use mcp_contract::prelude::*;
use mcp_contract::Reason;
use mcp_contract::errors::ErrorSeverity;

/// The service the tool calls: it knows the reason by name only.
fn catalogue(id: u32) -> Result<String, McpError> {
    Err(McpError::service_unavailable(format!("The catalogue cannot read {id}.")).with_reason("catalogue_down"))
}

/// Look an object up.
#[mcp_tool(errors(
    missing(code = NotFound, when = "No object has this ID", severity = notice,
        recovery = "Search with search_objects first to find valid IDs."),
    declined(code = InvalidRequest, when = "The visitor declined", severity = "debug", recovery_private,
        recovery = "Ask the visitor again only if they bring it up."),
    catalogue_down(code = ServiceUnavailable, when = "The catalogue is down", raised_by = service,
        recovery = "Wait a minute, then call lookup again."),
))]
fn lookup(ctx: Ctx) -> Result<String, McpError> {
    match 7 {
        0 => Err(ctx.fail(missing, "No such object.")),
        1 => Err(ctx.fail(declined, "Declined.")),
        id => catalogue(id),
    }
}

fn main() {
    let contract = LookupReason::CONTRACT;
    assert_eq!(contract[0].severity, Some(ErrorSeverity::Notice));
    assert_eq!(contract[1].severity, Some(ErrorSeverity::Debug));
    assert!(contract[1].recovery_private && !contract[0].recovery_private);
    assert_eq!(contract[2].severity, None);
}
