#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// The facade names its modules after what a user reaches for; the runtime's
// layer modules (`call`, `define`, ...) are where the items live, not where a
// user finds them. Every item is re-exported here by name, so the public API is
// what this file lists (and `api/mcp-contract.txt` records).

pub use mcp_contract_macros::{embed_skills, mcp_prompt, mcp_resource, mcp_tool};

pub use mcp_contract_runtime::call::{BoxFuture, Context, Ctx, State};
pub use mcp_contract_runtime::error::{ErrorContract, JsonObject, JsonRpcErrorCode, McpError, Reason};
#[cfg(feature = "rmcp")]
pub use mcp_contract_runtime::server::Server;
#[cfg(feature = "rmcp")]
pub use mcp_contract_runtime::server_from_crate;

/// The `http` crate the HTTP helpers take (`http::Response`, `http::HeaderMap`,
/// `http::StatusCode`), so a server builds their arguments without a
/// dependency of its own, and always of the same version.
pub use mcp_contract_runtime::http;

pub mod prelude {
    //! What a tool module needs: `use mcp_contract::prelude::*;`.
    //!
    //! The attribute macros, the error type and its codes, the handler's context
    //! and state, what a handler asks of its client, its caller, the traits and
    //! types of resources and prompts, and the derives the macros ask for
    //! (`Deserialize`, `Serialize`, `JsonSchema`).

    pub use mcp_contract_macros::{mcp_prompt, mcp_resource, mcp_tool};
    pub use mcp_contract_runtime::auth::{AuthInfo, check_scopes};
    pub use mcp_contract_runtime::call::{ClientRequestError, Elicitation, Sampling};
    pub use mcp_contract_runtime::call::{Context, Ctx, LogLevel, State};
    pub use mcp_contract_runtime::define::{
        Completion, CompletionRequest, Content, Prompt, PromptMessage, ReadResourceResult, Resource, ResourceContent,
        Tool, ToolDefinition,
    };
    pub use mcp_contract_runtime::error::{ErrorContract, JsonRpcErrorCode, McpError, Reason};
    #[cfg(feature = "rmcp")]
    pub use mcp_contract_runtime::server::Server;
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

pub mod errors {
    //! Errors: [`McpError`] and its [`JsonRpcErrorCode`]s, the error contract a
    //! tool declares ([`ErrorContract`], [`Reason`]), which code an arbitrary
    //! error deserves ([`classify`](classify())), failed upstream HTTP calls as
    //! errors ([`http_error_from_response`] and its siblings),
    //! [`try_catch`](try_catch()) with its log [`sanitize`]r, [`with_retry`], a
    //! `Pacer` in front of a rate-limited upstream (feature `pacer`), and how an
    //! error is [`render`]ed to the two surfaces MCP clients read.

    #[cfg(feature = "pacer")]
    pub use mcp_contract_runtime::error::pacer::{PACER_SHED, Pacer, PacerOptions, PacerStats, ShedKind};
    #[cfg(feature = "reqwest")]
    pub use mcp_contract_runtime::error::upstream::http_error_from_reqwest;
    pub use mcp_contract_runtime::error::upstream::{
        HttpErrorOptions, http_error_from_parts, http_error_from_response, http_error_from_status,
    };
    pub use mcp_contract_runtime::error::{
        Cause, ErrorCategory, ErrorContract, ErrorSeverity, JsonObject, JsonRpcErrorCode, McpError,
        RETRY_DEADLINE_EXCEEDED, Reason, RetryPolicy, TryCatch, classify, classify_parts, http_status_to_error_code,
        try_catch, try_catch_sync, with_retry,
    };
    pub use mcp_contract_runtime::error::{render, sanitize};
}

pub mod context {
    //! What a handler gets with each request: its [`Context`], or the typed
    //! [`Ctx`] of its contract whose `fail` takes only declared reasons; the shared
    //! [`State`] the server registered; logging and progress; what it asks of its
    //! client ([`Elicitation`] forms, [`Sampling`], roots) and the rounds a
    //! stateless or task call asks them in; and, for unit tests of a handler with
    //! its tool's `test_ctx()`, what it sent ([`Captured`]).

