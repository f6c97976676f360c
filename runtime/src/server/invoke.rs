//! The plumbing of one request: the handler runs on a task of its own, is
//! aborted when the client cancels, and a panic becomes an InternalError
//! without its message (which may hold internals) while the server serves on.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use rmcp::model::{CallToolResult, ErrorCode, ErrorData};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::PrimitiveKind;
use super::wire::{bounded, envelope, error_result, success_result};
use crate::call::{BoxFuture, Context, InputRound, RoundEnd};
use crate::define::DynTool;
use crate::error::{ErrorCategory, JsonObject, McpError};

/// What the log says of one call: what was called, and by whom.
pub(super) struct Call {
    pub(super) kind: PrimitiveKind,
    pub(super) name: &'static str,
    /// The verified caller's subject (else client id), with auth on.
    pub(super) caller: Option<String>,
    /// A completion request: logged at DEBUG, as a client sends one per keystroke.
    pub(super) completion: bool,
}

impl Call {
    pub(super) fn new(kind: PrimitiveKind, name: &'static str, ctx: &Context) -> Self {
        let caller = ctx.auth().and_then(|caller| caller.subject.clone().or_else(|| caller.client_id.clone()));
        Self { kind, name, caller, completion: false }
    }

    pub(super) fn completion(mut self) -> Self {
        self.completion = true;
        self
    }

    /// The span every event of the call is logged in.
    fn span(&self) -> tracing::Span {
        tracing::info_span!("mcp_call", kind = %self.kind, name = self.name, caller = self.caller.as_deref())
    }

    /// One line per finished call: INFO (DEBUG for a completion) with the
    /// outcome, its code and reason, and the duration; WARN for a failure on
    /// the server's side (InternalError and friends) that no declared reason
    /// expected, so a declared failure never logs above INFO.
    fn finished(&self, started: std::time::Instant, outcome: Result<(), &McpError>) {
        let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let Err(err) = outcome else {
            if self.completion {
                tracing::debug!(duration_ms = millis, outcome = "ok", "completion finished");
            } else {
                tracing::info!(duration_ms = millis, outcome = "ok", "call finished");
            }
            return;
        };
        let (code, reason, message) = (err.code().as_i32(), err.reason(), bounded(err));
        if err.category() == ErrorCategory::Server && reason.is_none() {
            tracing::warn!(
                duration_ms = millis,
                outcome = "error",
                code,
                error = message.message(),
                "call failed on the server's side"
            );
        } else if self.completion {
            tracing::debug!(
                duration_ms = millis,
                outcome = "error",
                code,
                reason,
                error = message.message(),
                "completion failed"
            );
        } else {
            tracing::info!(
                duration_ms = millis,
                outcome = "error",
                code,
                reason,
                error = message.message(),
                "call finished with an error"
            );
        }
    }
}

/// A resource's, prompt's or completion's answer, or its JSON-RPC error.
pub(super) type Answer<T> = Result<T, ErrorData>;

/// The JSON-RPC code of the answer to a request the client cancelled. Clients
/// drop that answer; the code only matters in logs (it is LSP's `RequestCancelled`).
pub(super) const REQUEST_CANCELLED: i32 = -32800;

/// The client cancelled the call before the handler finished.
pub(super) struct Cancelled;

/// How a tool call ended: with its result, or (in a stateless round) with
/// asks of the client that the request did not answer.
pub(super) enum Finished {
    Complete(CallToolResult),
    Ended(RoundEnd),
}

