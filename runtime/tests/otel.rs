//! The OpenTelemetry export (feature `otel`) against an OTLP receiver this
//! test starts in-process, on OTLP/HTTP (protobuf, axum) and on OTLP/gRPC
//! (tonic), decoding what arrives with the official protobuf definitions
//! (`opentelemetry-proto`): the spans' names, kinds, parents and attributes
//! for a success, a declared failure, a cancelled call and a task, the trace
//! context taken from `_meta` and from the HTTP header (the header linked when
//! `_meta`'s is the parent), a task's later rounds linked to its call, the
//! metrics (a session's duration among them), and an `https://` collector
//! over both protocols.
//!
//! `Telemetry::init` installs the process's one global subscriber, so each
//! protocol runs in a process of its own: the test re-runs this binary's
//! ignored `scenario` with the protocol in `OTLP_TEST_PROTOCOL`.

mod support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, LazyLock, Mutex};

use std::time::{Duration, Instant};

use axum::body::Bytes;
use mcp_contract_runtime::define::{TaskSupport, ToolDefinition, ToolOutput};
use mcp_contract_runtime::error::{ErrorContract, JsonRpcErrorCode};
use mcp_contract_runtime::server::{HttpOptions, Server};
use mcp_contract_runtime::telemetry::{Protocol, Telemetry};
use mcp_contract_runtime::{Context, McpError, Tool};
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{ExportMetricsServiceRequest, ExportMetricsServiceResponse};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{TraceService, TraceServiceServer};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;
use serde_json::{Value, json};
use support::{HttpClient, call, text_tool};

/// The client's trace and span, as its `traceparent` names them.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const HEADER_TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const HEADER_SPAN: &str = "b7ad6b7169203331";

text_tool!(Fine, "fine", |_ctx| Ok("fine".to_owned()));
text_tool!(Slow, "slow", |_ctx| {
    tokio::time::sleep(Duration::from_secs(5)).await;
    Ok("slow".to_owned())
});

static OFFLINE_CONTRACT: [ErrorContract; 1] = [ErrorContract::new(
    "catalog_offline",
    JsonRpcErrorCode::ServiceUnavailable,
    "The catalogue is offline.",
    "Try again in a minute.",
)];

/// Fails with the reason its contract declares.
struct Offline;
static OFFLINE: LazyLock<ToolDefinition> =
    LazyLock::new(|| support::definition::<support::Nothing>("offline").with_errors(&OFFLINE_CONTRACT));

