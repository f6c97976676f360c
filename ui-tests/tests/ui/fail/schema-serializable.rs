use mcp_contract::prelude::*;

#[derive(Deserialize)]
struct LookupInput {
    id: u32,
}

/// Look an object up.
#[mcp_tool]
fn lookup(input: LookupInput) -> Result<String, McpError> {
    Ok(input.id.to_string())
}

fn main() {}
