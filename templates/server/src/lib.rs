//! {{description}}
//!
//! The tools and the server live here, so that `src/main.rs` serves them and
//! `tests/` drives the same server with the `testing` client.

use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"name": "Ada"}))]
pub struct GreetInput {
    /// Who to greet, e.g. "Ada".
    pub name: String,
}

/// Greet someone by name.
#[mcp_tool(
    annotations(read_only, open_world = false),
    errors(
        empty_name(code = InvalidParams, when = "The name is empty or only spaces",
            recovery = "Call greet again with the person's name, e.g. {\"name\": \"Ada\"}."),
    ),
)]
pub async fn greet(input: GreetInput, ctx: Ctx) -> Result<String, McpError> {
    let name = input.name.trim();
    if name.is_empty() {
        return Err(ctx.fail(empty_name, "The name is empty."));
    }
    Ok(format!("Hello, {name}!"))
}

/// The server: its name and version from this crate's manifest, and its tools.
pub fn server() -> Server {
    mcp_contract::server_from_crate!().tool(Greet)
}
