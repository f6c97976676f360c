//! Sequential `tools/call` round trips over Streamable HTTP on loopback: one
//! keep-alive connection, one call at a time, with sessions (the answer is an
//! SSE stream) and stateless (an SSE stream, or `application/json` with
//! `json_response`). The client writes HTTP/1.1 by hand, so the figures are the
//! server's and the loopback's, not a client library's.
//!
//! Before it measures, it prints p50/p90/p99 over 2,000 single calls of each
//! kind: the target is p50 under 2 ms.
//!
//! `cargo bench --bench serve_http`; the guide's Performance chapter (guide/src/performance.md) quotes it.

#[path = "support/http.rs"]
mod http;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use http::{Connection, start};
use mcp_contract::server::HttpOptions;
use tokio::runtime::Runtime;

const KINDS: [(&str, bool, bool); 3] =
    [("sessions_sse", false, false), ("stateless_sse", true, false), ("stateless_json", true, true)];

async fn connect(stateless: bool, json: bool) -> Connection {
    let addr = start(HttpOptions::default().stateless(stateless).json_response(json)).await;
    Connection::open(addr, !stateless).await
}

fn percentiles(runtime: &Runtime) {
    for (name, stateless, json) in KINDS {
        let mut times = runtime.block_on(async {
            let mut connection = connect(stateless, json).await;
            let mut times = Vec::with_capacity(2000);
            for _ in 0..2000 {
                let start = Instant::now();
                connection.call().await;
                times.push(start.elapsed());
            }
            times
        });
        times.sort();
        let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
        eprintln!(
            "{name}: p50 {:?}, p90 {:?}, p99 {:?} over {} sequential calls",
            at(0.5),
            at(0.9),
            at(0.99),
            times.len()
        );
    }
}

fn serve_http(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    percentiles(&runtime);
    let mut group = c.benchmark_group("http_tools_call_sequential");
    for (name, stateless, json) in KINDS {
        let mut connection = runtime.block_on(connect(stateless, json));
        group.bench_function(name, |b| b.iter_custom(|iters| http::time_calls(&runtime, &mut connection, iters)));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(4));
    targets = serve_http
}
criterion_main!(benches);
