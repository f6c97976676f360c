//! The checks in front of rmcp's Streamable HTTP service: `Origin` and CORS,
//! a JSON-RPC answer to a body that does not parse, one request per id and
//! session, the session cap, and 404 for a session that does not exist.
//!
//! rmcp 3.11 skips `Origin` unless told which origins to allow, answers an
//! unreadable body with 415 and serde's message as plain text, leaves the first
//! of two requests with one id in a session without an answer, keeps any
//! number of sessions, answers the DELETE of an unknown session with 202, and
//! an ended one with 202 too, which the Python SDK logs as a failure.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::middleware::Next;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::jsonrpc::{self, Inspection, Rejection};
use crate::server::store::shared::{self, SharedStore, StoredSession};

const SESSION_HEADER: &str = "mcp-session-id";

/// What the guard checks, from `HttpOptions`.
pub(crate) struct Guard {
    /// Normalized `scheme://host[:port]`, besides the server's own origin.
    allowed_origins: Vec<String>,
    max_body_bytes: usize,
    /// rmcp's `allowed_hosts`, checked here too before a new session may
    /// close another to make room.
    allowed_hosts: Vec<String>,
    /// `None` in stateless mode.
    sessions: Option<Arc<Sessions>>,
    drain: Arc<Drain>,
    /// The store shared with other replicas: sessions this replica does not
    /// hold are looked up there, and requests that need it get 503 while it is down.
    shared: Option<Arc<dyn SharedStore>>,
}

/// Graceful shutdown: the requests in flight, and the moment the ones still
/// running are cut.
#[derive(Default)]
pub(crate) struct Drain {
    draining: std::sync::atomic::AtomicBool,
    in_flight: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
    /// Cancelled when the grace period ends (or nothing is in flight): rmcp's
    /// services end, and the calls cut get their error.
    pub(crate) cut: tokio_util::sync::CancellationToken,
}

impl Drain {
    /// Refuse new requests from now on.
    pub(crate) fn begin(&self) {
        self.draining.store(true, std::sync::atomic::Ordering::Release);
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Resolves once no request is in flight.
    pub(crate) async fn idle(&self) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.in_flight.load(std::sync::atomic::Ordering::Acquire) == 0 {
                return;
            }
            idle.await;
        }
    }
}

/// A request in flight, until its answer is sent or dropped.
struct Call(Arc<Drain>);

