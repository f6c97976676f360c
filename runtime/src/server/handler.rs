//! The rmcp [`ServerHandler`] over a set of [`DynTool`]s: `initialize`,
//! `tools/list` and `tools/call`, plus the client channel of a call.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, ContentBlock,
    ErrorCode, ErrorData, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::catalog::Catalog;
use super::channel::{self, PeerChannel};
use crate::auth::{AuthConfig, AuthInfo, ScopePolicy};
use crate::context::{Context, LogLevel};
use crate::contract::{Content, DynTool, ErrorContract, ToolDefinition, ToolOutput};
use crate::errors::{JsonObject, McpError};
use crate::render;
use crate::state::StateMap;

/// The `_meta` key under which `tools/list` publishes a tool's error contract:
/// a list of `{reason, code, when, recovery, retryable}`.
pub const ERRORS_META_KEY: &str = "io.github.mcp-contract/errors";

/// The JSON-RPC code of the answer to a request the client cancelled. Clients
/// drop that answer; the code only matters in logs (it is LSP's `RequestCancelled`).
pub(super) const REQUEST_CANCELLED: i32 = -32800;

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
        }
    }

    pub(super) fn with_auth_config(mut self, config: Option<AuthConfig>) -> Self {
        self.auth_config = config.map(Arc::new);
        self
    }

    pub(super) fn auth_config(&self) -> Option<&AuthConfig> {
        self.auth_config.as_deref()
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
            let name = crate::contract::cap_quoted(&request.name);
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
        let method = crate::contract::cap_quoted(&request.method);
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

/// The client cancelled the call before the handler finished.
struct Cancelled;

/// Run one tool call: decode, handle, render; every failure becomes a tool
/// error result. A panicking handler becomes an InternalError result without
/// its panic message (which may hold internals), and the server keeps serving.
///
/// The call runs on a task of its own, so that a handler that holds its worker
/// thread for a while delays no other call on the connection, and a cancelled
/// call is aborted at its next `.await`. (A plain `fn` handler runs on the
/// blocking pool, see [`crate::contract::run_blocking`], and is not aborted:
/// it checks [`Context::is_cancelled`] itself.)
async fn run_tool(
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
            tracing::debug!(tool = name, code = %err.code(), message = err.message(), "tool call failed");
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

fn success_result(output: ToolOutput) -> CallToolResult {
    let mut result = CallToolResult::success(output.content.into_iter().map(content_block).collect());
    result.structured_content = output.structured;
    result
}

/// The tool-error result of `err`: the same JSON as [`render::tool_error_result`].
fn error_result(err: &McpError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(render::error_text(err))]);
    result.structured_content = Some(render::structured_error(err));
    result
}

fn content_block(content: Content) -> ContentBlock {
    use crate::contract::EmbeddedResource;
    use rmcp::model::ResourceContents;
    match content {
        Content::Text { text } => ContentBlock::text(text),
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
        Content::Resource { resource: EmbeddedResource::Text { uri, mime_type, text } } => {
            ContentBlock::resource(ResourceContents::TextResourceContents { uri, mime_type, text, meta: None })
        }
        Content::Resource { resource: EmbeddedResource::Blob { uri, mime_type, blob } } => {
            ContentBlock::resource(ResourceContents::BlobResourceContents { uri, mime_type, blob, meta: None })
        }
        Content::ResourceLink(link) => {
            let mut resource = rmcp::model::Resource::new(link.uri, link.name);
            resource.title = link.title;
            resource.description = link.description;
            resource.mime_type = link.mime_type;
            ContentBlock::resource_link(resource)
        }
    }
}

/// A tool's `tools/list` entry.
fn listed_tool(definition: &ToolDefinition) -> rmcp::model::Tool {
    let mut tool = rmcp::model::Tool::new_with_raw(
        definition.name,
        definition.description.map(Cow::Borrowed),
        Arc::clone(&definition.input_schema),
    );
    if let Some(title) = definition.title {
        tool = tool.with_title(title);
    }
    if let Some(schema) = &definition.output_schema {
        // Strict clients validate error results against it too; see `schema::widen_for_error_results`.
        tool = tool.with_raw_output_schema(Arc::new(crate::schema::widen_for_error_results(schema)));
    }
    if !definition.annotations.is_empty() {
        let a = definition.annotations;
        tool = tool.with_annotations(rmcp::model::ToolAnnotations::from_raw(
            a.title.map(str::to_owned),
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint,
        ));
    }
    if !definition.errors.is_empty() {
        let mut meta = JsonObject::new();
        let errors = serde_json::to_value(definition.errors).unwrap_or(Value::Array(Vec::new()));
        meta.insert(ERRORS_META_KEY.to_owned(), errors);
        tool = tool.with_meta(MetaObject(meta));
    }
    tool
}

/// Every list is answered whole, on one page without a `nextCursor`, so no
/// cursor a client sends is one this server gave: MCP's pagination says an
/// invalid cursor SHOULD get -32602 (InvalidParams), rather than the first page
/// again, which a client would take for the page after its cursor.
fn first_page(request: Option<&PaginatedRequestParams>, method: &str) -> Result<(), ErrorData> {
    match request.and_then(|request| request.cursor.as_deref()) {
        None => Ok(()),
        Some(cursor) => {
            let cursor = crate::contract::cap_quoted(cursor);
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
    use super::*;
    use crate::contract::{EmbeddedResource, ResourceLink};

    #[test]
    fn every_content_kind_reaches_rmcp_as_its_own_mcp_json() {
        let blocks = [
            Content::text("Wheat Field with Cypresses"),
            Content::image("iVBORw0KGgo=", "image/png"),
            Content::audio("UklGRiQAAABXQVZF", "audio/wav"),
            Content::resource(EmbeddedResource::text("museum://objects/1", "{}").with_mime_type("application/json")),
            Content::resource(EmbeddedResource::text("museum://objects/2", "A vase.")),
            Content::resource(
                EmbeddedResource::blob("museum://objects/1/scan", "JVBERi0=").with_mime_type("application/pdf"),
            ),
            Content::resource_link(
                ResourceLink::new("museum://objects/1/image", "image-1")
                    .with_title("Image of object 1")
                    .with_description("The museum's photograph.")
                    .with_mime_type("image/jpeg"),
            ),
            Content::resource_link(ResourceLink::new("museum://objects/2", "object-2")),
        ];
        for content in blocks {
            let ours = serde_json::to_value(&content).unwrap();
            let sent = serde_json::to_value(content_block(content)).unwrap();
            assert_eq!(sent, ours);
        }
        let embedded = content_block(Content::resource(EmbeddedResource::blob("museum://x", "AA==")));
        assert_eq!(
            serde_json::to_value(embedded).unwrap(),
            serde_json::json!({"type": "resource", "resource": {"uri": "museum://x", "blob": "AA=="}})
        );
    }
}
