//! The checks in front of rmcp's Streamable HTTP service: `Origin` and CORS,
//! a JSON-RPC answer to a body that does not parse, one request per id and
//! session, the session cap, and 404 for a session that does not exist.
//!
//! rmcp 3.11 skips `Origin` unless told which origins to allow, answers an
//! unreadable body with 415 and serde's message as plain text, leaves the first
//! of two requests with one id in a session without an answer, keeps any
//! number of sessions, answers the DELETE of an unknown session with 202, and
//! an ended one with 202 too, which the Python SDK logs as a failure.

mod direct;
mod drain;
mod origin;
mod sessions;

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::middleware::Next;
use foldhash::HashMap;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Method, Request, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::error::JsonRpcErrorCode;
use crate::server::peer::ResponseGone;
use crate::server::store::shared::{self, SharedStore, StoredSession};
use crate::server::transport::jsonrpc::{self, Inspection, Rejection};
use crate::server::wire::SESSION_ID_HEADER;

pub(crate) use direct::Direct;
pub(crate) use drain::Drain;
use drain::{Call, CutOnShutdown, shutting_down};
pub(crate) use origin::check_origin;
#[cfg(fuzzing)]
pub(crate) use origin::fuzz_origin_and_host;
use origin::{AllowedHosts, host_allowed, normalize_origin};
pub(crate) use sessions::Hibernate;
use sessions::{InFlight, Sessions};

/// What the guard checks, from `HttpOptions`.
pub(crate) struct Guard {
    /// Normalized `scheme://host[:port]`, besides the server's own origin.
    allowed_origins: Vec<String>,
    max_body_bytes: usize,
    /// rmcp's `allowed_hosts`, checked here too before a new session may
    /// close another to make room.
    allowed_hosts: AllowedHosts,
    /// `None` in stateless mode.
    sessions: Option<Arc<Sessions>>,
    drain: Arc<Drain>,
    /// The store shared with other replicas: sessions this replica does not
    /// hold are looked up there, and requests that need it get 503 while it is down.
    shared: Option<Arc<dyn SharedStore>>,
    /// How a request of a session skips rmcp's HTTP service when it would
    /// pass all of its checks; `None` in stateless mode.
    direct: Option<Direct>,
}

/// The caller of a request that passed the bearer check: its subject, else
/// its client id; `None` without auth.
fn caller_of(extensions: &http::Extensions) -> Option<String> {
    let caller = extensions.get::<Arc<crate::call::AuthInfo>>()?;
    Some(caller.name().unwrap_or_default().to_owned())
}

impl Guard {
    pub(crate) fn new(
        allowed_origins: &[String],
        max_body_bytes: usize,
        allowed_hosts: Vec<String>,
        sessions: Option<(Arc<LocalSessionManager>, usize, Option<Hibernate>)>,
        drain: Arc<Drain>,
        shared: Option<Arc<dyn SharedStore>>,
        direct: Option<Direct>,
    ) -> Self {
        let sessions = sessions.map(|(manager, max, hibernate)| {
            let sessions = Arc::new(Sessions { manager, max, uses: Mutex::new(HashMap::default()), hibernate });
            Sessions::watch(&sessions);
            sessions
        });
        let direct = direct.filter(|_| sessions.is_some());
        Self {
            allowed_origins: allowed_origins.iter().map(|origin| normalize_origin(origin)).collect(),
            max_body_bytes,
            allowed_hosts: AllowedHosts::new(&allowed_hosts),
            sessions,
            drain,
            shared,
            direct,
        }
    }

    /// The sessions held and of them the hibernating, for the metrics;
    /// `None` in stateless mode.
    #[cfg(feature = "metrics")]
    pub(crate) async fn session_count(&self) -> Option<(usize, usize)> {
        match &self.sessions {
            Some(sessions) => Some((sessions.count().await, sessions.hibernating())),
            None => None,
        }
    }

