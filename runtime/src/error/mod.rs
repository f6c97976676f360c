//! Errors, the lowest layer: [`McpError`] and its [`JsonRpcErrorCode`]s, the
//! error contract a handler declares ([`ErrorContract`], [`Reason`]), which code
//! an arbitrary error deserves ([`classify`](classify())), upstream HTTP failures
//! as errors ([`upstream`]), [`try_catch`](try_catch()), [`retry`] and a
//! `pacer` in front of a rate-limited upstream, and
//! [`render`]ing an error to the two surfaces MCP clients read.
//!
//! The codes themselves are the shared table of `mcp-contract-rules`, which the
//! macros read at compile time.

// Private, as its items are re-exported here: `error::classify` is the
// function alone, not a module and a function of one name.
pub(crate) mod classify;
mod contract;
mod mcp_error;
#[cfg(feature = "pacer")]
pub mod pacer;
pub mod render;
// Request ids are given where requests are served.
#[cfg(feature = "rmcp")]
mod request_id;
pub mod retry;
pub mod sanitize;
pub mod try_catch;
pub mod upstream;

pub use self::classify::{classify, classify_parts};
pub use self::contract::{ContractDeclared, ErrorContract, ErrorSeverity, NoContract, Reason};
pub use self::mcp_error::{Cause, JsonObject, McpError};
#[cfg(feature = "pacer")]
pub use self::pacer::{Pacer, PacerOptions, PacerStats, ShedKind};
#[cfg(feature = "rmcp")]
pub(crate) use self::request_id::new_request_id;
pub use self::retry::{RETRY_DEADLINE_EXCEEDED, RetryPolicy, with_retry};
pub use self::try_catch::{TryCatch, try_catch, try_catch_sync};
pub use mcp_contract_rules::codes::{ErrorCategory, JsonRpcErrorCode, http_status_to_error_code};
