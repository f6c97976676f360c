//! The client channel of a call over rmcp's peer: progress and MCP logging.
//!
//! MCP logging (`notifications/message`, `logging/setLevel`) is deprecated by
//! SEP-2577 in the newest protocol revision, hence rmcp's deprecation warnings;
//! today's clients still read it, so this module keeps it working in one place.
#![allow(deprecated, reason = "MCP logging is deprecated by SEP-2577 but is what today's clients read")]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::RoleServer;
use rmcp::model::{
    CancelledNotificationParam, ClientResult, GetExtensions, LoggingLevel, LoggingMessageNotificationParam,
    Notification, ProgressNotificationParam, ProgressToken, RequestId, ServerCapabilities, ServerJsonRpcMessage,
    ServerNotification, ServerRequest, SetLevelRequestParams,
};
use rmcp::service::{OriginatingRequestId, Peer, PeerRequestOptions, ServiceError};
use serde_json::{Value, json};

use super::streams::ResponseStream;
use crate::call::{BoxFuture, ClientChannel, ClientRequestError, LogLevel};
use crate::error::JsonObject;

/// The capabilities a tool server declares: tools, and logging for [`PeerChannel::log`].
pub(crate) fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder().enable_tools().enable_logging().build()
}

/// The lowest [`LogLevel`] (as its index) a `logging/setLevel` request lets through.
pub(crate) fn min_level(request: &SetLevelRequestParams) -> u8 {
    level_index(request.level)
}

/// The lowest [`LogLevel`] (as its index) `level` lets through.
pub(crate) fn level_index(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => LogLevel::Debug as u8,
        LoggingLevel::Info => LogLevel::Info as u8,
        LoggingLevel::Notice => LogLevel::Notice as u8,
        LoggingLevel::Warning => LogLevel::Warning as u8,
        LoggingLevel::Error => LogLevel::Error as u8,
        // Only levels above Error pass these, and a tool logs none of them.
        LoggingLevel::Critical | LoggingLevel::Alert | LoggingLevel::Emergency => u8::MAX,
    }
}

/// Progress and log messages of one call, sent to the client through rmcp's peer.
pub(crate) struct PeerChannel {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log_level: Arc<AtomicU8>,
    pub(crate) tool: &'static str,
    /// The client's request this call answers: a request to the client rides
    /// its response stream (SEP-2260). rmcp finds it in a task-local, which
    /// does not cross the `tokio::spawn` a tool call runs on, so it is named here.
    pub(crate) request_id: RequestId,
    /// The request is of the stateless revision 2026-07-28, which has no
    /// server-to-client requests: nothing is sent (an input-required result
    /// is that revision's way to ask).
    pub(crate) stateless: bool,
    /// On the stateless revision, the level the request's
    /// `_meta["io.modelcontextprotocol/logLevel"]` asks for (as its index):
    /// that revision has no `logging/setLevel`, and without the key the
    /// client wants no logs at all (SEP-2575).
    pub(crate) request_log_level: Option<u8>,
    /// The call's own response stream on a 2025 session over Streamable
    /// HTTP: its logs go there, not to the standalone GET stream rmcp gives
    /// them, and it can be closed for SSE polling.
    pub(crate) response_stream: Option<ResponseStream>,
}

/// Tells the client a request of the server is withdrawn when the wait for
/// its answer is dropped unanswered (the call's timeout or cancellation), so
/// the client can close its dialog rather than answer into the void.
struct WithdrawOnDrop {
    peer: Peer<RoleServer>,
    id: Option<RequestId>,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let reason = "The tool call stopped waiting for this answer.".to_owned();
                let param = CancelledNotificationParam::new(Some(id), Some(reason));
                let _ = peer.notify_cancelled(param).await;
            });
        }
    }
}

/// The client's result for `method`, as JSON, when it is of the kind asked for.
fn result_of(method: &str, result: ClientResult) -> Result<JsonObject, ClientRequestError> {
    let fits = matches!(
        (method, &result),
        ("sampling/createMessage", ClientResult::CreateMessageResult(_))
            | ("elicitation/create", ClientResult::ElicitResult(_))
            | ("roots/list", ClientResult::ListRootsResult(_))
    );
    if !fits {
        return Err(ClientRequestError::Malformed { detail: format!("the answer is not a result of `{method}`") });
    }
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => Ok(object),
        _ => Err(ClientRequestError::Malformed { detail: format!("the answer is not a result of `{method}`") }),
    }
}

