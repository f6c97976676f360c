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
//! The server serves resources, resource templates (one with an error
//! contract), a prompt and completion beside its tools (`support::surface`).
//! The grammar reads, gets and completes them with valid, nearly valid and
//! hostile params (URIs that almost fit a template, variables of the wrong
//! type, odd percent-encoding, unknown schemes, huge and empty texts, missing
//! and mistyped prompt arguments, unknown references) and knows what an intact
//! request must get: a result, or an error of one MCP code. Every error keeps
//! to the codes MCP and the surface's contracts give, leaks no `::` path,
//! panic or source path, and carries `data` only when the code built it.
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
use support::surface::{ABOUT_URI, DEPARTMENTS, LOAN_TEMPLATE, OBJECT_TEMPLATE, PROMPT, loan_outcome};
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

    fn message(&mut self) -> (Value, Expect) {
        let id = self.id();
        let message = match self.0.u8(..24) {
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
            13 => json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            _ => return self.surface(id),
        };
        (message, Expect::Anything)
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
                    let keys = ["name", "arguments", "level", "requestId", "_meta", "uri", "ref", "argument"];
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

    /// One message: valid a third of the time (with what it must get), else
    /// mutated in structure, bytes, or both.
    fn case(&mut self) -> (Vec<u8>, Expect) {
        let (message, expect) = self.message();
        let bytes = match self.0.u8(..6) {
            0 | 1 => return (message.to_string().into_bytes(), expect),
            2 => self.mutate_structure(message).to_string().into_bytes(),
            3 => {
                let mutated = self.mutate_structure(message);
                self.mutate_bytes(mutated.to_string().into_bytes())
            }
            _ => self.mutate_bytes(message.to_string().into_bytes()),
        };
        (bytes, Expect::Anything)
    }
}

// ------------------------------------ resources, prompts and completion

/// What a valid message must get beyond what the JSON-RPC rules owe it.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// Only the JSON-RPC rules and the invariants every answer keeps.
    Anything,
    /// A result holding this key.
    Result(&'static str),
    /// An error with this code.
    Error(i32),
}

/// The longest text a huge case sends: big enough to show an error that quotes
/// it whole, or a matcher that is quadratic in it.
const HUGE: usize = 100_000;

/// The longest URI the server matches against its templates (the runtime's
/// `catalog::MAX_URI_BYTES`); a longer one is no resource it has.
const MAX_URI_BYTES: usize = 8 * 1024;

/// Resource-not-found, as MCP's resources page gives it (and rmcp sends it).
const RESOURCE_NOT_FOUND: i32 = -32002;
const INVALID_PARAMS: i32 = -32602;
const METHOD_NOT_FOUND: i32 = -32601;

