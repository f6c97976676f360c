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
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    SetLevelRequestParams,
};
use rmcp::service::Peer;
use serde_json::Value;

use crate::call::{BoxFuture, ClientChannel, LogLevel};

/// The capabilities a tool server declares: tools, and logging for [`PeerChannel::log`].
pub(super) fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder().enable_tools().enable_logging().build()
}

/// The lowest [`LogLevel`] (as its index) a `logging/setLevel` request lets through.
pub(super) fn min_level(request: &SetLevelRequestParams) -> u8 {
    match request.level {
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
pub(super) struct PeerChannel {
    pub(super) peer: Peer<RoleServer>,
    pub(super) progress_token: Option<ProgressToken>,
    pub(super) log_level: Arc<AtomicU8>,
    pub(super) tool: &'static str,
}

impl ClientChannel for PeerChannel {
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
            if (level as u8) < self.log_level.load(Ordering::Relaxed) {
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
            if let Err(err) = self.peer.notify_logging_message(param).await {
                tracing::debug!(tool = self.tool, %err, "could not send a log notification");
            }
        })
    }
}
