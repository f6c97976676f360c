//! The rmcp [`ServerHandler`] over a set of [`DynTool`]s: `initialize`,
//! `tools/list` and `tools/call`, plus the client channel of a call.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use foldhash::HashMap;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, ErrorCode, ErrorData,
    GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::SessionRestoreMarker;
use rmcp::{RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use super::catalog::Catalog;
use super::changes::{self, Changes, SessionChanges};
use super::channel::{self, PeerChannel};
use super::hibernation::{Hibernation, SessionHibernation, Working};
use super::invoke::{Cancelled, Finished, ToolCall, admit_tool, check_tool_arguments, run_tool, run_tool_call};
use super::observe::{Observe, SessionClock};
use super::rounds::{Binding, RequestStates};
use super::skills::Skills;
use super::streams::ResponseStream;
use super::tasks::Tasks;
use crate::auth::AuthConfig;
#[cfg(feature = "otel")]
use crate::call::TRACE_CONTEXT_KEYS;
use crate::call::{
    AuthInfo, CallTrace, Capability, ClientCapabilities, ClientRequestError, Context, LogLevel, ProgressToken,
    ScopePolicy, StateMap,
};
use crate::define::PrimitiveKind;
use crate::define::{DynTool, TaskSupport, UI_EXTENSION};
use crate::error::{ErrorContract, JsonObject, McpError};
use crate::server::peer::{ClientId, ClientIp, ResponseGone};
use crate::server::wire::{SESSION_ID_HEADER, envelope, error_result, listed_tool, stamped};

/// A built server: the tools, their `tools/list` entries, and the server info.
///
/// It implements rmcp's [`ServerHandler`], so besides
/// [`Server::serve_stdio`](crate::server::builder::Server::serve_stdio) and
/// [`Server::serve_http`](crate::server::builder::Server::serve_http) it can be served over any
/// rmcp transport (`rmcp::ServiceExt::serve`). Cloning is cheap (clones share
/// the tools and the MCP log level); the Streamable HTTP transport gives each
/// session a log level of its own.
#[derive(Clone)]
pub struct ToolServer {
    shared: Arc<Shared>,
    /// The lowest [`LogLevel`] the client wants (`logging/setLevel`), as its index.
    log_level: Arc<AtomicU8>,
    /// The config [`Server::auth`](crate::server::builder::Server::auth) set, if any.
    auth_config: Option<Arc<AuthConfig>>,
    /// How the transport serving this copy treats declared scopes.
    scope_policy: ScopePolicy,
    /// How long a handler's request to the client waits for its answer.
    client_request_timeout: Duration,
    /// This copy's (this session's) part of [`Server::changes`](crate::server::builder::Server::changes).
    changes: Option<Arc<SessionChanges>>,
    /// The tasks, when a tool runs as one; shared by every copy.
    tasks: Option<Tasks>,
    /// Cancelled when the transport serving this copy begins to shut down.
    stopping: CancellationToken,
    /// The landing page's config ([`Server::landing`](crate::server::builder::Server::landing)).
    landing: Option<Arc<crate::define::Landing>>,
    /// The store shared with other replicas (`Server::redis`), if any.
    shared_store: Option<Arc<dyn crate::server::store::shared::SharedStore>>,
    /// Masking and metrics around every call; shared by every copy.
    observe: Arc<Observe>,
    /// The signing of stateless requests' `requestState`; shared by every copy.
    request_states: RequestStates,
    /// `Server::on_serve` and `Server::on_shutdown`; shared by every copy.
    lifecycle: Arc<super::lifecycle::Lifecycle>,
    /// This copy's session's time, for `mcp.server.session.duration`.
    session: SessionClock,
    /// With hibernation (Streamable HTTP's `session_hibernate_after`): where
    /// a session's clock waits while it sleeps, and this copy's work, which
    /// keeps its session awake.
    hibernation: Option<SessionHibernation>,
}

struct Shared {
    config: ServerConfig,
    tools: Vec<Arc<dyn DynTool>>,
    listed: Vec<rmcp::model::Tool>,
    by_name: HashMap<&'static str, usize>,
    states: StateMap,
    catalog: Catalog,
    /// The skills of `Server::skills_dir`, when it has a folder.
    skills: Option<Skills>,
}

/// The level the server sends at until the client asks for another one.
const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

impl ToolServer {
    #[allow(clippy::too_many_arguments, reason = "one call, in Server::build, which names every part")]
    pub(crate) fn new(
        info: Implementation,
        instructions: Option<String>,
        tools: Vec<Arc<dyn DynTool>>,
        by_name: HashMap<&'static str, usize>,
        states: StateMap,
        catalog: Catalog,
        changes: Option<Changes>,
        request_states: RequestStates,
        skills: Option<Skills>,
    ) -> Self {
        let mut capabilities = channel::capabilities();
        catalog.advertise(&mut capabilities);
        if skills.is_some() {
            Skills::advertise(&mut capabilities);
        }
        if tools.iter().any(|tool| tool.definition().app.is_some()) {
            capabilities.extensions.get_or_insert_default().insert(UI_EXTENSION.to_owned(), JsonObject::new());
        }
        if changes.is_some() {
            changes::advertise(&mut capabilities);
        }
        let mut config = ServerConfig::new(capabilities).with_server_info(info);
        config.instructions = instructions;
        let listed = tools.iter().map(|tool| listed_tool(tool.definition())).collect();
        Self {
            shared: Arc::new(Shared { config, tools, listed, by_name, states, catalog, skills }),
            log_level: Arc::new(AtomicU8::new(DEFAULT_LOG_LEVEL as u8)),
            auth_config: None,
            scope_policy: ScopePolicy::Open,
            client_request_timeout: crate::call::DEFAULT_CLIENT_REQUEST_TIMEOUT,
            changes: changes.map(|changes| Arc::new(SessionChanges::new(changes))),
            tasks: None,
            stopping: CancellationToken::new(),
            landing: None,
            shared_store: None,
            observe: Arc::new(Observe { mask_error_details: true, repair_arguments: true, ..Observe::default() }),
            request_states,
            lifecycle: Arc::default(),
            session: SessionClock::default(),
            hibernation: None,
        }
    }

    /// The round of a stateless request (2026-07-28), whose handler's asks
    /// end it with an input-required result, and what its `requestState` is
    /// bound to (`bind`, made only then); `None` on a session, where they
    /// are requests to the client.
    fn round(
        &self,
        context: &RequestContext<RoleServer>,
        bind: impl FnOnce() -> Binding,
        state: Option<&str>,
        responses: Option<rmcp::model::InputResponses>,
    ) -> Result<Option<(Arc<crate::call::InputRound>, Binding)>, ErrorData> {
        if !is_stateless(context) {
            return Ok(None);
        }
        let binding = bind();
        self.request_states.open(&binding, state, responses).map(|round| Some((round, binding)))
    }

    /// Whether an auto-classified failure of the server's side reaches the
    /// client masked.
    pub(crate) fn with_error_masking(mut self, mask: bool) -> Self {
        Arc::make_mut(&mut self.observe).mask_error_details = mask;
        self
    }

    /// Whether tool arguments are repaired before they are decoded (each
    /// tool's own switch still applies).
    pub(crate) fn with_argument_repair(mut self, repair: bool) -> Self {
        Arc::make_mut(&mut self.observe).repair_arguments = repair;
        self
    }

    /// Limit the calls of each caller of this server (and of every session made from it after).
    #[cfg(feature = "rate-limit")]
    pub(crate) fn with_rate_limit(mut self, limit: crate::server::dispatch::rate_limit::RateLimit) -> Self {
        Arc::make_mut(&mut self.observe).limiter = Some(Arc::new(super::rate_limit::Limiter::new(limit)));
        self
    }

    pub(crate) fn with_hooks(mut self, hooks: Vec<Arc<dyn crate::server::dispatch::hook::CallHook>>) -> Self {
        Arc::make_mut(&mut self.observe).hooks = hooks;
        self
    }

    /// Count the calls of this server (and of every session made from it after).
    pub(crate) fn with_lifecycle(mut self, lifecycle: super::lifecycle::Lifecycle) -> Self {
        self.lifecycle = Arc::new(lifecycle);
        self
    }

    pub(crate) fn lifecycle(&self) -> Arc<super::lifecycle::Lifecycle> {
        Arc::clone(&self.lifecycle)
    }

    #[cfg(feature = "pacer")]
    pub(crate) fn with_pacers(mut self, pacers: Vec<crate::error::pacer::Pacer>) -> Self {
        Arc::make_mut(&mut self.observe).pacers = pacers;
        self
    }

    #[cfg(all(feature = "metrics", feature = "pacer"))]
    pub(crate) fn pacers(&self) -> Vec<crate::error::pacer::Pacer> {
        self.observe.pacers.clone()
    }

    #[cfg(feature = "metrics")]
    pub(crate) fn with_metrics(mut self, metrics: Arc<super::metrics::Metrics>) -> Self {
        Arc::make_mut(&mut self.observe).metrics = Some(metrics);
        self
    }

    pub(crate) fn with_client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// Run tools as tasks with `tasks`, and advertise the tasks extension.
    pub(crate) fn with_tasks(mut self, tasks: Option<Tasks>) -> Self {
        if tasks.is_some() {
            // Only this copy holds the shared part yet: it was built a moment ago.
            if let Some(shared) = Arc::get_mut(&mut self.shared) {
                shared
                    .config
                    .capabilities
                    .extensions
                    .get_or_insert_default()
                    .insert(rmcp::model::TASKS_EXTENSION_ID.to_owned(), rmcp::model::JsonObject::new());
                self.tasks = tasks;
            }
        }
        self
    }

    pub(crate) fn with_shared_store(
        mut self,
        store: Option<Arc<dyn crate::server::store::shared::SharedStore>>,
    ) -> Self {
        self.shared_store = store;
        self
    }

    pub(crate) fn shared_store(&self) -> Option<&Arc<dyn crate::server::store::shared::SharedStore>> {
        self.shared_store.as_ref()
    }

    pub(crate) fn with_auth_config(mut self, config: Option<AuthConfig>) -> Self {
        self.auth_config = config.map(Arc::new);
        self
    }

    pub(crate) fn auth_config(&self) -> Option<&AuthConfig> {
        self.auth_config.as_deref()
    }

    pub(crate) fn with_landing(mut self, landing: Option<crate::define::Landing>) -> Self {
        self.landing = landing.map(Arc::new);
        self
    }

    /// What the landing page shows besides the definitions.
    pub(crate) fn landing(&self) -> Option<&crate::define::Landing> {
        self.landing.as_deref()
    }

    /// The resources and prompts, for the landing page.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.shared.catalog
    }

    /// This server, told through `stopping` that its transport begins to
    /// shut down: its `subscriptions/listen` streams then end, each with its
    /// final result, so that the drain sees them answered rather than cuts them.
    pub(crate) fn stopping_with(mut self, stopping: CancellationToken) -> Self {
        self.stopping = stopping;
        self
    }

    pub(crate) fn with_scope_policy(mut self, policy: ScopePolicy) -> Self {
        self.scope_policy = policy;
        self
    }

    /// Every scope some tool declares, for the protected-resource metadata.
    #[cfg_attr(not(feature = "auth"), allow(dead_code, reason = "only the auth layer publishes scopes"))]
    pub(crate) fn declared_scopes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.shared.tools.iter().flat_map(|tool| tool.definition().auth_scopes.iter().copied())
    }

    /// The names of the tools that declare scopes.
    pub(crate) fn scoped_tools(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.shared.tools.iter().map(|tool| tool.definition()).filter(|d| !d.auth_scopes.is_empty()).map(|d| d.name)
    }

    /// The tools safe to run again when the replica running a call of them
    /// stopped before it answered: those annotated read-only or idempotent.
    pub(crate) fn rerunnable_tools(&self) -> std::collections::HashSet<String> {
        let safe = |d: &&crate::define::ToolDefinition| {
            d.annotations.read_only_hint == Some(true) || d.annotations.idempotent_hint == Some(true)
        };
        self.shared.tools.iter().map(|tool| tool.definition()).filter(safe).map(|d| d.name.to_owned()).collect()
    }

    /// A copy for a new session: same tools, the default log level.
    pub(crate) fn for_new_session(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            log_level: Arc::new(AtomicU8::new(DEFAULT_LOG_LEVEL as u8)),
            auth_config: self.auth_config.clone(),
            scope_policy: self.scope_policy,
            client_request_timeout: self.client_request_timeout,
            changes: self.changes.as_ref().map(|session| Arc::new(SessionChanges::new(session.changes.clone()))),
            tasks: self.tasks.clone(),
            stopping: self.stopping.clone(),
            landing: self.landing.clone(),
            shared_store: self.shared_store.clone(),
            observe: Arc::clone(&self.observe),
            request_states: self.request_states.clone(),
            lifecycle: Arc::clone(&self.lifecycle),
            session: SessionClock::default(),
            hibernation: self.hibernation.as_ref().map(SessionHibernation::for_new_session),
        }
    }

    /// With hibernation, a request of this copy's session at work: the
    /// session does not hibernate while it runs.
    fn begin_work(&self, context: &RequestContext<RoleServer>) -> Option<Working> {
        let hibernation = self.hibernation.as_ref()?;
        hibernation.begin(|| {
            let parts = context.extensions.get::<http::request::Parts>()?;
            parts.headers.get(SESSION_ID_HEADER)?.to_str().ok()
        })
    }

    /// Let this server's sessions (the copies made from it after) hibernate.
    pub(crate) fn with_hibernation(mut self, hibernation: Arc<Hibernation>) -> Self {
        self.hibernation = Some(SessionHibernation::new(hibernation));
        self
    }

    /// The clock of this copy's session, for a transport that sees the session end.
    pub(crate) fn session_clock(&self) -> SessionClock {
        self.session.clone()
    }

    /// Each tool's name and error contract, in registration order.
    #[cfg(feature = "testing")]
    pub(crate) fn tool_contracts(
        &self,
    ) -> impl Iterator<Item = (&'static str, &'static [crate::error::ErrorContract])> {
        self.shared.tools.iter().map(|tool| (tool.definition().name, tool.definition().errors))
    }

    /// The tools' entries as `tools/list` sends them.
    pub fn listed_tools(&self) -> &[rmcp::model::Tool] {
        &self.shared.listed
    }

    /// Each skill's `SKILL.md` as `resources/list` shows it (for the landing page and the card).
    pub(crate) fn listed_skills(&self) -> Vec<rmcp::model::Resource> {
        self.shared.skills.iter().flat_map(Skills::resources).collect()
    }

    /// The `initialize` answer: server info, capabilities and instructions.
    pub fn config(&self) -> &ServerConfig {
        &self.shared.config
    }

    /// Whether the tool's calls run as tasks, which no list publishes (for the landing page).
    pub(crate) fn task_support(&self, name: &str) -> crate::define::TaskSupport {
        self.shared
            .by_name
            .get(name)
            .map(|&index| self.shared.tools[index].definition().task_support)
            .unwrap_or_default()
    }

    /// The tools this server serves, in registration order.
    #[cfg_attr(not(feature = "testing"), allow(dead_code, reason = "the testing client checks each"))]
    pub(crate) fn tools(&self) -> &[Arc<dyn DynTool>] {
        &self.shared.tools
    }

    /// The resources this server serves, in registration order.
    #[cfg_attr(not(feature = "testing"), allow(dead_code, reason = "the testing client checks each"))]
    pub(crate) fn resources(&self) -> &[Arc<dyn crate::define::DynResource>] {
        self.shared.catalog.resources()
    }

    /// The prompts this server serves, in registration order.
    #[cfg_attr(not(feature = "testing"), allow(dead_code, reason = "the testing client checks each"))]
    pub(crate) fn prompts(&self) -> &[Arc<dyn crate::define::DynPrompt>] {
        self.shared.catalog.prompts()
    }

    fn tool(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        if !self.is_enabled(PrimitiveKind::Tool, name) {
            return None;
        }
        self.shared.by_name.get(name).map(|&index| &self.shared.tools[index])
    }

    /// The tasks to run this call in, when it runs as a task: the tool
    /// supports tasks and the client declared the extension on this request
    /// (or its session). A tool that requires tasks refuses a client that
    /// did not, with -32021 and the capability it needs.
    fn as_task(&self, support: TaskSupport, context: &RequestContext<RoleServer>) -> Result<Option<&Tasks>, ErrorData> {
        let Some(tasks) = &self.tasks else { return Ok(None) };
        let declared = context.client_capabilities().is_some_and(|capabilities| capabilities.supports_tasks());
        match (support, declared) {
            (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => Ok(None),
            (TaskSupport::Optional | TaskSupport::Required, true) => Ok(Some(tasks)),
            (TaskSupport::Required, false) => Err(ErrorData::missing_required_client_capability(
                rmcp::model::ClientCapabilities::builder().enable_tasks().build(),
            )),
        }
    }

    /// Whether `name` is served: everything is, unless [`Changes`] disabled it.
    fn is_enabled(&self, kind: PrimitiveKind, name: &str) -> bool {
        self.changes.as_ref().is_none_or(|session| session.changes.is_enabled(kind, name))
    }

    /// The entries of `listed` whose name is enabled.
    fn enabled<T: Clone>(&self, kind: PrimitiveKind, listed: &[T], name: impl Fn(&T) -> &str) -> Vec<T> {
        listed.iter().filter(|entry| self.is_enabled(kind, name(entry))).cloned().collect()
    }

    /// The context of a resource read, prompt or completion handler, made as a
    /// tool call's is: cancellation, progress and logs to the client.
    fn request_context(
        &self,
        name: &'static str,
        errors: &'static [ErrorContract],
        context: &RequestContext<RoleServer>,
    ) -> Context {
        self.call_context(name, errors, context, context.ct.clone(), client_capabilities(context))
            .with_channel(Arc::new(self.channel(name, context)))
            .with_client_request_timeout(self.client_request_timeout)
    }

    /// What every handler's context carries, a task's included: its
    /// cancellation, the client's capabilities, the request's and session's
    /// ids, the caller, the shared state, and how the server treats an
    /// unexpected failure of its own.
    fn call_context(
        &self,
        name: &'static str,
        errors: &'static [ErrorContract],
        context: &RequestContext<RoleServer>,
        cancellation: CancellationToken,
        capabilities: ClientCapabilities,
    ) -> Context {
        let states = self.shared.states.clone();
        let mut ctx = Context::served(name, errors, cancellation, states, capabilities)
            .with_request_id(id_text(request_id(context)))
            .with_auth(self.scope_policy, caller(context));
        if let Some(session) = session_id(context) {
            ctx = ctx.with_session_id(session);
        }
        if let Some(token) = context.meta.get_progress_token() {
            ctx = ctx.with_progress_token(match token.0 {
                rmcp::model::NumberOrString::Number(number) => ProgressToken::Number(number),
                rmcp::model::NumberOrString::String(text) => ProgressToken::String(text.to_string()),
            });
        }
        let parts = context.extensions.get::<http::request::Parts>();
        if let Some(client) = parts.and_then(|parts| parts.extensions.get::<ClientIp>()) {
            ctx = ctx.with_client_ip(client.0);
        }
        ctx.with_trace(Arc::new(call_trace(context)))
    }

    fn channel(&self, name: &'static str, context: &RequestContext<RoleServer>) -> PeerChannel {
        PeerChannel {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            log_level: Arc::clone(&self.log_level),
            tool: name,
            request_id: context.id.clone(),
            stateless: is_stateless(context),
            request_log_level: context.meta.log_level().map(channel::level_index),
            response_stream: context.extensions.get::<ResponseStream>().cloned(),
        }
    }
}

