//! The entry points of the fuzz targets in `fuzz/` (cargo-fuzz, libFuzzer),
//! compiled only when `cargo fuzz` builds the crate (`--cfg fuzzing`): the
//! parsers that read what a client sends are private. Each entry checks, past
//! "no panic", what its parser promises; a failed assertion is a finding.

use std::net::IpAddr;
use std::sync::LazyLock;

use http::{HeaderMap, HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetExtensions, RequestMetaObject};
use rmcp::transport::streamable_http_server::session::EventStore;
use serde_json::Value;

use crate::error::JsonObject;
use crate::server::dispatch::rounds::{Binding, RequestStates};
use crate::server::store::events::MemoryEventStore;
use crate::server::transport::jsonrpc::{self, Inspection};
use crate::server::transport::proxy::{Forwarded, TrustedProxies};
use crate::server::wire::MAX_ERROR_MESSAGE_CHARS;

/// A stdio line or an HTTP body, as `jsonrpc::inspect` reads it for rmcp:
/// what it forwards reads back as the same message, and what it refuses is a
/// JSON-RPC error with a code of its own and a message that quotes no input at length.
/// A `tools/call` read in one pass (`read_tool_call`) is the request the
/// general way reads from the same text.
pub fn jsonrpc_message(bytes: &[u8]) {
    if let Ok(text) = std::str::from_utf8(bytes)
        && let Some(call) = jsonrpc::read_tool_call(text)
    {
        let Inspection::Forward(general, _) = jsonrpc::inspect_generally(text) else {
            panic!("read in one pass, and not forwarded the general way");
        };
        let ClientJsonRpcMessage::Request(read) = &*general else { panic!("the general way reads another message") };
        // `Extensions` does not show in `Debug`: rmcp keeps a request's `_meta` there.
        let meta = |request: &ClientRequest| request.extensions().get::<RequestMetaObject>().cloned();
        assert_eq!(meta(&call.request), meta(&read.request), "the same `_meta`");
        assert_eq!(format!("{call:?}"), format!("{read:?}"), "the same request");
    }
    match jsonrpc::inspect(bytes) {
        Inspection::Forward(message, _) => {
            let json = serde_json::to_value(&*message).expect("a forwarded message serializes");
            let again: ClientJsonRpcMessage = serde_json::from_value(json.clone()).expect("and reads back");
            assert_eq!(serde_json::to_value(&again).expect("serializes"), json, "the same message");
        }
        Inspection::Ignore => {}
        Inspection::Reject(rejection) => {
            let codes =
                [jsonrpc::PARSE_ERROR, jsonrpc::INVALID_REQUEST, jsonrpc::INVALID_PARAMS, jsonrpc::METHOD_NOT_FOUND];
            assert!(codes.contains(&rejection.code), "code {}", rejection.code);
            assert!(rejection.message.chars().count() <= MAX_ERROR_MESSAGE_CHARS, "{}", rejection.message);
            let answer = rejection.to_json();
            assert_eq!(answer["jsonrpc"], "2.0");
            assert!(answer["id"].is_null() || answer["id"].is_string() || answer["id"].is_i64(), "{answer}");
        }
    }
}

/// `Forwarded` and `X-Forwarded-*` from a peer: the client is the peer or a
/// hop the headers name; a peer no proxy trusts is the client whatever it wrote.
pub fn forwarding(headers: &[(Vec<u8>, Vec<u8>)], peer: IpAddr, trusted: &[&str]) {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value)) {
            map.append(name, value);
        }
    }
    let forwarded = Forwarded::read(&map);
    let Ok(trusted) = TrustedProxies::parse(trusted) else { return };
    let client = forwarded.client(peer, &trusted);
    assert!(client == peer || forwarded.chain.contains(&client), "{client} is nobody the request names");
    if !trusted.contains(peer) {
        assert_eq!(client, peer, "an untrusted peer's headers are not believed");
    }
}

/// `Origin` against `Host`: see [`fuzz_origin_and_host`](crate::server::transport::guard::fuzz_origin_and_host).
pub fn origin_and_host(origin: &str, host: &str) {
    crate::server::transport::guard::fuzz_origin_and_host(origin, host);
}

