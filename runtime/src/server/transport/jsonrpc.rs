//! What a client sends, checked before rmcp reads it: every request gets a
//! JSON-RPC answer, even one that does not parse.
//!
//! rmcp 3.11 ignores a line that is not JSON (including invalid UTF-8, lone
//! surrogates, trailing garbage and nesting past serde_json's recursion limit),
//! answers other shape errors with -32600 and `id: null` even when the id was
//! readable, and reads a `tools/call` whose `arguments` is not an object as an
//! unknown method (-32601). Both transports run [`inspect`] first, so a client
//! never waits for an answer that will not come.

use std::ops::ControlFlow;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientNotification, ClientRequest, GetPromptRequest,
    InitializeRequest, JsonObject, JsonRpcRequest, ListPromptsRequest, ListResourcesRequest, ListToolsRequest,
    PingRequest, ReadResourceRequest, RequestId, RequestMetaObject,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::error::new_request_id;

/// How deep a message may nest arrays and objects. MCP messages need a handful
/// of levels; tool arguments rarely a dozen. serde_json stops at 128.
pub(crate) const MAX_DEPTH: usize = 64;

/// JSON-RPC 2.0: the message is not JSON.
pub(crate) const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0: the message is JSON but not a valid request.
pub(crate) const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC 2.0: the method exists, its params do not fit.
pub(crate) const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC 2.0: no such method (on this protocol revision).
pub(crate) const METHOD_NOT_FOUND: i32 = -32601;

/// The stateless protocol revision, named by a request's
/// `_meta["io.modelcontextprotocol/protocolVersion"]`.
const STATELESS_REVISION: &str = "2026-07-28";

/// The methods protocol revision 2026-07-28 removed: on a request of that
/// revision they do not exist, whatever their params (SEP-2575 wants 404 and
/// -32601 over HTTP), so the guard answers before reading their params, which
/// would call a bare `{_meta}` invalid params instead.
const REMOVED_IN_STATELESS: &[&str] =
    &["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// The methods whose params rmcp reads into a type of its own: a request for
/// one of them that rmcp could only read as a custom request has bad params.
const TYPED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/directory/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "skills/get",
    "skills/list",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
];

const UNKNOWN_MESSAGE: &str =
    "Invalid Request: the message is not a JSON-RPC request, notification or response MCP knows.";

/// What to do with one message from the client.
#[derive(Debug)]
pub(crate) enum Inspection {
    /// Hand it to rmcp.
    Forward(Box<ClientJsonRpcMessage>, Reading),
    /// Nothing to do and nothing to answer: an empty line, or a notification
    /// or response that cannot be read (JSON-RPC answers neither).
    Ignore,
    /// Answer with this error; rmcp never sees the message.
    Reject(Rejection),
}

/// How [`inspect`] read a message it forwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// In one pass, as a plain `tools/call` ([`read_tool_call`]): the keys of
    /// its envelope and of its params are each written once.
    OnePass,
    /// As a `serde_json::Value` first, which keeps the last of a repeated key.
    General,
}

/// The error answer to a message that does not reach rmcp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// The request's id when it could be read; `null` on the wire otherwise.
    pub(crate) id: Option<RequestId>,
    pub(crate) code: i32,
    pub(crate) message: String,
}

impl Rejection {
    pub(crate) fn new(id: Option<RequestId>, code: i32, message: impl Into<String>) -> Self {
        Self { id, code, message: message.into() }
    }

    /// The JSON-RPC error response, with a fresh `data.requestId` as every
    /// error a client receives has (logged at DEBUG with it, so a report of
    /// it can be found).
    pub(crate) fn to_json(&self) -> Value {
        let id = self.id.clone().map_or(Value::Null, RequestId::into_json_value);
        let request_id = new_request_id();
        tracing::debug!(code = self.code, request_id, "message refused before dispatch: {}", self.message);
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": self.code, "message": self.message, "data": {"requestId": request_id}},
        })
    }

    /// The error response as bytes, without a trailing newline.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        self.to_json().to_string().into_bytes()
    }
}