    pub use mcp_contract_runtime::call::{
        Capability, Captured, ClientCapabilities, ClientChannel, ClientRequestError, ClientRequestRecord, Context, Ctx,
        DEFAULT_CLIENT_REQUEST_TIMEOUT, ElicitForm, Elicitation, Input, InputRequest, InputRound, LogLevel, LogRecord,
        ModelPreferences, ProgressToken, ProgressUpdate, Root, RoundEnd, SampledMessage, Sampling, SharedState, State,
        StateType, form_schema,
    };
}

pub mod tools {
    //! Tools: the [`Tool`] trait `#[mcp_tool]` implements, the
    //! [`ToolDefinition`] `tools/list` publishes with its [`ToolAnnotations`], what
    //! a handler returns ([`ToolOutput`]), tasks ([`TaskSupport`]), and the
    //! enrichment trailer a tool adds to its structured output ([`Enrichment`],
    //! [`Truncation`]).

    pub use mcp_contract_runtime::call::{Enrichment, EnrichmentField, EnrichmentKind, Truncation};
    pub use mcp_contract_runtime::define::{
        DynTool, EnrichmentDefinition, FormatSample, INVALID_ARGUMENTS, InputAlias, NoArguments, OutputSample,
        TaskSupport, Tool, ToolAnnotations, ToolDefinition, ToolOutput, TrailerField, extend_output_schema,
    };
}

pub mod resources {
    //! Resources: the [`Resource`] trait `#[mcp_resource]` implements, the
    //! [`ResourceDefinition`] `resources/list` publishes, and what a read returns
    //! ([`ReadResourceResult`]); a template's URI is an RFC 6570 [`UriTemplate`].

    pub use mcp_contract_runtime::define::{
        DynResource, ReadResourceResult, Resource, ResourceContent, ResourceDefinition, TextOrBlob,
    };
    pub use mcp_contract_runtime::uri_template::UriTemplate;
}

pub mod prompts {
    //! Prompts: the [`Prompt`] trait `#[mcp_prompt]` implements, the
    //! [`PromptDefinition`] `prompts/list` publishes with its arguments, and the
    //! [`PromptMessage`]s a prompt returns.

    pub use mcp_contract_runtime::define::{
        DynPrompt, Prompt, PromptArgument, PromptContent, PromptDefinition, PromptMessage, Role, prompt_arguments,
    };
}

pub mod completion {
    //! Argument completion (`completion/complete`) of resource templates and
    //! prompts: the [`CompletionRequest`] a `complete` handler gets and the
    //! [`Completion`] it returns.

    pub use mcp_contract_runtime::define::{Completion, CompletionRequest};
}

pub mod content {
    //! Content blocks: what the model reads of a tool's result and of a prompt's
    //! messages (MCP `ContentBlock`): [`Content`], with [`ResourceLink`]s and
    //! [`EmbeddedResource`]s.

    pub use mcp_contract_runtime::define::{Binary, Content, EmbeddedResource, IntoContents, ResourceLink};
}

pub mod apps {
    //! MCP Apps (the extension `io.modelcontextprotocol/ui`): a tool paired with
    //! an interactive HTML resource at a `ui://` URI, which a host renders in a
    //! sandboxed frame ([`AppUi`], [`AppPermission`], [`APP_MIME_TYPE`]).

    pub use mcp_contract_runtime::define::{APP_MIME_TYPE, AppPermission, AppUi, RESOURCE_URI_META_KEY, UI_EXTENSION};
}

pub mod schema {
    //! JSON Schemas of tools' inputs and outputs, portable across LLM vendors:
    //! [`input_schema`], [`output_schema`], [`portable`], the problems a schema
    //! has for some vendor ([`portability_problems`]), and the error envelope.

