//! The sessions this replica holds: one request per id and session, the
//! session cap (the idlest session closed to make room), the caller that
//! opened each session (with auth on, no one else may use it), and the
//! hibernation of idle sessions (`HttpOptions::session_hibernate_after`, and
//! past `HttpOptions::max_awake_sessions` the idlest).

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use axum::body::Body;
use foldhash::{HashMap, HashSet};
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use rmcp::model::RequestId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::server::dispatch::hibernation::Hibernation;
use crate::server::store::sessions::MemorySessions;
use crate::server::transport::jsonrpc::Rejection;

use super::error_response;

/// How long a request for a session waits for the session's worker to close
/// as it hibernates, the hibernation for rmcp's own close of it, and a
/// pinned session without a worker for rmcp to restore it.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long after its last request or work a session is safe from the cap of
/// awake sessions: rmcp sends a call's answer on the worker after the handler
/// returned, and a client's next request often follows its answer closely.
const AWAKE_GRACE: Duration = Duration::from_millis(250);

/// The least time between two sweeps, so that sessions opening in a burst
/// past the cap of awake sessions cost one pass over the table per batch,
/// not one each.
const SWEEP_SPACING: Duration = Duration::from_millis(20);

pub(super) struct Sessions {
    pub(super) manager: Arc<LocalSessionManager>,
    pub(super) max: usize,
    pub(super) uses: Mutex<HashMap<String, SessionUse>>,
    /// How idle sessions hibernate, when they do.
    pub(super) hibernate: Option<Hibernate>,
}

/// What idle sessions hibernating takes.
pub(crate) struct Hibernate {
    /// How long a session is idle before it hibernates, if idle time alone
    /// puts it to sleep.
    pub(crate) after: Option<Duration>,
    /// The most sessions awake at once: past it, the idlest hibernate.
    pub(crate) max_awake: usize,
    /// How long a session lives without a request (hibernating or not).
    pub(crate) idle_timeout: Duration,
    /// The sessions' `initialize` (with replicas, the shared store keeps it
    /// too, and expires its own copy).
    pub(crate) memory: Arc<MemorySessions>,
    pub(crate) clocks: Arc<Hibernation>,
    /// Woken as each hibernating session's worker has closed.
    pub(crate) settled: tokio::sync::Notify,
    /// Told when the sessions held outnumber `max_awake`: the sweep runs then,
    /// not only on its clock.
    pub(crate) crowded: Arc<tokio::sync::Notify>,
}

impl Hibernate {
    /// How often the sweep runs: often enough that a session sleeps within
    /// half its delay of it, and an idle session ends within 5 s of its timeout.
    fn period(&self) -> Duration {
        self.after.map_or(Duration::from_secs(5), |after| {
            (after / 2).clamp(Duration::from_millis(50), Duration::from_secs(5))
        })
    }

    /// How much longer than the session idle timeout rmcp's own timer waits:
    /// past the sweep that ends the session, and past its delay of hibernation.
    pub(crate) fn margin(&self) -> Duration {
        self.after.unwrap_or_default().max(2 * self.period())
    }
}

pub(super) struct SessionUse {
    last_seen: Instant,
    in_flight: HashSet<RequestId>,
    /// Who opened the session (with auth on): no one else may use it.
    caller: Option<String>,
    /// The session keeps something of its own in its worker (a GET stream, a
    /// log level, subscriptions): it never hibernates.
    pinned: bool,
    sleep: Sleep,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sleep {
    Awake,
    /// Its worker is closing: requests for it wait until it has.
    Falling,
    /// Only its `initialize` is kept: its next request restores it.
    Asleep,
}

impl SessionUse {
    fn new(caller: Option<String>) -> Self {
        Self { last_seen: Instant::now(), in_flight: HashSet::default(), caller, pinned: false, sleep: Sleep::Awake }
    }
}

impl Sessions {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionUse>> {
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether this guard saw `session` begin (or restored it).
    pub(super) fn knows(&self, session: &str) -> bool {
        self.lock().contains_key(session)
    }

