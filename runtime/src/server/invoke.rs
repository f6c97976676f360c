//! The plumbing of one request: the handler runs on a task of its own, is
//! aborted when the client cancels, and a panic becomes an InternalError
//! without its message (which may hold internals) while the server serves on.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use rmcp::model::{CallToolResult, ErrorCode, ErrorData};
use tokio_util::sync::CancellationToken;

use super::PrimitiveKind;
use super::wire::{bounded, envelope, error_result, success_result};
use crate::call::{BoxFuture, Context};
use crate::define::DynTool;
use crate::error::{JsonObject, McpError};

/// A resource's, prompt's or completion's answer, or its JSON-RPC error.
pub(super) type Answer<T> = Result<T, ErrorData>;

/// The JSON-RPC code of the answer to a request the client cancelled. Clients
/// drop that answer; the code only matters in logs (it is LSP's `RequestCancelled`).
pub(super) const REQUEST_CANCELLED: i32 = -32800;

/// The client cancelled the call before the handler finished.
pub(super) struct Cancelled;

/// Run one tool call: decode, handle, render; every failure becomes a tool
/// error result. A panicking handler becomes an InternalError result without
/// its panic message (which may hold internals), and the server keeps serving.
///
/// The call runs on a task of its own, so that a handler that holds its worker
/// thread for a while delays no other call on the connection, and a cancelled
/// call is aborted at its next `.await`. (A plain `fn` handler runs on the
/// blocking pool, see [`crate::contract::run_blocking`], and is not aborted:
/// it checks [`Context::is_cancelled`] itself.)
pub(super) async fn run_tool(
    tool: Arc<dyn DynTool>,
    arguments: JsonObject,
    ctx: Context,
    cancellation: &CancellationToken,
) -> Result<CallToolResult, Cancelled> {
    let name = tool.definition().name;
    let call = AbortOnDrop(tokio::spawn(async move { tool.call_json(arguments, ctx).await }));
    let outcome = tokio::select! {
        biased;
        () = cancellation.cancelled() => return Err(Cancelled),
        outcome = call => outcome,
    };
    Ok(match outcome {
        Ok(Ok(output)) => success_result(output),
        Ok(Err(err)) => {
            tracing::debug!(tool = name, code = %err.code(), message = bounded(&err).message(), "tool call failed");
            error_result(&err)
        }
        Err(failure) => {
            let message = if failure.is_panic() {
                panic_message(failure.into_panic().as_ref()).to_owned()
            } else {
                "the task running the call was stopped".to_owned()
            };
            tracing::error!(tool = name, panic = message, "tool handler panicked");
            error_result(&McpError::internal_error(format!(
                "The tool `{name}` failed with an internal error. The details stay in the server's log; \
                 the server keeps serving other calls."
            )))
        }
    })
}

/// A spawned call, aborted when the request that started it goes away
/// (cancelled, or its session closed).
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    if let Some(message) = panic.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = panic.downcast_ref::<String>() {
        message
    } else {
        "<non-string panic payload>"
    }
}

/// Run a resource, prompt or completion handler: its error in the JSON-RPC
/// envelope; a panic as an InternalError without its message (which may hold
/// internals), the server serving on; a cancelled request as rmcp's
/// cancellation answer.
pub(super) async fn guarded<T>(
    future: BoxFuture<'_, Result<T, McpError>>,
    cancellation: &CancellationToken,
    kind: PrimitiveKind,
    name: &'static str,
) -> Answer<T> {
    let call = AssertUnwindSafe(future).catch_unwind();
    let outcome = tokio::select! {
        biased;
        () = cancellation.cancelled() => {
            return Err(ErrorData::new(ErrorCode(REQUEST_CANCELLED), "The client cancelled this request.", None));
        }
        outcome = call => outcome,
    };
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => {
            tracing::debug!(%kind, name, code = %err.code(), message = bounded(&err).message(), "request failed");
            Err(envelope(&err))
        }
        Err(panic) => {
            tracing::error!(%kind, name, panic = panic_message(panic.as_ref()), "handler panicked");
            Err(envelope(&McpError::internal_error(format!(
                "The {kind} `{name}` failed with an internal error. The details stay in the server's log; \
                 the server keeps serving other requests."
            ))))
        }
    }
}
