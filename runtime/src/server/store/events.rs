//! Where the events of Streamable HTTP's SSE streams are kept, so a client
//! whose stream ended (the server closed it for SSE polling, SEP-1699, or the
//! connection dropped) reconnects with `Last-Event-ID` and receives what was
//! sent meanwhile.
//!
//! The seam is rmcp's [`EventStore`]: [`MemoryEventStore`] (this process,
//! bounded) unless [`HttpOptions::event_store`](crate::server::transport::http::HttpOptions::event_store)
//! gives another, e.g. one shared by replicas.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use foldhash::HashMap;
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

/// How many bytes of events and streams [`MemoryEventStore::default`] keeps
/// over all its streams (64 MiB); past it the oldest events go first.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// What an event costs besides its message's JSON: its slots in the stream's
/// queue and in the store's age order, its JSON's allocation.
const EVENT_OVERHEAD: usize = 160;

/// What a stream costs besides its events: its key (twice, in two maps),
/// rmcp's stream id, its watch channel, its recency entries.
const STREAM_OVERHEAD: usize = 384;

/// How often, at most, the store says in the log that it dropped events to
/// hold its byte budget; the counter ([`MemoryEventStore::evicted`], and
/// `mcp_server_sse_events_evicted` on the metrics endpoint) counts each one.
const EVICTION_NOTICE_EVERY: Duration = Duration::from_secs(10);

/// The events of SSE streams in this process's memory, bounded four ways:
/// events per stream, streams, age (see [`Self::new`]), and one byte budget
/// over all streams ([`Self::max_bytes`], [`DEFAULT_MAX_EVENT_BYTES`] by
/// default), which holds the memory flat however many sessions are busy: past
/// it the oldest events go first, counted ([`Self::evicted`]) and said in the
/// log at most every 10 s. A replay yields what was stored after the client's
/// `Last-Event-ID`, then follows the stream live until its call is answered
/// (a JSON-RPC response or error is the last event of a call's stream), so a
/// client that reconnects before the answer still receives it.
///
/// A replay never skips what the client did not see: when an event after its
/// `Last-Event-ID` was dropped (by any bound), the store refuses the replay,
/// as it refuses an id it never gave out, and the client receives an empty
/// stream; the transport spec lets a server replay or not, and forbids only
/// replaying another stream's messages, and a replay with a hole would hand
/// the client a call's answer without the messages before it.
///
/// Event ids are `<random stream key>-<sequence number>`: unique across
/// streams, and no client can guess another stream's ids to replay it.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use mcp_contract::server::{HttpOptions, MemoryEventStore};
/// let store = MemoryEventStore::new(128, 1024, Duration::from_secs(60)).max_bytes(16 * 1024 * 1024);
/// let options = HttpOptions::default().event_store(Arc::new(store));
/// # let _ = options;
/// ```
pub struct MemoryEventStore {
    max_events_per_stream: usize,
    max_streams: usize,
    max_age: Duration,
    max_bytes: usize,
    inner: Arc<Mutex<Streams>>,
    evictions: Arc<Evictions>,
}

/// The events dropped to hold the byte budget, and when the log last said so.
#[derive(Default)]
struct Evictions {
    count: AtomicU64,
    notice: Mutex<Notice>,
}

#[derive(Default)]
struct Notice {
    last: Option<Instant>,
    /// The count when the log last said it.
    said: u64,
}

#[derive(Default)]
struct Streams {
    /// Each stream by the key its event ids carry.
    by_key: HashMap<Arc<str>, Stored>,
    /// The key of each of rmcp's stream ids.
    keys: HashMap<StreamId, Arc<str>>,
    /// Keys in the order their streams were last written to, oldest first
    /// (with stale entries, skipped when a stream was written to again).
    recency: VecDeque<(Instant, Arc<str>)>,
    /// Every event by the order it was stored in, oldest first: the order the
    /// byte budget drops them in (with stale entries, for events that went
    /// another way: per-stream count, age, their stream dropped).
    order: VecDeque<(Arc<str>, u64)>,
    /// The events kept, over all streams.
    events: usize,
    /// What the events and streams kept cost, as [`EVENT_OVERHEAD`] and
    /// [`STREAM_OVERHEAD`] count.
    bytes: usize,
    /// The store has held its `max_streams` once, and its maps are sized for
    /// what they hold from then on (see [`Streams::size_for_churn`]).
    sized: bool,
}