impl Tool for Offline {
    type Input = support::Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &OFFLINE
    }
    async fn call(&self, _input: support::Nothing, _ctx: Context) -> Result<String, McpError> {
        Err(McpError::service_unavailable("The catalogue is offline.").with_reason("catalog_offline"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Always runs as a task.
struct Export;
static EXPORT: LazyLock<ToolDefinition> =
    LazyLock::new(|| support::definition::<support::Nothing>("export").with_task_support(TaskSupport::Required));

impl Tool for Export {
    type Input = support::Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &EXPORT
    }
    async fn call(&self, _input: support::Nothing, _ctx: Context) -> Result<String, McpError> {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Ok("exported".to_owned())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema, mcp_contract::context::ElicitForm)]
struct Confirm {
    /// Whether to go on.
    confirm: bool,
}

/// Asks the client before it answers.
struct Ask;
static ASK: LazyLock<ToolDefinition> = LazyLock::new(|| support::definition::<support::Nothing>("ask"));

impl Tool for Ask {
    type Input = support::Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &ASK
    }
    async fn call(&self, _input: support::Nothing, ctx: Context) -> Result<String, McpError> {
        let answer = ctx.elicit::<Confirm>("Go on?").await?;
        Ok(format!("confirmed: {}", answer.accepted().is_some_and(|confirm| confirm.confirm)))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// A client that confirms every elicitation and keeps the `_meta` each came with.
#[derive(Clone, Default)]
struct Confirming(Arc<Mutex<Vec<rmcp::model::JsonObject>>>);

impl rmcp::ClientHandler for Confirming {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut config = rmcp::model::ClientConfig::default();
        config.capabilities = rmcp::model::ClientCapabilities::builder().enable_elicitation().build();
        config
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.0.lock().unwrap().push(context.meta.0.0.clone());
        Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
            .with_content(json!({"confirm": true})))
    }
}

/// What the receiver decoded.
#[derive(Clone, Default)]
struct Received {
    spans: Arc<Mutex<Vec<Span>>>,
    /// The resource attributes of the spans' exports.
    resource: Arc<Mutex<HashMap<String, Value>>>,
    metrics: Arc<Mutex<Vec<String>>>,
    /// Each histogram's data points.
    histograms: Arc<Mutex<Vec<Point>>>,
}

/// A histogram's data point: the histogram's name, the point's attributes and count.
type Point = (String, HashMap<String, Value>, u64);

impl Received {
    fn traces(&self, request: ExportTraceServiceRequest) {
        for resource in request.resource_spans.iter().filter_map(|r| r.resource.as_ref()) {
            self.resource.lock().unwrap().extend(key_values(&resource.attributes));
        }
        let spans = request.resource_spans.into_iter().flat_map(|r| r.scope_spans).flat_map(|s| s.spans);
        self.spans.lock().unwrap().extend(spans);
    }

    fn metrics(&self, request: &ExportMetricsServiceRequest) {
        let names = request.resource_metrics.iter().flat_map(|r| &r.scope_metrics).flat_map(|s| &s.metrics);
        self.metrics.lock().unwrap().extend(names.clone().map(|metric| metric.name.clone()));
        for metric in names {
            if let Some(Data::Histogram(histogram)) = &metric.data {
                let points = histogram.data_points.iter();
                let points = points.map(|point| (metric.name.clone(), key_values(&point.attributes), point.count));
                self.histograms.lock().unwrap().extend(points);
            }
        }
    }

    fn span_where(&self, key: &str, value: &Value) -> Option<Span> {
        self.spans.lock().unwrap().iter().find(|span| attributes(span).get(key) == Some(value)).cloned()
    }

    fn span_named(&self, name: &str) -> Option<Span> {
        self.spans.lock().unwrap().iter().find(|span| span.name == name).cloned()
    }
}

#[tonic::async_trait]
impl TraceService for Received {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        self.traces(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Received {
    async fn export(
        &self,
        request: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        self.metrics(request.get_ref());
        Ok(tonic::Response::new(ExportMetricsServiceResponse::default()))
    }
}

/// The receiver on a loopback port: OTLP/HTTP's two paths, or the gRPC services.
async fn receiver(protocol: Protocol, received: Received) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    match protocol {
        Protocol::HttpProtobuf => {
            let (traces, metrics) = (received.clone(), received);
            let protobuf = |body: Vec<u8>| ([("content-type", "application/x-protobuf")], body);
            let app = axum::Router::new()
                .route(
                    "/v1/traces",
                    axum::routing::post(move |body: Bytes| async move {
                        traces.traces(ExportTraceServiceRequest::decode(body).expect("an OTLP trace request"));
                        protobuf(ExportTraceServiceResponse::default().encode_to_vec())
                    }),
                )
                .route(
                    "/v1/metrics",
                    axum::routing::post(move |body: Bytes| async move {
                        metrics.metrics(&ExportMetricsServiceRequest::decode(body).expect("an OTLP metrics request"));
                        protobuf(ExportMetricsServiceResponse::default().encode_to_vec())
                    }),
                );
            tokio::spawn(async move { axum::serve(listener, app).await });
        }
        Protocol::Grpc => {
            let router = tonic::transport::Server::builder()
                .add_service(TraceServiceServer::new(received.clone()))
                .add_service(MetricsServiceServer::new(received));
            let incoming = tonic::transport::server::TcpIncoming::from(listener);
            tokio::spawn(router.serve_with_incoming(incoming));
        }
        _ => unreachable!("two protocols"),
    }
    addr
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn attributes(span: &Span) -> HashMap<String, Value> {
    key_values(&span.attributes)
}

fn key_values(pairs: &[opentelemetry_proto::tonic::common::v1::KeyValue]) -> HashMap<String, Value> {
    pairs
        .iter()
        .filter_map(|kv| {
            let value = match kv.value.as_ref()?.value.as_ref()? {
                AnyValue::StringValue(text) => json!(text),
                AnyValue::IntValue(number) => json!(number),
                AnyValue::BoolValue(flag) => json!(flag),
                AnyValue::DoubleValue(number) => json!(number),
                other => json!(format!("{other:?}")),
            };
            Some((kv.key.clone(), value))
        })
        .collect()
}

/// A `tools/call` on `client`'s session with `_meta.traceparent` naming the client's span.
fn traced_call(id: u64, tool: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool,
        "arguments": {},
        "_meta": {"traceparent": format!("00-{TRACE_ID}-{CLIENT_SPAN}-01"), "tracestate": "congo=t61rcWkgMzE"},
    }})
    .to_string()
    .into_bytes()
}

