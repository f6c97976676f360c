//! Sessions, SSE events and tasks in Redis, so that replicas behind a load
//! balancer share them: a session opened on one replica is restored on
//! another from its stored `initialize`, a stream cut on one is replayed on
//! another after its `Last-Event-ID`, a task started on one is read on another.
//!
//! A replay follows its stream live until the call's answer, woken by a
//! pub/sub message published with every event. A call's request is kept
//! beside its stream, with the replica running it, and every replica renews a
//! short-lived key while it runs: a replay that follows a stream whose
//! replica stopped before the answer ends, and the session streams answer
//! the call on the replica the client came back to. A task is kept with its
//! replica too, and reads as failed once that replica stopped.
//!
//! Every key starts with `mcp:{namespace}:` (the server's name unless set), so
//! servers can share one Redis. Every command waits at most the store's
//! timeout; after a failure the store is not asked again for a moment, so
//! requests that need it are refused at once (503) instead of each waiting.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use rmcp::model::{ClientJsonRpcMessage, DetailedTask, ServerJsonRpcMessage, TaskPayload};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::{
    EventId, EventStore, EventStoreError, EventStream, SessionState, SessionStore, SessionStoreError,
};

use super::events::{Replay, is_answer};
use super::shared::{CallFate, SESSION_OWNER, SharedStore, StoredSession, UNAVAILABLE, Unavailable};
use super::tasks::TaskStore;
use crate::call::BoxFuture;
use crate::error::McpError;

/// The environment variable [`Server::run_cli`](crate::server::Server::run_cli) reads
/// the Redis URL from, when the server was given none.
pub const REDIS_URL_ENV: &str = "MCP_REDIS_URL";

/// How many events of one SSE stream are kept, by default: a stream is one
/// request's answer (its progress, logs, and the result) or a session's
/// standalone stream; the oldest go first.
pub const DEFAULT_EVENTS_PER_STREAM: usize = 1024;

/// How long an SSE event can be replayed, by default: past it, a client
/// resuming with `Last-Event-ID` gets only the events after it that are younger.
pub const DEFAULT_EVENT_AGE: Duration = Duration::from_secs(10 * 60);

/// How long a session is kept unused, by default, as
/// [`HttpOptions::session_idle_timeout`](crate::server::HttpOptions::session_idle_timeout)
/// keeps one in memory: any request of the session, on any replica, pushes it back.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(5 * 60);

/// How long one Redis command may take, by default, before the request that
/// needs it is refused (503).
pub const DEFAULT_REDIS_TIMEOUT: Duration = Duration::from_secs(1);

/// After a failure, how long the store is taken for down without asking it.
const PROBE_INTERVAL: Duration = Duration::from_millis(250);

/// How often a replica that runs calls renews its key, and how long the key
/// outlives the last renewal: a replica is taken for stopped this long after
/// it stopped, and a lost call is answered elsewhere soon after.
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
const HEARTBEAT_TTL: Duration = Duration::from_secs(3);

/// How long a replay that follows a stream waits for Redis to tell it of a
/// new event (pub/sub) before it reads the stream anyway: a wake lost while
/// the subscriber connection was made again costs at most this.
const FOLLOW_WAKE_WAIT: Duration = Duration::from_secs(1);

/// Without pub/sub (its connection could not be made), how soon a replay
/// that follows a stream reads it again, at first and at most: sooner while
/// events come. A blocking read would hold the one connection every request
/// of the replica shares.
const FOLLOW_POLL_MIN: Duration = Duration::from_millis(10);
const FOLLOW_POLL_MAX: Duration = Duration::from_millis(200);

/// A task and whether it may still finish: 0 when the replica that last
/// stored it stopped, 1 otherwise; nil when there is no such task.
/// KEYS: the task, its runner; ARGV: the prefix of replica keys.
const TASK_GET: &str = r"
local task = redis.call('GET', KEYS[1])
if not task then return false end
local runner = redis.call('GET', KEYS[2])
if runner and redis.call('EXISTS', ARGV[1] .. runner) == 0 then return {task, 0} end
return {task, 1}
";