/// A `Last-Event-ID` a client sends to resume a stream: an id the store never
/// gave replays nothing (an error or no event), never another stream's events.
pub fn last_event_id(id: &str) {
    static RUNTIME: LazyLock<tokio::runtime::Runtime> =
        LazyLock::new(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime"));
    RUNTIME.block_on(async {
        let store = MemoryEventStore::default();
        let message = rmcp::model::ServerJsonRpcMessage::response(
            rmcp::model::ServerResult::empty(()),
            rmcp::model::NumberOrString::Number(1),
        );
        let event = rmcp::transport::common::server_side_http::ServerSseMessage::from_message(message);
        let given = store.store_event("stream", &event).await.expect("stored");
        if id == given {
            return;
        }
        if let Ok(mut replay) = store.replay_events_after(id).await {
            use futures::StreamExt;
            let next = tokio::time::timeout(std::time::Duration::from_millis(1), replay.next()).await;
            assert!(!matches!(next, Ok(Some(_))), "{id:?} replayed an event it does not precede");
        }
    });
}

/// A stateless request's `requestState`: only a state this server sealed for
/// this very request opens, so a client cannot forge the answers a handler reads.
pub fn request_state(state: &str, arguments: &[u8]) {
    static STATES: LazyLock<RequestStates> =
        LazyLock::new(|| RequestStates::new(b"a fuzzing key of thirty-two bytes".to_vec()).expect("a key"));
    let arguments: Option<JsonObject> = serde_json::from_slice(arguments).ok();
    let binding = Binding::new("tools/call", "export", arguments.as_ref());
    assert!(STATES.open(&binding, Some(state), None).is_err(), "a state nobody sealed opened: {state:?}");
}

/// Argument repair before decoding, on any arguments against any schema:
/// it ends (no schema loop hangs it), and a second pass repairs nothing more.
pub fn argument_repair(arguments: &[u8], schema: &[u8]) {
    let (Ok(Value::Object(mut arguments)), Ok(Value::Object(schema))) =
        (serde_json::from_slice::<Value>(arguments), serde_json::from_slice::<Value>(schema))
    else {
        return;
    };
    crate::define::repair(&mut arguments, &schema, &[]);
    let once = arguments.clone();
    let again = crate::define::repair(&mut arguments, &schema, &[]);
    assert!(again.is_empty(), "repaired twice: {again:?}");
    assert_eq!(arguments, once);
    let _ = crate::define::arguments::decode_arguments::<Value>(arguments, &schema);
}

/// stdio's line framing: the same bytes cut at any points, read through any
/// buffer, give the same lines and messages as read whole, and those lines
/// are the bytes split at each newline (the text after the last one a line too).
pub fn stdio_framing(bytes: &[u8], cuts: &[usize], capacity: usize) {
    use crate::server::transport::stdio::framing::fuzz_lines;
    let cut = fuzz_lines(bytes, cuts, capacity);
    let whole = fuzz_lines(bytes, &[], 64 * 1024);
    assert_eq!(cut, whole, "cut at {cuts:?} through {capacity} bytes");
    let mut expected: Vec<&[u8]> = bytes.split(|&byte| byte == b'\n').collect();
    if expected.last().is_some_and(|last| last.is_empty()) {
        expected.pop();
    }
    let read: Vec<&[u8]> = whole.iter().map(|(line, _)| line.as_slice()).collect();
    assert_eq!(read, expected, "the lines the bytes hold");
}

/// A kind of record one replica writes in Redis and another reads back.
#[cfg(feature = "redis")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedisRecord {
    /// A session's `initialize`.
    Session,
    /// The `message` field of an SSE event.
    Event,
    /// A task.
    Task,
    /// A running call's request.
    Call,
    /// A `Last-Event-ID` naming a stream and its entry.
    EventId,
}

