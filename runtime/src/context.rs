//! The context a handler receives: the untyped [`Context`] every service can
//! take, and the typed [`Ctx`] of a tool, whose `fail` only accepts the tool's
//! declared reasons.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::contract::{ErrorContract, Reason};
use crate::errors::{JsonObject, McpError};
use crate::private::{ContractDeclared, NoContract};

/// The severity of a log message sent to the client (MCP `notifications/message`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

/// Where a context sends what the client should hear during a call: progress
/// and log messages. The server implements it over its transport.
pub trait ClientChannel: Send + Sync + 'static {
    /// Report progress (`notifications/progress`), when the client asked for it.
    fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> crate::contract::BoxFuture<'_, ()>;

    /// Send a log message (`notifications/message`).
    fn log(&self, level: LogLevel, data: Value) -> crate::contract::BoxFuture<'_, ()>;
}

/// The untyped context of a tool call: which tool runs, its contract, the
/// request's cancellation, and the channel to the client.
///
/// Services that do not know the calling tool's reason type take this one and
/// look recovery hints up by reason name.
#[derive(Clone)]
pub struct Context {
    tool: &'static str,
    contract: &'static [ErrorContract],
    cancellation: CancellationToken,
    channel: Option<Arc<dyn ClientChannel>>,
}

impl Context {
    /// A context for a call of `tool` with its contract; the server adds the
    /// cancellation and the client channel.
    pub fn new(tool: &'static str, contract: &'static [ErrorContract]) -> Self {
        Self { tool, contract, cancellation: CancellationToken::new(), channel: None }
    }

    /// Cancel the handler when this token is cancelled (the client's `notifications/cancelled`).
    pub fn with_cancellation(mut self, cancellation: CancellationToken) -> Self {
        self.cancellation = cancellation;
        self
    }

    /// Send progress and logs through this channel.
    pub fn with_channel(mut self, channel: Arc<dyn ClientChannel>) -> Self {
        self.channel = Some(channel);
        self
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &'static str {
        self.tool
    }