/// The call's trace context for the `_meta` of a request to the client
/// (SEP-414: `traceparent`, `tracestate` and `baggage` at its root), so that
/// the client's span of the request is a child of the call's.
#[cfg(feature = "otel")]
fn trace_meta() -> Option<rmcp::model::RequestMetaObject> {
    let entries = crate::telemetry::current_meta();
    if entries.is_empty() {
        return None;
    }
    let meta: JsonObject = entries.into_iter().map(|(key, value)| (key, Value::String(value))).collect();
    Some(rmcp::model::RequestMetaObject(rmcp::model::MetaObject(meta)))
}

#[cfg(not(feature = "otel"))]
fn trace_meta() -> Option<rmcp::model::RequestMetaObject> {
    None
}

impl ClientChannel for PeerChannel {
    fn request(
        &self,
        method: &'static str,
        params: JsonObject,
    ) -> BoxFuture<'_, Result<JsonObject, ClientRequestError>> {
        Box::pin(async move {
            if self.stateless {
                return Err(ClientRequestError::Unavailable {
                    detail: format!(
                        "protocol revision 2026-07-28 has no server-to-client requests, so `{method}` cannot be sent \
                         on this call"
                    ),
                });
            }
            let mut request: ServerRequest = serde_json::from_value(json!({"method": method, "params": params}))
                .map_err(|err| ClientRequestError::Unavailable {
                    detail: format!("the server built a `{method}` request MCP does not accept ({err})"),
                })?;
            request.extensions_mut().insert(OriginatingRequestId(self.request_id.clone()));
            let mut options = PeerRequestOptions::no_options();
            options.meta = trace_meta();
            let handle = match self.peer.send_request_with_option(request, options).await {
                Ok(handle) => handle,
                Err(err) => return Err(unavailable(method, &err)),
            };
            let mut withdraw = WithdrawOnDrop { peer: self.peer.clone(), id: Some(handle.id.clone()) };
            let answer = handle.await_response().await;
            withdraw.id = None;
            match answer {
                Ok(result) => result_of(method, result),
                Err(ServiceError::McpError(error)) => {
                    Err(ClientRequestError::ClientError { code: error.code.0, message: error.message.into_owned() })
                }
                Err(err) => {
                    tracing::debug!(tool = self.tool, method, %err, "a request to the client failed");
                    Err(unavailable(method, &err))
                }
            }
        })
    }

    fn close_sse_stream(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            match &self.response_stream {
                Some(stream) => stream.close().await,
                None => false,
            }
        })
    }

    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // MCP sends progress only for requests that asked for it with a token.
            let Some(token) = &self.progress_token else { return };
            let mut param = ProgressNotificationParam::new(token.clone(), progress);
            param.total = total;
            param.message = message;
            if let Err(err) = self.peer.notify_progress(param).await {
                tracing::debug!(tool = self.tool, %err, "could not send a progress notification");
            }
        })
    }

    fn log(&self, level: LogLevel, data: Value) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let min = if self.stateless {
                let Some(min) = self.request_log_level else { return };
                min
            } else {
                self.log_level.load(Ordering::Relaxed)
            };
            if (level as u8) < min {
                return;
            }
            let level = match level {
                LogLevel::Debug => LoggingLevel::Debug,
                LogLevel::Info => LoggingLevel::Info,
                LogLevel::Notice => LoggingLevel::Notice,
                LogLevel::Warning => LoggingLevel::Warning,
                LogLevel::Error => LoggingLevel::Error,
            };
            let param = LoggingMessageNotificationParam::new(level, data).with_logger(self.tool);
            if let Some(stream) = &self.response_stream {
                let notification = ServerNotification::LoggingMessageNotification(Notification::new(param.clone()));
                if stream.send(ServerJsonRpcMessage::notification(notification)).await {
                    return;
                }
            }
            if let Err(err) = self.peer.notify_logging_message(param).await {
                tracing::debug!(tool = self.tool, %err, "could not send a log notification");
            }
        })
    }
}

fn unavailable(method: &str, err: &ServiceError) -> ClientRequestError {
    let detail = match err {
        ServiceError::TransportClosed => "the connection to the client is closed".to_owned(),
        // rmcp refuses server-to-client requests on the stateless revision.
        ServiceError::McpError(error) => error.message.to_string(),
        _ => format!("`{method}` could not be sent"),
    };
    ClientRequestError::Unavailable { detail }
}
