//! Serving tools over MCP through the official Rust SDK, rmcp (feature `rmcp`).
//!
//! [`Server`] collects the tools, [`Server::build`] checks them into a
//! [`ToolServer`] (rmcp's `ServerHandler`), and the transports serve it:
//! [`Server::serve_stdio`] and [`Server::serve_http`] (Streamable HTTP).
//!
//! What a client sees:
//!
//! - `initialize`: the server info of *your* crate (see [`server_from_crate!`](crate::server_from_crate)),
//!   the `tools` and `logging` capabilities, and the instructions;
//! - `tools/list`: each tool's name, title, description, input and output
//!   schemas and annotations, and its error contract under the `_meta` key
//!   [`ERRORS_META_KEY`]: a list of `{reason, code, when, recovery, retryable}`;
//! - `tools/call`: the tool's result; every failure (arguments that do not
//!   decode, the handler's error, a panic) as a tool error result on both
//!   surfaces (see [`render`](crate::render)); a name no tool has as the
//!   JSON-RPC error -32602.
//!
//! ```no_run
//! use mcp_contract::server::Server;
//! # fn tools(server: Server) -> Server { server }
//! # async fn run() -> Result<(), mcp_contract::server::ServerError> {
//! let server = Server::new("museum", "1.0.0").instructions("Search the collection, then fetch objects by id.");
//! tools(server).serve_stdio().await
//! # }
//! ```

// In layers, each naming only those before it (docs/architecture.md):
// error, wire, peer; store/; dispatch/; transport/; cli; builder/.
mod builder;
mod cli;
mod dispatch;
mod error;
// The fuzz targets' entry points (`fuzz/`), only in `cargo fuzz` builds.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing;
mod peer;
mod store;
mod transport;
mod wire;

pub use builder::{Server, assert_lint_clean};
pub use cli::{LintFormat, ServeArgs, ServeCommand};
pub use dispatch::changes::{Changes, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION, DEFAULT_SEND_TIMEOUT};
pub use dispatch::handler::ToolServer;
pub use dispatch::hook::{CallHook, CallInfo, CallOutcome};
pub use dispatch::lifecycle::{DEFAULT_TEARDOWN_TIMEOUT, Serving};
#[cfg(feature = "rate-limit")]
pub use dispatch::rate_limit::RateLimit;
#[cfg(feature = "redis")]
pub use error::RedisUrlError;
pub use error::{MissingState, ServerError};
pub use store::events::{
    DEFAULT_EVENT_MAX_AGE, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_EVENTS_PER_STREAM, DEFAULT_MAX_STREAMS, EventId,
    EventStore, EventStoreError, EventStream, MemoryEventStore, ServerSseMessage, StreamId,
};
#[cfg(feature = "redis")]
pub use store::redis::{
    DEFAULT_EVENT_AGE, DEFAULT_EVENTS_PER_STREAM, DEFAULT_REDIS_TIMEOUT, DEFAULT_SESSION_IDLE, REDIS_CA_FILE_ENV,
    REDIS_CLIENT_CERT_FILE_ENV, REDIS_CLIENT_KEY_FILE_ENV, REDIS_SENTINEL_PASSWORD_ENV, REDIS_URL_ENV,
    REDIS_WRITE_BEHIND_ENV, RedisStore,
};
pub use store::tasks::{DEFAULT_MAX_TASKS, DEFAULT_POLL_INTERVAL, DEFAULT_TASK_TTL, MemoryTaskStore, TaskStore};
pub use transport::http::{DEFAULT_SSE_RETRY, HttpOptions};
pub use transport::stdio::StdioOptions;
pub use wire::ERRORS_META_KEY;

// The kind `Changes::list_changed` and `ServerError::DuplicateName` speak of.
pub use crate::define::PrimitiveKind;