impl std::fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolServer")
            .field("server_info", &self.shared.config.server_info)
            .field("tools", &self.shared.listed.iter().map(|tool| &tool.name).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        self.shared.config.clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        answered(
            async move {
                first_page(request.as_ref(), "tools/list")?;
                Ok(ListToolsResult::with_all_items(
                    self.enabled(PrimitiveKind::Tool, &self.shared.listed, |tool| &tool.name),
                ))
            }
            .await,
        )
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.tool(name)?;
        self.shared.by_name.get(name).map(|&index| self.shared.listed[index].clone())
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        answer(async move {
            let _working = self.begin_work(&context);
            let Some(tool) = self.tool(&request.name) else {
                // A protocol error, as rmcp's own router answers: the request names
                // nothing this server can run. -32602 (InvalidParams).
                // The name is the client's: quoted at most QUOTED_INPUT_CHARS long.
                let name = crate::define::cap_quoted(&request.name);
                return Err(ErrorData::invalid_params(
                    format!("Unknown tool `{name}`. Call tools/list to see the tools this server offers."),
                    None,
                ));
            };
            let definition = tool.definition();
            let capabilities = client_capabilities(&context);
            // A tool that needs a capability the client lacks is refused before it runs.
            if let Some(missing) = definition.requires.iter().copied().find(|&needed| !capabilities.has(needed)) {
                tracing::debug!(
                    tool = definition.name,
                    capability = missing.name(),
                    "tool call refused: capability missing"
                );
                return missing_capability(definition.name, missing, is_stateless(&context));
            }
            let carries_answers =
                request.request_state.is_some() || request.input_responses.as_ref().is_some_and(|r| !r.is_empty());
            let bind = || Binding::new("tools/call", definition.name, request.arguments.as_ref());
            let (round, binding) =
                self.round(&context, bind, request.request_state.as_deref(), request.input_responses)?.unzip();
            let channel = self.channel(definition.name, &context);
            let ctx = self
                .call_context(definition.name, definition.errors, &context, context.ct.clone(), capabilities)
                .with_channel(Arc::new(channel))
                .with_client_request_timeout(self.client_request_timeout);
            let ctx = in_round(ctx, round.as_ref());
            // Declared scopes are checked before the handler runs: a refused call
            // never reaches it, and the refusal is a tool error on both surfaces.
            if let Err(err) = crate::auth::check_scopes(&ctx, definition.auth_scopes) {
                tracing::debug!(tool = definition.name, code = %err.code(), "tool call refused before dispatch");
                return Ok(CallToolResponse::Complete(error_result(&err)));
            }
            if let Err(refused) = admit_tool(definition.name, &ctx, &self.observe) {
                return Ok(CallToolResponse::Complete(refused));
            }
            let arguments = request.arguments.unwrap_or_default();
            if let Some(tasks) = self.as_task(definition.task_support, &context)? {
                // Arguments the handler cannot take are refused now, as
                // the rate limit refuses, and make no task.
                if let Err(refused) = check_tool_arguments(tool.as_ref(), &arguments, &ctx, &self.observe) {
                    return refused.map(CallToolResponse::Complete);
                }
                let mut answers = JsonObject::new();
                if definition.task_input_first
                    && let Some(round) = &round
                {
                    if carries_answers {
                        // The retry that answers: the task's handler finds the answers.
                        answers = round.answers();
                    } else {
                        // Input first: the handler runs in the request's round;
                        // its asks end the request with an input-required result.
                        let outcome = run_tool(
                            Arc::clone(tool),
                            arguments,
                            ctx,
                            &context.ct,
                            &self.observe,
                            Some(Arc::clone(round)),
                        );
                        let task = match outcome.await {
                            Ok(Finished::Ended(end)) => {
                                return self
                                    .request_states
                                    .end(binding.as_ref(), end, None)
                                    .map(CallToolResponse::InputRequired);
                            }
                            Ok(finished) => tasks.settled(finished).await?,
                            Err(Cancelled(answer)) => return Err(envelope(&answer)),
                        };
                        return Ok(CallToolResponse::Task(rmcp::model::CreateTaskResult::new(task)));
                    }
                }
                // The task outlives this request: its own cancellation, stopped by
                // tasks/cancel, and the task's own channel, since the request is
                // answered (its progress shows in the task's state; the client
                // follows the task with tasks/get, and answers its asks with
                // tasks/update).
                let cancellation = CancellationToken::new();
                let capabilities = client_capabilities(&context);
                let ctx = self
                    .call_context(definition.name, definition.errors, &context, cancellation.clone(), capabilities)
                    .with_client_request_timeout(self.client_request_timeout);
                let observe = Arc::clone(&self.observe);
                // A session hears of the task's status changes; a stateless request polls.
                let tasks = if is_stateless(&context) { tasks.clone() } else { tasks.notifying(context.peer.clone()) };
                // The task is the session's work until it ends: the session does not hibernate under it.
                let working = self.begin_work(&context);
                let task =
                    tasks.start(Arc::clone(tool), arguments, answers, ctx, cancellation, observe, working).await?;
                return Ok(CallToolResponse::Task(rmcp::model::CreateTaskResult::new(task)));
            }
            let call = ToolCall::new(tool.as_ref(), &ctx, &self.observe);
            // A retry's span links to the call's first round; the first
            // round's span is what a round that ends keeps for the next.
            #[cfg(feature = "otel")]
            let trace = {
                let first = match request.request_state.as_deref() {
                    Some(state) => binding.as_ref().and_then(|binding| self.request_states.first_round(binding, state)),
                    _ => None,
                };
                if let Some(first) = &first {
                    crate::telemetry::link(call.span(), first);
                }
                first.or_else(|| crate::telemetry::traceparent(call.span()))
            };
            #[cfg(not(feature = "otel"))]
            let trace = None;
            let running = run_tool_call(call, Arc::clone(tool), arguments, ctx, &context.ct, &self.observe, round);
            match running.await {
                Ok(Finished::Complete(result)) => Ok(CallToolResponse::Complete(result)),
                Ok(Finished::Failed(error)) => Err(error),
                Ok(Finished::Ended(end)) => {
                    self.request_states.end(binding.as_ref(), end, trace).map(CallToolResponse::InputRequired)
                }
                Err(Cancelled(answer)) => Err(envelope(&answer)),
            }
        })
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        answered(
            async move {
                // rmcp's default answers with the method name as the whole message,
                // at any length; the name is the client's, so it is quoted capped.
                let method = crate::define::cap_quoted(&request.method);
                Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: `{method}`."), None))
            }
            .await,
        )
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        answered(
            async move {
                first_page(request.as_ref(), "resources/list")?;
                let listed = self.shared.catalog.listed_resources();
                let mut resources = self.enabled(PrimitiveKind::Resource, listed, |r| &r.name);
                // Each skill's SKILL.md, as the extension lists them beside the server's own.
                resources.extend(self.shared.skills.iter().flat_map(Skills::resources));
                Ok(ListResourcesResult::with_all_items(resources))
            }
            .await,
        )
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        answered(
            async move {
                first_page(request.as_ref(), "resources/templates/list")?;
                let listed = self.shared.catalog.listed_templates();
                Ok(ListResourceTemplatesResult::with_all_items(
                    self.enabled(PrimitiveKind::Resource, listed, |t| &t.name),
                ))
            }
            .await,
        )
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceResponse, ErrorData>> + Send + '_ {
        answer(async move {
            let _working = self.begin_work(&context);
            if let Some(result) = self.shared.skills.as_ref().and_then(|skills| skills.read(&request.uri)) {
                return Ok(ReadResourceResponse::Complete(result));
            }
            let bind = || Binding::new("resources/read", &request.uri, None);
            let (round, binding) =
                self.round(&context, bind, request.request_state.as_deref(), request.input_responses)?.unzip();
            let make = |name, errors| in_round(self.request_context(name, errors, &context), round.as_ref());
            let enabled = |name: &str| self.is_enabled(PrimitiveKind::Resource, name);
            match self
                .shared
                .catalog
                .read(request.uri, enabled, make, &context.ct, &self.observe, round.as_deref())
                .await?
            {
                Ok(result) => Ok(ReadResourceResponse::Complete(result)),
                Err(end) => {
                    self.request_states.end(binding.as_ref(), end, None).map(ReadResourceResponse::InputRequired)
                }
            }
        })
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        answered(first_page(request.as_ref(), "skills/list").and_then(|()| match &self.shared.skills {
            Some(skills) => Ok(skills.list()),
            None => Err(ErrorData::method_not_found::<rmcp::model::ListSkillsRequestMethod>()),
        }))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        answered(match &self.shared.skills {
            Some(skills) => skills.get(&request.uri),
            None => Err(ErrorData::method_not_found::<rmcp::model::GetSkillRequestMethod>()),
        })
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        answered(no_cursor(request.cursor.as_deref(), "resources/directory/read").and_then(|()| {
            match &self.shared.skills {
                Some(skills) => skills.read_directory(&request.uri),
                None => Err(ErrorData::method_not_found::<rmcp::model::ReadResourceDirectoryRequestMethod>()),
            }
        }))
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        answered(
            async move {
                first_page(request.as_ref(), "prompts/list")?;
                let listed = self.shared.catalog.listed_prompts();
                Ok(ListPromptsResult::with_all_items(self.enabled(PrimitiveKind::Prompt, listed, |p| &p.name)))
            }
            .await,
        )
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetPromptResponse, ErrorData>> + Send + '_ {
        answer(async move {
            let _working = self.begin_work(&context);
            let bind = || Binding::new("prompts/get", &request.name, request.arguments.as_ref());
            let state = request.request_state.as_deref();
            let (round, binding) = self.round(&context, bind, state, request.input_responses.clone())?.unzip();
            let make = |name, errors| in_round(self.request_context(name, errors, &context), round.as_ref());
            let enabled = |name: &str| self.is_enabled(PrimitiveKind::Prompt, name);
            match self
                .shared
                .catalog
                .get_prompt(request, enabled, make, &context.ct, &self.observe, round.as_deref())
                .await?
            {
                Ok(result) => Ok(GetPromptResponse::Complete(result)),
                Err(end) => self.request_states.end(binding.as_ref(), end, None).map(GetPromptResponse::InputRequired),
            }
        })
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, ErrorData>> + Send + '_ {
        answer(async move {
            let _working = self.begin_work(&context);
            let make = |name, errors| self.request_context(name, errors, &context);
            let enabled = |kind, name: &str| self.is_enabled(kind, name);
            self.shared.catalog.complete(request, enabled, make, &context.ct, &self.observe).await
        })
    }

    #[allow(deprecated, reason = "MCP logging is deprecated by SEP-2577 but is what today's clients read")]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        answered(
            async move {
                self.log_level.store(channel::min_level(&request), Ordering::Relaxed);
                Ok(())
            }
            .await,
        )
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if let Some(session) = &self.changes {
            session.changes.register(session.id, &context.peer);
        }
        // A session begins: over stdio, or over HTTP with a session id (a
        // stateless server's `initialize` begins none).
        let parts = context.extensions.get::<http::request::Parts>();
        if parts.is_none_or(|parts| parts.headers.contains_key(SESSION_ID_HEADER)) {
            // A session that hibernated wakes with the clock it began with.
            let woken = context.extensions.get::<SessionRestoreMarker>().map(|restored| restored.id.as_ref());
            if let (Some(hibernation), Some(id)) = (&self.hibernation, woken)
                && hibernation.wake(id, &self.session)
            {
                return;
            }
            let version = context.peer.peer_info().map(|info| info.protocol_version.as_str().to_owned());
            self.session.start(&self.observe, version, if parts.is_some() { "tcp" } else { "pipe" });
            let id = parts.and_then(|parts| parts.headers.get(SESSION_ID_HEADER)?.to_str().ok());
            if let (Some(hibernation), Some(id)) = (&self.hibernation, id) {
                hibernation.watch(id, &self.session);
            }
        }
    }

    #[allow(
        deprecated,
        reason = "resources/subscribe is what 2025-x clients send; 2026-07-28 has subscriptions/listen"
    )]
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        answered(
            async move {
                let Some(session) = &self.changes else {
                    return Err(no_resource_updates());
                };
                self.shared
                    .catalog
                    .check_subscribable(&request.uri, |name| self.is_enabled(PrimitiveKind::Resource, name))?;
                session.changes.subscribe(session.id, &context.peer, &request.uri).map_err(|too_many| {
                    ErrorData::invalid_params(
                        format!(
                            "This session is subscribed to {} resources already, the most this server allows. \
                         Unsubscribe from one with resources/unsubscribe first.",
                            too_many.max
                        ),
                        Some(serde_json::json!({ "maxSubscriptions": too_many.max })),
                    )
                })
            }
            .await,
        )
    }

    #[allow(deprecated, reason = "resources/unsubscribe is what 2025-x clients send")]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        answered(
            async move {
                let Some(session) = &self.changes else {
                    return Err(no_resource_updates());
                };
                session.changes.unsubscribe(session.id, &request.uri);
                Ok(())
            }
            .await,
        )
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        answered(
            async move {
                let tasks = self.tasks.as_ref().ok_or_else(no_tasks)?;
                let got = async { tasks.get(&request.task_id).await.map(rmcp::model::GetTaskResult::new) };
                task_round("tasks/get", &request.task_id, &context, tasks, got).await
            }
            .await,
        )
    }

    fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + Send + '_ {
        answer(async move {
            // Answers to keys the task does not wait for are acknowledged too.
            let tasks = self.tasks.as_ref().ok_or_else(no_tasks)?;
            let update = tasks.update(&request.task_id, request.input_responses.into_iter().collect());
            task_round("tasks/update", &request.task_id, &context, tasks, update).await
        })
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        answered(
            async move {
                let tasks = self.tasks.as_ref().ok_or_else(no_tasks)?;
                task_round("tasks/cancel", &request.task_id, &context, tasks, tasks.cancel(&request.task_id)).await
            }
            .await,
        )
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        // rmcp narrows the filter to what the capabilities advertise; without
        // `Changes` nothing is, and `subscriptions/listen` stays -32601. A
        // stream follows at most as many URIs as a session may subscribe to.
        let session = self.changes.as_ref()?;
        let mut accepted = requested.clone();
        if let Some(uris) = accepted.resource_subscriptions.as_mut() {
            uris.truncate(session.changes.max_subscriptions());
        }
        Some(accepted)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        answered(
            async move {
                if let Some(session) = &self.changes {
                    let id = session.changes.next_id();
                    session.changes.listen(id, context.sink().clone());
                    let parts = context.request_context().extensions.get::<http::request::Parts>();
                    let gone =
                        parts.and_then(|parts| parts.extensions.get::<ResponseGone>()).map(|gone| gone.0.clone());
                    tokio::select! {
                        () = context.cancelled() => {}
                        // Shutting down: the stream ends with its final result
                        // while its client still reads, before the transport
                        // stops, so the result is not lost.
                        () = self.stopping.cancelled() => {}
                        // The client stopped reading (HTTP): nothing sent on
                        // the stream reaches it any more.
                        () = async {
                            match gone {
                                Some(gone) => gone.cancelled().await,
                                None => std::future::pending().await,
                            }
                        } => {}
                    }
                    session.changes.stop_listening(id);
                }
                Ok(())
            }
            .await,
        )
    }
}

