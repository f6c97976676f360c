//! Typed, checked and documented failures for [Model Context
//! Protocol](https://modelcontextprotocol.io) servers in Rust.
//!
//! Each tool declares its failure modes beside its handler. The compiler holds
//! the handler to them, and every client sees them: a stable `data.reason`, its
//! code, a recovery hint for the model, in `tools/list` and in every error.
//!
//! ```
//! use mcp_contract::prelude::*;
//!
//! #[derive(Deserialize, JsonSchema)]
//! pub struct GetObjectInput {
//!     /// Object ID in the collection, e.g. 436535.
//!     pub object_id: u32,
//! }
//!
//! /// Fetch the title of one object of the collection.
//! #[mcp_tool(
//!     annotations(read_only),
//!     errors(not_in_collection(code = NotFound, when = "No object has this ID",
//!         recovery = "Search with search_objects first to find valid object IDs.")),
//! )]
//! async fn get_object(input: GetObjectInput, ctx: Ctx) -> Result<String, McpError> {
//!     match input.object_id {
//!         436535 => Ok("Wheat Field with Cypresses".to_owned()),
//!         id => Err(ctx.fail(not_in_collection, format!("No object {id} in the collection."))),
//!     }
//! }
//!
//! // A typo in `ctx.fail(..)`'s reason is a compile error; the contract is published.
//! assert_eq!(GetObject.definition().errors[0].reason, "not_in_collection");
//! let server = Server::new("museum", "1.0.0").tool(GetObject);
//! # server.build().unwrap();
//! // `server.serve_stdio().await`, or `.run_cli().await` for the usual command line.
//! ```
//!
//! # Where to read on
//!
//! - **The guide**, task by task: your first server, error contracts, schemas,
//!   diagnostics, state, resources and prompts, asking the client, tasks,
//!   testing, HTTP, auth, replicas, operations, the linter. It is in the
//!   repository's [`guide/`](https://github.com/mcp-contract/mcp-contract/tree/main/guide/src)
//!   (`mdbook serve guide` reads it locally), and every example in it compiles.
//! - **The rules**: every diagnostic's rule id, with a bad example and the fix,
//!   in [`rules`].
//! - **The modules**, below, each opening with what it is for and an example.
//!
//! | module | what it is for |
//! |---|---|
//! | [`prelude`] | what a tool module needs: `use mcp_contract::prelude::*;` |
//! | [`errors`] | [`McpError`], the codes, the contract, `classify`, upstream HTTP failures, `try_catch`, retry, `render` |
//! | [`context`] | what a handler gets: [`Ctx`], state, logs and progress, elicitation, sampling, roots |
//! | [`tools`], [`resources`], [`prompts`] | the traits the macros implement, their definitions and outputs |
//! | [`content`], [`completion`], [`apps`] | content blocks, argument completion, MCP Apps |
//! | [`schema`] | portable input and output schemas |
//! | `server` | (feature `rmcp`) [`Server`], its transports and options, the command line, changes, tasks, stores |
//! | [`auth`] | the caller and bearer-token configuration |
//! | [`lint`], [`rules`] | the definition linter, and every rule by id |
//! | `testing`, `logging`, `telemetry` | (features `testing`, `logging`, `otel`) the in-process client and contract fuzzing; stderr logging; OpenTelemetry |
//!
//! # Features
//!
//! `rmcp`, `logging` and `auth` are on by default. `testing` (for
//! dev-dependencies), `redis`, `metrics`, `otel`, `rate-limit`, `pacer`,
//! `reqwest` and `anyhow` are opt-in; the guide's first chapter says what each
//! adds.
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
    //! (`Deserialize`, `Serialize`, `JsonSchema`) and an elicitation form's
    //! (`ElicitForm`, `FormField`).
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! /// Say hello.
    //! #[mcp_tool(annotations(read_only))]
    //! fn hello() -> Result<String, McpError> {
    //!     Ok("Hello from the museum.".to_owned())
    //! }
    //! # Server::new("museum", "1.0.0").tool(Hello).build().unwrap();
    //! ```

    pub use mcp_contract_macros::{ElicitForm, FormField, mcp_prompt, mcp_resource, mcp_tool};
    pub use mcp_contract_runtime::auth::{AuthInfo, check_scopes};
    pub use mcp_contract_runtime::call::{ClientRequestError, ElicitForm, Elicitation, FormField, Sampling};
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
    //!
    //! ```
    //! use mcp_contract::errors::{McpError, JsonRpcErrorCode, render};
    //!
    //! // Any error, classified: typed kinds along the source() chain first, then text.
    //! let io = std::io::Error::new(std::io::ErrorKind::TimedOut, "upstream read timed out");
    //! assert_eq!(McpError::from_error(io).code(), JsonRpcErrorCode::Timeout);
    //!
    //! // A factory, and both surfaces of the tool error result a client receives.
    //! let err = McpError::not_found("No object 42.").with_recovery_hint("Search first to find valid IDs.");
    //! let result = render::tool_error_result(&err);
    //! assert_eq!(result["content"][0]["text"], "Error: No object 42.\n\nRecovery: Search first to find valid IDs.");
    //! assert_eq!(result["structuredContent"]["error"]["code"], -32001);
    //! ```

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
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! /// Count to three, reporting progress.
    //! #[mcp_tool]
    //! async fn count(ctx: Ctx) -> Result<String, McpError> {
    //!     for step in 1..=3 {
    //!         ctx.progress(f64::from(step), Some(3.0), None).await;
    //!     }
    //!     ctx.log(LogLevel::Info, "counted").await;
    //!     Ok("3".to_owned())
    //! }
    //!
    //! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    //! let ctx = Count::test_ctx();
    //! assert_eq!(count(ctx.clone()).await.unwrap(), "3");
    //! let captured = ctx.captured().expect("a test context records");
    //! assert_eq!(captured.progress().len(), 3);
    //! # });
    //! ```

    /// The derives of an elicitation form's struct and its enums.
    pub use mcp_contract_macros::{ElicitForm, FormField};
    pub use mcp_contract_runtime::call::{
        Capability, Captured, ClientCapabilities, ClientChannel, ClientRequestError, ClientRequestRecord, Context, Ctx,
        DEFAULT_CLIENT_REQUEST_TIMEOUT, ElicitForm, Elicitation, Input, InputRequest, InputRound, LogLevel, LogRecord,
        ModelPreferences, ProgressToken, ProgressUpdate, Root, RoundEnd, SampledMessage, Sampling, SharedState, State,
        StateType, form_schema,
    };
    pub use mcp_contract_runtime::call::{FormChoice, FormField};
}

