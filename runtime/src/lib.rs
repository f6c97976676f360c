//! Runtime of [mcp-contract](https://docs.rs/mcp-contract): the error type of MCP
//! tools and everything around it.
//!
//! - [`errors`]: [`McpError`], [`JsonRpcErrorCode`], the factories, categories;
//! - [`classify`](mod@classify): which code an arbitrary error deserves;
//! - [`http`]: HTTP statuses and responses of upstream services as errors;
//! - [`try_catch`](mod@try_catch): log a failure once, with sanitized input, and return it;
//! - [`retry`]: retry transient failures with backoff, jitter and `Retry-After`;
//! - [`contract`] and [`context`]: what `#[mcp_tool]` generates against;
//! - [`bounds`]: the bounds on a handler's types, worded as the fix;
//! - [`auth`]: the caller's identity and scopes, bearer-token verification (feature `auth`);
//! - [`state`]: shared state (a pool, a client, a config) for handlers;
//! - [`render`]: errors on the two surfaces MCP clients read.
//! - [`resource`], [`prompt`] and [`completion`]: MCP's other two primitives,
//!   resources (URIs and RFC 6570 templates, see [`uri_template`]) and prompts.
//! - [`schema`]: portable JSON Schemas of tool inputs and outputs.
//! - [`lint`]: the definition linter (format parity, schemas, portability, server.json).
//! - `server` (feature `rmcp`): serving tools over stdio and Streamable HTTP.
//! - `logging` (feature `logging`): the crate's `tracing` output on stderr.
//!
//! Most users depend on the facade crate `mcp-contract` instead.

pub mod auth;
pub mod bounds;
pub mod classify;
pub mod completion;
pub mod context;
pub mod contract;
pub mod errors;
pub mod http;
pub mod lint;
#[cfg(feature = "logging")]
pub mod logging;
mod params;
mod private;
pub mod prompt;
pub mod render;
pub mod resource;
pub mod retry;
pub mod schema;
#[cfg(feature = "rmcp")]
pub mod server;
pub mod state;
pub mod try_catch;

#[cfg(feature = "reqwest")]
pub use self::http::http_error_from_reqwest;
pub use self::http::{
    HttpErrorOptions, http_error_from_parts, http_error_from_response, http_error_from_status,
    http_status_to_error_code,
};
pub use classify::{classify, classify_parts};
pub use completion::{Completion, CompletionRequest};
pub use context::{Context, Ctx, LogLevel};
pub use contract::{
    Content, DynTool, EmbeddedResource, ErrorContract, FormatSample, IntoContents, NoArguments, OutputSample, Reason,
    ResourceLink, Tool, ToolAnnotations, ToolDefinition, ToolOutput,
};
pub use errors::{Cause, ErrorCategory, JsonObject, JsonRpcErrorCode, McpError};
pub use mcp_contract_uri_template as uri_template;
pub use prompt::{DynPrompt, Prompt, PromptArgument, PromptContent, PromptDefinition, PromptMessage, Role};
pub use resource::{DynResource, Resource, ResourceBody, ResourceContent, ResourceContents, ResourceDefinition};
pub use retry::{RetryPolicy, with_retry};
pub use state::{SharedState, State, StateType};
pub use try_catch::{TryCatch, try_catch, try_catch_sync};

/// Where the lint reference documents `rule`: the `mcp_contract::lints` page of
/// the facade's rustdoc, whose headings are the rule ids.
///
/// ```
/// assert_eq!(
///     mcp_contract_runtime::lint_docs_url("name-unique"),
///     "https://docs.rs/mcp-contract/latest/mcp_contract/lints/index.html#name-unique"
/// );
/// ```
pub fn lint_docs_url(rule: &str) -> String {
    format!("{LINTS_DOCS}#{rule}")
}

/// The lint reference in the facade's rustdoc (it includes `docs/lints.md`).
pub const LINTS_DOCS: &str = "https://docs.rs/mcp-contract/latest/mcp_contract/lints/index.html";

/// What `#[mcp_tool]`'s expansion and the benchmarks need beyond the public
/// API; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::private::{
        ContractDeclared, DecodeSample, DecodeSampleFallback, NoContract, OutputSample, SampleProbe, SampleValue,
        classify_patterns, classify_type_names, typed_context,
    };
}
