//! Whether Redis answers: every command waits at most the store's timeout,
//! and after a failure the store is not asked again for a moment, so the
//! requests that need it are refused at once (503) instead of each waiting.

use std::time::{Duration, Instant};

use crate::error::McpError;
use crate::server::store::shared::{UNAVAILABLE, Unavailable};

use super::{RedisStore, lock};

/// After a failure, how long the store is taken for down without asking it.
pub(super) const PROBE_INTERVAL: Duration = Duration::from_millis(250);

impl RedisStore {
    /// Whether Redis is down and was asked less than [`PROBE_INTERVAL`] ago:
    /// past that, the next command tries it again.
    pub(super) fn failed_recently(&self) -> bool {
        let health = lock(&self.inner.health);
        health.down && health.last_attempt.is_some_and(|at| at.elapsed() < PROBE_INTERVAL)
    }

    /// Run `pipe`, waiting at most the timeout; refused at once while Redis
    /// failed a moment ago.
    pub(super) async fn query<T: redis::FromRedisValue>(&self, pipe: &redis::Pipeline) -> Result<T, Unavailable> {
        if self.failed_recently() {
            return Err(Unavailable);
        }
        lock(&self.inner.health).last_attempt = Some(Instant::now());
        let timeout = self.inner.settings.timeout;
        let outcome = match self.connection().await {
            Ok(mut connection) => match tokio::time::timeout(timeout, pipe.query_async::<T>(&mut connection)).await {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(err)) => Err(err.to_string()),
                Err(_) => Err(format!("no answer within {timeout:?}")),
            },
            Err(err) => Err(err),
        };
        if outcome.is_err() {
            self.forget_connection();
        }
        let mut health = lock(&self.inner.health);
        match outcome {
            Ok(value) => {
                if std::mem::replace(&mut health.down, false) {
                    tracing::info!("the shared store (Redis) answers again");
                }
                Ok(value)
            }
            Err(why) => {
                if !std::mem::replace(&mut health.down, true) {
                    tracing::warn!(
                        error = why,
                        "the shared store (Redis) does not answer; requests that need it get 503 until it does"
                    );
                }
                health.last_attempt = Some(Instant::now());
                Err(Unavailable)
            }
        }
    }

    pub(super) fn unavailable() -> McpError {
        McpError::service_unavailable(UNAVAILABLE)
    }
}

/// Whether Redis answered the last command, and when it was last asked.
#[derive(Default)]
pub(super) struct Health {
    /// Set by a failure, cleared by the next success.
    down: bool,
    last_attempt: Option<Instant>,
}
