//! The code `#[mcp_tool]` generates compiles clean under strict lints in a user's
//! crate; `cargo clippy --all-targets -- -D warnings` (CI) checks the pedantic set.
#![deny(warnings, clippy::pedantic, missing_docs, unused)]

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

/// Renders an output.
#[must_use]
pub fn render(output: &Output) -> String {
    output.title.clone()
}

/// Fetch one object by its ID.
///
/// # Errors
/// `not_in_collection` when the ID is 0.
#[mcp_tool(
    annotations(read_only),
    format = render,
    auth("objects:read"),
    errors(not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Search with search_objects first to find valid object IDs.", retryable = false)),
)]
pub fn get_object(Input { id }: Input, ctx: &Ctx) -> Result<Output, McpError> {
    if id == 0 {
        return Err(ctx.fail(not_in_collection, "No object 0.").with_recovery());
    }
    Ok(Output { title: format!("object {id}") })
}

/// Say hello.
///
/// # Errors
/// Never.
#[mcp_tool]
pub fn hello() -> Result<String, McpError> {
    Ok("hello".to_owned())
}

#[test]
fn generated_items_exist() {
    assert_eq!(GetObject.definition().name, "get_object");
    assert_eq!(GetObject.definition().auth_scopes, ["objects:read"]);
    assert_eq!(Hello.definition().auth_scopes, &[] as &[&str]);
    assert_eq!(GetObjectReason::ALL.len(), 1);
}
