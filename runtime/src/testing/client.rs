//! The in-process client: a real rmcp client connected to a built server over
//! an in-memory pipe, so a test runs the whole stack (argument decoding, state,
//! scopes, rendering) without a process or a socket.

#![allow(
    deprecated,
    reason = "sampling and MCP logging are deprecated by SEP-2577 but are what this crate's servers send"
)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{CallToolRequest, ClientRequest, PingRequest, ServerResult};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientJsonRpcMessage,
    CompleteRequestParams, CompletionInfo, CreateMessageRequestParams, CreateMessageResult, DetailedTask,
    ElicitRequestParams, ElicitResult, ErrorCode, ErrorData, GetExtensions, GetPromptRequestParams, GetPromptResult,
    GetSkillRequestParams, GetSkillResult, GetTaskParams, Implementation, LoggingMessageNotificationParam,
    NumberOrString, ProgressNotificationParam, ProgressToken, Prompt as ListedPrompt,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams, ReadResourceResult, RequestParamsMeta,
    Resource as ListedResource, ResourceTemplate, ResourceUpdatedNotificationParam, Skill, Task, TaskPayload,
    Tool as ListedTool, UpdateTaskParams,
};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestContext, RequestHandle, RunningService, ServiceError,
};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ClientHandler, RoleClient, RoleServer, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::auth::{AuthInfo, ScopePolicy};
use crate::call::Capability;
use crate::define::{DynPrompt, DynResource, DynTool, Tool};
use crate::error::{JsonObject, JsonRpcErrorCode, McpError};
use crate::server::{PrimitiveKind, Server, ServerError, StdioOptions, ToolServer};

/// How long a request of the client waits for its answer unless
/// [`ClientBuilder::call_timeout`] says otherwise.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// A notification the server sent the client.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Notification {
    /// `notifications/progress` of a call (the client asks for progress on every call).
    Progress {
        /// How far the work is.
        progress: f64,
        /// Out of how much, when known.
        total: Option<f64>,
        /// What is being done.
        message: Option<String>,
    },
    /// `notifications/message`: a log message at or above the level the client set.
    Log {
        /// Its level, as MCP names it (`"info"`, `"warning"`).
        level: String,
        /// The logger, when the server named one.
        logger: Option<String>,
        /// What was logged.
        data: Value,
    },
    /// `notifications/resources/updated` of a subscribed resource.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
    /// `notifications/{tools,resources,prompts}/list_changed`.
    ListChanged(PrimitiveKind),
}

/// A request the server sent the client during a call, with the answer the
/// client gave from its script.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ServerRequest {
    /// `elicitation/create` or `sampling/createMessage`.
    pub method: &'static str,
    /// Its params as sent.
    pub params: Value,
}

#[derive(Default)]
struct Inbox {
    notifications: Vec<Notification>,
    requests: Vec<ServerRequest>,
    elicitations: VecDeque<Value>,
    samplings: VecDeque<Value>,
}

/// The rmcp client handler of [`Client`]: answers from the script, collects
/// what the server sends.
#[derive(Clone)]
struct Script {
    inbox: Arc<Mutex<Inbox>>,
    arrived: Arc<tokio::sync::Notify>,
    info: rmcp::model::ClientConfig,
}

impl Script {
    fn inbox(&self) -> std::sync::MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, notification: Notification) {
        self.inbox().notifications.push(notification);
        self.arrived.notify_waiters();
    }

    /// The next scripted answer to `method`, recorded with the request.
    fn answer<T: DeserializeOwned>(&self, method: &'static str, params: Value) -> Result<T, ErrorData> {
        let answer = {
            let mut inbox = self.inbox();
            inbox.requests.push(ServerRequest { method, params });
            match method {
                "elicitation/create" => inbox.elicitations.pop_front(),
                _ => inbox.samplings.pop_front(),
            }
        };
        let Some(answer) = answer else {
            return Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("the test client has no scripted answer left for `{method}`"),
                None,
            ));
        };
        serde_json::from_value(answer).map_err(|err| {
            ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("the scripted answer to `{method}` does not fit: {err}"),
                None,
            )
        })
    }
}

impl ClientHandler for Script {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.answer("elicitation/create", serde_json::to_value(request).unwrap_or(Value::Null))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.answer("sampling/createMessage", serde_json::to_value(params).unwrap_or(Value::Null))
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.push(Notification::Progress { progress: params.progress, total: params.total, message: params.message });
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level).ok().and_then(|v| v.as_str().map(str::to_owned));
        self.push(Notification::Log { level: level.unwrap_or_default(), logger: params.logger, data: params.data });
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.push(Notification::ResourceUpdated { uri: params.uri });
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.push(Notification::ListChanged(PrimitiveKind::Resource));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.push(Notification::ListChanged(PrimitiveKind::Tool));
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.push(Notification::ListChanged(PrimitiveKind::Prompt));
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        self.info.clone()
    }
}