    async fn route(&self, request: Request<Body>, next: Next) -> Response<Body> {
        if !host_allowed(request.headers(), request.extensions(), &self.allowed_hosts) {
            // rmcp refuses it (403), and tells the client nothing more.
            let host =
                request.headers().get(header::HOST).map(|host| String::from_utf8_lossy(host.as_bytes()).into_owned());
            let host = host.map(|host| crate::error::sanitize::cap_chars(&host, 200).unwrap_or(host));
            tracing::warn!(
                host = host.as_deref().unwrap_or("(none)"),
                "refused a request whose `Host` header is not allowed; allow it with `--allowed-hosts`, `MCP_ALLOWED_HOSTS` or `HttpOptions::allowed_hosts` (behind a proxy that rewrites `Host`, trust it with `--trusted-proxies`, `MCP_TRUSTED_PROXIES` or `HttpOptions::trusted_proxies`)"
            );
        }
        let session = request.headers().get(SESSION_ID_HEADER).and_then(|value| value.to_str().ok()).map(str::to_owned);
        // A POST is looked up once its body gave the request's id, for the answer to carry it.
        if *request.method() != Method::POST
            && let Err(refused) = self.find_shared_session(session.as_deref(), request.extensions(), None).await
        {
            return *refused;
        }
        if let (Some(sessions), Some(session)) = (&self.sessions, &session) {
            // The MCP transport spec: a session id is bound to its user. To
            // another caller the session does not exist, as an unknown id.
            if !sessions.touch(session, caller_of(request.extensions()).as_deref()).await {
                tracing::warn!("refused a request for a session another caller opened");
                return session_not_found();
            }
            if let Some(shared) = &self.shared {
                shared.touch_session(session);
            }
            // A GET stream lives in the session's worker.
            if *request.method() == Method::GET {
                sessions.pin(session);
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
        if self.shared.is_none() && !sessions.holds(&session).await {
            return session_not_found();
        }
        let mut response = next.run(request).await;
        sessions.lock().remove(&session);
        sessions.ended(&session);
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
        let (message, reading) = match jsonrpc::inspect(&bytes) {
            Inspection::Forward(message, reading) => (message, reading),
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
        let request_id = match &*message {
            ClientJsonRpcMessage::Request(call) => Some(call.id.clone()),
            _ => None,
        };
        if let Err(refused) = self.find_shared_session(session.as_deref(), &parts.extensions, request_id.clone()).await
        {
            return *refused;
        }
        let mut request = Read { parts, bytes, reading };
        // A notification or a response: rmcp takes it.
        let Some(id) = request_id else { return next.run(request.into_request()).await };
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
        let gone = tokio_util::sync::CancellationToken::new();
        request.parts.extensions.insert(ResponseGone(gone.clone()));
        let forwarded = tokio::select! {
            // The cut first: cutting also cancels rmcp's service, whose answer to
            // the call it abandons (a -32603) must not pass for the call's own.
            biased;
            // A plain JSON answer comes only when the call is done: past the grace period, this is it.
            () = self.drain.cut.cancelled() => return shutting_down(Some(id)),
            forwarded = self.forward(request, next, session, message) => forwarded,
        };
        let response = match forwarded {
            Forwarded::Answer(response) => response,
            Forwarded::Call(events, in_flight, direct) => {
                return direct.answer(events, id, self.drain.cut.clone(), (in_flight, call, gone.drop_guard()));
            }
        };
        let response = self.store_failed(response, Some(id.clone()));
        let response = with_request_id(answer_in_json_rpc(response, Some(id.clone()))).await;
        let (parts, body) = response.into_parts();
        let is_stream = parts
            .headers
            .get(header::CONTENT_TYPE)
            .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
        let body = if is_stream { Body::new(CutOnShutdown::new(body, id, self.drain.cut.clone())) } else { body };
        Response::from_parts(parts, Body::new(super::listener::Guarded::new(body, (call, gone.drop_guard()))))
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
        } else if is_cut(&err) {
            // The client went away mid-body: the reference's 499 and
            // RequestCancelled (0.12.4), for the log and a proxy's metrics,
            // as nobody is left to read it.
            tracing::info!("a request's body was cut: the client went away");
            let cancelled = Rejection::new(
                None,
                JsonRpcErrorCode::RequestCancelled.as_i32(),
                "Request Cancelled: the body was cut before its end.",
            );
            let mut refused = error_response(CLIENT_CLOSED_REQUEST, &cancelled);
            refused.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            return Err(Box::new(refused));
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

    /// Hand a request (with an id) to its session: through rmcp's service,
    /// or straight to the session when `direct` may.
    async fn forward(
        &self,
        request: Read,
        next: Next,
        session: Option<String>,
        message: Box<ClientJsonRpcMessage>,
    ) -> Forwarded<'_> {
        let answer = |response| Forwarded::Answer(response);
        let Some(sessions) = &self.sessions else { return answer(next.run(request.into_request()).await) };
        let ClientJsonRpcMessage::Request(call) = &*message else {
            return answer(next.run(request.into_request()).await);
        };
        match session {
            Some(session) => {
                if keeps_state(&call.request) {
                    sessions.pin(&session);
                }
                match sessions.begin(&session, &call.id) {
                    Some(true) => {}
                    Some(false) => {
                        return answer(error_response(StatusCode::CONFLICT, &jsonrpc::duplicate_id(call.id.clone())));
                    }
                    None => return answer(next.run(request.into_request()).await),
                }
                let in_flight = InFlight { sessions: Arc::clone(sessions), session, id: call.id.clone() };
                if let Some(direct) = &self.direct
                    && direct.takes(&request.parts, &request.bytes, request.reading, &message)
                {
                    let id = in_flight.session.as_str().into();
                    match direct.holds(&id).await {
                        Ok(true) => {
                            return match direct.open(request.parts, *message, &id).await {
                                Ok(events) => Forwarded::Call(events, in_flight, direct),
                                Err(refused) => answer(guarded(refused, in_flight)),
                            };
                        }
                        // rmcp restores it, or answers 404.
                        Ok(false) => {}
                        Err(refused) => return answer(guarded(refused, in_flight)),
                    }
                }
                answer(guarded(next.run(request.into_request()).await, in_flight))
            }
            None if matches!(call.request, ClientRequest::InitializeRequest(_)) => {
                let request = request.into_request();
                // rmcp refuses a Host it does not allow after this point; such
                // a request must not close a live session first. (The bearer
                // token is checked before this layer.)
                if !host_allowed(request.headers(), request.extensions(), &self.allowed_hosts) {
                    return answer(next.run(request).await);
                }
                // A session the other replicas could not find is no session.
                if self.store_down() {
                    return answer(store_unavailable(Some(call.id.clone())));
                }
                if let Err(busy) = sessions.make_room().await {
                    return answer(*busy);
                }
                let caller = caller_of(request.extensions());
                // rmcp stores the new session within this call: the store keeps its owner beside it.
                let response = shared::SESSION_OWNER.scope(caller.clone(), next.run(request)).await;
                if let Some(id) = response.headers().get(SESSION_ID_HEADER).and_then(|value| value.to_str().ok()) {
                    if self.shared.as_ref().is_some_and(|shared| shared.take_store_failure(id)) {
                        let _ = sessions.manager.close_session(&id.into()).await;
                        return answer(store_unavailable(Some(call.id.clone())));
                    }
                    sessions.touch_new(id, caller);
                    sessions.prune().await;
                }
                answer(response)
            }
            None => answer(next.run(request.into_request()).await),
        }
    }
}

/// A POST whose body the guard has read: rmcp's service reads it again.
struct Read {
    parts: http::request::Parts,
    bytes: Bytes,
    /// How `jsonrpc::inspect` read the body.
    reading: jsonrpc::Reading,
}

impl Read {
    fn into_request(self) -> Request<Body> {
        Request::from_parts(self.parts, Body::from(self.bytes))
    }
}

/// What became of a request handed to its session.
enum Forwarded<'guard> {
    /// The answer, from rmcp's service or the guard.
    Answer(Response<Body>),
    /// The call's stream, opened by the guard without rmcp's service: the
    /// guard answers with it, the request id in flight until it ends.
    Call(crate::server::dispatch::streams::OpenCall, InFlight, &'guard Direct),
}

/// `response`, holding `in_flight` until its body is sent or dropped.
fn guarded(response: Response<Body>, in_flight: InFlight) -> Response<Body> {
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, Body::new(super::listener::Guarded::new(body, in_flight)))
}

/// Whether a request leaves state in its session's worker that a restored
/// worker would not have: a log level, subscriptions. Such a session does
/// not hibernate. (A task is the session's work while it runs: see
/// `dispatch::hibernation`.)
fn keeps_state(request: &ClientRequest) -> bool {
    matches!(request, ClientRequest::SetLevelRequest(_) | ClientRequest::SubscribeRequest(_))
}

/// The longest refusal of rmcp's read to give it its request id; its own are
/// a line of JSON.
const MAX_REFUSAL_BYTES: usize = 64 * 1024;

/// rmcp refuses some requests itself with a JSON-RPC error (headers that
/// disagree with the body under 2026-07-28, a missing `MCP-Protocol-Version`):
/// the refusal gets its `data.requestId` here, as every error the server
/// answers does. Only error statuses are read, so no success pays for it.
async fn with_request_id(response: Response<Body>) -> Response<Body> {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || !is_json(response.headers()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REFUSAL_BYTES).await else {
        return error_response(status, &Rejection::new(None, -32603, "Internal error: the refusal could not be read."));
    };
    let stamped = serde_json::from_slice::<serde_json::Value>(&bytes).ok().and_then(|mut message| {
        let error = message.get_mut("error")?.as_object_mut()?;
        let data = error.entry("data").or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
        let data = data.as_object_mut()?;
        if data.contains_key("requestId") {
            return None;
        }
        data.insert("requestId".to_owned(), crate::error::new_request_id().into());
        serde_json::to_vec(&message).ok()
    });
    let body = match stamped {
        Some(stamped) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Body::from(stamped)
        }
        None => Body::from(bytes),
    };
    Response::from_parts(parts, body)
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

/// 499, nginx's "Client Closed Request", which the reference answers for a
/// request whose client went away; not in `http`'s table of names.
const CLIENT_CLOSED_REQUEST: StatusCode = match StatusCode::from_u16(499) {
    Ok(status) => status,
    Err(_) => StatusCode::BAD_REQUEST,
};

/// Whether a body ended before its `Content-Length` or last chunk: hyper
/// reads it as an I/O error of kind `UnexpectedEof` ("end of file before
/// message length reached"), or an incomplete message.
fn is_cut(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(err);
    while let Some(err) = cause {
        if err.downcast_ref::<hyper::Error>().is_some_and(hyper::Error::is_incomplete_message)
            || err.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof)
        {
            return true;
        }
        cause = err.source();
    }
    false
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