/// A later round of the task `task_id` (`tasks/get`, `tasks/update`,
/// `tasks/cancel`) answered in a server span of its own, named by its method
/// and with the conventions' attributes, as a call's is: the child of the
/// request's trace context and, with the feature `otel`, linked to the call
/// that created the task, whose trace the rounds usually are not in.
async fn task_round<T>(
    method: &'static str,
    task_id: &str,
    context: &RequestContext<RoleServer>,
    tasks: &Tasks,
    answer: impl Future<Output = Result<T, ErrorData>>,
) -> Result<T, ErrorData> {
    use tracing::Instrument;
    use tracing::field::Empty;
    let trace = call_trace(context);
    let span = tracing::info_span!(
        "mcp_request",
        otel.name = method,
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = method,
        jsonrpc.request.id = %request_id(context),
        mcp.session.id = session_id(context),
        mcp.protocol.version = trace.protocol_version.as_deref(),
        network.transport = trace.transport,
        error.type = Empty,
        rpc.response.status_code = Empty,
        mcp_contract.task_id = task_id,
    );
    #[cfg(feature = "otel")]
    {
        crate::telemetry::adopt(&span, method, None, Some(&trace));
        tasks.link_round(task_id, &span).await;
    }
    #[cfg(not(feature = "otel"))]
    let _ = tasks;
    let answer = answer.instrument(span.clone()).await;
    if let Err(err) = &answer {
        let code = err.code.0.to_string();
        span.record("error.type", code.as_str());
        span.record("rpc.response.status_code", code.as_str());
        span.record("otel.status_code", "error");
        span.record("otel.status_description", &*err.message);
    }
    answer
}

