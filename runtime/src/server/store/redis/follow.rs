//! Following a stream live: the replays on this replica are woken by Redis
//! pub/sub (one subscriber connection per replica, a channel per followed
//! stream), and poll when that connection cannot be made.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{RedisStore, lock};

/// How long a replay that follows a stream waits for Redis to tell it of a
/// new event (pub/sub) before it reads the stream anyway: a wake lost while
/// the subscriber connection was made again costs at most this.
pub(super) const FOLLOW_WAKE_WAIT: Duration = Duration::from_secs(1);

/// Without pub/sub (its connection could not be made), how soon a replay
/// that follows a stream reads it again, at first and at most: sooner while
/// events come. A blocking read would hold the one connection every request
/// of the replica shares.
pub(super) const FOLLOW_POLL_MIN: Duration = Duration::from_millis(10);
pub(super) const FOLLOW_POLL_MAX: Duration = Duration::from_millis(200);

/// The replays following streams on this replica, woken by Redis pub/sub:
/// one subscriber connection per replica, one channel per followed stream
/// (`mcp:{namespace}:wake:{stream id}`, published with every stored event).
pub(super) struct Followers {
    sink: redis::aio::PubSubSink,
    /// Each followed channel: how many replays follow it, and their wake.
    channels: Mutex<HashMap<String, (usize, tokio::sync::watch::Sender<u64>)>>,
    /// Cleared when the connection ends: the next replay makes another.
    open: AtomicBool,
    /// How long a subscription may take ([`RedisStore::timeout`]).
    timeout: Duration,
}

/// A replay's wake: changes whenever an event is stored on its stream.
pub(super) struct Wake {
    followers: Arc<Followers>,
    channel: String,
    pub(super) changes: tokio::sync::watch::Receiver<u64>,
}

impl Drop for Wake {
    fn drop(&mut self) {
        let mut channels = lock(&self.followers.channels);
        let Some((count, _)) = channels.get_mut(&self.channel) else { return };
        *count -= 1;
        if *count > 0 {
            return;
        }
        channels.remove(&self.channel);
        drop(channels);
        let (mut sink, channel) = (self.followers.sink.clone(), std::mem::take(&mut self.channel));
        let timeout = self.followers.timeout;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = tokio::time::timeout(timeout, sink.unsubscribe(channel)).await;
            });
        }
    }
}

impl RedisStore {
    /// A wake for the replay following `stream_id`; `None` (the replay polls)
    /// when the subscriber connection cannot be made or does not answer in time.
    pub(super) async fn wake_on(&self, stream_id: &str) -> Option<Wake> {
        let followers = self.followers().await?;
        let channel = self.key("wake", stream_id);
        let (changes, first) = {
            let mut channels = lock(&followers.channels);
            let (count, wake) =
                channels.entry(channel.clone()).or_insert_with(|| (0, tokio::sync::watch::channel(0).0));
            *count += 1;
            (wake.subscribe(), *count == 1)
        };
        // Made before subscribing: dropped, it counts the replay out again.
        let wake = Wake { followers: Arc::clone(&followers), channel, changes };
        if first {
            let mut sink = followers.sink.clone();
            match tokio::time::timeout(followers.timeout, sink.subscribe(&wake.channel)).await {
                Ok(Ok(())) => {}
                _ => return None,
            }
        }
        Some(wake)
    }

    /// This replica's subscriber connection, made when there is none open.
    pub(super) async fn followers(&self) -> Option<Arc<Followers>> {
        let mut made = self.inner.followers.lock().await;
        if let Some(followers) = made.as_ref().filter(|followers| followers.open.load(Ordering::Acquire)) {
            return Some(Arc::clone(followers));
        }
        if self.failed_recently() {
            return None;
        }
        let timeout = self.inner.settings.timeout;
        let client = match self.client().await {
            Ok(client) => client,
            Err(err) => {
                tracing::debug!(%err, "no pub/sub connection to Redis: replays that follow a stream poll it");
                return None;
            }
        };
        let pubsub = match tokio::time::timeout(timeout, client.get_async_pubsub()).await {
            Ok(Ok(pubsub)) => pubsub,
            Ok(Err(err)) => {
                tracing::debug!(%err, "no pub/sub connection to Redis: replays that follow a stream poll it");
                return None;
            }
            Err(_) => return None,
        };
        let (sink, mut messages) = pubsub.split();
        let followers = Arc::new(Followers { sink, channels: Mutex::default(), open: AtomicBool::new(true), timeout });
        let woken = Arc::downgrade(&followers);
        tokio::spawn(async move {
            use futures::StreamExt;
            while let Some(message) = messages.next().await {
                let Some(followers) = woken.upgrade() else { return };
                if let Some((_, wake)) = lock(&followers.channels).get(message.get_channel_name()) {
                    wake.send_modify(|n| *n = n.wrapping_add(1));
                }
            }
            if let Some(followers) = woken.upgrade() {
                followers.open.store(false, Ordering::Release);
                // The replays waiting on it learn it is gone, and poll.
                lock(&followers.channels).clear();
            }
        });
        *made = Some(Arc::clone(&followers));
        Some(followers)
    }
}