/// The server side of the pipe: every request carries the caller, as the
/// HTTP auth layer puts it into the request's extensions.
struct AsCaller<T> {
    inner: T,
    parts: Option<http::request::Parts>,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for AsCaller<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        let mut message = self.inner.receive().await?;
        if let (Some(parts), rmcp::model::JsonRpcMessage::Request(request)) = (&self.parts, &mut message) {
            request.request.extensions_mut().insert(parts.clone());
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The JSON-RPC messages a [`Client`] sent and received, when it keeps them
/// ([`ClientBuilder::keep_messages`]).
#[derive(Default)]
struct Wire {
    sent: Vec<Value>,
    received: Vec<Value>,
}

/// The client side of the pipe, keeping what passes when asked to.
///
/// It also writes the messages in the order rmcp hands them over. rmcp
/// writes each message from a task of its own, so a request and the
/// `notifications/cancelled` sent right after it race for the pipe, and the
/// cancellation can arrive first, for an id the server has not seen (which
/// it ignores, as MCP allows: the call then runs on). A client that writes
/// one message after the other, as a stdio client does, never does that.
struct Recorded<T> {
    inner: T,
    wire: Option<Arc<Mutex<Wire>>>,
    /// Resolves once the message handed over before has been written.
    written: Option<tokio::sync::oneshot::Receiver<()>>,
}

impl<T> Recorded<T> {
    fn keep(&self, message: &impl serde::Serialize, sent: bool) {
        let Some(wire) = &self.wire else { return };
        let message = serde_json::to_value(message).unwrap_or(Value::Null);
        let mut wire = wire.lock().unwrap_or_else(PoisonError::into_inner);
        if sent { wire.sent.push(message) } else { wire.received.push(message) }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Recorded<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.keep(&item, true);
        let send = self.inner.send(item);
        let before = self.written.take();
        let (done, written) = tokio::sync::oneshot::channel();
        self.written = Some(written);
        async move {
            if let Some(before) = before {
                // A message whose write failed, or was dropped, holds nothing back.
                let _ = before.await;
            }
            let sent = send.await;
            let _ = done.send(());
            sent
        }
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        self.keep(&message, false);
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// How to connect a [`Client`]: who calls, what the client declares, how it
/// answers the server's requests. [`Client::connect`] takes the defaults.
#[derive(Debug, Default)]
#[must_use = "a builder does nothing until `connect`"]
pub struct ClientBuilder {
    caller: Option<AuthInfo>,
    capabilities: Vec<Capability>,
    tasks: bool,
    elicitations: VecDeque<Value>,
    samplings: VecDeque<Value>,
    call_timeout: Option<Duration>,
    stdio: Option<StdioOptions>,
    keep_messages: bool,
}

impl ClientBuilder {
    /// Call as `caller`, with declared scopes enforced, as on Streamable HTTP
    /// with a verified bearer token. Without one, calls are made as over stdio:
    /// no caller, scopes not checked.
    pub fn caller(mut self, caller: AuthInfo) -> Self {
        self.caller = Some(caller);
        self
    }

    /// Declare `capability` at `initialize` (elicitation with its form and URL
    /// modes, sampling with tools). Scripting an answer declares its capability too.
    pub fn capability(mut self, capability: Capability) -> Self {
        if !self.capabilities.contains(&capability) {
            self.capabilities.push(capability);
        }
        self
    }

    /// Declare the tasks extension (SEP-2663) at `initialize`: a call of a
    /// tool that runs as a task then makes one, which
    /// [`Client::call_tool_as_task`], [`Client::get_task`],
    /// [`Client::task_result`], [`Client::update_task`] and
    /// [`Client::cancel_task`] drive; [`Client::call`] and
    /// [`Client::call_tool`] follow such a task to its result.
    pub fn tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// Answer the server's next `elicitation/create` with this result
    /// (`{"action": "accept", "content": {..}}`, `{"action": "decline"}`);
    /// answers are used in order, and a request with none left gets a
    /// JSON-RPC error. Declares `elicitation`.
    pub fn answer_elicitation(mut self, result: Value) -> Self {
        self.elicitations.push_back(result);
        self.capability(Capability::Elicitation)
    }

    /// Answer the server's next `sampling/createMessage` with this result
    /// (`{"role": "assistant", "content": {"type": "text", "text": ..}, "model": ..}`),
    /// in order as [`answer_elicitation`](Self::answer_elicitation). Declares `sampling`.
    pub fn answer_sampling(mut self, result: Value) -> Self {
        self.samplings.push_back(result);
        self.capability(Capability::Sampling)
    }

    /// How long each request waits for its answer ([`DEFAULT_CALL_TIMEOUT`] by
    /// default); a request past it is cancelled and fails with `Timeout`.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// Serve through the stdio transport, as [`ToolServer::serve_io_with`]
    /// serves a pipe: its line framing, its refusals, and its graceful
    /// shutdown, which cancelling `options`' [`shutdown_token`](StdioOptions::shutdown_token)
    /// begins (then [`Client::server_ended`] tells when it is over). Without
    /// it, the server runs on rmcp's in-memory transport and never shuts down
    /// but with the client.
    ///
    /// A stdio server has no caller: with [`caller`](Self::caller), connecting panics.
    pub fn over_stdio(mut self, options: StdioOptions) -> Self {
        self.stdio = Some(options.without_signal_handling());
        self
    }

    /// Keep every JSON-RPC message the client sends and receives, as it
    /// travels, for [`Client::messages_sent`] and [`Client::messages_received`]:
    /// what a test of the protocol itself checks (one answer per request,
    /// nothing under an id never sent), which the results of the calls cannot show.
    pub fn keep_messages(mut self) -> Self {
        self.keep_messages = true;
        self
    }

    /// Build `server` (its [`Server::state_with`] factories first, then
    /// linting it and checking its state) and connect to it.
    ///
    /// # Errors
    ///
    /// The [`ServerError`] of [`Server::build_state`] or [`Server::build`].
    pub async fn connect(self, server: Server) -> Result<Client, ServerError> {
        // The state of `Server::state_with` factories is built first, as serving does.
        Ok(self.connect_built(server.build_state().await?.build()?).await)
    }

    /// Connect to a server built already.
    ///
    /// # Panics
    ///
    /// When the in-memory `initialize` fails, which only a broken build of
    /// rmcp could cause: a test that cannot connect has nothing to test. With
    /// both a [`caller`](Self::caller) and [`over_stdio`](Self::over_stdio).
    pub async fn connect_built(self, server: ToolServer) -> Client {
        assert!(
            self.caller.is_none() || self.stdio.is_none(),
            "a stdio server has no caller: `over_stdio` cannot serve a client with a `caller`"
        );
        let policy = if self.caller.is_some() { ScopePolicy::Enforced } else { ScopePolicy::Open };
        let parts = self.caller.map(|caller| {
            let (mut parts, ()) = http::Request::new(()).into_parts();
            parts.extensions.insert(Arc::new(caller));
            parts
        });
        let server = server.with_scope_policy(policy);
        let tools = server.tools().to_vec();
        let resources = server.resources().to_vec();
        let prompts = server.prompts().to_vec();
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_io);
        let ended = tokio_util::sync::CancellationToken::new();
        let served = match self.stdio {
            Some(options) => tokio::spawn({
                let ended = ended.clone();
                async move {
                    let _ = server.serve_io_with(read, write, options).await;
                    ended.cancel();
                }
            }),
            None => {
                let transport = AsCaller { inner: AsyncRwTransport::new_server(read, write), parts };
                let ended = ended.clone();
                tokio::spawn(async move {
                    if let Ok(running) = server.serve(transport).await {
                        let _ = running.waiting().await;
                    }
                    ended.cancel();
                })
            }
        };
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        for capability in &self.capabilities {
            match capability {
                Capability::Elicitation => {
                    capabilities.elicitation = serde_json::from_value(serde_json::json!({"form": {}, "url": {}})).ok();
                }
                Capability::Sampling => {
                    capabilities.sampling = serde_json::from_value(serde_json::json!({"tools": {}})).ok();
                }
                _ => capabilities.roots = Some(rmcp::model::RootsCapabilities::default()),
            }
        }
        if self.tasks {
            let extensions = capabilities.extensions.get_or_insert_with(Default::default);
            extensions.insert(rmcp::model::TASKS_EXTENSION_ID.to_owned(), JsonObject::new());
        }
        let info = rmcp::model::ClientConfig::new(
            capabilities,
            Implementation::new("mcp-contract-testing", env!("CARGO_PKG_VERSION")),
        );
        let inbox = Inbox { elicitations: self.elicitations, samplings: self.samplings, ..Inbox::default() };
        let script = Script { inbox: Arc::new(Mutex::new(inbox)), arrived: Arc::default(), info };
        let (read, write) = tokio::io::split(client_io);
        let wire = self.keep_messages.then(Arc::default);
        let transport =
            Recorded { inner: AsyncRwTransport::new_client(read, write), wire: wire.clone(), written: None };
        let service = script.clone().serve(transport).await.expect("the in-memory client initializes with the server");
        Client {
            service,
            script,
            served,
            ended,
            wire,
            call_timeout: self.call_timeout.unwrap_or(DEFAULT_CALL_TIMEOUT),
            progress: Default::default(),
            tasks: self.tasks,
            tools,
            resources,
            prompts,
        }
    }
}

/// A client of a built [`Server`] in the same process, over an in-memory
/// pipe: the whole stack runs, as for a client over stdio (or, with a
/// [`caller`](ClientBuilder::caller), over authenticated HTTP).
///
/// Tool calls come back as the tool's output or its [`McpError`] (code,
/// `data.reason`, recovery hint), read from the result the client received;
/// a JSON-RPC error of any request comes back as an `McpError` too, a code
/// outside [`JsonRpcErrorCode`]'s as `UnknownError` with `data.code`.
///
/// ```
/// use mcp_contract::prelude::*;
/// use mcp_contract::testing::Client;
///
/// #[derive(Deserialize, JsonSchema)]
/// pub struct LookupInput {
///     /// Object ID, e.g. 7.
///     pub object_id: u32,
/// }
///
/// /// Look an object up.
/// #[mcp_tool(errors(not_in_collection(code = NotFound, when = "No object has this ID",
///     recovery = "Search first to find valid object IDs.")))]
/// async fn lookup(input: LookupInput, ctx: Ctx) -> Result<String, McpError> {
///     match input.object_id {
///         7 => Ok("Vase".to_owned()),
///         _ => Err(ctx.fail(not_in_collection, "No such object.")),
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let client = Client::connect(Server::new("museum", "1.0.0").tool(Lookup)).await.unwrap();
/// assert_eq!(client.call(Lookup, serde_json::json!({"object_id": 7})).await.unwrap(), "Vase");
/// let err = client.call(Lookup, serde_json::json!({"object_id": 8})).await.unwrap_err();
/// assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("not_in_collection")));
/// assert_eq!(err.recovery_hint(), Some("Search first to find valid object IDs."));
/// # });
/// ```
pub struct Client {
    service: RunningService<RoleClient, Script>,
    script: Script,
    served: tokio::task::JoinHandle<()>,
    /// Cancelled once the server stopped serving.
    ended: tokio_util::sync::CancellationToken,
    wire: Option<Arc<Mutex<Wire>>>,
    call_timeout: Duration,
    progress: std::sync::atomic::AtomicI64,
    /// Whether the client declared the tasks extension ([`ClientBuilder::tasks`]).
    tasks: bool,
    /// The server's tools, resources and prompts, for
    /// [`check_server_contract`](super::check_server_contract).
    tools: Vec<Arc<dyn DynTool>>,
    resources: Vec<Arc<dyn DynResource>>,
    prompts: Vec<Arc<dyn DynPrompt>>,
}

impl Client {
    /// Build `server` and connect with the defaults: no caller, no capability.
    ///
    /// # Errors
    ///
    /// The [`ServerError`] of [`Server::build_state`] or [`Server::build`].
    pub async fn connect(server: Server) -> Result<Self, ServerError> {
        ClientBuilder::default().connect(server).await
    }

    /// A client with a caller, capabilities or scripted answers.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Call `tool` with `arguments` and decode its output: the structured
    /// content when the tool has an output schema, the text otherwise.
    ///
    /// # Errors
    ///
    /// The tool's error as the client read it from the error result's
    /// `structuredContent.error`; a JSON-RPC error (an unknown tool); an
    /// output that does not decode into `T::Output` (`SerializationError`).
    pub async fn call<T: Tool>(&self, tool: T, arguments: Value) -> Result<T::Output, McpError>
    where
        T::Output: DeserializeOwned,
    {
        let result = self.call_tool(tool.definition().name, arguments).await?;
        let value = match result.structured_content {
            Some(structured) => structured,
            None => Value::String(text_of(&result)),
        };
        serde_json::from_value(value).map_err(|err| {
            McpError::serialization_error(format!(
                "the result of `{}` does not decode into its output type: {err}",
                tool.definition().name
            ))
        })
    }

    /// Call the tool named `name` with `arguments` (a JSON object); the
    /// result as received, or the tool's error read from it.
    ///
    /// # Errors
    ///
    /// As [`call`](Self::call), except decoding.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, McpError> {
        let result = self.call_tool_raw(name, arguments).await?;
        if result.is_error == Some(true) {
            return Err(tool_error(&result));
        }
        Ok(result)
    }

    /// The result of a tool call as the client received it, error results included.
    ///
    /// # Errors
    ///
    /// A JSON-RPC error, a call past the client's bound, a closed connection.
    pub async fn call_tool_raw(&self, name: &str, arguments: Value) -> Result<CallToolResult, McpError> {
        let arguments = match arguments {
            Value::Object(arguments) => arguments,
            Value::Null => JsonObject::new(),
            other => {
                return Err(McpError::invalid_params(format!("tool arguments are a JSON object, not `{other}`")));
            }
        };
        let params = self.call_params(name, arguments);
        if !self.tasks {
            return self.bounded("tools/call", self.service.call_tool(params)).await;
        }
        match self.bounded("tools/call", self.service.call_tool_once(params)).await? {
            CallToolResponse::Complete(result) => Ok(result),
            // A client of the tasks extension follows the task to its result.
            CallToolResponse::Task(created) => self.task_result(&created.task.task_id).await,
            // A session is no stateless request: its asks come as requests, not as a round.
            _ => Err(McpError::internal_error(format!(
                "`tools/call` of `{name}` answered with a round of input, which a session client does not drive"
            ))),
        }
    }

    /// A `tools/call` request of `name`, asking for progress: every call
    /// does, so a test can read what the handler reported.
    fn call_params(&self, name: &str, arguments: JsonObject) -> CallToolRequestParams {
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let token = self.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        params.set_progress_token(ProgressToken(NumberOrString::Number(token)));
        params
    }

    /// Call the tool named `name` as a task (the client must declare the
    /// extension, [`ClientBuilder::tasks`]): the task the server created, in
    /// its first state. Follow it with [`get_task`](Self::get_task) or
    /// [`task_result`](Self::task_result).
    ///
    /// ```
    /// use mcp_contract::prelude::*;
    /// use mcp_contract::testing::Client;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// pub struct ExportInput {
    ///     /// The department, e.g. "Asian Art".
    ///     pub department: String,
    /// }
    ///
    /// /// Export one department as CSV.
    /// #[mcp_tool(task(optional))]
    /// async fn export(input: ExportInput, ctx: Ctx) -> Result<String, McpError> {
    ///     ctx.progress(1.0, Some(1.0), Some("Exporting".to_owned())).await;
    ///     Ok(format!("id,title\n# {}", input.department))
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let client = Client::builder().tasks().connect(Server::new("museum", "1.0.0").tool(Export)).await.unwrap();
    /// let task = client.call_tool_as_task("export", serde_json::json!({"department": "Asian Art"})).await.unwrap();
    /// let result = client.task_result(&task.task_id).await.unwrap();
    /// assert!(result.content[0].as_text().unwrap().text.ends_with("# Asian Art"));
    /// // Arguments the tool cannot take make no task.
    /// let err = client.call_tool_as_task("export", serde_json::json!({})).await.unwrap_err();
    /// assert_eq!(err.reason(), Some("invalid_arguments"));
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// The server's refusal, read from its error result as
    /// [`call_tool`](Self::call_tool) reads it (arguments that do not decode:
    /// `invalid_arguments`; a full task store); `InvalidRequest` when the
    /// client did not declare the extension or the tool answered at once
    /// rather than with a task.
    pub async fn call_tool_as_task(&self, name: &str, arguments: Value) -> Result<Task, McpError> {
        if !self.tasks {
            return Err(McpError::invalid_request(
                "this client did not declare the tasks extension: connect with `Client::builder().tasks()`",
            ));
        }
        let Value::Object(arguments) = arguments else {
            return Err(McpError::invalid_params("tool arguments are a JSON object"));
        };
        let params = self.call_params(name, arguments);
        match self.bounded("tools/call", self.service.call_tool_once(params)).await? {
            CallToolResponse::Task(created) => Ok(created.task),
            // Refused before any task was made: its arguments, a rate limit.
            CallToolResponse::Complete(refused) if refused.is_error == Some(true) => Err(tool_error(&refused)),
            _ => Err(McpError::invalid_request(format!(
                "`{name}` answered at once, not with a task: it does not run as a task"
            ))),
        }
    }

    /// `tasks/get`: the task's state now, with its result, error or asks
    /// once it has them, and the handler's last progress as the working
    /// state's `statusMessage`.
    ///
    /// # Errors
    ///
    /// `InvalidParams` for a task the server does not know (never made, or
    /// past its time to live); as [`list_tools`](Self::list_tools).
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, McpError> {
        let params = GetTaskParams::new(task_id.to_owned());
        self.bounded("tasks/get", self.service.get_task(params)).await.map(|got| got.task)
    }

    /// Poll `tasks/get` (at the task's `pollIntervalMs`, within the client's
    /// bound) until the task ends, and return its result: a tool error is an
    /// error result, as [`call_tool_raw`](Self::call_tool_raw) returns it.
    /// The tasks extension has no `tasks/result` (nor `tasks/list`): the last
    /// `tasks/get` carries the result.
    ///
    /// # Errors
    ///
    /// The task's JSON-RPC error when it failed; `RequestCancelled` when it
    /// was cancelled; `Timeout` when it did not end within the client's bound;
    /// as [`get_task`](Self::get_task).
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, McpError> {
        let deadline = tokio::time::Instant::now() + self.call_timeout;
        loop {
            let state = self.get_task(task_id).await?;
            let wait = Duration::from_millis(state.task.poll_interval_ms.unwrap_or(100).clamp(1, 1000));
            match state.payload {
                TaskPayload::Completed { result } => {
                    return serde_json::from_value(Value::Object(result)).map_err(|err| {
                        McpError::serialization_error(format!(
                            "the result of task `{task_id}` is no tool result: {err}"
                        ))
                    });
                }
                TaskPayload::Failed { error } => {
                    let code = error.get("code").and_then(Value::as_i64).unwrap_or(-32603);
                    let message = error.get("message").and_then(Value::as_str).unwrap_or_default();
                    return Err(wire_error(code, message, error.get("data").cloned()));
                }
                TaskPayload::Cancelled => {
                    return Err(McpError::request_cancelled(format!("the task `{task_id}` was cancelled")));
                }
                _ => {}
            }
            if tokio::time::Instant::now() + wait > deadline {
                return Err(McpError::timeout(format!(
                    "the task `{task_id}` did not end within {:?}",
                    self.call_timeout
                ))
                .with_reason("call_timeout"));
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// `tasks/update`: answer the asks an `input_required` task waits for,
    /// an object of the asks' keys to their results
    /// (`{"department": {"action": "accept", "content": {..}}}`).
    ///
    /// # Errors
    ///
    /// As [`get_task`](Self::get_task).
    pub async fn update_task(&self, task_id: &str, responses: Value) -> Result<(), McpError> {
        let responses: rmcp::model::InputResponses = serde_json::from_value(responses)
            .map_err(|err| McpError::invalid_params(format!("the responses are an object of results by key: {err}")))?;
        let params = UpdateTaskParams::new(task_id.to_owned(), responses);
        self.bounded("tasks/update", self.service.update_task(params)).await
    }

    /// `tasks/cancel`: stop the task if it still runs; it reads `cancelled`
    /// once its handler has stopped, and a finished task stays as it ended.
    ///
    /// # Errors
    ///
    /// As [`get_task`](Self::get_task).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), McpError> {
        let params = CancelTaskParams::new(task_id.to_owned());
        self.bounded("tasks/cancel", self.service.cancel_task(params)).await
    }

    /// `tools/list`, whole.
    ///
    /// # Errors
    ///
    /// A JSON-RPC error, a call past the client's bound, a closed connection.
    pub async fn list_tools(&self) -> Result<Vec<ListedTool>, McpError> {
        self.bounded("tools/list", self.service.list_all_tools()).await
    }

    /// `resources/list`, whole.
    ///
    /// # Errors
    ///
    /// As [`list_tools`](Self::list_tools).
    pub async fn list_resources(&self) -> Result<Vec<ListedResource>, McpError> {
        self.bounded("resources/list", self.service.list_all_resources()).await
    }

    /// `resources/templates/list`, whole.
    ///
    /// # Errors
    ///
    /// As [`list_tools`](Self::list_tools).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, McpError> {
        self.bounded("resources/templates/list", self.service.list_all_resource_templates()).await
    }

    /// `resources/read` of `uri`.
    ///
    /// # Errors
    ///
    /// The resource's error (`NotFound` for a URI nobody serves, the handler's
    /// declared failure with its `data.reason`), or as [`list_tools`](Self::list_tools).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, McpError> {
        self.bounded("resources/read", self.service.read_resource(ReadResourceRequestParams::new(uri.to_owned()))).await
    }

    /// `skills/list` (the Skills extension, SEP-2640), whole: each skill with
    /// its frontmatter and the digest and size of every file.
    ///
    /// ```
    /// # use mcp_contract::server::Server;
    /// # use mcp_contract::testing::Client;
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let dir = std::env::temp_dir().join(format!("client-skills-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("visit-planning")).unwrap();
    /// let text = "---\nname: visit-planning\ndescription: Plan a visit.\n---\nStart with the opening hours.\n";
    /// std::fs::write(dir.join("visit-planning/SKILL.md"), text).unwrap();
    /// let client = Client::connect(Server::new("museum", "1.0.0").skills_dir(&dir)).await.unwrap();
    /// let skills = client.list_skills().await.unwrap();
    /// assert_eq!(skills[0].name(), "visit-planning");
    /// let skill = client.get_skill("skill://visit-planning/SKILL.md").await.unwrap().skill;
    /// assert_eq!(skill, skills[0]);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// `MethodNotFound` when the server serves no skills, or as [`list_tools`](Self::list_tools).
    pub async fn list_skills(&self) -> Result<Vec<Skill>, McpError> {
        self.bounded("skills/list", self.service.list_all_skills()).await
    }

    /// `skills/get` of the skill whose `SKILL.md` is at `uri`, with the
    /// result's cache hints (`ttlMs`, `cacheScope`).
    ///
    /// # Errors
    ///
    /// `InvalidParams` for a URI that is no skill's, or as [`list_skills`](Self::list_skills).
    pub async fn get_skill(&self, uri: &str) -> Result<GetSkillResult, McpError> {
        self.bounded("skills/get", self.service.get_skill(GetSkillRequestParams::new(uri.to_owned()))).await
    }

    /// `resources/directory/read` of `uri`: the folder's direct children,
    /// a sub-folder with the MIME type `inode/directory`.
    ///
    /// # Errors
    ///
    /// `InvalidParams` for a URI that is no folder of a skill, or as [`list_skills`](Self::list_skills).
    pub async fn read_resource_directory(&self, uri: &str) -> Result<Vec<ListedResource>, McpError> {
        let params = ReadResourceDirectoryRequestParams::new(uri.to_owned());
        let result = self.bounded("resources/directory/read", self.service.read_resource_directory(params)).await?;
        Ok(result.resources)
    }

    /// `prompts/list`, whole.
    ///
    /// # Errors
    ///
    /// As [`list_tools`](Self::list_tools).
    pub async fn list_prompts(&self) -> Result<Vec<ListedPrompt>, McpError> {
        self.bounded("prompts/list", self.service.list_all_prompts()).await
    }

    /// `prompts/get` of `name` with string `arguments` (`json!({"department": "Asian Art"})`).
    ///
    /// # Errors
    ///
    /// The prompt's error (`InvalidParams` with `data.argument` for a bad
    /// argument), or as [`list_tools`](Self::list_tools).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult, McpError> {
        let mut params = GetPromptRequestParams::new(name.to_owned());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        self.bounded("prompts/get", self.service.get_prompt(params)).await
    }

    /// `completion/complete` of a prompt's argument: the candidates for `value`.
    ///
    /// # Errors
    ///
    /// As [`list_tools`](Self::list_tools).
    pub async fn complete_prompt(&self, prompt: &str, argument: &str, value: &str) -> Result<CompletionInfo, McpError> {
        self.bounded("completion/complete", self.service.complete_prompt_argument(prompt, argument, value, None)).await
    }

    /// `completion/complete` of a resource template's variable.
    ///
    /// # Errors
    ///
    /// As [`list_tools`](Self::list_tools).
    pub async fn complete_resource(
        &self,
        uri_template: &str,
        variable: &str,
        value: &str,
    ) -> Result<CompletionInfo, McpError> {
        self.bounded(
            "completion/complete",
            self.service.complete_resource_argument(uri_template, variable, value, None),
        )
        .await
    }

    /// Any completion request, for a context of previously resolved arguments.
    ///
    /// # Errors
    ///
    /// As [`list_tools`](Self::list_tools).
    pub async fn complete(&self, request: CompleteRequestParams) -> Result<CompletionInfo, McpError> {
        self.bounded("completion/complete", async { self.service.complete(request).await.map(|r| r.completion) }).await
    }

    /// Subscribe to updates of `uri` (`resources/subscribe`).
    ///
    /// # Errors
    ///
    /// As [`list_tools`](Self::list_tools).
    #[allow(deprecated, reason = "resources/subscribe is what 2025-x clients send, and this client is one")]
    pub async fn subscribe(&self, uri: &str) -> Result<(), McpError> {
        let params = rmcp::model::SubscribeRequestParams::new(uri.to_owned());
        self.bounded("resources/subscribe", self.service.subscribe(params)).await
    }

    /// Every notification received so far, in the order they arrived.
    pub fn notifications(&self) -> Vec<Notification> {
        self.script.inbox().notifications.clone()
    }

    /// The progress notifications received so far.
    pub fn progress(&self) -> Vec<Notification> {
        self.notifications().into_iter().filter(|n| matches!(n, Notification::Progress { .. })).collect()
    }

    /// The log notifications received so far.
    pub fn logs(&self) -> Vec<Notification> {
        self.notifications().into_iter().filter(|n| matches!(n, Notification::Log { .. })).collect()
    }

    /// Wait (at most the client's bound) until `count` notifications matching
    /// `matches` have arrived, and return them. Notifications travel beside
    /// the answers, so one sent before an answer may be read after it.
    ///
    /// # Errors
    ///
    /// `Timeout` when fewer arrived in time, saying how many did.
    pub async fn wait_for(
        &self,
        count: usize,
        matches: impl Fn(&Notification) -> bool,
    ) -> Result<Vec<Notification>, McpError> {
        let deadline = tokio::time::Instant::now() + self.call_timeout;
        loop {
            let arrived = self.script.arrived.notified();
            let found: Vec<Notification> = self.notifications().into_iter().filter(|n| matches(n)).collect();
            if found.len() >= count {
                return Ok(found);
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return Err(McpError::timeout(format!(
                    "{} of the {count} notifications waited for arrived within {:?}",
                    found.len(),
                    self.call_timeout
                )));
            }
        }
    }

    /// The requests the server sent this client (elicitation, sampling), in order.
    pub fn server_requests(&self) -> Vec<ServerRequest> {
        self.script.inbox().requests.clone()
    }

    /// Script one more answer to `elicitation/create` (the capability must
    /// have been declared at connect: see [`ClientBuilder::answer_elicitation`]).
    pub fn answer_elicitation(&self, result: Value) {
        self.script.inbox().elicitations.push_back(result);
    }

    /// Script one more answer to `sampling/createMessage` (see [`ClientBuilder::answer_sampling`]).
    pub fn answer_sampling(&self, result: Value) {
        self.script.inbox().samplings.push_back(result);
    }

    /// How long each request waits for its answer.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout
    }

    /// Send a `tools/call` of the tool named `name` and return at once, with
    /// the request in flight: its JSON-RPC id, its answer when it comes
    /// ([`PendingCall::result`]), or its cancellation ([`PendingCall::cancel`]),
    /// for tests of what happens while calls run (cancellations, shutdown,
    /// many calls at once).
    ///
    /// ```
    /// use mcp_contract::prelude::*;
    /// use mcp_contract::testing::Client;
    ///
    /// /// Wait until cancelled.
    /// #[mcp_tool]
    /// async fn wait(ctx: Ctx) -> Result<String, McpError> {
    ///     ctx.cancelled().await;
    ///     Ok("cancelled".to_owned())
    /// }
    ///
    /// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
    /// let client = Client::builder().keep_messages().connect(Server::new("museum", "1.0.0").tool(Wait)).await.unwrap();
    /// let call = client.start_call("wait", serde_json::json!({})).await.unwrap();
    /// let id = call.id();
    /// call.cancel().await.unwrap();
    /// // MCP: a cancelled request gets no answer, or one that crossed the cancellation.
    /// client.ping().await.unwrap();
    /// assert!(client.messages_received().iter().filter(|message| message["id"] == id).count() <= 1);
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// Arguments that are not a JSON object; a closed connection.
    pub async fn start_call(&self, name: &str, arguments: Value) -> Result<PendingCall, McpError> {
        let arguments = match arguments {
            Value::Object(arguments) => arguments,
            Value::Null => JsonObject::new(),
            other => {
                return Err(McpError::invalid_params(format!("tool arguments are a JSON object, not `{other}`")));
            }
        };
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new(name.to_owned()).with_arguments(arguments),
        ));
        let handle = self
            .service
            .send_cancellable_request(request, PeerRequestOptions::with_timeout(self.call_timeout))
            .await
            .map_err(|err| service_error("tools/call", err))?;
        Ok(PendingCall { handle })
    }

