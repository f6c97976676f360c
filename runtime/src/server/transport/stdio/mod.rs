//! Serving over stdio: one JSON-RPC message per line (framing), and a
//! graceful shutdown on SIGINT/SIGTERM or a token.

pub(crate) mod framing;

use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use crate::server::dispatch::handler::ToolServer;
use crate::server::dispatch::lifecycle::Serving;
use crate::server::error::ServerError;
use crate::server::transport::signal::cancel_on_signal;
use framing::LineTransport;

/// How [`Server::serve_stdio_with`](crate::server::Server::serve_stdio_with) and [`ToolServer::serve_io_with`] shut
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
pub(crate) const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

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
    /// Serve over stdio; see [`Server::serve_stdio`](crate::server::Server::serve_stdio).
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when the handshake fails or the serving task dies.
    pub async fn serve_stdio(self) -> Result<(), ServerError> {
        self.serve_stdio_with(StdioOptions::default()).await
    }

    /// Serve over stdio with the shutdown of `options`; see [`Server::serve_stdio_with`](crate::server::Server::serve_stdio_with).
    ///
    /// # Errors
    ///
    /// As [`Self::serve_stdio`].
    pub async fn serve_stdio_with(self, options: StdioOptions) -> Result<(), ServerError> {
        // Only the writer: stdin is read on a thread (see `LineTransport::stdin`).
        let (_, write) = rmcp::transport::stdio_pipes();
        let transport = LineTransport::stdin(write).map_err(ServerError::Io)?;
        let lifecycle = self.lifecycle();
        lifecycle.start(Serving { addr: None, stopping: options.shutdown.clone() }).await?;
        let served = self.serve_transport(transport, options).await;
        lifecycle.stop().await;
        served
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
        // Listen streams end with their final result as shutdown begins,
        // rather than hold the drain for its whole grace period.
        let session = self.session_clock();
        let served = self.stopping_with(options.shutdown.clone()).serve_with_ct(transport, shutdown.clone()).await;
        let served = match served {
            Ok(running) => Ok(running.waiting().await),
            Err(err) => Err(err),
        };
        // The stream ended: so did its one session, whoever still holds a copy of the server.
        session.end();
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
}
