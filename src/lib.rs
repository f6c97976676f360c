#![doc = include_str!("../README.md")]

pub use mcp_contract_macros::{mcp_prompt, mcp_resource, mcp_tool};
pub use mcp_contract_runtime::*;

/// Every lint rule of the attribute macros and of the definition linter, by its
/// id: severity, where it is checked, a bad example and the fix. Each rule's
/// heading is an anchor named after its id, as in
/// `rules/index.html#error-contract-reason-unique`, which the diagnostics link to.
///
/// The module also holds the rules themselves ([`Rule`], [`ALL`], one constant
/// per id) and the value checks ([`check`]) that the macros and the linter share.
#[doc = include_str!("../docs/lints.md")]
pub mod rules {
    pub use mcp_contract_runtime::rules::*;
}

/// The definition linter: the rules only a built value can show, run over a
/// server's definitions by [`validate`], by `Server::build`, by the `lint` mode
/// of `Server::run_cli` and by [`assert_lint_clean`] in a test.
pub mod lint {
    pub use mcp_contract_runtime::lint::*;
    #[cfg(feature = "rmcp")]
    pub use mcp_contract_runtime::server::assert_lint_clean;
}

/// What a tool module needs: `use mcp_contract::prelude::*;`.
pub mod prelude {
    pub use mcp_contract_macros::{mcp_prompt, mcp_resource, mcp_tool};
    pub use mcp_contract_runtime::auth::{AuthInfo, check_scopes};
    pub use mcp_contract_runtime::call::{ClientRequestError, Elicitation, Sampling};
    #[cfg(feature = "rmcp")]
    pub use mcp_contract_runtime::server::Server;
    pub use mcp_contract_runtime::{
        Completion, CompletionRequest, Prompt, PromptMessage, ReadResourceResult, Resource, ResourceContent,
    };
    pub use mcp_contract_runtime::{
        Content, Context, Ctx, ErrorContract, JsonRpcErrorCode, LogLevel, McpError, Reason, State, Tool, ToolDefinition,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}
