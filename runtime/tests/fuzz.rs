//! Protocol fuzz over stdio-style lines and Streamable HTTP (loopback only).
//!
//! Messages come from a small grammar of valid MCP client messages, then get
//! structure-level mutations (a field's type or value swapped, a key dropped
//! or added, the message wrapped or nested deep) and byte-level ones (bytes
//! flipped, cut, repeated, inserted, invalid UTF-8). For every message the
//! suite works out, from the JSON-RPC rules alone, whether an answer is owed
//! and under which id, and checks the server: every request is answered once,
//! with a well-formed JSON-RPC answer that leaks nothing; no notification or
//! response is answered; the server never stalls and keeps serving.
//!
//! `cargo test` runs `FUZZ_CASES` messages per transport (2,000 by default, a
//! few seconds). The long run, 100,000 per transport:
//!
//! ```text
//! FUZZ_CASES=100000 cargo test --release -p mcp-contract-runtime --features rmcp --test fuzz -- --nocapture
//! ```
//!
//! `FUZZ_SEED` replays a run (each run prints its seed).

mod support;

use std::time::Duration;

use mcp_contract_runtime::server::HttpOptions;
use serde_json::{Map, Value, json};
use support::{HttpClient, HttpServer, LineClient};

fn cases() -> usize {
    std::env::var("FUZZ_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(2000)
}

fn seed() -> u64 {
    std::env::var("FUZZ_SEED").ok().and_then(|seed| seed.parse().ok()).unwrap_or_else(|| fastrand::u64(..))
}

/// What the server owes a message, by the JSON-RPC rules.
#[derive(Debug, PartialEq)]
enum Owed {
    /// A notification or a response: no answer.
    Nothing,
    /// An answer under this id.
    Answer(Value),
    /// An error answer, under `null` or whatever id the server could read.
    ErrorUnderAnyId,
    /// A response-shaped message with an unusable id, or a message nested
    /// deeper than the oracle reads: an error answer, or nothing.
    AtMostAnError,
}

fn usable_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(number) => number.as_i64().is_some(),
        _ => false,
    }
}

fn owed(bytes: &[u8]) -> Owed {
    if bytes.trim_ascii().is_empty() {
        return Owed::Nothing;
    }
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => value,
        // Valid JSON perhaps, but deeper than this oracle reads: a deep
        // notification is owed nothing, a deep request an error.
        Err(err) if err.to_string().contains("recursion limit") => return Owed::AtMostAnError,
        Err(_) => return Owed::ErrorUnderAnyId,
    };
    let Value::Object(object) = value else { return Owed::Answer(Value::Null) };
    let id = object.get("id");
    let method = object.get("method");
    match (id, method) {
        (None, Some(Value::String(_))) => Owed::Nothing,
        (Some(id), None) if object.contains_key("result") || object.contains_key("error") => {
            if usable_id(id) {
                Owed::Nothing
            } else {
                Owed::AtMostAnError
            }
        }
        (None, None) if object.contains_key("result") || object.contains_key("error") => Owed::Nothing,
        (Some(id), _) if usable_id(id) => Owed::Answer(id.clone()),
        _ => Owed::Answer(Value::Null),
    }
}

/// A JSON-RPC answer as it must look: `jsonrpc`, an id, one of result and error.
fn assert_well_formed(answer: &Value, message: &[u8]) {
    let shown = String::from_utf8_lossy(&message[..message.len().min(300)]).into_owned();
    assert_eq!(answer["jsonrpc"], "2.0", "{answer} for {shown}");
    assert!(answer.get("id").is_some(), "{answer} for {shown}");
    assert!(answer.get("result").is_some() != answer.get("error").is_some(), "{answer} for {shown}");
    if let Some(error) = answer.get("error") {
        assert!(error["code"].is_i64(), "{answer} for {shown}");
        let message = error["message"].as_str().unwrap_or_else(|| panic!("a message: {answer}"));
        assert!(message.chars().count() <= 1100, "a {}-character error message for {shown}", message.len());
    }
}

// ---------------------------------------------------------------- the grammar

struct Gen(fastrand::Rng);

impl Gen {
    fn id(&mut self) -> Value {
        match self.0.u8(..4) {
            0 => json!(self.0.i64(..)),
            1 => json!(self.0.u32(..1000)),
            2 => json!(format!("r-{}", self.0.u32(..))),
            _ => json!(""),
        }
    }

    fn text(&mut self) -> String {
        let len = self.0.usize(..24);
        (0..len)
            .map(|_| match self.0.u8(..10) {
                0 => char::from_u32(self.0.u32(0x80..0x2000)).unwrap_or('é'),
                1 => '"',
                2 => '\\',
                _ => self.0.alphanumeric(),
            })
            .collect()
    }

