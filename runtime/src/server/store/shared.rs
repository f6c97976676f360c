//! What serving asks of a store that replicas share (sessions, SSE events,
//! tasks), beyond rmcp's `SessionStore` and `EventStore` traits: whether it
//! answers now, who opened a session, and whether storing one failed. The
//! HTTP guard uses it to refuse, with 503, the requests that need the store
//! while it is down, and to bind a session restored on another replica to the
//! caller who opened it.

use std::sync::Arc;

use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::{EventStore, SessionStore, StreamId};

use super::tasks::TaskStore;
use crate::call::BoxFuture;

tokio::task_local! {
    /// The caller opening a session while rmcp stores its state (the guard
    /// sets it around an `initialize`), so the store keeps it beside the
    /// state: another replica then binds the session to the same caller.
    pub(crate) static SESSION_OWNER: Option<String>;
}

tokio::task_local! {
    /// The `GET` with `Last-Event-ID` of a client resuming a stream (the
    /// guard sets it): a call lost with its replica runs again on this one
    /// with it, as the same caller of the same session.
    pub(crate) static RESUMING: http::request::Parts;
}

/// The message of a request refused because the shared store does not
/// answer: the cause, without addresses or the client library's words.
pub(crate) const UNAVAILABLE: &str = "Service unavailable: the store this server shares with its replicas \
                                      (sessions, streams, tasks) does not answer; try again shortly.";

/// A session as the shared store knows it.
// Only the Redis store (feature `redis`) makes them; the guard reads them in every build.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) enum StoredSession {
    /// No such session (never opened, deleted, or idle past its expiry).
    Unknown,
    /// Opened by this caller (`None` without auth).
    OwnedBy(Option<String>),
}

/// A call whose stream a replay followed to its end without meeting the
/// call's answer, as the shared store knows it.
// Only the Redis store (feature `redis`) makes them; the session streams read them in every build.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) enum CallFate {
    /// Nothing is to be done here: the call is answered, its replica still
    /// runs it, it was never kept, or another replica took it over.
    Unknown,
    /// The replica running the call stopped before it answered, and this
    /// replica now owns the call's stream: it answers on it.
    Lost { stream_id: StreamId, request: Box<ClientJsonRpcMessage> },
}

/// The store could not be reached in time.
#[derive(Debug)]
pub(crate) struct Unavailable;

/// A store shared by the replicas of one server.
pub(crate) trait SharedStore: Send + Sync + 'static {
    /// Whether the store failed a moment ago: a request that needs it is
    /// refused at once instead of waiting for it again.
    fn unavailable(&self) -> bool;

    /// Whether the store answers now (one round trip): a call's stream is
    /// closed for polling only then, since its client resumes from the store.
    fn answers(&self) -> BoxFuture<'_, bool>;

    /// Whether the store keeps `session`, and who opened it.
    fn session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<StoredSession, Unavailable>>;

    /// Push back the idle expiry of `session`, which this replica serves
    /// (at most now and then, in the background).
    fn touch_session(&self, session: &str);

    /// Whether storing `session` when it was initialized failed (asked once).
    fn take_store_failure(&self, session: &str) -> bool;

    /// The call of `stream_id` starts on this replica, not kept: an answer
    /// stored before [`Self::keep_call`] needs no record of the call, since
    /// none was written. Through [`StartedCall`], which ends it.
    fn call_starts(&self, stream_id: &str);

    /// Keep `request` (its JSON) of `session` beside its call's stream
    /// `stream_id`, with this replica as the one running it, unless the
    /// call's answer is stored already. The future ends when the write is
    /// done or failed, within the store's bound on a wait.
    fn keep_call(&self, session: &str, stream_id: &str, request: String) -> BoxFuture<'static, ()>;

    /// The call of `stream_id` is not to be kept: answered before, or its
    /// stream never opened.
    fn call_not_kept(&self, stream_id: &str);

    /// What became of the call of `session` whose stream `last_event_id`
    /// belongs to, after its replay ended without the call's answer: lost
    /// (and now this replica's to answer) when the replica running it stopped.
    fn call_fate<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<CallFate, Unavailable>>;

    fn session_store(&self) -> Arc<dyn SessionStore>;

    fn event_store(&self) -> Arc<dyn EventStore>;

    fn task_store(&self) -> Arc<dyn TaskStore>;

    /// Wait for the writes still queued (events sent before they were
    /// stored) to be done or failed, within the store's bound on a wait: a
    /// server stopping gracefully leaves none behind.
    fn flush(&self) -> BoxFuture<'_, ()>;
}

/// A call started on this replica and not kept yet for the other replicas:
/// [`Self::keep`] keeps it; dropped first, it never is.
pub(crate) struct StartedCall {
    store: Arc<dyn SharedStore>,
    session: String,
    stream_id: StreamId,
    /// The request's JSON, until the call is kept.
    request: Option<String>,
}

impl StartedCall {
    pub(crate) fn new(store: Arc<dyn SharedStore>, session: &str, stream_id: StreamId, request: String) -> Self {
        store.call_starts(&stream_id);
        Self { store, session: session.to_owned(), stream_id, request: Some(request) }
    }

    /// Keep the call, unless its answer was stored first.
    pub(crate) fn keep(mut self) -> BoxFuture<'static, ()> {
        let request = self.request.take().unwrap_or_default();
        self.store.keep_call(&self.session, &self.stream_id, request)
    }
}

impl Drop for StartedCall {
    fn drop(&mut self) {
        if self.request.is_some() {
            self.store.call_not_kept(&self.stream_id);
        }
    }
}
