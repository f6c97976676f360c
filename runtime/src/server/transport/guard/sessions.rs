//! The sessions this replica holds: one request per id and session, the
//! session cap (the idlest session closed to make room), and the caller
//! that opened each session (with auth on, no one else may use it).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::body::Body;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use rmcp::model::RequestId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::server::transport::jsonrpc::Rejection;

use super::error_response;

pub(super) struct Sessions {
    pub(super) manager: Arc<LocalSessionManager>,
    pub(super) max: usize,
    pub(super) uses: Mutex<HashMap<String, SessionUse>>,
}

pub(super) struct SessionUse {
    last_seen: Instant,
    in_flight: HashSet<RequestId>,
    /// Who opened the session (with auth on): no one else may use it.
    caller: Option<String>,
}

impl Sessions {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionUse>> {
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether this guard saw `session` begin (or restored it).
    pub(super) fn knows(&self, session: &str) -> bool {
        self.lock().contains_key(session)
    }

    /// Note a request of `caller` in `session`; `false` when another caller opened it.
    pub(super) fn touch(&self, session: &str, caller: Option<&str>) -> bool {
        let mut uses = self.lock();
        let Some(used) = uses.get_mut(session) else { return true };
        if used.caller.as_deref().is_some_and(|owner| caller != Some(owner)) {
            return false;
        }
        used.last_seen = Instant::now();
        true
    }

    pub(super) fn touch_new(&self, session: &str, caller: Option<String>) {
        let used = SessionUse { last_seen: Instant::now(), in_flight: HashSet::new(), caller };
        self.lock().insert(session.to_owned(), used);
    }

    /// Mark `id` in flight in `session`: `Some(false)` when it already is,
    /// `None` for a session this guard did not see begin (rmcp answers 404).
    pub(super) fn begin(&self, session: &str, id: &RequestId) -> Option<bool> {
        self.lock().get_mut(session).map(|used| used.in_flight.insert(id.clone()))
    }

    /// Forget sessions rmcp closed (idle too long) once they could add up.
    pub(super) async fn prune(&self) {
        if self.lock().len() <= 2 * self.max {
            return;
        }
        let live: HashSet<String> = self.manager.sessions.read().await.keys().map(|id| id.to_string()).collect();
        self.lock().retain(|id, _| live.contains(id));
    }

    pub(super) fn end(&self, session: &str, id: &RequestId) {
        if let Some(used) = self.lock().get_mut(session) {
            used.in_flight.remove(id);
        }
    }

    /// Below the cap, or made so by closing the session idle the longest (no
    /// request in flight); with every session busy, 503 and `Retry-After`.
    pub(super) async fn make_room(&self) -> Result<(), Box<Response<Body>>> {
        let live: HashSet<String> = self.manager.sessions.read().await.keys().map(|id| id.to_string()).collect();
        if live.len() < self.max {
            return Ok(());
        }
        let victim = {
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
        let _ = self.manager.close_session(&victim.as_str().into()).await;
        self.lock().remove(&victim);
        Ok(())
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
