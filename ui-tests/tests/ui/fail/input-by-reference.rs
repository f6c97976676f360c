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

fn main() {}