    /// Send a `ping` and wait for its (empty) answer.
    ///
    /// # Errors
    ///
    /// A JSON-RPC error, a ping past the client's bound, a closed connection.
    pub async fn ping(&self) -> Result<(), McpError> {
        let ping =
            ClientRequest::PingRequest(PingRequest { method: Default::default(), extensions: Default::default() });
        self.bounded("ping", self.service.send_request(ping)).await.map(drop)
    }

    /// Close the client's side of the connection, as a client that goes
    /// away does, with whatever is in flight; the requests waiting for an
    /// answer fail with a closed connection. The server sees the end of
    /// its input: [`server_ended`](Self::server_ended) tells whether it stops.
    pub fn disconnect(&self) {
        self.service.cancellation_token().cancel();
    }

    /// Whether the connection is still open: `false` once either side closed
    /// it and the client read what the server wrote before (a server that
    /// shut down closes its output last).
    pub fn is_connected(&self) -> bool {
        !self.service.is_transport_closed()
    }

    /// Whether the server stopped serving within `within`: after
    /// [`disconnect`](Self::disconnect), or a shutdown begun through
    /// [`ClientBuilder::over_stdio`]'s token.
    pub async fn server_ended(&self, within: Duration) -> bool {
        tokio::time::timeout(within, self.ended.cancelled()).await.is_ok()
    }