    /// Whether `session` is held here: by rmcp, or with hibernation by this
    /// table (rmcp restores a hibernating session; the sweep ends those rmcp closed).
    pub(super) async fn holds(&self, session: &str) -> bool {
        match self.hibernate {
            Some(_) => self.knows(session),
            None => self.manager.sessions.read().await.contains_key(session),
        }
    }

    /// Note a request of `caller` in `session`; `false` when another caller
    /// opened it. A request for a session falling asleep waits until it is
    /// (rmcp then restores it).
    pub(super) async fn touch(&self, session: &str, caller: Option<&str>) -> bool {
        let (mut deadline, mut waited_out) = (None, false);
        loop {
            // Listening before the look, so a session settling between the
            // two is not missed.
            let settled = self.hibernate.as_ref().map(|hibernate| hibernate.settled.notified());
            {
                let mut uses = self.lock();
                let Some(used) = uses.get_mut(session) else { return true };
                if used.sleep != Sleep::Falling || waited_out {
                    if used.caller.as_deref().is_some_and(|owner| caller != Some(owner)) {
                        return false;
                    }
                    used.last_seen = Instant::now();
                    // This request restores it.
                    if used.sleep == Sleep::Asleep {
                        used.sleep = Sleep::Awake;
                        self.crowding(uses.len());
                    }
                    return true;
                }
            }
            // Only with hibernation is a session ever falling asleep.
            let Some(settled) = settled else {
                waited_out = true;
                continue;
            };
            let deadline = *deadline.get_or_insert_with(|| tokio::time::Instant::now() + SETTLE_TIMEOUT);
            waited_out = tokio::time::timeout_at(deadline, settled).await.is_err();
        }
    }

    pub(super) fn touch_new(&self, session: &str, caller: Option<String>) {
        let mut uses = self.lock();
        uses.insert(session.to_owned(), SessionUse::new(caller));
        self.crowding(uses.len());
    }

    /// A session woke or began, of `held`: past the cap of awake sessions
    /// (which only as many held can be), the sweep looks for the idlest.
    fn crowding(&self, held: usize) {
        if let Some(hibernate) = &self.hibernate
            && held > hibernate.max_awake
        {
            hibernate.crowded.notify_one();
        }
    }

    /// `session` keeps state in its worker from now on: it does not hibernate.
    pub(super) fn pin(&self, session: &str) {
        if let Some(used) = self.lock().get_mut(session) {
            used.pinned = true;
        }
    }

    /// Mark `id` in flight in `session`: `Some(false)` when it already is,
    /// `None` for a session this guard did not see begin (rmcp answers 404).
    pub(super) fn begin(&self, session: &str, id: &RequestId) -> Option<bool> {
        self.lock().get_mut(session).map(|used| used.in_flight.insert(id.clone()))
    }

    /// Forget sessions rmcp closed (idle too long) once they could add up.
    /// With hibernation, [`Self::sweep`] does.
    pub(super) async fn prune(&self) {
        if self.hibernate.is_some() || self.lock().len() <= 2 * self.max {
            return;
        }
        let live: HashSet<String> = self.manager.sessions.read().await.keys().map(|id| id.to_string()).collect();
        self.lock().retain(|id, _| live.contains(id));
    }

    pub(super) fn end(&self, session: &str, id: &RequestId) {
        if let Some(used) = self.lock().get_mut(session) {
            used.in_flight.remove(id);
            // Idle from its last answer on, not from its last request.
            used.last_seen = Instant::now();
        }
    }

    /// The sessions held: live ones, and with hibernation the hibernating.
    pub(super) async fn count(&self) -> usize {
        match self.hibernate {
            Some(_) => self.lock().len(),
            None => self.manager.sessions.read().await.len(),
        }
    }

    /// The sessions hibernating now.
    #[cfg(feature = "metrics")]
    pub(super) fn hibernating(&self) -> usize {
        self.lock().values().filter(|used| used.sleep == Sleep::Asleep).count()
    }