impl Call {
    fn start(drain: &Arc<Drain>) -> Self {
        drain.in_flight.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Self(Arc::clone(drain))
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

struct Sessions {
    manager: Arc<LocalSessionManager>,
    max: usize,
    uses: Mutex<HashMap<String, SessionUse>>,
}

struct SessionUse {
    last_seen: Instant,
    in_flight: HashSet<RequestId>,
    /// Who opened the session (with auth on): no one else may use it.
    caller: Option<String>,
}

/// The caller of a request that passed the bearer check: its subject, else
/// its client id; `None` without auth.
fn caller_of(extensions: &http::Extensions) -> Option<String> {
    let caller = extensions.get::<Arc<crate::call::AuthInfo>>()?;
    caller.subject.clone().or_else(|| caller.client_id.clone()).or_else(|| Some(String::new()))
}

impl Guard {
    pub(crate) fn new(
        allowed_origins: &[String],
        max_body_bytes: usize,
        allowed_hosts: Vec<String>,
        sessions: Option<(Arc<LocalSessionManager>, usize)>,
        drain: Arc<Drain>,
        shared: Option<Arc<dyn SharedStore>>,
    ) -> Self {
        Self {
            allowed_origins: allowed_origins.iter().map(|origin| normalize_origin(origin)).collect(),
            max_body_bytes,
            allowed_hosts,
            sessions: sessions
                .map(|(manager, max)| Arc::new(Sessions { manager, max, uses: Mutex::new(HashMap::new()) })),
            drain,
            shared,
        }
    }

    /// Whether the request's `Origin` may call the server. Its own origin is
    /// the `Host` it was sent to (as a trusted proxy forwarded it), with the
    /// scheme's default port when either leaves the port out.
    fn check_origin(&self, headers: &HeaderMap, forwarded_proto: Option<&str>) -> Origin {
        let Some(origin) = headers.get(header::ORIGIN) else { return Origin::SameOrNone };
        let normalized = origin.to_str().map(normalize_origin).unwrap_or_default();
        let own = normalized.split_once("://").is_some_and(|(scheme, authority)| {
            let host = headers.get(header::HOST).and_then(|host| host.to_str().ok()).and_then(Authority::parse);
            let (Some(origin), Some(host)) = (Authority::parse(authority), host) else { return false };
            // Without a forwarded scheme the request's own is unknown (a proxy
            // may terminate TLS): the Origin's stands for it.
            let request_scheme = forwarded_proto.unwrap_or(scheme);
            origin.host == host.host
                && origin.port.or(default_port(scheme)) == host.port.or(default_port(request_scheme))
        });
        if own {
            return Origin::SameOrNone;
        }
        if !normalized.is_empty() && self.allowed_origins.contains(&normalized) {
            return Origin::Allowed(origin.clone());
        }
        tracing::warn!(
            origin = ?origin,
            "refused a request whose `Origin` header is not allowed; allow it with `--allowed-origins`, `MCP_ALLOWED_ORIGINS` or `HttpOptions::allowed_origins`"
        );
        Origin::Forbidden
    }

    async fn route(&self, request: Request<Body>, next: Next) -> Response<Body> {
        if !host_allowed(request.headers(), &self.allowed_hosts) {
            // rmcp refuses it (403), and tells the client nothing more.
            let host =
                request.headers().get(header::HOST).map(|host| String::from_utf8_lossy(host.as_bytes()).into_owned());
            let host = host.map(|host| crate::server::wire::cap_chars(&host, 200).unwrap_or(host));
            tracing::warn!(
                host = host.as_deref().unwrap_or("(none)"),
                "refused a request whose `Host` header is not allowed; allow it with `--allowed-hosts`, `MCP_ALLOWED_HOSTS` or `HttpOptions::allowed_hosts` (behind a proxy that rewrites `Host`, trust it with `--trusted-proxies`, `MCP_TRUSTED_PROXIES` or `HttpOptions::trusted_proxies`)"
            );
        }
        let session = request.headers().get(SESSION_HEADER).and_then(|value| value.to_str().ok()).map(str::to_owned);
        // A POST is looked up once its body gave the request's id, for the answer to carry it.
        if *request.method() != Method::POST
            && let Err(refused) = self.find_shared_session(session.as_deref(), request.extensions(), None).await
        {
            return *refused;
        }
        if let (Some(sessions), Some(session)) = (&self.sessions, &session) {
            // The MCP transport spec: a session id is bound to its user. To
            // another caller the session does not exist, as an unknown id.
            if !sessions.touch(session, caller_of(request.extensions()).as_deref()) {
                tracing::warn!("refused a request for a session another caller opened");
                return session_not_found();
            }
            if let Some(shared) = &self.shared {
                shared.touch_session(session);
            }
        }
        match *request.method() {
            Method::DELETE => self.delete(request, next, session).await,
            Method::POST if is_json(request.headers()) => self.post(request, next, session).await,
            Method::POST => self.post_not_json(request, next).await,
            Method::GET if request.headers().contains_key("last-event-id") && self.store_down() => {
                store_unavailable(None)
            }
            Method::GET if self.shared.is_some() && request.headers().contains_key("last-event-id") => {
                // A call lost with its replica may run again here, for this caller.
                let (parts, body) = request.into_parts();
                let resuming = parts.clone();
                let response = shared::RESUMING.scope(resuming, next.run(Request::from_parts(parts, body))).await;
                self.store_failed(response, None)
            }
            Method::GET => self.store_failed(next.run(request).await, None),
            _ => next.run(request).await,
        }
    }

    /// Whether the shared store failed a moment ago.
    fn store_down(&self) -> bool {
        self.shared.as_ref().is_some_and(|shared| shared.unavailable())
    }

    /// rmcp answers 500 (as text) when restoring a session from the shared
    /// store fails: while the store is down, that is its 503.
    fn store_failed(&self, response: Response<Body>, id: Option<RequestId>) -> Response<Body> {
        if response.status() == StatusCode::INTERNAL_SERVER_ERROR && !is_json(response.headers()) && self.store_down() {
            return store_unavailable(id);
        }
        response
    }

    /// A session this replica does not hold, looked up in the shared store:
    /// 404 when it has none (or another caller opened it), 503 when it does
    /// not answer; else the session is noted here with its owner, and rmcp
    /// restores it from its stored `initialize`.
    async fn find_shared_session(
        &self,
        session: Option<&str>,
        extensions: &http::Extensions,
        id: Option<RequestId>,
    ) -> Result<(), Box<Response<Body>>> {
        let (Some(shared), Some(sessions), Some(session)) = (&self.shared, &self.sessions, session) else {
            return Ok(());
        };
        if sessions.knows(session) {
            return Ok(());
        }
        if shared.unavailable() {
            return Err(Box::new(store_unavailable(id)));
        }
        match shared.session(session).await {
            Err(shared::Unavailable) => Err(Box::new(store_unavailable(id))),
            Ok(StoredSession::Unknown) => Err(Box::new(session_not_found())),
            Ok(StoredSession::OwnedBy(owner)) => {
                if owner.as_deref().is_some_and(|owner| caller_of(extensions).as_deref() != Some(owner)) {
                    tracing::warn!("refused a request for a session another caller opened");
                    return Err(Box::new(session_not_found()));
                }
                sessions.touch_new(session, owner);
                Ok(())
            }
        }
    }

    async fn delete(&self, request: Request<Body>, next: Next, session: Option<String>) -> Response<Body> {
        let (Some(sessions), Some(session)) = (&self.sessions, session) else {
            return next.run(request).await;
        };
        // With a shared store, the session was found there (or refused) already.
        if self.shared.is_none() && !sessions.manager.sessions.read().await.contains_key(session.as_str()) {
            return session_not_found();
        }
        let mut response = next.run(request).await;
        sessions.lock().remove(&session);
        // rmcp answers an ended session 202 Accepted, with no body; the
        // Python SDK takes only 200 or 204 for done, and logs a failure.
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        response
    }

    async fn post(&self, request: Request<Body>, next: Next, session: Option<String>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let bytes = match self.read_body(body).await {
            Ok(bytes) => bytes,
            Err(refused) => return *refused,
        };
        let message = match jsonrpc::inspect(&bytes) {
            Inspection::Forward(message) => message,
            Inspection::Ignore => {
                return Response::builder().status(StatusCode::ACCEPTED).body(Body::empty()).unwrap_or_default();
            }
            Inspection::Reject(rejection) => {
                let status = match rejection.code {
                    jsonrpc::INVALID_PARAMS => StatusCode::OK,
                    // As rmcp maps -32601 on the stateless revision (SEP-2575).
                    jsonrpc::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
                    _ => StatusCode::BAD_REQUEST,
                };
                return error_response(status, &rejection);
            }
        };
        // A stateless server sent no request for a client's response to answer.
        // rmcp refuses one with an error that has no `id` (which MCP allows and
        // JSON-RPC does not); accepting and dropping it, as a session does one
        // with an unknown id, leaves every client a well-formed exchange.
        if self.sessions.is_none()
            && matches!(&*message, ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_))
        {
            return Response::builder().status(StatusCode::ACCEPTED).body(Body::empty()).unwrap_or_default();
        }
        let request = Request::from_parts(parts, Body::from(bytes));
        let request_id = match &*message {
            ClientJsonRpcMessage::Request(call) => Some(call.id.clone()),
            _ => None,
        };
        if let Err(refused) =
            self.find_shared_session(session.as_deref(), request.extensions(), request_id.clone()).await
        {
            return *refused;
        }
        let Some(id) = request_id else { return self.forward(request, next, session, &message).await };
        if self.drain.is_draining() {
            return shutting_down(Some(id));
        }
        if let ClientJsonRpcMessage::Request(call) = &*message
            && call.request.method().starts_with("tasks/")
            && self.store_down()
        {
            return store_unavailable(Some(id));
        }
        let call = Call::start(&self.drain);
        let response = tokio::select! {
            // The cut first: cutting also cancels rmcp's service, whose answer to
            // the call it abandons (a -32603) must not pass for the call's own.
            biased;
            // A plain JSON answer comes only when the call is done: past the grace period, this is it.
            () = self.drain.cut.cancelled() => return shutting_down(Some(id)),
            response = self.forward(request, next, session, &message) => response,
        };
        let response = self.store_failed(response, Some(id.clone()));
        let response = answer_in_json_rpc(response, Some(id.clone()));
        let (parts, body) = response.into_parts();
        let is_stream = parts
            .headers
            .get(header::CONTENT_TYPE)
            .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
        let body = if is_stream { Body::new(CutOnShutdown::new(body, id, self.drain.cut.clone())) } else { body };
        Response::from_parts(parts, Body::new(super::listener::Guarded::new(body, call)))
    }

    /// The whole body, or the refusal of one too large (413) or too slow (408).
    async fn read_body(&self, body: Body) -> Result<Bytes, Box<Response<Body>>> {
        let err = match axum::body::to_bytes(body, self.max_body_bytes).await {
            Ok(bytes) => return Ok(bytes),
            Err(err) => err,
        };
        let (status, message) = if super::listener::RequestTimedOut::caused(&err) {
            tracing::info!("refused a request whose body did not arrive within the request read timeout");
            (StatusCode::REQUEST_TIMEOUT, "Request Timeout: the request's body did not arrive in time.".to_owned())
        } else if is_length_limit(&err) {
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Invalid Request: the body is larger than {} bytes.", self.max_body_bytes),
            )
        } else {
            (StatusCode::BAD_REQUEST, "Invalid Request: the body could not be read.".to_owned())
        };
        let mut refused = error_response(status, &Rejection::new(None, jsonrpc::INVALID_REQUEST, message));
        // The rest of the body may still be on its way: the connection cannot carry another request.
        refused.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        Err(Box::new(refused))
    }