/// Run one tool call: decode, handle, render; every failure becomes a tool
/// error result. A panicking handler becomes an InternalError result without
/// its panic message (which may hold internals), and the server keeps serving.
///
/// The call runs on a task of its own, so that a handler that holds its worker
/// thread for a while delays no other call on the connection, and a cancelled
/// call is aborted at its next `.await`. (A plain `fn` handler runs on the
/// blocking pool, see [`crate::contract::run_blocking`], and is not aborted:
/// it checks [`Context::is_cancelled`] itself.)
///
/// With a `round` (a stateless request of 2026-07-28, whose context asks
/// through it), the call ends as soon as the handler waits on nothing but
/// unanswered asks.
pub(super) async fn run_tool(
    tool: Arc<dyn DynTool>,
    arguments: JsonObject,
    ctx: Context,
    cancellation: &CancellationToken,
    round: Option<Arc<InputRound>>,
) -> Result<Finished, Cancelled> {
    let name = tool.definition().name;
    let log = Call::new(PrimitiveKind::Tool, name, &ctx);
    let span = log.span();
    let started = std::time::Instant::now();
    let call = AbortOnDrop(tokio::spawn(
        async move {
            let handler = tool.call_json(arguments, ctx);
            match round {
                Some(round) => round.drive(handler).await,
                None => Ok(handler.await),
            }
        }
        .instrument(span.clone()),
    ));
    let outcome = tokio::select! {
        biased;
        () = cancellation.cancelled() => {
            span.in_scope(|| tracing::info!(outcome = "cancelled", "call cancelled by the client"));
            return Err(Cancelled);
        }
        outcome = call => outcome,
    };
    let _entered = span.enter();
    Ok(Finished::Complete(match outcome {
        Ok(Err(end)) => {
            tracing::debug!(outcome = "input_required", "call ended its round: it waits for the client's input");
            return Ok(Finished::Ended(end));
        }
        Ok(Ok(Ok(output))) => {
            log.finished(started, Ok(()));
            success_result(output)
        }
        Ok(Ok(Err(err))) => {
            log.finished(started, Err(&err));
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
    }))
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
    log: Call,
) -> Answer<T> {
    let (kind, name) = (log.kind, log.name);
    let span = log.span();
    let started = std::time::Instant::now();
    let call = AssertUnwindSafe(future.instrument(span.clone())).catch_unwind();
    let outcome = tokio::select! {
        biased;
        () = cancellation.cancelled() => {
            span.in_scope(|| tracing::info!(outcome = "cancelled", "call cancelled by the client"));
            return Err(ErrorData::new(ErrorCode(REQUEST_CANCELLED), "The client cancelled this request.", None));
        }
        outcome = call => outcome,
    };
    let _entered = span.enter();
    match outcome {
        Ok(Ok(value)) => {
            log.finished(started, Ok(()));
            Ok(value)
        }
        Ok(Err(err)) => {
            log.finished(started, Err(&err));
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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// The level and message of every event logged while `log` runs.
    fn levels(log: impl FnOnce()) -> Vec<(tracing::Level, String)> {
        struct Levels(Arc<Mutex<Vec<(tracing::Level, String)>>>);
        struct Message<'a>(&'a mut String);
        impl tracing::field::Visit for Message<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    *self.0 = format!("{value:?}");
                }
            }
        }
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Levels {
            fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
                let mut message = String::new();
                event.record(&mut Message(&mut message));
                self.0.lock().unwrap().push((*event.metadata().level(), message));
            }
        }
        use tracing_subscriber::layer::SubscriberExt as _;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Levels(Arc::clone(&seen)));
        tracing::subscriber::with_default(subscriber, log);
        seen.lock().unwrap().clone()
    }

    #[test]
    fn each_finished_call_logs_one_line_and_only_an_undeclared_server_failure_warns() {
        let call = || Call { kind: PrimitiveKind::Tool, name: "search", caller: None, completion: false };
        let started = std::time::Instant::now();
        let cases = [
            (None, tracing::Level::INFO, "call finished"),
            (
                Some(McpError::internal_error("the index is corrupt")),
                tracing::Level::WARN,
                "call failed on the server's side",
            ),
            (
                Some(McpError::database_error("no connection").with_reason("catalog_offline")),
                tracing::Level::INFO,
                "call finished with an error",
            ),
            (Some(McpError::not_found("no object 7")), tracing::Level::INFO, "call finished with an error"),
        ];
        for (err, level, message) in cases {
            let seen = levels(|| call().finished(started, err.as_ref().map_or(Ok(()), Err)));
            assert_eq!(seen, vec![(level, message.to_owned())], "{err:?}");
        }
        let seen = levels(|| call().completion().finished(started, Ok(())));
        assert_eq!(seen, vec![(tracing::Level::DEBUG, "completion finished".to_owned())]);
    }
}