struct Stored {
    stream_id: StreamId,
    /// Each event with its sequence number, when it was stored, and its cost.
    events: VecDeque<(u64, Instant, usize, Kept)>,
    next: u64,
    last_write: Instant,
    /// The stream carried its call's answer: nothing comes after it.
    finished: bool,
    /// The sequence number of the last event, for the replays that follow
    /// the stream: made by the first (most streams have none, and a watch
    /// channel is eight `Notify`s to make and free for each call).
    written: Option<watch::Sender<u64>>,
}

impl Stored {
    /// The sequence number of the oldest event kept, or of the next one when none is.
    fn first_kept(&self) -> u64 {
        self.events.front().map_or(self.next, |(sequence, ..)| *sequence)
    }
}

/// A new stream, made before the store's lock is taken: its key, rmcp's
/// name of it (for `keys`), and the stream.
struct Fresh {
    key: Arc<str>,
    stream_id: StreamId,
    stream: Stored,
}

impl Fresh {
    fn new(stream_id: &str, now: Instant) -> Self {
        Self {
            // Random, so that no client can name another's stream.
            key: uuid::Uuid::new_v4().simple().to_string().into(),
            stream_id: stream_id.to_owned(),
            stream: Stored {
                stream_id: stream_id.to_owned(),
                // A call's stream: its priming event and its answer.
                events: VecDeque::with_capacity(2),
                next: 0,
                last_write: now,
                finished: false,
                written: None,
            },
        }
    }
}

impl Streams {
    /// Drops the oldest event of `stream`, if any, and returns it.
    fn pop_event(&mut self, key: &str) -> Option<u64> {
        let stream = self.by_key.get_mut(key)?;
        let (sequence, _, cost, _) = stream.events.pop_front()?;
        self.events -= 1;
        self.bytes -= cost;
        Some(sequence)
    }

    /// Sizes the maps, once the store holds `max_streams`, for what they hold
    /// from then on: a stream dropped for each one made. Under that churn std's
    /// `HashMap` fills with tombstones and, at some later write, doubles its
    /// table to twice its items, once; reserving that now makes the store reach
    /// the memory it keeps when it first fills, not rounds later (issue #36).
    fn size_for_churn(&mut self, max_streams: usize) {
        if !self.sized && self.by_key.len() >= max_streams {
            self.sized = true;
            self.by_key.reserve(max_streams);
            self.keys.reserve(max_streams);
        }
    }

    /// Makes room for one more entry in `recency` and `order` without growing
    /// them when at least half their entries are stale: a list grows only when
    /// dropping its stale entries would not free half of it. Each list then
    /// stays under four times the most the store has kept, and stops growing
    /// once the store is full, instead of doubling at some later write.
    fn compact_lists(&mut self) {
        if self.recency.len() == self.recency.capacity() && self.recency.len() >= 2 * self.by_key.len() {
            // One entry per stream, in write order, rebuilt in the list's own buffer.
            let Streams { recency, by_key, .. } = self;
            recency.clear();
            recency.extend(by_key.iter().map(|(key, stream)| (stream.last_write, Arc::clone(key))));
            recency.make_contiguous().sort_unstable();
        }
        if self.order.len() == self.order.capacity() && self.order.len() >= 2 * self.events {
            let Streams { order, by_key, .. } = self;
            order.retain(|(key, sequence)| {
                by_key.get(key).is_some_and(|stream| (stream.first_kept()..stream.next).contains(sequence))
            });
        }
    }

    /// Takes `key`'s stream out with its events, for the caller to drop
    /// (after the lock, where it can).
    fn remove_stream(&mut self, key: &str) -> Option<Stored> {
        let stream = self.by_key.remove(key)?;
        self.keys.remove(&stream.stream_id);
        self.events -= stream.events.len();
        self.bytes -= STREAM_OVERHEAD + stream.events.iter().map(|(_, _, cost, _)| cost).sum::<usize>();
        Some(stream)
    }

