//! [`HttpOptions`]: how Streamable HTTP is served: the endpoint, the session
//! mode, who may call, and the limits that keep a server up.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::call::BoxFuture;
use crate::server::store::events::{EventStore, MemoryEventStore};
use crate::server::transport::stdio::DEFAULT_SHUTDOWN_GRACE;

/// How [`Server::serve_http_with`](crate::server::Server::serve_http_with) serves Streamable HTTP: the endpoint, the
/// session mode, who may call (`Host`, `Origin`), and the limits that keep a
/// server up under a flood of connections, sessions or slow clients. Every
/// limit has a safe default; see each method.
///
/// ```
/// use std::time::Duration;
/// use mcp_contract::server::HttpOptions;
/// let options = HttpOptions::default().path("/museum/mcp").stateless(true).json_response(true);
/// let public = HttpOptions::default()
///     .allowed_hosts(["museum.example.org"])
///     .allowed_origins(["https://museum.example.org"])
///     .max_connections(2048)
///     .max_sessions(4096)
///     .idle_timeout(Duration::from_secs(30));
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct HttpOptions {
    pub(super) path: String,
    pub(super) stateless: bool,
    pub(super) json_response: bool,
    pub(super) allowed_hosts: Option<Vec<String>>,
    pub(super) allowed_origins: Vec<String>,
    pub(super) max_connections: usize,
    pub(super) max_connections_per_client: usize,
    pub(super) header_read_timeout: Duration,
    pub(super) idle_timeout: Duration,
    pub(super) request_read_timeout: Duration,
    pub(super) max_sessions: usize,
    pub(super) session_idle_timeout: Duration,
    pub(super) session_hibernate_after: Option<Duration>,
    pub(super) max_awake_sessions: usize,
    pub(super) max_body_bytes: usize,
    pub(super) shutdown: CancellationToken,
    pub(super) handle_signals: bool,
    pub(super) shutdown_grace: Duration,
    pub(super) readiness: Option<Readiness>,
    pub(super) trusted_proxies: Vec<String>,
    #[cfg(feature = "metrics")]
    pub(super) metrics_path: Option<String>,
    #[cfg(feature = "rate-limit")]
    pub(super) rate_limit: Option<crate::server::dispatch::rate_limit::RateLimit>,
    pub(super) event_store: Option<Arc<dyn EventStore>>,
    /// The event store when it is a [`MemoryEventStore`] these options made,
    /// whose evictions the metrics endpoint counts.
    pub(super) memory_events: Option<Arc<MemoryEventStore>>,
    pub(super) sse_retry: Duration,
    pub(super) close_call_streams_after: Option<Duration>,
}

/// The readiness check of `GET /readyz`, from [`HttpOptions::readiness_check`].
#[derive(Clone)]
pub(super) struct Readiness(pub(super) Arc<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>);

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Readiness(..)")
    }
}

/// How many sessions keep their rmcp worker at once, by default: 256 workers
/// take about 14 MiB, where 10,000 awake sessions take 526 MiB.
const DEFAULT_MAX_AWAKE_SESSIONS: usize = 256;

/// The `retry:` hint of SSE streams, by default: how long a client waits before
/// it reconnects to a stream that ended without its answer.
pub const DEFAULT_SSE_RETRY: Duration = Duration::from_secs(3);

/// How long a readiness check may take before it counts as failed.
pub(super) const READINESS_TIMEOUT: Duration = Duration::from_secs(5);

impl Default for HttpOptions {
    fn default() -> Self {
        let memory_events = Arc::new(MemoryEventStore::default());
        Self {
            path: "/mcp".to_owned(),
            stateless: false,
            json_response: false,
            allowed_hosts: None,
            allowed_origins: Vec::new(),
            max_connections: 512,
            max_connections_per_client: 64,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            request_read_timeout: Duration::from_secs(30),
            max_sessions: 1024,
            session_idle_timeout: Duration::from_secs(300),
            session_hibernate_after: None,
            max_awake_sessions: DEFAULT_MAX_AWAKE_SESSIONS,
            max_body_bytes: 4 * 1024 * 1024,
            shutdown: CancellationToken::new(),
            handle_signals: true,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            readiness: None,
            trusted_proxies: Vec::new(),
            #[cfg(feature = "metrics")]
            metrics_path: None,
            #[cfg(feature = "rate-limit")]
            rate_limit: None,
            event_store: Some(Arc::clone(&memory_events) as Arc<dyn EventStore>),
            memory_events: Some(memory_events),
            sse_retry: DEFAULT_SSE_RETRY,
            close_call_streams_after: None,
        }
    }
}