/// Check one message (a stdio line or an HTTP body) and read it for rmcp.
pub(crate) fn inspect(bytes: &[u8]) -> Inspection {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(bytes).trim_ascii();
    if bytes.is_empty() {
        return Inspection::Ignore;
    }
    let reject = |code, message: &str| Inspection::Reject(Rejection::new(top_level_id(bytes), code, message));
    let Ok(text) = std::str::from_utf8(bytes) else {
        return reject(PARSE_ERROR, "Parse error: the message is not valid UTF-8.");
    };
    let too_deep = || {
        Inspection::Reject(Rejection::new(
            top_level_id(bytes),
            INVALID_REQUEST,
            format!("Invalid Request: the message nests arrays and objects deeper than {MAX_DEPTH} levels."),
        ))
    };
    if let Some(call) = read_tool_call(text) {
        return Inspection::Forward(Box::new(ClientJsonRpcMessage::Request(call)), Reading::OnePass);
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        // Past serde_json's own limit (128) only the top-level keys can be
        // read, without recursion: enough to know whether an answer is owed.
        Err(err) if err.to_string().contains("recursion limit") => {
            return match top_level_kind(bytes) {
                Some(kind) if kind.is_notification || kind.is_response => Inspection::Ignore,
                _ => too_deep(),
            };
        }
        // serde_json's syntax messages name a position, never the input.
        Err(err) => return reject(PARSE_ERROR, &format!("Parse error: the message is not valid JSON ({err}).")),
    };
    if nesting_depth_exceeds(bytes, MAX_DEPTH) {
        let is_notification = value.get("id").is_none() && value.get("method").is_some_and(Value::is_string);
        let is_response =
            value.get("method").is_none() && (value.get("result").is_some() || value.get("error").is_some());
        if value.is_object() && (is_notification || is_response) {
            // A notification or response, however deep, gets no answer.
            return Inspection::Ignore;
        }
        return too_deep();
    }
    match value {
        Value::Object(object) => inspect_object(object, text),
        Value::Array(_) => Inspection::Reject(Rejection::new(
            None,
            INVALID_REQUEST,
            "Invalid Request: batches are not supported by MCP; send each message on its own.",
        )),
        _ => Inspection::Reject(Rejection::new(
            None,
            INVALID_REQUEST,
            "Invalid Request: a message is a JSON object with `jsonrpc`, `method` and, for a request, `id`.",
        )),
    }
}

fn inspect_object(mut object: Map<String, Value>, text: &str) -> Inspection {
    let id = match object.get("id") {
        None => None,
        Some(id) => match serde_json::from_value::<RequestId>(id.clone()) {
            Ok(id) => Some(id),
            Err(_) => {
                return Inspection::Reject(Rejection::new(
                    None,
                    INVALID_REQUEST,
                    "Invalid Request: the id must be a string or an integer.",
                ));
            }
        },
    };
    let method = object.get("method");
    let is_notification = id.is_none() && matches!(method, Some(Value::String(_)));
    let is_response = method.is_none() && (object.contains_key("result") || object.contains_key("error"));
    let reject = |code, message: &str| {
        if is_notification || is_response {
            // JSON-RPC answers neither a notification nor a response, even a broken one.
            Inspection::Ignore
        } else {
            Inspection::Reject(Rejection::new(id.clone(), code, message))
        }
    };
    if object.get("jsonrpc") != Some(&Value::String("2.0".to_owned())) {
        return reject(INVALID_REQUEST, "Invalid Request: `jsonrpc` must be \"2.0\".");
    }
    if is_response {
        return forward_or(object, Inspection::Ignore);
    }
    let Some(Value::String(method)) = method else {
        return reject(INVALID_REQUEST, "Invalid Request: `method` must be a string.");
    };
    let method = method.clone();
    if !is_notification && REMOVED_IN_STATELESS.contains(&method.as_str()) && is_stateless(object.get("params")) {
        return Inspection::Reject(Rejection::new(
            id,
            METHOD_NOT_FOUND,
            format!("Method not found: protocol revision {STATELESS_REVISION} has no `{method}`."),
        ));
    }
    if !is_notification && let Err(message) = check_params(&method, object.get("params")) {
        return reject(INVALID_PARAMS, &message);
    }
    if let (Some(id), false) = (&id, is_notification)
        && !object.contains_key("result")
        && !object.contains_key("error")
        && let Some(read) = typed_request(&method)
    {
        match read(Value::Object(object)) {
            Ok(request) => {
                return Inspection::Forward(Box::new(ClientJsonRpcMessage::Request(request)), Reading::General);
            }
            // What rmcp's own reading makes of it decides the answer: read it again.
            Err(_) => match serde_json::from_str(text) {
                Ok(Value::Object(again)) => object = again,
                _ => return Inspection::Reject(Rejection::new(Some(id.clone()), INVALID_REQUEST, UNKNOWN_MESSAGE)),
            },
        }
    }
    let fallback = reject(INVALID_REQUEST, UNKNOWN_MESSAGE);
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(ClientJsonRpcMessage::Request(request))
            if matches!(&request.request, ClientRequest::CustomRequest(_))
                && TYPED_METHODS.contains(&method.as_str()) =>
        {
            Inspection::Reject(Rejection::new(
                Some(request.id),
                INVALID_PARAMS,
                format!("Invalid params: the params of `{method}` do not match its MCP schema."),
            ))
        }
        Ok(message) => Inspection::Forward(Box::new(message), Reading::General),
        Err(_) => fallback,
    }
}

