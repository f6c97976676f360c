//! Where the events of Streamable HTTP's SSE streams are kept, so a client
//! whose stream ended (the server closed it for SSE polling, SEP-1699, or the
//! connection dropped) reconnects with `Last-Event-ID` and receives what was
//! sent meanwhile.
//!
//! The seam is rmcp's [`EventStore`]: [`MemoryEventStore`] (this process,
//! bounded) unless [`HttpOptions::event_store`](crate::server::transport::http::HttpOptions::event_store)
//! gives another, e.g. one shared by replicas.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use rmcp::model::ServerJsonRpcMessage;
pub use rmcp::transport::streamable_http_server::session::{
    EventId, EventStore, EventStoreError, EventStream, ServerSseMessage, StreamId,
};
use tokio::sync::{mpsc, watch};

/// How many events [`MemoryEventStore::default`] keeps per stream; past it the
/// oldest go first.
pub const DEFAULT_MAX_EVENTS_PER_STREAM: usize = 256;

/// How many streams [`MemoryEventStore::default`] keeps; past it the stream
/// written to the longest ago goes, with its events.
pub const DEFAULT_MAX_STREAMS: usize = 4096;

/// How long [`MemoryEventStore::default`] keeps an event: a client that comes
/// back later than this finds nothing to resume.
pub const DEFAULT_EVENT_MAX_AGE: Duration = Duration::from_secs(5 * 60);

/// The events of SSE streams in this process's memory, bounded three ways:
/// events per stream, streams, and age (see [`Self::new`]). A replay yields
/// what was stored after the client's `Last-Event-ID`, then follows the stream
/// live until its call is answered (a JSON-RPC response or error is the last
/// event of a call's stream), so a client that reconnects before the answer
/// still receives it.
///
/// Event ids are `<random stream key>-<sequence number>`: unique across
/// streams, and no client can guess another stream's ids to replay it.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use mcp_contract::server::{HttpOptions, MemoryEventStore};
/// let store = MemoryEventStore::new(128, 1024, Duration::from_secs(60));
/// let options = HttpOptions::default().event_store(Arc::new(store));
/// # let _ = options;
/// ```
pub struct MemoryEventStore {
    max_events_per_stream: usize,
    max_streams: usize,
    max_age: Duration,
    inner: Arc<Mutex<Streams>>,
}

#[derive(Default)]
struct Streams {
    /// Each stream by the key its event ids carry.
    by_key: HashMap<String, Stored>,
    /// The key of each of rmcp's stream ids.
    keys: HashMap<StreamId, String>,
    /// Keys in the order their streams were last written to, oldest first
    /// (with stale entries, skipped when a stream was written to again).
    recency: VecDeque<(Instant, String)>,
}

struct Stored {
    stream_id: StreamId,
    events: VecDeque<(u64, Instant, ServerSseMessage)>,
    next: u64,
    last_write: Instant,
    /// The stream carried its call's answer: nothing comes after it.
    finished: bool,
    /// The sequence number of the last event, for the replays that follow the stream.
    written: watch::Sender<u64>,
}

impl MemoryEventStore {
    /// A store that keeps at most `max_events_per_stream` events of a stream,
    /// `max_streams` streams, and no event older than `max_age` (each at least one).
    #[must_use]
    pub fn new(max_events_per_stream: usize, max_streams: usize, max_age: Duration) -> Self {
        Self {
            max_events_per_stream: max_events_per_stream.max(1),
            max_streams: max_streams.max(1),
            max_age: max_age.max(Duration::from_millis(1)),
            inner: Arc::default(),
        }
    }