/// Records as replicas write them, for the fuzz target to cut short or corrupt.
#[cfg(feature = "redis")]
pub fn redis_records_written() -> Vec<(RedisRecord, String)> {
    use rmcp::model::{DetailedTask, Task, TaskPayload, TaskStatus};
    let initialize = serde_json::json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "inspector", "version": "1.0.0"}
    });
    let session = rmcp::transport::streamable_http_server::session::SessionState::new(
        serde_json::from_value(initialize).expect("an initialize"),
    );
    let task = |payload: TaskPayload| {
        let task = Task::new("8c1d", TaskStatus::Working, "2026-12-02T06:00:00Z", "2026-12-02T06:00:01Z");
        serde_json::to_string(&DetailedTask::new(task, payload)).expect("serializes")
    };
    let result = serde_json::json!({"content": [{"type": "text", "text": "done"}], "isError": false});
    let answer = rmcp::model::ServerJsonRpcMessage::response(
        rmcp::model::ServerResult::empty(()),
        rmcp::model::NumberOrString::Number(7),
    );
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "vermeer"}}
    });
    vec![
        (RedisRecord::Session, serde_json::to_string(&session).expect("serializes")),
        (RedisRecord::Event, serde_json::to_string(&answer).expect("serializes")),
        (RedisRecord::Task, task(TaskPayload::Working)),
        (RedisRecord::Task, task(TaskPayload::Completed { result: serde_json::from_value(result).expect("a result") })),
        (RedisRecord::Call, call.to_string()),
        (RedisRecord::EventId, "0a1b2c#1764655200000-3".to_owned()),
    ]
}

/// What a replica reads of a record another wrote, however cut short or
/// corrupted: an error, or a record that reads back as itself, never a panic.
/// A task whose replica stopped (`runs` 0) while it was working reads as failed.
#[cfg(feature = "redis")]
pub fn redis_record(kind: RedisRecord, text: &str, runs: i64) {
    use crate::server::store::redis::records;
    match kind {
        RedisRecord::Session => {
            if let Ok(state) = records::session_state(text) {
                let again = serde_json::to_string(&state).expect("a session state serializes");
                assert!(records::session_state(&again).is_ok(), "{again}");
            }
        }
        RedisRecord::Event => {
            let fields = std::collections::HashMap::from([("message".to_owned(), text.to_owned())]);
            if let Some(event) = records::event("0a1b2c", "1764655200000-3", &fields, 0) {
                assert_eq!(event.event_id.as_deref(), Some("0a1b2c#1764655200000-3"));
                assert!(event.message.is_some(), "a message field reads as a message");
            }
            let fields = std::collections::HashMap::from([("retry".to_owned(), text.to_owned())]);
            let retry = records::event("0a1b2c", "1764655200000-3", &fields, 0).expect("a retry always reads");
            assert!(retry.message.is_none());
            assert!(records::event("0a1b2c", text, &fields, 0).is_none() || records::entry_millis(text).is_some());
        }
        RedisRecord::Task => {
            if let Ok(task) = records::task(text, runs) {
                let again = serde_json::to_string(&task).expect("a task serializes");
                assert_eq!(records::task(&again, 1).expect("reads back"), task);
                if runs == 0 {
                    assert!(!matches!(
                        task.payload,
                        rmcp::model::TaskPayload::Working | rmcp::model::TaskPayload::InputRequired { .. }
                    ));
                }
            }
        }
        RedisRecord::Call => {
            if let Ok(request) = records::call_request(text) {
                serde_json::to_string(&request).expect("a request serializes");
            }
        }
        RedisRecord::EventId => {
            if let Ok((stream_id, entry)) = records::event_id(text) {
                assert_eq!(format!("{stream_id}#{entry}"), text);
                assert!(records::entry_millis(entry).is_some());
            }
        }
    }
}

/// The `Mcp-Session-Id` of a request to the Streamable HTTP endpoint.
#[derive(Clone, Copy, Debug)]
pub enum HttpSession<'a> {
    /// No session header.
    None,
    /// The id of a session the server opened.
    Live,
    /// These bytes, when they make a header value other than a live id.
    Other(&'a [u8]),
}

