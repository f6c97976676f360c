//! The context a handler receives: the untyped [`Context`] every service can
//! take, and the typed [`Ctx`] of a tool, whose `fail` only accepts the tool's
//! declared reasons.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::call::client::{
    Capability, ClientCapabilities, ClientRequestError, DEFAULT_CLIENT_REQUEST_TIMEOUT, Root, SampledMessage, Sampling,
};
use crate::call::elicit::{ElicitForm, Elicitation, form_schema};
use crate::call::round::{InputRequest, InputRound};
use crate::call::{AuthInfo, Captured, Enrichment, ScopePolicy, SharedState, State, StateMap};
use crate::error::{ContractDeclared, ErrorContract, JsonObject, McpError, NoContract, Reason};

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

/// The progress token a client put in its request's `_meta.progressToken`:
/// a number or a string, kept as sent, so a handler that forwards the work
/// (to another MCP server, a queue) can name it as the client did.
///
/// ```
/// use mcp_contract::context::ProgressToken;
/// let token: ProgressToken = serde_json::from_value(serde_json::json!("upload-7")).unwrap();
/// assert_eq!(token, ProgressToken::String("upload-7".into()));
/// assert_eq!(token.to_string(), "upload-7");
/// assert_eq!(serde_json::to_value(ProgressToken::Number(7)).unwrap(), serde_json::json!(7));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// A token sent as a JSON integer.
    Number(i64),
    /// A token sent as a JSON string.
    String(String),
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(number) => write!(f, "{number}"),
            Self::String(text) => f.write_str(text),
        }
    }
}

/// Where a context sends what the client should hear during a call: progress
/// and log messages. The server implements it over its transport.
pub trait ClientChannel: Send + Sync + 'static {
    /// Report progress (`notifications/progress`), when the client asked for it.
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> super::BoxFuture<'_, ()>;

    /// Send a log message (`notifications/message`).
    fn log(&self, level: LogLevel, data: Value) -> super::BoxFuture<'_, ()>;

    /// Close the call's SSE response stream for SSE polling (SEP-1699): the
    /// client reconnects after the stream's retry hint and receives, from the
    /// server's event store, what the call sent meanwhile. `false` when the
    /// call has no stream to close (stdio, a JSON answer, no event store, or
    /// closed already). By default there is none.
    fn close_sse_stream(&self) -> super::BoxFuture<'_, bool> {
        Box::pin(std::future::ready(false))
    }

    /// Send a request to the client (`elicitation/create`, `sampling/createMessage`)
    /// and wait for its result object. The context bounds the wait, cancels it
    /// with the call, and checks the client's capabilities before it asks; a
    /// channel only sends and reads. By default there is nobody to ask.
    fn request(
        &self,
        method: &'static str,
        params: JsonObject,
    ) -> super::BoxFuture<'_, Result<JsonObject, ClientRequestError>> {
        let _ = params;
        Box::pin(async move {
            Err(ClientRequestError::Unavailable { detail: format!("this call has no client to send `{method}` to") })
        })
    }
}

/// The untyped context of a tool call: which tool runs, its contract, the
/// request's cancellation, the channel to the client, and the server's shared
/// [`State`].
///
/// Services that do not know the calling tool's reason type take this one and
/// look recovery hints up by reason name.
#[derive(Clone)]
pub struct Context {
    tool: &'static str,
    contract: &'static [ErrorContract],
    cancellation: CancellationToken,
    channel: Option<Arc<dyn ClientChannel>>,
    auth: Option<Arc<AuthInfo>>,
    scope_policy: ScopePolicy,
    states: StateMap,
    enrichment: Enrichment,
    client: Arc<ClientCapabilities>,
    client_request_timeout: Duration,
    request_id: Option<Arc<str>>,
    session_id: Option<Arc<str>>,
    client_ip: Option<std::net::IpAddr>,
    progress_token: Option<ProgressToken>,
    /// On a stateless request (2026-07-28), the round its asks go to.
    round: Option<Arc<InputRound>>,
    /// The key the next ask of this context goes under in that round.
    input_key: Option<Arc<str>>,
    /// What a test context records of the call ([`Context::for_unit_test`]).
    captured: Option<Captured>,
    /// The request's trace context and protocol revision, for the call's span.
    #[cfg(feature = "rmcp")]
    trace: Option<Arc<super::CallTrace>>,
}