    /// How many events are kept now, over all streams.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().by_key.values().map(|stream| stream.events.len()).sum()
    }

    /// Whether no event is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Streams> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn store_now(&self, stream_id: &str, event: &ServerSseMessage, now: Instant) -> EventId {
        let mut streams = self.lock();
        self.sweep(&mut streams, now);
        let key = match streams.keys.get(stream_id) {
            Some(key) => key.clone(),
            None => {
                while streams.by_key.len() >= self.max_streams {
                    let Some((at, oldest)) = streams.recency.pop_front() else { break };
                    // A stale entry: the stream was written to again since.
                    if streams.by_key.get(&oldest).is_some_and(|stream| stream.last_write == at)
                        && let Some(stream) = streams.by_key.remove(&oldest)
                    {
                        streams.keys.remove(&stream.stream_id);
                    }
                }
                let key = uuid::Uuid::new_v4().simple().to_string();
                streams.keys.insert(stream_id.to_owned(), key.clone());
                streams.by_key.insert(
                    key.clone(),
                    Stored {
                        stream_id: stream_id.to_owned(),
                        events: VecDeque::new(),
                        next: 0,
                        last_write: now,
                        finished: false,
                        written: watch::channel(0).0,
                    },
                );
                key
            }
        };
        let max_events = self.max_events_per_stream;
        let Some(stream) = streams.by_key.get_mut(&key) else { unreachable!("the stream was just found or made") };
        let sequence = stream.next;
        stream.next += 1;
        stream.last_write = now;
        let id = format!("{key}-{sequence}");
        let mut event = event.clone();
        event.event_id = Some(id.clone());
        if is_answer(&event) {
            stream.finished = true;
        }
        stream.events.push_back((sequence, now, event));
        while stream.events.len() > max_events {
            stream.events.pop_front();
        }
        stream.written.send_replace(sequence);
        streams.recency.push_back((now, key));
        // Every write adds an entry; past twice the streams kept, the stale
        // ones go, so the list stays as bounded as the streams are.
        if streams.recency.len() > 2 * self.max_streams + 64 {
            let mut current: Vec<(Instant, String)> =
                streams.by_key.iter().map(|(key, stream)| (stream.last_write, key.clone())).collect();
            current.sort();
            streams.recency = current.into();
        }
        id
    }

    /// Drops the events older than the age limit, and the streams left without
    /// events; the recency list loses its stale entries on the way.
    fn sweep(&self, streams: &mut Streams, now: Instant) {
        let Some(cutoff) = now.checked_sub(self.max_age) else { return };
        while let Some((at, _)) = streams.recency.front() {
            if *at > cutoff {
                break;
            }
            let Some((_, key)) = streams.recency.pop_front() else { break };
            let Some(stream) = streams.by_key.get_mut(&key) else { continue };
            while stream.events.front().is_some_and(|(_, at, _)| *at <= cutoff) {
                stream.events.pop_front();
            }
            if stream.last_write <= cutoff
                && let Some(stream) = streams.by_key.remove(&key)
            {
                streams.keys.remove(&stream.stream_id);
            }
        }
    }

    /// The stored events of `key`'s stream after `after`, whether the stream
    /// is finished, and a receiver that wakes when it is written to; `None`
    /// when the stream is gone.
    fn after(streams: &Streams, key: &str, after: u64) -> Option<(Vec<ServerSseMessage>, bool, watch::Receiver<u64>)> {
        let stream = streams.by_key.get(key)?;
        let events = stream
            .events
            .iter()
            .filter(|(sequence, _, _)| *sequence > after)
            .map(|(_, _, event)| event.clone())
            .collect();
        Some((events, stream.finished, stream.written.subscribe()))
    }
}

impl Default for MemoryEventStore {
    /// [`DEFAULT_MAX_EVENTS_PER_STREAM`], [`DEFAULT_MAX_STREAMS`], [`DEFAULT_EVENT_MAX_AGE`].
    fn default() -> Self {
        Self::new(DEFAULT_MAX_EVENTS_PER_STREAM, DEFAULT_MAX_STREAMS, DEFAULT_EVENT_MAX_AGE)
    }
}

impl std::fmt::Debug for MemoryEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryEventStore")
            .field("max_events_per_stream", &self.max_events_per_stream)
            .field("max_streams", &self.max_streams)
            .field("max_age", &self.max_age)
            .field("events", &self.len())
            .finish()
    }
}

/// A `Last-Event-ID` this store did not give out.
#[derive(Debug)]
struct UnknownEventId;

impl std::fmt::Display for UnknownEventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no stream kept here has this event id (unknown, or older than the store keeps)")
    }
}

impl std::error::Error for UnknownEventId {}

#[async_trait::async_trait]
impl EventStore for MemoryEventStore {
    async fn store_event(&self, stream_id: &str, event: &ServerSseMessage) -> Result<EventId, EventStoreError> {
        Ok(self.store_now(stream_id, event, Instant::now()))
    }

