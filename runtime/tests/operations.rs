//! What an operator sees of each call, over stdio and Streamable HTTP: the
//! request and session ids on the handler's context and on the call's span
//! (with its outcome and duration), and a failure of the server's side that
//! `?` classified masked for the client while the log keeps it under the same
//! error id; hooks around every call.

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock, Mutex};

use mcp_contract_runtime::call::BoxFuture;
use mcp_contract_runtime::server::{CallHook, CallInfo, CallOutcome, HttpOptions, Server, StdioOptions, ToolServer};
use mcp_contract_runtime::{Context, McpError};
use serde_json::{Value, json};
use support::{HttpClient, HttpServer, LineClient, asking, call, stateless, text_tool};
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt as _};

// ---------------------------------------------------------------- the log

type Fields = BTreeMap<String, String>;

#[derive(Default)]
struct Seen {
    events: Vec<Fields>,
    /// The fields of every closed `mcp_call` span, as recorded by then.
    calls: Vec<Fields>,
}

static SEEN: LazyLock<Arc<Mutex<Seen>>> = LazyLock::new(|| {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let subscriber = tracing_subscriber::registry().with(Capture(Arc::clone(&seen)));
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber of this test binary");
    seen
});

struct Capture(Arc<Mutex<Seen>>);
struct Record<'a>(&'a mut Fields);

impl tracing::field::Visit for Record<'_> {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S> tracing_subscriber::Layer<S> for Capture
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &tracing::span::Attributes<'_>, id: &tracing::span::Id, ctx: LayerContext<'_, S>) {
        let mut fields = Fields::new();
        attrs.record(&mut Record(&mut fields));
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }
    fn on_record(&self, id: &tracing::span::Id, values: &tracing::span::Record<'_>, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(fields) = span.extensions_mut().get_mut::<Fields>()
        {
            values.record(&mut Record(fields));
        }
    }
    fn on_event(&self, event: &tracing::Event<'_>, ctx: LayerContext<'_, S>) {
        let mut fields = Fields::new();
        event.record(&mut Record(&mut fields));
        // The ids of the call the event was logged in: the server's and the client's.
        if let Some(span) = ctx.event_span(event)
            && let Some(call) = span.extensions().get::<Fields>()
        {
            for key in ["request_id", "jsonrpc_id"] {
                if let Some(id) = call.get(key) {
                    fields.insert(format!("span.{key}"), id.clone());
                }
            }
        }
        self.0.lock().unwrap().events.push(fields);
    }
    fn on_close(&self, id: tracing::span::Id, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(&id)
            && span.name() == "mcp_call"
            && let Some(fields) = span.extensions().get::<Fields>()
        {
            self.0.lock().unwrap().calls.push(fields.clone());
        }
    }
}

