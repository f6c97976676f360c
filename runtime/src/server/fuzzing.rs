//! The entry points of the fuzz targets in `fuzz/` (cargo-fuzz, libFuzzer),
//! compiled only when `cargo fuzz` builds the crate (`--cfg fuzzing`): the
//! parsers that read what a client sends are private. Each entry checks, past
//! "no panic", what its parser promises; a failed assertion is a finding.

use std::net::IpAddr;
use std::sync::LazyLock;

use http::{HeaderMap, HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
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
pub fn jsonrpc_message(bytes: &[u8]) {
    match jsonrpc::inspect(bytes) {
        Inspection::Forward(message) => {
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
