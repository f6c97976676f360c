//! Test contexts: what `YourTool::test_ctx()` gives a unit test of a handler.
//! A call as the server makes it (a caller, state, the client's capabilities,
//! a cancellation), and a record of what the handler sent the client
//! (progress, logs, elicitation and sampling requests) for the test to read,
//! with scripted answers for those requests.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::client::{Capability, ClientCapabilities, ClientRequestError};
use super::context::{ClientChannel, Context, Ctx, LogLevel};
use super::{AuthInfo, BoxFuture, ScopePolicy, SharedState, State};
use crate::error::{ErrorContract, JsonObject};

/// One `ctx.progress(..)` a handler sent.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ProgressUpdate {
    /// How far the work is.
    pub progress: f64,
    /// Out of how much, when known.
    pub total: Option<f64>,
    /// What is being done.
    pub message: Option<String>,
}

/// One `ctx.log(..)` a handler sent.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct LogRecord {
    /// Its severity.
    pub level: LogLevel,
    /// What was logged.
    pub data: Value,
}

/// One request a handler sent the client (`ctx.elicit(..)`, `ctx.sample(..)`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ClientRequestRecord {
    /// `elicitation/create` or `sampling/createMessage`.
    pub method: &'static str,
    /// Its params, as they would go on the wire.
    pub params: JsonObject,
}

#[derive(Default)]
struct Record {
    progress: Vec<ProgressUpdate>,
    logs: Vec<LogRecord>,
    requests: Vec<ClientRequestRecord>,
    /// Scripted answers, by method, taken in order.
    answers: Vec<(&'static str, VecDeque<JsonObject>)>,
}

/// What a handler under test sent the client, recorded by the context of
/// `YourTool::test_ctx()` (and of `YourResource::test_ctx()`, `YourPrompt::test_ctx()`),
/// shared by every clone of that context. Read it through [`Context::captured`]
/// after the handler ran; the enrichment is on [`Context::enrich`].
///
/// ```
/// use mcp_contract::prelude::*;
///
/// /// Count to three, reporting progress.
/// #[mcp_tool]
/// async fn count(ctx: Ctx) -> Result<String, McpError> {
///     for step in 1..=3 {
///         ctx.progress(f64::from(step), Some(3.0), None).await;
///     }
///     ctx.log(LogLevel::Info, "counted").await;
///     Ok("3".to_owned())
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ctx = Count::test_ctx();
/// assert_eq!(count(ctx.clone()).await.unwrap(), "3");
/// let captured = ctx.captured().expect("a test context records");
/// assert_eq!(captured.progress().len(), 3);
/// assert_eq!(captured.logs()[0].data, "counted");
/// # });
/// ```
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Record>>);

impl Captured {
    fn record(&self) -> std::sync::MutexGuard<'_, Record> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every progress update, in the order sent.
    pub fn progress(&self) -> Vec<ProgressUpdate> {
        self.record().progress.clone()
    }

    /// Every log message, in the order sent, whatever its level.
    pub fn logs(&self) -> Vec<LogRecord> {
        self.record().logs.clone()
    }

    /// Every request sent to the client, in the order sent; a request the
    /// context refused before sending (the capability not declared) is not here.
    pub fn requests(&self) -> Vec<ClientRequestRecord> {
        self.record().requests.clone()
    }

    fn push_answer(&self, method: &'static str, answer: JsonObject) {
        let mut record = self.record();
        match record.answers.iter_mut().find(|(m, _)| *m == method) {
            Some((_, queue)) => queue.push_back(answer),
            None => record.answers.push((method, VecDeque::from([answer]))),
        }
    }
}

impl std::fmt::Debug for Captured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let record = self.record();
        f.debug_struct("Captured")
            .field("progress", &record.progress)
            .field("logs", &record.logs)
            .field("requests", &record.requests)
            .finish_non_exhaustive()
    }
}

impl ClientChannel for Captured {
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> BoxFuture<'_, ()> {
        self.record().progress.push(ProgressUpdate { progress, total, message });
        Box::pin(async {})
    }

    fn log(&self, level: LogLevel, data: Value) -> BoxFuture<'_, ()> {
        self.record().logs.push(LogRecord { level, data });
        Box::pin(async {})
    }

    fn request(
        &self,
        method: &'static str,
        params: JsonObject,
    ) -> BoxFuture<'_, Result<JsonObject, ClientRequestError>> {
        let answer = {
            let mut record = self.record();
            record.requests.push(ClientRequestRecord { method, params });
            record.answers.iter_mut().find(|(m, _)| *m == method).and_then(|(_, queue)| queue.pop_front())
        };
        Box::pin(async move {
            answer.ok_or_else(|| ClientRequestError::Unavailable {
                detail: format!("the test context has no scripted answer left for `{method}`"),
            })
        })
    }
}