    /// Every JSON-RPC message the client sent so far, as it travelled
    /// (requests, notifications, answers to the server's requests), when it
    /// keeps them ([`ClientBuilder::keep_messages`]); empty otherwise.
    pub fn messages_sent(&self) -> Vec<Value> {
        self.wire
            .as_ref()
            .map(|wire| wire.lock().unwrap_or_else(PoisonError::into_inner).sent.clone())
            .unwrap_or_default()
    }

    /// Every JSON-RPC message the client received so far, as it travelled
    /// (answers, notifications, the server's requests), when it keeps them
    /// ([`ClientBuilder::keep_messages`]); empty otherwise.
    pub fn messages_received(&self) -> Vec<Value> {
        self.wire
            .as_ref()
            .map(|wire| wire.lock().unwrap_or_else(PoisonError::into_inner).received.clone())
            .unwrap_or_default()
    }

    /// The tools of the server this client is connected to.
    pub(super) fn tools(&self) -> &[Arc<dyn DynTool>] {
        &self.tools
    }

    /// The resources of the server this client is connected to.
    pub(super) fn resources(&self) -> &[Arc<dyn DynResource>] {
        &self.resources
    }

    /// The prompts of the server this client is connected to.
    pub(super) fn prompts(&self) -> &[Arc<dyn DynPrompt>] {
        &self.prompts
    }