impl Context {
    /// A context for a call of `tool` with its contract; the server adds the
    /// cancellation and the client channel.
    pub fn new(tool: &'static str, contract: &'static [ErrorContract]) -> Self {
        Self::served(tool, contract, CancellationToken::new(), StateMap::default(), ClientCapabilities::default())
    }

    /// [`new`](Self::new) with the request's cancellation, the server's
    /// state and the client's capabilities, as the server makes a call's
    /// context: `new`'s defaults of the three would each be allocated only
    /// to be dropped.
    pub(crate) fn served(
        tool: &'static str,
        contract: &'static [ErrorContract],
        cancellation: CancellationToken,
        states: StateMap,
        client: ClientCapabilities,
    ) -> Self {
        Self {
            tool,
            contract,
            cancellation,
            channel: None,
            auth: None,
            scope_policy: ScopePolicy::Open,
            states,
            enrichment: Enrichment::default(),
            client: Arc::new(client),
            client_request_timeout: DEFAULT_CLIENT_REQUEST_TIMEOUT,
            request_id: None,
            session_id: None,
            client_ip: None,
            progress_token: None,
            round: None,
            input_key: None,
            captured: None,
            #[cfg(feature = "rmcp")]
            trace: None,
        }
    }

    /// The JSON-RPC id of the request this call answers, as the server sets it.
    pub fn with_request_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.request_id = Some(id.into());
        self
    }

    /// The `Mcp-Session-Id` of the Streamable HTTP session the call came in, as
    /// the server sets it.
    pub fn with_session_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// The JSON-RPC id of the request this call answers (a number written in
    /// decimal, or the client's string): `None` outside a server. The same id
    /// is on the call's `mcp_call` span, so a handler's own logs and the
    /// client's request can be matched.
    ///
    /// ```
    /// use mcp_contract::Context;
    /// let ctx = Context::new("search", &[]).with_request_id("7");
    /// assert_eq!(ctx.request_id(), Some("7"));
    /// assert_eq!(ctx.session_id(), None);
    /// ```
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// The `Mcp-Session-Id` of the Streamable HTTP session the call came in;
    /// `None` over stdio and stateless HTTP, where there is no session.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// [`request_id`](Self::request_id) and [`session_id`](Self::session_id)
    /// as kept, for the call's log line to share rather than copy.
    #[cfg(feature = "rmcp")]
    pub(crate) fn kept_ids(&self) -> (Option<&Arc<str>>, Option<&Arc<str>>) {
        (self.request_id.as_ref(), self.session_id.as_ref())
    }

    /// The request's trace context and protocol revision, as the server sets them.
    #[cfg(feature = "rmcp")]
    pub(crate) fn with_trace(mut self, trace: Arc<super::CallTrace>) -> Self {
        self.trace = Some(trace);
        self
    }

    /// The request's trace context and protocol revision: `None` outside a server.
    #[cfg(feature = "rmcp")]
    pub(crate) fn trace(&self) -> Option<&Arc<super::CallTrace>> {
        self.trace.as_ref()
    }

    /// The address of the client the call came from, as the server sets it.
    pub fn with_client_ip(mut self, ip: std::net::IpAddr) -> Self {
        self.client_ip = Some(ip);
        self
    }

    /// The address of the client over Streamable HTTP: the connection's peer,
    /// or behind a trusted proxy the client it names; `None` over stdio.
    pub fn client_ip(&self) -> Option<std::net::IpAddr> {
        self.client_ip
    }

    /// The progress token of the request this call answers, as the server sets it.
    pub fn with_progress_token(mut self, token: ProgressToken) -> Self {
        self.progress_token = Some(token);
        self
    }

    /// The progress token the client sent with this call's request
    /// (`_meta.progressToken`): `None` when it asked for no progress, and
    /// outside a server. [`Self::progress`] reports under it; a handler reads
    /// it to tell whether anyone follows its progress, or to hand it on to
    /// work it forwards. A call that runs as a task keeps its request's token.
    ///
    /// ```
    /// use mcp_contract::Context;
    /// use mcp_contract::context::ProgressToken;
    /// let ctx = Context::new("export", &[]).with_progress_token(ProgressToken::Number(77));
    /// assert_eq!(ctx.progress_token(), Some(&ProgressToken::Number(77)));
    /// assert_eq!(Context::new("export", &[]).progress_token(), None);
    /// ```
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.progress_token.as_ref()
    }

    /// Ask the client through `round` rather than the channel: what the server
    /// does on a stateless request of 2026-07-28, where the answers come with
    /// the request again (`inputResponses`) rather than in a reply.
    pub fn with_input_round(mut self, round: Arc<InputRound>) -> Self {
        self.round = Some(round);
        self
    }

    /// The ask of the input `key`: on the stateless revision 2026-07-28, the
    /// key of the input request in the `input_required` result, and of its
    /// answer in the retried request's `inputResponses`. Without one, an ask's
    /// key is its kind and rank (`elicitation-1`, `sampling-2`), which the
    /// same code reproduces on every round. A key names one question: give
    /// each ask a key of its own. On a session the key is sent nowhere.
    ///
    /// ```
    /// # use mcp_contract::prelude::*;
    /// #[derive(Deserialize, JsonSchema, ElicitForm)]
    /// struct Name { name: String }
    ///
    /// async fn greet(ctx: &mcp_contract::Context) -> Result<String, ClientRequestError> {
    ///     Ok(match ctx.input("user_name").elicit::<Name>("What is your name?").await? {
    ///         Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
    ///         Elicitation::Declined | Elicitation::Cancelled => "Hello!".to_owned(),
    ///     })
    /// }
    /// ```
    pub fn input(&self, key: impl Into<String>) -> Input {
        let mut keyed = self.clone();
        keyed.input_key = Some(Arc::from(key.into()));
        Input { context: keyed }
    }

    pub(super) fn set_captured(&mut self, captured: Captured) {
        self.captured = Some(captured);
    }

    /// What the handler sent the client, on a test context
    /// ([`for_unit_test`](Self::for_unit_test), `YourTool::test_ctx()`);
    /// `None` on a server's context, whose output went to the client.
    pub fn captured(&self) -> Option<&Captured> {
        self.captured.as_ref()
    }

    /// The capabilities the client declared; the server sets them from the
    /// session's `initialize` or the request's `_meta`.
    pub fn with_client_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.client = Arc::new(capabilities);
        self
    }

    /// How long a request to the client ([`elicit`](Self::elicit), [`sample`](Self::sample))
    /// waits for its answer.
    pub fn with_client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// The capabilities the client declared (on 2026-07-28, those of this
    /// request): what [`elicit`](Self::elicit) and [`sample`](Self::sample) may ask.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client
    }

    /// Ask the user for a `T` through a form (`elicitation/create`, form mode).
    ///
    /// The form is built from `T`'s schema (see [`ElicitForm`]); the answer
    /// comes back typed: accepted with the decoded value, declined or
    /// cancelled. Nothing is sent to a client that did not declare
    /// `elicitation`; every wait is bounded, and a client that errs, answers
    /// something else or nothing at all gives a [`ClientRequestError`], which
    /// `?` turns into a tool error with a `data.reason` to match on.
    pub async fn elicit<T: ElicitForm>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ClientRequestError> {
        if !self.client.elicitation_form() {
            return Err(ClientRequestError::NotDeclared { capability: "elicitation" });
        }
        let schema = form_schema::<T>().map_err(|detail| {
            // The field and the fix are for the server's author, who reads the
            // log; the client gets a plain tool error (see `ClientRequestError`).
            tracing::error!(rule = mcp_contract_rules::ELICITATION_FORM_FLAT.id, "{detail}");
            ClientRequestError::FormInvalid { detail }
        })?;
        let mut params = JsonObject::new();
        params.insert("mode".to_owned(), Value::from("form"));
        params.insert("message".to_owned(), Value::from(message.into()));
        params.insert("requestedSchema".to_owned(), Value::Object(schema));
        self.ask_parsed("elicitation", "elicitation/create", params, |answer| match action(answer)? {
            Action::Accept => {
                let content = answer.get("content").cloned().ok_or_else(|| ClientRequestError::Malformed {
                    detail: "the form was accepted without `content`".to_owned(),
                })?;
                serde_json::from_value(content).map(Elicitation::Accepted).map_err(|err| {
                    let detail: String = err.to_string().chars().take(300).collect();
                    ClientRequestError::Malformed { detail: format!("the form's content does not fit: {detail}") }
                })
            }
            Action::Decline => Ok(Elicitation::Declined),
            Action::Cancel => Ok(Elicitation::Cancelled),
        })
        .await
    }

    /// Send the user to `url` (`elicitation/create`, URL mode, SEP-1036): for
    /// what must not pass through the client, such as credentials or a payment.
    /// `elicitation_id` names the flow, so the server can tell the client when
    /// it completed. Accepted means the user agreed to open the URL.
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<Elicitation<()>, ClientRequestError> {
        if !self.client.elicitation_url() {
            return Err(ClientRequestError::NotDeclared { capability: "elicitation.url" });
        }
        let mut params = JsonObject::new();
        params.insert("mode".to_owned(), Value::from("url"));
        params.insert("message".to_owned(), Value::from(message.into()));
        params.insert("url".to_owned(), Value::from(url.into()));
        params.insert("elicitationId".to_owned(), Value::from(elicitation_id.into()));
        self.ask_parsed("elicitation", "elicitation/create", params, |answer| {
            Ok(match action(answer)? {
                Action::Accept => Elicitation::Accepted(()),
                Action::Decline => Elicitation::Declined,
                Action::Cancel => Elicitation::Cancelled,
            })
        })
        .await
    }

    /// Ask the client's model (`sampling/createMessage`). Nothing is sent to a
    /// client that did not declare `sampling` (or `sampling.tools`, when the
    /// request offers tools); bounded and cancelled as [`elicit`](Self::elicit) is.
    pub async fn sample(&self, request: Sampling) -> Result<SampledMessage, ClientRequestError> {
        if !self.client.has(Capability::Sampling) {
            return Err(ClientRequestError::NotDeclared { capability: "sampling" });
        }
        if request.has_tools() && !self.client.sampling_tools() {
            return Err(ClientRequestError::NotDeclared { capability: "sampling.tools" });
        }
        self.ask_parsed("sampling", "sampling/createMessage", request.to_params(), SampledMessage::from_result).await
    }

    /// The client's roots (`roots/list`): the directories or files it lets the
    /// server work in. Nothing is sent to a client that did not declare
    /// `roots`; bounded and cancelled as [`elicit`](Self::elicit) is.
    pub async fn list_roots(&self) -> Result<Vec<Root>, ClientRequestError> {
        if !self.client.has(Capability::Roots) {
            return Err(ClientRequestError::NotDeclared { capability: "roots" });
        }
        self.ask_parsed("roots", "roots/list", JsonObject::new(), Root::list_from_result).await
    }

    /// One ask of the client, its answer read by `parse`. On a session it is
    /// a request, bounded by the timeout and cancelled with the call. In a
    /// stateless round it is the answer under its key, kept for the next round
    /// once `parse` took it; an answer `parse` refuses ends the round with a
    /// protocol error, and a missing one with an input request.
    async fn ask_parsed<T>(
        &self,
        kind: &'static str,
        method: &'static str,
        params: JsonObject,
        parse: impl FnOnce(&JsonObject) -> Result<T, ClientRequestError>,
    ) -> Result<T, ClientRequestError> {
        let Some(round) = &self.round else {
            let answer = self.ask(method, params).await?;
            return parse(&answer);
        };
        let key = self.input_key.as_deref().map_or_else(|| round.next_key(kind), str::to_owned);
        let answer = match round.answer(&key) {
            Some(answer) => answer,
            // A task's ask waits for the client, bounded and cancelled as a request is.
            None if round.is_live() => {
                let timeout = self.client_request_timeout;
                tokio::select! {
                    biased;
                    () = self.cancellation.cancelled() => return Err(ClientRequestError::Cancelled),
                    answer = tokio::time::timeout(timeout, round.request(key.clone(), InputRequest { method, params })) => {
                        answer.unwrap_or(Err(ClientRequestError::Timeout { after: timeout }))?
                    }
                }
            }
            None => round.request(key.clone(), InputRequest { method, params }).await?,
        };
        let Value::Object(answer) = answer else {
            let detail = format!("the answer is no result of `{method}` (not an object)");
            return Err(round.refuse(key, ClientRequestError::Malformed { detail }).await);
        };
        match parse(&answer) {
            Ok(parsed) => {
                round.keep(key, answer);
                Ok(parsed)
            }
            Err(err) => Err(round.refuse(key, err).await),
        }
    }

    /// One request to the client, bounded by the timeout and cancelled with the call.
    async fn ask(&self, method: &'static str, params: JsonObject) -> Result<JsonObject, ClientRequestError> {
        let Some(channel) = &self.channel else {
            return Err(ClientRequestError::Unavailable {
                detail: format!("this call has no client to send `{method}` to"),
            });
        };
        let timeout = self.client_request_timeout;
        tokio::select! {
            biased;
            () = self.cancellation.cancelled() => Err(ClientRequestError::Cancelled),
            answer = tokio::time::timeout(timeout, channel.request(method, params)) => {
                answer.unwrap_or(Err(ClientRequestError::Timeout { after: timeout }))
            }
        }
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

    /// The caller and how scopes are treated on this call; the server sets both
    /// from the transport and the bearer token.
    pub fn with_auth(mut self, policy: ScopePolicy, auth: Option<Arc<AuthInfo>>) -> Self {
        self.scope_policy = policy;
        self.auth = auth;
        self
    }

    /// The caller, from the verified bearer token; `None` without authentication
    /// (stdio, mode `none`). See [`check_scopes`](crate::auth::check_scopes).
    pub fn auth(&self) -> Option<&AuthInfo> {
        self.auth.as_deref()
    }

    /// How declared scopes are treated on this call.
    pub fn scope_policy(&self) -> ScopePolicy {
        self.scope_policy
    }

    /// Carry `state`, as the server does for every value registered with
    /// [`Server::state`](crate::server::Server::state); for tests of code that
    /// reads [`Context::state`].
    pub fn with_state<T: SharedState>(mut self, state: State<T>) -> Self {
        self.states.insert(state.into_arc());
        self
    }

    /// The call's enrichment: what the agent should know about the result beside
    /// it (`ctx.enrich().total(57).echo("wave")`). Shared by every clone of this
    /// context, so services that take it fill it too; a no-op on a tool that
    /// declares no `enrichment = ..`, whose result has no place for it.
    pub fn enrich(&self) -> &Enrichment {
        &self.enrichment
    }

    /// The shared state of type `T`, when the server registered one.
    pub fn state<T: SharedState>(&self) -> Option<State<T>> {
        self.states.get()
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

    /// Send a log message to the client; a no-op when nobody listens. It
    /// rides the call's own response stream. The client's level decides what
    /// is sent: `logging/setLevel` on a 2025 session (`info` and above until
    /// the client sets one), the request's `_meta["io.modelcontextprotocol/logLevel"]`
    /// on 2026-07-28, where a request without it gets no log at all.
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) {
        if let Some(channel) = &self.channel {
            channel.log(level, data.into()).await;
        }
    }

    /// Close this call's SSE response stream, for SSE polling (SEP-1699): a
    /// long call frees its connection, the client reconnects after the
    /// stream's `retry:` hint with `Last-Event-ID`, and receives what the call
    /// sent meanwhile (its progress, its logs, its answer) from the server's
    /// event store (see [`HttpOptions::event_store`](crate::server::HttpOptions::event_store)).
    /// The call goes on. `false` when there is no stream to close: stdio, a
    /// JSON answer, a server without an event store, or closed already; and
    /// when the event store was down as the stream began, or the store shared
    /// by replicas does not answer as it is closed, so a client could not
    /// resume it: the stream stays open, and the answer rides it.
    ///
    /// ```no_run
    /// # async fn long_job(ctx: &mcp_contract::Context) {
    /// // Free the connection while the job runs; the client comes back for the answer.
    /// ctx.close_sse_stream().await;
    /// # }
    /// ```
    pub async fn close_sse_stream(&self) -> bool {
        match &self.channel {
            Some(channel) => channel.close_sse_stream().await,
            None => false,
        }
    }
}

