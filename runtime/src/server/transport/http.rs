//! Transports: stdio and Streamable HTTP, with graceful shutdown on SIGINT/SIGTERM.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::guard::{self, Guard};
use super::listener::{self, ConnectionLimits};
use super::stdio::LineTransport;
use crate::auth::AuthConfig;
use crate::call::BoxFuture;
use crate::server::ServerError;
use crate::server::ToolServer;
use crate::server::dispatch::streams::{Primings, SessionStreams};
use crate::server::store::events::{EventStore, MemoryEventStore};

/// How [`Server::serve_http_with`] serves Streamable HTTP: the endpoint, the
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
    path: String,
    stateless: bool,
    json_response: bool,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Vec<String>,
    max_connections: usize,
    header_read_timeout: Duration,
    idle_timeout: Duration,
    request_read_timeout: Duration,
    max_sessions: usize,
    session_idle_timeout: Duration,
    max_body_bytes: usize,
    shutdown: CancellationToken,
    handle_signals: bool,
    shutdown_grace: Duration,
    readiness: Option<Readiness>,
    trusted_proxies: Vec<String>,
    #[cfg(feature = "metrics")]
    metrics_path: Option<String>,
    #[cfg(feature = "rate-limit")]
    rate_limit: Option<crate::server::RateLimit>,
    event_store: Option<Arc<dyn EventStore>>,
    sse_retry: Duration,
    close_call_streams_after: Option<Duration>,
}

/// The readiness check of `GET /readyz`, from [`HttpOptions::readiness_check`].
#[derive(Clone)]
struct Readiness(Arc<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>);

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Readiness(..)")
    }
}

/// The `retry:` hint of SSE streams, by default: how long a client waits before
/// it reconnects to a stream that ended without its answer.
pub const DEFAULT_SSE_RETRY: Duration = Duration::from_secs(3);