    /// A tool call bounded by `bound` rather than the client's: `None` past it
    /// (the request cancelled), else the result, error results included.
    pub(super) async fn call_within(
        &self,
        name: &str,
        arguments: Value,
        bound: Duration,
    ) -> Option<Result<CallToolResult, McpError>> {
        let Value::Object(arguments) = arguments else {
            return Some(Err(McpError::invalid_params("tool arguments are a JSON object")));
        };
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        match tokio::time::timeout(bound, self.service.call_tool(params)).await {
            Ok(answer) => Some(answer.map_err(|err| service_error("tools/call", err))),
            Err(_) => None,
        }
    }

    async fn bounded<T>(
        &self,
        method: &str,
        request: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, McpError> {
        match tokio::time::timeout(self.call_timeout, request).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(err)) => Err(service_error(method, err)),
            Err(_) => Err(McpError::timeout(format!(
                "`{method}` got no answer within {:?}; the test client cancelled it",
                self.call_timeout
            ))
            .with_reason("call_timeout")),
        }
    }
}

/// A `tools/call` in flight, from [`Client::start_call`].
#[must_use = "a call in flight is awaited with `result` or stopped with `cancel`"]
pub struct PendingCall {
    handle: RequestHandle<RoleClient>,
}

impl PendingCall {
    /// The request's JSON-RPC id, as sent.
    pub fn id(&self) -> Value {
        serde_json::to_value(&self.handle.id).unwrap_or(Value::Null)
    }