/// How long a call's record outlives its answer: long enough that its
/// record, written in the background as the call starts, cannot land after
/// the answer and stay.
const ANSWERED_CALL_KEPT: Duration = Duration::from_secs(30);

/// Keep a call's request with its session and replica, unless the call is
/// answered already. KEYS: the call; ARGV: the replica, the request, the
/// time to keep, the session.
const KEEP_CALL: &str = r"
if redis.call('HEXISTS', KEYS[1], 'answered') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'request', ARGV[2], 'session', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
";

/// Whether to go on following a stream: 1 when its call's replica's key is
/// there, 0 when that replica stopped, 2 when the call is answered, -1 when
/// the stream has no call kept (a session's standalone stream), -2 when the
/// stream is gone. KEYS: the events, the call; ARGV: the prefix of replica keys.
const CALL_RUNS: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
local call = redis.call('HMGET', KEYS[2], 'owner', 'answered')
if call[2] then return 2 end
if not call[1] then return -1 end
return redis.call('EXISTS', ARGV[1] .. call[1])
";

/// Take over a call whose replica stopped before its answer: the request,
/// when this replica (ARGV[2]) is now the call's owner; nil when the call is
/// answered, its replica runs, another replica took it over first, or it is
/// not of the session resuming it (ARGV[3]).
/// KEYS: the call; ARGV: the prefix of replica keys, this replica, the session.
const TAKE_OVER: &str = r"
local call = redis.call('HMGET', KEYS[1], 'owner', 'request', 'answered', 'session')
if not call[1] or not call[2] or call[3] or call[4] ~= ARGV[3] then return false end
if call[1] == ARGV[2] or redis.call('EXISTS', ARGV[1] .. call[1]) == 1 then return false end
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
return call[2]
";

/// A Redis URL that cannot be used.
#[derive(Debug)]
pub struct RedisUrlError(String);

impl std::fmt::Display for RedisUrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "The Redis URL is not usable ({}); write it as redis://[user:password@]host[:port][/db]", self.0)
    }
}

impl std::error::Error for RedisUrlError {}

/// Streamable HTTP sessions, SSE events and tasks kept in Redis, for servers
/// whose replicas share them. [`Server::redis`](crate::server::Server::redis) sets it
/// up from a URL in one call; this type is for a store with other retention.
///
/// A client whose stream was cut resumes it on any replica, which follows
/// the call live to its answer. When the replica running a call stopped
/// before answering, the replica the client resumed on answers it: it runs
/// the call again when that is safe (a tool annotated `read_only` or
/// `idempotent`, a resource read, a prompt, a completion), and else answers
/// that the call was lost, since it may have taken effect. A task whose
/// replica stopped reads as `failed`.
///
/// ```
/// use std::time::Duration;
/// use mcp_contract::server::{RedisStore, Server};
/// let store = RedisStore::new("redis://127.0.0.1:6379/")?
///     .namespace("museum-eu")
///     .events_per_stream(256)
///     .event_age(Duration::from_secs(120));
/// let server = Server::new("museum", "1.0.0").redis_store(store);
/// # let _ = server;
/// # Ok::<(), mcp_contract::server::RedisUrlError>(())
/// ```
///
/// Nothing connects before the first command, which waits at most
/// [`RedisStore::timeout`]; a connection lost is made again by itself.
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

/// What the builder methods set.
#[derive(Clone)]
struct Settings {
    client: redis::Client,
    namespace: Option<String>,
    events_per_stream: usize,
    event_age: Duration,
    session_idle: Duration,
    timeout: Duration,
}

