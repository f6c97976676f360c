//! The response streams of a session's calls: what a call sends the client
//! rides its own POST response stream, and a call can close that stream for
//! SSE polling (SEP-1699).
//!
//! rmcp's local session manager routes a call's answer, progress and
//! server-to-client requests to the call's stream, but a log message
//! (`notifications/message`) to the standalone GET stream, which a client
//! that never opens one does not see. [`SessionStreams`] wraps that manager:
//! each call's request carries a [`ResponseStream`] in its extensions, through
//! which the call's logs join its own stream (stored in the event store under
//! that stream, so a client that reconnects with `Last-Event-ID` receives
//! them too), and through which the call closes its stream.
//!
//! A request's response head waits, up to [`FIRST_MESSAGE_WAIT`], for the
//! request's first message (most often its answer), so that the head, the
//! priming event and that message leave in one write.
//!
//! With a store shared by replicas, each call's request is kept beside its
//! stream, unless the call answers within that wait. A client whose
//! stream was cut resumes on any replica; when the replica running the call
//! stopped before answering, the replica the client came back to answers on
//! the same stream: it runs the call again when that is safe (a read, or a
//! tool annotated read-only or idempotent), and else answers that the call
//! was lost, since it may have taken effect.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use foldhash::HashMap;
use futures::{Stream, StreamExt};
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionHandle, LocalSessionManager, LocalSessionManagerError, SessionError,
};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};
use tokio::sync::mpsc;

use super::hibernation::Hibernation;
use crate::error::McpError;
use crate::server::store::events::{
    EventId, EventStore, EventStoreError, EventStream, Replay, ServerSseMessage, StreamId, end_of_call, ends_call,
    is_answer, is_end_of_call, replayable,
};
use crate::server::store::shared::{CallFate, RESUMING, SharedStore, StartedCall};

/// How long a call waits for room on its stream before it stops sending a
/// message live (it stays in the event store, for a client that resumes).
const LIVE_SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// Messages of a call waiting for its client to read them.
const LIVE_CAPACITY: usize = 16;

/// How long a request's response head waits for its first message: one that
/// comes sooner (most calls answer sooner) goes out with the head and the
/// priming event, in one write to the socket rather than two. A request
/// whose handler takes longer gets its head then, and the rest as it comes.
///
/// With a store shared by replicas, a call still running then is kept there
/// for the other replicas; a call answered sooner is not kept: its answer is
/// stored before the response's head goes out.
const FIRST_MESSAGE_WAIT: Duration = Duration::from_millis(10);

/// rmcp's local session manager, with each call's logs on its own stream and
/// a handle to close that stream.
#[derive(Clone)]
pub(crate) struct SessionStreams {
    local: Arc<LocalSessionManager>,
    primings: Option<Arc<Primings>>,
    retry: Option<Duration>,
    close_after: Option<Duration>,
    /// Calls kept in a store shared with other replicas, when there is one.
    shared: Option<SharedCalls>,
    /// The streams of the calls running, by session and request id: a
    /// cancellation ends its call's stream in the event store.
    calls: Arc<Calls>,
    /// Told when a session closes, for sessions that hibernate.
    hibernation: Option<Arc<Hibernation>>,
}

/// The streams of the calls running, each removed as its stream is dropped.
type Calls = Mutex<HashMap<(SessionId, RequestId), Weak<CallStream>>>;

/// The store that keeps each call's request for the other replicas, and the
/// tools safe to run again (annotated read-only or idempotent) when the
/// replica running a call of them stopped.
#[derive(Clone)]
struct SharedCalls {
    store: Arc<dyn SharedStore>,
    rerunnable: Arc<HashSet<String>>,
}

impl SessionStreams {
    /// The sessions of `local`, which must have been given `primings` as its
    /// event store (when there is one); `retry` is the hint a closed stream
    /// sends, `close_after` how long a call's stream stays open at most.
    pub(crate) fn new(
        local: Arc<LocalSessionManager>,
        primings: Option<Arc<Primings>>,
        retry: Option<Duration>,
        close_after: Option<Duration>,
    ) -> Self {
        Self { local, primings, retry, close_after, shared: None, calls: Arc::default(), hibernation: None }
    }

    /// Tell `hibernation` when a session closes.
    pub(crate) fn with_hibernation(mut self, hibernation: Arc<Hibernation>) -> Self {
        self.hibernation = Some(hibernation);
        self
    }

