use mcp_contract::prelude::*;

/// Count the collection's objects.
#[mcp_tool(trailer(totalCount(label = "Objects")))]
fn count_objects() -> Result<String, McpError> {
    Ok("120".into())
}

fn main() {}