/// One ask of the client under a key of the handler's ([`Context::input`]):
/// the asks of [`Context`], taking the key along, so several can be joined
/// (`tokio::join!`) into one round.
#[derive(Clone, Debug)]
#[must_use = "an input does nothing until it is asked"]
pub struct Input {
    context: Context,
}

impl Input {
    /// [`Context::elicit`] under this input's key.
    pub async fn elicit<T: ElicitForm>(self, message: impl Into<String>) -> Result<Elicitation<T>, ClientRequestError> {
        self.context.elicit(message).await
    }

    /// [`Context::elicit_url`] under this input's key.
    pub async fn elicit_url(
        self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<Elicitation<()>, ClientRequestError> {
        self.context.elicit_url(message, url, elicitation_id).await
    }

    /// [`Context::sample`] under this input's key.
    pub async fn sample(self, request: Sampling) -> Result<SampledMessage, ClientRequestError> {
        self.context.sample(request).await
    }

    /// [`Context::list_roots`] under this input's key.
    pub async fn list_roots(self) -> Result<Vec<Root>, ClientRequestError> {
        self.context.list_roots().await
    }
}

/// What the user did with an elicitation.
enum Action {
    Accept,
    Decline,
    Cancel,
}

fn action(answer: &JsonObject) -> Result<Action, ClientRequestError> {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => Ok(Action::Accept),
        Some("decline") => Ok(Action::Decline),
        Some("cancel") => Ok(Action::Cancel),
        _ => Err(ClientRequestError::Malformed {
            detail: "an elicitation result has `action` \"accept\", \"decline\" or \"cancel\"".to_owned(),
        }),
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("tool", &self.tool)
            .field("reasons", &self.contract.iter().map(|entry| entry.reason).collect::<Vec<_>>())
            .field("cancelled", &self.is_cancelled())
            .field("request_id", &self.request_id)
            .field("session_id", &self.session_id)
            .field("client_ip", &self.client_ip)
            .field("states", &self.states.len())
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
    /// The error of a declared failure mode: the contract's code, `message`,
    /// `data.reason` set to the reason's name (written last so no later data
    /// overrides it), the contract's recovery hint (unless the reason keeps it
    /// `recovery_private`) and `data.retryable` where the contract says it.
    /// A hint set after with [`McpError::with_recovery_hint`] wins.
    pub fn fail(&self, reason: R, message: impl Into<Cow<'static, str>>) -> McpError {
        let entry = reason.contract();
        McpError::new(entry.code, message).with_reason(entry.reason).with_contract_entry(entry)
    }

    /// File an upstream failure under a declared reason: the contract's code and
    /// `data.reason`, with `err` kept as the cause (`source()`, the server's log).
    ///
    /// - An [`McpError`] (from [`http_error_from_response`](crate::error::upstream::http_error_from_response),
    ///   another service, [`with_retry`](crate::error::with_retry)) lends its message and
    ///   the data its code built on purpose, `retryAfter` among them; its own
    ///   `reason` and recovery hint belong to its contract and are dropped.
    /// - Any other error lends nothing but itself as the cause: the message is
    ///   the contract's `when`, since an arbitrary error's text may hold internals.
    ///   Replace it with [`McpError::with_message`] where you have a better one.
    ///
    /// As with [`fail`](Self::fail), the contract's hint and `retryable` come with it.
    ///
    /// Use it where a handler meets a failure it did not detect itself: `?` on an
    /// upstream call would classify the error on its own, under no reason of the
    /// contract.
    pub fn fail_from<E>(&self, reason: R, err: E) -> McpError
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let entry = reason.contract();
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);
        let err = match boxed.downcast::<McpError>() {
            Ok(upstream) => {
                let mut data = upstream.data().cloned().unwrap_or_default();
                data.remove("reason");
                data.remove("recovery");
                let failed = McpError::new(entry.code, upstream.message().to_owned());
                let failed = if data.is_empty() { failed } else { failed.with_data(data) };
                failed.with_cause(*upstream)
            }
            Err(other) => McpError::new(entry.code, entry.when).with_cause_arc(Arc::from(other)),
        };
        err.with_reason(entry.reason).with_contract_entry(entry)
    }

    /// The recovery data of a declared reason, to merge into an error's data by hand.
    pub fn recovery_for(&self, reason: R) -> JsonObject {
        recovery_data(reason.contract().recovery)
    }
}

