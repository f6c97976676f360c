//! Runtime of [mcp-contract](https://docs.rs/mcp-contract): the error type of MCP
//! tools and everything a server built on it needs. Its folders are its layers,
//! and data flows one way, each layer using only those above it in this list:
//!
//! - [`error`]: [`McpError`] and its [`JsonRpcErrorCode`]s, the [`ErrorContract`]
//!   and [`Reason`], classification, upstream HTTP failures, `try_catch`, retry,
//!   and rendering errors to the two surfaces MCP clients read;
//! - [`schema`]: portable JSON Schemas of inputs and outputs, and the error envelope;
//! - [`call`]: what a handler gets with each request: its [`Context`] or typed
//!   [`Ctx`], shared [`State`], and the caller ([`AuthInfo`](call::AuthInfo));
//! - [`define`]: what a server serves: [`Tool`], [`Resource`], [`Prompt`] and
//!   completion, their definitions, content blocks and argument decoding;
//! - [`lint`]: the definition linter over built definitions;
//! - [`auth`]: bearer-token verification and its configuration (feature `auth`);
//! - `server` (feature `rmcp`): serving over stdio and Streamable HTTP;
//! - `testing` (feature `testing`): an in-process client of a built server,
//!   and contract fuzzing of its tools;
//! - `logging` (feature `logging`): the crate's `tracing` output on stderr;
//! - `telemetry` (feature `otel`): spans, metrics and logs over OTLP, and the
//!   trace context carried in and out.
//!
//! The rule ids, severities and value checks both the macros and the linter use
//! come from the crate `mcp-contract-rules`, re-exported as [`rules`].
//!
//! Most users depend on the facade crate `mcp-contract` instead.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod auth;
pub mod call;
pub mod define;
pub mod error;
pub mod lint;
#[cfg(feature = "logging")]
pub mod logging;
mod private;
pub mod schema;
#[cfg(feature = "rmcp")]
pub mod server;
#[cfg(feature = "otel")]
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;

/// The `http` crate the HTTP helpers take (`http::Response`, `http::HeaderMap`,
/// `http::StatusCode`), so a server builds their arguments without a
/// dependency of its own, and always of the same version.
pub use http;
pub use mcp_contract_rules as rules;
pub use mcp_contract_uri_template as uri_template;

pub use call::{Context, Ctx, LogLevel, SharedState, State};
pub use define::{
    Completion, CompletionRequest, Content, DynPrompt, DynResource, DynTool, EmbeddedResource, Prompt, PromptArgument,
    PromptContent, PromptDefinition, PromptMessage, ReadResourceResult, Resource, ResourceContent, ResourceDefinition,
    ResourceLink, Role, TextOrBlob, Tool, ToolAnnotations, ToolDefinition, ToolOutput,
};
#[cfg(feature = "reqwest")]
pub use error::upstream::http_error_from_reqwest;
pub use error::upstream::{HttpErrorOptions, http_error_from_parts, http_error_from_response, http_error_from_status};
pub use error::{
    Cause, ErrorCategory, ErrorContract, JsonObject, JsonRpcErrorCode, McpError, Reason, RetryPolicy, TryCatch,
    classify, classify_parts, http_status_to_error_code, render, try_catch, try_catch_sync, with_retry,
};

/// Exactly what the expansions of `#[mcp_tool]`, `#[mcp_resource]`,
/// `#[mcp_prompt]` and `embed_skills!` (and the crate's own benchmarks and property tests) use
/// beyond the public API; not a public API. The facade re-exports it whole.
#[doc(hidden)]
pub mod __private {
    pub use crate::call::{Capability, Context, Ctx, ElicitForm, FormChoice, FormField, State};
    pub use crate::define::{
        APP_MIME_TYPE, AppPermission, AppUi, Completion, CompletionRequest, EmbeddedSkills, EnrichmentDefinition,
        InputAlias, IntoContents, NoArguments, OutputSample, Prompt, PromptDefinition, PromptMessage,
        ReadResourceResult, Resource, ResourceDefinition, StateType, TaskSupport, Tool, ToolAnnotations,
        ToolDefinition, ToolOutput, TrailerField, prompt_arguments,
    };
    pub use crate::error::{
        ContractDeclared, ErrorContract, ErrorSeverity, JsonRpcErrorCode, McpError, NoContract, Reason,
    };
    pub use crate::private::{
        DecodeSample, DecodeSampleFallback, SampleProbe, SampleValue, bounds, classify_patterns, classify_type_names,
        run_blocking, typed_context,
    };
    pub use crate::schema;
    pub use schemars;
    pub use serde;
}