impl Context {
    /// A context for a unit test of `name`'s handler: what a real call carries
    /// but no client, so everything sent to the client is recorded in
    /// [`captured`](Self::captured). `YourTool::test_ctx()` calls it with the
    /// tool's own name and contract.
    pub fn for_unit_test(name: &'static str, contract: &'static [ErrorContract]) -> Self {
        let captured = Captured::default();
        let mut context = Self::new(name, contract).with_channel(Arc::new(captured.clone()));
        context.set_captured(captured);
        context
    }
}

impl<R> Ctx<R> {
    /// Call as `caller`, with declared scopes enforced as on an authenticated
    /// transport (what [`check_scopes`](crate::auth::check_scopes) and
    /// [`ctx.auth()`](Context::auth) see).
    #[must_use]
    pub fn with_caller(self, caller: AuthInfo) -> Self {
        Self::from_context(self.into_context().with_auth(ScopePolicy::Enforced, Some(Arc::new(caller))))
    }

    /// Carry `state`, as the server does for each value registered with
    /// `Server::state`; a handler's `State<T>` parameters are separate
    /// arguments, this is for code that reads [`Context::state`].
    #[must_use]
    pub fn with_state<T: SharedState>(self, state: State<T>) -> Self {
        Self::from_context(self.into_context().with_state(state))
    }

    /// The client declared these capabilities (see [`ClientCapabilities::declaring`]).
    #[must_use]
    pub fn with_client_capabilities(self, capabilities: ClientCapabilities) -> Self {
        Self::from_context(self.into_context().with_client_capabilities(capabilities))
    }

    /// Cancel the call when `token` is cancelled; keep a clone to cancel it
    /// from the test (or cancel [`Context::cancellation_token`]).
    #[must_use]
    pub fn with_cancellation(self, token: CancellationToken) -> Self {
        Self::from_context(self.into_context().with_cancellation(token))
    }

    /// Answer the handler's next `ctx.elicit(..)` with this `elicitation/create`
    /// result (`{"action": "accept", "content": {..}}`, `{"action": "decline"}`),
    /// declaring the `elicitation` capability (form and URL) when the test did not.
    /// Answers queue up, one per request; a request with none left gets
    /// [`ClientRequestError::Unavailable`]. Only on a test context.
    #[must_use]
    pub fn answer_elicitation(self, result: Value) -> Self {
        self.answer("elicitation/create", "elicitation", serde_json::json!({"form": {}, "url": {}}), result)
    }

    /// Answer the handler's next `ctx.sample(..)` with this
    /// `sampling/createMessage` result (`{"role": "assistant", "content":
    /// {"type": "text", "text": ..}, "model": ..}`), declaring `sampling`
    /// when the test did not; queued as [`answer_elicitation`](Self::answer_elicitation).
    #[must_use]
    pub fn answer_sampling(self, result: Value) -> Self {
        self.answer("sampling/createMessage", "sampling", serde_json::json!({}), result)
    }

    fn answer(self, method: &'static str, capability: &str, declared: Value, result: Value) -> Self {
        // Anything but an object is answered as an empty result, which the
        // context reads as a malformed answer, as from a client sending garbage.
        let result = match result {
            Value::Object(result) => result,
            _ => JsonObject::new(),
        };
        if let Some(captured) = self.captured() {
            captured.push_answer(method, result);
        }
        let mut capabilities = self.client_capabilities().as_json().clone();
        capabilities.entry(capability.to_owned()).or_insert(declared);
        self.with_client_capabilities(ClientCapabilities::from_json(capabilities))
    }
}

impl ClientCapabilities {
    /// Capabilities that declare each of `capabilities` (with every sub-mode:
    /// elicitation's form and URL modes, sampling with tools), as a client's
    /// `initialize` would.
    ///
    /// ```
    /// use mcp_contract::context::{Capability, ClientCapabilities};
    /// let declared = ClientCapabilities::declaring([Capability::Elicitation]);
    /// assert!(declared.elicitation_form() && declared.elicitation_url());
    /// assert!(!declared.has(Capability::Sampling));
    /// ```
    pub fn declaring(capabilities: impl IntoIterator<Item = Capability>) -> Self {
        let mut declared = JsonObject::new();
        for capability in capabilities {
            let value = match capability {
                Capability::Elicitation => serde_json::json!({"form": {}, "url": {}}),
                Capability::Sampling => serde_json::json!({"tools": {}}),
                Capability::Roots => serde_json::json!({}),
            };
            declared.insert(capability.name().to_owned(), value);
        }
        Self::from_json(declared)
    }
}