    /// Below the cap, or made so by closing the session idle the longest (no
    /// request in flight); with every session busy, 503 and `Retry-After`.
    pub(super) async fn make_room(&self) -> Result<(), Box<Response<Body>>> {
        // Counted before the ids are copied: below the cap (nearly always), a
        // new session costs no pass over the others.
        if self.count().await < self.max {
            return Ok(());
        }
        let victim = if self.hibernate.is_some() {
            let uses = self.lock();
            uses.iter()
                .filter(|(_, used)| used.in_flight.is_empty() && used.sleep != Sleep::Falling)
                .min_by_key(|(_, used)| used.last_seen)
                .map(|(id, _)| id.clone())
        } else {
            let live: HashSet<String> = self.manager.sessions.read().await.keys().map(|id| id.to_string()).collect();
            if live.len() < self.max {
                return Ok(());
            }
            let mut uses = self.lock();
            uses.retain(|id, _| live.contains(id));
            live.iter()
                .filter(|id| uses.get(*id).is_none_or(|used| used.in_flight.is_empty()))
                .min_by_key(|id| uses.get(*id).map(|used| used.last_seen))
                .cloned()
        };
        let Some(victim) = victim else {
            tracing::warn!(max = self.max, "refused a new session: every session has a request in flight");
            let mut busy = error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &Rejection::new(None, -32000, "The server has too many sessions in use; try again shortly."),
            );
            busy.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            return Err(Box::new(busy));
        };
        tracing::info!(session = victim, max = self.max, "closed the session idle the longest to make room");
        self.lock().remove(&victim);
        self.close(&victim).await;
        Ok(())
    }

    /// Close `session` for good (the guard forgot it already): its worker if
    /// it has one, and with hibernation what is kept of it.
    pub(super) async fn close(&self, session: &str) {
        let _ = self.manager.close_session(&session.into()).await;
        self.ended(session);
    }

    /// `session` ended (rmcp closed it, or the guard did): with hibernation,
    /// forget its `initialize` and record its time if it was asleep.
    pub(super) fn ended(&self, session: &str) {
        if let Some(hibernate) = &self.hibernate {
            hibernate.memory.remove(session);
            hibernate.clocks.end(session);
        }
    }

    /// One pass of hibernation: sessions idle long enough hibernate, the
    /// idlest of those awake past the cap too, and sessions idle past the
    /// idle timeout (or closed by rmcp) end.
    async fn sweep(&self) {
        let Some(hibernate) = &self.hibernate else { return };
        let live: HashSet<String> = self.manager.sessions.read().await.keys().map(|id| id.to_string()).collect();
        let now = Instant::now();
        let (mut falling, mut ending) = (Vec::new(), Vec::new());
        // Sessions with a worker, and of them those the cap may put to sleep.
        let (mut awake, mut idlest) = (0_usize, Vec::new());
        {
            let mut uses = self.lock();
            uses.retain(|id, used| {
                if used.sleep == Sleep::Falling {
                    return true;
                }
                let worker = used.sleep == Sleep::Awake && live.contains(id);
                if !used.in_flight.is_empty() {
                    awake += usize::from(worker);
                    return true;
                }
                let idle = now.saturating_duration_since(used.last_seen);
                // A pinned session lives as long as rmcp keeps its worker
                // (given time to restore it, for a request that just woke it).
                let over = if used.pinned {
                    !live.contains(id) && idle >= SETTLE_TIMEOUT
                } else {
                    idle >= hibernate.idle_timeout
                };
                if over {
                    ending.push((id.clone(), used.pinned));
                    return false;
                }
                if worker && !used.pinned {
                    // A call whose client went away may still run, for a client
                    // that resumes; once it ended, the session is idle from then.
                    if hibernate.after.is_some_and(|after| idle >= after && !hibernate.clocks.worked_within(id, after))
                    {
                        used.sleep = Sleep::Falling;
                        falling.push(id.clone());
                        return true;
                    }
                    if idle >= AWAKE_GRACE {
                        idlest.push((used.last_seen, id.clone()));
                    }
                }
                awake += usize::from(worker);
                true
            });
            let mut excess = awake.saturating_sub(hibernate.max_awake);
            if excess > 0 {
                idlest.sort_unstable_by_key(|(last_seen, _)| *last_seen);
                for (_, id) in idlest {
                    if excess == 0 {
                        break;
                    }
                    if hibernate.clocks.worked_within(&id, AWAKE_GRACE) {
                        continue;
                    }
                    if let Some(used) = uses.get_mut(&id) {
                        used.sleep = Sleep::Falling;
                        falling.push(id);
                        excess -= 1;
                    }
                }
            }
        }
        for (id, pinned) in ending {
            let why = if pinned { "its worker closed" } else { "idle past the session idle timeout" };
            tracing::debug!(session = id, why, "a session ended");
            self.close(&id).await;
        }
        for id in falling {
            let parted = hibernate.clocks.parting(&id);
            hibernate.clocks.hold(&id);
            let _ = self.manager.close_session(&id.as_str().into()).await;
            // rmcp closes the session again as the worker ends: only then
            // may a request restore it (see `Hibernation::parting`).
            let _ = tokio::time::timeout(SETTLE_TIMEOUT, parted).await;
            if let Some(used) = self.lock().get_mut(&id) {
                used.sleep = Sleep::Asleep;
            }
            hibernate.settled.notify_waiters();
            tracing::debug!(session = id, "an idle session hibernates");
        }
    }

