//! A request in a session handed to the session here, without rmcp's HTTP
//! service, when every check of that service would pass.
//!
//! rmcp's service reads the body a second time, through the untagged enums
//! of its message types (most of what it spent on a `tools/call`), and clones
//! its configuration for every request. The guard has read the message
//! already: for a request of a session this replica holds, whose headers rmcp
//! would take as they are (`Host`, `Accept`, a legacy `MCP-Protocol-Version`
//! and no per-request protocol version), it opens the call's stream on the
//! session manager as rmcp does, and answers with the same SSE response.
//! Anything else (a body with a byte-order mark, an `Accept` with parameters,
//! a session to restore, the stateless revision, `initialize`) still goes
//! rmcp's way, so that its answers stay rmcp's.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use futures::Stream;
use http::header::{self, HeaderValue};
use http::request::Parts;
use http::{HeaderMap, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetExtensions, GetMeta, ProtocolVersion, RequestId};
use rmcp::transport::streamable_http_server::SessionId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::origin::RequestHost;
use crate::server::dispatch::streams::{OpenCall, SessionStreams};
use crate::server::store::events::{MemoryEventStore, ServerSseMessage};
use crate::server::transport::jsonrpc::Reading;
use crate::server::wire::PROTOCOL_VERSION_HEADER;

/// What rmcp's service was configured with that its answer to a request of a
/// session depends on.
pub(crate) struct Direct {
    pub(crate) streams: Arc<SessionStreams>,
    /// rmcp's `allowed_hosts`, each read as rmcp reads it; `None` for an
    /// empty list, which allows every host (a list of blank entries allows none).
    allowed_hosts: Option<Vec<(String, Option<u16>)>>,
    /// The interval of the SSE keep-alive comments (`sse_keep_alive`).
    keep_alive: Option<Duration>,
    /// The event store, when it is this crate's in memory: an event's JSON
    /// is taken from it, where storing the event serialized its message.
    kept: Option<Arc<MemoryEventStore>>,
}

impl Direct {
    pub(crate) fn new(streams: Arc<SessionStreams>, allowed_hosts: &[String], keep_alive: Option<Duration>) -> Self {
        let allowed_hosts = (!allowed_hosts.is_empty())
            .then(|| allowed_hosts.iter().filter_map(|allowed| rmcp_allowed_authority(allowed)).collect());
        Self { streams, allowed_hosts, keep_alive, kept: None }
    }

    /// The event store is `store`, which keeps each event's JSON.
    pub(crate) fn with_memory_events(mut self, store: Arc<MemoryEventStore>) -> Self {
        self.kept = Some(store);
        self
    }

    /// Whether rmcp's service would hand `message`, the body `bytes` of a
    /// POST with `headers`, to a session as it is: only then may the guard.
    /// `false` leaves the request to rmcp, whichever way rmcp would go.
    pub(super) fn takes(&self, parts: &Parts, bytes: &[u8], reading: Reading, message: &ClientJsonRpcMessage) -> bool {
        let ClientJsonRpcMessage::Request(request) = message else { return false };
        // rmcp's handshake and discovery have paths of their own.
        if matches!(request.request, ClientRequest::InitializeRequest(_) | ClientRequest::DiscoverRequest(_)) {
            return false;
        }
        // A per-request protocol version (the stateless revision) is checked against the header.
        if request.request.get_meta().protocol_version().is_some() {
            return false;
        }
        let headers = &parts.headers;
        self.host_passes(parts)
            && accepts_json_and_sse(headers)
            && legacy_version(headers)
            && plain_object(bytes)
            // Read in one pass, the envelope and the params, the objects
            // rmcp reads as structs, wrote each key once already.
            && (reading == Reading::OnePass || unique_keys(bytes))
    }

    /// rmcp's `Host` check: the header, as `http` reads an authority, names
    /// an allowed host (an empty list allows all). (Its `Origin` check is
    /// off: the guard's own runs before.) The header is read as the guard's
    /// outer middleware read it, which refused a `Host` with a userinfo or
    /// stray brackets that `http` would take; for the others, the host name
    /// and port are `http`'s.
    fn host_passes(&self, parts: &Parts) -> bool {
        let Some(host) = RequestHost::of(&parts.headers, &parts.extensions) else { return false };
        let Some(allowed_hosts) = &self.allowed_hosts else { return true };
        allowed_hosts.iter().any(|(allowed, allowed_port)| {
            // Both lowercase already: rmcp lowercases both.
            allowed == host.host() && allowed_port.is_none_or(|allowed_port| host.port() == Some(allowed_port))
        })
    }