/// resources/subscribe and resources/unsubscribe are -32601 on a server
/// that does not advertise `resources.subscribe`.
fn no_resource_updates() -> ErrorData {
    ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "This server announces no resource updates.", None)
}

/// rmcp answers tasks/* -32601 for a server that does not advertise the
/// extension; one that does has its tasks.
fn no_tasks() -> ErrorData {
    ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "This server runs no tool as a task.", None)
}

/// The capabilities the client declared: the request's own on 2026-07-28, the
/// session's otherwise (rmcp's rule).
fn client_capabilities(context: &RequestContext<RoleServer>) -> ClientCapabilities {
    match context.client_capabilities().map(serde_json::to_value) {
        Some(Ok(serde_json::Value::Object(declared))) => ClientCapabilities::from_json(declared),
        _ => ClientCapabilities::default(),
    }
}

/// The verified caller, which the HTTP auth layer put into the request's extensions.
fn caller(context: &RequestContext<RoleServer>) -> Option<Arc<AuthInfo>> {
    context.extensions.get::<http::request::Parts>().and_then(|parts| parts.extensions.get::<Arc<AuthInfo>>()).cloned()
}

/// The request's id as the client sent it (the stdio transport hands rmcp ids of its own).
fn request_id(context: &RequestContext<RoleServer>) -> &rmcp::model::RequestId {
    context.extensions.get::<ClientId>().map_or(&context.id, |client| &client.0)
}