    /// A POST whose `Content-Type` is not JSON: rmcp refuses it (415) as
    /// plain text; the refusal goes out as a JSON-RPC error, under the
    /// request's id when the body has a readable one.
    async fn post_not_json(&self, request: Request<Body>, next: Next) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let bytes = match self.read_body(body).await {
            Ok(bytes) => bytes,
            Err(refused) => return *refused,
        };
        let id = jsonrpc::top_level_id(&bytes);
        let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
        answer_in_json_rpc(response, id)
    }

    async fn forward(
        &self,
        request: Request<Body>,
        next: Next,
        session: Option<String>,
        message: &ClientJsonRpcMessage,
    ) -> Response<Body> {
        let Some(sessions) = &self.sessions else { return next.run(request).await };
        let ClientJsonRpcMessage::Request(call) = message else { return next.run(request).await };
        match session {
            Some(session) => {
                match sessions.begin(&session, &call.id) {
                    Some(true) => {}
                    Some(false) => {
                        return error_response(StatusCode::CONFLICT, &jsonrpc::duplicate_id(call.id.clone()));
                    }
                    None => return next.run(request).await,
                }
                let in_flight = InFlight { sessions: Arc::clone(sessions), session, id: call.id.clone() };
                let response = next.run(request).await;
                let (parts, body) = response.into_parts();
                Response::from_parts(parts, Body::new(super::listener::Guarded::new(body, in_flight)))
            }
            None if matches!(call.request, ClientRequest::InitializeRequest(_)) => {
                // rmcp refuses a Host it does not allow after this point; such
                // a request must not close a live session first. (The bearer
                // token is checked before this layer.)
                if !host_allowed(request.headers(), &self.allowed_hosts) {
                    return next.run(request).await;
                }
                // A session the other replicas could not find is no session.
                if self.store_down() {
                    return store_unavailable(Some(call.id.clone()));
                }
                if let Err(busy) = sessions.make_room().await {
                    return *busy;
                }
                let caller = caller_of(request.extensions());
                // rmcp stores the new session within this call: the store keeps its owner beside it.
                let response = shared::SESSION_OWNER.scope(caller.clone(), next.run(request)).await;
                if let Some(id) = response.headers().get(SESSION_HEADER).and_then(|value| value.to_str().ok()) {
                    if self.shared.as_ref().is_some_and(|shared| shared.take_store_failure(id)) {
                        let _ = sessions.manager.close_session(&id.into()).await;
                        return store_unavailable(Some(call.id.clone()));
                    }
                    sessions.touch_new(id, caller);
                    sessions.prune().await;
                }
                response
            }
            None => next.run(request).await,
        }
    }
}

