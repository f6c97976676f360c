//! Idle Streamable HTTP sessions hibernate
//! ([`HttpOptions::session_hibernate_after`](crate::server::HttpOptions::session_hibernate_after)):
//! the transport closes the rmcp worker of a session that has been idle for a
//! while, and keeps only what the client said in `initialize`; the session's
//! next request restores it from there, as another replica restores a session
//! it does not hold. The worker is where an idle session's memory goes (its
//! channels and tasks, about 90 KB); what stays is a few hundred bytes.
//!
//! What a session's handler keeps that must outlive its worker is its clock
//! (`mcp.server.session.duration` counts the session, not each of its
//! workers): [`Hibernation`] holds it while the session sleeps, and gives it
//! to the restored handler. It also tells the guard which sessions must stay
//! awake: those whose handler is at work (a call, a task).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::observe::{HeldClock, SessionClock, WatchedClock};

/// The requests a session's handler is running: a call whose client went
/// away still runs (and its answer is kept for a client that resumes), so
/// the guard's count of open requests is not enough to put a session to sleep.
#[derive(Clone, Default)]
pub(crate) struct Work(Arc<WorkState>);

#[derive(Default)]
struct WorkState {
    running: AtomicUsize,
    /// The registry knows this work as its session's (see [`Hibernation::begin`]):
    /// a request need not look it up.
    known: AtomicBool,
    /// When a request (or task) last ended. rmcp sends a call's answer after
    /// its handler returned, on the session's worker: a session whose client
    /// went away is idle from then on, not from when its client left, so it
    /// does not close that worker under the answer on its way.
    ended: Mutex<Option<Instant>>,
}

/// One request at work, counted until dropped.
pub(crate) struct Working(Arc<WorkState>);

impl Work {
    fn begin(&self) -> Working {
        self.0.running.fetch_add(1, Ordering::AcqRel);
        Working(Arc::clone(&self.0))
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        // The end is written before the count falls, so whoever sees the
        // count at zero sees this end.
        *self.0.ended.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

impl WorkState {
    fn within(&self, span: Duration) -> bool {
        self.running.load(Ordering::Acquire) > 0
            || self.ended.lock().unwrap_or_else(PoisonError::into_inner).is_some_and(|ended| ended.elapsed() < span)
    }
}

/// What one session's handler (one copy of the server) has of hibernation:
/// the server's registry, and its own work.
#[derive(Clone)]
pub(crate) struct SessionHibernation {
    registry: Arc<Hibernation>,
    work: Work,
}

impl SessionHibernation {
    /// The handle of the copies made for new sessions.
    pub(crate) fn new(registry: Arc<Hibernation>) -> Self {
        Self { registry, work: Work::default() }
    }

    /// The handle of a copy for a new session: the same registry, work of its own.
    pub(crate) fn for_new_session(&self) -> Self {
        Self::new(Arc::clone(&self.registry))
    }

    /// A request of the session `id` names at work (see [`Hibernation::begin`]);
    /// `id` is asked for only when the registry does not know this work yet.
    pub(crate) fn begin<'a>(&self, id: impl FnOnce() -> Option<&'a str>) -> Option<Working> {
        if self.work.0.known.load(Ordering::Acquire) {
            return Some(self.work.begin());
        }
        Some(self.registry.begin(id()?, &self.work))
    }

    /// The session `id` began here, on this clock.
    pub(crate) fn watch(&self, id: &str, clock: &SessionClock) {
        self.registry.watch(id, clock, &self.work);
    }

    /// The session `id` restored here takes back its clock (see [`Hibernation::wake`]).
    pub(crate) fn wake(&self, id: &str, clock: &SessionClock) -> bool {
        self.registry.wake(id, clock, &self.work)
    }
}

/// A live session's handler, watched: its clock (once the client's
/// `notifications/initialized` reached this replica) and its work.
#[derive(Default)]
struct Live {
    clock: Option<WatchedClock>,
    work: Weak<WorkState>,
}

impl Live {
    fn is_live(&self) -> bool {
        self.clock.as_ref().is_some_and(WatchedClock::is_live) || self.work.strong_count() > 0
    }
}

/// The clocks of one server's sessions, by session id, and the workers
/// winding down as their session hibernates.
#[derive(Default)]
pub(crate) struct Hibernation {
    /// Live sessions' handlers: their clocks, watched (the handler owns
    /// each), and their work.
    live: Mutex<HashMap<String, Live>>,
    /// Hibernating sessions' clocks, held until the session wakes or ends.
    held: Mutex<HashMap<String, HeldClock>>,
    /// Sessions whose worker was told to close, told in turn once it has.
    parting: Mutex<HashMap<String, oneshot::Sender<()>>>,
}

impl Hibernation {
    /// The worker of session `id` is about to be closed: the receiver hears
    /// when it has ended. rmcp closes a session once more when its worker
    /// ends; were the session restored before that, the restored worker
    /// would be the one closed, so a request for it waits for this.
    pub(crate) fn parting(&self, id: &str) -> oneshot::Receiver<()> {
        let (parted, receiver) = oneshot::channel();
        self.parting.lock().unwrap_or_else(PoisonError::into_inner).insert(id.to_owned(), parted);
        receiver
    }

    /// rmcp closes session `id` (a worker of it ended, or the client deleted it).
    pub(crate) fn closed(&self, id: &str) {
        if let Some(parted) = self.parting.lock().unwrap_or_else(PoisonError::into_inner).remove(id) {
            let _ = parted.send(());
        }
    }

