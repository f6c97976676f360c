use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(name = "", allow(name-required, no-such-rule))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

/// A prompt's definition does not carry `allow(..)` to the definition linter,
/// so an allow of one of its rules there is refused rather than ignored.
#[mcp_prompt(allow(describe-on-fields))]
fn plan_visit() -> Result<Vec<PromptMessage>, McpError> {
    Ok(Vec::new())
}

fn main() {}