/// rmcp refuses some requests with a plain-text body (an unknown session 404,
/// 406 for a missing `Accept`, 415 for another content type): the request
/// gets a JSON-RPC error under its id instead, with the same status, so a
/// client matches the refusal to its request rather than wait.
fn answer_in_json_rpc(response: Response<Body>, id: Option<RequestId>) -> Response<Body> {
    let status = response.status();
    let is_json = is_json(response.headers())
        || response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let message = match status {
        StatusCode::NOT_FOUND => "Not Found: no session has this Mcp-Session-Id; initialize a new session.",
        StatusCode::NOT_ACCEPTABLE => "Not Acceptable: accept both application/json and text/event-stream.",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "Unsupported Media Type: send application/json.",
        status if status.is_server_error() => "Internal error: the server could not handle the request.",
        _ => "Invalid Request: the server refused the request.",
    };
    let code = if status.is_server_error() { -32603 } else { jsonrpc::INVALID_REQUEST };
    tracing::debug!(%status, "answered an HTTP refusal as a JSON-RPC error");
    let mut answer = error_response(status, &Rejection::new(id, code, message));
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(value) = response.headers().get(&name) {
            answer.headers_mut().insert(name, value.clone());
        }
    }
    answer
}

/// 503 with a retryable JSON-RPC error: the server is shutting down.
fn shutting_down(id: Option<RequestId>) -> Response<Body> {
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, &jsonrpc::shutting_down(id));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The SSE answer of one request. When the grace period of a shutdown ends
/// before the stream does, the call is cut: the stream ends with a retryable
/// JSON-RPC error under the request's id (rmcp would end it with no answer),
/// unless the answer already went out.
struct CutOnShutdown {
    body: Body,
    id: RequestId,
    cut: Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>,
    answered: bool,
    ended: bool,
}