/// A `tools/call`, the request clients send most, read in one pass straight
/// into rmcp's type: no `serde_json::Value` of the whole message first, and
/// none of the buffering of the `#[serde(flatten)]` layers that rmcp's own
/// types read a request through.
///
/// Only the plain form is read here: an object of `jsonrpc`, `id`, `method`
/// and `params`, each once; params an object of `_meta`, `name`, `arguments`
/// and `requestState`, each once; nothing nested deeper than [`MAX_DEPTH`].
/// Every value is read, none skipped, so the text is checked as the general
/// way checks it. Anything else is `None` and goes the general way, which
/// decides its answer; what this reads, the general way reads the same (the
/// `jsonrpc_message` fuzz target and the tests below hold the two to it).
pub(crate) fn read_tool_call(text: &str) -> Option<JsonRpcRequest<ClientRequest>> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Envelope<'a> {
        // Borrowed, where rmcp's `JsonRpcVersion2_0` reads a `String` to
        // compare: a value with an escape in it goes the general way.
        jsonrpc: &'a str,
        id: RequestId,
        method: &'a str,
        // Read with the envelope, whatever the method: the params of another
        // method do not fit, and that message goes the general way anyway.
        params: Object<Params>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<JsonObject>,
        name: String,
        arguments: Option<JsonObject>,
        #[serde(rename = "requestState")]
        request_state: Option<String>,
    }
    // serde reads a struct from an array too, by position: a batch is not
    // this request (nor are params as an array: `Object`).
    if !text.starts_with('{') || nesting_depth_exceeds(text.as_bytes(), MAX_DEPTH) {
        return None;
    }
    let envelope: Envelope<'_> = serde_json::from_str(text).ok()?;
    if envelope.jsonrpc != "2.0" || envelope.method != "tools/call" {
        return None;
    }
    let Object(Params { meta, name, arguments, request_state }) = envelope.params;
    let mut params = CallToolRequestParams::new(name);
    params.arguments = arguments;
    params.request_state = request_state;
    // rmcp keeps a request's `_meta` in its extensions, not in its params.
    let mut request = CallToolRequest::new(params);
    if let Some(meta) = meta {
        request.extensions.insert(RequestMetaObject::from(meta));
    }
    Some(JsonRpcRequest::new(envelope.id, ClientRequest::CallToolRequest(request)))
}

/// A `T` read from a JSON object only, where serde reads a struct from an
/// array too, by position.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Fields<T> {
            type Value = T;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(Fields(std::marker::PhantomData)).map(Object)
    }
}

/// What the general way makes of a message that [`read_tool_call`] read, for
/// the checks that the two agree.
#[cfg(any(test, fuzzing))]
pub(crate) fn inspect_generally(text: &str) -> Inspection {
    match serde_json::from_str(text) {
        Ok(Value::Object(object)) => inspect_object(object, text),
        _ => Inspection::Ignore,
    }
}

/// rmcp reads a request by trying each of its request types in turn (an
/// untagged enum of 22), building an error message for each that does not
/// fit: most of what reading a `tools/call` cost. The method names the one
/// type that can fit, so the requests a client sends most are read straight
/// into it. Another method, or params that do not fit (whose answer then
/// depends on rmcp's own reading), go rmcp's way.
type ReadRequest = fn(Value) -> Result<JsonRpcRequest<ClientRequest>, serde_json::Error>;

