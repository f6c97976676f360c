//! rmcp's [`EventStore`] on Redis: each SSE stream a Redis stream, capped
//! and expiring, replayed after a `Last-Event-ID` on any replica and
//! followed live until the call's answer.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::{EventId, EventStore, EventStoreError, EventStream};

use crate::server::store::events::{Replay, UNSTORED_MARK, ends_call};
use crate::server::store::shared::{UNAVAILABLE, Unavailable};

use super::follow::{FOLLOW_POLL_MAX, FOLLOW_POLL_MIN, FOLLOW_WAKE_WAIT};
use super::replica::HEARTBEAT_EVERY;
use super::shared::ANSWERED_CALL_KEPT;
use super::{RedisStore, lock, millis, now_millis, records};

/// Add an event to a stream above an entry (`ARGV[2]`), or Redis's next
/// entry when that is higher: the stream of a call taken over, whose client
/// may hold an entry the stopped replica named but never stored.
/// KEYS: the events; ARGV: the cap, the entry, then the event's fields.
const XADD_ABOVE: &str = r"
local floor_ms, floor_seq = string.match(ARGV[2], '^(%d+)-(%d+)$')
local id = '*'
if floor_ms then
  local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  local above = true
  if top then
    local top_ms, top_seq = string.match(top[1], '^(%d+)-(%d+)$')
    above = tonumber(floor_ms) > tonumber(top_ms)
      or (tonumber(floor_ms) == tonumber(top_ms) and tonumber(floor_seq) >= tonumber(top_seq))
  end
  if above then id = floor_ms .. '-' .. tostring(tonumber(floor_seq) + 1) end
end
return redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], id, unpack(ARGV, 3))
";