    /// Whether this replica holds `session`, as rmcp's service asks first;
    /// when not, rmcp restores it or answers 404.
    pub(super) async fn holds(&self, session: &SessionId) -> Result<bool, Response<Body>> {
        self.streams.has_session(session).await.map_err(|err| internal_error("check session", &err))
    }

    /// Open the call's stream in `session`, which holds it, as rmcp's
    /// service does for a request of a session (or its 500).
    pub(super) async fn open(
        &self,
        parts: Parts,
        mut message: ClientJsonRpcMessage,
        session: &SessionId,
    ) -> Result<OpenCall, Response<Body>> {
        // As rmcp does: a handler reads the request's HTTP parts from its extensions.
        if let ClientJsonRpcMessage::Request(request) = &mut message {
            request.request.extensions_mut().insert(parts);
        }
        self.streams.open_call(session, message).await.map_err(|err| internal_error("get session", &err))
    }

    /// The SSE answer of a call, with rmcp's headers, ended by `cut`.
    pub(super) fn answer<G: Send + Unpin + 'static>(
        &self,
        events: OpenCall,
        id: RequestId,
        cut: CancellationToken,
        held: G,
    ) -> Response<Body> {
        let body = CallBody {
            events,
            id,
            cut: Box::pin(cut.cancelled_owned()),
            keep_alive: self.keep_alive.map(KeepAlive::new),
            kept: self.kept.clone(),
            answered: false,
            ended: false,
            _held: held,
        };
        let mut response = Response::new(Body::new(body));
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
        response
    }
}

/// nginx's header that turns its buffering of a response off, as rmcp sets
/// it on an SSE answer; named once, where a `&str` name is parsed and
/// checked at each insert (600 instructions a call).
const X_ACCEL_BUFFERING: http::HeaderName = http::HeaderName::from_static("x-accel-buffering");

/// rmcp's answer to a session manager's error: 500, as text (the guard's
/// `answer_in_json_rpc` makes it a JSON-RPC error, as it does rmcp's).
fn internal_error(context: &str, err: &dyn std::fmt::Display) -> Response<Body> {
    tracing::error!("Internal server error when {context}: {err}");
    let mut response = Response::new(Body::from(format!("Encounter an error when {context}: {err}")));
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}

/// An entry of rmcp's `allowed_hosts` as rmcp reads it: an authority, else
/// the whole entry as a host name; lowercased, without brackets.
fn rmcp_allowed_authority(allowed: &str) -> Option<(String, Option<u16>)> {
    let allowed = allowed.trim();
    if allowed.is_empty() {
        return None;
    }
    let (host, port) = match http::uri::Authority::try_from(allowed) {
        Ok(authority) => (authority.host().to_owned(), authority.port_u16()),
        Err(_) => (allowed.to_owned(), None),
    };
    Some((host.trim_matches('[').trim_matches(']').to_ascii_lowercase(), port))
}