/// The Streamable HTTP endpoint of a session server (its memory event store
/// on), sent a POST (else a GET) with the session `session`, `headers` (any:
/// `Accept`, `Content-Type`, `Last-Event-ID`, `Host`, `Origin`, `Forwarded`,
/// …) and `body`: it answers at once (its response head within seconds),
/// never with a 5xx but a 503, a refusal with a JSON body is a JSON-RPC
/// error, and a session id it never issued gets no answer but a refusal.
pub fn http_request(post: bool, session: HttpSession<'_>, headers: &[(Vec<u8>, Vec<u8>)], body: &[u8]) {
    use http::{Method, Request, StatusCode, header};
    use http_body_util::BodyExt;
    use tower_service::Service;

    struct Endpoint {
        runtime: tokio::runtime::Runtime,
        router: axum::Router,
        live: std::sync::Mutex<String>,
    }

    fn request(method: Method, session: Option<&str>, body: &[u8]) -> Request<axum::body::Body> {
        let mut request = Request::builder()
            .method(method)
            .uri("/mcp")
            .header(header::HOST, "localhost")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.body(axum::body::Body::from(body.to_vec())).expect("a request")
    }

    /// Open a session as a client does: `initialize`, then `notifications/initialized`.
    async fn open(router: &axum::Router) -> String {
        let initialize = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
        let response = router.clone().call(request(Method::POST, None, initialize)).await.expect("infallible");
        let session = response.headers().get("mcp-session-id").expect("a session").to_str().expect("text").to_owned();
        let _ = response.into_body().collect().await;
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let response =
            router.clone().call(request(Method::POST, Some(&session), initialized)).await.expect("infallible");
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        session
    }

    static ENDPOINT: LazyLock<Endpoint> = LazyLock::new(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        let (router, live) = runtime.block_on(async {
            let server = crate::server::builder::Server::new("fuzz", "0").build().expect("a server");
            let router = crate::server::transport::http::fuzz_router(
                server,
                &crate::server::transport::http::HttpOptions::default(),
            );
            let live = open(&router).await;
            (router, live)
        });
        Endpoint { runtime, router, live: std::sync::Mutex::new(live) }
    });

    let endpoint = &*ENDPOINT;
    let live = endpoint.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let (session, foreign) = match session {
        HttpSession::None => (None, false),
        HttpSession::Live => (Some(live.clone()), false),
        HttpSession::Other(bytes) => match std::str::from_utf8(bytes) {
            Ok(id) if id != live && http::HeaderValue::from_str(id).is_ok() => (Some(id.to_owned()), true),
            _ => (None, false),
        },
    };
    let method = if post { Method::POST } else { Method::GET };
    let mut request = request(method, session.as_deref(), body);
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (http::HeaderName::from_bytes(name), http::HeaderValue::from_bytes(value)) {
            // The client's own value in place of the usual one; a session id only as chosen above.
            if name != "mcp-session-id" {
                request.headers_mut().insert(name, value);
            }
        }
    }
    let summary = format!("{:?}", request.headers());
    endpoint.runtime.block_on(async {
        let answered = tokio::time::timeout(std::time::Duration::from_secs(10), endpoint.router.clone().call(request));
        let response =
            answered.await.unwrap_or_else(|_| panic!("not answered within 10 s: {summary}")).expect("infallible");
        let status = response.status();
        assert!(!status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE, "{status}: {summary}");
        if matches!(session, Some(ref id) if *id == live) && status == StatusCode::NOT_FOUND {
            // Closed to make room for the sessions other inputs opened: open another.
            let again = open(&endpoint.router).await;
            *endpoint.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = again;
            return;
        }
        let json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json"));
        // A stream may go on: only a JSON body is read.
        if !json {
            assert!(!(foreign && status == StatusCode::OK), "a session never issued got a stream: {summary}");
            return;
        }
        let read = tokio::time::timeout(std::time::Duration::from_secs(10), response.into_body().collect());
        let bytes = read.await.unwrap_or_else(|_| panic!("a JSON body not read within 10 s: {summary}"));
        let bytes = bytes.expect("a body").to_bytes();
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or_else(|err| panic!("{err}: {bytes:?}"));
        // A GET that does not ask for a stream may get the landing page's
        // status document: a JSON-RPC answer is what is checked.
        let refused = status.is_client_error() || status.is_server_error();
        if refused || answer.get("jsonrpc").is_some() {
            assert_eq!(answer["jsonrpc"], "2.0", "{status}: {answer}");
        }
        if (refused || foreign) && answer.get("jsonrpc").is_some() {
            assert!(answer["error"]["code"].is_i64() && answer["error"]["message"].is_string(), "{status}: {answer}");
        }
    });
}