/// A JSON-RPC id as text, as its `Display` writes it: a number in decimal
/// (without `fmt`), a string as it is (shared, not copied).
fn id_text(id: &rmcp::model::RequestId) -> Arc<str> {
    match id {
        rmcp::model::NumberOrString::Number(number) => Arc::from(itoa::Buffer::new().format(*number)),
        rmcp::model::NumberOrString::String(text) => Arc::clone(text),
    }
}

/// A protocol revision as text: one that rmcp knows is a static string, so
/// that most calls allocate nothing for it.
fn revision_text(version: ProtocolVersion) -> Cow<'static, str> {
    match ProtocolVersion::KNOWN_VERSIONS.iter().find(|known| **known == version) {
        Some(known) => Cow::Borrowed(known.as_str()),
        None => Cow::Owned(version.as_str().to_owned()),
    }
}

/// What the request says of its trace: the W3C trace context of its
/// `params._meta` (SEP-414: `traceparent`, `tracestate` and `baggage` at its
/// root) when it carries a `traceparent` there, else the HTTP request's
/// headers' (a client that traces only its HTTP requests), and the protocol
/// revision. MCP's own context wins: one HTTP request may carry several MCP
/// messages, and a retried message several HTTP requests.
fn call_trace(context: &RequestContext<RoleServer>) -> CallTrace {
    let parts = context.extensions.get::<http::request::Parts>();
    #[cfg(feature = "otel")]
    let (carrier, ambient) = trace_carrier(context, parts);
    CallTrace {
        protocol_version: context.protocol_version().map(revision_text),
        transport: Some(if parts.is_some() { "tcp" } else { "pipe" }),
        #[cfg(feature = "otel")]
        carrier,
        #[cfg(feature = "otel")]
        ambient,
    }
}