impl HttpOptions {
    /// What `GET /readyz` checks besides the server not shutting down: `check`
    /// resolves `Ok(())` when the server can serve (its database answers, its
    /// upstream is reachable), or `Err(why)`, which goes to the log, never to
    /// the prober. A check slower than 5 s fails. `GET /healthz` (liveness)
    /// answers 200 whenever the server runs. Neither needs a bearer token.
    ///
    /// ```
    /// use mcp_contract::server::HttpOptions;
    /// let options = HttpOptions::default().readiness_check(|| async {
    ///     // e.g. `pool.ping().await.map_err(|err| err.to_string())`
    ///     Ok(())
    /// });
    /// ```
    pub fn readiness_check<F, Fut>(mut self, check: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        self.readiness = Some(Readiness(Arc::new(move || Box::pin(check()))));
        self
    }

    /// Serve the server's metrics at `GET path` (`/metrics`, say) in the
    /// OpenMetrics text format that Prometheus scrapes (feature `metrics`; off
    /// unless set), named as the OpenTelemetry semantic conventions for MCP
    /// (semconv 1.42.0) as the exposition format allows:
    /// `mcp_server_operations_total` by `kind`, `name` and `outcome`,
    /// `mcp_server_operation_errors_total` by `code`, `reason`, `error_type`,
    /// `category` and `severity`, `mcp_server_argument_repairs_total` by
    /// `tool` and `kind` (the repairs of tool arguments, see
    /// `Server::repair_arguments`), `mcp_server_argument_rejections_total` by
    /// `tool`, `mcp_server_operation_duration_seconds` (a histogram),
    /// `mcp_server_operations_in_flight` and `mcp_server_sessions`. Like `/healthz` it needs no bearer token (a scraper
    /// holds none): keep it to the private network, or let the proxy refuse it.
    ///
    /// ```
    /// use mcp_contract::server::HttpOptions;
    /// let options = HttpOptions::default().metrics_path("/metrics");
    /// ```
    #[cfg(feature = "metrics")]
    pub fn metrics_path(mut self, path: impl Into<String>) -> Self {
        self.metrics_path = Some(path.into());
        self
    }

    /// Limit each caller's calls (feature `rate-limit`; off unless set): a
    /// token bucket per caller, keyed by the bearer token's subject (else its
    /// client id) with auth on, by the client's address without. A tool call,
    /// resource read or prompt past it is answered RateLimited (-32003) with
    /// `data.retryAfter`, the seconds until the caller has a token again;
    /// completions are not counted.
    ///
    /// ```
    /// use mcp_contract::server::{HttpOptions, RateLimit};
    /// let options = HttpOptions::default().rate_limit(RateLimit::per_minute(120).burst(20));
    /// ```
    #[cfg(feature = "rate-limit")]
    pub fn rate_limit(mut self, limit: crate::server::dispatch::rate_limit::RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// The reverse proxies whose forwarding headers the server believes:
    /// addresses (`10.0.0.7`) and networks (`10.0.0.0/8`); none by default.
    /// From such a peer, `Forwarded` (else `X-Forwarded-For`, `-Proto` and
    /// `-Host`) gives the client's address (for the rate limit, the logs and
    /// `ctx.client_ip()`: the first hop, from the right, that is no trusted
    /// proxy), the `Host` the `Host` check compares, and the scheme the
    /// `Origin` check compares. From anyone else those headers are ignored, so
    /// a client cannot pick its own address. An entry that is neither an
    /// address nor a network is refused when serving starts.
    ///
    /// ```
    /// use mcp_contract::server::HttpOptions;
    /// let options = HttpOptions::default().trusted_proxies(["10.0.0.0/8", "fd00::/8"]);
    /// ```
    pub fn trusted_proxies(mut self, proxies: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.trusted_proxies = proxies.into_iter().map(Into::into).collect();
        self
    }

    /// How long the calls in flight may take to finish once shutdown begins;
    /// 10 s by default. Meanwhile the server accepts no connection and answers
    /// new requests 503 with a retryable -32000; the calls still running at
    /// the end get the same error, in their SSE stream or as a 503.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Where the events of SSE streams are kept, so a client whose stream
    /// ended before its answer (closed by the server for SSE polling, see
    /// [`Context::close_sse_stream`](crate::call::Context::close_sse_stream), or a
    /// dropped connection) reconnects with `Last-Event-ID` and receives what
    /// was sent meanwhile. A [`MemoryEventStore`] with its default bounds
    /// unless set; a store shared by replicas implements [`EventStore`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_contract::server::{HttpOptions, MemoryEventStore};
    /// let options = HttpOptions::default().event_store(Arc::new(MemoryEventStore::default()));
    /// # let _ = options;
    /// ```
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = Some(store);
        self.memory_events = None;
        self
    }