    /// Keep each call's request in `shared`, and answer on this replica the
    /// calls whose replica stopped: `rerunnable` names the tools run again.
    pub(crate) fn with_shared_store(mut self, shared: Arc<dyn SharedStore>, rerunnable: HashSet<String>) -> Self {
        self.shared = Some(SharedCalls { store: shared, rerunnable: Arc::new(rerunnable) });
        self
    }

    /// A call's stream, as [`SessionManager::create_stream`] makes it;
    /// `closable` is whether the call may close it (SSE polling, or
    /// `close_after`): not when this replica reads it itself, for a lost call.
    async fn open_stream(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
        closable: bool,
    ) -> Result<CallEvents, LocalSessionManagerError> {
        let handle = self
            .local
            .sessions
            .read()
            .await
            .get(id)
            .cloned()
            .ok_or_else(|| LocalSessionManagerError::SessionNotFound(id.clone()))?;
        let mut receiver = handle.establish_request_wise_channel().await?;
        // rmcp queues the stream's priming event before it hands the stream over.
        let priming = receiver.inner.try_recv().ok();
        let stored = match (&self.primings, priming.as_ref().and_then(|event| event.event_id.as_deref())) {
            (Some(primings), Some(event_id)) => {
                primings.take(event_id).map(|stream| (Arc::clone(&primings.store), stream))
            }
            _ => None,
        };
        // The requests that run a handler, which may take long enough for its
        // replica to stop meanwhile: read now, since rmcp takes the message.
        let mut keep = None;
        if let (Some(shared), Some((_, stream_id)), JsonRpcMessage::Request(request)) =
            (&self.shared, &stored, &message)
            && matches!(
                request.request,
                ClientRequest::CallToolRequest(_)
                    | ClientRequest::ReadResourceRequest(_)
                    | ClientRequest::GetPromptRequest(_)
                    | ClientRequest::CompleteRequest(_)
            )
            && let Ok(request) = serde_json::to_string(&message)
        {
            keep = Some(StartedCall::new(Arc::clone(&shared.store), id, stream_id.clone(), request));
        }
        let (live, live_events) = mpsc::channel(LIVE_CAPACITY);
        let mut call = None;
        if let (JsonRpcMessage::Request(request), Some(http_request_id)) = (&mut message, receiver.http_request_id) {
            let key = (id.clone(), request.id.clone());
            let stream = Arc::new(CallStream {
                handle: handle.clone(),
                http_request_id,
                stored,
                shared: self.shared.as_ref().map(|shared| Arc::clone(&shared.store)),
                live,
                retry: self.retry,
                closable,
                closed: AtomicBool::new(false),
                answered: AtomicBool::new(false),
                calls: Arc::downgrade(&self.calls),
                key: key.clone(),
            });
            self.calls.lock().unwrap_or_else(PoisonError::into_inner).insert(key, Arc::downgrade(&stream));
            if let Some(after) = self.close_after.filter(|_| closable) {
                // The server frees the connection of a long call; the timer
                // holds the stream weakly, so a call that ended is let go.
                let stream = Arc::downgrade(&stream);
                tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    if let Some(stream) = stream.upgrade() {
                        ResponseStream(stream).close().await;
                    }
                });
            }
            call = Some(Arc::clone(&stream));
            request.request.extensions_mut().insert(ResponseStream(stream));
        }
        let is_request = matches!(message, JsonRpcMessage::Request(_));
        handle.push_message(message, receiver.http_request_id).await?;
        // The stream, and with it the response's head, is handed over with
        // the request's first message, or after `FIRST_MESSAGE_WAIT`.
        // With a store shared by replicas, a call is kept once it has not
        // answered by then: a client that has the head and resumes on another
        // replica finds its answer or the call there, whenever this replica
        // stops. Most calls answer sooner, and keeping those would cost the
        // store a write each.
        let mut held = None;
        if is_request {
            let first = tokio::time::timeout(FIRST_MESSAGE_WAIT, receiver.inner.recv()).await;
            match (keep, first) {
                (_, Ok(Some(event))) if ends_call(&event) => held = Some(event),
                // Slower, or it sent something first (progress, a request to
                // the client), or its stream ended without an answer.
                (Some(started), first) => {
                    held = first.ok().flatten();
                    started.keep().await;
                }
                (None, first) => held = first.ok().flatten(),
            }
        }
        Ok(CallEvents { priming, held, live: live_events, rmcp: receiver.inner, call, ended: false, last_id: None })
    }

    /// The stream of `message` in the session `id`, as
    /// [`SessionManager::create_stream`] makes it: the guard opens a call's
    /// stream itself, for the requests it hands the session without rmcp's
    /// HTTP service (`guard::direct`).
    pub(crate) async fn open_call(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<OpenCall, LocalSessionManagerError> {
        let request_id = match &message {
            JsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        match (self.open_stream(id, message, true).await, request_id) {
            // The session ended (DELETE, its idle timeout) after rmcp found it
            // for this request: the request is answered as the calls that were
            // in flight then are, rather than with rmcp's 500.
            (
                Err(
                    LocalSessionManagerError::SessionNotFound(_)
                    | LocalSessionManagerError::SessionError(
                        SessionError::SessionServiceTerminated | SessionError::ChannelClosed(_),
                    ),
                ),
                Some(request_id),
            ) => {
                let ended = ServerSseMessage::from_message(session_ended(request_id));
                Ok(futures::stream::iter([ended]).right_stream())
            }
            (events, _) => events.map(StreamExt::left_stream),
        }
    }

    /// Answer, on the stream `stream_id` and to `client`, the call `request`
    /// whose replica stopped before it answered: run again when safe, and
    /// else an error saying it was lost. Every event is stored on that stream
    /// first, so a client that leaves and resumes again still gets it.
    async fn answer_lost_call(
        &self,
        session: &SessionId,
        stream_id: StreamId,
        request: ClientJsonRpcMessage,
        client: mpsc::Sender<ServerSseMessage>,
    ) {
        let (Some(primings), Some(SharedCalls { rerunnable, .. })) = (&self.primings, &self.shared) else { return };
        let store = &primings.store;
        let JsonRpcMessage::Request(call) = &request else { return };
        let mut client = Some(client);
        if let Some(lost) = lost_unless_safe(&call.request, rerunnable) {
            tracing::warn!(
                request_id = %call.id,
                "the replica running a call stopped before it answered; the call is not safe to run again, so its \
                 client is told it was lost"
            );
            let answer = ServerJsonRpcMessage::error(crate::server::wire::envelope(&lost), Some(call.id.clone()));
            forward(store.as_ref(), &stream_id, ServerSseMessage::from_message(answer), &mut client).await;
            return;
        }
        tracing::warn!(request_id = %call.id, "the replica running a call stopped before it answered; running it here");
        let mut request = request;
        if let (JsonRpcMessage::Request(call), Ok(parts)) = (&mut request, RESUMING.try_with(Clone::clone)) {
            // The client that came back is the caller: the same session, verified as it was.
            call.request.extensions_mut().insert(parts);
        }
        // Not closable: this replica reads the run's stream itself, into the
        // call's first stream, which the client follows. Closed for SSE polling,
        // it would end that forwarding before the answer, which would then go
        // to a stream of the run's own that no client knows.
        let events = match self.open_stream(session, request, false).await {
            Ok(events) => events,
            Err(err) => {
                tracing::warn!(%err, "could not run a lost call again; its stream ends, and the client may resume");
                return;
            }
        };
        let mut events = std::pin::pin!(events);
        while let Some(event) = events.next().await {
            // The run's own priming: the client resumes the call's first stream.
            if event.message.is_none() {
                continue;
            }
            let answer = is_answer(&event);
            forward(store.as_ref(), &stream_id, event, &mut client).await;
            if answer {
                return;
            }
        }
    }
}

/// The answer of a call in flight when its session ended: it will not be
/// finished, and may or may not have taken effect.
fn session_ended(id: RequestId) -> ServerJsonRpcMessage {
    let ended = McpError::service_unavailable(
        "The session ended (deleted, or idle too long) while this call was in flight; the call was not finished and \
         may or may not have taken effect.",
    )
    .with_recovery_hint("Initialize a new session, check whether the call took effect, then call again.");
    ServerJsonRpcMessage::error(crate::server::wire::envelope(&ended), Some(id))
}

/// Store `event` on `stream_id`, then send it to the client, if it is still there.
async fn forward(
    store: &dyn EventStore,
    stream_id: &str,
    mut event: ServerSseMessage,
    client: &mut Option<mpsc::Sender<ServerSseMessage>>,
) {
    match store.store_event(stream_id, &event).await {
        Ok(id) => event.event_id = Some(id),
        Err(err) => tracing::debug!(%err, "could not store a lost call's event for resumption"),
    }
    if let Some(sender) = client
        && sender.send(event).await.is_err()
    {
        *client = None;
    }
}

/// The error a lost call gets when running it again is not safe: a tool
/// call whose tool is neither read-only nor idempotent. Reads, listings and
/// the protocol's other requests are safe to run again.
fn lost_unless_safe(request: &ClientRequest, rerunnable: &HashSet<String>) -> Option<McpError> {
    let ClientRequest::CallToolRequest(call) = request else { return None };
    let tool = call.params.name.as_ref();
    if rerunnable.contains(tool) {
        return None;
    }
    Some(
        McpError::service_unavailable(format!(
            "The server replica running this call of `{tool}` stopped before it answered. `{tool}` is not marked \
             read-only or idempotent, so it was not run again: it may or may not have taken effect."
        ))
        .with_recovery_hint(format!("Check whether `{tool}` took effect before calling it again.")),
    )
}

/// An event store that remembers which stream each priming event (the first
/// event of every stream) belongs to, so a call's logs are stored under the
/// stream rmcp made for it: rmcp names the stream, and tells only the store.
pub(crate) struct Primings {
    store: Arc<dyn EventStore>,
    /// Recent priming events' ids with their streams, newest last; a call
    /// takes its own out right after its stream opens.
    recent: Mutex<std::collections::VecDeque<(EventId, StreamId)>>,
}

/// Priming events remembered at once: many more than streams open at the
/// same instant; older ones (closed streams' primings, nobody's) are dropped.
const MAX_PRIMINGS: usize = 1024;

impl Primings {
    pub(crate) fn new(store: Arc<dyn EventStore>) -> Self {
        Self { store, recent: Mutex::default() }
    }

    fn take(&self, event_id: &str) -> Option<StreamId> {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        let at = recent.iter().rposition(|(id, _)| id == event_id)?;
        recent.remove(at).map(|(_, stream)| stream)
    }
}

#[async_trait::async_trait]
impl EventStore for Primings {
    async fn store_event(&self, stream_id: &str, event: &ServerSseMessage) -> Result<EventId, EventStoreError> {
        let id = self.store.store_event(stream_id, event).await?;
        // A priming sent while the store was down is not remembered: its call's
        // stream then counts as not stored, and is not closed for polling, since
        // a client resuming after that priming would find nothing, ever.
        if event.message.is_none() && replayable(&id) {
            let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
            if recent.len() >= MAX_PRIMINGS {
                recent.pop_front();
            }
            recent.push_back((id.clone(), stream_id.to_owned()));
        }
        Ok(id)
    }

    async fn replay_events_after(&self, last_event_id: &str) -> Result<EventStream, EventStoreError> {
        self.store.replay_events_after(last_event_id).await
    }
}

/// The response stream of one call of a session, in the call's request
/// extensions: the way to send on it and to close it.
#[derive(Clone)]
pub(crate) struct ResponseStream(Arc<CallStream>);

struct CallStream {
    handle: LocalSessionHandle,
    http_request_id: u64,
    /// The store and rmcp's name of this stream in it, when events are stored.
    stored: Option<(Arc<dyn EventStore>, StreamId)>,
    /// The store shared with other replicas, when the events are kept there.
    shared: Option<Arc<dyn SharedStore>>,
    live: mpsc::Sender<ServerSseMessage>,
    retry: Option<Duration>,
    /// Whether the call may close it: not when the server reads it itself.
    closable: bool,
    closed: AtomicBool,
    /// The call's answer went out on the stream (or the call was cancelled):
    /// what the call sends after it (a task's logs) belongs to no stream of
    /// its own any more.
    answered: AtomicBool,
    /// Where the stream is found, for a cancellation: the server's calls,
    /// under its session and request id.
    calls: Weak<Calls>,
    key: (SessionId, RequestId),
}

impl CallStream {
    /// End this call's stream in the event store: its client cancelled it, so
    /// it will have no answer (rmcp drops it), and a replay that follows the
    /// stream until its answer would wait for ever. A replay ends at the mark.
    async fn end_cancelled(&self) {
        if let Some((store, stream_id)) = &self.stored
            && let Err(err) = store.store_event(stream_id, &end_of_call()).await
        {
            tracing::debug!(%err, "could not store the end of a cancelled call's stream");
        }
    }
}

impl Drop for CallStream {
    fn drop(&mut self) {
        let Some(calls) = self.calls.upgrade() else { return };
        let key = &self.key;
        let mut calls = calls.lock().unwrap_or_else(PoisonError::into_inner);
        // Only its own entry: a later call may reuse the request id.
        if calls.get(key).is_some_and(|stream| std::ptr::eq(stream.as_ptr(), self)) {
            calls.remove(key);
        }
    }
}

impl ResponseStream {
    /// Send `message` on this call's stream: stored first (when there is a
    /// store), so a client that resumes gets it, then live, unless the stream
    /// was closed. `false`, sending nothing, once the call was answered (a
    /// task runs on after it): the message goes where rmcp sends it, the
    /// standalone stream.
    pub(crate) async fn send(&self, message: ServerJsonRpcMessage) -> bool {
        if self.0.answered.load(Ordering::Acquire) {
            return false;
        }
        let mut event = ServerSseMessage::from_message(message);
        if let Some((store, stream_id)) = &self.0.stored {
            match store.store_event(stream_id, &event).await {
                Ok(id) => event.event_id = Some(id),
                Err(err) => tracing::debug!(%err, "could not store a call's message for resumption"),
            }
        }
        if self.0.closed.load(Ordering::Acquire) {
            return true;
        }
        if tokio::time::timeout(LIVE_SEND_TIMEOUT, self.0.live.send(event)).await.is_err() {
            tracing::debug!("the client did not read its call's stream in time; a message waits in the event store");
        }
        true
    }

    /// Close this call's stream after a priming event with the retry hint;
    /// the call goes on, and what it sends meanwhile waits in the event store
    /// for the client's `GET` with `Last-Event-ID`. `false` when the stream
    /// is closed already, or there is no event store to resume from: none,
    /// its first event could not be stored, or the shared store does not
    /// answer now.
    pub(crate) async fn close(&self) -> bool {
        if self.0.stored.is_none() || !self.0.closable || self.0.answered.load(Ordering::Acquire) {
            return false;
        }
        // A shared store is asked now: its client resumes from it, and the
        // stream's first event, not written there, proved nothing.
        if let Some(shared) = &self.0.shared
            && !shared.answers().await
        {
            return false;
        }
        if self.0.closed.swap(true, Ordering::AcqRel) {
            return false;
        }
        match self.0.handle.close_sse_stream(self.0.http_request_id, self.0.retry).await {
            Ok(()) => true,
            Err(err) => {
                tracing::debug!(%err, "could not close a call's stream");
                false
            }
        }
    }
}

/// A call's stream, as [`SessionStreams::open_call`] opens it: its events,
/// or the one answer of a call whose session ended as it began.
pub(crate) type OpenCall =
    futures::future::Either<CallEvents, futures::stream::Iter<std::array::IntoIter<ServerSseMessage, 1>>>;

/// A call's stream as the client reads it: the priming event, then rmcp's
/// messages and the call's own (its logs), the call's own first when both
/// wait: a log was sent before the answer it precedes was even made.
pub(crate) struct CallEvents {
    priming: Option<ServerSseMessage>,
    /// rmcp's first event, when it came before the stream was handed over:
    /// the answer of a call never kept, or what made the call be kept.
    held: Option<ServerSseMessage>,
    live: mpsc::Receiver<ServerSseMessage>,
    rmcp: mpsc::Receiver<ServerSseMessage>,
    /// The call, told when its answer passes.
    call: Option<Arc<CallStream>>,
    /// rmcp's stream ended.
    ended: bool,
    /// The id of the last event given to the client.
    last_id: Option<EventId>,
}

impl Stream for CallEvents {
    type Item = ServerSseMessage;

    /// The events, each with the id the client resumes after. A stream closed
    /// for polling ends with a `retry` hint and no message; a store need not
    /// place it among the stream's events (the Redis store does not write
    /// it), so it carries the id of the last event the client got: what the
    /// client resumes after is then what it has seen.
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut next = self.as_mut().next_event(cx);
        if let Poll::Ready(Some(event)) = &mut next {
            if event.message.is_some() || self.last_id.is_none() {
                if event.event_id.is_some() {
                    self.last_id.clone_from(&event.event_id);
                }
            } else {
                event.event_id.clone_from(&self.last_id);
            }
        }
        next
    }
}