    /// Drops the oldest event over all streams (a finished stream left
    /// without events goes with it), or when no event is kept, the stream
    /// written to the longest ago. `false` when nothing is left to drop.
    fn evict_oldest(&mut self) -> bool {
        while let Some((key, sequence)) = self.order.pop_front() {
            // The oldest live entry is its stream's oldest event: any older
            // event of that stream would be an older live entry.
            let live =
                self.by_key.get(&key).is_some_and(|stream| stream.events.front().is_some_and(|e| e.0 == sequence));
            if !live {
                continue;
            }
            self.pop_event(&key);
            if self.by_key.get(&key).is_some_and(|stream| stream.finished && stream.events.is_empty()) {
                drop(self.remove_stream(&key));
            }
            return true;
        }
        while let Some((at, key)) = self.recency.pop_front() {
            if self.by_key.get(&key).is_some_and(|stream| stream.last_write == at) {
                drop(self.remove_stream(&key));
                return true;
            }
        }
        false
    }
}

/// An event as the store keeps it: its message's JSON, one allocation, in
/// place of the message's tree of them (a call's answer holds dozens, made
/// while the call ran, among the call's short-lived ones; kept for minutes,
/// they left the allocator's heap in holes that grew the memory for rounds
/// after the store was full, issue #36). `None` for an event without a
/// message (a priming event, the end of a call), which a replay never sends.
/// Its id is its stream's key and its sequence number. Shared: a call's SSE
/// body writes it as it is ([`MemoryEventStore::kept_json`]).
struct Kept(Option<Arc<str>>);

impl Kept {
    /// `event` as kept, and what it costs: its JSON's size plus [`EVENT_OVERHEAD`].
    fn of(event: &ServerSseMessage) -> (Self, usize) {
        // A message that does not serialize could not be sent either; it is kept as none.
        let json = event.message.as_deref().and_then(|message| serde_json::to_string(message).ok());
        let json = json.map(Arc::<str>::from);
        let cost = json.as_ref().map_or(0, |json| json.len()) + EVENT_OVERHEAD;
        (Self(json), cost)
    }
}

/// The id of the event `sequence` of the stream `key`, made in one
/// allocation (`format!` grew it twice, a `realloc` per event under load)
/// and without `fmt`'s machinery (470 instructions an id through it, two a call).
fn event_id(key: &str, sequence: u64) -> EventId {
    let mut digits = itoa::Buffer::new();
    let sequence = digits.format(sequence);
    let mut id = String::with_capacity(key.len() + 1 + sequence.len());
    id.push_str(key);
    id.push('-');
    id.push_str(sequence);
    id
}

/// The event kept as `json`, under its id, for a replay.
fn replayed(key: &str, sequence: u64, json: &str) -> Option<ServerSseMessage> {
    let message = serde_json::from_str::<ServerJsonRpcMessage>(json).ok()?;
    Some(ServerSseMessage::new(event_id(key, sequence), message))
}

/// What `event` costs kept.
#[cfg(test)]
fn cost_of(event: &ServerSseMessage) -> usize {
    Kept::of(event).1
}

/// What a replay finds after a `Last-Event-ID`.
enum After {
    /// The stored events after it that a replay sends (their sequence
    /// numbers and JSON), the sequence number of the last one stored, and
    /// whether the stream is finished.
    Events(Vec<(u64, Arc<str>)>, u64, bool),
    /// Events after it were dropped (budget, count or age): replaying the
    /// rest would hide the hole.
    Dropped,
    /// No stream kept here has this key.
    Gone,
}

impl MemoryEventStore {
    /// A store that keeps at most `max_events_per_stream` events of a stream,
    /// `max_streams` streams, and no event older than `max_age` (each at
    /// least one), within [`DEFAULT_MAX_EVENT_BYTES`] unless
    /// [`Self::max_bytes`] says otherwise.
    #[must_use]
    pub fn new(max_events_per_stream: usize, max_streams: usize, max_age: Duration) -> Self {
        Self {
            max_events_per_stream: max_events_per_stream.max(1),
            max_streams: max_streams.max(1),
            max_age: max_age.max(Duration::from_millis(1)),
            max_bytes: DEFAULT_MAX_EVENT_BYTES,
            inner: Arc::default(),
            evictions: Arc::default(),
        }
    }

