#![deny(warnings, missing_docs, unused)]
//! The generated code is clean under strict lints in a user's crate.
use mcp_contract::prelude::*;

/// The input.
#[derive(Deserialize, JsonSchema)]
pub struct Input {
    /// An id.
    pub id: u32,
}

/// The output.
#[derive(Serialize, JsonSchema)]
pub struct Output {
    /// A title.
    pub title: String,
}

/// Fetch one object by its ID.
#[mcp_tool(
    annotations(read_only),
    errors(not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid object IDs."),
    ),
)]
pub async fn get_object(input: Input, ctx: Ctx) -> Result<Output, McpError> {
    if input.id == 0 {
        return Err(ctx.fail(not_in_collection, "No object 0."));
    }
    Ok(Output { title: format!("object {}", input.id) })
}

fn main() {}