    /// Hibernate and expire sessions until the sessions are gone (the
    /// server's application dropped): on the sweep's clock, and when the
    /// sessions held outnumber the cap of awake ones.
    pub(super) fn watch(sessions: &Arc<Self>) {
        let Some(hibernate) = &sessions.hibernate else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let crowded = Arc::clone(&hibernate.crowded);
        let period = hibernate.period();
        let sessions: Weak<Self> = Arc::downgrade(sessions);
        runtime.spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = ticks.tick() => {}
                    () = crowded.notified() => {}
                }
                let Some(sessions) = sessions.upgrade() else { return };
                sessions.sweep().await;
                drop(sessions);
                tokio::time::sleep(SWEEP_SPACING).await;
            }
        });
    }
}

/// A request id in flight in a session, freed when dropped: when its answer's
/// stream ends, or the client goes away.
pub(super) struct InFlight {
    pub(super) sessions: Arc<Sessions>,
    pub(super) session: String,
    pub(super) id: RequestId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.sessions.end(&self.session, &self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the cap of awake sessions, the sessions idle the longest fall
    /// asleep, as many as are past it, but never one that keeps something
    /// in its worker, has a request in flight or worked within the grace.
    #[tokio::test]
    async fn past_the_cap_the_idlest_sessions_fall_asleep_and_no_more() {
        let manager = Arc::new(LocalSessionManager::default());
        let (mut ids, mut transports) = (Vec::new(), Vec::new());
        for _ in 0..6 {
            let (id, transport) = manager.create_session().await.expect("a session");
            ids.push(id.to_string());
            transports.push(transport);
        }
        let clocks = Arc::new(Hibernation::default());
        let hibernate = Hibernate {
            after: None,
            max_awake: 4,
            idle_timeout: Duration::from_secs(3600),
            memory: Arc::default(),
            clocks: Arc::clone(&clocks),
            settled: tokio::sync::Notify::new(),
            crowded: Arc::default(),
        };
        let sessions =
            Arc::new(Sessions { manager, max: 100, uses: Mutex::new(HashMap::default()), hibernate: Some(hibernate) });
        // ids[0] the idlest, ids[5] the last seen, all past the grace.
        let now = Instant::now();
        for (n, id) in ids.iter().enumerate() {
            sessions.touch_new(id, None);
            sessions.lock().get_mut(id).expect("held").last_seen = now - Duration::from_secs(10 - n as u64);
        }
        sessions.pin(&ids[0]);
        assert_eq!(sessions.begin(&ids[1], &RequestId::Number(1)), Some(true));
        let handler = crate::server::dispatch::hibernation::SessionHibernation::new(clocks);
        drop(handler.begin(|| Some(ids[2].as_str())));

        // Six awake, four allowed: the two idlest of those that may sleep.
        let sweeping = Arc::clone(&sessions);
        let sweep = tokio::spawn(async move { sweeping.sweep().await });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let asleep: Vec<bool> = ids.iter().map(|id| sessions.lock()[id].sleep != Sleep::Awake).collect();
        assert_eq!(
            asleep,
            [false, false, false, true, true, false],
            "pinned, in flight, worked, the two idlest, the last"
        );
        sweep.abort();
    }
}