/// How long a readiness check may take before it counts as failed.
const READINESS_TIMEOUT: Duration = Duration::from_secs(5);

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            stateless: false,
            json_response: false,
            allowed_hosts: None,
            allowed_origins: Vec::new(),
            max_connections: 512,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            request_read_timeout: Duration::from_secs(30),
            max_sessions: 1024,
            session_idle_timeout: Duration::from_secs(300),
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
            event_store: Some(Arc::new(MemoryEventStore::default())),
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
    /// unless set): `mcp_calls_total` by `kind`, `name` and `outcome`,
    /// `mcp_call_errors_total` by `code` and `reason`,
    /// `mcp_call_duration_seconds` (a histogram), `mcp_calls_in_flight` and
    /// `mcp_sessions`. Like `/healthz` it needs no bearer token (a scraper
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
    pub fn rate_limit(mut self, limit: crate::server::RateLimit) -> Self {
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
    /// [`Context::close_sse_stream`](crate::Context::close_sse_stream), or a
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
        self
    }

    /// Keep no events: a stream that ends before its answer cannot be resumed,
    /// and a call cannot close its stream.
    pub fn without_event_store(mut self) -> Self {
        self.event_store = None;
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
    /// [`Context::close_sse_stream`](crate::Context::close_sse_stream) does for
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

    /// How long a client may take to send a request's headers, from opening
    /// the connection or from the first byte after an idle spell; 10 s by default.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may stay idle between requests; 60 s by default.
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
    /// `Retry-After` when every session is busy. 1024 by default.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// How long a session lives without a request; 5 minutes by default.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
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

/// How [`Server::serve_stdio_with`] and [`ToolServer::serve_io_with`] shut
/// down: on SIGINT/SIGTERM (unless [`Self::without_signal_handling`]) or when
/// [`Self::shutdown_token`] is cancelled, the server refuses new requests with
/// a retryable -32000, lets the calls in flight finish for the grace period,
/// answers the ones still running with the same error, and returns.
///
/// ```
/// use std::time::Duration;
/// use mcp_contract::server::StdioOptions;
/// let options = StdioOptions::default().shutdown_grace(Duration::from_secs(30));
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct StdioOptions {
    shutdown: CancellationToken,
    handle_signals: bool,
    shutdown_grace: Duration,
}

impl Default for StdioOptions {
    fn default() -> Self {
        Self { shutdown: CancellationToken::new(), handle_signals: true, shutdown_grace: DEFAULT_SHUTDOWN_GRACE }
    }
}

/// How long calls in flight may finish after a shutdown signal, by default.
const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

impl StdioOptions {
    /// How long the calls in flight may take to finish once shutdown begins;
    /// 10 s by default. Those still running then get a retryable -32000.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Shut down (gracefully) when `token` is cancelled, besides on SIGINT/SIGTERM.
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

impl ToolServer {
    /// Serve over stdio; see [`Server::serve_stdio`].
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when the handshake fails or the serving task dies.
    pub async fn serve_stdio(self) -> Result<(), ServerError> {
        self.serve_stdio_with(StdioOptions::default()).await
    }

    /// Serve over stdio with the shutdown of `options`; see [`Server::serve_stdio_with`].
    ///
    /// # Errors
    ///
    /// As [`Self::serve_stdio`].
    pub async fn serve_stdio_with(self, options: StdioOptions) -> Result<(), ServerError> {
        // Only the writer: stdin is read on a thread (see `LineTransport::stdin`).
        let (_, write) = rmcp::transport::stdio_pipes();
        match LineTransport::stdin(write) {
            Ok(transport) => self.serve_transport(transport, options).await,
            Err(err) => Err(ServerError::Io(err)),
        }
    }

    /// Serve one client over a byte stream pair (a socket, a pipe, an in-process
    /// duplex), one JSON-RPC message per line, as [`Self::serve_stdio`] serves
    /// stdin and stdout: a line that is not a valid message is answered with a
    /// JSON-RPC error (-32700 or -32600, under its id when readable), a request
    /// whose id is in flight is refused, and the server keeps serving.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
    /// use mcp_contract::server::Server;
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    ///
    /// let (client, server_side) = tokio::io::duplex(64 * 1024);
    /// let (read, write) = tokio::io::split(server_side);
    /// let server = Server::new("demo", "1.0.0").build().unwrap();
    /// tokio::spawn(server.serve_io(read, write));
    ///
    /// let (read, mut write) = tokio::io::split(client);
    /// write.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\n").await.unwrap();
    /// let mut answer = String::new();
    /// BufReader::new(read).read_line(&mut answer).await.unwrap();
    /// assert!(answer.contains("-32700"), "a line that is not JSON is answered: {answer}");
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when the handshake fails or the serving task dies.
    pub async fn serve_io<R, W>(self, read: R, write: W) -> Result<(), ServerError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_io_with(read, write, StdioOptions::default().without_signal_handling()).await
    }

    /// [`Self::serve_io`] with the graceful shutdown of `options`.
    ///
    /// # Errors
    ///
    /// As [`Self::serve_io`].
    pub async fn serve_io_with<R, W>(self, read: R, write: W, options: StdioOptions) -> Result<(), ServerError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_transport(LineTransport::new(read, write), options).await
    }

    async fn serve_transport(self, transport: LineTransport, options: StdioOptions) -> Result<(), ServerError> {
        let signals = options.handle_signals.then(|| tokio::spawn(cancel_on_signal(options.shutdown.clone())));
        // rmcp's own token ends the service at once; it is cancelled only once
        // the calls in flight had their grace period.
        let shutdown = CancellationToken::new();
        let drainer = transport.drainer();
        let drain = tokio::spawn({
            let (requested, shutdown, grace) = (options.shutdown.clone(), shutdown.clone(), options.shutdown_grace);
            async move {
                requested.cancelled().await;
                drainer.begin();
                if tokio::time::timeout(grace, drainer.idle()).await.is_err() {
                    drainer.cut().await;
                }
                shutdown.cancel();
            }
        });
        let served = self.serve_with_ct(transport, shutdown.clone()).await;
        let served = match served {
            Ok(running) => Ok(running.waiting().await),
            Err(err) => Err(err),
        };
        drain.abort();
        if let Some(signals) = signals {
            signals.abort();
        }
        match served {
            Ok(waited) => waited.map(drop).map_err(ServerError::Task),
            Err(_) if shutdown.is_cancelled() => Ok(()),
            // The client went away before it said anything (a host probing the
            // command, a closed terminal): nothing failed, nothing to report.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(err) => Err(ServerError::Initialize(Box::new(err))),
        }
    }

    /// Serve Streamable HTTP on a bound listener (bind port 0 and read
    /// `local_addr` to let the system choose the port).
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`] when accepting connections fails; [`ServerError::Auth`]
    /// when the auth configuration (from [`Server::auth`], else the environment)
    /// cannot be honoured.
    pub async fn serve_http_on(self, listener: TcpListener, options: HttpOptions) -> Result<(), ServerError> {
        let shutdown = options.shutdown.clone();
        let drain = Arc::new(guard::Drain::default());
        let router = self.http_router(&options, &drain)?;
        let signals = options.handle_signals.then(|| tokio::spawn(cancel_on_signal(shutdown.clone())));
        let limits = ConnectionLimits {
            max_connections: options.max_connections,
            header_read_timeout: options.header_read_timeout,
            idle_timeout: options.idle_timeout,
            request_read_timeout: options.request_read_timeout,
        };
        // Once `shutdown` is cancelled no connection is accepted; the calls in
        // flight have the grace period, then `cut` ends the sessions too,
        // whose open SSE streams would otherwise hold the shutdown forever.
        let grace = tokio::spawn({
            let (drain, shutdown, grace) = (Arc::clone(&drain), shutdown.clone(), options.shutdown_grace);
            async move {
                shutdown.cancelled().await;
                drain.begin();
                if tokio::time::timeout(grace, drain.idle()).await.is_err() {
                    tracing::warn!(
                        "shutting down: the grace period ended with calls in flight; they are answered with an error"
                    );
                }
                drain.cut.cancel();
            }
        });
        listener::serve(listener, router, limits, shutdown, drain.cut.clone()).await;
        grace.abort();
        if let Some(signals) = signals {
            signals.abort();
        }
        Ok(())
    }

    /// The HTTP application: rmcp's Streamable HTTP service at `options.path`,
    /// behind the layers every request passes, outermost first:
    ///
    /// 1. [`guard::check_origin`]: `Origin` (403) and CORS preflight.
    ///
    /// 2. [`auth::protect`](super::auth::protect): the bearer token of the
    ///    MCP endpoint, when auth is on; its metadata document stays open.
    ///
    /// 3. [`guard::check_messages`]: the body read within its deadline, a
    ///    JSON-RPC error for a body that is not a valid message, one request
    ///    per id and session, the session cap, and 404 for an unknown session.
    ///
    /// Beside the endpoint, [`landing::mount`](super::landing::mount) serves
    /// the landing page, `robots.txt`, the server card and the status document;
    /// the card alone is outside the Origin check (any origin may read it).
    fn http_router(self, options: &HttpOptions, drain: &Arc<guard::Drain>) -> Result<axum::Router, ServerError> {
        let trusted = super::proxy::TrustedProxies::parse(&options.trusted_proxies)
            .map_err(|why| ServerError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, why)))?;
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!options.stateless)
            .with_json_response(options.json_response)
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_cancellation_token(drain.cut.child_token());
        if let Some(hosts) = &options.allowed_hosts {
            config = config.with_allowed_hosts(hosts.clone());
        }
        let mut config = config.with_sse_retry(Some(options.sse_retry));
        // A store shared with other replicas keeps the sessions' `initialize`
        // (a replica restores a session it does not hold) and the SSE events
        // (a stream resumes on any replica); it stands in for the options' store.
        let shared = self.shared_store().cloned();
        if let Some(shared) = &shared
            && !options.stateless
        {
            config.session_store = Some(shared.session_store());
        }
        let event_store = match &shared {
            Some(shared) => Some(shared.event_store()),
            None => options.event_store.clone(),
        };
        let primings = event_store.map(|store| Arc::new(Primings::new(store)));
        let mut manager = LocalSessionManager::default();
        if let Some(primings) = &primings {
            manager = manager.with_event_store(Arc::clone(primings) as Arc<dyn EventStore>);
        }
        manager.session_config.keep_alive = Some(options.session_idle_timeout);
        manager.session_config.sse_retry = Some(options.sse_retry);
        let manager = Arc::new(manager);
        #[cfg(feature = "metrics")]
        let (server, metrics) = match &options.metrics_path {
            Some(path) => {
                let taken = [options.path.as_str(), "/healthz", "/readyz"];
                if !path.starts_with('/') || taken.contains(&path.as_str()) {
                    return Err(ServerError::Io(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!(
                            "the metrics path `{path}` is not free: it must start with `/` and be none of \
                             `{}`, `/healthz` and `/readyz`; use `/metrics`",
                            options.path
                        ),
                    )));
                }
                let metrics = Arc::new(crate::server::dispatch::metrics::Metrics::new());
                (self.with_metrics(Arc::clone(&metrics)), Some((path.clone(), metrics)))
            }
            None => (self, None),
        };
        #[cfg(not(feature = "metrics"))]
        let server = self;
        #[cfg(feature = "rate-limit")]
        let server = match options.rate_limit {
            Some(limit) => server.with_rate_limit(limit),
            None => server,
        };
        let (template, auth) = super::auth::prepare(server, &options.path)?;
        let sessions = (!options.stateless).then(|| (Arc::clone(&manager), options.max_sessions));
        let shared_for_streams = shared.clone().filter(|_| !options.stateless);
        let guard = Arc::new(Guard::new(
            &options.allowed_origins,
            options.max_body_bytes,
            config.allowed_hosts.clone(),
            sessions,
            Arc::clone(drain),
            shared,
        ));
        // `prepare` has accepted the config, so reading it again cannot fail.
        let auth_config = template.auth_config().cloned().map_or_else(AuthConfig::from_env, Ok).unwrap_or_default();
        let landing = super::landing::manifest(&template, &auth_config, &options.path, options.stateless);
        let mut streams = SessionStreams::new(
            Arc::clone(&manager),
            primings,
            Some(options.sse_retry),
            options.close_call_streams_after,
        );
        if let Some(shared) = shared_for_streams {
            streams = streams.with_shared_store(shared, template.rerunnable_tools());
        }
        let service = StreamableHttpService::new(move || Ok(template.for_new_session()), Arc::new(streams), config);
        let router = axum::Router::new()
            .route_service(&options.path, service)
            .route_layer(axum::middleware::from_fn_with_state(Arc::clone(&guard), guard::check_messages));
        // Auth covers only the MCP endpoint (its metadata routes stay open),
        // and sits outside the message checks, so a caller without a valid
        // token gets its 401 before any of its body is read; the Origin check
        // is outside both, and holds for every route but the server card.
        let router = super::auth::protect(router, auth);
        let router = health_routes(router, options.readiness.clone(), Arc::clone(drain));
        #[cfg(feature = "metrics")]
        let router = match metrics {
            Some((path, metrics)) => metrics_route(router, &path, metrics, (!options.stateless).then_some(manager)),
            None => router,
        };
        let mounted = super::landing::mount(router, landing, &auth_config);
        // The server card stays outside the Origin check: browsers and registries read it cross-origin.
        let router =
            mounted.guarded.layer(axum::middleware::from_fn_with_state(guard, guard::check_origin)).merge(mounted.open);
        if trusted.is_empty() {
            return Ok(router);
        }
        Ok(router.layer(axum::middleware::from_fn_with_state(Arc::new(trusted), super::proxy::resolve)))
    }
}

/// `GET /healthz`, liveness: 200 while the server runs. `GET /readyz`,
/// readiness: 503 while shutting down or when the check fails, 200 otherwise.
/// Outside the bearer check: a load balancer's prober holds no token, and the
/// answers say nothing about the server beyond up or not.
fn health_routes(router: axum::Router, readiness: Option<Readiness>, drain: Arc<guard::Drain>) -> axum::Router {
    use axum::routing::get;
    let status = |code: http::StatusCode, status: &str| {
        let body = serde_json::json!({ "status": status }).to_string();
        let mut response = axum::response::Response::new(axum::body::Body::from(body));
        *response.status_mut() = code;
        let headers = response.headers_mut();
        headers.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
        headers.insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-store"));
        response
    };
    let ready = move || {
        let (readiness, drain) = (readiness.clone(), Arc::clone(&drain));
        async move {
            if drain.is_draining() {
                return status(http::StatusCode::SERVICE_UNAVAILABLE, "shutting_down");
            }
            let Some(Readiness(check)) = readiness else { return status(http::StatusCode::OK, "ready") };
            match tokio::time::timeout(READINESS_TIMEOUT, check()).await {
                Ok(Ok(())) => status(http::StatusCode::OK, "ready"),
                Ok(Err(why)) => {
                    let why = crate::server::wire::cap_chars(&why, crate::server::wire::MAX_ERROR_MESSAGE_CHARS)
                        .unwrap_or(why);
                    tracing::warn!(reason = why, "the readiness check failed");
                    status(http::StatusCode::SERVICE_UNAVAILABLE, "not_ready")
                }
                Err(_) => {
                    tracing::warn!(timeout = ?READINESS_TIMEOUT, "the readiness check did not answer in time");
                    status(http::StatusCode::SERVICE_UNAVAILABLE, "not_ready")
                }
            }
        }
    };
    router
        .route("/healthz", get(move || async move { status(http::StatusCode::OK, "ok") }))
        .route("/readyz", get(ready))
}

/// `GET path`: the metrics, with the sessions open now.
#[cfg(feature = "metrics")]
fn metrics_route(
    router: axum::Router,
    path: &str,
    metrics: Arc<crate::server::dispatch::metrics::Metrics>,
    sessions: Option<Arc<LocalSessionManager>>,
) -> axum::Router {
    let scrape = move || {
        let (metrics, sessions) = (Arc::clone(&metrics), sessions.clone());
        async move {
            let open = match &sessions {
                Some(manager) => manager.sessions.read().await.len(),
                None => 0,
            };
            let mut response = axum::response::Response::new(axum::body::Body::from(metrics.render(open)));
            let headers = response.headers_mut();
            let kind = http::HeaderValue::from_static(crate::server::dispatch::metrics::CONTENT_TYPE);
            headers.insert(http::header::CONTENT_TYPE, kind);
            headers.insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-store"));
            response
        }
    };
    router.route(path, axum::routing::get(scrape))
}

async fn cancel_on_signal(token: CancellationToken) {
    shutdown_signal().await;
    token.cancel();
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM; never when the handlers cannot be installed.
async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