pub mod tools {
    //! Tools: the [`Tool`] trait `#[mcp_tool]` implements, the
    //! [`ToolDefinition`] `tools/list` publishes with its [`ToolAnnotations`], what
    //! a handler returns ([`ToolOutput`]), tasks ([`TaskSupport`]), and the
    //! enrichment trailer a tool adds to its structured output ([`Enrichment`],
    //! [`Truncation`]).
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! /// Count the objects of the collection.
    //! #[mcp_tool(annotations(read_only))]
    //! fn count_objects() -> Result<String, McpError> {
    //!     Ok("120".to_owned())
    //! }
    //!
    //! let definition = CountObjects.definition();
    //! assert_eq!(definition.name, "count_objects");
    //! assert_eq!(definition.annotations.read_only_hint, Some(true));
    //! ```

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
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //! use mcp_contract::resources::UriTemplate;
    //!
    //! /// What the museum is.
    //! #[mcp_resource(uri = "museum://about", mime_type = "text/plain")]
    //! fn about() -> Result<ReadResourceResult, McpError> {
    //!     Ok(ReadResourceResult::text("A museum of 120 objects."))
    //! }
    //! # Server::new("museum", "1.0.0").resource(About).build().unwrap();
    //!
    //! let template = UriTemplate::parse("museum://objects/{object_id}").unwrap();
    //! assert!(template.match_uri("museum://objects/436535").is_some());
    //! ```

    pub use mcp_contract_runtime::define::{
        DynResource, ReadResourceResult, Resource, ResourceContent, ResourceDefinition, TextOrBlob,
    };
    pub use mcp_contract_runtime::uri_template::UriTemplate;
}

