//! Seeing what the crate logs, without breaking stdio (feature `logging`).
//!
//! mcp-contract reports through [`tracing`]: `try_catch` logs each failure once,
//! the server logs failed calls, panics and dropped connections. Nothing is
//! printed until the application installs a subscriber, and a stdio server must
//! never print to stdout, which carries the protocol. [`init`] installs one that
//! writes to **stderr**, filtered by `RUST_LOG` ([`DEFAULT_FILTER`] when unset):
//!
//! ```no_run
//! #[tokio::main]
//! async fn main() {
//!     mcp_contract::logging::init();
//!     // RUST_LOG=debug, or RUST_LOG=warn,mcp_contract_runtime=debug, ... as usual.
//! }
//! ```
//!
//! Applications with their own subscriber keep it: everything the crate logs
//! goes through `tracing`, under the targets `mcp_contract::*`.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::util::{SubscriberInitExt, TryInitError};

/// The filter when `RUST_LOG` is unset or empty: `info`, but only warnings of
/// rmcp, whose `info` narrates every connection.
pub const DEFAULT_FILTER: &str = "info,rmcp=warn";

/// Install a `tracing` subscriber that writes to stderr, filtered by `RUST_LOG`
/// ([`DEFAULT_FILTER`] when unset). Does nothing when a global subscriber is
/// already installed, so it is safe to call from tests and libraries alike.
pub fn init() {
    // Another subscriber is the application's choice, and it stays.
    let _ = try_init();
}

/// [`init`], telling whether a subscriber was installed.
///
/// # Errors
///
/// When a global subscriber is already installed.
pub fn try_init() -> Result<(), TryInitError> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => EnvFilter::new(directives),
        _ => EnvFilter::new(DEFAULT_FILTER),
    };
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_env_filter(filter).finish().try_init()
}
