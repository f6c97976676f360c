//! A real client's trace continues into the server (feature `otel`): the
//! official MCP Python client (`mcp`, pinned in tests/e2e/python/requirements.txt
//! with the OpenTelemetry SDK) calls a tool inside an agent's span; its own
//! SEP-414 support writes the request's `traceparent` into `params._meta`
//! (the script sets no `_meta` itself). The server exports its spans over
//! OTLP/HTTP to a receiver this test starts, which decodes them with the
//! official protobuf definitions: the server's `tools/call` span must be the
//! child of the client's span, in the agent's trace.
//!
//! Its own test binary: `Telemetry::init` installs the process's one global
//! subscriber. Without `python3` it is skipped with how to install it,
//! and fails under CI, as the other end-to-end tests.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use mcp_contract::prelude::*;
use mcp_contract::server::HttpOptions;
use mcp_contract::telemetry::Telemetry;
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;

mod support;
use support::{root, run, venv_python};

/// Answers who called.
#[mcp_tool(annotations(read_only, open_world = false))]
async fn greet() -> Result<String, McpError> {
    tracing::info!("greeting");
    Ok("hello".to_owned())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_clients_span_is_the_parent_of_the_servers() {
    if !support::needs::all(&[support::needs::PYTHON3]) {
        return;
    }
    // The receiver: OTLP/HTTP protobuf on loopback.
    let spans: Arc<Mutex<Vec<Span>>> = Arc::default();
    let kept = Arc::clone(&spans);
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: Bytes| async move {
            let request = ExportTraceServiceRequest::decode(body).expect("an OTLP trace request");
            let arrived = request.resource_spans.into_iter().flat_map(|r| r.scope_spans).flat_map(|s| s.spans);
            kept.lock().unwrap().extend(arrived);
            ([("content-type", "application/x-protobuf")], ExportTraceServiceResponse::default().encode_to_vec())
        }),
    );
    let collector = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let collector_addr = collector.local_addr().expect("bound");
    tokio::spawn(async move { axum::serve(collector, app).await });
    let telemetry = Telemetry::new("otel-e2e")
        .endpoint(format!("http://{collector_addr}"))
        .metrics(false)
        .init()
        .expect("the pipeline installs");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    let stop = tokio_util::sync::CancellationToken::new();
    let server = Server::new("otel-e2e", "1.0.0").tool(Greet).telemetry(&telemetry).build().expect("builds");
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    let serving = tokio::spawn(server.serve_http_on(listener, options));

    let client = tokio::task::spawn_blocking(move || {
        let mut command = std::process::Command::new(venv_python());
        command.arg(root().join("tests/e2e/python/otel_client.py")).args(["--url", &url, "--tool", "greet"]);
        run(&mut command, "the Python client with OpenTelemetry")
    })
    .await
    .expect("the client ran");
    let said = String::from_utf8_lossy(&client.stdout);
    let line = said.lines().last().unwrap_or_default();
    let seen: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {said}"));
    assert_eq!(seen["is_error"], false, "{seen}");
    assert_eq!(seen["client_span_kind"], "CLIENT", "{seen}");
    assert_eq!(seen["client_trace_id"], seen["trace_id"], "the client's span is in the agent's trace: {seen}");

    telemetry.force_flush();
    let deadline = Instant::now() + Duration::from_secs(20);
    let server_span = loop {
        if let Some(span) = spans.lock().unwrap().iter().find(|span| span.name == "tools/call greet").cloned() {
            break span;
        }
        assert!(Instant::now() < deadline, "no `tools/call greet` span arrived");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(SpanKind::try_from(server_span.kind), Ok(SpanKind::Server));
    assert_eq!(json_str(&seen["trace_id"]), hex(&server_span.trace_id), "the server's span is in the agent's trace");
    assert_eq!(
        json_str(&seen["client_span_id"]),
        hex(&server_span.parent_span_id),
        "the server's span is the child of the client's `{}`",
        seen["client_span_name"]
    );
    eprintln!(
        "python client `{}` {} -> server `tools/call greet` {} (trace {})",
        seen["client_span_name"],
        json_str(&seen["client_span_id"]),
        hex(&server_span.span_id),
        json_str(&seen["trace_id"])
    );

    stop.cancel();
    tokio::time::timeout(Duration::from_secs(15), serving).await.expect("serving stops").unwrap().unwrap();
}

fn json_str(value: &serde_json::Value) -> &str {
    value.as_str().unwrap_or_default()
}