impl Gen {
    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.0.usize(..items.len())].clone()
    }

    /// A long text, around the longest URI the server matches half the time.
    fn huge(&mut self, unit: &str) -> String {
        let len = if self.0.bool() { self.0.usize(1000..2 * MAX_URI_BYTES) } else { self.0.usize(1000..HUGE) };
        unit.repeat(len / unit.len())
    }

    /// Letters only, never empty: no number, no reserved character.
    fn word(&mut self) -> String {
        (0..self.0.usize(1..12)).map(|_| self.0.alphabetic()).collect()
    }

    /// A request for the resource, prompt or completion surface, and what a
    /// server must answer while the request is intact.
    fn surface(&mut self, id: Value) -> (Value, Expect) {
        let request =
            |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        match self.0.u8(..10) {
            0 => {
                let (method, key) = self.pick(&[
                    ("resources/list", "resources"),
                    ("resources/templates/list", "resourceTemplates"),
                    ("prompts/list", "prompts"),
                ]);
                // Every list is one page and gives no cursor: one sent anyway is invalid.
                if self.0.bool() {
                    (request(method, json!({})), Expect::Result(key))
                } else {
                    (request(method, json!({"cursor": self.text()})), Expect::Error(-32602))
                }
            }
            1..=3 => {
                let (uri, expect) = self.uri();
                (request("resources/read", json!({"uri": uri})), expect)
            }
            4 => {
                let params = match self.0.u8(..3) {
                    0 => json!({}),
                    1 => json!({"uri": [ABOUT_URI]}),
                    _ => json!({"uri": self.pick(&[json!(5), json!(true), json!({"uri": ABOUT_URI})])}),
                };
                (request("resources/read", params), Expect::Error(INVALID_PARAMS))
            }
            5 | 6 => {
                let (params, expect) = self.prompt_get();
                (request("prompts/get", params), expect)
            }
            7 | 8 => {
                let (params, expect) = self.complete();
                (request("completion/complete", params), expect)
            }
            _ => {
                // The server does not advertise `subscribe`.
                let method = self.pick(&["resources/subscribe", "resources/unsubscribe"]);
                (request(method, json!({"uri": ABOUT_URI})), Expect::Error(METHOD_NOT_FOUND))
            }
        }
    }

    /// A URI to read, and what reading it gives.
    fn uri(&mut self) -> (String, Expect) {
        let read = Expect::Result("contents");
        let object = |id: &str, view: &str| format!("museum://objects/{id}/{view}");
        match self.0.u8(..14) {
            0 => (ABOUT_URI.to_owned(), read),
            1 => {
                let view = self.pick(&["summary", "full", "a-b.c_d~e", "%C3%A9t%C3%A9"]);
                let id = match self.0.u8(..3) {
                    0 => self.0.u32(..).to_string(),
                    // Percent-encoded digits, and leading zeros.
                    1 => format!("%3{}", self.0.u8(..10)),
                    _ => format!("00{}", self.0.u8(..10)),
                };
                (object(&id, view), read)
            }
            2 => {
                let any = self.0.u64(..);
                let id = self.pick(&[0, 1, 2, 13, 666, 667, any]);
                let expect = match loan_outcome(id) {
                    Ok(()) => read,
                    Err(code) => Expect::Error(code),
                };
                (format!("museum://loans/{id}"), expect)
            }
            // A variable that is not the number the params type asks for.
            3 => {
                let id = match self.0.u8(..5) {
                    0 => self.word(),
                    1 => "-1".to_owned(),
                    2 => (u64::from(u32::MAX) + 1 + u64::from(self.0.u32(..))).to_string(),
                    3 => "1.5".to_owned(),
                    _ => self.pick(&["%C3%A9", "%00", "1%20%201x"]).to_owned(),
                };
                (object(&id, "summary"), Expect::Error(INVALID_PARAMS))
            }
            // A variable left empty: the URI fits, the params miss a field.
            4 => (
                self.pick(&["museum://loans/", "museum://objects/1/", "museum://objects//full"]).to_owned(),
                Expect::Error(INVALID_PARAMS),
            ),
            // Almost a template, or almost the static resource.
            5 => {
                let uri = self.pick(&[
                    "museum://objects/5",
                    "museum://objects/5/full/more",
                    "museum://object/5/full",
                    "museum://objects/5/full?x=1",
                    "MUSEUM://about",
                    "museum://about/",
                    "museum://about?",
                    "museum:/about",
                    "museum://loans/2/",
                    "museum://objects/{object_id}/{view}",
                    "museum://objects/%/full",
                    "museum://objects/%zz/full",
                    "museum://objects/%4/full",
                    "museum://objects/1/%FF",
                    "museum://objects/1/a%2Fb/c",
                ]);
                (uri.to_owned(), Expect::Error(RESOURCE_NOT_FOUND))
            }
            6 => {
                let uri = self.pick(&[
                    "",
                    " ",
                    "file:///etc/passwd",
                    "http://127.0.0.1/about",
                    "javascript:alert(1)",
                    "urn:isbn:0451450523",
                    "data:text/plain,hi",
                    "about",
                    "//about",
                ]);
                (uri.to_owned(), Expect::Error(RESOURCE_NOT_FOUND))
            }
            7 => (format!("{}{}", self.pick(&["", "museum://", "museum://objects/"]), self.text()), Expect::Anything),
            // Numbers too long for their type; past the longest URI, no resource.
            8 | 9 => {
                let uri = if self.0.bool() {
                    object(&self.huge("1"), "full")
                } else {
                    format!("museum://loans/{}", self.huge("9"))
                };
                let code = if uri.len() > MAX_URI_BYTES { RESOURCE_NOT_FOUND } else { INVALID_PARAMS };
                (uri, Expect::Error(code))
            }
            10 => {
                let uri = match self.0.u8(..3) {
                    0 => format!("museum://objects/{}", self.huge("a")),
                    1 => format!("museum://{}", self.huge("é")),
                    _ => format!("museum://objects/{}/x/", self.huge("%41")),
                };
                (uri, Expect::Error(RESOURCE_NOT_FOUND))
            }
            // Query variables: optional, one a number, one an exploded list.
            12 => {
                let (query, expect) = match self.0.u8(..6) {
                    0 => (String::new(), read),
                    1 => (format!("?q={}&page={}", self.word(), self.0.u32(..)), read),
                    2 => (format!("?tags={}&tags={}", self.word(), self.word()), read),
                    3 => (format!("?q=caf%C3%A9&tags={}", self.word()), read),
                    4 => (format!("?page={}", self.word()), Expect::Error(INVALID_PARAMS)),
                    _ => (format!("?page=1&{}={}", self.word(), self.text()), Expect::Anything),
                };
                (format!("museum://search{query}"), expect)
            }
            _ => {
                let uri = object("1", &self.huge("v"));
                let expect = if uri.len() > MAX_URI_BYTES { Expect::Error(RESOURCE_NOT_FOUND) } else { read };
                (uri, expect)
            }
        }
    }

    /// `prompts/get` params, and what they give.
    fn prompt_get(&mut self) -> (Value, Expect) {
        let department = self.pick(&DEPARTMENTS);
        let get = |arguments: Value| json!({"name": PROMPT, "arguments": arguments});
        match self.0.u8(..9) {
            0 => {
                let mut arguments = Map::new();
                arguments.insert(
                    "department".into(),
                    json!(if self.0.bool() { department.to_owned() } else { self.text() }),
                );
                match self.0.u8(..5) {
                    0 => {}
                    1 => _ = arguments.insert("days".into(), json!(self.0.u8(..=7).to_string())),
                    2 => _ = arguments.insert("days".into(), json!(self.0.u8(..=7))),
                    3 => _ = arguments.insert("days".into(), Value::Null),
                    _ => _ = arguments.insert("step_free".into(), json!(self.pick(&["true", "false"]))),
                }
                (get(Value::Object(arguments)), Expect::Result("messages"))
            }
            1 => (json!({"name": PROMPT, "arguments": {"department": self.huge("a")}}), Expect::Result("messages")),
            // A declared failure: more than seven days.
            2 => (get(json!({"department": department, "days": self.0.u8(8..).to_string()})), Expect::Error(-32007)),
            // The required argument missing.
            3 => {
                let params = match self.0.u8(..3) {
                    0 => json!({"name": PROMPT}),
                    1 => get(json!({})),
                    _ => get(json!({"days": "2", "step_free": "true"})),
                };
                (params, Expect::Error(INVALID_PARAMS))
            }
            // Arguments of the wrong type.
            4 => {
                let arguments = match self.0.u8(..4) {
                    0 => {
                        json!({"department": self.pick(&[json!(5), json!(true), Value::Null, json!(["Asian Art"]), json!({"x": 1})])})
                    }
                    1 => {
                        json!({"department": department, "days": self.pick(&[json!("many"), json!("256"), json!("-1"), json!("2.5"), json!(true), json!([2]), json!({"n": 2}), json!(-1)])})
                    }
                    2 => {
                        json!({"department": department, "step_free": self.pick(&[json!("yes"), json!(1), json!("")])})
                    }
                    _ => json!({"department": department, "days": self.huge("9")}),
                };
                (get(arguments), Expect::Error(INVALID_PARAMS))
            }
            // An argument the prompt does not have.
            5 => {
                let name = if self.0.bool() { self.word() } else { self.huge("k") };
                (get(json!({"department": department, name: "x"})), Expect::Error(INVALID_PARAMS))
            }
            // A prompt the server does not have.
            6 => {
                let name = match self.0.u8(..3) {
                    0 => self.word(),
                    1 => "about".to_owned(),
                    _ => self.huge("p"),
                };
                (json!({"name": name, "arguments": {"department": department}}), Expect::Error(INVALID_PARAMS))
            }
            // Params MCP's schema refuses.
            7 => {
                let params = self.pick(&[
                    json!({"arguments": {"department": "Asian Art"}}),
                    json!({"name": 5}),
                    json!({"name": PROMPT, "arguments": ["Asian Art"]}),
                    json!({"name": PROMPT, "arguments": "department=Asian Art"}),
                ]);
                (params, Expect::Error(INVALID_PARAMS))
            }
            _ => (get(json!({"department": self.text(), "days": self.text()})), Expect::Anything),
        }
    }

    /// `completion/complete` params, and what they give.
    fn complete(&mut self) -> (Value, Expect) {
        let complete = |reference: Value, name: &str, value: String| json!({"ref": reference, "argument": {"name": name, "value": value}});
        let template = |uri: &str| json!({"type": "ref/resource", "uri": uri});
        let prompt = |name: &str| json!({"type": "ref/prompt", "name": name});
        let value = if self.0.u8(..10) == 0 { self.huge("1") } else { self.text() };
        match self.0.u8(..8) {
            0 => {
                let (reference, argument) =
                    self.pick(&[(OBJECT_TEMPLATE, "object_id"), (OBJECT_TEMPLATE, "view"), (LOAN_TEMPLATE, "loan_id")]);
                let mut params = complete(template(reference), argument, value);
                if self.0.bool() {
                    params["context"] = json!({"arguments": {"view": "full", "object_id": "12"}});
                }
                (params, Expect::Result("completion"))
            }
            1 => {
                let argument = self.pick(&["department", "days", "step_free"]);
                (complete(prompt(PROMPT), argument, value), Expect::Result("completion"))
            }
            // An argument the template or prompt does not have.
            2 => {
                let argument = if self.0.bool() { self.word() } else { self.huge("n") };
                let reference = if self.0.bool() { template(OBJECT_TEMPLATE) } else { prompt(PROMPT) };
                (complete(reference, &argument, value), Expect::Error(INVALID_PARAMS))
            }
            // A template or prompt the server does not have (a static
            // resource has nothing to complete).
            3 => {
                let reference = match self.0.u8(..4) {
                    0 => template(ABOUT_URI),
                    1 => template(&format!("museum://objects/{}", self.huge("{x}"))),
                    2 => prompt(&self.word()),
                    _ => prompt(&self.huge("q")),
                };
                (complete(reference, "object_id", value), Expect::Error(INVALID_PARAMS))
            }
            // A reference type MCP does not have.
            4 => {
                let kind = self.pick(&["ref/tool", "ref/unknown", "", "ref/prompt"]);
                (
                    complete(json!({"type": kind, "uri": OBJECT_TEMPLATE}), "object_id", value),
                    Expect::Error(INVALID_PARAMS),
                )
            }
            // Params MCP's schema refuses.
            5 => {
                let params = self.pick(&[
                    json!({"ref": {"type": "ref/prompt", "name": PROMPT}}),
                    json!({"ref": {"type": "ref/prompt", "name": PROMPT}, "argument": {"name": "department"}}),
                    json!({"ref": {"type": "ref/prompt", "name": PROMPT}, "argument": {"name": "department", "value": 5}}),
                    json!({"ref": {"type": "ref/prompt", "name": PROMPT}, "argument": {"name": "department", "value": ""}, "context": {"arguments": {"days": 2}}}),
                    json!({"argument": {"name": "department", "value": ""}}),
                    json!({"ref": PROMPT, "argument": {"name": "department", "value": ""}}),
                ]);
                (params, Expect::Error(INVALID_PARAMS))
            }
            _ => {
                let reference = if self.0.bool() { template(&self.text()) } else { prompt(&self.text()) };
                (complete(reference, &self.text(), value), Expect::Anything)
            }
        }
    }
}