    fn message(&mut self) -> Value {
        let id = self.id();
        match self.0.u8(..14) {
            0 => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            1 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}}),
            2..=5 => {
                let mut arguments = Map::new();
                arguments.insert("text".into(), json!(self.text()));
                if self.0.bool() {
                    arguments.insert("times".into(), json!(self.0.u32(..4)));
                }
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": arguments}})
            }
            6 => {
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": self.text(), "arguments": {}}})
            }
            7 => json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel", "params": {"level": "debug"}}),
            8 => json!({"jsonrpc": "2.0", "id": id, "method": "resources/list", "params": {}}),
            9 => json!({"jsonrpc": "2.0", "id": id, "method": self.text(), "params": {}}),
            10 => json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}),
            11 => {
                json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": id, "progress": 1}})
            }
            12 => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            _ => json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        }
    }

    fn any_value(&mut self) -> Value {
        match self.0.u8(..8) {
            0 => Value::Null,
            1 => json!(self.0.bool()),
            2 => json!(1.5),
            3 => json!(-1),
            4 => json!([1, "a"]),
            5 => json!({"x": {}}),
            6 => json!(u64::MAX),
            _ => json!(self.text()),
        }
    }

    /// A structure-level mutation: a key's value or presence changed somewhere.
    fn mutate_structure(&mut self, mut message: Value) -> Value {
        match self.0.u8(..6) {
            0 => {
                let keys = ["id", "jsonrpc", "method", "params", "result"];
                let key = keys[self.0.usize(..keys.len())];
                let value = self.any_value();
                message[key] = value;
            }
            1 => {
                let keys = ["id", "jsonrpc", "method", "params"];
                if let Some(object) = message.as_object_mut() {
                    object.remove(keys[self.0.usize(..keys.len())]);
                }
            }
            2 => {
                if message.get("params").is_some() {
                    let keys = ["name", "arguments", "level", "requestId", "_meta"];
                    let key = keys[self.0.usize(..keys.len())];
                    let value = self.any_value();
                    message["params"][key] = value;
                }
            }
            3 => message = json!([message]),
            4 => {
                let depth = self.0.usize(60..200);
                let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
                message["params"] = json!({"name": "echo", "arguments": {"text": "a", "deep": serde_json::from_str::<Value>(&nested).unwrap_or(Value::Null)}});
            }
            _ => {
                let key = self.text();
                let value = self.any_value();
                message[key] = value;
            }
        }
        message
    }

    /// A byte-level mutation.
    fn mutate_bytes(&mut self, mut bytes: Vec<u8>) -> Vec<u8> {
        for _ in 0..self.0.usize(1..4) {
            let len = bytes.len().max(1);
            match self.0.u8(..7) {
                0 => {
                    let at = self.0.usize(..len);
                    if let Some(byte) = bytes.get_mut(at) {
                        *byte ^= 1 << self.0.u8(..8);
                    }
                }
                1 => bytes.truncate(self.0.usize(..len)),
                2 => {
                    let at = self.0.usize(..=bytes.len());
                    let insert: Vec<u8> = (0..self.0.usize(1..8)).map(|_| self.0.u8(..)).collect();
                    bytes.splice(at..at, insert);
                }
                3 => {
                    let start = self.0.usize(..len);
                    let end = self.0.usize(start..=bytes.len().max(start));
                    let copy = bytes.get(start..end).map(<[u8]>::to_vec).unwrap_or_default();
                    bytes.extend_from_slice(&copy);
                }
                4 => {
                    let at = self.0.usize(..=bytes.len());
                    let tokens: [&[u8]; 8] = [b"{", b"}", b"[", b"]", b",", b":", b"\"", br"\ud800"];
                    bytes.splice(at..at, tokens[self.0.usize(..tokens.len())].iter().copied());
                }
                5 => {
                    let start = self.0.usize(..len);
                    let end = self.0.usize(start..=bytes.len().max(start));
                    if end <= bytes.len() {
                        bytes.drain(start..end);
                    }
                }
                _ => bytes = (0..self.0.usize(..64)).map(|_| self.0.u8(..)).collect(),
            }
        }
        bytes
    }

    /// One message: valid a third of the time, else mutated in structure, bytes, or both.
    fn case(&mut self) -> Vec<u8> {
        let message = self.message();
        match self.0.u8(..6) {
            0 | 1 => message.to_string().into_bytes(),
            2 => self.mutate_structure(message).to_string().into_bytes(),
            3 => {
                let mutated = self.mutate_structure(message);
                self.mutate_bytes(mutated.to_string().into_bytes())
            }
            _ => self.mutate_bytes(message.to_string().into_bytes()),
        }
    }
}

