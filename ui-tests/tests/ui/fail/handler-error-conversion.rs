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

/// Fails with `anyhow::Error` without the feature `anyhow`.
#[mcp_tool]
fn with_anyhow() -> Result<String, anyhow::Error> {
    Err(anyhow::Error::msg("no such object"))
}

/// `?` on an `Option` and on an error with no conversion.
#[mcp_tool]
fn with_question_marks() -> Result<String, McpError> {
    let first = "".chars().next()?;
    let _ = Err::<(), String>("no such object".to_owned())?;
    Ok(first.to_string())
}

fn main() {}
