//! The code `#[mcp_resource]` and `#[mcp_prompt]` generate compiles clean under
//! strict lints in a user's crate; `cargo clippy --all-targets -- -D warnings`
//! (CI) checks the pedantic set.
#![deny(warnings, clippy::pedantic, missing_docs, unused)]

use mcp_contract::prelude::*;

/// Shared state.
pub struct Museum {
    /// Its name.
    pub name: &'static str,
}

/// The variables of the object template.
#[derive(Deserialize, JsonSchema)]
pub struct ObjectParams {
    /// An id.
    pub object_id: u32,
}

/// One object by its ID.
///
/// # Errors
/// `NotFound` when the ID is 0.
#[mcp_resource(uri = "museum://objects/{object_id}", name = "object_record", mime_type = "application/json")]
pub async fn object_record(
    ObjectParams { object_id }: ObjectParams,
    ctx: &Context,
) -> Result<ReadResourceResult, McpError> {
    ctx.cancellation_token().run_until_cancelled(std::future::ready(())).await;
    if object_id == 0 {
        return Err(McpError::not_found("No object 0."));
    }
    ReadResourceResult::json(&object_id)
}

/// About the museum.
///
/// # Errors
/// Never.
#[mcp_resource(uri = "museum://about")]
#[allow(clippy::needless_pass_by_value, reason = "handlers take their state by value")]
pub fn about(museum: State<Museum>) -> Result<String, McpError> {
    Ok(museum.name.to_owned())
}

/// The arguments of the visit prompt.
#[derive(Deserialize, JsonSchema)]
pub struct VisitArgs {
    /// A department.
    pub department: String,
}

/// Plan a visit.
///
/// # Errors
/// Never.
#[mcp_prompt]
pub fn plan_visit(args: VisitArgs, ctx: &Ctx) -> Result<Vec<PromptMessage>, McpError> {
    let _ = ctx.is_cancelled();
    Ok(vec![PromptMessage::user(args.department)])
}

/// A department's floor plan.
///
/// # Errors
/// `NotFound` for a department the museum does not have.
#[mcp_resource(uri = "museum://departments/{department}/plan", errors(
    no_such_department(code = NotFound, when = "The museum has no department of this name",
        recovery = "Read museum://about for the list of departments."),
))]
pub async fn floor_plan(params: PlanParams, ctx: Ctx) -> Result<String, McpError> {
    ctx.cancellation_token().run_until_cancelled(std::future::ready(())).await;
    if params.department.is_empty() {
        return Err(ctx.fail(no_such_department, "No such department.").with_recovery());
    }
    Ok(params.department)
}

/// The variables of the floor plan template.
#[derive(Deserialize, JsonSchema)]
pub struct PlanParams {
    /// A department.
    pub department: String,
}

/// Plan a tour.
///
/// # Errors
/// `ServiceUnavailable` on closing days.
#[mcp_prompt(errors(
    closed(code = ServiceUnavailable, when = "The museum is closed today",
        recovery = "Plan the tour for another day instead."),
))]
pub fn plan_tour(args: VisitArgs, ctx: &Ctx) -> Result<Vec<PromptMessage>, McpError> {
    if args.department.is_empty() {
        return Err(ctx.fail(closed, "Closed today."));
    }
    Ok(vec![PromptMessage::user(args.department)])
}

#[test]
fn generated_items_exist() {
    assert_eq!(FloorPlanReason::NoSuchDepartment.as_str(), "no_such_department");
    assert_eq!(Prompt::definition(&PlanTour).errors[0].reason, PlanTourReason::Closed.as_str());
    assert_eq!(Resource::definition(&ObjectRecord).name, "object_record");
    assert_eq!(Resource::definition(&About).name, "about");
    assert_eq!(Prompt::definition(&PlanVisit).arguments.len(), 1);
}
