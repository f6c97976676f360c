#![doc = include_str!("../README.md")]

pub use mcp_contract_macros::mcp_tool;
pub use mcp_contract_runtime::*;

/// What a tool module needs: `use mcp_contract::prelude::*;`.
pub mod prelude {
    pub use mcp_contract_macros::mcp_tool;
    #[cfg(feature = "rmcp")]
    pub use mcp_contract_runtime::server::Server;
    pub use mcp_contract_runtime::{
        Content, Context, Ctx, ErrorContract, JsonRpcErrorCode, LogLevel, McpError, Reason, State, Tool, ToolDefinition,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Paths the generated code uses; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use mcp_contract_runtime::bounds;
    pub use mcp_contract_runtime::*;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