fn typed_request(method: &str) -> Option<ReadRequest> {
    Some(match method {
        "tools/call" => read_as::<CallToolRequest>,
        "tools/list" => read_as::<ListToolsRequest>,
        "initialize" => read_as::<InitializeRequest>,
        "ping" => read_as::<PingRequest>,
        "resources/read" => read_as::<ReadResourceRequest>,
        "resources/list" => read_as::<ListResourcesRequest>,
        "prompts/get" => read_as::<GetPromptRequest>,
        "prompts/list" => read_as::<ListPromptsRequest>,
        _ => return None,
    })
}

fn read_as<T>(value: Value) -> Result<JsonRpcRequest<ClientRequest>, serde_json::Error>
where
    T: serde::de::DeserializeOwned + Into<ClientRequest>,
{
    let JsonRpcRequest { jsonrpc, id, request } = serde_json::from_value::<JsonRpcRequest<T>>(value)?;
    Ok(JsonRpcRequest { jsonrpc, id, request: request.into() })
}

fn forward_or(object: Map<String, Value>, otherwise: Inspection) -> Inspection {
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(message) => Inspection::Forward(Box::new(message), Reading::General),
        Err(_) => otherwise,
    }
}

/// Whether a request's `_meta` says it is of the stateless revision.
fn is_stateless(params: Option<&Value>) -> bool {
    params
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
        .is_some_and(|version| version == STATELESS_REVISION)
}

/// The checks rmcp would turn into a confusing answer: params that are not an
/// object, and a `tools/call` whose name or arguments have the wrong type.
fn check_params(method: &str, params: Option<&Value>) -> Result<(), String> {
    let params = match params {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(params)) => params,
        Some(_) => return Err("Invalid params: `params` must be an object.".to_owned()),
    };
    if method == "tools/call" {
        if !matches!(params.get("name"), Some(Value::String(_))) {
            return Err("Invalid params: `tools/call` needs the tool's `name`, a string.".to_owned());
        }
        if !matches!(params.get("arguments"), None | Some(Value::Null | Value::Object(_))) {
            return Err("Invalid params: the `arguments` of `tools/call` must be an object.".to_owned());
        }
    }
    Ok(())
}

/// The id a `notifications/cancelled` names, to map it to rmcp's id.
pub(crate) fn cancelled_request_mut(message: &mut ClientJsonRpcMessage) -> Option<&mut RequestId> {
    match message {
        ClientJsonRpcMessage::Notification(notification) => match &mut notification.notification {
            ClientNotification::CancelledNotification(cancelled) => cancelled.params.request_id.as_mut(),
            _ => None,
        },
        _ => None,
    }
}

/// The answer to a request whose id is already in use by a request in progress.
pub(crate) fn duplicate_id(id: RequestId) -> Rejection {
    Rejection::new(
        Some(id),
        INVALID_REQUEST,
        "Invalid Request: a request with this id is still in progress; give each request its own id.",
    )
}

/// The code of the answer to a request the server cannot take now: MCP's
/// ServiceUnavailable, which is transient, so a client may try again.
pub(crate) const SERVICE_UNAVAILABLE: i32 = -32000;

/// The answer to a request that arrives while the server shuts down, or that
/// was still in flight when its grace period ended.
pub(crate) fn shutting_down(id: Option<RequestId>) -> Rejection {
    Rejection::new(
        id,
        SERVICE_UNAVAILABLE,
        "Service unavailable: the server is shutting down; send the request again (to another replica, or once it is back).",
    )
}

