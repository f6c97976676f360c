#![deny(deprecated)]
use mcp_contract::prelude::*;

#[mcp_prompt(name = "")]
fn plan_visit() -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::user("Plan a visit.")])
}

fn main() {}
