//! Code of the server's own around every tool call, resource read and prompt:
//! authorization beyond scopes, auditing, tenancy ([`Server::hook`](crate::server::builder::Server::hook)).

use std::time::Duration;

use crate::call::{BoxFuture, Context};
use crate::define::PrimitiveKind;
use crate::error::McpError;

/// Runs before and after every tool call, resource read and prompt (not
/// completions), on every transport. Register one with
/// [`Server::hook`](crate::server::builder::Server::hook); several run in the order they were
/// registered.
///
/// [`before`](Self::before) may refuse the call with an [`McpError`], which
/// the client gets as it would the handler's own (a tool error result for a
/// tool, the JSON-RPC error for a resource or prompt), and neither the later
/// hooks' `before` nor the handler runs. [`after`](Self::after) sees how
/// every call ended: refused (by a hook or the rate limit), failed,
/// cancelled, panicked or done. A stateless round that ends `input_required`
/// (the handler asked the client) is no end: `before` runs again on each
/// retry, and `after` once, for the retry that finishes. Both run inside
/// the call's `mcp_call` span, and on its task, so a `before` that waits is
/// cancelled with the call.
///
/// ```
/// use mcp_contract::McpError;
/// use mcp_contract::BoxFuture;
/// use mcp_contract::server::{CallHook, CallInfo, CallOutcome, Server};
///
/// /// Callers of the `archive` tenant may only read.
/// struct ReadOnlyArchive;
///
/// impl CallHook for ReadOnlyArchive {
///     fn before<'a>(&'a self, call: &'a CallInfo<'a>) -> BoxFuture<'a, Result<(), McpError>> {
///         Box::pin(async move {
///             let tenant = call.context().auth().and_then(|caller| caller.tenant.as_deref());
///             if tenant == Some("archive") && call.name().starts_with("edit_") {
///                 return Err(McpError::forbidden("The archive tenant may only read. Call a read tool instead."));
///             }
///             Ok(())
///         })
///     }
///
///     fn after(&self, call: &CallInfo<'_>, outcome: CallOutcome<'_>) {
///         tracing::info!(target: "audit", name = call.name(), ok = outcome.is_ok(), "audited");
///     }
/// }
///
/// let server = Server::new("museum", "1.0.0").hook(ReadOnlyArchive);
/// # drop(server);
/// ```
pub trait CallHook: Send + Sync + 'static {
    /// Before the handler: `Ok(())` lets the call run, an error refuses it.
    fn before<'a>(&'a self, call: &'a CallInfo<'a>) -> BoxFuture<'a, Result<(), McpError>> {
        let _ = call;
        Box::pin(std::future::ready(Ok(())))
    }

    /// After the call, with how it ended. It runs on the call's task before
    /// the answer goes out: keep it short, and send slow work elsewhere (a
    /// channel to a task of your own).
    fn after(&self, call: &CallInfo<'_>, outcome: CallOutcome<'_>) {
        let _ = (call, outcome);
    }
}

/// The call a [`CallHook`] runs around: what is called, and the handler's
/// context with the caller, the request and session ids and the client's address.
#[derive(Debug)]
pub struct CallInfo<'a> {
    pub(crate) kind: PrimitiveKind,
    pub(crate) name: &'static str,
    pub(crate) context: &'a Context,
}

impl CallInfo<'_> {
    /// A tool, resource or prompt.
    pub fn kind(&self) -> PrimitiveKind {
        self.kind
    }

    /// The tool's, resource's or prompt's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The context the handler gets: [`Context::auth`] (the caller),
    /// [`Context::request_id`], [`Context::session_id`], [`Context::client_ip`],
    /// the shared state.
    pub fn context(&self) -> &Context {
        self.context
    }
}

/// How a call ended, for [`CallHook::after`].
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum CallOutcome<'a> {
    /// The handler succeeded.
    Ok {
        /// How long the call took.
        duration: Duration,
    },
    /// The handler failed, or a hook or the rate limit refused the call,
    /// with this error, as the server logs it (before masking).
    Error {
        /// The error.
        error: &'a McpError,
        /// How long the call took.
        duration: Duration,
    },
    /// The client cancelled the call.
    Cancelled,
    /// The handler panicked; the client got an InternalError.
    Panicked,
}

impl CallOutcome<'_> {
    /// Whether the handler succeeded.
    pub fn is_ok(&self) -> bool {
        matches!(self, Self::Ok { .. })
    }
}