struct Inner {
    settings: Settings,
    /// Made on first use: making it spawns on the tokio runtime.
    connection: OnceLock<ConnectionManager>,
    health: Mutex<Health>,
    /// Event ids given out while Redis could not store the event: unique
    /// to this process (`nonce`) and never replayed.
    nonce: String,
    unstored: AtomicU64,
    /// Sessions whose state could not be stored at `initialize`.
    store_failures: Mutex<HashSet<String>>,
    /// When this process last pushed back each session's expiry.
    touched: Mutex<HashMap<String, Instant>>,
    /// Whether this replica renews its key (from its first kept call on).
    beating: AtomicBool,
    /// The pub/sub connection that wakes the replays following streams,
    /// made by the first one.
    followers: tokio::sync::Mutex<Option<Arc<Followers>>>,
}

impl Inner {
    fn new(settings: Settings) -> Self {
        Self {
            settings,
            connection: OnceLock::new(),
            health: Mutex::new(Health { down: false, last_attempt: None }),
            nonce: uuid::Uuid::new_v4().simple().to_string(),
            unstored: AtomicU64::new(0),
            store_failures: Mutex::default(),
            touched: Mutex::default(),
            beating: AtomicBool::new(false),
            followers: tokio::sync::Mutex::new(None),
        }
    }
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("namespace", &self.inner.settings.namespace)
            .field("events_per_stream", &self.inner.settings.events_per_stream)
            .field("event_age", &self.inner.settings.event_age)
            .field("session_idle", &self.inner.settings.session_idle)
            .field("timeout", &self.inner.settings.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store on the Redis at `url` (`redis://host:port/db`, `rediss://` for
    /// TLS is not built in), with the default retention.
    ///
    /// # Errors
    ///
    /// [`RedisUrlError`] when `url` is not a Redis URL.
    pub fn new(url: &str) -> Result<Self, RedisUrlError> {
        let client = redis::Client::open(url).map_err(|err| RedisUrlError(err.to_string()))?;
        Ok(Self {
            inner: Arc::new(Inner::new(Settings {
                client,
                namespace: None,
                events_per_stream: DEFAULT_EVENTS_PER_STREAM,
                event_age: DEFAULT_EVENT_AGE,
                session_idle: DEFAULT_SESSION_IDLE,
                timeout: DEFAULT_REDIS_TIMEOUT,
            })),
        })
    }

    /// The same store with other settings: a store of its own (settings are
    /// made before serving, so nothing it held is lost).
    fn with(self, change: impl FnOnce(&mut Settings)) -> Self {
        let mut settings = self.inner.settings.clone();
        change(&mut settings);
        Self { inner: Arc::new(Inner::new(settings)) }
    }

    /// The prefix of every key, `mcp:{namespace}:`; the server's name unless set.
    pub fn namespace(self, namespace: impl Into<String>) -> Self {
        let namespace = namespace.into();
        self.with(|settings| settings.namespace = Some(namespace))
    }

    /// Keep at most `count` events per SSE stream (at least one);
    /// [`DEFAULT_EVENTS_PER_STREAM`] unless set.
    pub fn events_per_stream(self, count: usize) -> Self {
        self.with(|settings| settings.events_per_stream = count.max(1))
    }

    /// Replay events at most `age` old; [`DEFAULT_EVENT_AGE`] unless set.
    pub fn event_age(self, age: Duration) -> Self {
        self.with(|settings| settings.event_age = age.max(Duration::from_secs(1)))
    }

    /// Forget a session unused for `idle`; [`DEFAULT_SESSION_IDLE`] unless set.
    pub fn session_idle(self, idle: Duration) -> Self {
        self.with(|settings| settings.session_idle = idle.max(Duration::from_secs(1)))
    }

    /// Wait at most `timeout` for one command; [`DEFAULT_REDIS_TIMEOUT`] unless set.
    pub fn timeout(self, timeout: Duration) -> Self {
        self.with(|settings| settings.timeout = timeout.max(Duration::from_millis(1)))
    }

    /// The store under `namespace` unless one was set.
    pub(crate) fn or_namespace(self, namespace: &str) -> Self {
        if self.inner.settings.namespace.is_some() { self } else { self.namespace(namespace) }
    }

    fn key(&self, kind: &str, id: &str) -> String {
        format!("mcp:{}:{kind}:{id}", self.inner.settings.namespace.as_deref().unwrap_or("mcp"))
    }

    fn connection(&self) -> Result<ConnectionManager, redis::RedisError> {
        if let Some(connection) = self.inner.connection.get() {
            return Ok(connection.clone());
        }
        let timeout = Some(self.inner.settings.timeout);
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(timeout)
            .set_response_timeout(timeout)
            // Our own back-off (PROBE_INTERVAL) decides when to try again.
            .set_number_of_retries(1)
            .set_max_delay(self.inner.settings.timeout);
        let made = self.inner.settings.client.get_connection_manager_lazy(config)?;
        Ok(self.inner.connection.get_or_init(|| made).clone())
    }

    /// Whether Redis is down and was asked less than [`PROBE_INTERVAL`] ago:
    /// past that, the next command tries it again.
    fn failed_recently(&self) -> bool {
        let health = lock(&self.inner.health);
        health.down && health.last_attempt.is_some_and(|at| at.elapsed() < PROBE_INTERVAL)
    }

    /// Run `pipe`, waiting at most the timeout; refused at once while Redis
    /// failed a moment ago.
    async fn query<T: redis::FromRedisValue>(&self, pipe: &redis::Pipeline) -> Result<T, Unavailable> {
        if self.failed_recently() {
            return Err(Unavailable);
        }
        lock(&self.inner.health).last_attempt = Some(Instant::now());
        let timeout = self.inner.settings.timeout;
        let outcome = match self.connection() {
            Ok(mut connection) => match tokio::time::timeout(timeout, pipe.query_async::<T>(&mut connection)).await {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(err)) => Err(err.to_string()),
                Err(_) => Err(format!("no answer within {timeout:?}")),
            },
            Err(err) => Err(err.to_string()),
        };
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

    fn unavailable() -> McpError {
        McpError::service_unavailable(UNAVAILABLE)
    }
}

/// Whether Redis answered the last command, and when it was last asked.
struct Health {
    /// Set by a failure, cleared by the next success.
    down: bool,
    last_attempt: Option<Instant>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn now_millis() -> u64 {
    millis(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default())
}

/// The session's hash: `state` (its `initialize`, as rmcp stores it) and,
/// with auth on, `owner`.
#[async_trait::async_trait]
impl SessionStore for RedisStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let key = self.key("session", session_id);
        let mut pipe = redis::pipe();
        pipe.cmd("HGET")
            .arg(&key)
            .arg("state")
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(millis(self.inner.settings.session_idle))
            .ignore();
        let (state,): (Option<String>,) = self.query(&pipe).await.map_err(|_| UNAVAILABLE)?;
        match state {
            Some(state) => Ok(Some(serde_json::from_str(&state)?)),
            None => Ok(None),
        }
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let key = self.key("session", session_id);
        let owner = SESSION_OWNER.try_with(Clone::clone).ok().flatten();
        let mut pipe = redis::pipe();
        pipe.atomic().cmd("HSET").arg(&key).arg("state").arg(serde_json::to_string(state)?);
        if let Some(owner) = owner {
            pipe.arg("owner").arg(owner);
        }
        pipe.ignore().cmd("PEXPIRE").arg(&key).arg(millis(self.inner.settings.session_idle)).ignore();
        if self.query::<()>(&pipe).await.is_err() {
            // rmcp only logs this; the guard refuses the `initialize` (503)
            // rather than open a session the other replicas cannot find.
            lock(&self.inner.store_failures).insert(session_id.to_owned());
            return Err(UNAVAILABLE.into());
        }
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let mut pipe = redis::pipe();
        pipe.cmd("DEL").arg(self.key("session", session_id)).ignore();
        lock(&self.inner.touched).remove(session_id);
        self.query::<()>(&pipe).await.map_err(|_| UNAVAILABLE.into())
    }
}

/// Each SSE stream is a Redis stream, capped at `events_per_stream` and
/// expiring `event_age` after its last event. An event's id is
/// `{stream id}#{Redis entry id}`: Redis makes entry ids unique within a key,
/// and stream ids are unique (rmcp draws them at random, or from the session
/// id), so event ids are unique across replicas, and say which stream to replay.
#[async_trait::async_trait]
impl EventStore for RedisStore {
    async fn store_event(&self, stream_id: &str, event: &ServerSseMessage) -> Result<EventId, EventStoreError> {
        let mut pipe = redis::pipe();
        let key = self.key("events", stream_id);
        pipe.atomic().cmd("XADD").arg(&key).arg("MAXLEN").arg(self.inner.settings.events_per_stream).arg("*");
        match (&event.message, event.retry) {
            (Some(message), _) => pipe.arg("message").arg(serde_json::to_string(&**message)?),
            (None, Some(retry)) => pipe.arg("retry").arg(millis(retry)),
            (None, None) => pipe.arg("retry").arg(""),
        };
        pipe.cmd("PEXPIRE").arg(&key).arg(millis(self.inner.settings.event_age)).ignore();
        // Wakes the replays following this stream, on any replica.
        pipe.cmd("PUBLISH").arg(self.key("wake", stream_id)).arg("").ignore();
        if is_answer(event) {
            // The call is over: no replica is to take it over, and its request goes.
            let call = self.key("call", stream_id);
            pipe.cmd("HSET").arg(&call).arg("answered").arg(1).ignore();
            pipe.cmd("HDEL").arg(&call).arg("request").ignore();
            pipe.cmd("PEXPIRE").arg(&call).arg(millis(ANSWERED_CALL_KEPT)).ignore();
        }
        match self.query::<(String,)>(&pipe).await {
            Ok((entry,)) => Ok(format!("{stream_id}#{entry}")),
            Err(Unavailable) => {
                // rmcp sends no event whose store failed, and a response never
                // sent leaves its call without an answer: the event goes out
                // live, under an id of this process that no replay accepts.
                let n = self.inner.unstored.fetch_add(1, Ordering::Relaxed);
                Ok(format!("{stream_id}#~{}-{n}", self.inner.nonce))
            }
        }
    }