/// Whether the `Accept` headers list both `application/json` and
/// `text/event-stream`, read plainly: a value with parameters or quotes
/// (`;q=0`) is left to rmcp's reading of weights.
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        // rmcp skips a value that is not text.
        let Ok(value) = value.to_str() else { continue };
        if value.contains([';', '"']) {
            return false;
        }
        for essence in value.split(',').map(str::trim) {
            json |= essence.eq_ignore_ascii_case("application/json");
            sse |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// Whether `MCP-Protocol-Version` is absent (rmcp assumes 2025-03-26) or a
/// version rmcp knows that has the `initialize` handshake and predates the
/// standard headers: a request of a session, which rmcp checks no further.
fn legacy_version(headers: &HeaderMap) -> bool {
    let Some(version) = headers.get(PROTOCOL_VERSION_HEADER) else { return true };
    let Ok(version) = version.to_str() else { return false };
    ProtocolVersion::KNOWN_VERSIONS.iter().any(|known| {
        known.as_str() == version
            && known.has_initialize()
            && version < ProtocolVersion::STANDARD_HEADERS.as_str()
            && version < ProtocolVersion::V_2026_07_28.as_str()
    })
}

/// Whether the body is a JSON object with nothing around it but JSON's own
/// whitespace, as rmcp parses it: `jsonrpc::inspect` also takes a byte-order
/// mark and a form feed around it, which rmcp refuses.
fn plain_object(bytes: &[u8]) -> bool {
    let is_json_space = |byte: &u8| matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
    let start = bytes.iter().position(|byte| !is_json_space(byte));
    let end = bytes.iter().rposition(|byte| !is_json_space(byte));
    matches!((start, end), (Some(start), Some(end)) if bytes[start] == b'{' && bytes[end] == b'}')
}

/// The most keys of one object before it that [`unique_keys`] compares a key
/// with: an object of more keys goes rmcp's way. Without a bound, comparing
/// each key with every one before it costs the square of their number: one
/// object of 40,000 short keys (a 430 KB body, well within the default 4 MiB)
/// took 3.1 s of a core to check (release build, loaded 2-core machine).
const MAX_KEYS_COMPARED: usize = 64;

/// Whether no object of the body, a JSON text, repeats a key. rmcp refuses
/// a message whose envelope or params repeat one (`"id":1,"id":2`), or
/// reads it as another request, where `inspect`, which reads a
/// `serde_json::Value` first, keeps the last. Keys are compared as written:
/// a body with an escape in a key (`"\u0069d"` is `"id"`) goes rmcp's way.
fn unique_keys(bytes: &[u8]) -> bool {
    // The keys of the objects open, each with its depth.
    let mut keys: Vec<(usize, &[u8])> = Vec::with_capacity(16);
    let mut depth = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                let start = at + 1;
                let mut end = start;
                let mut escaped = false;
                while end < bytes.len() && bytes[end] != b'"' {
                    if bytes[end] == b'\\' {
                        escaped = true;
                        end += 1;
                    }
                    end += 1;
                }
                at = end + 1;
                // In a JSON text, a string followed by `:` is a key.
                let next =
                    bytes[at.min(bytes.len())..].iter().find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
                if next == Some(&b':') {
                    let key = &bytes[start..end.min(bytes.len())];
                    let mut before = keys.iter().rev().take_while(|(at_depth, _)| *at_depth == depth);
                    if escaped || before.by_ref().take(MAX_KEYS_COMPARED).any(|(_, seen)| *seen == key) {
                        return false;
                    }
                    // Past the bound, `before` still holds keys of this object.
                    if before.next().is_some() {
                        return false;
                    }
                    keys.push((depth, key));
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                while keys.last().is_some_and(|(at_depth, _)| *at_depth == depth) {
                    keys.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        at += 1;
    }
    true
}

/// The SSE keep-alive of rmcp's answers: a comment when no event went out
/// for the interval.
struct KeepAlive {
    interval: Duration,
    deadline: tokio::time::Instant,
    /// Made when the stream first waits: a call answered at once sets no timer.
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl KeepAlive {
    fn new(interval: Duration) -> Self {
        Self { interval, deadline: tokio::time::Instant::now() + interval, sleep: None }
    }

    /// An event went out: the next comment is due an interval from now.
    fn reset(&mut self) {
        self.deadline = tokio::time::Instant::from_std(std::time::Instant::now() + self.interval);
        if let Some(sleep) = &mut self.sleep {
            sleep.as_mut().reset(self.deadline);
        }
    }

    fn poll_comment(&mut self, cx: &mut Context<'_>) -> Poll<Bytes> {
        let deadline = self.deadline;
        let sleep = self.sleep.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if sleep.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.reset();
        Poll::Ready(Bytes::from_static(b":\n\n"))
    }
}

/// The SSE body of a call's answer, as rmcp writes it (each event's `data`,
/// `id` and `retry`), ended with a JSON-RPC error when a shutdown cuts the
/// call before its answer went out (as `CutOnShutdown` ends rmcp's).
struct CallBody<G> {
    events: OpenCall,
    id: RequestId,
    cut: Pin<Box<WaitForCancellationFutureOwned>>,
    keep_alive: Option<KeepAlive>,
    kept: Option<Arc<MemoryEventStore>>,
    answered: bool,
    ended: bool,
    /// Held until the answer is sent or dropped.
    _held: G,
}

impl<G: Unpin> http_body::Body for CallBody<G> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        // The cut first: once cut, rmcp's stream ends, which must not pass for an answer.
        if this.cut.as_mut().poll(cx).is_ready() {
            this.ended = true;
            if this.answered {
                return Poll::Ready(None);
            }
            return Poll::Ready(Some(Ok(http_body::Frame::data(super::drain::cut_event(&this.id)))));
        }
        match Pin::new(&mut this.events).poll_next(cx) {
            Poll::Ready(Some(event)) => {
                if answers(&event, &this.id) {
                    this.answered = true;
                }
                if let Some(keep_alive) = &mut this.keep_alive {
                    keep_alive.reset();
                }
                let json = this
                    .kept
                    .as_ref()
                    .zip(event.event_id.as_deref())
                    .and_then(|(store, id)| event.message.is_some().then(|| store.kept_json(id)).flatten());
                Poll::Ready(Some(Ok(http_body::Frame::data(sse_event(&event, json.as_deref())))))
            }
            Poll::Ready(None) => {
                this.ended = true;
                Poll::Ready(None)
            }
            Poll::Pending => match &mut this.keep_alive {
                Some(keep_alive) => {
                    keep_alive.poll_comment(cx).map(|comment| Some(Ok(http_body::Frame::data(comment))))
                }
                None => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }
}

/// Whether `event` is the answer to the request `id`: a response or error
/// under its id, not a request or notification of the server's.
fn answers(event: &ServerSseMessage, id: &RequestId) -> bool {
    use rmcp::model::ServerJsonRpcMessage;
    match event.message.as_deref() {
        Some(ServerJsonRpcMessage::Response(response)) => response.id == *id,
        Some(ServerJsonRpcMessage::Error(error)) => error.id.as_ref() == Some(id),
        _ => false,
    }
}

/// One event as rmcp's SSE body writes it: `data` (empty for a priming
/// event), then `id` and `retry` when set, then a blank line. `json` is its
/// message's JSON when the event store kept it.
fn sse_event(event: &ServerSseMessage, json: Option<&str>) -> Bytes {
    let mut bytes = Vec::with_capacity(json.map_or(256, |json| json.len() + 64));
    bytes.extend_from_slice(b"data: ");
    match (json, &event.message) {
        (Some(json), _) => bytes.extend_from_slice(json.as_bytes()),
        // rmcp's `expect("valid message")`: a server message always serializes.
        (None, Some(message)) => serde_json::to_writer(&mut bytes, message.as_ref()).expect("valid message"),
        (None, None) => {}
    }
    bytes.push(b'\n');
    if let Some(id) = &event.event_id {
        bytes.extend_from_slice(b"id: ");
        bytes.extend_from_slice(id.as_bytes());
        bytes.push(b'\n');
    }
    if let Some(retry) = event.retry {
        bytes.extend_from_slice(b"retry: ");
        // rmcp's `as u64`: a retry hint is milliseconds, far below `u64::MAX`.
        bytes.extend_from_slice(u64::try_from(retry.as_millis()).unwrap_or(u64::MAX).to_string().as_bytes());
        bytes.push(b'\n');
    }
    bytes.push(b'\n');
    Bytes::from(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_written_as_rmcp_writes_it() {
        let message =
            rmcp::model::ServerJsonRpcMessage::response(rmcp::model::ServerResult::empty(()), RequestId::Number(7));
        let mut event = ServerSseMessage::new("s-1", message.clone());
        event.retry = Some(Duration::from_millis(3000));
        let rmcp = sse_stream::Sse::default().data(serde_json::to_string(&message).unwrap()).id("s-1").retry(3000);
        assert_eq!(sse_event(&event, None), Bytes::from(rmcp));
        let priming = ServerSseMessage::priming("0", Duration::from_secs(3));
        assert_eq!(sse_event(&priming, None), Bytes::from(sse_stream::Sse::default().data("").id("0").retry(3000)));
        // The JSON the event store kept, written as it is.
        let kept = serde_json::to_string(&message).unwrap();
        assert_eq!(sse_event(&event, Some(&kept)), sse_event(&event, None));
    }

    #[test]
    fn only_a_plain_object_is_taken() {
        assert!(plain_object(b"{\"a\":1}"));
        assert!(plain_object(b" \r\n{\"a\":1}\n"));
        for refused in [&b"\xEF\xBB\xBF{}"[..], b"\x0C{}", b"{}\x0C", b"[]", b"", b"  "] {
            assert!(!plain_object(refused), "{refused:?}");
        }
    }

    #[test]
    fn a_repeated_key_is_left_to_rmcp() {
        let call = |rest: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{rest}}}"#);
        assert!(unique_keys(call(r#"{"name":"a","arguments":{"name":1,"id":[{"id":2},{"id":3}]}}"#).as_bytes()));
        assert!(unique_keys(br#"{"a":"x\"y:","b":{"a":1},"c":[{"a":1},{"a":2}]}"#));
        for repeated in [
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"a"}}"#.to_owned(),
            call(r#"{"name":"a","name":"b"}"#),
            call(r#"{"name":"a","arguments":{"x":1,"x":2}}"#),
            call(r#"{"name":"a","_meta":{},"_meta":{}}"#),
            call(r#"{"name":"a","arguments":{"x":{"y":1},"z":[1,{"w":1,"w":2}]}}"#),
            // The same key once decoded: compared as written, so left to rmcp.
            call(r#"{"name":"a","\u006eame":"b"}"#),
        ] {
            assert!(!unique_keys(repeated.as_bytes()), "{repeated}");
        }
    }

    #[test]
    fn an_object_of_more_keys_than_are_compared_is_left_to_rmcp() {
        let object = |keys: usize| {
            let keys: Vec<String> = (0..keys).map(|key| format!(r#""k{key}":{{"a":1,"b":2}}"#)).collect();
            format!("{{{}}}", keys.join(","))
        };
        assert!(unique_keys(object(MAX_KEYS_COMPARED + 1).as_bytes()));
        assert!(!unique_keys(object(MAX_KEYS_COMPARED + 2).as_bytes()));
        // A body of 4 MiB of short keys: refused after 65 comparisons a key at most.
        assert!(!unique_keys(object(200_000).as_bytes()));
        // The bound is per object: many objects of a few keys each are taken.
        let many = format!("[{}]", vec![r#"{"a":1,"b":2}"#; 10_000].join(","));
        assert!(unique_keys(many.as_bytes()));
    }

    #[test]
    fn accept_is_read_plainly_or_left_to_rmcp() {
        let headers = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(header::ACCEPT, HeaderValue::from_str(value).unwrap());
            }
            headers
        };
        assert!(accepts_json_and_sse(&headers(&["application/json, text/event-stream"])));
        assert!(accepts_json_and_sse(&headers(&["Application/JSON", "text/event-stream"])));
        assert!(!accepts_json_and_sse(&headers(&["application/json"])));
        assert!(!accepts_json_and_sse(&headers(&["application/json;q=1, text/event-stream"])));
        assert!(!accepts_json_and_sse(&headers(&[])));
    }

    #[test]
    fn only_a_legacy_version_is_taken() {
        let headers = |value: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(value) = value {
                headers.insert("mcp-protocol-version", HeaderValue::from_str(value).unwrap());
            }
            headers
        };
        assert!(legacy_version(&headers(None)));
        assert!(legacy_version(&headers(Some("2025-06-18"))));
        assert!(legacy_version(&headers(Some("2025-11-25"))));
        assert!(!legacy_version(&headers(Some("2026-07-28"))));
        assert!(!legacy_version(&headers(Some("1999-01-01"))));
    }

    #[test]
    fn the_host_is_read_as_rmcp_reads_it() {
        let streams = || {
            Arc::new(SessionStreams::new(
                Arc::new(rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default()),
                None,
                None,
                None,
            ))
        };
        let allowed =
            ["localhost".to_owned(), "127.0.0.1".to_owned(), "[::1]".to_owned(), "Example.com:8080".to_owned()];
        let direct = Direct::new(streams(), &allowed, None);
        let host = |value: &str| http::Request::builder().header(header::HOST, value).body(()).unwrap().into_parts().0;
        for passes in ["127.0.0.1:3000", "LOCALHOST", "[::1]:80", "example.com:8080"] {
            assert!(direct.host_passes(&host(passes)), "{passes}");
        }
        // A userinfo, which `http` would take, goes rmcp's way: the guard's
        // outer middleware refuses it before.
        for refused in ["evil.com", "example.com:9090", "example.com", "bad host", "evil.com@localhost"] {
            assert!(!direct.host_passes(&host(refused)), "{refused}");
        }
        assert!(!direct.host_passes(&http::Request::new(()).into_parts().0));
        assert!(Direct::new(streams(), &[], None).host_passes(&host("anything:1")));
        // rmcp allows every host for an empty list, and none for a list of blank entries.
        assert!(!Direct::new(streams(), &[" ".to_owned()], None).host_passes(&host("anything:1")));
    }

    #[test]
    fn the_host_read_by_the_outer_middleware_is_read_again_once_changed() {
        let streams = Arc::new(SessionStreams::new(
            Arc::new(rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default()),
            None,
            None,
            None,
        ));
        let direct = Direct::new(streams, &["localhost".to_owned()], None);
        let read = |value: &str| RequestHost::parse(&HeaderValue::from_str(value).unwrap()).unwrap();
        let mut parts = http::Request::builder().header(header::HOST, "localhost").body(()).unwrap().into_parts().0;
        parts.extensions.insert(read("localhost"));
        assert!(direct.host_passes(&parts));
        // The header now names another host than the one read.
        parts.extensions.insert(read("localhost"));
        parts.headers.insert(header::HOST, HeaderValue::from_static("evil.com"));
        assert!(!direct.host_passes(&parts));
        parts.headers.insert(header::HOST, HeaderValue::from_static("localhost"));
        parts.extensions.insert(read("evil.com"));
        assert!(direct.host_passes(&parts));
    }
}