    /// Keep at most `bytes` of events and streams over all streams (at least
    /// one event's worth is always kept, the newest): past it the oldest
    /// events go first, whichever stream they are on. An event costs its
    /// message's JSON size plus 160 bytes, a stream 384 bytes: an estimate of
    /// the heap they hold, from below. [`DEFAULT_MAX_EVENT_BYTES`] (64 MiB)
    /// unless set.
    ///
    /// ```
    /// use mcp_contract::server::MemoryEventStore;
    /// let store = MemoryEventStore::default().max_bytes(8 * 1024 * 1024);
    /// assert_eq!(store.evicted(), 0);
    /// ```
    #[must_use]
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// How many events are kept now, over all streams.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().events
    }

    /// Whether no event is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the events and streams kept now cost, as [`Self::max_bytes`] counts it.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// How many events were dropped, since the store was made, to hold its
    /// byte budget ([`Self::max_bytes`]); the other bounds' drops are not
    /// counted.
    #[must_use]
    pub fn evicted(&self) -> u64 {
        self.evictions.count.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Streams> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn store_now(&self, stream_id: &str, event: &ServerSseMessage, now: Instant) -> EventId {
        // Outside the lock, which every event of every call takes: serializing,
        // the costly part of a store; a new stream's parts (a priming event
        // begins a stream); and, below, dropping the streams pushed out. Under
        // load from 64 sessions, making and freeing those under the lock made
        // it the server's most contended: nearly a third of its `futex` calls
        // waited on it or on the allocator's lock for what it freed (issue #36).
        let (kept, cost) = Kept::of(event);
        let priming = event.message.is_none() && !is_end_of_call(event);
        let fresh = priming.then(|| Fresh::new(stream_id, now));
        let mut pushed_out = Vec::with_capacity(usize::from(fresh.is_some()));
        let mut streams = self.lock();
        self.sweep(&mut streams, now, &mut pushed_out);
        let (key, unused) = match streams.keys.get(stream_id) {
            Some(key) => (Arc::clone(key), fresh),
            None => {
                while streams.by_key.len() >= self.max_streams {
                    let Some((at, oldest)) = streams.recency.pop_front() else { break };
                    // A stale entry: the stream was written to again since.
                    if streams.by_key.get(&oldest).is_some_and(|stream| stream.last_write == at) {
                        pushed_out.extend(streams.remove_stream(&oldest));
                    }
                }
                let Fresh { key, stream_id, stream } = fresh.unwrap_or_else(|| Fresh::new(stream_id, now));
                streams.keys.insert(stream_id, Arc::clone(&key));
                streams.by_key.insert(Arc::clone(&key), stream);
                streams.bytes += STREAM_OVERHEAD;
                streams.size_for_churn(self.max_streams);
                (key, None)
            }
        };
        let max_events = self.max_events_per_stream;
        let Some(stream) = streams.by_key.get_mut(&key) else { unreachable!("the stream was just found or made") };
        let sequence = stream.next;
        stream.next += 1;
        stream.last_write = now;
        if ends_call(event) {
            stream.finished = true;
        }
        stream.events.push_back((sequence, now, cost, kept));
        let over = stream.events.len() > max_events;
        if let Some(written) = &stream.written {
            written.send_replace(sequence);
        }
        streams.events += 1;
        streams.bytes += cost;
        if over {
            streams.pop_event(&key);
        }
        streams.compact_lists();
        streams.order.push_back((Arc::clone(&key), sequence));
        streams.recency.push_back((now, Arc::clone(&key)));
        let mut evicted = 0;
        // The newest event stays, whatever it costs: a store that keeps
        // nothing would answer no resumption at all.
        while streams.bytes > self.max_bytes && streams.events > 1 && streams.evict_oldest() {
            evicted += 1;
        }
        drop(streams);
        drop((pushed_out, unused));
        if evicted > 0 {
            self.count_evictions(evicted, now);
        }
        event_id(&key, sequence)
    }

    /// Counts `evicted` events dropped for the budget, and says so in the log
    /// at most every [`EVICTION_NOTICE_EVERY`].
    fn count_evictions(&self, evicted: u64, now: Instant) {
        let total = self.evictions.count.fetch_add(evicted, Ordering::Relaxed) + evicted;
        let mut notice = self.evictions.notice.lock().unwrap_or_else(PoisonError::into_inner);
        if notice.last.is_some_and(|last| now.saturating_duration_since(last) < EVICTION_NOTICE_EVERY) {
            return;
        }
        tracing::warn!(
            evicted = total - notice.said,
            evicted_total = total,
            max_bytes = self.max_bytes,
            "the SSE event store dropped its oldest events to hold its byte budget; \
             a client resuming from before them gets an empty stream"
        );
        notice.last = Some(now);
        notice.said = total;
    }

    /// Drops the events older than the age limit, and the streams left without
    /// events; the recency list loses its stale entries on the way.
    fn sweep(&self, streams: &mut Streams, now: Instant, pushed_out: &mut Vec<Stored>) {
        let Some(cutoff) = now.checked_sub(self.max_age) else { return };
        while let Some((at, _)) = streams.recency.front() {
            if *at > cutoff {
                break;
            }
            let Some((_, key)) = streams.recency.pop_front() else { break };
            let Some(stream) = streams.by_key.get(&key) else { continue };
            if stream.last_write <= cutoff {
                pushed_out.extend(streams.remove_stream(&key));
                continue;
            }
            while streams
                .by_key
                .get(&key)
                .is_some_and(|stream| stream.events.front().is_some_and(|(_, at, ..)| *at <= cutoff))
            {
                streams.pop_event(&key);
            }
        }
    }

    /// What a replay of `key`'s stream after `after` finds.
    /// The JSON kept of the event `event_id`, as storing it serialized its
    /// message: a call's SSE body writes it rather than serialize the message
    /// a second time. `None` for an event not kept (any more), or an id this
    /// store did not make.
    pub(crate) fn kept_json(&self, event_id: &str) -> Option<Arc<str>> {
        let (key, sequence) = event_id.rsplit_once('-')?;
        let sequence: u64 = sequence.parse().ok()?;
        let streams = self.lock();
        let stream = streams.by_key.get(key)?;
        // The newest first: the body asks right after the event was stored.
        let (.., Kept(json)) = stream.events.iter().rev().find(|(kept, ..)| *kept == sequence)?;
        json.clone()
    }

    fn after(streams: &Streams, key: &str, after: u64) -> After {
        let Some(stream) = streams.by_key.get(key) else { return After::Gone };
        if stream.first_kept() > after.saturating_add(1) {
            return After::Dropped;
        }
        let events = stream
            .events
            .iter()
            .filter(|(sequence, ..)| *sequence > after)
            .filter_map(|(sequence, .., Kept(json))| Some((*sequence, json.clone()?)))
            .collect();
        let last = stream.events.back().map_or(after, |(sequence, ..)| *sequence).max(after);
        After::Events(events, last, stream.finished)
    }
}