/// The codes an answer of this server may carry: JSON-RPC's own,
/// resource-not-found, and those of the surface's contracts (`not_on_loan`
/// NotFound, `too_long` ValidationError) and classified failures (Timeout).
const KNOWN_CODES: &[i32] = &[-32700, -32600, -32601, -32602, -32603, RESOURCE_NOT_FOUND, -32001, -32004, -32007];

/// `XXXXX-XXXXX` of upper-case letters and digits.
fn is_request_id(id: &str) -> bool {
    id.len() == 11
        && id
            .char_indices()
            .all(|(at, ch)| if at == 5 { ch == '-' } else { ch.is_ascii_uppercase() || ch.is_ascii_digit() })
}

/// What every error answer keeps, and what `expect` asks of this one.
fn assert_expected(answer: &Value, expect: &Expect, sent: &[u8], context: &str) {
    if let Some(error) = answer.get("error") {
        let code = error["code"].as_i64().and_then(|code| i32::try_from(code).ok()).unwrap_or(0);
        assert!(KNOWN_CODES.contains(&code), "{context}: an unexpected code in {answer}");
        let message = error["message"].as_str().unwrap_or_default();
        let sent = String::from_utf8_lossy(sent);
        for leak in ["::", "panicked", "src/"] {
            assert!(!message.contains(leak) || sent.contains(leak), "{context}: the message leaks `{leak}`: {answer}");
        }
        // Every error carries the id of its request, in the reference's form.
        let request_id = error["data"]["requestId"].as_str().unwrap_or_default();
        assert!(is_request_id(request_id), "{context}: an error without its request id: {answer}");
        // Only errors the code built carry more data; classified ones and panics do not.
        if matches!(code, -32004 | -32603) {
            let keys: Vec<&String> = error["data"].as_object().map(|data| data.keys().collect()).unwrap_or_default();
            assert_eq!(keys, ["requestId"], "{context}: data on a classified error: {answer}");
        }
        if code == -32001 || code == -32007 {
            assert!(error["data"]["reason"].is_string(), "{context}: a declared failure without its reason: {answer}");
        }
    }
    match expect {
        Expect::Anything => {}
        Expect::Result(key) => {
            assert!(
                answer["result"].get(*key).is_some(),
                "{context}: expected a result with `{key}`, got {}",
                support::cut(&answer.to_string())
            );
        }
        Expect::Error(code) => {
            assert_eq!(
                answer["error"]["code"],
                *code,
                "{context}: expected error {code}, got {}",
                support::cut(&answer.to_string())
            );
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
    let (mut answered, mut held) = (0usize, 0usize);
    // Messages that may be answered with an error but were not by the time
    // their pings were: the server answers in any order (a loaded machine
    // delays a deep message's error past both pings), so the error may come
    // in a later round.
    let mut late_errors = 0usize;
    for round in 0..cases {
        let (mut message, expect) = generator.case();
        // One message per line: a newline would make two.
        for byte in &mut message {
            if *byte == b'\n' {
                *byte = b' ';
            }
        }
        let owed = owed(&message);
        client.allow_echo(&message);
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
                let error = answer.get("error").is_some();
                let owes = match &owed {
                    Owed::Answer(id) => &answer["id"] == id,
                    _ => error,
                };
                if answer["id"] == sentinel.as_str() {
                    sentinel_seen = true;
                } else if !owed_seen && (owes || late_errors == 0 || !error) {
                    match &owed {
                        Owed::Answer(id) => assert_eq!(&answer["id"], id, "{context}"),
                        _ => assert!(error, "{context}: {answer}"),
                    }
                    assert_expected(&answer, &expect, &message, &context);
                    held += usize::from(expect != Expect::Anything);
                    owed_seen = true;
                    answered += 1;
                } else if extra_allowed && error {
                    assert_expected(&answer, &Expect::Anything, &message, &context);
                    extra_allowed = false;
                    answered += 1;
                } else if late_errors > 0 && error {
                    // An earlier message's error, come late.
                    late_errors -= 1;
                    answered += 1;
                } else {
                    panic!("{context}: an unexpected answer {answer}");
                }
            }
        }
        late_errors += usize::from(extra_allowed);
    }
    eprintln!(
        "fuzz over lines: {answered} of {cases} messages answered ({held} held to their expected outcome), \
         the rest owed nothing"
    );
    let ping = json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}).to_string();
    client.send(ping.as_bytes()).await;
    let mut last = client.next().await;
    while last["id"] != "last" && last.get("error").is_some() && late_errors > 0 {
        late_errors -= 1;
        last = client.next().await;
    }
    assert_eq!(last["id"], "last", "the server still serves");
}

