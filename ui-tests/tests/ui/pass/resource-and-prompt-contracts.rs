#![deny(warnings)]
//! `errors(..)`, `reason_type`, `resource_type`/`prompt_type`, `crate` and
//! `allow(..)` on resources and prompts,
//! as on tools: typed `fail`, `fail_from`, `recovery_for`, reasons by name only
//! at those calls, and a `test_ctx()`.
use mcp_contract::prelude::*;

mod reexport {
    pub use mcp_contract as mcp;
}

#[derive(Deserialize, JsonSchema)]
struct ObjectParams {
    object_id: u32,
}

/// The author's own `timeout`, which a reason of the same name does not hide.
fn timeout() -> u32 {
    7
}

/// One object by its ID.
#[mcp_resource(uri = "museum://objects/{object_id}", crate = reexport::mcp, reason_type = ObjectFailure, errors(
    not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid IDs."),
    timeout(code = Timeout, retryable, when = "The collection API did not answer in time",
        recovery = "Read the object again in a few seconds."),
))]
async fn object_record(params: ObjectParams, ctx: Ctx) -> Result<String, McpError> {
    if params.object_id == timeout() {
        let err = std::io::Error::new(std::io::ErrorKind::TimedOut, "upstream");
        return Err(ctx.fail_from(timeout, err));
    }
    Err(ctx.fail(not_in_collection, "No such object.").with_recovery())
}

/// Plan a visit.
#[mcp_prompt(errors(
    closed(code = ServiceUnavailable, when = "The museum is closed today",
        recovery = "Plan the visit for another day instead."),
))]
fn plan_visit(ctx: &Ctx) -> Result<Vec<PromptMessage>, McpError> {
    let _hint = ctx.recovery_for(closed);
    Err(ctx.fail(closed, "Closed today."))
}

#[mcp_resource(uri = "museum://about", allow(description-required))]
fn about() -> Result<String, McpError> {
    Ok(String::new())
}

/// The author's own types, named as the generated ones would be.
struct Hours;
struct Closing;

/// Opening hours.
#[mcp_resource(uri = "museum://hours", resource_type = HoursResource)]
fn hours() -> Result<String, McpError> {
    Ok("10:00-17:00".into())
}

/// Say the museum closes soon.
#[mcp_prompt(prompt_type = ClosingPrompt)]
fn closing() -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::assistant("We close in fifteen minutes.")])
}

fn main() {
    assert_eq!(Resource::definition(&HoursResource).name, "hours");
    assert_eq!(Prompt::definition(&ClosingPrompt).name, "closing");
    let _ = (Hours, Closing);
    assert_eq!(ObjectFailure::Timeout.as_str(), "timeout");
    assert!(ObjectFailure::Timeout.retryable());
    assert_eq!(Resource::definition(&ObjectRecord).errors.len(), 2);
    assert_eq!(Prompt::definition(&PlanVisit).errors[0].reason, "closed");
    let ctx = PlanVisit::test_ctx();
    assert_eq!(plan_visit(&ctx).unwrap_err().reason(), Some("closed"));
    let _ = (ObjectRecord::test_ctx(), About);
}