    /// The session `id` began (or woke) with this clock and this work.
    fn watch(&self, id: &str, clock: &SessionClock, work: &Work) {
        self.with_live(id, |live| {
            live.clock = Some(clock.watch());
            live.work = Arc::downgrade(&work.0);
        });
        work.0.known.store(true, Ordering::Release);
    }

    /// A request of session `id` begins on the handler with this work. The
    /// client's `notifications/initialized` may have gone to another replica
    /// (behind a round robin): the work is known from the first request. From
    /// then on the handler's requests skip the registry: its entry goes only
    /// when the session hibernates or ends, after which the handler serves
    /// no request.
    fn begin(&self, id: &str, work: &Work) -> Working {
        let working = work.begin();
        self.with_live(id, |live| live.work = Arc::downgrade(&work.0));
        work.0.known.store(true, Ordering::Release);
        working
    }

    fn with_live(&self, id: &str, change: impl FnOnce(&mut Live)) {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        // Sessions that ended without hibernating (their handler gone) leave
        // a dead entry: swept once they could add up.
        if live.len() >= 64 && live.len().is_power_of_two() {
            live.retain(|_, live| live.is_live());
        }
        change(live.entry(id.to_owned()).or_default());
    }

    /// Whether the handler of session `id` worked within `span`: a request
    /// running or a task it started, or one that ended less than `span` ago.
    pub(crate) fn worked_within(&self, id: &str, span: Duration) -> bool {
        let live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.get(id).and_then(|live| live.work.upgrade()).is_some_and(|work| work.within(span))
    }

    /// The session `id` is about to hibernate: its time goes on without its handler.
    pub(crate) fn hold(&self, id: &str) {
        let watched = self.live.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        if let Some(held) = watched.and_then(|live| live.clock?.hold()) {
            self.held.lock().unwrap_or_else(PoisonError::into_inner).insert(id.to_owned(), held);
        }
    }

    /// The restored handler of session `id` takes the clock it had before it
    /// hibernated: `false` when it did not hibernate here (a session another
    /// replica opened), and the handler starts a clock of its own.
    fn wake(&self, id: &str, clock: &SessionClock, work: &Work) -> bool {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        let Some(held) = held else { return false };
        clock.resume(held);
        self.watch(id, clock, work);
        true
    }

    /// The session `id` ended: a hibernating session's time is recorded now
    /// (a live one's, when its handler goes).
    pub(crate) fn end(&self, id: &str) {
        self.live.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        drop(held);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::server::dispatch::observe::Observe;

    #[test]
    fn a_held_clock_passes_to_the_restored_handler_and_work_is_seen_while_it_runs_and_after() {
        let hibernation = Hibernation::default();
        let observe = Arc::new(Observe::default());
        let first = SessionClock::default();
        first.start(&observe, Some("2025-06-18".to_owned()), "tcp");
        let work = Work::default();
        hibernation.watch("a", &first, &work);
        let (now, minute) = (Duration::ZERO, Duration::from_secs(60));
        assert!(!hibernation.worked_within("a", minute), "no work yet");
        let working = hibernation.begin("a", &work);
        assert!(hibernation.worked_within("a", now));
        drop(working);
        assert!(!hibernation.worked_within("a", now));
        assert!(hibernation.worked_within("a", minute), "idle from the end of its work on");
        // A request on a handler whose session began on another replica.
        let elsewhere = Work::default();
        let working = hibernation.begin("c", &elsewhere);
        assert!(hibernation.worked_within("c", now), "its work is known from its first request");
        drop(working);
        assert!(!hibernation.worked_within("c", now));
        hibernation.hold("a");
        drop(first);
        assert_eq!(hibernation.held.lock().unwrap().len(), 1, "the clock outlives the handler while held");
        let restored = SessionClock::default();
        assert!(hibernation.wake("a", &restored, &Work::default()));
        assert!(hibernation.held.lock().unwrap().is_empty());
        assert!(!hibernation.wake("a", &SessionClock::default(), &Work::default()), "a clock wakes once");
        hibernation.end("a");
        hibernation.end("c");
        assert!(hibernation.live.lock().unwrap().is_empty());
    }

    #[test]
    fn a_handler_the_registry_knows_begins_its_work_without_naming_its_session() {
        let registry = Arc::new(Hibernation::default());
        let handler = SessionHibernation::new(Arc::clone(&registry));
        let working = handler.begin(|| Some("a")).expect("named");
        assert!(registry.worked_within("a", Duration::ZERO));
        drop(working);
        assert!(!registry.worked_within("a", Duration::ZERO));
        let working = handler.begin(|| panic!("a known handler's session is not looked up again")).expect("known");
        assert!(registry.worked_within("a", Duration::ZERO), "the registry sees its work all the same");
        drop(working);
        assert!(SessionHibernation::new(registry).begin(|| None).is_none(), "no session named, no work counted");
    }

    #[test]
    fn a_session_that_never_began_holds_no_clock() {
        let hibernation = Hibernation::default();
        let clock = SessionClock::default();
        hibernation.watch("b", &clock, &Work::default());
        hibernation.hold("b");
        assert!(hibernation.held.lock().unwrap().is_empty());
        assert!(!hibernation.wake("b", &SessionClock::default(), &Work::default()));
    }
}
