//! Runtime of [mcp-contract](https://docs.rs/mcp-contract): the error type of MCP
//! tools and everything around it.
//!
//! - [`errors`]: [`McpError`], [`JsonRpcErrorCode`], the factories, categories;
//! - [`classify`](mod@classify): which code an arbitrary error deserves;
//! - [`http`]: HTTP statuses and responses of upstream services as errors;
//! - [`contract`] and [`context`]: what `#[mcp_tool]` generates against;
//! - [`render`]: errors on the two surfaces MCP clients read.
//! - [`schema`]: portable JSON Schemas of tool inputs and outputs.
//!
//! Most users depend on the facade crate `mcp-contract` instead.

pub mod classify;
pub mod context;
pub mod contract;
pub mod errors;
pub mod render;
pub mod schema;

pub use classify::{classify, classify_parts};
pub use context::{Context, Ctx, LogLevel};
pub use contract::{
    Content, DynTool, ErrorContract, IntoContents, NoArguments, NoContract, Reason, Tool, ToolAnnotations,
    ToolDefinition, ToolOutput,
};
pub use errors::{Cause, ErrorCategory, JsonObject, JsonRpcErrorCode, McpError};
