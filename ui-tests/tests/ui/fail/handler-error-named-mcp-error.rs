use mcp_contract::prelude::*;

mod own {
    /// An error type of the author's that happens to be named like the crate's.
    #[derive(Debug)]
    pub struct McpError;
}

/// Fails with a type named `McpError` that is not the crate's: the expansion
/// takes an error written `McpError` as is, so the mismatch is reported at it.
#[mcp_tool]
async fn with_own_mcp_error() -> Result<String, own::McpError> {
    Err(own::McpError)
}

mod shadowed {
    use mcp_contract::prelude::*;

    use super::own::McpError;

    /// The same type, imported under the crate's name.
    #[mcp_tool]
    async fn with_shadowed_mcp_error() -> Result<String, McpError> {
        Err(McpError)
    }
}

fn main() {}