/// Whether arrays and objects nest deeper than `limit` (outside strings).
fn nesting_depth_exceeds(bytes: &[u8], limit: usize) -> bool {
    // Deeper than `limit` takes more than `limit` opening brackets: a count,
    // which the compiler vectorizes, clears nearly every message before the
    // walk that tells strings from structure.
    if bytes.iter().filter(|&&byte| byte == b'[' || byte == b'{').count() <= limit {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in bytes {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The `id` of a top-level object, read without parsing the whole message, so
/// that a message which fails later checks (or does not parse at all past its
/// id) can still be answered under its id.
pub(crate) fn top_level_id(bytes: &[u8]) -> Option<RequestId> {
    let mut id = None;
    top_level_entries(bytes, |key, value| {
        if key != b"\"id\"" {
            return ControlFlow::Continue(());
        }
        id = serde_json::from_slice(value).ok();
        ControlFlow::Break(())
    });
    id
}

/// What the top-level keys of an object say about the message.
struct TopLevelKind {
    is_notification: bool,
    is_response: bool,
}

/// The kind of a top-level object, read from its keys without parsing their
/// values; `None` when the text is not an object of well-formed keys.
fn top_level_kind(bytes: &[u8]) -> Option<TopLevelKind> {
    let (mut id, mut method_is_string, mut method, mut outcome) = (false, false, false, false);
    top_level_entries(bytes, |key, value| {
        match key {
            b"\"id\"" => id = true,
            b"\"method\"" => {
                method = true;
                method_is_string = value.first() == Some(&b'"');
            }
            b"\"result\"" | b"\"error\"" => outcome = true,
            _ => {}
        }
        ControlFlow::Continue(())
    })?;
    Some(TopLevelKind { is_notification: !id && method_is_string, is_response: !method && outcome })
}

/// Hand each key (quoted, as written) and raw value of a top-level object to
/// `visit`, in order, without parsing the values, until `visit` breaks or the
/// object ends: `Some` then, `None` where the text is not an object of
/// well-formed keys.
fn top_level_entries(bytes: &[u8], mut visit: impl FnMut(&[u8], &[u8]) -> ControlFlow<()>) -> Option<()> {
    let mut scan = Scanner { bytes, at: 0 };
    scan.skip_whitespace();
    scan.expect(b'{')?;
    loop {
        scan.skip_whitespace();
        let key_start = scan.at;
        scan.skip_string()?;
        let key = &bytes[key_start..scan.at];
        scan.skip_whitespace();
        scan.expect(b':')?;
        scan.skip_whitespace();
        let value_start = scan.at;
        scan.skip_value()?;
        if visit(key, &bytes[value_start..scan.at]).is_break() {
            return Some(());
        }
        scan.skip_whitespace();
        if scan.expect(b'}').is_some() {
            return Some(());
        }
        scan.expect(b',')?;
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn skip_string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }

    /// Skip one value of any depth without recursion: strings are skipped
    /// whole, brackets counted.
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => self.skip_string()?,
                b'[' | b'{' => {
                    depth += 1;
                    self.at += 1;
                }
                b']' | b'}' if depth > 0 => {
                    depth -= 1;
                    self.at += 1;
                }
                b',' | b']' | b'}' if depth == 0 => return Some(()),
                _ => self.at += 1,
            }
            if depth == 0 && matches!(self.peek(), None | Some(b',' | b'}' | b']')) {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejection(bytes: &[u8]) -> Rejection {
        match inspect(bytes) {
            Inspection::Reject(rejection) => rejection,
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    #[test]
    fn what_does_not_parse_is_a_parse_error_under_the_id_when_it_is_readable() {
        let err = rejection(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"} trailing");
        assert_eq!((err.id, err.code), (Some(RequestId::Number(7)), PARSE_ERROR));
        let err = rejection(b"{not json");
        assert_eq!((err.id, err.code), (None, PARSE_ERROR));
        let err = rejection(b"{\"id\":\"a\",\"method\":\"ping\",\"x\":\"\xff\"}");
        assert_eq!((err.id, err.code), (Some(RequestId::String("a".into())), PARSE_ERROR));
        let err = rejection(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#);
        assert_eq!(err.code, PARSE_ERROR);
    }

    #[test]
    fn deep_nesting_is_refused_before_serde_json_recurses() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"x":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let err = rejection(deep.as_bytes());
        assert_eq!((err.id, err.code), (Some(RequestId::Number(3)), INVALID_REQUEST));
    }

    #[test]
    fn a_deep_notification_gets_no_answer() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{{"x":{}{}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(matches!(inspect(deep.as_bytes()), Inspection::Ignore));
    }

    #[test]
    fn non_object_arguments_are_invalid_params() {
        let err = rejection(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#);
        assert_eq!((err.id, err.code), (Some(RequestId::Number(1)), INVALID_PARAMS));
    }

    #[test]
    fn broken_notifications_and_responses_get_no_answer() {
        assert!(matches!(inspect(br#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#), Inspection::Ignore));
        assert!(matches!(inspect(br#"{"jsonrpc":"2.0","id":1,"result":{"x":[}"#), Inspection::Reject(_)));
        assert!(matches!(inspect(br#"{"jsonrpc":"2.0","id":{},"result":1}"#), Inspection::Reject(_)));
        assert!(matches!(inspect(b"  \r"), Inspection::Ignore));
    }

    #[test]
    fn methods_the_stateless_revision_removed_are_not_found_there_only() {
        for method in ["initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "ping"] {
            let message = format!(
                r#"{{"jsonrpc":"2.0","id":500,"method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#
            );
            let err = rejection(message.as_bytes());
            assert_eq!((err.id, err.code), (Some(RequestId::Number(500)), METHOD_NOT_FOUND), "{method}");
            assert!(err.message.contains(method), "{}", err.message);
        }
        let legacy = br#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#;
        assert_eq!(rejection(legacy).code, INVALID_PARAMS, "a 2025 request with bad params keeps -32602");
        let subscribe = br#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://x"}}"#;
        assert!(matches!(inspect(subscribe), Inspection::Forward(..)));
    }

    #[test]
    fn a_valid_request_is_forwarded() {
        let message = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}"#;
        assert!(matches!(inspect(message), Inspection::Forward(..)));
    }

    /// What `read_tool_call` reads, as JSON, beside what the general way reads.
    fn both_ways(text: &str) -> Option<(Value, Value)> {
        let call = read_tool_call(text)?;
        let Inspection::Forward(general, _) = inspect_generally(text) else {
            panic!("the general way does not forward {text}");
        };
        // As JSON, a `_meta` in the params and one in the extensions look the
        // same: rmcp reads it from the extensions, so compare the parts too.
        let ClientJsonRpcMessage::Request(JsonRpcRequest { request: ClientRequest::CallToolRequest(read), .. }) =
            &*general
        else {
            panic!("the general way reads {text} as another message");
        };
        let ClientRequest::CallToolRequest(one_pass) = &call.request else { unreachable!("read as a tools/call") };
        assert_eq!(one_pass.params, read.params, "{text}");
        let meta = |request: &CallToolRequest| request.extensions.get::<RequestMetaObject>().cloned();
        assert_eq!(meta(one_pass), meta(read), "{text}");
        let call = serde_json::to_value(ClientJsonRpcMessage::Request(call)).unwrap();
        Some((call, serde_json::to_value(&*general).unwrap()))
    }

    #[test]
    fn a_plain_tool_call_is_read_in_one_pass_as_the_general_way_reads_it() {
        let plain = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}"#,
            r#"{"params":{"arguments":{"a":[1,2.5,-3e2,{"b":null}]},"name":"x"},"method":"tools/call","id":"s-1","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":7,"k":{"v":"w"}}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","requestState":"opaque","_meta":null}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"caf\u00e9 \"q\"","arguments":{"s":"\ud83d\ude00 é","n":18446744073709551615,"m":-9223372036854775808}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}"#,
            " {\n\t\"jsonrpc\" : \"2.0\" , \"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"} }",
        ];
        for text in plain {
            let text = text.trim();
            let (call, general) = both_ways(text).unwrap_or_else(|| panic!("not read in one pass: {text}"));
            assert_eq!(call, general, "{text}");
            assert!(matches!(inspect(text.as_bytes()), Inspection::Forward(_, Reading::OnePass)), "{text}");
        }
    }

    #[test]
    fn any_other_form_of_a_tool_call_goes_the_general_way() {
        let other = [
            // a key twice: rmcp refuses it, the general way keeps the last
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","name":"y"}}"#,
            // a key of its own, at either level
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","inputResponses":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","other":1e400}}"#,
            // arrays read by position
            r#"["2.0",1,"tools/call",{"name":"x"}]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[null,"x"]}"#,
            // not a plain call
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2\u002e0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud800"}}"#,
        ];
        for text in other {
            assert!(read_tool_call(text).is_none(), "read in one pass: {text}");
            if let Inspection::Forward(_, reading) = inspect(text.as_bytes()) {
                assert_eq!(reading, Reading::General, "{text}");
            }
        }
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(read_tool_call(&deep).is_none());
        assert_eq!(rejection(deep.as_bytes()).code, INVALID_REQUEST);
    }

    #[test]
    fn the_id_scanner_skips_nested_values() {
        assert_eq!(top_level_id(br#"{"a":{"id":1,"b":[{"}":"]"}]},"id":"x""#), Some(RequestId::String("x".into())));
        assert_eq!(top_level_id(br#"{"a":1"#), None);
        assert_eq!(top_level_id(br#"[{"id":1}]"#), None);
    }
}
