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
pub struct Vault;

/// Count the objects.
#[mcp_tool]
fn count(db: &Vault) -> Result<String, McpError> {
    let _ = db;
    Ok("0".into())
}

/// Beside a real input, a borrowed state is one error, with no knock-on
/// "at most one input parameter".
#[mcp_tool]
fn search_vault(input: Query, vault: &Vault) -> Result<String, McpError> {
    let _ = vault;
    Ok(input.q)
}

fn main() {}