    pub use mcp_contract_runtime::schema::{
        PORTABLE_FORMATS, PortabilityProblem, PortabilityProblemKind, error_envelope_schema, input_schema,
        is_object_schema, output_schema, portability_problems, portable, widen_for_error_results,
    };
}

#[cfg(feature = "rmcp")]
pub mod server {
    //! Serving over MCP through the official Rust SDK, rmcp: [`Server`] collects
    //! the tools, resources and prompts, [`Server::build`] checks them, and
    //! [`Server::serve_stdio`] or [`Server::serve_http`] (Streamable HTTP, with
    //! its [`HttpOptions`]) serve them; [`ServeArgs`] is the command line of a
    //! server binary. Around every call: [`CallHook`]s, list [`Changes`], tasks
    //! ([`TaskStore`]), resumable response streams ([`EventStore`]), a store
    //! replicas share (`RedisStore`, feature `redis`), rate limits (feature
    //! `rate-limit`), the [`Landing`] page, and work that runs only while it
    //! serves ([`Server::on_serve`], [`Server::on_shutdown`]).

    pub use mcp_contract_runtime::define::{ConnectTab, DEFAULT_ACCENT, EmbeddedSkills, Landing, LandingLink};
    #[cfg(feature = "rate-limit")]
    pub use mcp_contract_runtime::server::RateLimit;
    pub use mcp_contract_runtime::server::{
        CallHook, CallInfo, CallOutcome, Changes, DEFAULT_EVENT_MAX_AGE, DEFAULT_MAX_EVENTS_PER_STREAM,
        DEFAULT_MAX_STREAMS, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION, DEFAULT_MAX_TASKS, DEFAULT_POLL_INTERVAL,
        DEFAULT_SEND_TIMEOUT, DEFAULT_SSE_RETRY, DEFAULT_TASK_TTL, DEFAULT_TEARDOWN_TIMEOUT, ERRORS_META_KEY, EventId,
        EventStore, EventStoreError, EventStream, HttpOptions, LintFormat, MemoryEventStore, MemoryTaskStore,
        MissingState, PrimitiveKind, ServeArgs, ServeCommand, Server, ServerError, ServerSseMessage, Serving,
        StdioOptions, StreamId, TaskStore, ToolServer,
    };
    #[cfg(feature = "redis")]
    pub use mcp_contract_runtime::server::{
        DEFAULT_EVENT_AGE, DEFAULT_EVENTS_PER_STREAM, DEFAULT_REDIS_TIMEOUT, DEFAULT_SESSION_IDLE, REDIS_CA_FILE_ENV,
        REDIS_CLIENT_CERT_FILE_ENV, REDIS_CLIENT_KEY_FILE_ENV, REDIS_SENTINEL_PASSWORD_ENV, REDIS_URL_ENV, RedisStore,
        RedisUrlError,
    };
}

pub mod auth {
    //! Who is calling, and what they may do: the caller's [`AuthInfo`] on every
    //! context, the scopes a tool declares with `#[mcp_tool(auth("scope"))]`,
    //! [`check_scopes`] for scopes computed at run time, and the bearer-token
    //! configuration of Streamable HTTP ([`AuthConfig`], from code or from the
    //! environment variables of [`env`](mod@env)). Verifying tokens needs the
    //! `auth` feature; what a handler reads of its caller is always there.

    pub use mcp_contract_runtime::auth::env;
    pub use mcp_contract_runtime::auth::{
        AuthConfig, AuthConfigError, AuthInfo, AuthMode, ClaimsError, MAX_TENANT_LEN, MIN_SECRET_LEN, ScopePolicy,
        Secret, check_scopes, validate_tenant,
    };
    #[cfg(feature = "auth")]
    pub use mcp_contract_runtime::auth::{TokenError, TokenVerifier};
}

pub mod rules {
    //! Every lint rule of the attribute macros and of the definition linter, by its
    //! id: severity, where it is checked, a bad example and the fix. Each rule's
    //! heading is an anchor named after its id, as in
    //! `rules/index.html#error-contract-reason-unique`, which the diagnostics link to.
    //!
    //! The module also holds the rules themselves ([`Rule`], [`ALL`], one constant
    //! per id) and the value checks ([`check`]) that the macros and the linter share.
    #![doc = include_str!("../docs/lints.md")]