    /// Wait for the answer (within the client's
    /// [`call_timeout`](ClientBuilder::call_timeout), past which the call is
    /// cancelled): the result as received, error results included.
    ///
    /// # Errors
    ///
    /// A JSON-RPC error, a call past the client's bound, a closed connection.
    pub async fn result(self) -> Result<CallToolResult, McpError> {
        match self.handle.await_response().await {
            Ok(ServerResult::CallToolResult(result)) => Ok(result),
            Ok(_) => Err(McpError::internal_error("`tools/call` answered with another result than a tool's")),
            Err(err) => Err(service_error("tools/call", err)),
        }
    }

    /// Send `notifications/cancelled` for the call and stop waiting for it:
    /// the server stops the call and, by MCP, answers nothing (unless the
    /// answer crossed the cancellation).
    ///
    /// # Errors
    ///
    /// A closed connection.
    pub async fn cancel(self) -> Result<(), McpError> {
        self.handle.cancel(None).await.map_err(|err| service_error("notifications/cancelled", err))
    }
}

impl std::fmt::Debug for PendingCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingCall").field("id", &self.handle.id).finish_non_exhaustive()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.served.abort();
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("call_timeout", &self.call_timeout).finish_non_exhaustive()
    }
}

/// Every text block of a result, joined by blank lines.
pub(super) fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok()?.get("text")?.as_str().map(str::to_owned))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The error a tool error result carries on its structured surface (the
/// text's `Error: ..` when it has none).
pub(super) fn tool_error(result: &CallToolResult) -> McpError {
    let error = result.structured_content.as_ref().and_then(|content| content.get("error"));
    match error {
        Some(error) => wire_error(
            error.get("code").and_then(Value::as_i64).unwrap_or(i64::from(JsonRpcErrorCode::UnknownError.as_i32())),
            error.get("message").and_then(Value::as_str).unwrap_or_default(),
            error.get("data").cloned(),
        ),
        None => {
            let text = text_of(result);
            let message = text.strip_prefix("Error: ").unwrap_or(&text).to_owned();
            McpError::new(JsonRpcErrorCode::UnknownError, message)
        }
    }
}

/// An error as it travelled: its code (one outside [`JsonRpcErrorCode`] as
/// `UnknownError` with `data.code`), message and data.
fn wire_error(code: i64, message: &str, data: Option<Value>) -> McpError {
    let known = i32::try_from(code).ok().and_then(JsonRpcErrorCode::from_i32);
    let mut err = McpError::new(known.unwrap_or(JsonRpcErrorCode::UnknownError), message.to_owned());
    if let Some(Value::Object(data)) = data {
        // The reason and the hint are the error's own, not only keys of its data.
        let reason = data.get("reason").and_then(Value::as_str).map(str::to_owned);
        let hint = data.get("recovery").and_then(|r| r.get("hint")).and_then(Value::as_str).map(str::to_owned);
        err = err.with_data(data);
        if let Some(reason) = reason {
            err = err.with_reason(reason);
        }
        if let Some(hint) = hint {
            err = err.with_recovery_hint(hint);
        }
    }
    if known.is_none() {
        err = err.with_data_field("code", code);
    }
    err
}

fn service_error(method: &str, err: ServiceError) -> McpError {
    match err {
        ServiceError::McpError(error) => wire_error(i64::from(error.code.0), &error.message, error.data),
        other => McpError::internal_error(format!("`{method}` failed in the test client: {other}"))
            .with_reason("connection_failed"),
    }
}
