//! Transports: stdio and Streamable HTTP, with graceful shutdown on SIGINT/SIGTERM.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

use super::{Server, ServerError, ToolServer};

/// How [`Server::serve_http_with`] serves Streamable HTTP.
///
/// ```
/// use mcp_contract_runtime::server::HttpOptions;
/// let options = HttpOptions::default().path("/museum/mcp").stateless(true).json_response(true);
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct HttpOptions {
    path: String,
    stateless: bool,
    json_response: bool,
    allowed_hosts: Option<Vec<String>>,
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
        // The pipe-aware stdio keeps reads cancellable on Linux, so a signal can
        // end the process instead of waiting for the client's next line.
        let served = self.serve_with_ct(rmcp::transport::stdio_pipes(), shutdown.clone()).await;
        let outcome = match served {
            Ok(running) => running.waiting().await.map(drop).map_err(ServerError::Task),
            Err(_) if shutdown.is_cancelled() => Ok(()),
            // The client went away before it said anything (a host probing the
            // command, a closed terminal): nothing failed, nothing to report.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(err) => Err(ServerError::Initialize(Box::new(err))),
        };
        signals.abort();
        outcome
    }

    /// Serve Streamable HTTP on a bound listener (bind port 0 and read
    /// `local_addr` to let the system choose the port).
    ///
    /// # Errors
    ///
    /// [`ServerError::Io`] when accepting connections fails.
    pub async fn serve_http_on(self, listener: TcpListener, options: HttpOptions) -> Result<(), ServerError> {
        let shutdown = options.shutdown.clone();
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!options.stateless)
            .with_json_response(options.json_response)
            .with_cancellation_token(shutdown.child_token());
        if let Some(hosts) = options.allowed_hosts {
            config = config.with_allowed_hosts(hosts);
        }
        let template = self;
        let service = StreamableHttpService::new(
            move || Ok(template.for_new_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let router = axum::Router::new().route_service(&options.path, service);
        let handle_signals = options.handle_signals;
        let stop = async move {
            if handle_signals {
                tokio::select! {
                    () = shutdown_signal() => {}
                    () = shutdown.cancelled() => {}
                }
            } else {
                shutdown.cancelled().await;
            }
            // Open SSE streams would hold the graceful shutdown forever; ending
            // the sessions closes them.
            shutdown.cancel();
        };
        axum::serve(listener, router).with_graceful_shutdown(stop).await?;
        Ok(())
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