    pub use mcp_contract_runtime::rules::*;
}

pub mod lint {
    //! The definition linter: the rules only a built value can show, run over a
    //! server's definitions by [`validate`], by `Server::build`, by the `lint` mode
    //! of `Server::run_cli` and by [`assert_lint_clean`] in a test.

    pub use mcp_contract_runtime::lint::*;
    #[cfg(feature = "rmcp")]
    pub use mcp_contract_runtime::server::assert_lint_clean;
}

#[cfg(feature = "testing")]
pub mod testing {
    //! Testing a server: an in-process [`Client`] that runs the whole stack of
    //! a built [`Server`](crate::Server) over an in-memory pipe, for
    //! `#[tokio::test]`s that call tools, read resources and get prompts as a
    //! client does; and contract fuzzing, [`check_contract`], which calls a tool
    //! with inputs generated from its input schema and reports each answer that
    //! breaks its contract; and [`assert_contract_pinned!`], which pins what a
    //! client receives in a snapshot and fails on a breaking change ([`compat`])
    //! that the server's version does not announce. Add the feature to the
    //! dev-dependency: `mcp-contract = { version = "..", features = ["testing"] }`.
    //!
    //! A handler's unit test, with its tool's `test_ctx()`, needs no feature:
    //! see [`Captured`](crate::context::Captured).

    pub use mcp_contract_runtime::assert_contract_pinned;
    #[doc(hidden)]
    pub use mcp_contract_runtime::testing::{__insta, PinPlace};
    pub use mcp_contract_runtime::testing::{
        Cases, Client, ClientBuilder, ContractReport, DEFAULT_CALL_TIMEOUT, Finding, FindingKind, Notification,
        PINNED_REQUEST_ID, Pin, ServerRequest, assert_contract, check_contract, check_prompt_contract,
        check_resource_contract, check_server_contract, compat,
    };
}

#[cfg(feature = "logging")]
pub mod logging {
    //! The crate's `tracing` output on stderr, filtered by `RUST_LOG`:
    //! [`init`] once at startup, [`flush`] before exiting.

    pub use mcp_contract_runtime::logging::*;
}

#[cfg(feature = "otel")]
pub mod telemetry {
    //! OpenTelemetry over OTLP: the calls' spans (named and attributed as the
    //! semantic conventions for MCP, semconv 1.42.0, say), metrics and,
    //! opt-in, log lines, configured by the `OTEL_*` variables; the trace
    //! context carried in through `_meta` (SEP-414) or the HTTP header, and
    //! out to the client and to a handler's own upstream requests.
    //!
    //! ```no_run
    //! use mcp_contract::server::Server;
    //! use mcp_contract::telemetry::Telemetry;
    //!
    //! #[tokio::main]
    //! async fn main() -> Result<(), Box<dyn std::error::Error>> {
    //!     // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318, OTEL_SERVICE_NAME, ...
    //!     let telemetry = Telemetry::new("museum").init()?;
    //!     Server::new("museum", "1.0.0").telemetry(&telemetry).serve_stdio().await?;
    //!     Ok(())
    //! }
    //! ```

    pub use mcp_contract_runtime::telemetry::*;
}

/// What the expansions of `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`
/// name, as `::mcp_contract::__private::..`; not a public API.
#[doc(hidden)]
pub use mcp_contract_runtime::__private;

/// The repository's own agent skills (`skills/`, shipped in the package beside
/// the source): their code blocks compile and run as doctests, so a skill
/// never teaches code that no longer builds.
#[cfg(doctest)]
mod skills {
    #[doc = include_str!("../skills/error-contracts/SKILL.md")]
    struct ErrorContracts;
    #[doc = include_str!("../skills/lint-diagnostics/SKILL.md")]
    struct LintDiagnostics;
    #[doc = include_str!("../skills/testing-servers/SKILL.md")]
    struct TestingServers;
    #[doc = include_str!("../skills/deploying-servers/SKILL.md")]
    struct DeployingServers;
}
