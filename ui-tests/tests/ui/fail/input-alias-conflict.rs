use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Search {
    /// Words to look for.
    query: String,
    /// How many results, at most.
    limit: Option<u32>,
}

/// Search the collection by keyword.
#[mcp_tool(input_aliases(query = ["q", "search"], limit = ["q", "max", "query"]))]
fn search_objects(input: Search) -> Result<String, McpError> {
    Ok(input.query)
}

/// Search again, with an alias listed twice for its own field.
#[mcp_tool(input_aliases(query = ["q", "q"]))]
fn search_again(input: Search) -> Result<String, McpError> {
    Ok(input.query)
}

fn main() {}