/// Intact surface requests written back to back, without waiting: the
/// handlers run side by side, and each request is answered once, under its
/// id, as it would be alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_surface_requests_over_lines() {
    let seed = seed();
    let burst = (cases() / 10).max(50);
    eprintln!("pipelined surface requests over lines: {burst} requests, FUZZ_SEED={seed}");
    let mut generator = Gen(fastrand::Rng::with_seed(seed));
    let mut client = LineClient::start().await;
    let mut pending = std::collections::HashMap::new();
    let mut sent = Vec::new();
    for round in 0..burst {
        let id = format!("p-{round}");
        let (message, expect) = generator.surface(json!(id));
        let message = message.to_string().into_bytes();
        sent.extend_from_slice(&message);
        sent.push(b'\n');
        pending.insert(id, (message, expect));
    }
    client.allow_echo(&sent);
    // One write: the server reads the whole burst before it answers any of it.
    client.send(&sent[..sent.len() - 1]).await;
    while !pending.is_empty() {
        let Some(answer) = client.next_within(Duration::from_secs(10)).await else {
            panic!("FUZZ_SEED={seed}: {} requests never answered", pending.len());
        };
        let id =
            answer["id"].as_str().unwrap_or_else(|| panic!("FUZZ_SEED={seed}: an answer without our id: {answer}"));
        let (message, expect) =
            pending.remove(id).unwrap_or_else(|| panic!("FUZZ_SEED={seed}: `{id}` answered twice or never asked"));
        assert_well_formed(&answer, &message);
        assert_expected(&answer, &expect, &message, &format!("FUZZ_SEED={seed}, `{id}`"));
    }
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
    let (mut answered, mut held) = (0usize, 0usize);
    for round in 0..cases {
        let (message, expect) = generator.case();
        let owed = owed(&message);
        let shown = String::from_utf8_lossy(&message[..message.len().min(300)]).into_owned();
        let answer = client.post(&message).await;
        let messages = answer.messages();
        let context = format!(
            "{mode}, round {round} (FUZZ_SEED={seed}): {} {} for {shown}",
            answer.status,
            support::cut(&answer.text())
        );
        for reply in &messages {
            assert_well_formed(reply, shown.as_bytes());
            assert_expected(reply, &expect, &message, &context);
            held += usize::from(expect != Expect::Anything);
        }
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
    eprintln!(
        "fuzz over HTTP ({mode}): {answered} of {cases} messages answered ({held} held to their expected \
         outcome), the rest owed nothing"
    );
    let ping = json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}).to_string();
    assert_eq!(client.post(ping.as_bytes()).await.message()["id"], "last", "the server still serves");
}

#[test]
fn the_grammar_asks_for_every_outcome_of_the_surface() {
    let mut generator = Gen(fastrand::Rng::with_seed(7));
    let mut seen = std::collections::HashSet::new();
    for _ in 0..5000 {
        let (message, expect) = generator.message();
        if let Some(method) = message["method"].as_str() {
            seen.insert(format!("{method} {expect:?}"));
        }
    }
    for wanted in [
        "resources/list Result(\"resources\")",
        "resources/templates/list Result(\"resourceTemplates\")",
        "prompts/list Result(\"prompts\")",
        "resources/list Error(-32602)",
        "resources/templates/list Error(-32602)",
        "prompts/list Error(-32602)",
        "resources/read Result(\"contents\")",
        "resources/read Error(-32002)",
        "resources/read Error(-32602)",
        "resources/read Error(-32001)",
        "resources/read Error(-32004)",
        "resources/read Error(-32603)",
        "resources/subscribe Error(-32601)",
        "prompts/get Result(\"messages\")",
        "prompts/get Error(-32602)",
        "prompts/get Error(-32007)",
        "completion/complete Result(\"completion\")",
        "completion/complete Error(-32602)",
    ] {
        assert!(seen.contains(wanted), "never generated: {wanted}");
    }
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
