//! [`Server`], the builder: a server's identity, instructions, tools,
//! resources, prompts, state and settings; [`Server::build`] checks them into a
//! [`ToolServer`], and every way to serve one starts here (`serve_stdio`,
//! `serve_http`, `run_cli`).

mod run;

use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

use foldhash::HashMap;
use rmcp::model::Implementation;

use crate::auth::AuthConfig;
use crate::call::{StateMap, StateType};
use crate::define::{DynPrompt, DynResource, DynTool, Landing, PrimitiveKind};
use crate::lint::{self, LintInput, LintOptions, LintReport};
use crate::server::dispatch;
use crate::server::dispatch::changes::Changes;
use crate::server::dispatch::handler::ToolServer;
use crate::server::dispatch::hook::CallHook;
use crate::server::dispatch::lifecycle::Serving;
use crate::server::error::MissingState;
#[cfg(feature = "redis")]
use crate::server::error::RedisUrlError;
use crate::server::error::ServerError;
use crate::server::store;
#[cfg(feature = "redis")]
use crate::server::store::redis::RedisStore;
use crate::server::store::tasks::TaskStore;
use crate::server::store::tasks::{DEFAULT_POLL_INTERVAL, DEFAULT_TASK_TTL, MemoryTaskStore};
use crate::server::transport::landing::Published;

/// A server under construction: its identity, instructions, tools and shared state.
///
/// ```
/// use mcp_contract::server::Server;
/// let server = Server::new("museum", "1.0.0").title("Museum collection").build().unwrap();
/// assert_eq!(server.config().server_info.name, "museum");
/// ```
#[must_use = "a server does nothing until it is served"]
pub struct Server {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<Arc<dyn DynTool>>,
    auth: Option<AuthConfig>,
    /// How [`Server::build`] lints the tools; `None` when it does not.
    lint: Option<LintOptions>,
    states: StateMap,
    /// State built when the server is served ([`Server::state_with`]), in registration order.
    pending_states: Vec<PendingState>,
    catalog: dispatch::catalog::Registered,
    client_request_timeout: std::time::Duration,
    changes: Option<Changes>,
    task_store: Option<Arc<dyn TaskStore>>,
    task_ttl: std::time::Duration,
    task_poll_interval: std::time::Duration,
    #[cfg(feature = "redis")]
    redis: Option<Result<RedisStore, RedisUrlError>>,
    landing: Option<Landing>,
    repository: Option<String>,
    mask_error_details: bool,
    repair_arguments: bool,
    hooks: Vec<Arc<dyn CallHook>>,
    request_state_key: Option<Vec<u8>>,
    #[cfg(feature = "pacer")]
    pacers: Vec<crate::error::pacer::Pacer>,
    on_serve: Vec<dispatch::lifecycle::StartHook>,
    on_shutdown: Vec<dispatch::lifecycle::StopHook>,
    teardown_timeout: std::time::Duration,
    skills: Option<dispatch::skills::SkillsSource>,
    skills_ttl: std::time::Duration,
}