/// Each SSE stream is a Redis stream, capped at `events_per_stream` and
/// expiring `event_age` after its last event. An event's id is
/// `{stream id}#{Redis entry id}`: Redis makes entry ids unique within a key,
/// and stream ids are unique (rmcp draws them at random, or from the session
/// id), so event ids are unique across replicas, and say which stream to replay.
/// With [`RedisStore::write_behind`], the store names a call's entries
/// itself, from this replica's clock, made to grow: only this replica writes
/// its calls' streams, unless it stops and another takes a call over, whose
/// entries then go above the one the client resumed after.
///
/// A call's priming event (a `retry` hint and no message, the first event of
/// the stream rmcp opens for each request) is not written: it gets the id
/// `{stream id}#0-{unix ms}`, which no entry has (Redis's are above `0-0`),
/// and a replay after it reads the stream from its start. That takes one of
/// a call's two round trips to Redis off its path. A stream closed for
/// polling ends with another such event; the session streams give it the id
/// of the last event the client got, which is where it resumes.
#[async_trait::async_trait]
impl EventStore for RedisStore {
    async fn store_event(&self, stream_id: &str, event: &ServerSseMessage) -> Result<EventId, EventStoreError> {
        // Not a session's standalone stream: it outlives its worker, and a
        // replica that restores the session writes on after what another wrote.
        if event.message.is_none() && event.retry.is_some() && !standalone(stream_id) {
            if self.failed_recently() {
                return Ok(self.unstored(stream_id));
            }
            return Ok(records::priming_id(stream_id, now_millis()));
        }
        let (field, value) = match (&event.message, event.retry) {
            (Some(message), _) => ("message", serde_json::to_string(&**message)?),
            (None, Some(retry)) => ("retry", millis(retry).to_string()),
            (None, None) => ("retry", String::new()),
        };
        let key = self.key("events", stream_id);
        let cap = self.inner.settings.events_per_stream;
        let ends = ends_call(event);
        // What follows the entry: its stream's expiry, the wake of the
        // replays following it (on any replica), and, when the call is over,
        // its record marked, so no replica takes it over (a call never kept
        // has no record to mark).
        let mut then = vec![redis::cmd("PEXPIRE"), redis::cmd("PUBLISH")];
        then[0].arg(&key).arg(millis(self.inner.settings.event_age));
        then[1].arg(self.key("wake", stream_id)).arg("");
        if ends && !lock(&self.inner.unkept).remove(stream_id) {
            let call = self.key("call", stream_id);
            let mut answered = redis::cmd("HSET");
            answered.arg(&call).arg("answered").arg(1);
            let mut request = redis::cmd("HDEL");
            request.arg(&call).arg("request");
            let mut expiry = redis::cmd("PEXPIRE");
            expiry.arg(&call).arg(millis(ANSWERED_CALL_KEPT));
            then.extend([answered, request, expiry]);
        }
        let taken = match ends {
            true => lock(&self.inner.taken).remove(stream_id).map(|(floor, _)| floor),
            false => lock(&self.inner.taken).get(stream_id).map(|(floor, _)| floor.clone()),
        };
        // Not a session's standalone stream, nor a call's taken over: others
        // wrote those, with entries this replica's clock may not be above.
        if self.inner.settings.write_behind && taken.is_none() && !standalone(stream_id) {
            // As a write refused at once would: sent live, under an id no replay accepts.
            if self.failed_recently() {
                return Ok(self.unstored(stream_id));
            }
            let bytes = value.len();
            let write = |entry: &str| {
                let mut add = redis::cmd("XADD");
                add.arg(&key).arg("MAXLEN").arg(cap).arg(entry).arg(field).arg(&value);
                std::iter::once(add).chain(then).collect()
            };
            return Ok(match self.write_behind_as(bytes, write).await {
                Some(entry) => format!("{stream_id}#{entry}"),
                None => self.unstored(stream_id),
            });
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        match &taken {
            // Above the entry the client resumed after, which the stopped
            // replica may have sent without storing, named by its own clock.
            Some(floor) => pipe.cmd("EVAL").arg(XADD_ABOVE).arg(1).arg(&key).arg(cap).arg(floor),
            None => pipe.cmd("XADD").arg(&key).arg("MAXLEN").arg(cap).arg("*"),
        };
        pipe.arg(field).arg(&value);
        for command in then {
            pipe.add_command(command).ignore();
        }
        match self.query::<(String,)>(&pipe).await {
            Ok((entry,)) => Ok(format!("{stream_id}#{entry}")),
            // rmcp sends no event whose store failed, and a response never
            // sent leaves its call without an answer: the event goes out live.
            Err(Unavailable) => Ok(self.unstored(stream_id)),
        }
    }

    /// The stored events after `last_event_id`, then the stream followed live
    /// until its call's answer, until the replica running the call stops (the
    /// session streams then answer it here), the stream expires, Redis fails,
    /// or the client goes away.
    async fn replay_events_after(&self, last_event_id: &str) -> Result<EventStream, EventStoreError> {
        let (stream_id, entry) = records::event_id(last_event_id)?;
        let stored = self.events_after(stream_id, entry).await.map_err(|_| UNAVAILABLE)?;
        let (sender, receiver) = tokio::sync::mpsc::channel(16);
        let (store, stream_id, entry) = (self.clone(), stream_id.to_owned(), entry.to_owned());
        let mut last = entry.clone();
        tokio::spawn(async move {
            // A stream replayed to its answer needs no following. Else subscribed
            // first, then read: an event stored meanwhile is read now, or wakes the wait.
            let answered = stored.iter().any(|(_, event)| ends_call(event));
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
                    answered |= ends_call(&event);
                    if sender.send(event).await.is_err() {
                        return;
                    }
                }
                if answered {
                    return;
                }
                if checked.is_none_or(|at| at.elapsed() >= HEARTBEAT_EVERY) {
                    checked = Some(Instant::now());
                    if !store.call_runs(&stream_id, &entry).await.unwrap_or(false) {
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

/// Whether `stream_id` is a session's standalone stream (rmcp's
/// `{session}:common`), which the replicas that serve the session write in turn.
fn standalone(stream_id: &str) -> bool {
    stream_id.ends_with(":common")
}

impl RedisStore {
    /// The id of an event of `stream_id` sent without being stored: one of
    /// this process that no replay accepts.
    fn unstored(&self, stream_id: &str) -> EventId {
        let n = self.inner.unstored.fetch_add(1, Ordering::Relaxed);
        format!("{stream_id}{UNSTORED_MARK}{}-{n}", self.inner.nonce)
    }

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
            if let Some(event) = records::event(stream_id, &entry, &fields, oldest) {
                events.push((entry, event));
            }
        }
        Ok(events)
    }
}
