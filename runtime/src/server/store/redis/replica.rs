//! This replica's key, renewed while it runs calls or tasks: the other
//! replicas read a call or task whose replica's key expired as lost.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{RedisStore, millis};

/// How often a replica that runs calls renews its key, and how long the key
/// outlives the last renewal: a replica is taken for stopped this long after
/// it stopped, and a lost call is answered elsewhere soon after.
pub(super) const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
const HEARTBEAT_TTL: Duration = Duration::from_secs(3);

impl RedisStore {
    /// Add to `pipe` the renewal of this replica's key, so that what `pipe`
    /// says this replica runs is never read before the key is there, and
    /// renew it from now on (see [`Self::beat`]).
    pub(super) fn alive(&self, pipe: &mut redis::Pipeline) {
        self.renew(pipe);
        self.beat();
    }

    /// Add to `pipe` the renewal of this replica's key for [`HEARTBEAT_TTL`].
    fn renew(&self, pipe: &mut redis::Pipeline) {
        pipe.cmd("SET")
            .arg(self.key("replica", &self.inner.nonce))
            .arg(1)
            .arg("PX")
            .arg(millis(HEARTBEAT_TTL))
            .ignore();
    }

    /// Renew this replica's key every [`HEARTBEAT_EVERY`] from now on, while
    /// the store lives: the other replicas take its calls over once it stops.
    fn beat(&self) {
        if self.inner.beating.swap(true, Ordering::AcqRel) {
            return;
        }
        let inner = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(HEARTBEAT_EVERY);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(inner) = inner.upgrade() else { return };
                let store = RedisStore { inner };
                let mut pipe = redis::pipe();
                store.renew(&mut pipe);
                let _ = store.query::<()>(&pipe).await;
            }
        });
    }
}