impl Server {
    /// A server named `name` at `version`, as `initialize` reports it.
    ///
    /// [`server_from_crate!`](crate::server_from_crate) fills both from your crate's manifest.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            lint: Some(LintOptions::default()),
            states: StateMap::default(),
            pending_states: Vec::new(),
            auth: None,
            catalog: dispatch::catalog::Registered::default(),
            client_request_timeout: crate::call::DEFAULT_CLIENT_REQUEST_TIMEOUT,
            changes: None,
            task_store: None,
            task_ttl: DEFAULT_TASK_TTL,
            task_poll_interval: DEFAULT_POLL_INTERVAL,
            #[cfg(feature = "redis")]
            redis: None,
            landing: None,
            repository: None,
            mask_error_details: true,
            repair_arguments: true,
            hooks: Vec::new(),
            request_state_key: None,
            #[cfg(feature = "pacer")]
            pacers: Vec::new(),
            on_serve: Vec::new(),
            on_shutdown: Vec::new(),
            teardown_timeout: dispatch::lifecycle::DEFAULT_TEARDOWN_TIMEOUT,
            skills: None,
            skills_ttl: dispatch::skills::DEFAULT_SKILLS_TTL,
        }
    }

    /// Run `hook` when the server starts serving (over stdio or Streamable
    /// HTTP, after the state of [`state_with`](Self::state_with) is built and
    /// the address bound), never for `lint`, `server-json`, `--help`,
    /// [`build`](Self::build) or the testing client: the place for work that
    /// only a serving server does, such as announcing itself to a registry in
    /// a background task that ends on [`Serving::stopping`]. Hooks run in
    /// registration order; one that fails stops the server with
    /// [`ServerError::OnServe`].
    ///
    /// ```
    /// use mcp_contract::server::{Serving, Server};
    ///
    /// let server = Server::new("museum", "1.0.0")
    ///     .on_serve(|serving: Serving| async move {
    ///         tokio::spawn(async move {
    ///             // Announce `serving.addr` every minute until shutdown begins.
    ///             serving.stopping.cancelled().await;
    ///         });
    ///         Ok::<_, std::io::Error>(())
    ///     })
    ///     .on_shutdown(|| async { /* close what on_serve opened */ });
    /// # server.build().unwrap();
    /// ```
    ///
    /// [`Serving::stopping`]: crate::server::Serving::stopping
    pub fn on_serve<F, Fut, E>(mut self, hook: F) -> Self
    where
        F: FnOnce(Serving) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<Box<dyn StdError + Send + Sync>> + 'static,
    {
        self.on_serve.push(dispatch::lifecycle::Lifecycle::boxed_start(hook));
        self
    }

    /// Run `hook` once serving has stopped: after shutdown began (a signal,
    /// stdin closed, the shutdown token) and the calls in flight had their
    /// grace period. The last registered runs first, as drops do, and all of
    /// them together within [`teardown_timeout`](Self::teardown_timeout), after
    /// which the rest are dropped with a warning: a stuck hook never keeps the
    /// process from exiting. Not run when the server never served.
    pub fn on_shutdown<F, Fut>(mut self, hook: F) -> Self
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_shutdown.push(dispatch::lifecycle::Lifecycle::boxed_stop(hook));
        self
    }

    /// Flush `telemetry`'s export when serving stops (feature `otel`): an
    /// [`on_shutdown`](Self::on_shutdown) hook that sends what is queued
    /// within the [`Telemetry::shutdown_timeout`], on a blocking thread. Give
    /// the [`teardown_timeout`](Self::teardown_timeout) room for it.
    ///
    /// [`Telemetry::shutdown_timeout`]: crate::telemetry::Telemetry::shutdown_timeout
    #[cfg(feature = "otel")]
    pub fn telemetry(self, telemetry: &crate::telemetry::TelemetryHandle) -> Self {
        let telemetry = telemetry.clone();
        self.on_shutdown(move || async move {
            let bound = telemetry.shutdown_timeout();
            let flushed = tokio::task::spawn_blocking(move || telemetry.shutdown());
            // The SDK bounds its own waits; this bounds ours, whatever it does.
            match tokio::time::timeout(bound + std::time::Duration::from_millis(500), flushed).await {
                Ok(Ok(true)) => {}
                _ => tracing::warn!("shutting down: the OpenTelemetry export was not flushed within its timeout"),
            }
        })
    }

    /// How long the [`on_shutdown`](Self::on_shutdown) hooks may take
    /// together ([`DEFAULT_TEARDOWN_TIMEOUT`](crate::server::DEFAULT_TEARDOWN_TIMEOUT), 10 s, by default).
    pub fn teardown_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.teardown_timeout = timeout;
        self
    }

    /// Export `pacer`'s figures with the server's metrics (`mcp_pacer_*`,
    /// labelled by its name, when [`HttpOptions::metrics_path`] is set;
    /// feature `metrics`). The pacer itself is shared with the handlers that
    /// use it as any state is, for example in a client type given to
    /// [`state`](Self::state).
    ///
    /// ```
    /// use mcp_contract::errors::{Pacer, PacerOptions};
    /// use mcp_contract::server::Server;
    ///
    /// let catalogue = Pacer::new("catalogue", PacerOptions::per_second(5));
    /// let server = Server::new("museum", "1.0.0").pacer(catalogue.clone()).state(catalogue);
    /// # server.build().unwrap();
    /// ```
    ///
    /// [`HttpOptions::metrics_path`]: crate::server::HttpOptions::metrics_path
    #[cfg(feature = "pacer")]
    pub fn pacer(mut self, pacer: crate::error::pacer::Pacer) -> Self {
        self.pacers.push(pacer);
        self
    }

    /// Run `hook` before and after every tool call, resource read and prompt,
    /// after the hooks registered before it; see [`CallHook`].
    pub fn hook(mut self, hook: impl CallHook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Whether a failure of the server's side that nobody wrote for a client
    /// reaches it masked (on by default): an InternalError, DatabaseError,
    /// ConfigurationError, SerializationError or other error of the server's
    /// category, classified from a foreign error by `?` or
    /// [`McpError::from_error`](crate::error::McpError::from_error) and carrying no
    /// declared reason, is answered with a generic message naming the
    /// request's id (`data.requestId`, which every error carries), while the
    /// call's log line keeps the original message under the same `request_id`. Declared reasons (`ctx.fail(..)`) and
    /// McpErrors built with a message of their own go out as written.
    /// `false` sends every message as it is, for development.
    ///
    /// ```
    /// use mcp_contract::server::Server;
    /// let server = Server::new("museum", "1.0.0").mask_error_details(false);
    /// # drop(server);
    /// ```
    pub fn mask_error_details(mut self, mask: bool) -> Self {
        self.mask_error_details = mask;
        self
    }

    /// Whether tool arguments an agent got slightly wrong are repaired before
    /// they are decoded (on by default): `"15"` where the input schema says
    /// integer, a number where it says string, a lone value where it says
    /// array, a stringified JSON object or array, `null` for an optional
    /// field, a key in the wrong case or under a declared alias
    /// (`input_aliases(..)`), a client's own key (`_trace`) a closed schema
    /// does not take (dropped).
    /// Each repair is driven by the tool's advertised input schema, logged on
    /// the call's line (`repairs`) and counted (`mcp_server_argument_repairs_total`).
    /// `false` refuses every call whose arguments do not fit as sent; a tool
    /// turns it off for itself with `#[mcp_tool(repair_arguments = false)]`.
    ///
    /// ```
    /// use mcp_contract::server::Server;
    /// let server = Server::new("museum", "1.0.0").repair_arguments(false);
    /// # drop(server);
    /// ```
    pub fn repair_arguments(mut self, repair: bool) -> Self {
        self.repair_arguments = repair;
        self
    }

    /// Sign the `requestState` of multi-round-trip requests (the stateless
    /// revision 2026-07-28, SEP-2322) with `key`, at least 32 bytes of secret.
    ///
    /// Without it the key is drawn at random when the process starts: a state
    /// verifies only on the process that gave it, and none outlives a restart.
    /// Replicas behind one load balancer need one shared key, or a retry
    /// that reaches another replica is refused as tampered.
    ///
    /// ```
    /// use mcp_contract::server::Server;
    /// let key = std::env::var("REQUEST_STATE_KEY").unwrap_or_else(|_| "a secret of at least 32 bytes, shared".into());
    /// let server = Server::new("museum", "1.0.0").request_state_key(key).build().unwrap();
    /// # let _ = server;
    /// ```
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.request_state_key = Some(key.into());
        self
    }

    /// How long a request a handler sends to the client (`ctx.elicit(..)`,
    /// `ctx.sample(..)`) waits for the answer before the handler gets
    /// [`ClientRequestError::Timeout`](crate::call::ClientRequestError::Timeout);
    /// [`DEFAULT_CLIENT_REQUEST_TIMEOUT`](crate::call::DEFAULT_CLIENT_REQUEST_TIMEOUT) unless set.
    pub fn client_request_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// A human-readable title for clients' UIs.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info = self.info.with_title(title);
        self
    }

    /// What the server does, in a sentence: `initialize` sends it, the landing
    /// page shows it under the name when it has no tagline, and `server-json`
    /// writes it as the manifest's description. An empty text sets nothing
    /// (what `server_from_crate!` passes for a crate without a description).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        let description = description.into();
        if !description.trim().is_empty() {
            self.info.description = Some(description);
        }
        self
    }

    /// The server's source repository, e.g. `https://github.com/acme/museum`:
    /// `server-json` names the server after it (`io.github.acme/museum`) and
    /// writes it as the manifest's `repository`. An empty text sets nothing.
    pub fn repository(mut self, url: impl Into<String>) -> Self {
        let url = url.into();
        if !url.trim().is_empty() {
            self.repository = Some(url.trim().to_owned());
        }
        self
    }

    /// The server's home page, as `initialize` sends it (`websiteUrl`). An
    /// empty text sets nothing.
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        let url = url.into();
        if !url.trim().is_empty() {
            self.info.website_url = Some(url);
        }
        self
    }

    /// The landing page the Streamable HTTP transport serves at `GET /`: its
    /// tagline, logo, links, repository and connect snippets. Without this the
    /// page shows the definitions alone; [`Landing::disabled`] turns it off.
    /// [`Server::build`] checks it against the `landing-*` rules.
    ///
    /// ```
    /// use mcp_contract::server::Landing;
    /// use mcp_contract::server::Server;
    /// let server = Server::new("museum", "1.0.0")
    ///     .landing(Landing::new().tagline("Search the collection").repo_root("https://github.com/acme/museum"));
    /// # server.build().unwrap();
    /// let bad = Server::new("museum", "1.0.0").landing(Landing::new().accent("red;}</style>"));
    /// assert!(bad.build().is_err(), "landing-theme-accent-format is an error");
    /// ```
    pub fn landing(mut self, landing: Landing) -> Self {
        self.landing = Some(landing);
        self
    }

    /// Serve the agent skills below `dir` (the Skills extension, SEP-2640,
    /// `io.modelcontextprotocol/skills`): each folder holding a `SKILL.md` is
    /// a skill, served at `skill://<its path below dir>/SKILL.md` with its
    /// files beside it. The folder is read when the server is built, into
    /// memory: `skills/list` and `skills/get` give each file's sha256 digest
    /// and size, `resources/read` serves the same bytes with their MIME type,
    /// `resources/list` shows each skill's `SKILL.md`, and
    /// `resources/directory/read` lists a skill's folders. A second call
    /// replaces the folder.
    ///
    /// [`Server::build`] refuses a folder it cannot serve whole, with every
    /// problem: a `SKILL.md` frontmatter the Agent Skills format does not allow
    /// (`skill-frontmatter`), a symbolic link or special file
    /// (`skill-files`), a skill over 512 files or 16 MiB
    /// (`skill-size-limit`). The linter checks the skills with the rest of
    /// the server (`skill-allowed-tools-served`, `skill-name-unique`,
    /// `skill-uri-clash`). Names starting with `.` are neither read nor served.
    ///
    /// ```
    /// use mcp_contract::server::Server;
    /// let dir = std::env::temp_dir().join(format!("skills-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("visit-planning")).unwrap();
    /// std::fs::write(
    ///     dir.join("visit-planning/SKILL.md"),
    ///     "---\nname: visit-planning\ndescription: Plan a visit to the museum.\n---\nStart with the opening hours.\n",
    /// )
    /// .unwrap();
    /// let server = Server::new("museum", "1.0.0").skills_dir(&dir).build().unwrap();
    /// assert!(server.config().capabilities.extensions.as_ref().unwrap().contains_key("io.modelcontextprotocol/skills"));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn skills_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.skills = Some(dispatch::skills::SkillsSource::Folder(dir.into()));
        self
    }

    /// Serve the skills `embed_skills!` read into the binary when it was
    /// built, as [`Server::skills_dir`] serves a folder: the same answers, the
    /// same checks (done at compile time, and again here), with no file
    /// beside the deployed server. Replaces a folder given before.
    ///
    /// ```ignore
    /// use mcp_contract::server::Server;
    /// // In src/main.rs, the crate's skills/ folder (tests/skills.rs compiles this).
    /// let server = Server::new("museum", "1.0.0").skills(mcp_contract::embed_skills!("../skills"));
    /// ```
    pub fn skills(mut self, skills: crate::define::EmbeddedSkills) -> Self {
        self.skills = Some(dispatch::skills::SkillsSource::Embedded(skills));
        self
    }

    /// How long a host may keep this server's `skills/list` and `skills/get`
    /// answers before asking again (`ttlMs`; 5 minutes unless set). Their
    /// `cacheScope` is `public`, the same answer for every caller, unless the
    /// server has [`auth`](Server::auth): then `private`, so no shared cache
    /// hands them to a caller without a token.
    pub fn skills_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.skills_ttl = ttl;
        self
    }

    /// How to use this server's tools together, sent to the client in `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Serve `tool`: a type `#[mcp_tool]` generated, or any other [`Tool`](crate::Tool).
    pub fn tool(mut self, tool: impl DynTool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Serve a tool already shared behind an `Arc`.
    pub fn shared_tool(mut self, tool: Arc<dyn DynTool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// How callers of the Streamable HTTP transport authenticate. Without this,
    /// the transport reads [`AuthConfig::from_env`] when it starts (mode `none`
    /// when `MCP_AUTH_MODE` is unset). Stdio never authenticates: the host
    /// process that launched the server is the boundary.
    ///
    /// ```
    /// use mcp_contract::auth::AuthConfig;
    /// use mcp_contract::server::Server;
    /// let server = Server::new("museum", "1.0.0").auth(AuthConfig::jwt("0123456789abcdef0123456789abcdef"));
    /// ```
    pub fn auth(mut self, config: AuthConfig) -> Self {
        self.auth = Some(config);
        self
    }

    /// The options [`Server::build`] lints the tools with (the default
    /// [`LintOptions`] otherwise).
    pub fn lint_options(mut self, options: LintOptions) -> Self {
        self.lint = Some(options);
        self
    }

    /// Whether [`Server::build`] runs the definition linter (it does by default).
    /// Turning it off saves its few milliseconds at start-up; run the linter in
    /// a test then ([`assert_lint_clean`](crate::server::assert_lint_clean)).
    pub fn lint_at_build(mut self, on: bool) -> Self {
        self.lint = if on { Some(self.lint.unwrap_or_default()) } else { None };
        self
    }

    /// Lint the tools, resources and prompts (and `server_json`, the text of a
    /// `server.json`, when given) with this server's [`LintOptions`]: what
    /// `lint` mode prints.
    ///
    /// ```
    /// use mcp_contract::server::Server;
    /// let report = Server::new("museum", "1.0.0").lint(Some(r#"{"name": "io.github.acme/museum", "version": "0.9.0"}"#));
    /// assert!(report.diagnostics.iter().any(|d| d.rule == "server-json-version-sync"));
    /// ```
    ///
    /// The skills of [`Server::skills_dir`] are read for it; a folder that
    /// cannot be served is [`Server::build`]'s to report, and is left out here.
    pub fn lint(&self, server_json: Option<&str>) -> LintReport {
        let skills = self.load_skills().ok().flatten();
        self.lint_with(server_json, skills.as_ref())
    }

    fn lint_with(&self, server_json: Option<&str>, skills: Option<&dispatch::skills::Skills>) -> LintReport {
        let mut input = LintInput::default()
            .tools(self.tools.iter().map(|tool| &**tool))
            .resources(self.catalog.resources())
            .prompts(self.catalog.prompts())
            .skills(skills.map(dispatch::skills::Skills::for_lint).unwrap_or_default())
            .crate_info(&self.info.name, &self.info.version)
            .options(self.lint.clone().unwrap_or_default());
        input.server_json = server_json;
        input.landing = self.landing.as_ref();
        lint::validate(&input)
    }

    /// Share `value` with every handler that takes a `State<T>` of its type
    /// (a pool, an HTTP client, a configuration). Register as many types as the
    /// tools need; a second value of one type replaces the first.
    ///
    /// ```
    /// use mcp_contract::server::Server;
    /// struct Collection { objects: Vec<&'static str> }
    /// let server = Server::new("museum", "1.0.0").state(Collection { objects: vec!["Vase"] });
    /// # server.build().unwrap();
    /// ```
    pub fn state<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.shared_state(Arc::new(value))
    }

    /// Announce run-time changes through `changes` (see [`Changes`]): the
    /// server advertises `resources.subscribe` (when it has resources) and
    /// `listChanged` for its tools, resources and prompts, answers
    /// `resources/subscribe`, `resources/unsubscribe` and
    /// `subscriptions/listen`, and shares `changes` with every handler that
    /// takes `State<Changes>`.
    ///
    /// ```
    /// use mcp_contract::server::{Changes, Server};
    /// let changes = Changes::new();
    /// let server = Server::new("museum", "1.0.0").changes(changes.clone());
    /// # server.build().unwrap();
    /// ```
    pub fn changes(mut self, changes: Changes) -> Self {
        self.states.insert(Arc::new(changes.clone()));
        self.changes = Some(changes);
        self
    }

    /// Keep the tasks of the tools that run as tasks (see
    /// [`TaskSupport`](crate::define::TaskSupport)) in `store`; a
    /// [`MemoryTaskStore::default`] otherwise. A server with such a tool
    /// advertises the tasks extension (`io.modelcontextprotocol/tasks`) and
    /// answers `tasks/get`, `tasks/update` and `tasks/cancel`.
    ///
    /// ```
    /// use mcp_contract::server::{MemoryTaskStore, Server};
    /// let server = Server::new("museum", "1.0.0").task_store(MemoryTaskStore::new(64));
    /// # server.build().unwrap();
    /// ```
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// How long a task is kept from its creation (its `ttlMs`), and how often
    /// a client is asked to poll it (`pollIntervalMs`); [`DEFAULT_TASK_TTL`]
    /// and [`DEFAULT_POLL_INTERVAL`] by default.
    pub fn task_retention(mut self, ttl: std::time::Duration, poll_interval: std::time::Duration) -> Self {
        self.task_ttl = ttl;
        self.task_poll_interval = poll_interval;
        self
    }

    /// Keep the Streamable HTTP sessions, the SSE events (for `Last-Event-ID`
    /// resumption) and the tasks in the Redis at `url`, so that replicas
    /// behind a load balancer share them; keys are namespaced by the server's
    /// name. See [`RedisStore`] for the retention, and "Deploying replicas"
    /// in the guide (guide/src/replicas.md) for what happens when Redis fails.
    ///
    /// ```
    /// use mcp_contract::server::Server;
    /// let server = Server::new("museum", "1.0.0").redis("redis://127.0.0.1:6379/");
    /// # server.build().unwrap();
    /// ```
    ///
    /// A URL that is not a Redis URL fails [`Server::build`] with
    /// [`ServerError::Redis`]; nothing connects until the first request.
    #[cfg(feature = "redis")]
    pub fn redis(mut self, url: impl AsRef<str>) -> Self {
        self.redis = Some(RedisStore::new(url.as_ref()));
        self
    }

    /// [`Server::redis`] with a store set up with its own retention or namespace.
    #[cfg(feature = "redis")]
    pub fn redis_store(self, store: RedisStore) -> Self {
        self.with_redis_store(Ok(store))
    }

    /// A store, or why there is none, which [`Server::build`] reports.
    #[cfg(feature = "redis")]
    pub(crate) fn with_redis_store(mut self, store: Result<RedisStore, RedisUrlError>) -> Self {
        self.redis = Some(store);
        self
    }

    /// Whether a Redis store was given (the command line then ignores `MCP_REDIS_URL`).
    #[cfg(feature = "redis")]
    pub(crate) fn has_redis(&self) -> bool {
        self.redis.is_some()
    }

    /// [`Server::state`] for a value already behind an `Arc` that the
    /// application keeps a handle on too.
    pub fn shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        // A value given now replaces a factory of its type given earlier.
        self.pending_states.retain(|pending| pending.state_type != StateType::of::<T>());
        self.states.insert(value);
        self
    }

    /// Share the value `factory` builds with every handler that takes a
    /// `State<T>`, building it only when the server is served: a database
    /// opened, a pool connected, a file read after the command line is parsed,
    /// so `--help` and `lint` never touch them (see [`ServeArgs`](crate::server::ServeArgs)). The linter
    /// and [`Server::build`]'s checks count `T` as registered.
    ///
    /// The factories run in registration order when serving starts
    /// ([`Server::build_state`]); one that fails stops the server from starting
    /// with [`ServerError::StateFactory`].
    ///
    /// ```no_run
    /// use mcp_contract::server::Server;
    ///
    /// struct Db { path: String }
    /// async fn open(path: &str) -> std::io::Result<Db> {
    ///     std::fs::metadata(path)?;
    ///     Ok(Db { path: path.to_owned() })
    /// }
    ///
    /// # async fn run() -> Result<(), mcp_contract::server::ServerError> {
    /// let path = String::from("tracker.db");
    /// Server::new("tracker", "1.0.0").state_with(move || async move { open(&path).await }).serve_stdio().await
    /// # }
    /// ```
    pub fn state_with<T, F, Fut, E>(mut self, factory: F) -> Self
    where
        T: Send + Sync + 'static,
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        E: Into<Box<dyn StdError + Send + Sync>>,
    {
        let state_type = StateType::of::<T>();
        self.pending_states.retain(|pending| pending.state_type != state_type);
        let build: PendingBuild = Box::new(move || {
            Box::pin(async move {
                let value = factory().await.map_err(Into::into)?;
                Ok(Box::new(move |states: &mut StateMap| states.insert(Arc::new(value))) as Insert)
            })
        });
        self.pending_states.push(PendingState { state_type, build });
        self
    }

    /// Run the factories of [`Server::state_with`], in registration order, and
    /// register what they build; the serving methods and [`ServeArgs`](crate::server::ServeArgs) call
    /// this before [`Server::build`], which refuses a server whose state is
    /// not built yet.
    ///
    /// # Errors
    ///
    /// [`ServerError::StateFactory`] for the first factory that fails; the
    /// later ones do not run.
    pub async fn build_state(mut self) -> Result<Self, ServerError> {
        for PendingState { state_type, build } in std::mem::take(&mut self.pending_states) {
            match build().await {
                Ok(insert) => insert(&mut self.states),
                Err(error) => return Err(ServerError::StateFactory { type_name: state_type.type_name(), error }),
            }
        }
        Ok(self)
    }

    /// Check the tools, resources and prompts and build the rmcp handler.
    ///
    /// Names come first (unique across the three kinds). Then, unless turned
    /// off with [`Server::lint_at_build`], the definition linter runs on every
    /// tool, resource and prompt: its warnings go to the log (`tracing`, target
    /// `mcp_contract::lint`), its errors fail the build.
    ///
    /// # Errors
    ///
    /// - [`ServerError::DuplicateTool`] when two tools share a name (rule
    ///   `name-unique`): a client could only ever reach one of them;
    ///   [`ServerError::DuplicateName`] when a resource or prompt shares a name
    ///   with another tool, resource or prompt;
    /// - [`ServerError::MissingState`] when a tool takes a `State<T>` whose type
    ///   was never registered with [`Server::state`]: every call of it would fail;
    /// - [`ServerError::Lint`] when the definition linter reports an error;
    /// - [`ServerError::InvalidUriTemplate`] (when the linter is off) and
    ///   [`ServerError::DuplicateResourceUri`] for resource URIs;
    ///   [`ServerError::MissingStateOf`] for a resource's or prompt's state.
    pub fn build(self) -> Result<ToolServer, ServerError> {
        if let Some(pending) = self.pending_states.first() {
            return Err(ServerError::StatePending { type_name: pending.state_type.type_name() });
        }
        self.build_counting(&[])
    }

    /// [`Server::build`] with the types of `promised` counted as registered:
    /// what `lint` checks of a server whose factories it must not run.
    fn build_counting(self, promised: &[StateType]) -> Result<ToolServer, ServerError> {
        let available = |state: StateType| self.states.contains(state) || promised.contains(&state);
        let names = self
            .tools
            .iter()
            .map(|tool| (PrimitiveKind::Tool, tool.definition().name))
            .chain(self.catalog.resource_names().map(|name| (PrimitiveKind::Resource, name)))
            .chain(self.catalog.prompt_names().map(|name| (PrimitiveKind::Prompt, name)));
        if let Some(&lint::RepeatedName { name, first, second }) = lint::repeated_names(names).first() {
            return Err(match (first, second) {
                (PrimitiveKind::Tool, PrimitiveKind::Tool) => ServerError::DuplicateTool { name },
                _ => ServerError::DuplicateName { name, first, second },
            });
        }
        let by_name: HashMap<&'static str, usize> =
            self.tools.iter().enumerate().map(|(index, tool)| (tool.definition().name, index)).collect();
        let missing: Vec<MissingState> = self
            .tools
            .iter()
            .flat_map(|tool| {
                let tool_name = tool.definition().name;
                tool.required_state()
                    .iter()
                    .filter(|state| !available(**state))
                    .map(move |state| MissingState { tool: tool_name, type_name: state.type_name() })
            })
            .collect();
        if !missing.is_empty() {
            return Err(ServerError::MissingState(missing));
        }
        let skills = self.load_skills()?;
        if self.lint.is_some() {
            let report = self.lint_with(None, skills.as_ref());
            for warning in report.warnings() {
                tracing::warn!(target: "mcp_contract::lint", rule = warning.rule, tool = %warning.name, path = warning.path.as_deref(), "{}", warning.message);
            }
            if !report.passed {
                return Err(ServerError::Lint(report));
            }
        }
        #[cfg(feature = "redis")]
        let shared: Option<Arc<dyn store::shared::SharedStore>> = match self.redis {
            Some(Ok(store)) => Some(Arc::new(store.or_namespace(&self.info.name))),
            Some(Err(err)) => return Err(ServerError::Redis(err)),
            None => None,
        };
        #[cfg(not(feature = "redis"))]
        let shared: Option<Arc<dyn store::shared::SharedStore>> = None;
        let task_store = self.task_store.or_else(|| shared.as_ref().map(|shared| shared.task_store()));
        let request_states = match self.request_state_key {
            Some(key) => dispatch::rounds::RequestStates::new(key),
            None => dispatch::rounds::RequestStates::random(),
        }
        .map_err(ServerError::RequestStateKey)?;
        let catalog = self.catalog.build(&available)?;
        let runs_tasks =
            self.tools.iter().any(|tool| tool.definition().task_support != crate::define::TaskSupport::Forbidden);
        let tasks = runs_tasks.then(|| {
            let store = task_store.unwrap_or_else(|| Arc::new(MemoryTaskStore::default()));
            dispatch::tasks::Tasks::new(store, self.task_ttl, self.task_poll_interval)
        });
        let server = ToolServer::new(
            self.info,
            self.instructions,
            self.tools,
            by_name,
            self.states,
            catalog,
            self.changes,
            request_states,
            skills,
        )
        .with_error_masking(self.mask_error_details)
        .with_argument_repair(self.repair_arguments)
        .with_hooks(self.hooks)
        .with_auth_config(self.auth)
        .with_client_request_timeout(self.client_request_timeout)
        .with_tasks(tasks)
        .with_shared_store(shared)
        .with_landing(self.landing)
        .with_lifecycle(dispatch::lifecycle::Lifecycle::new(
            self.on_serve,
            self.on_shutdown,
            self.teardown_timeout,
        ));
        #[cfg(feature = "pacer")]
        let server = server.with_pacers(self.pacers);
        Ok(server)
    }

    /// The skills of [`Server::skills_dir`], checked and read.
    fn load_skills(&self) -> Result<Option<dispatch::skills::Skills>, ServerError> {
        let Some(source) = &self.skills else { return Ok(None) };
        dispatch::skills::Skills::load(source, self.skills_ttl, self.auth.is_some()).map(Some)
    }
}

