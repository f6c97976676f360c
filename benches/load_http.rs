//! Load over Streamable HTTP on loopback: 64 sessions at once, each on its
//! own keep-alive connection, each making 100 `tools/call`s one after another
//! (6,400 calls a round). Every answer is checked, so a round with an error
//! fails.
//!
//! `cargo bench --bench load_http` serves a trivial `add` tool with the
//! default `HttpOptions` in this process; before criterion measures whole
//! rounds, it prints one round's wall time, throughput and per-call
//! p50/p90/p99/max.
//!
//! Its rounds are also the load generator of `benches/http_load.py`, which
//! puts this crate, rmcp's own Streamable HTTP server and the TypeScript
//! reference side by side, each a process of its own:
//! - `LOAD_PORT=<port>` drives the server on that loopback port, calling the
//!   `lookup` tool of `benches/server/calls.rs` (which all three serve), for
//!   `LOAD_ROUNDS` rounds (6), and prints a line per round: its figures, and
//!   the CPU time per call of this process and of `LOAD_SERVER_PID`'s;
//! - `LOAD_CANNED=1` is the server that measures the generator's own
//!   ceiling: it answers every request with a fixed text, parsing no JSON,
//!   on one thread, prints `listening on <port>` and serves until its stdin
//!   ends.
//!
//! The guide's Performance chapter (guide/src/performance.md) quotes both.

#[path = "support/http.rs"]
mod http;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use http::{Connection, cpu_nanos, start};
use mcp_contract::server::HttpOptions;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

const SESSIONS: usize = 64;
const CALLS: usize = 100;

/// The tool the calls of a round call.
#[derive(Clone, Copy)]
enum Tool {
    /// `add`, the tool of the server in this process.
    Add,
    /// `lookup`, of `benches/server/calls.rs`, each call for an item of its own.
    Lookup,
}

/// One round: every session's calls, at once, then each session closed; each
/// call's time, and the round's (opening the sessions not included).
async fn round(addr: SocketAddr, tool: Tool) -> (Vec<Duration>, Duration) {
    let mut connections = Vec::with_capacity(SESSIONS);
    for _ in 0..SESSIONS {
        connections.push(Connection::open(addr, true).await);
    }
    let started = Instant::now();
    let sessions: Vec<_> = connections
        .into_iter()
        .enumerate()
        .map(|(session, mut connection)| {
            tokio::spawn(async move {
                let mut times = Vec::with_capacity(CALLS);
                for call in 0..CALLS {
                    let start = Instant::now();
                    match tool {
                        Tool::Add => connection.call().await,
                        Tool::Lookup => connection.lookup(&format!("s{session}c{call}")).await,
                    }
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

/// A round's wall time, throughput and per-call quantiles, on one line.
fn figures(mut times: Vec<Duration>, wall: Duration) -> String {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    format!(
        "{:?} wall, {:.0} calls/s; per call p50 {:?}, p90 {:?}, p99 {:?}, max {:?}",
        wall,
        times.len() as f64 / wall.as_secs_f64(),
        at(0.5),
        at(0.9),
        at(0.99),
        times[times.len() - 1]
    )
}

fn load_http(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    // Every session is a connection of 127.0.0.1: the per-client cap (64) is
    // for production, where one address is one client.
    let addr = runtime.block_on(start(HttpOptions::default().max_connections_per_client(512)));
    let (times, wall) = runtime.block_on(round(addr, Tool::Add));
    eprintln!("{SESSIONS} sessions x {CALLS} calls: {}", figures(times, wall));
    let mut group = c.benchmark_group("http_load");
    // A round takes seconds: the same one round per sample, ten samples.
    group.sample_size(10).sampling_mode(criterion::SamplingMode::Flat);
    group.bench_function("64_sessions_x_100_calls", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += round(addr, Tool::Add).await.1;
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
/// `LOAD_PORT`: the rounds against a server of another process, as
/// `benches/http_load.py` runs them.
fn drive(port: u16) {
    let rounds = std::env::var("LOAD_ROUNDS").ok().and_then(|rounds| rounds.parse().ok()).unwrap_or(6);
    let server: Option<u32> = std::env::var("LOAD_SERVER_PID").ok().and_then(|pid| pid.parse().ok());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let cpu = || (cpu_nanos(std::process::id()), server.map_or(0, cpu_nanos));
    for number in 1..=rounds {
        // The last round's connections are closed by now on the server too
        // (this crate admits 64 at once from one address by default).
        std::thread::sleep(Duration::from_millis(300));
        let before = cpu();
        let (times, wall) = runtime.block_on(round(addr, Tool::Lookup));
        let after = cpu();
        let per_call = |before: u64, after: u64| (after - before) as f64 / (SESSIONS * CALLS) as f64 / 1000.0;
        eprintln!(
            "round {number}: {}; CPU per call {:.1} µs generator, {:.1} µs server",
            figures(times, wall),
            per_call(before.0, after.0),
            per_call(before.1, after.1)
        );
    }
}

/// `LOAD_CANNED`: a server that costs next to nothing, so that a round
/// against it shows what the generator itself can do on this machine. It
/// answers `initialize` with a session, a notification with 202, `DELETE`
/// with 200 and a `tools/call` of `lookup` with the result `benches/server/calls.rs`
/// gives, found by text, not by parsing.
fn canned() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        eprintln!("listening on {}", listener.local_addr().expect("bound").port());
        let serve = async {
            loop {
                let (stream, _) = listener.accept().await.expect("a connection");
                stream.set_nodelay(true).expect("nodelay");
                tokio::spawn(answer_canned(stream));
            }
        };
        // Until stdin ends, as the servers of benches/server/calls.rs.
        let stdin = tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink()));
        tokio::select! {
            () = serve => {}
            _ = stdin => {}
        }
    });
}

async fn answer_canned(stream: TcpStream) {
    let mut stream = BufReader::new(stream);
    let (mut line, mut body) = (String::new(), Vec::new());
    loop {
        let mut length = 0;
        line.clear();
        if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        let delete = line.starts_with("DELETE");
        loop {
            line.clear();
            if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        body.resize(length, 0);
        if stream.read_exact(&mut body).await.is_err() {
            return;
        }
        let text = String::from_utf8_lossy(&body);
        let (head, answer) = if delete {
            ("200 OK", String::new())
        } else if text.contains(r#""method":"initialize""#) {
            (
                "200 OK\r\nmcp-session-id: canned",
                r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"0"}}}"#.to_owned(),
            )
        } else if let Some((_, rest)) = text.split_once(r#""arguments":{"id":""#) {
            let key = rest.split('"').next().unwrap_or_default();
            (
                "200 OK",
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"item {key}: 5"}}],"structuredContent":{{"name":"item {key}","count":5}}}}}}"#
                ),
            )
        } else {
            ("202 Accepted", String::new())
        };
        let response = format!(
            "HTTP/1.1 {head}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if stream.get_mut().write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

fn main() {
    if let Some(port) = std::env::var("LOAD_PORT").ok().and_then(|port| port.parse().ok()) {
        drive(port);
    } else if std::env::var_os("LOAD_CANNED").is_some() {
        canned();
    } else {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
}