/// Wait (bounded) until the receiver has a span whose attribute `key` is `value`.
async fn span_where(received: &Received, key: &str, value: &Value) -> Span {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(span) = received.span_where(key, value) {
            return span;
        }
        assert!(Instant::now() < deadline, "no span with {key} = {value} arrived");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Wait (bounded) until the receiver has a span named `name`.
async fn span_named(received: &Received, name: &str) -> Span {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(span) = received.span_named(name) {
            return span;
        }
        let names: Vec<String> = received.spans.lock().unwrap().iter().map(|span| span.name.clone()).collect();
        assert!(Instant::now() < deadline, "no span `{name}` arrived; these did: {names:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
#[ignore = "run by `over_otlp_http_protobuf` and `over_otlp_grpc`, each in a process of its own"]
fn scenario() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    match std::env::var("OTLP_TEST_PROTOCOL").as_deref() {
        Ok("grpc") => runtime.block_on(exported_over(Protocol::Grpc)),
        Ok("http") => runtime.block_on(exported_over(Protocol::HttpProtobuf)),
        Ok("down") => runtime.block_on(collector_down()),
        Ok("layer") => runtime.block_on(a_layer_of_the_applications_subscriber()),
        Ok("tls") => runtime.block_on(over_tls()),
        other => panic!("OTLP_TEST_PROTOCOL is {other:?}"),
    }
}

async fn exported_over(protocol: Protocol) {
    let received = Received::default();
    let collector = receiver(protocol, received.clone()).await;
    let telemetry = Telemetry::new("otel-test")
        .endpoint(format!("http://{collector}"))
        .protocol(protocol)
        .resource_attribute("deployment.environment.name", "test")
        .metric_interval(Duration::from_millis(200))
        .shutdown_timeout(Duration::from_secs(5))
        .init()
        .expect("the pipeline installs");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let stop = tokio_util::sync::CancellationToken::new();
    let server =
        Server::new("otel", "1.0.0").tool(Fine).tool(Offline).tool(Slow).tool(Export).tool(Ask).telemetry(&telemetry);
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    let serving = tokio::spawn(server.build().expect("the server builds").serve_http_on(listener, options));

    // A success, parented on `_meta`'s traceparent.
    let mut client = HttpClient::session(addr).await;
    let session = client.session.clone().expect("a session");
    let answer = client.post(&traced_call(1, "fine")).await;
    assert_eq!(answer.message()["result"]["isError"], json!(false), "{}", answer.text());
    // A declared failure.
    let answer = client.post(&traced_call(2, "offline")).await;
    let failed = answer.message();
    assert_eq!(failed["result"]["isError"], json!(true), "{failed}");
    let request_id = failed["result"]["structuredContent"]["error"]["data"]["requestId"].as_str().unwrap().to_owned();
    // Without `_meta`, the HTTP request's `traceparent` header is the parent.
    let header = format!("00-{HEADER_TRACE_ID}-{HEADER_SPAN}-01");
    let headers = [("content-type", "application/json"), ("traceparent", header.as_str())];
    let answer = client.request("POST", &headers, &call(3, "fine", json!({}))).await;
    assert_eq!(answer.message()["result"]["isError"], json!(false), "{}", answer.text());
    // `_meta`'s traceparent is the parent; the HTTP request's, naming another span, is linked.
    let answer = client.request("POST", &headers, &traced_call(6, "fine")).await;
    assert_eq!(answer.message()["result"]["isError"], json!(false), "{}", answer.text());
    // A call the client cancels.
    let mut slow = HttpClient::connect(addr).await;
    slow.session = Some(session.clone());
    let pending = tokio::spawn(async move { slow.post(&traced_call(4, "slow")).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}});
    let mut canceller = HttpClient::connect(addr).await;
    canceller.session = Some(session.clone());
    assert_eq!(canceller.post(cancel.to_string().as_bytes()).await.status, 202);
    // A task, started by a stateless request whose `_meta` carries the traceparent.
    let task = support::stateless_with(
        addr,
        "5",
        "tools/call",
        "export",
        json!({"name": "export", "arguments": {}}),
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
    )
    .await;
    assert_eq!(task["result"]["resultType"], "task", "{task}");
    // Its later rounds, each a request of its own.
    let task_id = task["result"]["taskId"].as_str().expect("a task id").to_owned();
    let with_tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let params = json!({"taskId": task_id});
    let got = support::stateless_with(addr, "7", "tasks/get", &task_id, params.clone(), with_tasks.clone()).await;
    assert!(got["result"]["status"].is_string(), "{got}");
    let cancelled = support::stateless_with(addr, "8", "tasks/cancel", &task_id, params, with_tasks).await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    // The session ends: its duration is recorded.
    let deleted = client.request("DELETE", &[], b"").await;
    assert!(deleted.status < 300, "{}", deleted.text());

    // A stateless call that asks the client (input required), and its retry with the answer.
    let stateless_ask = |id: &'static str, extra: Value| {
        let mut params = json!({"name": "ask", "arguments": {}});
        for (key, value) in extra.as_object().into_iter().flatten() {
            params[key] = value.clone();
        }
        support::stateless_with(addr, id, "tools/call", "ask", params, json!({"elicitation": {}}))
    };
    let first = stateless_ask("9", json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().expect("a requestState").to_owned();
    let key = first["result"]["inputRequests"].as_object().and_then(|asks| asks.keys().next()).expect("an ask").clone();
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    let retry = stateless_ask("10", json!({"inputResponses": {key: answer}, "requestState": state})).await;
    assert_eq!(retry["result"]["content"][0]["text"], "confirmed: true", "{retry}");

    // The spans, as the collector got them.
    let fine = span_where(&received, "jsonrpc.request.id", &json!("1")).await;
    assert_eq!(fine.name, "tools/call fine");
    assert_eq!(SpanKind::try_from(fine.kind), Ok(SpanKind::Server));
    assert_eq!(hex(&fine.trace_id), TRACE_ID, "the client's trace");
    assert_eq!(hex(&fine.parent_span_id), CLIENT_SPAN, "the child of the client's span");
    let attrs = attributes(&fine);
    assert_eq!(attrs["mcp.method.name"], "tools/call");
    assert_eq!(attrs["gen_ai.tool.name"], "fine");
    assert_eq!(attrs["gen_ai.operation.name"], "execute_tool");
    assert_eq!(attrs["jsonrpc.request.id"], "1");
    assert_eq!(attrs["mcp.session.id"], json!(session));
    assert_eq!(attrs["mcp.protocol.version"], "2025-06-18");
    assert_eq!(attrs["network.transport"], "tcp");
    assert_eq!(attrs["mcp_contract.outcome"], "ok");
    assert!(attrs["mcp_contract.request_id"].as_str().is_some_and(support::is_request_id), "{attrs:?}");
    assert!(!attrs.contains_key("error.type"), "{attrs:?}");
    let resource = received.resource.lock().unwrap().clone();
    assert_eq!(resource["service.name"], "otel-test", "{resource:?}");
    assert_eq!(resource["deployment.environment.name"], "test", "{resource:?}");

    let offline = span_named(&received, "tools/call offline").await;
    assert_eq!(hex(&offline.parent_span_id), CLIENT_SPAN);
    let attrs = attributes(&offline);
    assert_eq!(attrs["mcp_contract.outcome"], "declared_failure", "{attrs:?}");
    assert_eq!(attrs["mcp_contract.reason"], "catalog_offline");
    assert_eq!(attrs["mcp_contract.code"], JsonRpcErrorCode::ServiceUnavailable.as_i32());
    assert_eq!(attrs["mcp_contract.request_id"], json!(request_id), "the data.requestId the client got");
    assert_eq!(attrs["error.type"], "tool_error", "a tool's error result, as the conventions name it");
    let status = offline.status.as_ref().expect("a status");
    assert_eq!(status.code, 2, "ERROR: {status:?}");
    assert!(status.message.contains("offline"), "{status:?}");

    let spans = received.spans.lock().unwrap().clone();
    let from_header = spans
        .iter()
        .find(|span| hex(&span.trace_id) == HEADER_TRACE_ID)
        .expect("the call whose HTTP request carried the traceparent");
    assert_eq!(from_header.name, "tools/call fine");
    assert_eq!(hex(&from_header.parent_span_id), HEADER_SPAN);

    let linked = span_where(&received, "jsonrpc.request.id", &json!("6")).await;
    assert_eq!(hex(&linked.trace_id), TRACE_ID, "the trace of `_meta`");
    assert_eq!(hex(&linked.parent_span_id), CLIENT_SPAN, "`_meta`'s span is the parent");
    let links: Vec<(String, String)> =
        linked.links.iter().map(|link| (hex(&link.trace_id), hex(&link.span_id))).collect();
    assert_eq!(links, [(HEADER_TRACE_ID.to_owned(), HEADER_SPAN.to_owned())], "the HTTP request's span, linked");
    assert!(fine.links.is_empty(), "no header, no link: {:?}", fine.links);

    let slow = span_named(&received, "tools/call slow").await;
    let attrs = attributes(&slow);
    assert_eq!(attrs["mcp_contract.outcome"], "cancelled", "{attrs:?}");
    assert_eq!(hex(&slow.parent_span_id), CLIENT_SPAN);
    drop(pending);

    // A request to the client carries the call's context in its `_meta`: over
    // stdio-like transport (rmcp's client on a pipe), the call's span is a root.
    let built = Server::new("otel", "1.0.0").tool(Ask).build().expect("the server builds");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        if let Ok(running) = built.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let confirming = Confirming::default();
    let client = rmcp::ServiceExt::serve(confirming.clone(), client_io).await.expect("the client connects");
    let answer = client.call_tool(rmcp::model::CallToolRequestParams::new("ask")).await.expect("the call answers");
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
    let asked = span_where(&received, "network.transport", &json!("pipe")).await;
    assert_eq!(asked.name, "tools/call ask");
    let metas = confirming.0.lock().unwrap().clone();
    let traceparent = metas[0]["traceparent"].as_str().unwrap_or_else(|| panic!("no traceparent: {metas:?}"));
    let expected = format!("00-{}-{}-01", hex(&asked.trace_id), hex(&asked.span_id));
    assert_eq!(traceparent, expected, "the elicitation is the call span's child");

    let export = span_named(&received, "tools/call export").await;
    let attrs = attributes(&export);
    assert_eq!(attrs["mcp.protocol.version"], "2026-07-28", "{attrs:?}");
    assert!(!attrs.contains_key("mcp.session.id"), "a stateless request has no session: {attrs:?}");
    // The task's later rounds: server spans of their own, linked to the call that created the task.
    for (method, id) in [("tasks/get", "7"), ("tasks/cancel", "8")] {
        let round = span_named(&received, method).await;
        assert_eq!(SpanKind::try_from(round.kind), Ok(SpanKind::Server));
        let attrs = attributes(&round);
        assert_eq!(attrs["mcp.method.name"], method, "{attrs:?}");
        assert_eq!(attrs["jsonrpc.request.id"], id, "{attrs:?}");
        assert_eq!(attrs["mcp_contract.task_id"], json!(task_id), "{attrs:?}");
        assert_eq!(attrs["mcp.protocol.version"], "2026-07-28", "{attrs:?}");
        let links: Vec<(&[u8], &[u8])> =
            round.links.iter().map(|link| (&link.trace_id[..], &link.span_id[..])).collect();
        assert_eq!(links, [(&export.trace_id[..], &export.span_id[..])], "{method} links to the task's call");
    }

    // The retry of the call that ended input-required links to its first round.
    let first_round = span_where(&received, "jsonrpc.request.id", &json!("9")).await;
    assert_eq!(attributes(&first_round)["mcp_contract.outcome"], "input_required");
    let retried = span_where(&received, "jsonrpc.request.id", &json!("10")).await;
    assert_eq!(attributes(&retried)["mcp_contract.outcome"], "ok");
    let links: Vec<(&[u8], &[u8])> = retried.links.iter().map(|link| (&link.trace_id[..], &link.span_id[..])).collect();
    assert_eq!(links, [(&first_round.trace_id[..], &first_round.span_id[..])], "the retry links to the first round");
    assert!(first_round.links.is_empty(), "{:?}", first_round.links);

    // The pipe's session ends with its stream.
    client.cancel().await.expect("the client stops");
    let session = |transport: &str| {
        received
            .histograms
            .lock()
            .unwrap()
            .iter()
            .find(|(name, attrs, _)| {
                name == "mcp.server.session.duration" && attrs.get("network.transport") == Some(&json!(transport))
            })
            .cloned()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while session("tcp").is_none() || session("pipe").is_none() {
        let names: std::collections::BTreeSet<String> =
            received.histograms.lock().unwrap().iter().map(|(name, _, _)| name.clone()).collect();
        assert!(Instant::now() < deadline, "no session durations over tcp and pipe; the histograms: {names:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_, attrs, count) = session("tcp").unwrap();
    assert_eq!(count, 1, "one HTTP session ended: {attrs:?}");
    assert_eq!(attrs["network.protocol.name"], "http", "{attrs:?}");
    assert_eq!(attrs["mcp.protocol.version"], "2025-06-18", "{attrs:?}");
    assert!(!attrs.contains_key("error.type"), "{attrs:?}");
    let (_, attrs, count) = session("pipe").unwrap();
    assert_eq!(count, 1, "one stdio session ended: {attrs:?}");
    assert!(attrs["mcp.protocol.version"].is_string(), "{attrs:?}");

    // The metrics: the conventions' histogram, exported on the reader's interval.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !received.metrics.lock().unwrap().iter().any(|name| name == "mcp.server.operation.duration") {
        assert!(Instant::now() < deadline, "no mcp.server.operation.duration: {:?}", received.metrics.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(received.metrics.lock().unwrap().iter().any(|name| name == "mcp_contract.operation.errors"));
    assert_eq!(telemetry.dropped_spans(), 0, "a collector that takes every batch loses nothing");

    // Shutdown flushes, within its bound.
    stop.cancel();
    tokio::time::timeout(Duration::from_secs(15), serving).await.expect("serving stops").unwrap().unwrap();
}

/// Run `scenario` in a child process over `protocol`, bounded.
fn in_a_process_of_its_own(protocol: &str) {
    in_a_process_of_its_own_with(protocol, &[]);
}

/// [`in_a_process_of_its_own`] with the variables `env` set.
fn in_a_process_of_its_own_with(protocol: &str, env: &[(&str, &std::ffi::OsStr)]) {
    use std::io::Read;
    let mut child = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args(["scenario", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env("OTLP_TEST_PROTOCOL", protocol)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the test binary runs");
    // Drained as it runs, so that a full pipe never stalls the child.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().expect("killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(status.success(), "over {protocol}: {status}\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    assert!(stdout.contains("1 passed"), "the scenario ran: {stdout}");
}

#[test]
fn over_otlp_http_protobuf() {
    in_a_process_of_its_own("http");
}

#[test]
fn over_otlp_grpc() {
    in_a_process_of_its_own("grpc");
}

#[test]
fn as_a_layer_of_the_applications_own_subscriber() {
    in_a_process_of_its_own("layer");
}

/// A server of `Fine` over Streamable HTTP, and a client's session on it:
/// keep the server alive as long as the client.
async fn fine_session() -> (support::HttpServer, HttpClient) {
    let served = support::HttpServer::serving(
        Server::new("otel", "1.0.0").tool(Fine).build().expect("the server builds"),
        HttpOptions::default(),
    )
    .await;
    let client = HttpClient::session(served.addr).await;
    (served, client)
}

/// `Telemetry::layer` under a subscriber of the application's that has no other layer.
async fn a_layer_of_the_applications_subscriber() {
    use tracing_subscriber::layer::SubscriberExt;
    let received = Received::default();
    let collector = receiver(Protocol::HttpProtobuf, received.clone()).await;
    let (layer, telemetry) =
        Telemetry::new("otel-test").endpoint(format!("http://{collector}")).metrics(false).layer().expect("builds");
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).expect("the only subscriber");
    let (_served, mut client) = fine_session().await;
    let answer = client.post(&traced_call(1, "fine")).await;
    assert_eq!(answer.message()["result"]["isError"], json!(false), "{}", answer.text());
    let flushing = telemetry.clone();
    tokio::task::spawn_blocking(move || flushing.force_flush()).await.unwrap();
    let fine = span_named(&received, "tools/call fine").await;
    assert_eq!(hex(&fine.parent_span_id), CLIENT_SPAN);
}

#[test]
fn with_the_collector_down() {
    in_a_process_of_its_own("down");
}

/// A collector nobody listens for: every call is answered as fast as without
/// export, and the spans lost are counted.
async fn collector_down() {
    // A port that was just free: nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let telemetry = Telemetry::new("otel-test")
        .endpoint(format!("http://{closed}"))
        .max_queue_size(8)
        .metrics(false)
        .shutdown_timeout(Duration::from_secs(2))
        .init()
        .expect("the pipeline installs");
    let (_served, mut client) = fine_session().await;
    let started = Instant::now();
    for id in 1..=40 {
        let answer = client.post(&traced_call(id, "fine")).await;
        assert_eq!(answer.message()["result"]["isError"], json!(false), "{}", answer.text());
    }
    // Generous: 40 loopback calls take milliseconds; an export in the way would take seconds.
    assert!(started.elapsed() < Duration::from_secs(5), "the calls waited for the export: {:?}", started.elapsed());
    // The queue holds 8: the rest were dropped at once, and what was queued is lost on flush.
    assert!(telemetry.dropped_spans() >= 32, "dropped {}", telemetry.dropped_spans());
    let flushing = Instant::now();
    let handle = telemetry.clone();
    let whole = tokio::task::spawn_blocking(move || handle.shutdown()).await.unwrap();
    assert!(!whole, "nothing could be sent");
    assert_eq!(telemetry.dropped_spans(), 40, "every span is counted lost: refused at the queue, or by the collector");
    assert!(flushing.elapsed() < Duration::from_secs(4), "shutdown kept its bound: {:?}", flushing.elapsed());
}

#[test]
fn to_an_https_collector_trusted_through_otel_exporter_otlp_certificate() {
    // A CA of this test's, and the collector's certificate for `localhost` it signs.
    let dir = std::env::temp_dir().join(format!("mcp-contract-otel-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name.push(rcgen::DnType::CommonName, "mcp-contract otel test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let certificate =
        rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap().signed_by(&key, &ca).unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("collector.pem"), certificate.pem()).unwrap();
    std::fs::write(dir.join("collector.key"), key.serialize_pem()).unwrap();
    // Another CA, which did not sign the collector's certificate.
    let other = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    let other = rcgen::CertifiedIssuer::self_signed(other, rcgen::KeyPair::generate().unwrap()).unwrap();
    std::fs::write(dir.join("other.pem"), other.pem()).unwrap();
    let ca_file = dir.join("ca.pem");
    in_a_process_of_its_own_with(
        "tls",
        &[("OTEL_EXPORTER_OTLP_CERTIFICATE", ca_file.as_os_str()), ("OTLP_TEST_TLS_DIR", dir.as_os_str())],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A TLS listener for axum: each connection's handshake with the collector's certificate.
struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.tcp.accept().await else { continue };
            // A client that does not trust the certificate ends its handshake: the next one.
            if let Ok(tls) = self.acceptor.accept(stream).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// The OTLP/HTTP receiver over TLS, with the certificate `dir` holds.
async fn tls_receiver(dir: &std::path::Path, received: Received) -> SocketAddr {
    use rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls;
    let certificates: Vec<_> = rustls::pki_types::CertificateDer::pem_file_iter(dir.join("collector.pem"))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::from_pem_file(dir.join("collector.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certificates, key)
        .unwrap();
    let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = tcp.local_addr().expect("bound");
    let listener = TlsListener { tcp, acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)) };
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: Bytes| async move {
            received.traces(ExportTraceServiceRequest::decode(body).expect("an OTLP trace request"));
            ([("content-type", "application/x-protobuf")], ExportTraceServiceResponse::default().encode_to_vec())
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// The OTLP/gRPC trace service over TLS, with the certificate `dir` holds.
async fn tls_grpc_receiver(dir: &std::path::Path, received: Received) -> SocketAddr {
    use tonic::transport::{Identity, ServerTlsConfig};
    let identity = Identity::from_pem(
        std::fs::read(dir.join("collector.pem")).unwrap(),
        std::fs::read(dir.join("collector.key")).unwrap(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let router = tonic::transport::Server::builder()
        .tls_config(ServerTlsConfig::new().identity(identity))
        .expect("the collector's TLS")
        .add_service(TraceServiceServer::new(received));
    tokio::spawn(router.serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)));
    addr
}

/// Spans exported to an `https://` collector, over OTLP/HTTP and gRPC, whose
/// certificate a CA of the test's signed, trusted through
/// `OTEL_EXPORTER_OTLP_CERTIFICATE`; a pipeline that trusts another CA sends
/// nothing, and counts it.
async fn over_tls() {
    use tracing_subscriber::layer::SubscriberExt;
    let dir = std::path::PathBuf::from(std::env::var_os("OTLP_TEST_TLS_DIR").expect("the certificates' folder"));
    let received = Received::default();
    let collector = tls_receiver(&dir, received.clone()).await;
    let endpoint = format!("https://localhost:{}", collector.port());

    // Trusting another CA: the handshake fails, the spans are counted lost.
    let other = std::fs::read(dir.join("other.pem")).unwrap();
    let (layer, distrusting) =
        Telemetry::new("otel-test").endpoint(&endpoint).certificate(other).metrics(false).layer().expect("builds");
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || tracing::info_span!("distrusted").in_scope(|| {}));
    let flushing = distrusting.clone();
    tokio::task::spawn_blocking(move || flushing.shutdown()).await.unwrap();
    assert_eq!(distrusting.dropped_spans(), 1, "a collector whose certificate is not trusted takes nothing");
    assert!(received.spans.lock().unwrap().is_empty());

    // Over gRPC, trusting the test's CA, from OTEL_EXPORTER_OTLP_CERTIFICATE.
    let grpc = Received::default();
    let grpc_collector = tls_grpc_receiver(&dir, grpc.clone()).await;
    let (layer, over_grpc) = Telemetry::new("otel-test")
        .endpoint(format!("https://localhost:{}", grpc_collector.port()))
        .protocol(Protocol::Grpc)
        .metrics(false)
        .layer()
        .expect("builds");
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || tracing::info_span!("over grpc").in_scope(|| {}));
    let flushing = over_grpc.clone();
    assert!(tokio::task::spawn_blocking(move || flushing.shutdown()).await.unwrap(), "sent over gRPC and TLS");
    assert_eq!(span_named(&grpc, "over grpc").await.name, "over grpc");
    assert_eq!(over_grpc.dropped_spans(), 0);

    // Over HTTP, trusting the test's CA, from OTEL_EXPORTER_OTLP_CERTIFICATE.
    let telemetry =
        Telemetry::new("otel-test").endpoint(&endpoint).metrics(false).init().expect("the pipeline installs");
    let (_served, mut client) = fine_session().await;
    let answer = client.post(&traced_call(1, "fine")).await;
    assert_eq!(answer.message()["result"]["isError"], json!(false), "{}", answer.text());
    let flushing = telemetry.clone();
    assert!(tokio::task::spawn_blocking(move || flushing.force_flush()).await.unwrap(), "the flush went through");
    let fine = span_named(&received, "tools/call fine").await;
    assert_eq!(hex(&fine.parent_span_id), CLIENT_SPAN);
    assert_eq!(telemetry.dropped_spans(), 0, "a trusted collector takes every batch");
}