/// The closed `mcp_call` span of the request the client sent with the
/// JSON-RPC id `jsonrpc_id`, waiting a little for its task to drop it (the
/// answer may reach the client first).
async fn call_span(jsonrpc_id: &str) -> Fields {
    for _ in 0..200 {
        let found = SEEN.lock().unwrap().calls.iter().find(|call| call["jsonrpc_id"] == jsonrpc_id).cloned();
        if let Some(found) = found {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("no mcp_call span closed for request {jsonrpc_id}")
}

fn events_with(field: &str, value: &str) -> Vec<Fields> {
    SEEN.lock().unwrap().events.iter().filter(|event| event.get(field).is_some_and(|v| v == value)).cloned().collect()
}

// ---------------------------------------------------------------- the tools

const INTERNALS: &str = "disk /srv/catalogue.sqlite is corrupt at page 7";

text_tool!(WhoAmI, "who_am_i", |ctx| {
    tracing::info!("handler ran");
    Ok(json!({"request": ctx.request_id(), "session": ctx.session_id(), "client": ctx.client_ip()}).to_string())
});
// `?` on a foreign error: classified InternalError, its message the server's business.
text_tool!(Corrupt, "corrupt", |_ctx| Err(std::io::Error::other(INTERNALS))?);
text_tool!(Declared, "declared", |_ctx| Err(
    McpError::database_error("The catalogue is offline.").with_reason("catalog_offline")
));
text_tool!(Explicit, "explicit", |_ctx| Err(McpError::internal_error(
    "The index is rebuilding; call again in a minute."
)));
text_tool!(Rewritten, "rewritten", |_ctx| Err(
    McpError::from_error(std::io::Error::other(INTERNALS)).with_message("The catalogue could not be read.")
));

/// A resource whose read fails as `Corrupt` does.
struct Ledger;
static LEDGER: mcp_contract_runtime::define::ResourceDefinition =
    mcp_contract_runtime::define::ResourceDefinition::new("museum://ledger", "ledger").with_description("The ledger.");

impl mcp_contract_runtime::define::Resource for Ledger {
    type Params = mcp_contract_runtime::define::NoArguments;
    fn definition(&self) -> &'static mcp_contract_runtime::define::ResourceDefinition {
        &LEDGER
    }
    async fn read(
        &self,
        _uri: &str,
        _params: mcp_contract_runtime::define::NoArguments,
        _ctx: Context,
    ) -> Result<mcp_contract_runtime::define::ReadResourceResult, McpError> {
        Err(std::io::Error::other(INTERNALS))?
    }
}

fn server(mask: bool) -> ToolServer {
    let server = Server::new("operations", "1.0.0")
        .tool(WhoAmI)
        .tool(Corrupt)
        .tool(Declared)
        .tool(Explicit)
        .tool(Rewritten)
        .resource(Ledger);
    let server = if mask { server } else { server.mask_error_details(false) };
    server.build().expect("the server builds")
}

/// The structured error of a tool's error result.
fn tool_error(answer: &Value) -> &Value {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    &answer["result"]["structuredContent"]["error"]
}

/// `XXXXX-XXXXX` of upper-case letters and digits.
fn is_request_id(id: &str) -> bool {
    id.len() == 11
        && id
            .char_indices()
            .all(|(at, ch)| if at == 5 { ch == '-' } else { ch.is_ascii_uppercase() || ch.is_ascii_digit() })
}

fn text_of(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().expect("a text block")
}

// ---------------------------------------------------------------- transports

/// One way to send a request and read its answer.
enum Client {
    Lines(LineClient),
    Http(HttpClient, #[allow(dead_code, reason = "kept alive")] HttpServer),
}

impl Client {
    async fn call(&mut self, id: &str, tool: &str) -> Value {
        self.send(&call(id, tool, json!({}))).await
    }

    async fn send(&mut self, request: &[u8]) -> Value {
        match self {
            Self::Lines(client) => {
                client.send(request).await;
                client.next().await
            }
            Self::Http(client, _) => client.post(request).await.message(),
        }
    }

    fn session(&self) -> Option<&str> {
        match self {
            Self::Lines(_) => None,
            Self::Http(client, _) => client.session.as_deref(),
        }
    }
}

async fn both(mask: bool) -> [(&'static str, Client); 2] {
    both_serving(|| server(mask)).await
}

async fn both_serving(server: impl Fn() -> ToolServer) -> [(&'static str, Client); 2] {
    LazyLock::force(&SEEN);
    let options = StdioOptions::default().without_signal_handling();
    let stdio = Client::Lines(LineClient::serving(server(), options).await.0);
    let served = HttpServer::serving(server(), HttpOptions::default()).await;
    let http = Client::Http(HttpClient::session(served.addr).await, served);
    [("stdio", stdio), ("http", http)]
}

// ---------------------------------------------------------------- the tests

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_reads_the_request_and_session_ids_which_its_call_span_carries_with_the_outcome() {
    for (transport, mut client) in both(true).await {
        let id = format!("ids-{transport}");
        let answer = client.call(&id, "who_am_i").await;
        let seen: Value = serde_json::from_str(text_of(&answer)).expect("the handler's JSON");
        assert_eq!(seen["request"], json!(id), "{transport}");
        assert_eq!(seen["session"], json!(client.session()), "{transport}: stdio has no session, HTTP its own");
        if transport == "http" {
            assert!(client.session().is_some());
        }

        let span = call_span(&id).await;
        assert_eq!(span["kind"], "tool", "{transport}: {span:?}");
        assert_eq!(span["name"], "who_am_i");
        assert_eq!(span.get("session_id").map(String::as_str), client.session(), "{transport}: {span:?}");
        assert_eq!(span["outcome"], "ok", "{transport}: {span:?}");
        assert!(span["duration_ms"].parse::<u64>().is_ok(), "{span:?}");
        // The server's own id for the request beside the client's.
        assert!(is_request_id(&span["request_id"]), "{transport}: {span:?}");
        // The attributes of the OpenTelemetry conventions for MCP, without the feature `otel`.
        assert_eq!(span["mcp.method.name"], "tools/call", "{transport}: {span:?}");
        assert_eq!(span["gen_ai.tool.name"], "who_am_i");
        assert_eq!(span["gen_ai.operation.name"], "execute_tool");
        assert_eq!(span["jsonrpc.request.id"], id);
        assert_eq!(span.get("mcp.session.id").map(String::as_str), client.session(), "{transport}: {span:?}");
        assert_eq!(span["network.transport"], if transport == "http" { "tcp" } else { "pipe" });
        assert!(span.get("mcp.protocol.version").is_some_and(|version| version.starts_with("20")), "{span:?}");
        assert_eq!(span["otel.kind"], "server");
        assert_eq!(span["mcp_contract.outcome"], "ok");
        assert_eq!(span["mcp_contract.request_id"], span["request_id"]);
        assert!(!span.contains_key("error.type"), "{span:?}");
        // The handler's own log line is inside the span.
        let logged = events_with("span.jsonrpc_id", &id);
        assert!(logged.iter().any(|event| event["message"] == "handler ran"), "{transport}: {logged:?}");
        assert!(logged.iter().all(|event| event["span.request_id"] == span["request_id"]), "{logged:?}");

        // A failure's code and reason are on the span too, and its id is the one the client got.
        let id = format!("ids-declared-{transport}");
        let answer = client.call(&id, "declared").await;
        let span = call_span(&id).await;
        assert_eq!(span["outcome"], "error", "{span:?}");
        assert_eq!(span["code"], "-32010", "{span:?}");
        assert_eq!(span["reason"], "catalog_offline", "{span:?}");
        assert_eq!(span["error.type"], "tool_error", "a tool's error result, as the conventions name it: {span:?}");
        assert_eq!(span["otel.status_code"], "error");
        assert_eq!(span["mcp_contract.reason"], "catalog_offline");
        assert_eq!(span["mcp_contract.code"], "-32010");
        // Its reason is none of its (empty) contract's: not a declared failure.
        assert_eq!(span["mcp_contract.outcome"], "undeclared_failure", "{span:?}");
        assert_eq!(tool_error(&answer)["data"]["requestId"], json!(span["request_id"]), "{transport}: {answer}");
        let line = events_with("request_id", &span["request_id"]);
        assert_eq!(line.len(), 1, "{transport}: the call's one log line carries the id: {line:?}");
        assert_eq!(line[0]["message"], "call finished with an error");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_classified_server_failure_reaches_the_client_masked_and_the_log_keeps_it_under_the_same_id() {
    for (transport, mut client) in both(true).await {
        let id = format!("mask-{transport}");
        let answer = client.call(&id, "corrupt").await;
        let error = tool_error(&answer);
        assert_eq!(error["code"], -32603, "{transport}: the code still says whose fault: {answer}");
        let message = error["message"].as_str().unwrap();
        assert!(!answer.to_string().contains("sqlite"), "{transport}: internals reached the client: {answer}");
        let request_id = error["data"]["requestId"].as_str().expect("a request id").to_owned();
        assert!(is_request_id(&request_id), "{request_id}");
        assert_eq!(error["data"].as_object().unwrap().len(), 1, "{transport}: the id and nothing else: {answer}");
        assert!(message.contains(&request_id), "{transport}: the message names the id: {message}");
        assert!(
            text_of(&answer).ends_with(&format!("(request {request_id})")),
            "{transport}: so does the text: {answer}"
        );

        let logged = events_with("request_id", &request_id);
        assert_eq!(logged.len(), 1, "{transport}: one log line under the id: {logged:?}");
        assert_eq!(logged[0]["error"], INTERNALS, "{transport}: the log keeps the original: {logged:?}");
        assert_eq!(logged[0]["message"], "call failed on the server's side");
        assert_eq!(call_span(&id).await["request_id"], request_id);

        // Two failures, two ids.
        let again = client.call(&format!("mask-again-{transport}"), "corrupt").await;
        assert_ne!(tool_error(&again)["data"]["requestId"], json!(request_id));

        // A resource's read, as a JSON-RPC error.
        let read = json!({"jsonrpc": "2.0", "id": format!("mask-read-{transport}"), "method": "resources/read",
            "params": {"uri": "museum://ledger"}});
        let answer = client.send(read.to_string().as_bytes()).await;
        assert_eq!(answer["error"]["code"], -32603, "{transport}: {answer}");
        assert!(!answer.to_string().contains("sqlite"), "{transport}: internals reached the client: {answer}");
        let request_id = answer["error"]["data"]["requestId"].as_str().expect("a request id");
        assert_eq!(events_with("request_id", request_id)[0]["error"], INTERNALS, "{transport}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_reasons_and_explicit_errors_go_out_as_written() {
    for (transport, mut client) in both(true).await {
        for (tool, code, message) in [
            ("declared", -32010, "The catalogue is offline."),
            ("explicit", -32603, "The index is rebuilding; call again in a minute."),
            ("rewritten", -32603, "The catalogue could not be read."),
        ] {
            let answer = client.call(&format!("written-{tool}-{transport}"), tool).await;
            let error = tool_error(&answer);
            assert_eq!(error["code"], code, "{transport} {tool}: {answer}");
            assert_eq!(error["message"], message, "{transport} {tool}: {answer}");
            assert!(
                is_request_id(error["data"]["requestId"].as_str().unwrap_or_default()),
                "{transport} {tool}: {answer}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_masking_a_classified_failure_goes_out_whole() {
    for (transport, mut client) in both(false).await {
        let answer = client.call(&format!("unmasked-{transport}"), "corrupt").await;
        let error = tool_error(&answer);
        assert_eq!(error["code"], -32603, "{transport}: {answer}");
        assert_eq!(error["message"], INTERNALS, "{transport}: {answer}");
        let keys: Vec<&String> = error["data"].as_object().map(|data| data.keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["requestId"], "{transport}: only the request's id beside the whole message: {answer}");
    }
}

/// Refuses `explicit` and every resource read; records how each call ended.
#[derive(Clone, Default)]
struct Gate(Arc<Mutex<Vec<(String, String, String)>>>);

impl CallHook for Gate {
    fn before<'a>(&'a self, call: &'a CallInfo<'a>) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(async move {
            tokio::task::yield_now().await;
            if call.name() == "explicit" || call.kind() == mcp_contract_runtime::server::PrimitiveKind::Resource {
                return Err(McpError::forbidden(format!("The gate refuses `{}` to this caller.", call.name())));
            }
            Ok(())
        })
    }

    fn after(&self, call: &CallInfo<'_>, outcome: CallOutcome<'_>) {
        let ended = match outcome {
            CallOutcome::Ok { .. } => "ok".to_owned(),
            CallOutcome::Error { error, .. } => error.code().as_i32().to_string(),
            _ => "other".to_owned(),
        };
        let id = call.context().request_id().unwrap_or_default().to_owned();
        self.0.lock().unwrap().push((call.name().to_owned(), id, ended));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_runs_around_every_call_and_may_refuse_one_before_its_handler_runs() {
    let gate = Gate::default();
    let make = || {
        Server::new("operations", "1.0.0")
            .tool(WhoAmI)
            .tool(Explicit)
            .resource(support::surface::About)
            .hook(gate.clone())
            .build()
            .expect("the server builds")
    };
    for (transport, mut client) in both_serving(make).await {
        let answer = client.call(&format!("hook-ok-{transport}"), "who_am_i").await;
        assert_eq!(answer["result"]["isError"], false, "{transport}: {answer}");

        // Refused before the handler, whose own error would be -32603.
        let answer = client.call(&format!("hook-refused-{transport}"), "explicit").await;
        let error = tool_error(&answer);
        assert_eq!(error["code"], -32005, "{transport}: {answer}");
        assert_eq!(error["message"], "The gate refuses `explicit` to this caller.", "{transport}: {answer}");

        let read = json!({"jsonrpc": "2.0", "id": format!("hook-read-{transport}"), "method": "resources/read",
            "params": {"uri": support::surface::ABOUT_URI}});
        let answer = client.send(read.to_string().as_bytes()).await;
        assert_eq!(answer["error"]["code"], -32005, "{transport}: a resource read too: {answer}");

        let seen = gate.0.lock().unwrap().clone();
        for (name, id, ended) in [
            ("who_am_i", format!("hook-ok-{transport}"), "ok"),
            ("explicit", format!("hook-refused-{transport}"), "-32005"),
            ("about", format!("hook-read-{transport}"), "-32005"),
        ] {
            let entry = (name.to_owned(), id, ended.to_owned());
            assert!(seen.contains(&entry), "{transport}: after saw {entry:?}? {seen:?}");
        }
    }
}

/// The request id of every call whose end the hooks' `after` saw.
#[derive(Clone, Default)]
struct Ended(Arc<Mutex<Vec<String>>>);

impl CallHook for Ended {
    fn after(&self, call: &CallInfo<'_>, _outcome: CallOutcome<'_>) {
        self.0.lock().unwrap().push(call.context().request_id().unwrap_or_default().to_owned());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_that_ends_input_required_says_so_on_its_span_and_ends_no_call_for_the_hooks() {
    LazyLock::force(&SEEN);
    let ended = Ended::default();
    let server = asking::server(Server::new("operations", "1.0.0").hook(ended.clone()));
    let served = HttpServer::serving(server, HttpOptions::default()).await;
    for ask in asking::asks() {
        let id = format!("round-{}", ask.kind);
        let first = stateless(served.addr, &id, ask.method, ask.header, ask.params.clone()).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{}: {first}", ask.kind);
        let span = call_span(&id).await;
        assert_eq!(span["kind"], ask.kind, "{span:?}");
        assert_eq!(span["outcome"], "input_required", "{}: {span:?}", ask.kind);
        assert!(!ended.0.lock().unwrap().contains(&id), "{}: the call goes on in the retry", ask.kind);

        let id = format!("round-{}-confirmed", ask.kind);
        let done = stateless(served.addr, &id, ask.method, ask.header, ask.confirmed(&first)).await;
        assert_eq!(done["result"]["resultType"], "complete", "{}: {done}", ask.kind);
        assert_eq!(call_span(&id).await["outcome"], "ok", "{}", ask.kind);
        assert!(ended.0.lock().unwrap().contains(&id), "{}: the retry that finishes ends the call", ask.kind);
    }
}

// ---------------------------------------------------------------- behind a proxy

/// A session opened with `headers` on every request, as a proxy would send them.
struct Proxied {
    client: HttpClient,
    headers: Vec<(&'static str, String)>,
}

impl Proxied {
    async fn post(&mut self, body: &[u8]) -> support::Answer {
        let mut headers: Vec<(&str, &str)> = vec![("content-type", "application/json")];
        headers.extend(self.headers.iter().map(|(name, value)| (*name, value.as_str())));
        self.client.request("POST", &headers, body).await
    }

    async fn open(addr: std::net::SocketAddr, headers: &[(&'static str, &str)]) -> (Self, support::Answer) {
        let headers = headers.iter().map(|(name, value)| (*name, (*value).to_owned())).collect();
        let mut proxied = Self { client: HttpClient::connect(addr).await, headers };
        let answer = proxied.post(&support::initialize(0)).await;
        if let Some(session) = answer.header("mcp-session-id") {
            proxied.client.session = Some(session.to_owned());
            assert_eq!(proxied.post(support::INITIALIZED).await.status, 202);
        }
        (proxied, answer)
    }

    async fn client_ip(&mut self) -> Value {
        let answer = self.post(&call("proxied", "who_am_i", json!({}))).await.message();
        let seen: Value = serde_json::from_str(text_of(&answer)).expect("the handler's JSON");
        seen["client"].clone()
    }
}

async fn behind_proxy(options: HttpOptions) -> HttpServer {
    LazyLock::force(&SEEN);
    HttpServer::serving(server(true), options.allowed_hosts(["mcp.example.com"])).await
}

const FORWARDED: [(&str, &str); 2] =
    [("x-forwarded-for", "198.51.100.1, 203.0.113.9"), ("x-forwarded-host", "mcp.example.com")];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxy_gives_the_client_address_and_the_host_the_host_check_compares() {
    let served = behind_proxy(HttpOptions::default().trusted_proxies(["127.0.0.0/8"])).await;
    let (mut proxied, answer) = Proxied::open(served.addr, &FORWARDED).await;
    assert_eq!(answer.status, 200, "the forwarded Host is allowed: {}", answer.text());
    assert_eq!(proxied.client_ip().await, json!("203.0.113.9"), "the hop before the trusted proxy");

    // The same headers from a peer that is no trusted proxy are not believed.
    let served = behind_proxy(HttpOptions::default().trusted_proxies(["10.0.0.0/8"])).await;
    let (_, answer) = Proxied::open(served.addr, &FORWARDED).await;
    assert_eq!(answer.status, 403, "its own Host, 127.0.0.1, is not allowed: {}", answer.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_host_is_logged_with_how_to_allow_it_and_the_client_learns_nothing_more() {
    let served = behind_proxy(HttpOptions::default().trusted_proxies(["127.0.0.1"])).await;
    let (_, answer) = Proxied::open(served.addr, &[("x-forwarded-host", "rebound.attacker.example")]).await;
    assert_eq!(answer.status, 403, "{}", answer.text());
    assert!(!answer.text().contains("allowed-hosts"), "the fix is for the operator: {}", answer.text());
    let logged = events_with("host", "rebound.attacker.example");
    assert_eq!(logged.len(), 1, "{logged:?}");
    let line = &logged[0]["message"];
    assert!(
        line.contains("`Host`") && line.contains("--allowed-hosts") && line.contains("MCP_ALLOWED_HOSTS"),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_origin_check_compares_the_scheme_a_trusted_proxy_forwarded() {
    let served = behind_proxy(HttpOptions::default().trusted_proxies(["127.0.0.1"])).await;
    let tls = [("x-forwarded-host", "mcp.example.com"), ("x-forwarded-proto", "https")];
    let same = [tls[0], tls[1], ("origin", "https://mcp.example.com")];
    let (_, answer) = Proxied::open(served.addr, &same).await;
    assert_eq!(answer.status, 200, "the page's own origin: {}", answer.text());
    let downgraded = [tls[0], tls[1], ("origin", "http://mcp.example.com")];
    let (_, answer) = Proxied::open(served.addr, &downgraded).await;
    assert_eq!(answer.status, 403, "another scheme is another origin: {}", answer.text());
}

#[tokio::test]
async fn a_trusted_proxy_that_is_no_address_is_refused_at_start() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let options = HttpOptions::default().trusted_proxies(["proxy.internal"]).without_signal_handling();
    let err = server(true).serve_http_on(listener, options).await.expect_err("not an address");
    assert!(err.to_string().contains("`proxy.internal` is no proxy address"), "{err}");
}
