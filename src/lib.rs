#![doc = include_str!("../README.md")]

pub use mcp_contract_macros::{mcp_prompt, mcp_resource, mcp_tool};
pub use mcp_contract_runtime::*;

/// Every lint rule of `#[mcp_tool]` and of the definition linter, by its id:
/// severity, where it is checked, a bad example and the fix. Each rule's
/// heading is an anchor named after its id, as in
/// `lints/index.html#error-contract-reason-unique`, which the diagnostics link to.
#[doc = include_str!("../docs/lints.md")]
pub mod lints {}

/// What a tool module needs: `use mcp_contract::prelude::*;`.
pub mod prelude {
    pub use mcp_contract_macros::{mcp_prompt, mcp_resource, mcp_tool};
    pub use mcp_contract_runtime::auth::{AuthInfo, check_scopes};
    #[cfg(feature = "rmcp")]
    pub use mcp_contract_runtime::server::Server;
    pub use mcp_contract_runtime::{
        Completion, CompletionRequest, Prompt, PromptMessage, Resource, ResourceContent, ResourceContents,
    };
    pub use mcp_contract_runtime::{
        Content, Context, Ctx, ErrorContract, JsonRpcErrorCode, LogLevel, McpError, Reason, State, Tool, ToolDefinition,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Exactly the paths the expansions of `#[mcp_tool]`, `#[mcp_resource]` and
/// `#[mcp_prompt]` use; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use mcp_contract_runtime::__private::{
        DecodeSample, DecodeSampleFallback, NoContract, OutputSample, SampleProbe, SampleValue, typed_context,
    };
    pub use mcp_contract_runtime::bounds;
    pub use mcp_contract_runtime::contract::run_blocking;
    pub use mcp_contract_runtime::schema;
    pub use mcp_contract_runtime::{
        Context, Ctx, ErrorContract, IntoContents, JsonRpcErrorCode, McpError, NoArguments, Reason, State, StateType,
        Tool, ToolAnnotations, ToolDefinition, ToolOutput,
    };
    // `#[mcp_resource]` and `#[mcp_prompt]`.
    pub use mcp_contract_runtime::prompt::prompt_arguments;
    pub use mcp_contract_runtime::{
        Completion, CompletionRequest, Prompt, PromptDefinition, PromptMessage, Resource, ResourceContents,
        ResourceDefinition,
    };
    pub use serde;
}