impl CutOnShutdown {
    fn new(body: Body, id: RequestId, cut: tokio_util::sync::CancellationToken) -> Self {
        Self { body, id, cut: Box::pin(cut.cancelled_owned()), answered: false, ended: false }
    }

    /// Whether `frame` holds the answer to the request (a data event with its
    /// id and a `result` or `error`, not a request or notification of the server's).
    fn answers(&self, frame: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(frame) else { return false };
        text.lines().filter_map(|line| line.strip_prefix("data:")).any(|data| {
            serde_json::from_str::<serde_json::Value>(data.trim()).is_ok_and(|message| {
                message.get("method").is_none()
                    && (message.get("result").is_some() || message.get("error").is_some())
                    && serde_json::to_value(&self.id).is_ok_and(|id| message.get("id") == Some(&id))
            })
        })
    }
}

impl http_body::Body for CutOnShutdown {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        // The cut first: rmcp ends the stream when it is cut, which must not pass for an answer.
        if !this.answered && this.cut.as_mut().poll(cx).is_ready() {
            this.ended = true;
            let event = format!(
                "event: message\ndata: {}\n\n",
                String::from_utf8_lossy(&jsonrpc::shutting_down(Some(this.id.clone())).to_bytes())
            );
            return Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from(event)))));
        }
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
            && this.answers(data)
        {
            this.answered = true;
        }
        if let Poll::Ready(None) = &polled {
            this.ended = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }
}

/// What a request's `Origin` header allows.
enum Origin {
    /// No `Origin` (not a browser), or the server's own.
    SameOrNone,
    /// An allowed other origin: its answers get CORS headers.
    Allowed(HeaderValue),
    Forbidden,
}

/// The outer middleware, over every route but the server card: `Origin` first, then CORS
/// preflight, and CORS headers on the answers of allowed origins.
pub(crate) async fn check_origin(
    State(guard): State<Arc<Guard>>,
    request: Request<Body>,
    next: Next,
) -> Response<Body> {
    let proto = request.extensions().get::<super::proxy::ForwardedProto>().map(|proto| proto.0.as_str());
    let cors_origin = match guard.check_origin(request.headers(), proto) {
        Origin::SameOrNone => None,
        Origin::Allowed(origin) => Some(origin),
        Origin::Forbidden => {
            return error_response(
                StatusCode::FORBIDDEN,
                &Rejection::new(
                    None,
                    jsonrpc::INVALID_REQUEST,
                    "Forbidden: requests from this Origin are not allowed; the server lists the origins it allows.",
                ),
            );
        }
    };
    if request.method() == Method::OPTIONS
        && let Some(origin) = &cors_origin
    {
        return preflight(origin, request.headers());
    }
    let mut response = next.run(request).await;
    if let Some(origin) = cors_origin {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED_HEADERS));
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
}

/// The inner middleware, on the MCP endpoint behind the bearer check (so no
/// body is read for a caller without a valid token): the JSON-RPC checks, the
/// session cap and the refusals as JSON-RPC errors.
pub(crate) async fn check_messages(
    State(guard): State<Arc<Guard>>,
    request: Request<Body>,
    next: Next,
) -> Response<Body> {
    guard.route(request, next).await
}

const EXPOSED_HEADERS: &str = "mcp-session-id, mcp-protocol-version, WWW-Authenticate";

