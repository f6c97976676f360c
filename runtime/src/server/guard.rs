//! The checks in front of rmcp's Streamable HTTP service: `Origin` and CORS,
//! a JSON-RPC answer to a body that does not parse, one request per id and
//! session, the session cap, and 404 for a session that does not exist.
//!
//! rmcp 3.11 skips `Origin` unless told which origins to allow, answers an
//! unreadable body with 415 and serde's message as plain text, leaves the first
//! of two requests with one id in a session without an answer, keeps any
//! number of sessions, and answers the DELETE of an unknown session with 202.

use std::collections::{HashMap, HashSet};
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

const SESSION_HEADER: &str = "mcp-session-id";

/// What the guard checks, from `HttpOptions`.
pub(crate) struct Guard {
    /// Normalized `scheme://host[:port]`, besides the server's own origin.
    allowed_origins: Vec<String>,
    max_body_bytes: usize,
    /// `None` in stateless mode.
    sessions: Option<Arc<Sessions>>,
}

struct Sessions {
    manager: Arc<LocalSessionManager>,
    max: usize,
    uses: Mutex<HashMap<String, SessionUse>>,
}

struct SessionUse {
    last_seen: Instant,
    in_flight: HashSet<RequestId>,
}

impl Guard {
    pub(crate) fn new(
        allowed_origins: &[String],
        max_body_bytes: usize,
        sessions: Option<(Arc<LocalSessionManager>, usize)>,
    ) -> Self {
        Self {
            allowed_origins: allowed_origins.iter().map(|origin| normalize_origin(origin)).collect(),
            max_body_bytes,
            sessions: sessions
                .map(|(manager, max)| Arc::new(Sessions { manager, max, uses: Mutex::new(HashMap::new()) })),
        }
    }

    /// Whether the request's `Origin` may call the server.
    fn check_origin(&self, headers: &HeaderMap) -> Origin {
        let Some(origin) = headers.get(header::ORIGIN) else { return Origin::SameOrNone };
        let normalized = origin.to_str().map(normalize_origin).unwrap_or_default();
        let own = headers.get(header::HOST).and_then(|host| host.to_str().ok()).is_some_and(|host| {
            normalized.split_once("://").is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host))
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
        let session = request.headers().get(SESSION_HEADER).and_then(|value| value.to_str().ok()).map(str::to_owned);
        if let (Some(sessions), Some(session)) = (&self.sessions, &session) {
            sessions.touch(session);
        }
        match *request.method() {
            Method::DELETE => self.delete(request, next, session).await,
            Method::POST if is_json(request.headers()) => self.post(request, next, session).await,
            _ => next.run(request).await,
        }
    }

    async fn delete(&self, request: Request<Body>, next: Next, session: Option<String>) -> Response<Body> {
        let (Some(sessions), Some(session)) = (&self.sessions, session) else {
            return next.run(request).await;
        };
        if !sessions.manager.sessions.read().await.contains_key(session.as_str()) {
            return session_not_found();
        }
        let response = next.run(request).await;
        sessions.lock().remove(&session);
        response
    }

    async fn post(&self, request: Request<Body>, next: Next, session: Option<String>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, self.max_body_bytes).await else {
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                &Rejection::new(
                    None,
                    jsonrpc::INVALID_REQUEST,
                    format!("Invalid Request: the body is larger than {} bytes.", self.max_body_bytes),
                ),
            );
        };
        let message = match jsonrpc::inspect(&bytes) {
            Inspection::Forward(message) => message,
            Inspection::Ignore => {
                return Response::builder().status(StatusCode::ACCEPTED).body(Body::empty()).unwrap_or_default();
            }
            Inspection::Reject(rejection) => {
                let status =
                    if rejection.code == jsonrpc::INVALID_PARAMS { StatusCode::OK } else { StatusCode::BAD_REQUEST };
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
        let response = self.forward(request, next, session, &message).await;
        match request_id {
            Some(id) => answer_in_json_rpc(response, id).await,
            None => response,
        }
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
                Response::from_parts(parts, Body::new(Guarded::new(body, in_flight)))
            }
            None if matches!(call.request, ClientRequest::InitializeRequest(_)) => {
                if let Err(busy) = sessions.make_room().await {
                    return *busy;
                }
                let response = next.run(request).await;
                if let Some(id) = response.headers().get(SESSION_HEADER).and_then(|value| value.to_str().ok()) {
                    sessions.touch_new(id);
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
async fn answer_in_json_rpc(response: Response<Body>, id: RequestId) -> Response<Body> {
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
    let mut answer = error_response(status, &Rejection::new(Some(id), code, message));
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(value) = response.headers().get(&name) {
            answer.headers_mut().insert(name, value.clone());
        }
    }
    answer
}

/// What a request's `Origin` header allows.
enum Origin {
    /// No `Origin` (not a browser), or the server's own.
    SameOrNone,
    /// An allowed other origin: its answers get CORS headers.
    Allowed(HeaderValue),
    Forbidden,
}

/// The middleware: `Origin` first, CORS preflight, then the JSON-RPC checks.
pub(crate) async fn check(State(guard): State<Arc<Guard>>, request: Request<Body>, next: Next) -> Response<Body> {
    let cors_origin = match guard.check_origin(request.headers()) {
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
    let mut response = guard.route(request, next).await;
    if let Some(origin) = cors_origin {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED_HEADERS));
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
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

    fn touch(&self, session: &str) {
        if let Some(used) = self.lock().get_mut(session) {
            used.last_seen = Instant::now();
        }
    }

    fn touch_new(&self, session: &str) {
        self.lock().insert(session.to_owned(), SessionUse { last_seen: Instant::now(), in_flight: HashSet::new() });
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

/// A response body that keeps `G` alive until the body is done or dropped.
pub(crate) struct Guarded<G> {
    body: Body,
    _guard: G,
}

impl<G> Guarded<G> {
    pub(crate) fn new(body: Body, guard: G) -> Self {
        Self { body, _guard: guard }
    }
}

impl<G: Unpin> http_body::Body for Guarded<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
