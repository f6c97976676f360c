use mcp_contract::prelude::*;

/// Look an object up.
#[mcp_tool(name = "", allow(name-required, no-such-rule))]
fn lookup() -> Result<String, McpError> {
    Ok("found".into())
}

/// A prompt's definition carries `allow(..)` to the definition linter, which
/// silences its warning rules; an error rule is refused there as on a tool.
#[mcp_prompt(allow(describe-on-fields, prompt-arguments-align))]
fn plan_visit() -> Result<Vec<PromptMessage>, McpError> {
    Ok(Vec::new())
}

fn main() {}
