use mcp_contract::prelude::*;

pub struct Query {
    pub q: String,
}

/// Search the collection.
#[mcp_tool]
fn search(input: Query) -> Result<String, McpError> {
    Ok(input.q)
}

fn main() {}