/// The trace context the call's span is the child of, and the HTTP header's
/// `traceparent` to link when `_meta`'s is the parent and names another span.
#[cfg(feature = "otel")]
fn trace_carrier(
    context: &RequestContext<RoleServer>,
    parts: Option<&http::request::Parts>,
) -> (Vec<(&'static str, String)>, Option<String>) {
    // The headers named once: a lookup by a `&str` parses the name each time.
    const HEADERS: [http::HeaderName; 3] = [
        http::HeaderName::from_static(TRACE_CONTEXT_KEYS[0]),
        http::HeaderName::from_static(TRACE_CONTEXT_KEYS[1]),
        http::HeaderName::from_static(TRACE_CONTEXT_KEYS[2]),
    ];
    let from_meta = |key: &str| context.meta.get(key).and_then(serde_json::Value::as_str).map(str::to_owned);
    let from_headers =
        |name: &http::HeaderName| parts?.headers.get(name).and_then(|value| value.to_str().ok()).map(str::to_owned);
    match from_meta(TRACE_CONTEXT_KEYS[0]) {
        Some(parent) => {
            let carrier = TRACE_CONTEXT_KEYS.iter().filter_map(|&key| Some((key, from_meta(key)?))).collect();
            (carrier, from_headers(&HEADERS[0]).filter(|ambient| *ambient != parent))
        }
        None => {
            let carrier = TRACE_CONTEXT_KEYS.into_iter().zip(HEADERS);
            (carrier.filter_map(|(key, name)| Some((key, from_headers(&name)?))).collect(), None)
        }
    }
}

/// The `Mcp-Session-Id` the request came with: none over stdio and stateless HTTP.
fn session_id(context: &RequestContext<RoleServer>) -> Option<&str> {
    let parts = context.extensions.get::<http::request::Parts>()?;
    parts.headers.get(SESSION_ID_HEADER)?.to_str().ok()
}

/// A request's answer as the client receives it: an error with its
/// `data.requestId` (a call's carries the id of its log line already; one this
/// layer built, such as an unknown tool, gets a fresh one). Every request
/// method of [`ToolServer`]'s `ServerHandler` ends here, so that no error of
/// either transport goes without.
fn answered<T>(answer: Result<T, ErrorData>) -> Result<T, ErrorData> {
    answer.map_err(stamped)
}

/// `ctx` in the request's input round, when it has one.
fn in_round(ctx: Context, round: Option<&Arc<crate::call::InputRound>>) -> Context {
    match round {
        Some(round) => ctx.with_input_round(Arc::clone(round)),
        None => ctx,
    }
}

/// [`answered`] for a handler whose future is large: boxed.
///
/// rmcp runs each request in a task of its own, whose future awaits the
/// handler's in place, so the task is as large as the largest handler future
/// it could await. Those of `tools/call`, `resources/read`, `prompts/get`,
/// `completion/complete` and `tasks/update` are 3.6 to 4.7 KiB, more than
/// rmcp's own part of that future (3.3 KiB), and tokio copies a task's whole
/// future each time it moves it: into the spawn, into the task's cell, and
/// over it when the task ends. Boxed, they leave the task at rmcp's own size
/// for one allocation; the other handlers' futures are smaller than that.
fn answer<'a, T: 'a>(
    handler: impl Future<Output = Result<T, ErrorData>> + Send + 'a,
) -> impl Future<Output = Result<T, ErrorData>> + Send + 'a {
    Box::pin(async move { answered(handler.await) })
}