    /// The calling tool's error contract.
    pub fn contract(&self) -> &'static [ErrorContract] {
        self.contract
    }

    /// The recovery data of a reason of the calling tool, ready to merge into an
    /// error's data: `{"recovery": {"hint": ..}}`. `None` when the calling tool
    /// declares no such reason, so a shared service never invents a hint.
    pub fn recovery_for(&self, reason: &str) -> Option<JsonObject> {
        let entry = self.contract.iter().find(|entry| entry.reason == reason)?;
        Some(recovery_data(entry.recovery))
    }

    /// Whether the client cancelled this call.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Resolves when the client cancels this call; `select!` on it in long work.
    pub async fn cancelled(&self) {
        self.cancellation.cancelled().await;
    }

    /// The call's cancellation token, to hand to other tasks.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Report progress to the client; a no-op when nobody listens.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if let Some(channel) = &self.channel {
            channel.progress(progress, total, message).await;
        }
    }

    /// Send a log message to the client; a no-op when nobody listens.
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) {
        if let Some(channel) = &self.channel {
            channel.log(level, data.into()).await;
        }
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("tool", &self.tool)
            .field("reasons", &self.contract.iter().map(|entry| entry.reason).collect::<Vec<_>>())
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// `{"recovery": {"hint": ..}}`, the shape `McpError::with_recovery_hint` writes.
fn recovery_data(hint: &str) -> JsonObject {
    JsonObject::from_iter([("recovery".to_owned(), json!({ "hint": hint }))])
}

/// The typed context of a tool with reason type `R`: everything of [`Context`]
/// (through `Deref`), plus a `fail` that only accepts the tool's declared reasons.
///
/// A tool without `errors(..)` gets a `Ctx` whose reason type has no values,
/// and no `fail`: declaring the contract is what makes `fail` exist.
pub struct Ctx<R = NoContract> {
    context: Context,
    reason: PhantomData<fn() -> R>,
}

impl<R> Ctx<R> {
    /// Wrap an untyped context; the expansion does it for every call, through
    /// `__private::typed_context`.
    pub(crate) fn from_context(context: Context) -> Self {
        Self { context, reason: PhantomData }
    }

    /// The untyped context, for services that take one.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Give up the typing, keeping the context.
    pub fn into_context(self) -> Context {
        self.context
    }
}

impl<R: Reason> Ctx<R> {
    /// A detached context for unit tests of a handler: no client, never cancelled.
    pub fn for_test(tool: &'static str) -> Self {
        Self::from_context(Context::new(tool, R::CONTRACT))
    }

    /// The error of a declared failure mode: the contract's code, `message`, and
    /// `data.reason` set to the reason's name, written last so no later data
    /// overrides it. Add [`McpError::with_recovery`] to send the contract's hint.
    pub fn fail(&self, reason: R, message: impl Into<Cow<'static, str>>) -> McpError {
        let entry = reason.contract();
        McpError::new(entry.code, message).with_reason(entry.reason).with_contract_recovery(entry.recovery)
    }

    /// The recovery data of a declared reason, to merge into an error's data by hand.
    pub fn recovery_for(&self, reason: R) -> JsonObject {
        recovery_data(reason.contract().recovery)
    }
}

impl Ctx<NoContract> {
    /// A detached context for unit tests of a handler without a contract.
    pub fn for_test_without_contract(tool: &'static str) -> Self {
        Self::from_context(Context::new(tool, &[]))
    }

    /// A tool without `errors(..)` has no failure modes to fail with: calling this
    /// is a compile error that says so. Declare the contract, or build the error
    /// with a factory such as [`McpError::internal_error`].
    pub fn fail<T: ContractDeclared>(&self, _reason: T, message: impl Into<Cow<'static, str>>) -> McpError {
        McpError::internal_error(message)
    }
}

impl<R> Clone for Ctx<R> {
    fn clone(&self) -> Self {
        Self::from_context(self.context.clone())
    }
}

impl<R> Deref for Ctx<R> {
    type Target = Context;

    fn deref(&self) -> &Context {
        &self.context
    }
}

impl<R> fmt::Debug for Ctx<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.context.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::JsonRpcErrorCode;

    #[derive(Clone, Copy, Debug)]
    enum Lookup {
        Missing,
        Busy,
    }

    const CONTRACT: &[ErrorContract] = &[
        ErrorContract {
            reason: "missing",
            code: JsonRpcErrorCode::NotFound,
            when: "No such id",
            recovery: "Search first to find a valid id.",
            retryable: false,
        },
        ErrorContract {
            reason: "busy",
            code: JsonRpcErrorCode::RateLimited,
            when: "Throttled",
            recovery: "Wait a minute, then try again.",
            retryable: true,
        },
    ];

    impl Reason for Lookup {
        const CONTRACT: &'static [ErrorContract] = CONTRACT;
        fn contract(self) -> &'static ErrorContract {
            &CONTRACT[self as usize]
        }
    }

    #[test]
    fn fail_uses_the_contract_code_and_reason() {
        let ctx = Ctx::<Lookup>::for_test("lookup");
        let err = ctx.fail(Lookup::Busy, "slow down").with_data(serde_json::json!({"reason": "other"}));
        assert_eq!(err.code(), JsonRpcErrorCode::RateLimited);
        assert_eq!(err.data().unwrap()["reason"], "busy");
        assert!(err.recovery_hint().is_none(), "recovery is opt-in");
        assert_eq!(
            ctx.fail(Lookup::Missing, "x").with_recovery().recovery_hint(),
            Some("Search first to find a valid id.")
        );
    }

    #[test]
    fn untyped_lookup_is_empty_for_foreign_reasons() {
        let ctx = Ctx::<Lookup>::for_test("lookup");
        let untyped: &Context = &ctx;
        assert_eq!(
            Value::Object(untyped.recovery_for("busy").unwrap()),
            json!({"recovery": {"hint": "Wait a minute, then try again."}})
        );
        assert_eq!(untyped.recovery_for("not_ours"), None);
        assert_eq!(
            Value::Object(ctx.recovery_for(Lookup::Missing)),
            json!({"recovery": {"hint": "Search first to find a valid id."}})
        );
    }
}