impl Server {
    /// Serve `resource`: a static resource or a resource template, generated by
    /// `#[mcp_resource]` or any other [`Resource`](crate::Resource).
    pub fn resource(mut self, resource: impl DynResource) -> Self {
        self.catalog.resources.push(Arc::new(resource));
        self
    }

    /// Serve a resource already shared behind an `Arc`.
    pub fn shared_resource(mut self, resource: Arc<dyn DynResource>) -> Self {
        self.catalog.resources.push(resource);
        self
    }

    /// Serve `prompt`: generated by `#[mcp_prompt]`, or any other [`Prompt`](crate::Prompt).
    pub fn prompt(mut self, prompt: impl DynPrompt) -> Self {
        self.catalog.prompts.push(Arc::new(prompt));
        self
    }

    /// Serve a prompt already shared behind an `Arc`.
    pub fn shared_prompt(mut self, prompt: Arc<dyn DynPrompt>) -> Self {
        self.catalog.prompts.push(prompt);
        self
    }
}

impl Server {
    /// What `server.json` is written from.
    pub(crate) fn published(&self) -> Published<'_> {
        Published {
            info: &self.info,
            instructions: self.instructions.as_deref(),
            repository: self
                .repository
                .as_deref()
                .or_else(|| self.landing.as_ref().and_then(|landing| landing.repo_root.as_deref())),
        }
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.info)
            .field("tools", &self.tools.iter().map(|tool| tool.definition().name).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// A [`Server`] named after the crate that invokes the macro, at its version:
/// `Server::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))`, expanded in
/// your crate so `initialize` never reports the framework's name; the crate's
/// `description`, `repository` and `homepage` go to [`Server::description`],
/// [`Server::repository`] and [`Server::website_url`] (each only when set).
///
/// ```
/// let server = mcp_contract::server_from_crate!().build().unwrap();
/// assert_eq!(server.config().server_info.name, env!("CARGO_PKG_NAME"));
/// assert_eq!(server.config().server_info.version, env!("CARGO_PKG_VERSION"));
/// ```
#[macro_export]
macro_rules! server_from_crate {
    () => {
        $crate::server::Server::new(::core::env!("CARGO_PKG_NAME"), ::core::env!("CARGO_PKG_VERSION"))
            .description(::core::env!("CARGO_PKG_DESCRIPTION"))
            .repository(::core::env!("CARGO_PKG_REPOSITORY"))
            .website_url(::core::env!("CARGO_PKG_HOMEPAGE"))
    };
}

/// A factory of [`Server::state_with`], not yet run.
struct PendingState {
    state_type: StateType,
    build: PendingBuild,
}

/// What a factory's value does to the server's state once built: it keeps its type.
type Insert = Box<dyn FnOnce(&mut StateMap) + Send>;
type PendingBuild =
    Box<dyn FnOnce() -> crate::call::BoxFuture<'static, Result<Insert, Box<dyn StdError + Send + Sync>>> + Send>;

/// Panic with the report unless linting `server`'s tools, resources and prompts finds nothing at all
/// (no error and no warning): the one-line `cargo test` of a server crate.
///
/// ```
/// use mcp_contract::server::Server;
///
/// fn server() -> Server {
///     Server::new("museum", "1.0.0") // .tool(GetObject).tool(SearchObjects)
/// }
///
/// // In the crate's tests, inside a `#[test] fn lint_clean()`:
/// mcp_contract::lint::assert_lint_clean(&server());
/// ```
///
/// # Panics
///
/// When the report has any diagnostic; the message lists them all.
#[track_caller]
pub fn assert_lint_clean(server: &Server) {
    let report = server.lint(None);
    assert!(report.diagnostics.is_empty(), "the server's definitions are not lint-clean:\n{report}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Server::build` logs each warning through `tracing`, with its rule id.
    #[test]
    fn build_logs_the_warnings() {
        use std::sync::{Arc, Mutex};

        use tracing::field::{Field, Visit};
        use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};

        use crate::define::{Tool, ToolDefinition, ToolOutput};

        #[derive(Clone, Default)]
        struct Capture(Arc<Mutex<Vec<(String, String)>>>);
        struct Rule<'a>(&'a mut String);
        impl Visit for Rule<'_> {
            fn record_str(&mut self, field: &Field, value: &str) {
                if field.name() == "rule" {
                    value.clone_into(self.0);
                }
            }
            fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
        }
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
            fn on_event(&self, event: &tracing::Event<'_>, _ctx: LayerContext<'_, S>) {
                let mut rule = String::new();
                event.record(&mut Rule(&mut rule));
                self.0.lock().unwrap().push((event.metadata().target().to_owned(), rule));
            }
        }

        /// A hand-written tool without a description.
        struct Quiet;
        static QUIET: std::sync::LazyLock<ToolDefinition> = std::sync::LazyLock::new(|| {
            ToolDefinition::new("quiet", crate::schema::input_schema::<crate::define::NoArguments>())
        });
        impl Tool for Quiet {
            type Input = crate::define::NoArguments;
            type Output = String;
            fn definition(&self) -> &'static ToolDefinition {
                &QUIET
            }
            async fn call(
                &self,
                _input: Self::Input,
                _ctx: crate::call::Context,
            ) -> Result<String, crate::error::McpError> {
                Ok(String::new())
            }
            fn render(&self, output: String) -> Result<ToolOutput, crate::error::McpError> {
                Ok(ToolOutput::text(output))
            }
        }

        let capture = Capture::default();
        let subscriber = tracing_subscriber::registry().with(capture.clone());
        let built =
            tracing::subscriber::with_default(subscriber, || Server::new("museum", "1.0.0").tool(Quiet).build());
        assert!(built.is_ok(), "a warning does not fail the build");
        let events = capture.0.lock().unwrap().clone();
        assert_eq!(events, [("mcp_contract::lint".to_owned(), "description-required".to_owned())]);

        let capture = Capture::default();
        let subscriber = tracing_subscriber::registry().with(capture.clone());
        tracing::subscriber::with_default(subscriber, || {
            Server::new("museum", "1.0.0").tool(Quiet).lint_at_build(false).build()
        })
        .expect("builds");
        assert!(capture.0.lock().unwrap().is_empty(), "turned off, the linter says nothing");
    }
}
