//! What tracing costs a `tools/call` (feature `otel`): the round trip of
//! `benches/serve.rs` (rmcp's client, an in-process duplex pipe, a trivial
//! tool) under three subscribers, each the thread's default in turn:
//!
//! - `no_subscriber`: nobody listens, so the call's span is disabled;
//! - `sampled_out`: the OpenTelemetry layer with the sampler `always_off`
//!   (the span is made, named and attributed, then sampled out);
//! - `exported`: sampled and exported over OTLP/HTTP to a receiver on
//!   loopback that takes every batch, with the metrics recorded too.
//!
//! The server runs on a current-thread runtime, so that its tasks see the
//! thread's default subscriber. `cargo bench --bench otel --features otel`;
//! the guide's Performance chapter (guide/src/performance.md) quotes it.
//!
//! With `OTEL_BENCH_CALLS=N` and `OTEL_BENCH_MODE` (`off`, `sampled_out`,
//! `exported`, to the OTLP/HTTP collector of `OTEL_BENCH_COLLECTOR`) it makes
//! N such calls once and exits, flushing every span first: what
//! `benches/otel_callgrind.py` counts the instructions of under callgrind.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use mcp_contract::prelude::*;
use mcp_contract::telemetry::{Sampler, Telemetry};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tokio::runtime::Runtime;
use tracing_subscriber::layer::SubscriberExt;

#[derive(Deserialize, JsonSchema)]
pub struct AddInput {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct AddOutput {
    /// The sum.
    pub sum: i64,
}

/// Add two numbers.
#[mcp_tool(annotations(read_only, open_world = false))]
async fn add(input: AddInput) -> Result<AddOutput, McpError> {
    Ok(AddOutput { sum: input.a + input.b })
}

type Client = RunningService<RoleClient, ()>;

async fn connect() -> Client {
    let server = Server::new("bench", "0").tool(Add).build().expect("the server builds");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("the client connects")
}

async fn round_trips(client: &Client, iters: u64) -> Duration {
    let arguments = match json!({"a": 20, "b": 22}) {
        serde_json::Value::Object(arguments) => arguments,
        _ => unreachable!("a json! object literal is an object"),
    };
    let start = Instant::now();
    for _ in 0..iters {
        let result = client
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments.clone()))
            .await
            .expect("the call succeeds");
        assert_eq!(result.structured_content, Some(json!({"sum": 42})));
    }
    start.elapsed()
}

/// An OTLP/HTTP receiver on loopback that takes every batch (an empty
/// protobuf answer is the default `Export*ServiceResponse`), counting the
/// bytes of spans it took.
fn receiver(runtime: &Runtime) -> (std::net::SocketAddr, Arc<AtomicUsize>) {
    let bytes = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&bytes);
    let addr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let addr = listener.local_addr().expect("bound");
        let answer = || ([("content-type", "application/x-protobuf")], Vec::<u8>::new());
        let traces = move |body: axum::body::Bytes| async move {
            counted.fetch_add(body.len(), Ordering::Relaxed);
            answer()
        };
        let app = axum::Router::new()
            .route("/v1/traces", axum::routing::post(traces))
            .route("/v1/metrics", axum::routing::post(move || async move { answer() }));
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    });
    (addr, bytes)
}

fn otel(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // The receiver on a runtime of its own, so that it takes batches whether or not a benchmark runs.
    let receiving = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let (collector, received) = receiver(&receiving);
    let mut group = c.benchmark_group("tools_call_traced");

    {
        let (layer, telemetry) = Telemetry::new("bench")
            .endpoint(format!("http://{collector}"))
            .metric_interval(Duration::from_secs(1))
            .layer()
            .expect("the pipeline builds");
        let _default = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        let client = runtime.block_on(connect());
        group.bench_function("exported", |b| b.iter_custom(|iters| runtime.block_on(round_trips(&client, iters))));
        telemetry.force_flush();
        // Calls faster than the export fill the bounded queue: what did not fit is counted, not waited for.
        eprintln!(
            "exported: {} bytes of spans received, {} spans dropped at the bounded queue",
            received.load(Ordering::Relaxed),
            telemetry.dropped_spans()
        );
        assert!(received.load(Ordering::Relaxed) > 0, "nothing was exported: the benchmark would measure nothing");
        telemetry.shutdown();
    }
    {
        let (layer, telemetry) = Telemetry::new("bench")
            .endpoint(format!("http://{collector}"))
            .sampler(Sampler::AlwaysOff)
            .metrics(false)
            .layer()
            .expect("the pipeline builds");
        let _default = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        let client = runtime.block_on(connect());
        group.bench_function("sampled_out", |b| b.iter_custom(|iters| runtime.block_on(round_trips(&client, iters))));
        telemetry.shutdown();
    }
    {
        let _default = tracing::subscriber::set_default(tracing_subscriber::registry());
        let client = runtime.block_on(connect());
        group.bench_function("no_subscriber", |b| b.iter_custom(|iters| runtime.block_on(round_trips(&client, iters))));
    }
    group.finish();
}

/// `OTEL_BENCH_CALLS` calls in the mode `OTEL_BENCH_MODE`, once, every span
/// exported (or dropped, and told) before it returns.
fn calls_once(calls: u64) {
    let mode = std::env::var("OTEL_BENCH_MODE").unwrap_or_default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let pipeline = |sampler: Sampler| {
        let collector = std::env::var("OTEL_BENCH_COLLECTOR").expect("OTEL_BENCH_COLLECTOR: the collector's host:port");
        // A queue that holds every span, so that the count is of all of them exported.
        let usize_calls = usize::try_from(calls).unwrap_or(usize::MAX);
        Telemetry::new("bench")
            .endpoint(format!("http://{collector}"))
            .sampler(sampler)
            .max_queue_size(usize_calls.saturating_add(64))
            .layer()
            .expect("the pipeline builds")
    };
    let (dispatch, telemetry) = match mode.as_str() {
        "off" => (tracing::Dispatch::new(tracing_subscriber::registry()), None),
        "sampled_out" => {
            let (layer, telemetry) = pipeline(Sampler::AlwaysOff);
            (tracing::Dispatch::new(tracing_subscriber::registry().with(layer)), Some(telemetry))
        }
        "exported" => {
            let (layer, telemetry) = pipeline(Sampler::AlwaysOn);
            (tracing::Dispatch::new(tracing_subscriber::registry().with(layer)), Some(telemetry))
        }
        other => panic!("OTEL_BENCH_MODE is `{other}`: one of off, sampled_out, exported"),
    };
    let _default = tracing::dispatcher::set_default(&dispatch);
    let client = runtime.block_on(connect());
    runtime.block_on(round_trips(&client, calls));
    runtime.block_on(async { drop(client.cancel().await) });
    if let Some(telemetry) = telemetry {
        let whole = telemetry.shutdown();
        eprintln!(
            "{mode}: {calls} calls, shutdown sent everything: {whole}, {} spans dropped",
            telemetry.dropped_spans()
        );
    }
}

criterion_group!(benches, otel);

fn main() {
    if let Some(calls) = std::env::var("OTEL_BENCH_CALLS").ok().and_then(|calls| calls.parse().ok()) {
        calls_once(calls);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