impl Default for MemoryEventStore {
    /// [`DEFAULT_MAX_EVENTS_PER_STREAM`], [`DEFAULT_MAX_STREAMS`],
    /// [`DEFAULT_EVENT_MAX_AGE`], [`DEFAULT_MAX_EVENT_BYTES`].
    fn default() -> Self {
        Self::new(DEFAULT_MAX_EVENTS_PER_STREAM, DEFAULT_MAX_STREAMS, DEFAULT_EVENT_MAX_AGE)
    }
}

impl std::fmt::Debug for MemoryEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (events, bytes) = {
            let streams = self.lock();
            (streams.events, streams.bytes)
        };
        f.debug_struct("MemoryEventStore")
            .field("max_events_per_stream", &self.max_events_per_stream)
            .field("max_streams", &self.max_streams)
            .field("max_age", &self.max_age)
            .field("max_bytes", &self.max_bytes)
            .field("events", &events)
            .field("bytes", &bytes)
            .field("evicted", &self.evicted())
            .finish()
    }
}

/// Events after a `Last-Event-ID` were dropped before the client came back.
#[derive(Debug)]
struct DroppedEvents;

impl std::fmt::Display for DroppedEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "events after this event id were dropped (the store's byte budget, count or age bound); \
             nothing is replayed rather than a stream with a hole",
        )
    }
}

