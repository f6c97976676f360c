//! The rmcp [`ServerHandler`] over a set of [`DynTool`]s: `initialize`,
//! `tools/list` and `tools/call`, plus the client channel of a call.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, ErrorCode, ErrorData,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};

use super::catalog::Catalog;
use super::channel::{self, PeerChannel};
use super::invoke::{Cancelled, REQUEST_CANCELLED, run_tool};
use super::wire::{error_result, listed_tool};
use crate::auth::AuthConfig;
use crate::call::{AuthInfo, Context, LogLevel, ScopePolicy, StateMap};
use crate::define::DynTool;
use crate::error::ErrorContract;

/// A built server: the tools, their `tools/list` entries, and the server info.
///
/// It implements rmcp's [`ServerHandler`], so besides
/// [`Server::serve_stdio`](super::Server::serve_stdio) and
/// [`Server::serve_http`](super::Server::serve_http) it can be served over any
/// rmcp transport (`rmcp::ServiceExt::serve`). Cloning is cheap (clones share
/// the tools and the MCP log level); the Streamable HTTP transport gives each
/// session a log level of its own.
#[derive(Clone)]
pub struct ToolServer {
    shared: Arc<Shared>,
    /// The lowest [`LogLevel`] the client wants (`logging/setLevel`), as its index.
    log_level: Arc<AtomicU8>,
    /// The config [`Server::auth`](super::Server::auth) set, if any.
    auth_config: Option<Arc<AuthConfig>>,
    /// How the transport serving this copy treats declared scopes.
    scope_policy: ScopePolicy,
    /// The landing page's config ([`Server::landing`](super::Server::landing)).
    landing: Option<Arc<crate::define::Landing>>,
}

struct Shared {
    config: ServerConfig,
    tools: Vec<Arc<dyn DynTool>>,
    listed: Vec<rmcp::model::Tool>,
    by_name: HashMap<&'static str, usize>,
    states: StateMap,
    catalog: Catalog,
}

/// The level the server sends at until the client asks for another one.
const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

impl ToolServer {
    pub(super) fn new(
        info: Implementation,
        instructions: Option<String>,
        tools: Vec<Arc<dyn DynTool>>,
        by_name: HashMap<&'static str, usize>,
        states: StateMap,
        catalog: Catalog,
    ) -> Self {
        let mut capabilities = channel::capabilities();
        catalog.advertise(&mut capabilities);
        let mut config = ServerConfig::new(capabilities).with_server_info(info);
        config.instructions = instructions;
        let listed = tools.iter().map(|tool| listed_tool(tool.definition())).collect();
        Self {
            shared: Arc::new(Shared { config, tools, listed, by_name, states, catalog }),
            log_level: Arc::new(AtomicU8::new(DEFAULT_LOG_LEVEL as u8)),
            auth_config: None,
            scope_policy: ScopePolicy::Open,
            landing: None,
        }
    }

    pub(super) fn with_auth_config(mut self, config: Option<AuthConfig>) -> Self {
        self.auth_config = config.map(Arc::new);
        self
    }

    pub(super) fn auth_config(&self) -> Option<&AuthConfig> {
        self.auth_config.as_deref()
    }

    pub(super) fn with_landing(mut self, landing: Option<crate::define::Landing>) -> Self {
        self.landing = landing.map(Arc::new);
        self
    }

    /// What the landing page shows besides the definitions.
    pub(super) fn landing(&self) -> Option<&crate::define::Landing> {
        self.landing.as_deref()
    }

    /// The resources and prompts, for the landing page.
    pub(super) fn catalog(&self) -> &Catalog {
        &self.shared.catalog
    }

    pub(super) fn with_scope_policy(mut self, policy: ScopePolicy) -> Self {
        self.scope_policy = policy;
        self
    }

