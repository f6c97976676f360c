//! Work that runs only when the server serves: [`Server::on_serve`] when
//! serving starts, [`Server::on_shutdown`] once it has stopped, bounded by
//! [`Server::teardown_timeout`]. Neither runs for `lint`, `server-json`,
//! `--help`, [`Server::build`] or the testing client, which is what sets them
//! apart from work done in `main` (the reference's `createApp({ teardown })`,
//! 0.13.1).
//!
//! [`Server::on_serve`]: crate::server::builder::Server::on_serve
//! [`Server::on_shutdown`]: crate::server::builder::Server::on_shutdown
//! [`Server::teardown_timeout`]: crate::server::builder::Server::teardown_timeout
//! [`Server::build`]: crate::server::builder::Server::build

use std::error::Error as StdError;
use std::net::SocketAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::call::BoxFuture;
use crate::server::error::ServerError;

/// How long the shutdown hooks may take together, as the reference's
/// shutdown ceiling.
pub const DEFAULT_TEARDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// What an [`on_serve`](crate::server::builder::Server::on_serve) hook is told.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Serving {
    /// Where the server listens: `Some` over Streamable HTTP (the bound
    /// address, so port 0 reads as the port chosen), `None` over stdio.
    pub addr: Option<SocketAddr>,
    /// Cancelled when the server begins to shut down: a background task the
    /// hook spawns ends on it.
    pub stopping: CancellationToken,
}

pub(crate) type StartHook =
    Box<dyn FnOnce(Serving) -> BoxFuture<'static, Result<(), Box<dyn StdError + Send + Sync>>> + Send>;
pub(crate) type StopHook = Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>;

/// The hooks of one server. Each runs at most once, however many times the
/// built server is served.
pub(crate) struct Lifecycle {
    start: Mutex<Vec<StartHook>>,
    stop: Mutex<Vec<StopHook>>,
    teardown_timeout: Duration,
}

impl Lifecycle {
    pub(crate) fn new(start: Vec<StartHook>, stop: Vec<StopHook>, teardown_timeout: Duration) -> Self {
        Self { start: Mutex::new(start), stop: Mutex::new(stop), teardown_timeout }
    }

    pub(crate) fn boxed_start<F, Fut, E>(hook: F) -> StartHook
    where
        F: FnOnce(Serving) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<Box<dyn StdError + Send + Sync>> + 'static,
    {
        Box::new(move |serving| Box::pin(async move { hook(serving).await.map_err(Into::into) }))
    }

    pub(crate) fn boxed_stop<F, Fut>(hook: F) -> StopHook
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Box::new(move || Box::pin(hook()))
    }

    /// Run the start hooks in registration order; the first that fails stops
    /// the server from serving.
    pub(crate) async fn start(&self, serving: Serving) -> Result<(), ServerError> {
        let hooks = std::mem::take(&mut *self.start.lock().unwrap_or_else(PoisonError::into_inner));
        for hook in hooks {
            hook(serving.clone()).await.map_err(ServerError::OnServe)?;
        }
        Ok(())
    }

    /// Run the shutdown hooks, the last registered first (as drops run), each
    /// after the one before; all of them within the teardown timeout, after
    /// which the rest are dropped with a warning.
    pub(crate) async fn stop(&self) {
        let hooks = std::mem::take(&mut *self.stop.lock().unwrap_or_else(PoisonError::into_inner));
        if hooks.is_empty() {
            return;
        }
        let all = async {
            for hook in hooks.into_iter().rev() {
                hook().await;
            }
        };
        if tokio::time::timeout(self.teardown_timeout, all).await.is_err() {
            tracing::warn!(
                timeout_ms = self.teardown_timeout.as_millis(),
                "shutting down: the shutdown hooks did not finish within the teardown timeout; the rest were dropped"
            );
        }
    }
}

impl Default for Lifecycle {
    fn default() -> Self {
        Self::new(Vec::new(), Vec::new(), DEFAULT_TEARDOWN_TIMEOUT)
    }
}
