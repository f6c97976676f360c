#![deny(warnings)]
//! Every handler shape the attribute accepts.
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// Words to look for.
    pub q: String,
}

#[derive(Serialize, JsonSchema)]
pub struct Hits {
    /// Matching titles.
    pub titles: Vec<String>,
}

/// Async, input and typed context, structured output.
#[mcp_tool(errors(empty_query(code = ValidationError, when = "The query is blank",
    recovery = "Pass at least one word in the q field.")))]
pub async fn search(input: Query, ctx: Ctx) -> Result<Hits, McpError> {
    if input.q.trim().is_empty() {
        return Err(ctx.fail(empty_query, "The query is blank.").with_recovery());
    }
    Ok(Hits { titles: vec![input.q] })
}

/// Sync, no input, no context, text only.
#[mcp_tool]
fn ping() -> Result<String, McpError> {
    Ok("pong".into())
}

/// Input only.
#[mcp_tool]
async fn echo(input: Query) -> Result<String, McpError> {
    Ok(input.q)
}

/// Context first, then input; the untyped context.
#[mcp_tool]
async fn untyped(ctx: Context, input: Query) -> Result<String, McpError> {
    Ok(format!("{} from {}", input.q, ctx.tool_name()))
}

/// The typed context written out.
#[mcp_tool(errors(gone(code = NotFound, when = "Nothing is there",
    recovery = "Call search first to find something that exists.")))]
fn explicit(ctx: Ctx<ExplicitReason>) -> Result<String, McpError> {
    Err(ctx.fail(ExplicitReason::Gone, "Nothing is there."))
}

#[derive(Debug)]
pub struct StoreError;

impl From<StoreError> for McpError {
    fn from(_: StoreError) -> Self {
        McpError::database_error("The store failed.")
    }
}

/// Any error that converts into `McpError`.
#[mcp_tool]
fn own_error() -> Result<String, StoreError> {
    Err(StoreError)
}

/// Content blocks from a format function.
#[mcp_tool(format = as_blocks, title = "Blocks", annotations(idempotent, open_world = false, title = "Blocks"),
    auth("objects:read", "objects:write"))]
fn blocks() -> Result<Hits, McpError> {
    Ok(Hits { titles: vec!["a".into()] })
}

fn as_blocks(hits: &Hits) -> Vec<Content> {
    hits.titles.iter().map(Content::text).collect()
}

/// The context by reference, in an async handler.
#[mcp_tool(errors(late(code = Timeout, when = "The work took too long",
    recovery = "Ask for fewer items in one call.")))]
async fn borrowed(ctx: &Ctx) -> Result<String, McpError> {
    Err(ctx.fail(late, "Too slow."))
}

fn assert_tool<T: Tool>(_: T) {}

fn main() {
    assert_tool(Search);
    assert_tool(Ping);
    assert_tool(Echo);
    assert_tool(Untyped);
    assert_tool(Explicit);
    assert_tool(OwnError);
    assert_tool(Blocks);
    assert_tool(Borrowed);
    let _ = SearchReason::EmptyQuery;
}