    /// Every scope some tool declares, for the protected-resource metadata.
    #[cfg_attr(not(feature = "auth"), allow(dead_code, reason = "only the auth layer publishes scopes"))]
    pub(super) fn declared_scopes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.shared.tools.iter().flat_map(|tool| tool.definition().auth_scopes.iter().copied())
    }

    /// The names of the tools that declare scopes.
    pub(super) fn scoped_tools(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.shared.tools.iter().map(|tool| tool.definition()).filter(|d| !d.auth_scopes.is_empty()).map(|d| d.name)
    }

    /// A copy for a new session: same tools, the default log level.
    pub(crate) fn for_new_session(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            log_level: Arc::new(AtomicU8::new(DEFAULT_LOG_LEVEL as u8)),
            auth_config: self.auth_config.clone(),
            scope_policy: self.scope_policy,
            landing: self.landing.clone(),
        }
    }

    /// The tools' entries as `tools/list` sends them.
    pub fn listed_tools(&self) -> &[rmcp::model::Tool] {
        &self.shared.listed
    }

    /// The `initialize` answer: server info, capabilities and instructions.
    pub fn config(&self) -> &ServerConfig {
        &self.shared.config
    }

    fn tool(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        self.shared.by_name.get(name).map(|&index| &self.shared.tools[index])
    }

    /// The context of a resource read, prompt or completion handler, made as a
    /// tool call's is: cancellation, progress and logs to the client.
    fn request_context(
        &self,
        name: &'static str,
        errors: &'static [ErrorContract],
        context: &RequestContext<RoleServer>,
    ) -> Context {
        let channel = PeerChannel {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            log_level: Arc::clone(&self.log_level),
            tool: name,
        };
        Context::new(name, errors)
            .with_cancellation(context.ct.clone())
            .with_channel(Arc::new(channel))
            .with_states(self.shared.states.clone())
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
        first_page(request.as_ref(), "tools/list")?;
        Ok(ListToolsResult::with_all_items(self.shared.listed.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.shared.by_name.get(name).map(|&index| self.shared.listed[index].clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.tool(&request.name) else {
            // A protocol error, as rmcp's own router answers: the request names
            // nothing this server can run. -32602 (InvalidParams).
            // The name is the client's: quoted at most QUOTED_INPUT_CHARS long.
            let name = crate::define::arguments::cap_quoted(&request.name);
            return Err(ErrorData::invalid_params(
                format!("Unknown tool `{name}`. Call tools/list to see the tools this server offers."),
                None,
            ));
        };
        let definition = tool.definition();
        let channel = PeerChannel {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            log_level: Arc::clone(&self.log_level),
            tool: definition.name,
        };
        // The HTTP auth layer put the verified caller into the request's extensions.
        let caller = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Arc<AuthInfo>>())
            .cloned();
        let ctx = Context::new(definition.name, definition.errors)
            .with_cancellation(context.ct.clone())
            .with_channel(Arc::new(channel))
            .with_auth(self.scope_policy, caller)
            .with_states(self.shared.states.clone());
        // Declared scopes are checked before the handler runs: a refused call
        // never reaches it, and the refusal is a tool error on both surfaces.
        if let Err(err) = crate::auth::check_scopes(&ctx, definition.auth_scopes) {
            tracing::debug!(tool = definition.name, code = %err.code(), "tool call refused before dispatch");
            return Ok(CallToolResponse::Complete(error_result(&err)));
        }
        let arguments = request.arguments.unwrap_or_default();
        match run_tool(Arc::clone(tool), arguments, ctx, &context.ct).await {
            Ok(result) => Ok(CallToolResponse::Complete(result)),
            Err(Cancelled) => {
                Err(ErrorData::new(ErrorCode(REQUEST_CANCELLED), "The client cancelled this tool call.", None))
            }
        }
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        // rmcp's default answers with the method name as the whole message,
        // at any length; the name is the client's, so it is quoted capped.
        let method = crate::define::arguments::cap_quoted(&request.method);
        Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: `{method}`."), None))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        first_page(request.as_ref(), "resources/list")?;
        Ok(ListResourcesResult::with_all_items(self.shared.catalog.listed_resources().to_vec()))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        first_page(request.as_ref(), "resources/templates/list")?;
        Ok(ListResourceTemplatesResult::with_all_items(self.shared.catalog.listed_templates().to_vec()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let make = |name, errors| self.request_context(name, errors, &context);
        self.shared.catalog.read(request.uri, make, &context.ct).await.map(ReadResourceResponse::Complete)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        first_page(request.as_ref(), "prompts/list")?;
        Ok(ListPromptsResult::with_all_items(self.shared.catalog.listed_prompts().to_vec()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let make = |name, errors| self.request_context(name, errors, &context);
        self.shared.catalog.get_prompt(request, make, &context.ct).await.map(GetPromptResponse::Complete)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let make = |name, errors| self.request_context(name, errors, &context);
        self.shared.catalog.complete(request, make, &context.ct).await
    }

    #[allow(deprecated, reason = "MCP logging is deprecated by SEP-2577 but is what today's clients read")]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.store(channel::min_level(&request), Ordering::Relaxed);
        Ok(())
    }
}

/// Every list is answered whole, on one page without a `nextCursor`, so no
/// cursor a client sends is one this server gave: MCP's pagination says an
/// invalid cursor SHOULD get -32602 (InvalidParams), rather than the first page
/// again, which a client would take for the page after its cursor.
fn first_page(request: Option<&PaginatedRequestParams>, method: &str) -> Result<(), ErrorData> {
    match request.and_then(|request| request.cursor.as_deref()) {
        None => Ok(()),
        Some(cursor) => {
            let cursor = crate::define::arguments::cap_quoted(cursor);
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
