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
//! to the restored handler.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tokio::sync::oneshot;

use super::observe::{HeldClock, SessionClock, WatchedClock};

/// The clocks of one server's sessions, by session id, and the workers
/// winding down as their session hibernates.
#[derive(Default)]
pub(crate) struct Hibernation {
    /// Live sessions' clocks, watched: the session's handler still owns each.
    live: Mutex<HashMap<String, WatchedClock>>,
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

    /// The session `id` began (or woke) with this clock.
    pub(crate) fn watch(&self, id: &str, clock: &SessionClock) {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        // Sessions that ended without hibernating (their handler gone) leave
        // a dead entry: swept once they could add up.
        if live.len() >= 64 && live.len().is_power_of_two() {
            live.retain(|_, clock| clock.is_live());
        }
        live.insert(id.to_owned(), clock.watch());
    }

    /// The session `id` is about to hibernate: its time goes on without its handler.
    pub(crate) fn hold(&self, id: &str) {
        let watched = self.live.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        if let Some(held) = watched.and_then(|clock| clock.hold()) {
            self.held.lock().unwrap_or_else(PoisonError::into_inner).insert(id.to_owned(), held);
        }
    }

    /// The restored handler of session `id` takes the clock it had before it
    /// hibernated: `false` when it did not hibernate here (a session another
    /// replica opened), and the handler starts a clock of its own.
    pub(crate) fn wake(&self, id: &str, clock: &SessionClock) -> bool {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
        let Some(held) = held else { return false };
        clock.resume(held);
        self.watch(id, clock);
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
    fn a_held_clock_passes_to_the_restored_handler_and_a_dropped_one_leaves_nothing_behind() {
        let hibernation = Hibernation::default();
        let observe = Arc::new(Observe::default());
        let first = SessionClock::default();
        first.start(&observe, Some("2025-06-18".to_owned()), "tcp");
        hibernation.watch("a", &first);
        hibernation.hold("a");
        drop(first);
        assert_eq!(hibernation.held.lock().unwrap().len(), 1, "the clock outlives the handler while held");
        let restored = SessionClock::default();
        assert!(hibernation.wake("a", &restored));
        assert!(hibernation.held.lock().unwrap().is_empty());
        assert!(!hibernation.wake("a", &SessionClock::default()), "a clock wakes once");
        hibernation.end("a");
        assert!(hibernation.live.lock().unwrap().is_empty());
    }

    #[test]
    fn a_session_that_never_began_holds_no_clock() {
        let hibernation = Hibernation::default();
        let clock = SessionClock::default();
        hibernation.watch("b", &clock);
        hibernation.hold("b");
        assert!(hibernation.held.lock().unwrap().is_empty());
        assert!(!hibernation.wake("b", &SessionClock::default()));
    }
}