pub mod prompts {
    //! Prompts: the [`Prompt`] trait `#[mcp_prompt]` implements, the
    //! [`PromptDefinition`] `prompts/list` publishes with its arguments, and the
    //! [`PromptMessage`]s a prompt returns.
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! #[derive(Deserialize, JsonSchema)]
    //! struct TourArgs {
    //!     /// The department to tour, e.g. "Asian Art".
    //!     department: String,
    //! }
    //!
    //! /// A tour of one department.
    //! #[mcp_prompt]
    //! fn tour(args: TourArgs) -> Result<Vec<PromptMessage>, McpError> {
    //!     Ok(vec![PromptMessage::user(format!("Give me a tour of {}.", args.department))])
    //! }
    //! # Server::new("museum", "1.0.0").prompt(Tour).build().unwrap();
    //! ```

    pub use mcp_contract_runtime::define::{
        DynPrompt, Prompt, PromptArgument, PromptContent, PromptDefinition, PromptMessage, Role, prompt_arguments,
    };
}

pub mod completion {
    //! Argument completion (`completion/complete`) of resource templates and
    //! prompts: the [`CompletionRequest`] a `complete` handler gets and the
    //! [`Completion`] it returns.
    //!
    //! ```
    //! use mcp_contract::completion::Completion;
    //!
    //! let completion = Completion::matching(["Asian Art", "Arms and Armor", "Egyptian Art"], "a");
    //! assert_eq!(completion.values, ["Asian Art", "Arms and Armor"]);
    //! ```

    pub use mcp_contract_runtime::define::{Completion, CompletionRequest};
}

pub mod content {
    //! Content blocks: what the model reads of a tool's result and of a prompt's
    //! messages (MCP `ContentBlock`): [`Content`], with [`ResourceLink`]s and
    //! [`EmbeddedResource`]s.
    //!
    //! ```
    //! use mcp_contract::content::Content;
    //!
    //! let png: Vec<u8> = vec![0x89, b'P', b'N', b'G'];
    //! let blocks = vec![Content::text("The object's photograph:"), Content::image(&png, "image/png")];
    //! assert_eq!(blocks[1], Content::image_base64("iVBORw==", "image/png"));
    //! ```

    pub use mcp_contract_runtime::define::{Binary, Content, EmbeddedResource, IntoContents, ResourceLink};
}

pub mod apps {
    //! MCP Apps (the extension `io.modelcontextprotocol/ui`): a tool paired with
    //! an interactive HTML resource at a `ui://` URI, which a host renders in a
    //! sandboxed frame ([`AppUi`], [`AppPermission`], [`APP_MIME_TYPE`]).
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! /// Show an object in the viewer.
    //! #[mcp_tool(app = "ui://museum/viewer")]
    //! fn show() -> Result<String, McpError> {
    //!     Ok("Object 7".to_owned())
    //! }
    //!
    //! /// The viewer's page.
    //! #[mcp_resource(uri = "ui://museum/viewer", ui(connect_domains = ["https://collection.example"]))]
    //! fn viewer() -> Result<ReadResourceResult, McpError> {
    //!     Ok(ReadResourceResult::text("<!doctype html><title>Viewer</title>"))
    //! }
    //!
    //! assert_eq!(Resource::definition(&Viewer).mime_type, Some(mcp_contract::apps::APP_MIME_TYPE));
    //! # mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(Show).resource(Viewer));
    //! ```

    pub use mcp_contract_runtime::define::{APP_MIME_TYPE, AppPermission, AppUi, RESOURCE_URI_META_KEY, UI_EXTENSION};
}

