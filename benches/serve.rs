//! `tools/call` round trips through rmcp over an in-process duplex pipe: a
//! trivial tool served by mcp-contract's server against the same tool written
//! directly with rmcp's `#[tool]` macro. Both answer with structured content and
//! a text block; the client is rmcp's own. The difference is the overhead of
//! this crate's layer (argument decoding with paths, panic and cancellation
//! guards, rendering).
//!
//! `cargo bench --bench serve`; the guide's Performance chapter (guide/src/performance.md) quotes it.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_contract::prelude::*;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServerHandler, ServiceExt, tool, tool_router};
use serde_json::json;
use tokio::runtime::Runtime;

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

/// The same tool, written directly with rmcp's macros.
#[derive(Clone)]
struct PlainRmcp;

#[tool_router(server_handler)]
impl PlainRmcp {
    #[tool(description = "Add two numbers.")]
    async fn add(&self, Parameters(input): Parameters<AddInput>) -> Result<Json<AddOutput>, rmcp::ErrorData> {
        Ok(Json(AddOutput { sum: input.a + input.b }))
    }
}

type Client = RunningService<RoleClient, ()>;

async fn connect<S: ServerHandler>(server: S) -> Client {
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

fn serve(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ours = runtime.block_on(connect(Server::new("bench", "0").tool(Add).build().unwrap()));
    let plain = runtime.block_on(connect(PlainRmcp));

    let mut group = c.benchmark_group("tools_call_round_trip");
    group.bench_function("mcp_contract", |b| b.iter_custom(|iters| block_on(&runtime, &ours, iters)));
    group.bench_function("rmcp_tool_macro", |b| b.iter_custom(|iters| block_on(&runtime, &plain, iters)));
    group.finish();
}

fn block_on(runtime: &Runtime, client: &Client, iters: u64) -> Duration {
    runtime.block_on(round_trips(client, iters))
}

criterion_group!(benches, serve);
criterion_main!(benches);
