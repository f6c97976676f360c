use mcp_contract::prelude::*;

pub struct Hits {
    pub titles: Vec<String>,
}

/// Search the collection.
#[mcp_tool]
fn search() -> Result<Hits, McpError> {
    Ok(Hits { titles: Vec::new() })
}

fn main() {}
