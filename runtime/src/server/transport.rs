//! Transports: stdio and Streamable HTTP, with graceful shutdown on SIGINT/SIGTERM.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

use super::guard::{self, Guard};
use super::lines::LineTransport;
use super::listener::{self, ConnectionLimits};
use super::{Server, ServerError, ToolServer};
use crate::auth::AuthConfig;

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
    max_sessions: usize,
    session_idle_timeout: Duration,
    max_body_bytes: usize,
    shutdown: CancellationToken,
    handle_signals: bool,
}

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
            max_sessions: 1024,
            session_idle_timeout: Duration::from_secs(300),
            max_body_bytes: 4 * 1024 * 1024,
            shutdown: CancellationToken::new(),
            handle_signals: true,
        }
    }
}

impl HttpOptions {
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

impl Server {
    /// Serve over stdio until the client closes stdin or the process gets
    /// SIGINT/SIGTERM. Logs must go to stderr: stdout carries the protocol.
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when building fails ([`Server::build`]), the handshake
    /// fails, or the serving task dies.
    pub async fn serve_stdio(self) -> Result<(), ServerError> {
        self.build()?.serve_stdio().await
    }

    /// Serve Streamable HTTP at `addr` (endpoint `/mcp`) until SIGINT/SIGTERM.
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when building fails or the address cannot be bound.
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> Result<(), ServerError> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`Server::serve_http`] with options: path, stateless mode, allowed hosts, shutdown.
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when building fails or the address cannot be bound.
    pub async fn serve_http_with(self, addr: impl ToSocketAddrs, options: HttpOptions) -> Result<(), ServerError> {
        let server = self.build()?;
        let listener = TcpListener::bind(addr).await?;
        server.serve_http_on(listener, options).await
    }
}

impl ToolServer {
    /// Serve over stdio; see [`Server::serve_stdio`].
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when the handshake fails or the serving task dies.
    pub async fn serve_stdio(self) -> Result<(), ServerError> {
        let shutdown = CancellationToken::new();
        let signals = tokio::spawn(cancel_on_signal(shutdown.clone()));
        // Only the writer: stdin is read on a thread (see `LineTransport::stdin`).
        let (_, write) = rmcp::transport::stdio_pipes();
        let outcome = match LineTransport::stdin(write) {
            Ok(transport) => self.serve_transport(transport, shutdown).await,
            Err(err) => Err(ServerError::Io(err)),
        };
        signals.abort();
        outcome
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
        self.serve_transport(LineTransport::new(read, write), CancellationToken::new()).await
    }

    async fn serve_transport(self, transport: LineTransport, shutdown: CancellationToken) -> Result<(), ServerError> {
        let served = self.serve_with_ct(transport, shutdown.clone()).await;
        match served {
            Ok(running) => running.waiting().await.map(drop).map_err(ServerError::Task),
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
        let router = self.http_router(&options)?;
        let signals = options.handle_signals.then(|| tokio::spawn(cancel_on_signal(shutdown.clone())));
        let limits = ConnectionLimits {
            max_connections: options.max_connections,
            header_read_timeout: options.header_read_timeout,
            idle_timeout: options.idle_timeout,
        };
        // Cancelling `shutdown` also ends the sessions, whose open SSE streams
        // would otherwise hold the graceful shutdown forever.
        listener::serve(listener, router, limits, shutdown).await;
        if let Some(signals) = signals {
            signals.abort();
        }
        Ok(())
    }

    /// The HTTP application: rmcp's Streamable HTTP service at `options.path`,
    /// behind the layers every request passes, outermost first:
    ///
    /// 1. [`guard::check`]: `Origin` (403) and CORS preflight, then a JSON-RPC
    ///    error for a body that is not a valid message, one request per id and
    ///    session, the session cap, and 404 for an unknown session.
    ///
    /// 2. [`auth::protect`](super::auth::protect): the bearer token of the
    ///    MCP endpoint, when auth is on; its metadata document stays open.
    ///
    /// Beside the endpoint, [`landing::mount`](super::landing::mount) serves
    /// the landing page, `robots.txt`, the server card and the status document.
    fn http_router(self, options: &HttpOptions) -> Result<axum::Router, ServerError> {
        let shutdown = options.shutdown.clone();
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!options.stateless)
            .with_json_response(options.json_response)
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_cancellation_token(shutdown.child_token());
        if let Some(hosts) = &options.allowed_hosts {
            config = config.with_allowed_hosts(hosts.clone());
        }
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(options.session_idle_timeout);
        let manager = Arc::new(manager);
        let (template, auth) = super::auth::prepare(self, &options.path)?;
        // `prepare` has accepted the config, so reading it again cannot fail.
        let auth_config = template.auth_config().cloned().map_or_else(AuthConfig::from_env, Ok).unwrap_or_default();
        let landing = super::landing::manifest(&template, &auth_config, &options.path, options.stateless);
        let service = StreamableHttpService::new(move || Ok(template.for_new_session()), Arc::clone(&manager), config);
        let sessions = (!options.stateless).then_some((manager, options.max_sessions));
        let guard = Arc::new(Guard::new(&options.allowed_origins, options.max_body_bytes, sessions));
        let router = axum::Router::new().route_service(&options.path, service);
        // Auth covers only the MCP endpoint (its metadata routes stay open);
        // the guard sits outside it, so Origin and CORS hold for every route.
        let router = super::auth::protect(router, auth);
        let router = super::landing::mount(router, landing, &auth_config);
        Ok(router.layer(axum::middleware::from_fn_with_state(guard, guard::check)))
    }
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