impl Ctx<NoContract> {
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
    use crate::error::JsonRpcErrorCode;

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
            severity: None,
            recovery_private: false,
        },
        ErrorContract {
            reason: "busy",
            code: JsonRpcErrorCode::RateLimited,
            when: "Throttled",
            recovery: "Wait a minute, then try again.",
            retryable: true,
            severity: None,
            recovery_private: false,
        },
    ];

    impl Reason for Lookup {
        const CONTRACT: &'static [ErrorContract] = CONTRACT;
        const ALL: &'static [Self] = &[Self::Missing, Self::Busy];
        fn index(self) -> usize {
            self as usize
        }
    }

    #[test]
    fn fail_uses_the_contract_code_and_reason() {
        let ctx = lookup_ctx();
        let err = ctx.fail(Lookup::Busy, "slow down").with_data(serde_json::json!({"reason": "other"}));
        assert_eq!(err.code(), JsonRpcErrorCode::RateLimited);
        assert_eq!(err.data().unwrap()["reason"], "busy");
        assert_eq!(err.recovery_hint(), Some("Wait a minute, then try again."), "the declared hint by default");
        assert_eq!(err.data().unwrap()["retryable"], true);
        let missing = ctx.fail(Lookup::Missing, "x");
        assert_eq!(missing.recovery_hint(), Some("Search first to find a valid id."));
        assert_eq!(missing.clone().with_recovery(), missing, "with_recovery adds no second hint");
    }

    fn lookup_ctx() -> Ctx<Lookup> {
        Ctx::from_context(Context::new("lookup", CONTRACT))
    }

    fn throttled_upstream() -> McpError {
        McpError::rate_limited("Collection API returned HTTP 429 Too Many Requests.")
            .with_data(json!({"retryAfter": 30, "status": 429, "reason": "upstream_reason"}))
            .with_recovery_hint("The upstream's own hint.")
            .with_cause(std::io::Error::other("socket detail"))
    }

    #[test]
    fn fail_from_an_mcp_error_keeps_its_message_and_data_under_the_reason() {
        let ctx = lookup_ctx();
        let err = ctx.fail_from(Lookup::Missing, throttled_upstream());
        assert_eq!(err.code(), JsonRpcErrorCode::NotFound, "the contract's code, not the upstream's");
        assert_eq!(err.message(), "Collection API returned HTTP 429 Too Many Requests.");
        assert_eq!(
            Value::Object(err.data().unwrap().clone()),
            json!({
                "retryAfter": 30,
                "status": 429,
                "recovery": {"hint": "Search first to find a valid id."},
                "retryable": false,
                "reason": "missing",
            }),
            "the upstream's reason and recovery belong to its own contract; this one's fill in"
        );
    }

    #[test]
    fn fail_from_keeps_the_upstream_error_as_the_cause() {
        let ctx = lookup_ctx();
        let err = ctx.fail_from(Lookup::Busy, throttled_upstream());
        let source = std::error::Error::source(&err).expect("the upstream is the source");
        let upstream = source.downcast_ref::<McpError>().expect("kept as it was");
        assert_eq!(upstream.code(), JsonRpcErrorCode::RateLimited);
        assert_eq!(std::error::Error::source(upstream).unwrap().to_string(), "socket detail");
    }

    #[test]
    fn fail_from_any_error_sends_the_contracts_when_and_no_data() {
        let ctx = lookup_ctx();
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connect 10.0.0.7:5432 refused");
        let err = ctx.fail_from(Lookup::Busy, io);
        assert_eq!(err.code(), JsonRpcErrorCode::RateLimited);
        assert_eq!(err.message(), "Throttled", "the internal text stays in the cause");
        assert_eq!(
            Value::Object(err.data().unwrap().clone()),
            json!({"recovery": {"hint": "Wait a minute, then try again."}, "retryable": true, "reason": "busy"})
        );
        assert!(err.cause().unwrap().to_string().contains("10.0.0.7"));
    }

    #[test]
    fn fail_from_lets_with_recovery_follow() {
        let ctx = lookup_ctx();
        let err = ctx.fail_from(Lookup::Busy, throttled_upstream()).with_recovery();
        assert_eq!(err.recovery_hint(), Some("Wait a minute, then try again."));
        assert_eq!(err.data().unwrap()["retryAfter"], 30);
        assert_eq!(err.data().unwrap()["reason"], "busy");
    }

    #[test]
    fn untyped_lookup_is_empty_for_foreign_reasons() {
        let ctx = lookup_ctx();
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