/// Whether the request is of the stateless revision 2026-07-28 (or later),
/// where the server never sends the client a request.
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// The refusal of a call whose tool needs a capability the client did not
/// declare. On 2026-07-28 it is SEP-2575's -32021 (HTTP 400) with
/// `data.requiredCapabilities` naming it; before, that code does not exist and
/// the refusal is a tool error, as a refused scope is.
fn missing_capability(tool: &str, missing: Capability, stateless: bool) -> Result<CallToolResponse, ErrorData> {
    let message = format!(
        "The tool `{tool}` needs the client capability `{missing}`, which this client did not declare. \
         Call it from a client that supports {missing}."
    );
    if stateless {
        let data = serde_json::json!({"requiredCapabilities": {missing.name(): {}}});
        return Err(ErrorData::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, message, Some(data)));
    }
    let err: McpError = ClientRequestError::NotDeclared { capability: missing.name() }.into();
    Ok(CallToolResponse::Complete(error_result(&err.with_message(message))))
}

/// Every list is answered whole, on one page without a `nextCursor`, so no
/// cursor a client sends is one this server gave: MCP's pagination says an
/// invalid cursor SHOULD get -32602 (InvalidParams), rather than the first page
/// again, which a client would take for the page after its cursor.
fn first_page(request: Option<&PaginatedRequestParams>, method: &str) -> Result<(), ErrorData> {
    no_cursor(request.and_then(|request| request.cursor.as_deref()), method)
}