pub mod schema {
    //! JSON Schemas of tools' inputs and outputs, portable across LLM vendors:
    //! [`input_schema`], [`output_schema`], [`portable`], the problems a schema
    //! has for some vendor ([`portability_problems`]), and the error envelope.
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! #[derive(Deserialize, JsonSchema)]
    //! struct Search {
    //!     /// Words to look for.
    //!     query: String,
    //!     /// At most this many results.
    //!     limit: Option<u32>,
    //! }
    //!
    //! let schema = mcp_contract::schema::input_schema::<Search>();
    //! assert_eq!(schema["required"], serde_json::json!(["query"]));
    //! assert!(schema.get("$schema").is_none()); // some vendors reject it
    //! ```

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
    //!
    //! ```no_run
    //! use mcp_contract::prelude::*;
    //! use mcp_contract::server::HttpOptions;
    //!
    //! /// Say hello.
    //! #[mcp_tool(annotations(read_only))]
    //! fn hello() -> Result<String, McpError> {
    //!     Ok("Hello.".to_owned())
    //! }
    //!
    //! #[tokio::main]
    //! async fn main() -> Result<(), mcp_contract::server::ServerError> {
    //!     let server = Server::new("museum", "1.0.0").tool(Hello);
    //!     // Streamable HTTP at http://127.0.0.1:8080/mcp; `serve_stdio()` for stdio.
    //!     server.serve_http_with("127.0.0.1:8080", HttpOptions::default().stateless(true)).await
    //! }
    //! ```

    pub use mcp_contract_runtime::define::{ConnectTab, DEFAULT_ACCENT, EmbeddedSkills, Landing, LandingLink};
    #[cfg(feature = "rate-limit")]
    pub use mcp_contract_runtime::server::RateLimit;
    pub use mcp_contract_runtime::server::{
        CallHook, CallInfo, CallOutcome, Changes, DEFAULT_EVENT_MAX_AGE, DEFAULT_MAX_EVENT_BYTES,
        DEFAULT_MAX_EVENTS_PER_STREAM, DEFAULT_MAX_STREAMS, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION, DEFAULT_MAX_TASKS,
        DEFAULT_POLL_INTERVAL, DEFAULT_SEND_TIMEOUT, DEFAULT_SSE_RETRY, DEFAULT_TASK_TTL, DEFAULT_TEARDOWN_TIMEOUT,
        ERRORS_META_KEY, EventId, EventStore, EventStoreError, EventStream, HttpOptions, LintFormat, MemoryEventStore,
        MemoryTaskStore, MissingState, PrimitiveKind, ServeArgs, ServeCommand, Server, ServerError, ServerSseMessage,
        Serving, StdioOptions, StreamId, TaskStore, ToolServer,
    };
    #[cfg(feature = "redis")]
    pub use mcp_contract_runtime::server::{
        DEFAULT_EVENT_AGE, DEFAULT_EVENTS_PER_STREAM, DEFAULT_REDIS_TIMEOUT, DEFAULT_SESSION_IDLE, REDIS_CA_FILE_ENV,
        REDIS_CLIENT_CERT_FILE_ENV, REDIS_CLIENT_KEY_FILE_ENV, REDIS_SENTINEL_PASSWORD_ENV, REDIS_URL_ENV,
        REDIS_WRITE_BEHIND_ENV, RedisStore, RedisUrlError,
    };
}

pub mod auth {
    //! Who is calling, and what they may do: the caller's [`AuthInfo`] on every
    //! context, the scopes a tool declares with `#[mcp_tool(auth("scope"))]`,
    //! [`check_scopes`] for scopes computed at run time, and the bearer-token
    //! configuration of Streamable HTTP ([`AuthConfig`], from code or from the
    //! environment variables of [`env`](mod@env)). Verifying tokens needs the
    //! `auth` feature; what a handler reads of its caller is always there.
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! /// Delete a note; needs the `notes:write` scope, which the server checks before the call.
    //! #[mcp_tool(auth("notes:write"), annotations(destructive))]
    //! fn delete_note(ctx: Ctx) -> Result<String, McpError> {
    //!     let caller = ctx.auth().map_or("nobody", |auth| auth.subject.as_deref().unwrap_or("a client"));
    //!     Ok(format!("Deleted for {caller}."))
    //! }
    //! # assert_eq!(DeleteNote.definition().auth_scopes, ["notes:write"]);
    //! ```

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
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //!
    //! /// Say hello.
    //! #[mcp_tool(annotations(read_only))]
    //! fn hello() -> Result<String, McpError> {
    //!     Ok("Hello.".to_owned())
    //! }
    //!
    //! // In a test: every rule of the linter, over the server as built.
    //! mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(Hello));
    //! ```

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
    //!
    //! ```
    //! use mcp_contract::prelude::*;
    //! use mcp_contract::testing::{Cases, Client, check_contract};
    //!
    //! /// Say hello to someone.
    //! #[mcp_tool(annotations(read_only))]
    //! fn greet(input: GreetInput) -> Result<String, McpError> {
    //!     Ok(format!("Hello, {}!", input.name))
    //! }
    //!
    //! #[derive(Deserialize, JsonSchema)]
    //! struct GreetInput {
    //!     /// Who to greet.
    //!     name: String,
    //! }
    //!
    //! # #[tokio::main(flavor = "current_thread")] async fn main() {
    //! let client = Client::connect(Server::new("museum", "1.0.0").tool(Greet)).await.unwrap();
    //! assert_eq!(client.call(Greet, serde_json::json!({"name": "Ada"})).await.unwrap(), "Hello, Ada!");
    //!
    //! // Inputs generated from the input schema; every answer must keep the contract.
    //! check_contract(&client, Greet, Cases::new(50)).await.unwrap().assert_passed();
    //! # }
    //! ```

