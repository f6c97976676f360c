use std::rc::Rc;

use mcp_contract::prelude::*;

#[derive(JsonSchema)]
pub struct Hits {
    pub titles: Vec<String>,
}

/// Search the collection.
#[mcp_tool]
fn search() -> Result<Hits, McpError> {
    Ok(Hits { titles: Vec::new() })
}

/// Count the visitors.
#[mcp_tool]
async fn visitors(counter: State<Rc<u32>>) -> Result<String, McpError> {
    Ok(counter.to_string())
}

fn main() {}