// ---------------------------------------------------------------- transports

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzz_over_lines() {
    let seed = seed();
    let cases = cases();
    eprintln!("fuzz over lines: {cases} cases, FUZZ_SEED={seed}");
    let mut generator = Gen(fastrand::Rng::with_seed(seed));
    let mut client = LineClient::start().await;
    let mut answered = 0usize;
    for round in 0..cases {
        let mut message = generator.case();
        // One message per line: a newline would make two.
        for byte in &mut message {
            if *byte == b'\n' {
                *byte = b' ';
            }
        }
        let owed = owed(&message);
        client.send(&message).await;
        let shown = String::from_utf8_lossy(&message[..message.len().min(300)]).into_owned();
        let context = format!("round {round} (FUZZ_SEED={seed}): {shown} (owed {owed:?})");
        let mut owed_seen = matches!(owed, Owed::Nothing | Owed::AtMostAnError);
        let mut extra_allowed = owed == Owed::AtMostAnError;
        // A ping after the message: once it is answered, so is the message
        // (a second one when an answer may or may not come).
        let pings = if extra_allowed { 2 } else { 1 };
        for ping in 0..pings {
            let sentinel = format!("sentinel-{round}-{ping}");
            client.send(json!({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}).to_string().as_bytes()).await;
            let mut sentinel_seen = false;
            while !(sentinel_seen && owed_seen) {
                let Some(answer) = client.next_within(Duration::from_secs(5)).await else {
                    panic!("{context}: the server stalled");
                };
                assert_well_formed(&answer, &message);
                if answer["id"] == sentinel.as_str() {
                    sentinel_seen = true;
                } else if !owed_seen {
                    match &owed {
                        Owed::Answer(id) => assert_eq!(&answer["id"], id, "{context}"),
                        _ => assert!(answer.get("error").is_some(), "{context}: {answer}"),
                    }
                    owed_seen = true;
                    answered += 1;
                } else if extra_allowed && answer.get("error").is_some() {
                    extra_allowed = false;
                    answered += 1;
                } else {
                    panic!("{context}: an unexpected answer {answer}");
                }
            }
        }
    }
    eprintln!("fuzz over lines: {answered} of {cases} messages answered, the rest owed nothing");
    let ping = json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}).to_string();
    client.send(ping.as_bytes()).await;
    assert_eq!(client.next().await["id"], "last", "the server still serves");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzz_over_http_with_sessions() {
    fuzz_over_http(false, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzz_over_stateless_http() {
    fuzz_over_http(true, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzz_over_stateless_http_with_json_responses() {
    fuzz_over_http(true, true).await;
}

/// Every case posted in one session (or, stateless, on one connection without
/// one), each answer held to what the JSON-RPC rules owe its message.
async fn fuzz_over_http(stateless: bool, json_response: bool) {
    let mode = match (stateless, json_response) {
        (false, _) => "sessions",
        (true, false) => "stateless",
        (true, true) => "stateless, JSON responses",
    };
    let seed = seed();
    let cases = cases();
    eprintln!("fuzz over HTTP ({mode}): {cases} cases, FUZZ_SEED={seed}");
    let mut generator = Gen(fastrand::Rng::with_seed(seed));
    let server = HttpServer::start(HttpOptions::default().stateless(stateless).json_response(json_response)).await;
    let mut client =
        if stateless { HttpClient::connect(server.addr).await } else { HttpClient::session(server.addr).await };
    let mut answered = 0usize;
    for round in 0..cases {
        let message = generator.case();
        let owed = owed(&message);
        let shown = String::from_utf8_lossy(&message[..message.len().min(300)]).into_owned();
        let answer = client.post(&message).await;
        let messages = answer.messages();
        for message in &messages {
            assert_well_formed(message, shown.as_bytes());
        }
        let context =
            format!("{mode}, round {round} (FUZZ_SEED={seed}): {} {} for {shown}", answer.status, answer.text());
        match &owed {
            Owed::Nothing => {
                assert_eq!(answer.status, 202, "{context}");
                assert!(messages.is_empty(), "{context}");
            }
            Owed::AtMostAnError => assert!(messages.len() <= 1, "{context}"),
            Owed::Answer(id) => {
                assert_eq!(messages.len(), 1, "{context}");
                assert_eq!(&messages[0]["id"], id, "{context}");
            }
            Owed::ErrorUnderAnyId => {
                assert_eq!(messages.len(), 1, "{context}");
                assert!(messages[0].get("error").is_some(), "{context}");
            }
        }
        answered += messages.len();
    }
    eprintln!("fuzz over HTTP ({mode}): {answered} of {cases} messages answered, the rest owed nothing");
    let ping = json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}).to_string();
    assert_eq!(client.post(ping.as_bytes()).await.message()["id"], "last", "the server still serves");
}

#[test]
fn the_oracle_reads_the_json_rpc_rules() {
    assert_eq!(owed(br#"{"jsonrpc":"2.0","method":"x"}"#), Owed::Nothing);
    assert_eq!(owed(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Owed::Nothing);
    assert_eq!(owed(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#), Owed::Answer(json!(1)));
    assert_eq!(owed(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#), Owed::Answer(Value::Null));
    assert_eq!(owed(br#"{"id":"a"}"#), Owed::Answer(json!("a")));
    assert_eq!(owed(b"[1]"), Owed::Answer(Value::Null));
    assert_eq!(owed(b"{"), Owed::ErrorUnderAnyId);
    assert_eq!(owed(br#"{"jsonrpc":"2.0","id":null,"error":{}}"#), Owed::AtMostAnError);
}