    /// The stored events after `last_event_id`, then the stream followed live
    /// until its call's answer, until the replica running the call stops (the
    /// session streams then answer it here), the stream expires, Redis fails,
    /// or the client goes away.
    async fn replay_events_after(&self, last_event_id: &str) -> Result<EventStream, EventStoreError> {
        let Some((stream_id, entry)) = last_event_id.rsplit_once('#') else {
            return Err("not an event id of this server".into());
        };
        if entry_millis(entry).is_none() {
            return Err("this event was sent while the store was down and cannot be replayed".into());
        }
        let stored = self.events_after(stream_id, entry).await.map_err(|_| UNAVAILABLE)?;
        let (sender, receiver) = tokio::sync::mpsc::channel(16);
        let (store, stream_id, mut last) = (self.clone(), stream_id.to_owned(), entry.to_owned());
        tokio::spawn(async move {
            // A stream replayed to its answer needs no following. Else subscribed
            // first, then read: an event stored meanwhile is read now, or wakes the wait.
            let answered = stored.iter().any(|(_, event)| is_answer(event));
            let mut wake = if answered { None } else { store.wake_on(&stream_id).await };
            let mut pending = stored;
            if wake.is_some() {
                let read = pending.last().map_or(last.as_str(), |(entry, _)| entry.as_str());
                let Ok(events) = store.events_after(&stream_id, read).await else { return };
                pending.extend(events);
            }
            let mut poll = FOLLOW_POLL_MIN;
            // Asked at once, so a replay of a stream that is answered (or gone) ends at once.
            let mut checked: Option<Instant> = None;
            loop {
                let mut answered = false;
                for (entry, event) in pending.drain(..) {
                    last = entry;
                    answered |= is_answer(&event);
                    if sender.send(event).await.is_err() {
                        return;
                    }
                }
                if answered {
                    return;
                }
                if checked.is_none_or(|at| at.elapsed() >= HEARTBEAT_EVERY) {
                    checked = Some(Instant::now());
                    if !store.call_runs(&stream_id).await.unwrap_or(false) {
                        // What came before the answer (or the stop) was seen.
                        for (_, event) in store.events_after(&stream_id, &last).await.unwrap_or_default() {
                            if sender.send(event).await.is_err() {
                                return;
                            }
                        }
                        return;
                    }
                }
                match &mut wake {
                    Some(woken) => tokio::select! {
                        changed = tokio::time::timeout(FOLLOW_WAKE_WAIT, woken.changes.changed()) => {
                            // The subscriber connection is gone: poll from now on.
                            if matches!(changed, Ok(Err(_))) {
                                wake = None;
                            }
                        }
                        () = sender.closed() => return,
                    },
                    None => tokio::select! {
                        () = tokio::time::sleep(poll) => {}
                        () = sender.closed() => return,
                    },
                }
                let Ok(events) = store.events_after(&stream_id, &last).await else { return };
                poll = if events.is_empty() { (poll * 2).min(FOLLOW_POLL_MAX) } else { FOLLOW_POLL_MIN };
                pending = events;
            }
        });
        Ok(Box::pin(Replay(receiver)))
    }
}

impl RedisStore {
    /// The events of `stream_id` after the Redis entry `entry`, younger than
    /// the age limit, with their entry ids.
    async fn events_after(&self, stream_id: &str, entry: &str) -> Result<Vec<(String, ServerSseMessage)>, Unavailable> {
        let mut pipe = redis::pipe();
        pipe.cmd("XRANGE")
            .arg(self.key("events", stream_id))
            .arg(format!("({entry}"))
            .arg("+")
            .arg("COUNT")
            .arg(self.inner.settings.events_per_stream);
        let (entries,): (Vec<(String, HashMap<String, String>)>,) = self.query(&pipe).await?;
        let oldest = now_millis().saturating_sub(millis(self.inner.settings.event_age));
        let mut events = Vec::with_capacity(entries.len());
        for (entry, fields) in entries {
            if entry_millis(&entry).is_none_or(|at| at < oldest) {
                continue;
            }
            let id = format!("{stream_id}#{entry}");
            let event = if let Some(message) = fields.get("message") {
                // Only this server writes the stream; an entry that does not read back is skipped.
                let Ok(message) = serde_json::from_str::<ServerJsonRpcMessage>(message) else { continue };
                ServerSseMessage::new(id, message)
            } else {
                let retry = fields.get("retry").and_then(|ms| ms.parse().ok()).map(Duration::from_millis);
                let mut event = ServerSseMessage::retry(retry.unwrap_or_default());
                event.retry = retry;
                event.event_id = Some(id);
                event
            };
            events.push((entry, event));
        }
        Ok(events)
    }