    /// The byte budget of the events kept for resumption, over all streams
    /// and sessions: past it the oldest events go first, counted
    /// (`mcp_server_sse_events_evicted` on the metrics endpoint) and said in
    /// the log at most every 10 s, and a client resuming from before them gets
    /// an empty stream. Sets a [`MemoryEventStore`] with its default bounds and
    /// this budget ([`MemoryEventStore::max_bytes`]), in place of any store
    /// set before; 64 MiB ([`DEFAULT_MAX_EVENT_BYTES`](crate::server::DEFAULT_MAX_EVENT_BYTES)) unless set.
    ///
    /// ```
    /// use mcp_contract::server::HttpOptions;
    /// let options = HttpOptions::default().event_store_max_bytes(16 * 1024 * 1024);
    /// # let _ = options;
    /// ```
    pub fn event_store_max_bytes(mut self, bytes: usize) -> Self {
        let store = Arc::new(MemoryEventStore::default().max_bytes(bytes));
        self.event_store = Some(Arc::clone(&store) as Arc<dyn EventStore>);
        self.memory_events = Some(store);
        self
    }

    /// Keep no events: a stream that ends before its answer cannot be resumed,
    /// and a call cannot close its stream.
    pub fn without_event_store(mut self) -> Self {
        self.event_store = None;
        self.memory_events = None;
        self
    }

    /// The `retry:` hint every SSE stream opens with, and a stream closed for
    /// SSE polling ends with: how long the client waits before it
    /// reconnects. [`DEFAULT_SSE_RETRY`] (3 s) by default.
    pub fn sse_retry(mut self, retry: Duration) -> Self {
        self.sse_retry = retry;
        self
    }

    /// Close a call's SSE stream once it has been open this long without its
    /// answer (SSE polling, SEP-1699, for every call, as
    /// [`Context::close_sse_stream`](crate::call::Context::close_sse_stream) does for
    /// one): a long call does not hold a connection, and the client comes back
    /// with `Last-Event-ID` after the retry hint. Off by default; needs the
    /// event store. Applies to 2025 sessions, whose calls have a stream of
    /// their own to close.
    pub fn close_call_streams_after(mut self, after: Duration) -> Self {
        self.close_call_streams_after = Some(after);
        self
    }

    /// The URL path of the MCP endpoint; `/mcp` by default.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Serve every request on its own, without `Mcp-Session-Id` sessions, so any
    /// replica can answer any request. Off by default: sessions let the server
    /// keep a per-client log level and stream notifications.
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// In stateless mode, answer simple calls with `application/json` instead of
    /// an SSE stream (a call that sends progress or logs still streams).
    pub fn json_response(mut self, json_response: bool) -> Self {
        self.json_response = json_response;
        self
    }

    /// The `Host` header values to accept (`host` or `host:port`). By default only
    /// loopback names, which guards a local server against DNS rebinding; a public
    /// deployment lists its own host names.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Browser origins (`scheme://host[:port]`, e.g. `https://app.example.com`)
    /// allowed to call the server besides its own, with CORS preflight answered
    /// for them. A request with any other `Origin` gets 403, against DNS
    /// rebinding (the MCP transport spec requires the check); a request without
    /// `Origin` (not from a browser) passes. None by default.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The most connections open at once; one more is answered 503 and closed.
    /// 512 by default (keep it below the process's file limit).
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// The most connections one client address may hold open at once; one
    /// more is answered 503 with `Retry-After` and closed, so a client that
    /// opens connections and never finishes a request cannot take every slot
    /// of [`max_connections`](Self::max_connections). 64 by default.
    ///
    /// From a [trusted proxy](Self::trusted_proxies) the proxy's own
    /// connections are not counted, the requests in progress of each
    /// forwarded client address are: past the cap, 503 with `Retry-After`.
    /// A load test that opens thousands of sessions from one address raises it.
    pub fn max_connections_per_client(mut self, max: usize) -> Self {
        self.max_connections_per_client = max.max(1);
        self
    }