/// [`first_page`] of a request whose params hold the cursor themselves.
fn no_cursor(cursor: Option<&str>, method: &str) -> Result<(), ErrorData> {
    match cursor {
        None => Ok(()),
        Some(cursor) => {
            let cursor = crate::define::cap_quoted(cursor);
            Err(ErrorData::invalid_params(
                format!(
                    "The cursor `{cursor}` is none this server gave: it answers {method} on one page. \
                     Call {method} without a cursor."
                ),
                Some(serde_json::json!({ "cursor": cursor })),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::Service;
    use rmcp::model::RequestId;

    use super::*;

    /// The size of the future `method` returns, read from its signature: no
    /// request is made.
    fn future_size<'a, S: 'a, P, C, F: Future>(_method: impl FnOnce(&'a S, P, C) -> F) -> usize {
        size_of::<F>()
    }

    /// rmcp's server with nothing of its own: every handler is rmcp's default.
    struct Bare;

    impl ServerHandler for Bare {}

    #[test]
    fn a_request_id_reads_as_its_display_writes_it_and_a_string_is_shared() {
        for number in [0, 7, -1, 1_000_000, i64::MAX, i64::MIN] {
            let id = RequestId::Number(number);
            assert_eq!(&*id_text(&id), id.to_string(), "{number}");
        }
        let text: Arc<str> = Arc::from("call-1 é");
        let shared = id_text(&RequestId::String(Arc::clone(&text)));
        assert!(Arc::ptr_eq(&shared, &text), "the string id is copied");
    }

    #[test]
    fn a_known_revision_is_a_static_string_and_another_is_kept_as_it_came() {
        for known in ProtocolVersion::KNOWN_VERSIONS {
            let text = revision_text(known.clone());
            assert!(matches!(text, Cow::Borrowed(_)) && text == known.as_str(), "{known}");
        }
        let later: ProtocolVersion = serde_json::from_value(serde_json::json!("2099-01-01")).unwrap();
        assert!(matches!(revision_text(later), Cow::Owned(text) if text == "2099-01-01"));
    }

    /// rmcp spawns `handle_request` for each request, and tokio copies that
    /// future whole each time it moves the task (see [`answer`]). Every
    /// handler of ours awaited inside it is to be no larger than rmcp's own
    /// part of it, so that the task is the size it is for rmcp alone.
    #[test]
    fn rmcp_s_request_task_is_no_larger_for_this_server_than_for_rmcp_s_defaults() {
        let ours = future_size(<ToolServer as Service<RoleServer>>::handle_request);
        let bare = future_size(<Bare as Service<RoleServer>>::handle_request);
        assert!(
            ours <= bare,
            "rmcp's request task is {ours} bytes for this server, {bare} for rmcp's defaults: a handler's \
             future grew larger than rmcp's own part of the task; return it through `answer`, boxed"
        );
    }
}