fn preflight(origin: &HeaderValue, headers: &HeaderMap) -> Response<Body> {
    let requested = headers
        .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .cloned()
        .unwrap_or_else(|| HeaderValue::from_static("content-type, accept, mcp-session-id, mcp-protocol-version"));
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin)
        .header(header::ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, DELETE, OPTIONS")
        .header(header::ACCESS_CONTROL_ALLOW_HEADERS, requested)
        .header(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED_HEADERS)
        .header(header::ACCESS_CONTROL_MAX_AGE, "600")
        .header(header::VARY, "Origin")
        .body(Body::empty())
        .unwrap_or_default()
}

/// Whether the request's `Host` passes rmcp's check against `allowed` (an
/// empty list allows every host), compared as rmcp compares them: host names
/// case-insensitively, a port only when the allowed entry names one.
fn host_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let Some(host) = headers.get(header::HOST).and_then(|value| value.to_str().ok()).and_then(Authority::parse) else {
        return false;
    };
    allowed.iter().filter_map(|entry| Authority::parse(entry)).any(|allowed| {
        allowed.host == host.host && allowed.port.is_none_or(|allowed_port| host.port == Some(allowed_port))
    })
}

/// A `Host` value or the authority of an `Origin`, as both checks compare
/// them: the host name lowercased and without an IPv6 address's brackets,
/// and the port if one is written.
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn parse(text: &str) -> Option<Self> {
        let authority = http::uri::Authority::try_from(text.trim()).ok()?;
        Some(Self { host: authority.host().trim_matches(['[', ']']).to_ascii_lowercase(), port: authority.port_u16() })
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

fn is_length_limit(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(err);
    while let Some(err) = cause {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = err.source();
    }
    false
}

fn is_json(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).is_some_and(|value| {
        value.split(';').next().is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
    })
}

/// `scheme://host[:port]`, lowercased, without a trailing slash.
fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

pub(crate) fn error_response(status: StatusCode, rejection: &Rejection) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(rejection.to_bytes()))
        .unwrap_or_default()
}

/// 503 with a retryable JSON-RPC error: the shared store does not answer.
fn store_unavailable(id: Option<RequestId>) -> Response<Body> {
    let mut response =
        error_response(StatusCode::SERVICE_UNAVAILABLE, &Rejection::new(id, -32000, shared::UNAVAILABLE));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

fn session_not_found() -> Response<Body> {
    error_response(
        StatusCode::NOT_FOUND,
        &Rejection::new(None, jsonrpc::INVALID_REQUEST, "Not Found: no session has this Mcp-Session-Id."),
    )
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionUse>> {
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether this guard saw `session` begin (or restored it).
    fn knows(&self, session: &str) -> bool {
        self.lock().contains_key(session)
    }

    /// Note a request of `caller` in `session`; `false` when another caller opened it.
    fn touch(&self, session: &str, caller: Option<&str>) -> bool {
        let mut uses = self.lock();
        let Some(used) = uses.get_mut(session) else { return true };
        if used.caller.as_deref().is_some_and(|owner| caller != Some(owner)) {
            return false;
        }
        used.last_seen = Instant::now();
        true
    }

    fn touch_new(&self, session: &str, caller: Option<String>) {
        let used = SessionUse { last_seen: Instant::now(), in_flight: HashSet::new(), caller };
        self.lock().insert(session.to_owned(), used);
    }

    /// Mark `id` in flight in `session`: `Some(false)` when it already is,
    /// `None` for a session this guard did not see begin (rmcp answers 404).
    fn begin(&self, session: &str, id: &RequestId) -> Option<bool> {
        self.lock().get_mut(session).map(|used| used.in_flight.insert(id.clone()))
    }

    /// Forget sessions rmcp closed (idle too long) once they could add up.
    async fn prune(&self) {
        if self.lock().len() <= 2 * self.max {
            return;
        }
        let live: HashSet<String> = self.manager.sessions.read().await.keys().map(|id| id.to_string()).collect();
        self.lock().retain(|id, _| live.contains(id));
    }

    fn end(&self, session: &str, id: &RequestId) {
        if let Some(used) = self.lock().get_mut(session) {
            used.in_flight.remove(id);
        }
    }

    /// Below the cap, or made so by closing the session idle the longest (no
    /// request in flight); with every session busy, 503 and `Retry-After`.
    async fn make_room(&self) -> Result<(), Box<Response<Body>>> {
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
struct InFlight {
    sessions: Arc<Sessions>,
    session: String,
    id: RequestId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.sessions.end(&self.session, &self.id);
    }
}