impl std::error::Error for DroppedEvents {}

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
        let mut streams = self.lock();
        let (events, mut last, finished) = match Self::after(&streams, key, sequence) {
            After::Events(events, last, finished) => (events, last, finished),
            After::Dropped => return Err(DroppedEvents.into()),
            After::Gone => return Err(UnknownEventId.into()),
        };
        let Some(stream) = streams.by_key.get_mut(key) else { return Err(UnknownEventId.into()) };
        // Wakes when the stream is written to, and ends when it is dropped.
        let mut written = stream.written.get_or_insert_with(|| watch::channel(last).0).subscribe();
        drop(streams);
        let (sender, receiver) = mpsc::channel(16);
        let (inner, key) = (Arc::clone(&self.inner), key.to_owned());
        // Replays the stored events, then follows the stream until its call
        // is answered, the stream is dropped from the store (or loses events
        // this replay has not sent), or the client goes away (the receiver
        // is dropped with its HTTP response).
        tokio::spawn(async move {
            let mut pending = events;
            let mut finished = finished;
            loop {
                // A priming event (no message) says nothing to a client that is
                // already back: `After` leaves it out.
                for (sequence, json) in pending.drain(..) {
                    // A message kept that does not read back ends the replay: no stream with a hole.
                    let Some(event) = replayed(&key, sequence, &json) else {
                        tracing::warn!(sequence, "a kept SSE event did not read back as a message; the replay ends");
                        return;
                    };
                    if sender.send(event).await.is_err() {
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
                let After::Events(events, now_last, now_finished) = Self::after(&streams, &key, last) else {
                    return;
                };
                drop(streams);
                pending = events;
                last = now_last;
                finished = now_finished;
            }
        });
        Ok(Box::pin(Replay(receiver)))
    }
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

/// The event stored on a call's stream when the call ends without an answer
/// (the client cancelled it): no message and no retry hint, which neither a
/// message nor a priming event is. A replay ends at it and never sends it:
/// without it, a replay would follow a stream nothing is written to again.
pub(crate) fn end_of_call() -> ServerSseMessage {
    let mut event = ServerSseMessage::retry(Duration::ZERO);
    event.retry = None;
    event
}

/// Whether `event` is [`end_of_call`]'s.
pub(crate) fn is_end_of_call(event: &ServerSseMessage) -> bool {
    event.message.is_none() && event.retry.is_none()
}

/// The last event of a call's stream: its answer, or the end of a call that
/// will have none.
pub(crate) fn ends_call(event: &ServerSseMessage) -> bool {
    is_answer(event) || is_end_of_call(event)
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

    #[test]
    fn an_event_id_is_its_stream_s_key_a_dash_and_its_sequence_in_decimal() {
        assert_eq!(event_id("0f3a", 0), "0f3a-0");
        assert_eq!(event_id("0f3a", 42), "0f3a-42");
        assert_eq!(event_id("0f3a-1", u64::MAX), "0f3a-1-18446744073709551615");
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

    /// The store keeps a message as its JSON: the replay sends the same message.
    #[tokio::test]
    async fn a_replayed_answer_is_the_message_stored() {
        let store = MemoryEventStore::default();
        let priming = store.store_event("s", &ServerSseMessage::retry(Duration::from_secs(1))).await.unwrap();
        let mut result = rmcp::model::CallToolResult::structured(serde_json::json!({"name": "item a", "count": 5}));
        result.is_error = Some(false);
        let response = JsonRpcResponse {
            jsonrpc: Default::default(),
            id: RequestId::String("call-1".into()),
            result: ServerResult::CallToolResult(result),
        };
        let sent = ServerSseMessage::from_message(ServerJsonRpcMessage::Response(response));
        let id = store.store_event("s", &sent).await.unwrap();
        let replay: Vec<_> = store.replay_events_after(&priming).await.unwrap().collect().await;
        assert_eq!(replay.len(), 1, "the answer, not the priming event");
        assert_eq!(replay[0].event_id.as_deref(), Some(id.as_str()));
        let json = |event: &ServerSseMessage| serde_json::to_value(event.message.as_deref().unwrap()).unwrap();
        assert_eq!(json(&replay[0]), json(&sent));
    }

    /// A call's SSE body writes the JSON the store kept: the message's, to the byte.
    #[tokio::test]
    async fn the_json_kept_of_an_event_is_its_message_serialized() {
        let store = MemoryEventStore::new(2, 4, Duration::from_secs(60));
        let priming = store.store_event("s", &ServerSseMessage::retry(Duration::from_secs(1))).await.unwrap();
        let sent = answer(3);
        let id = store.store_event("s", &sent).await.unwrap();
        let message = sent.message.as_deref().unwrap();
        assert_eq!(store.kept_json(&id).as_deref(), Some(serde_json::to_string(message).unwrap().as_str()));
        // A priming event has no message; an id of another store, or none, finds nothing.
        assert_eq!(store.kept_json(&priming), None);
        for foreign in ["", "s-1", &format!("{id}0"), "0123456789abcdef0123456789abcdef-1"] {
            assert_eq!(store.kept_json(foreign), None, "{foreign}");
        }
        // Pushed out of its stream by newer events, an event is not kept any more.
        store.store_event("s", &answer(4)).await.unwrap();
        store.store_event("s", &answer(5)).await.unwrap();
        assert_eq!(store.kept_json(&id), None);
    }

    #[tokio::test]
    async fn a_replay_ends_at_the_end_of_a_cancelled_call_without_sending_it() {
        let store = Arc::new(MemoryEventStore::default());
        let priming = store.store_event("s", &ServerSseMessage::retry(Duration::from_secs(1))).await.unwrap();
        let mut replay = store.replay_events_after(&priming).await.unwrap();
        store.store_event("s", &end_of_call()).await.unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), replay.next()).await;
        assert!(next.expect("the replay ends").is_none(), "nothing after the end, and not the end itself");
        let again = store.replay_events_after(&priming).await.unwrap();
        assert!(again.collect::<Vec<_>>().await.is_empty(), "a later replay ends at once");
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

    /// A progress notification saying `text`: its JSON grows with the text,
    /// so its cost does.
    fn log(text: &str) -> ServerSseMessage {
        let mut progress = rmcp::model::ProgressNotificationParam::new(
            rmcp::model::ProgressToken(rmcp::model::NumberOrString::Number(1)),
            1.0,
        );
        progress.message = Some(text.to_owned());
        ServerSseMessage::from_message(ServerJsonRpcMessage::notification(
            rmcp::model::ServerNotification::ProgressNotification(rmcp::model::Notification::new(progress)),
        ))
    }

    #[tokio::test]
    async fn the_byte_budget_drops_the_oldest_events_first_whichever_stream_they_are_on() {
        let one = cost_of(&log(&"x".repeat(1000)));
        // Room for the streams and five such events, not six.
        let store = MemoryEventStore::default().max_bytes(3 * STREAM_OVERHEAD + 5 * one + one / 2);
        let now = Instant::now();
        let mut ids = Vec::new();
        for (n, stream) in ["a", "b", "c", "a", "b", "c", "a"].into_iter().enumerate() {
            ids.push(store.store_now(stream, &log(&"x".repeat(1000)), now + Duration::from_millis(n as u64)));
            assert!(store.bytes() <= 3 * STREAM_OVERHEAD + 5 * one + one / 2, "the budget holds after event {n}");
        }
        assert_eq!(store.len(), 5, "five events fit");
        assert_eq!(store.evicted(), 2, "the two oldest went, counted");
        // The first two stored (a-0, b-0) went, though a has a later event kept.
        let replayed = |id: &str| {
            let streams = store.lock();
            let (key, sequence) = id.rsplit_once('-').unwrap();
            match MemoryEventStore::after(&streams, key, sequence.parse().unwrap()) {
                After::Events(events, ..) => Some(events.len()),
                After::Dropped | After::Gone => None,
            }
        };
        assert_eq!(replayed(&ids[2]), Some(1), "c's first event is kept: the replay after it has c's second");
        assert_eq!(replayed(&ids[3]), Some(1), "a's second event is kept: the replay after it has a's third");
        assert_eq!(store.bytes(), 3 * STREAM_OVERHEAD + 5 * one, "the cost counts what is kept, exactly");
    }

    #[tokio::test]
    async fn a_resumption_from_before_a_dropped_event_is_refused_not_replayed_with_a_hole() {
        let one = cost_of(&log("x"));
        let store = MemoryEventStore::default().max_bytes(STREAM_OVERHEAD + 2 * one);
        let priming = store.store_event("s", &ServerSseMessage::retry(Duration::from_secs(1))).await.unwrap();
        let first = store.store_event("s", &log("x")).await.unwrap();
        store.store_event("s", &log("x")).await.unwrap();
        store.store_event("s", &answer(1)).await.unwrap();
        assert!(store.evicted() >= 1, "{store:?}");
        let refused = store.replay_events_after(&priming).await.err().expect("the event after the priming one went");
        assert!(refused.to_string().contains("dropped"), "{refused}");
        // `first` itself went, but the client saw it: what came after it is all kept.
        assert_eq!(store.len(), 2, "{store:?}");
        let replay: Vec<_> = store.replay_events_after(&first).await.unwrap().collect().await;
        assert_eq!(replay.len(), 2, "the second log and the answer");
        assert!(!replay.is_empty() && is_answer(replay.last().unwrap()), "the answer is replayed");
    }

    #[tokio::test]
    async fn a_busy_store_stays_within_its_budget_and_its_lists_stay_bounded() {
        let budget = 256 * 1024;
        let store = MemoryEventStore::default().max_bytes(budget);
        let now = Instant::now();
        let (mut most_events, mut most_streams) = (0, 0);
        for n in 0..20_000u64 {
            let stream = format!("stream-{}", n % 300);
            store.store_now(&stream, &log(&"y".repeat((n % 500) as usize)), now);
            if n % 7 == 0 {
                store.store_now(&stream, &answer(n as i64), now);
            }
            let streams = store.lock();
            most_events = most_events.max(streams.events);
            most_streams = most_streams.max(streams.by_key.len());
        }
        assert!(store.bytes() <= budget, "{} bytes kept", store.bytes());
        assert!(store.evicted() > 10_000, "{store:?}");
        let streams = store.lock();
        assert!(
            streams.order.capacity() < 4 * most_events,
            "room for {} entries, {most_events} events kept at most",
            streams.order.capacity(),
        );
        assert!(streams.recency.capacity() < 4 * most_streams, "{} for {most_streams}", streams.recency.capacity());
        let counted: usize = streams.by_key.values().map(|stream| stream.events.len()).sum();
        assert_eq!(counted, streams.events);
        let cost: usize = streams
            .by_key
            .values()
            .map(|stream| STREAM_OVERHEAD + stream.events.iter().map(|(_, _, cost, _)| cost).sum::<usize>())
            .sum();
        assert_eq!(cost, streams.bytes, "the running count is the sum of what is kept");
    }

    /// Issue #36: in stateless mode every call is a stream of its own (a
    /// priming event, then the answer), so a full store drops a stream for
    /// each it makes; its memory grew for rounds after it first filled.
    #[tokio::test]
    async fn a_full_store_stops_growing_once_it_is_full() {
        const STREAMS: usize = 512;
        let store = MemoryEventStore::new(DEFAULT_MAX_EVENTS_PER_STREAM, STREAMS, Duration::from_secs(60));
        let now = Instant::now();
        let call = |n: usize| {
            let stream = format!("call-{n}");
            store.store_now(&stream, &ServerSseMessage::retry(Duration::from_secs(3)), now);
            store.store_now(&stream, &answer(n as i64), now);
        };
        let room = |store: &MemoryEventStore| {
            let streams = store.lock();
            [streams.by_key.capacity(), streams.keys.capacity(), streams.order.capacity(), streams.recency.capacity()]
        };
        // The warm-up: the store fills, then drops a stream for each call.
        for n in 0..2 * STREAMS {
            call(n);
        }
        let warm = room(&store);
        for n in 2 * STREAMS..40 * STREAMS {
            call(n);
            let now = room(&store);
            // A map's capacity is what it can hold before its table grows:
            // tombstones lower it between rehashes, a growth would raise it.
            assert!(
                now.iter().zip(&warm).all(|(now, warm)| now <= warm),
                "call {n}: {now:?}, after the warm-up {warm:?}"
            );
        }
        assert_eq!(store.lock().by_key.len(), STREAMS);
    }
}
