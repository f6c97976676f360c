use mcp_contract::prelude::*;

/// Fails with a string.
#[mcp_tool]
fn with_string() -> Result<String, String> {
    Err("no such object".to_owned())
}

/// Fails with a boxed error that is not `Send + Sync`.
#[mcp_tool]
async fn with_box() -> Result<String, Box<dyn std::error::Error>> {
    Err("no such object".into())
}

fn main() {}