    /// Whether the call of `stream_id` may still be answered by the replica
    /// running it (or the stream has no call: a standalone stream).
    async fn call_runs(&self, stream_id: &str) -> Result<bool, Unavailable> {
        let mut pipe = redis::pipe();
        pipe.cmd("EVAL")
            .arg(CALL_RUNS)
            .arg(2)
            .arg(self.key("events", stream_id))
            .arg(self.key("call", stream_id))
            .arg(self.key("replica", ""));
        let (runs,): (i64,) = self.query(&pipe).await?;
        Ok(runs == 1 || runs == -1)
    }

    /// Add to `pipe` the renewal of this replica's key, so that what `pipe`
    /// says this replica runs is never read before the key is there, and
    /// renew it from now on (see [`Self::beat`]).
    fn alive(&self, pipe: &mut redis::Pipeline) {
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

/// The replays following streams on this replica, woken by Redis pub/sub:
/// one subscriber connection per replica, one channel per followed stream
/// (`mcp:{namespace}:wake:{stream id}`, published with every stored event).
struct Followers {
    sink: redis::aio::PubSubSink,
    /// Each followed channel: how many replays follow it, and their wake.
    channels: Mutex<HashMap<String, (usize, tokio::sync::watch::Sender<u64>)>>,
    /// Cleared when the connection ends: the next replay makes another.
    open: AtomicBool,
    /// How long a subscription may take ([`RedisStore::timeout`]).
    timeout: Duration,
}

/// A replay's wake: changes whenever an event is stored on its stream.
struct Wake {
    followers: Arc<Followers>,
    channel: String,
    changes: tokio::sync::watch::Receiver<u64>,
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
    async fn wake_on(&self, stream_id: &str) -> Option<Wake> {
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
    async fn followers(&self) -> Option<Arc<Followers>> {
        let mut made = self.inner.followers.lock().await;
        if let Some(followers) = made.as_ref().filter(|followers| followers.open.load(Ordering::Acquire)) {
            return Some(Arc::clone(followers));
        }
        if self.failed_recently() {
            return None;
        }
        let timeout = self.inner.settings.timeout;
        let pubsub = match tokio::time::timeout(timeout, self.inner.settings.client.get_async_pubsub()).await {
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

/// The milliseconds of a Redis stream entry id (`{ms}-{seq}`), `None` for
/// anything else.
fn entry_millis(entry: &str) -> Option<u64> {
    let (ms, seq) = entry.split_once('-')?;
    seq.parse::<u64>().ok()?;
    ms.parse().ok()
}

/// A task is one JSON value that expires at its `ttlMs`, beside the replica
/// that runs it: a task still working whose replica stopped reads back as
/// failed, so its client learns it will never finish.
impl TaskStore for RedisStore {
    fn put(&self, task: DetailedTask, expires_at: SystemTime) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(async move {
            let key = self.key("task", &task.task.task_id);
            let runner = self.key("task-runner", &task.task.task_id);
            let expires = millis(expires_at.duration_since(UNIX_EPOCH).unwrap_or_default());
            let mut pipe = redis::pipe();
            if expires <= now_millis() {
                pipe.cmd("DEL").arg(&key).arg(&runner).ignore();
            } else {
                let json =
                    serde_json::to_string(&task).map_err(|err| McpError::serialization_error(err.to_string()))?;
                pipe.atomic().cmd("SET").arg(&key).arg(json).arg("PXAT").arg(expires).ignore();
                pipe.cmd("SET").arg(&runner).arg(&self.inner.nonce).arg("PXAT").arg(expires).ignore();
                self.alive(&mut pipe);
            }
            self.query::<()>(&pipe).await.map_err(|_| Self::unavailable())
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, McpError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("EVAL")
                .arg(TASK_GET)
                .arg(2)
                .arg(self.key("task", task_id))
                .arg(self.key("task-runner", task_id))
                .arg(self.key("replica", ""));
            let (task,): (Option<(String, i64)>,) = self.query(&pipe).await.map_err(|_| Self::unavailable())?;
            let Some((task, runs)) = task else { return Ok(None) };
            let mut task: DetailedTask = serde_json::from_str(&task)
                .map_err(|err| McpError::serialization_error(format!("A stored task does not read back: {err}")))?;
            if runs == 0 && matches!(task.payload, TaskPayload::Working | TaskPayload::InputRequired { .. }) {
                let lost = McpError::service_unavailable(
                    "The server replica running this task stopped before it finished; the task will not finish.",
                )
                .with_recovery_hint("Start the task again; check first whether its work took effect.");
                let error = match serde_json::to_value(crate::server::wire::envelope(&lost)) {
                    Ok(serde_json::Value::Object(error)) => error,
                    _ => serde_json::Map::new(),
                };
                // After Redis lost the replicas' keys (a restart without
                // them), a replica's next renewal, within a second, brings
                // its key back: a task read in that second reads as failed.
                task.task.status_message = Some(lost.message().to_owned());
                task = DetailedTask::new(task.task, TaskPayload::Failed { error });
            }
            Ok(Some(task))
        })
    }
}

impl SharedStore for RedisStore {
    fn unavailable(&self) -> bool {
        self.failed_recently()
    }

    fn session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<StoredSession, Unavailable>> {
        Box::pin(async move {
            let key = self.key("session", session);
            let mut pipe = redis::pipe();
            pipe.cmd("HEXISTS").arg(&key).arg("state").cmd("HGET").arg(&key).arg("owner");
            let (exists, owner): (bool, Option<String>) = self.query(&pipe).await?;
            Ok(if exists { StoredSession::OwnedBy(owner) } else { StoredSession::Unknown })
        })
    }

    fn touch_session(&self, session: &str) {
        let idle = self.inner.settings.session_idle;
        {
            let mut touched = lock(&self.inner.touched);
            let now = Instant::now();
            if touched.get(session).is_some_and(|at| now.duration_since(*at) < idle / 4) {
                return;
            }
            if touched.len() >= 65_536 {
                touched.retain(|_, at| now.duration_since(*at) < idle);
            }
            touched.insert(session.to_owned(), now);
        }
        let store = self.clone();
        let key = self.key("session", session);
        // In the background: the request goes on, and `query` bounds the wait.
        tokio::spawn(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("PEXPIRE").arg(key).arg(millis(idle)).ignore();
            let _ = store.query::<()>(&pipe).await;
        });
    }

    fn take_store_failure(&self, session: &str) -> bool {
        lock(&self.inner.store_failures).remove(session)
    }

    fn keep_call(&self, session: &str, stream_id: &str, request: &ClientJsonRpcMessage) {
        let Ok(request) = serde_json::to_string(request) else { return };
        let store = self.clone();
        let (key, session) = (self.key("call", stream_id), session.to_owned());
        // In the background: the call goes on, and `query` bounds the wait.
        tokio::spawn(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("EVAL")
                .arg(KEEP_CALL)
                .arg(1)
                .arg(key)
                .arg(&store.inner.nonce)
                .arg(request)
                .arg(millis(store.inner.settings.event_age))
                .arg(session)
                .ignore();
            store.alive(&mut pipe);
            let _ = store.query::<()>(&pipe).await;
        });
    }

    fn call_fate<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<CallFate, Unavailable>> {
        Box::pin(async move {
            let Some((stream_id, _)) = last_event_id.rsplit_once('#') else { return Ok(CallFate::Unknown) };
            let mut pipe = redis::pipe();
            // This replica's key first: once it owns the call, it is seen to run it.
            self.alive(&mut pipe);
            pipe.cmd("EVAL")
                .arg(TAKE_OVER)
                .arg(1)
                .arg(self.key("call", stream_id))
                .arg(self.key("replica", ""))
                .arg(&self.inner.nonce)
                .arg(session);
            let (request,): (Option<String>,) = self.query(&pipe).await?;
            let Some(request) = request else { return Ok(CallFate::Unknown) };
            match serde_json::from_str::<ClientJsonRpcMessage>(&request) {
                Ok(request) => Ok(CallFate::Lost { stream_id: stream_id.to_owned(), request: Box::new(request) }),
                Err(err) => {
                    tracing::warn!(%err, "a kept call's request does not read back; its call is not answered here");
                    Ok(CallFate::Unknown)
                }
            }
        })
    }

    fn session_store(&self) -> Arc<dyn SessionStore> {
        Arc::new(self.clone())
    }

    fn event_store(&self) -> Arc<dyn EventStore> {
        Arc::new(self.clone())
    }

    fn task_store(&self) -> Arc<dyn TaskStore> {
        Arc::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_are_read_strictly() {
        assert_eq!(entry_millis("1700000000000-3"), Some(1_700_000_000_000));
        assert_eq!(entry_millis("~abc-1"), None);
        assert_eq!(entry_millis("12"), None);
        assert_eq!(entry_millis("12-x"), None);
    }

    #[test]
    fn a_bad_url_is_refused_with_the_expected_form() {
        let err = RedisStore::new("http://example.org").unwrap_err();
        assert!(err.to_string().contains("redis://"), "{err}");
    }

    #[test]
    fn keys_are_namespaced() {
        let store = RedisStore::new("redis://127.0.0.1:1/").unwrap().or_namespace("museum").or_namespace("other");
        assert_eq!(store.key("session", "abc"), "mcp:museum:session:abc");
    }
}