    /// How long a client may take to send a request's headers, from opening
    /// the connection or from the first byte after an idle spell; 10 s by default.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may stay idle between requests; 60 s by default.
    /// The idle spell begins once the last byte of the previous answer is
    /// written, however slowly the client reads it; a client that stops
    /// reading an answer is closed this long after the last bytes it took.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long a client may take to send a whole request, head and body,
    /// from its first byte; 30 s by default. A body still incomplete then is
    /// answered 408 with a JSON-RPC error and its connection closed, so a
    /// client announcing a `Content-Length` it never sends holds nothing.
    pub fn request_read_timeout(mut self, timeout: Duration) -> Self {
        self.request_read_timeout = timeout;
        self
    }

    /// The most live sessions. A new session past it closes the session idle
    /// the longest (none of its requests in flight), or gets 503 with
    /// `Retry-After` when every session is busy. 1024 by default;
    /// `--max-sessions` on the command line.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// How long a session lives without a request, asleep or not; 5 minutes
    /// by default. `--session-idle-timeout` on the command line.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Let a session idle this long hibernate: its rmcp worker (about 90 KB
    /// of channels and tasks) is closed, and only the client's `initialize`
    /// (a few hundred bytes) is kept, from which the session's next request
    /// restores it, as a replica restores a session another opened (with a
    /// shared store, any replica; the one that put it to sleep also keeps a
    /// copy of its own). The client sees nothing of it, and the session keeps
    /// its id, its owner and its `mcp.server.session.duration`. Off by
    /// default (only the sessions past [`max_awake_sessions`](Self::max_awake_sessions)
    /// hibernate); `--session-hibernate-after` on the command line.
    ///
    /// A session at work does not hibernate (a call running, even one whose
    /// client went away; a task it started), and it is idle from the end of
    /// that work: rmcp sends a call's answer on the worker after the handler
    /// returned. A session that keeps something in its worker never
    /// hibernates: one that opened a GET stream, set a log level
    /// (`logging/setLevel`) or subscribed to a resource. Its first
    /// request after it hibernated pays for the restore: the `initialize`
    /// replayed to a new worker (see the guide's Performance chapter). The
    /// sessions counted against [`max_sessions`](Self::max_sessions) include
    /// the hibernating ones.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_contract::server::HttpOptions;
    ///
    /// let options = HttpOptions::default().max_sessions(10_000).session_hibernate_after(Duration::from_secs(30));
    /// ```
    pub fn session_hibernate_after(mut self, idle: Duration) -> Self {
        self.session_hibernate_after = Some(idle);
        self
    }

    /// The most sessions awake at once, each with its rmcp worker (about
    /// 55 KiB resident); 256 by default. Past it, the sessions idle the
    /// longest hibernate as with [`session_hibernate_after`](Self::session_hibernate_after),
    /// whatever their idle time, so a server holding many sessions keeps a
    /// bounded number of workers: 10,000 sessions that are mostly idle take
    /// about 59 MiB rather than 526 MiB. A session is not put to sleep for
    /// the cap while it works or within 250 ms of its last request or work,
    /// nor when it keeps something in its worker, so the awake sessions can
    /// briefly outnumber the cap. Below the cap, sessions stay awake (unless
    /// `session_hibernate_after` says otherwise).
    ///
    /// The price is the restore of a session woken past the cap, 0.1 to
    /// 0.2 ms more on its next request: with more sessions active at once than
    /// the cap, raise it. A cap of at least [`max_sessions`](Self::max_sessions)
    /// keeps every session awake. `--max-awake-sessions` on the command line.
    ///
    /// ```
    /// use mcp_contract::server::HttpOptions;
    ///
    /// let options = HttpOptions::default().max_sessions(10_000).max_awake_sessions(1_000);
    /// ```
    pub fn max_awake_sessions(mut self, max: usize) -> Self {
        self.max_awake_sessions = max;
        self
    }

    /// The largest request body; a larger one gets 413. 4 MiB by default.
    pub fn max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max;
        self
    }

    /// Stop serving (gracefully) when `token` is cancelled, besides on SIGINT/SIGTERM.
    pub fn shutdown_token(mut self, token: CancellationToken) -> Self {
        self.shutdown = token;
        self
    }

    /// Do not install SIGINT/SIGTERM handlers; stop only through [`Self::shutdown_token`].
    pub fn without_signal_handling(mut self) -> Self {
        self.handle_signals = false;
        self
    }
}