impl CallEvents {
    fn next_event(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerSseMessage>> {
        if let Some(priming) = self.priming.take() {
            return Poll::Ready(Some(priming));
        }
        if let Poll::Ready(Some(event)) = self.live.poll_recv(cx) {
            return Poll::Ready(Some(event));
        }
        if self.ended {
            return Poll::Ready(None);
        }
        // The stream ends with rmcp's: after the answer, when closed for
        // polling, when the call was cancelled, or when the session ended.
        let event = match self.held.take() {
            Some(event) => Poll::Ready(Some(event)),
            None => self.rmcp.poll_recv(cx),
        };
        let ended = match (&event, &self.call) {
            (Poll::Ready(Some(event)), Some(call)) if is_answer(event) => {
                call.answered.store(true, Ordering::Release);
                None
            }
            // Neither answered, cancelled nor closed: the session ended
            // (DELETE, or its idle timeout) with the call in flight, and rmcp
            // drops its answer. The client is told, rather than get an empty
            // 200. A shutdown's cut ends the stream the same way, but the
            // guard's cut answers first (-32000, shutting down). `closed` is
            // read first: a closed stream's call runs on, and what it sends
            // still goes to the store, which `answered` would stop.
            (Poll::Ready(None), Some(call))
                if !call.closed.load(Ordering::Acquire) && !call.answered.swap(true, Ordering::AcqRel) =>
            {
                Some(session_ended(call.key.1.clone()))
            }
            _ => None,
        };
        if let Poll::Ready(None) = event {
            self.ended = true;
        }
        match ended {
            Some(ended) => Poll::Ready(Some(ServerSseMessage::from_message(ended))),
            None => event,
        }
    }
}

impl SessionManager for SessionStreams {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.local.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.local.close_session(id).await;
        if let Some(hibernation) = &self.hibernation {
            hibernation.closed(id);
        }
        closed
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.open_call(id, message).await
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        let cancelled = match &message {
            JsonRpcMessage::Notification(notification) => match &notification.notification {
                ClientNotification::CancelledNotification(cancelled) => cancelled.params.request_id.clone(),
                _ => None,
            },
            _ => None,
        };
        // Marked before rmcp sees the cancellation, which ends the call's
        // stream: that end is then not taken for the session's.
        let cancelled = cancelled
            .and_then(|request_id| {
                self.calls.lock().unwrap_or_else(PoisonError::into_inner).get(&(id.clone(), request_id)).cloned()
            })
            .and_then(|call| call.upgrade())
            .filter(|call| !call.answered.swap(true, Ordering::AcqRel));
        self.local.accept_message(id, message).await?;
        if let Some(call) = cancelled {
            call.end_cancelled().await;
        }
        Ok(())
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // A replay ends at the end of a cancelled call, which it does not send.
        let replay = self
            .local
            .resume(id, last_event_id.clone())
            .await?
            .take_while(|event| std::future::ready(!is_end_of_call(event)));
        let Some(shared) = self.shared.as_ref().map(|shared| Arc::clone(&shared.store)) else {
            return Ok(replay.left_stream());
        };
        let (sender, receiver) = mpsc::channel(LIVE_CAPACITY);
        let (this, session) = (self.clone(), id.clone());
        let resuming = RESUMING.try_with(Clone::clone).ok();
        // The replay, then, when it ended without the call's answer because
        // the replica running the call stopped, the answer from this one.
        let answer = async move {
            let mut last = last_event_id;
            let mut replay = std::pin::pin!(replay);
            while let Some(event) = replay.next().await {
                let answer = is_answer(&event);
                if let Some(id) = &event.event_id {
                    last.clone_from(id);
                }
                if sender.send(event).await.is_err() || answer {
                    return;
                }
            }
            if let Ok(CallFate::Lost { stream_id, request }) = shared.call_fate(&session, &last).await {
                this.answer_lost_call(&session, stream_id, *request, sender).await;
            }
        };
        match resuming {
            Some(parts) => tokio::spawn(RESUMING.scope(parts, answer)),
            None => tokio::spawn(answer),
        };
        Ok(Replay(receiver).right_stream())
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.local.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.local.event_store()
    }
}
