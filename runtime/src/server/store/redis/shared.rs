//! What the guard and the session streams ask of the store replicas share
//! ([`SharedStore`]): sessions restored on any replica, and each running
//! call kept beside its stream so another replica can answer it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::{EventStore, SessionStore};

use crate::call::BoxFuture;
use crate::server::store::shared::{CallFate, SharedStore, StoredSession, Unavailable};
use crate::server::store::tasks::TaskStore;

use super::{RedisStore, lock, millis, now_millis, records};

/// How long a call's record outlives its answer: long enough that a record
/// written as the answer is stored (a call kept just as it answered) cannot
/// land after the answer and stay.
pub(super) const ANSWERED_CALL_KEPT: Duration = Duration::from_secs(30);

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
/// the stream has no call kept (a session's standalone stream, or a request
/// that runs no handler), -2 when the stream has no event (gone, or none
/// written yet). KEYS: the events, the call; ARGV: the prefix of replica keys.
const CALL_RUNS: &str = r"
local call = redis.call('HMGET', KEYS[2], 'owner', 'answered')
if call[2] then return 2 end
if call[1] then return redis.call('EXISTS', ARGV[1] .. call[1]) end
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
return -1
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

impl RedisStore {
    /// Whether the call of `stream_id` may still be answered by the replica
    /// running it (or the stream has no call: a standalone stream), for a
    /// replay that began after the Redis entry `resumed`.
    pub(super) async fn call_runs(&self, stream_id: &str, resumed: &str) -> Result<bool, Unavailable> {
        let mut pipe = redis::pipe();
        pipe.cmd("EVAL")
            .arg(CALL_RUNS)
            .arg(2)
            .arg(self.key("events", stream_id))
            .arg(self.key("call", stream_id))
            .arg(self.key("replica", ""));
        let (runs,): (i64,) = self.query(&pipe).await?;
        // After a priming, which is not written, a stream with no event yet is
        // one whose call has written none: followed as long as a written
        // priming would have been kept.
        let unwritten_priming = records::priming_sent(resumed)
            .is_some_and(|sent| now_millis().saturating_sub(sent) < millis(self.inner.settings.event_age));
        // An event written behind its sending (`write_behind`) may still be on
        // its way: followed until its write would have failed.
        let on_its_way = records::entry_millis(resumed)
            .is_some_and(|sent| now_millis().saturating_sub(sent) < 2 * millis(self.inner.settings.timeout));
        Ok(runs == 1 || runs == -1 || (runs == -2 && (unwritten_priming || on_its_way)))
    }
}

/// At most this many streams taken over are remembered at once; past it, the
/// oldest go, and their events get Redis's entries.
const TAKEN_REMEMBERED: usize = 1024;

impl RedisStore {
    /// This replica took over the stream of a lost call, whose client
    /// resumed after `last_event_id`: its events are stored above that entry,
    /// which the stopped replica may have named by its own clock and sent
    /// without storing (`write_behind`), until the call's answer.
    fn taken_over(&self, stream_id: &str, last_event_id: &str) {
        let Ok((_, entry)) = records::event_id(last_event_id) else { return };
        // A priming is before every entry: Redis's are above it.
        if records::priming_sent(entry).is_some() {
            return;
        }
        let mut taken = lock(&self.inner.taken);
        if taken.len() >= TAKEN_REMEMBERED
            && let Some(oldest) = taken.iter().min_by_key(|(_, (_, at))| *at).map(|(stream, _)| stream.clone())
        {
            taken.remove(&oldest);
        }
        taken.insert(stream_id.to_owned(), (entry.to_owned(), Instant::now()));
    }
}

impl SharedStore for RedisStore {
    fn unavailable(&self) -> bool {
        self.failed_recently()
    }

    fn answers(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("PING");
            self.query::<(String,)>(&pipe).await.is_ok()
        })
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

    fn call_starts(&self, stream_id: &str) {
        lock(&self.inner.unkept).insert(stream_id.to_owned());
    }

    fn keep_call(&self, session: &str, stream_id: &str, request: String) -> BoxFuture<'static, ()> {
        if !lock(&self.inner.unkept).remove(stream_id) {
            // Answered meanwhile: its answer is stored, and a resume finds it.
            return Box::pin(std::future::ready(()));
        }
        let store = self.clone();
        let (key, session) = (self.key("call", stream_id), session.to_owned());
        // `query` bounds the wait.
        Box::pin(async move {
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
        })
    }

    fn call_not_kept(&self, stream_id: &str) {
        lock(&self.inner.unkept).remove(stream_id);
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
            match records::call_request(&request) {
                Ok(request) => {
                    self.taken_over(stream_id, last_event_id);
                    Ok(CallFate::Lost { stream_id: stream_id.to_owned(), request: Box::new(request) })
                }
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

    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.written_behind())
    }
}
