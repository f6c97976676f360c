//! A reason at `ctx.fail(..)` that the resource's or prompt's `errors(..)` does not declare.
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ObjectParams {
    object_id: u32,
}

/// One object by its ID.
#[mcp_resource(uri = "museum://objects/{object_id}", errors(
    not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid IDs."),
))]
async fn object_record(params: ObjectParams, ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(not_in_colection, format!("No object {}.", params.object_id)))
}

/// Plan a visit.
#[mcp_prompt(errors(
    no_such_department(code = InvalidParams, when = "The museum has no such department",
        recovery = "Read museum://about for the list of departments."),
))]
fn plan_visit(ctx: &Ctx) -> Result<Vec<PromptMessage>, McpError> {
    Err(ctx.fail(no_such_departement, "No such department."))
}

fn main() {}
