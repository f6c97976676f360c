//! Load over Streamable HTTP on loopback: 64 sessions at once, each on its
//! own keep-alive connection, each making 100 `tools/call`s one after another
//! (6,400 calls a round), against a trivial `add` tool with the default
//! `HttpOptions`. Every answer is checked, so a round with an error fails.
//!
//! Before criterion measures whole rounds, it prints one round's wall time,
//! throughput and per-call p50/p90/p99/max.
//!
//! `cargo bench --bench load_http`; the guide's Performance chapter (guide/src/performance.md) quotes it.

#[path = "support/http.rs"]
mod http;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use http::{Connection, start};
use mcp_contract::server::HttpOptions;

const SESSIONS: usize = 64;
const CALLS: usize = 100;

/// One round: every session's calls, at once, then each session closed; each
/// call's time, and the round's (opening the sessions not included).
async fn round(addr: SocketAddr) -> (Vec<Duration>, Duration) {
    let mut connections = Vec::with_capacity(SESSIONS);
    for _ in 0..SESSIONS {
        connections.push(Connection::open(addr, true).await);
    }
    let started = Instant::now();
    let sessions: Vec<_> = connections
        .into_iter()
        .map(|mut connection| {
            tokio::spawn(async move {
                let mut times = Vec::with_capacity(CALLS);
                for _ in 0..CALLS {
                    let start = Instant::now();
                    connection.call().await;
                    times.push(start.elapsed());
                }
                connection.close().await;
                times
            })
        })
        .collect();
    let mut times = Vec::with_capacity(SESSIONS * CALLS);
    for session in sessions {
        times.extend(session.await.expect("every call of the session was answered"));
    }
    (times, started.elapsed())
}

fn load_http(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    // Every session is a connection of 127.0.0.1: the per-client cap (64) is
    // for production, where one address is one client.
    let addr = runtime.block_on(start(HttpOptions::default().max_connections_per_client(512)));
    let (mut times, wall) = runtime.block_on(round(addr));
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    eprintln!(
        "{SESSIONS} sessions x {CALLS} calls: {:?} wall, {:.0} calls/s; per call p50 {:?}, p90 {:?}, p99 {:?}, max {:?}",
        wall,
        times.len() as f64 / wall.as_secs_f64(),
        at(0.5),
        at(0.9),
        at(0.99),
        times[times.len() - 1]
    );
    let mut group = c.benchmark_group("http_load");
    // A round takes seconds: the same one round per sample, ten samples.
    group.sample_size(10).sampling_mode(criterion::SamplingMode::Flat);
    group.bench_function("64_sessions_x_100_calls", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += round(addr).await.1;
                }
                total
            })
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    targets = load_http
}
criterion_main!(benches);