    pub use mcp_contract_runtime::assert_contract_pinned;
    #[doc(hidden)]
    pub use mcp_contract_runtime::testing::{__insta, PinPlace};
    pub use mcp_contract_runtime::testing::{
        Cases, Client, ClientBuilder, ContractReport, DEFAULT_CALL_TIMEOUT, Finding, FindingKind, Notification,
        PINNED_REQUEST_ID, PendingCall, Pin, ServerRequest, assert_contract, check_contract, check_prompt_contract,
        check_resource_contract, check_server_contract, compat,
    };
}

#[cfg(feature = "logging")]
pub mod logging {
    //! The crate's `tracing` output on stderr, filtered by `RUST_LOG`:
    //! [`init`] once at startup, [`flush`] before exiting.
    //!
    //! ```no_run
    //! #[tokio::main]
    //! async fn main() {
    //!     mcp_contract::logging::init(); // RUST_LOG=debug for more; stderr only, never stdout
    //!     // build and serve the server
    //! }
    //! ```

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

/// The README and the guide's chapters (`guide/src/`, an mdBook): their Rust
/// blocks compile and run as doctests, so neither can drift from the API.
/// `tests/readme.rs` checks that every chapter of `SUMMARY.md` is listed here.
//
// Rustdoc compiles these doctests as one crate, and as one crate each if that
// crate fails to build (155 s against 19 on 2 cores). A block whose code
// depends on the path of its file, as `embed_skills!`'s does, is marked
// `rust,standalone_crate`: merged, its file would be rustdoc's bundle.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../guide/src/introduction.md")]
    struct Introduction;
    #[doc = include_str!("../guide/src/first-server.md")]
    struct FirstServer;
    #[doc = include_str!("../guide/src/error-contracts.md")]
    struct ErrorContracts;
    #[doc = include_str!("../guide/src/schemas.md")]
    struct Schemas;
    #[doc = include_str!("../guide/src/diagnostics.md")]
    struct Diagnostics;
    #[doc = include_str!("../guide/src/state.md")]
    struct State;
    #[doc = include_str!("../guide/src/resources-and-prompts.md")]
    struct ResourcesAndPrompts;
    #[doc = include_str!("../guide/src/asking-the-client.md")]
    struct AskingTheClient;
    #[doc = include_str!("../guide/src/tasks.md")]
    struct Tasks;
    #[doc = include_str!("../guide/src/testing.md")]
    struct Testing;
    #[doc = include_str!("../guide/src/http.md")]
    struct Http;
    #[doc = include_str!("../guide/src/auth.md")]
    struct Auth;
    #[doc = include_str!("../guide/src/replicas.md")]
    struct Replicas;
    #[doc = include_str!("../guide/src/operations.md")]
    struct Operations;
    #[doc = include_str!("../guide/src/linter.md")]
    struct Linter;
    #[doc = include_str!("../guide/src/revision-2026-07-28.md")]
    struct Revision20260728;
    #[doc = include_str!("../guide/src/performance.md")]
    struct Performance;
    #[doc = include_str!("../guide/src/compared.md")]
    struct Compared;
    #[doc = include_str!("../guide/src/architecture.md")]
    struct Architecture;
}
