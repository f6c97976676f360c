#![deny(warnings)]
//! A reason's name is no binding: the body's own `timeout` (a local, and
//! `tokio::time::timeout`) keeps its meaning, and `ctx.fail(timeout, ..)` still
//! names the reason, also inside a macro call.
use mcp_contract::prelude::*;

/// Wait for the archive, but not for long.
#[mcp_tool(errors(
    timeout(code = Timeout, when = "The archive took too long",
        recovery = "Ask for fewer objects in one call."),
    archive_down(code = ServiceUnavailable, when = "The archive does not answer",
        recovery = "Wait a minute, then call this tool again."),
))]
async fn wait_for_archive(ctx: Ctx) -> Result<String, McpError> {
    let timeout = std::time::Duration::from_millis(1);
    let waited = tokio::time::timeout(timeout, std::future::pending::<()>()).await;
    if waited.is_err() {
        return Err(ctx.fail(timeout, format!("No answer within {timeout:?}.")));
    }
    let archive_down = false;
    tokio::select! {
        () = std::future::ready(()), if archive_down => Err(ctx.fail(archive_down, "The archive is down.")),
        () = std::future::ready(()) => Ok("ready".to_owned()),
    }
}

fn main() {
    assert_eq!(WaitForArchiveReason::ALL.len(), 2);
}