    async fn replay_events_after(&self, last_event_id: &str) -> Result<EventStream, EventStoreError> {
        let (key, sequence) = last_event_id.rsplit_once('-').ok_or(UnknownEventId)?;
        let sequence: u64 = sequence.parse().map_err(|_| UnknownEventId)?;
        let (events, finished, mut written) = Self::after(&self.lock(), key, sequence).ok_or(UnknownEventId)?;
        let (sender, receiver) = mpsc::channel(16);
        let (inner, key) = (Arc::clone(&self.inner), key.to_owned());
        // Replays the stored events, then follows the stream until its call
        // is answered, the stream is dropped from the store, or the client
        // goes away (the receiver is dropped with its HTTP response).
        tokio::spawn(async move {
            let mut last = sequence;
            let mut pending = events;
            let mut finished = finished;
            loop {
                for event in pending.drain(..) {
                    if let Some(sequence) = event.event_id.as_deref().and_then(sequence_of) {
                        last = sequence;
                    }
                    // A priming event (no message) says nothing to a client that is already back.
                    if event.message.is_some() && sender.send(event).await.is_err() {
                        return;
                    }
                }
                if finished {
                    return;
                }
                tokio::select! {
                    changed = written.changed() => if changed.is_err() { return },
                    () = sender.closed() => return,
                }
                let streams = inner.lock().unwrap_or_else(PoisonError::into_inner);
                let Some((events, now_finished, _)) = Self::after(&streams, &key, last) else { return };
                drop(streams);
                pending = events;
                finished = now_finished;
            }
        });
        Ok(Box::pin(Replay(receiver)))
    }
}

fn sequence_of(event_id: &str) -> Option<u64> {
    event_id.rsplit_once('-')?.1.parse().ok()
}

/// What an event id's last part begins with when a store shared by replicas
/// could not store the event (it was down) and sent it under an id of its
/// own that no replay accepts: `{stream id}#~...`.
pub(crate) const UNSTORED_MARK: &str = "#~";

/// Whether `event_id` names an event a replay can find: not one sent while
/// the store was down (see [`UNSTORED_MARK`]).
pub(crate) fn replayable(event_id: &str) -> bool {
    let mark = UNSTORED_MARK.trim_start_matches('#');
    !event_id.rsplit_once('#').is_some_and(|(_, entry)| entry.starts_with(mark))
}

/// A JSON-RPC response or error: the last event of a call's stream.
pub(crate) fn is_answer(event: &ServerSseMessage) -> bool {
    matches!(event.message.as_deref(), Some(ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)))
}

/// The events a replay task sends, as the stream rmcp serves.
pub(crate) struct Replay(pub(crate) mpsc::Receiver<ServerSseMessage>);

impl futures::Stream for Replay {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use rmcp::model::{JsonRpcResponse, RequestId, ServerResult};

    use super::*;

    fn answer(id: i64) -> ServerSseMessage {
        let response =
            JsonRpcResponse { jsonrpc: Default::default(), id: RequestId::Number(id), result: ServerResult::empty(()) };
        ServerSseMessage::from_message(ServerJsonRpcMessage::Response(response))
    }

    #[tokio::test]
    async fn a_replay_yields_the_events_after_the_last_id_then_follows_until_the_answer() {
        let store = Arc::new(MemoryEventStore::default());
        let priming = store.store_event("s", &ServerSseMessage::retry(Duration::from_secs(1))).await.unwrap();
        let mut replay = store.replay_events_after(&priming).await.unwrap();
        let late = tokio::spawn({
            let store = Arc::clone(&store);
            async move { store.store_event("s", &answer(7)).await.unwrap() }
        });
        let event = tokio::time::timeout(Duration::from_secs(5), replay.next()).await.unwrap().unwrap();
        assert_eq!(event.event_id, Some(late.await.unwrap()));
        assert!(replay.next().await.is_none(), "the stream ends with its call's answer");
    }

    #[tokio::test]
    async fn an_unknown_or_foreign_id_replays_nothing() {
        let store = MemoryEventStore::default();
        store.store_event("s", &answer(1)).await.unwrap();
        assert!(store.replay_events_after("0/0").await.is_err());
        assert!(store.replay_events_after("0123456789abcdef0123456789abcdef-0").await.is_err());
    }

    #[tokio::test]
    async fn the_store_keeps_its_bounds() {
        let store = MemoryEventStore::new(2, 2, Duration::from_secs(60));
        let now = Instant::now();
        let first = store.store_now("a", &ServerSseMessage::retry(Duration::from_secs(1)), now);
        for _ in 0..5 {
            store.store_now("a", &ServerSseMessage::retry(Duration::from_secs(1)), now);
        }
        assert_eq!(store.len(), 2, "at most two events per stream");
        store.store_now("b", &answer(1), now);
        store.store_now("c", &answer(2), now);
        assert!(store.replay_events_after(&first).await.is_err(), "the oldest stream made room for a third");
        let later = now + Duration::from_secs(61);
        store.store_now("d", &answer(3), later);
        assert_eq!(store.len(), 1, "events older than the age limit are dropped");
    }
}
