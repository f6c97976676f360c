use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// Words to look for.
    pub q: String,
}

/// Search the collection.
#[mcp_tool]
fn search(input: &Query) -> Result<String, McpError> {
    Ok(input.q.clone())
}

/// Shared state, taken by reference as if it were an input.
pub struct Db;

/// Count the objects.
#[mcp_tool]
fn count(db: &Db) -> Result<String, McpError> {
    let _ = db;
    Ok("0".into())
}

fn main() {}
