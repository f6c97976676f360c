//! `tools/call` over Streamable HTTP sessions, one at a time and 8 at once
//! (8 sessions, one keep-alive connection each), with the in-memory stores,
//! with Redis (feature `redis`) and one replica, and with Redis and two
//! replicas behind haproxy (round robin): what the shared store costs a call.
//! The Redis setups run twice: each event stored before it is sent (the
//! default), and written behind its sending (`RedisStore::write_behind`).
//! The client writes HTTP/1.1 by hand: benches/support/http.rs, which the
//! other HTTP benchmarks share.
//!
//! Before timing, it prints what one sequential call costs, over 5,000 calls
//! on one replica, in memory and with Redis: CPU time (`/proc/*/schedstat`)
//! of this process and of `redis-server`, and the Redis commands it ran
//! (`INFO commandstats` before and after).
//!
//! Its group `redis_answer_write` times the one write a call with Redis waits
//! for, alone: through the store, and as the same commands written by hand.
//!
//! It starts its own `redis-server` and `haproxy` on free loopback ports.
//! `cargo bench --features redis --bench replicas`; the guide's "Performance"
//! section quotes it.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_contract::prelude::*;
use mcp_contract::server::{DEFAULT_EVENT_AGE, DEFAULT_EVENTS_PER_STREAM, HttpOptions, RedisStore};
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::EventStore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[path = "support/http.rs"]
mod http;
use http::{Add, Connection};

/// A replica serving `Add`, in memory or on the Redis at `redis`, its
/// events stored before they are sent or, with `write_behind`, while they are.
async fn replica(redis: Option<&str>, write_behind: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let mut server = Server::new("bench", "0").tool(Add);
    if let Some(url) = redis {
        server = server.redis_store(RedisStore::new(url).expect("a Redis URL").write_behind(write_behind));
    }
    let server = server.build().expect("the server builds");
    tokio::spawn(server.serve_http_on(listener, HttpOptions::default().without_signal_handling()));
    addr
}

/// A child process killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_for(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not listen within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn spawn(program: &str, args: &[&str]) -> Process {
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|err| panic!("`{program}` could not start ({err}); install it (`apt-get install {program}`)"));
    Process(child)
}

fn redis() -> (Process, String) {
    let port = free_port();
    let redis = spawn(
        "redis-server",
        &["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    );
    wait_for(port, "redis-server");
    (redis, format!("redis://127.0.0.1:{port}/"))
}

fn haproxy(replicas: &[SocketAddr]) -> (Process, SocketAddr) {
    let port = free_port();
    let servers: String =
        replicas.iter().enumerate().map(|(n, addr)| format!("  server replica{n} {addr}\n")).collect();
    let config = format!(
        "defaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend replicas\n\
         backend replicas\n  balance roundrobin\n{servers}"
    );
    let path = std::env::temp_dir().join(format!("mcp-contract-bench-haproxy-{}.cfg", std::process::id()));
    std::fs::write(&path, config).unwrap();
    let proxy = spawn("haproxy", &["-db", "-f", path.to_str().unwrap()]);
    wait_for(port, "haproxy");
    (proxy, SocketAddr::from(([127, 0, 0, 1], port)))
}

/// The `host:port` of a `redis://host:port/` URL, for a socket of our own.
fn redis_addr(url: &str) -> &str {
    url.trim_start_matches("redis://").trim_end_matches('/')
}

/// Redis's `INFO commandstats`: how many times each command ran, and the
/// microseconds Redis spent running it (`usec`), by command.
fn command_calls(url: &str) -> std::collections::BTreeMap<String, (u64, u64)> {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut redis = std::net::TcpStream::connect(redis_addr(url)).expect("redis-server listens");
    redis.write_all(b"*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n").unwrap();
    let mut reader = BufReader::new(redis);
    let mut header = String::new();
    reader.read_line(&mut header).unwrap();
    let length: usize = header.trim_start_matches('$').trim().parse().expect("a bulk string");
    let mut body = vec![0; length + 2];
    reader.read_exact(&mut body).unwrap();
    String::from_utf8_lossy(&body)
        .lines()
        .filter_map(|line| {
            let (name, stats) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let stat = |key: &str| stats.split(',').find_map(|stat| stat.strip_prefix(key))?.parse().ok();
            Some((name.to_owned(), (stat("calls=")?, stat("usec=")?)))
        })
        .collect()
}

/// Print what `calls` sequential calls cost, per call: the CPU time of this
/// process (client and server) and of `redis-server`, and, with Redis, every
/// command it ran, `MULTI`/`EXEC` included (each `EXEC` closes one round trip),
/// with Redis's own time in it (an `EXEC`'s includes its queued commands').
fn count_per_call(runtime: &tokio::runtime::Runtime, name: &str, addr: SocketAddr, redis: (u32, &str), calls: u64) {
    let mut connection = runtime.block_on(Connection::open(addr, true));
    // Settle the session's first requests (its background writes) first.
    http::time_calls(runtime, &mut connection, 10);
    std::thread::sleep(Duration::from_millis(200));
    let before = (command_calls(redis.1), http::cpu_nanos(std::process::id()), http::cpu_nanos(redis.0));
    http::time_calls(runtime, &mut connection, calls);
    std::thread::sleep(Duration::from_millis(200));
    let after = (command_calls(redis.1), http::cpu_nanos(std::process::id()), http::cpu_nanos(redis.0));
    let per_call = |before: u64, after: u64| (after - before) as f64 / calls as f64 / 1000.0;
    let commands: Vec<String> = after
        .0
        .iter()
        .filter_map(|(command, &(n, usec))| {
            let (n_before, usec_before) = before.0.get(command).copied().unwrap_or_default();
            let (ran, usec) = (n - n_before, usec - usec_before);
            let per_call = |count: u64| count as f64 / calls as f64;
            // `info` is this count itself.
            (ran > 0 && command != "info").then(|| format!("{command} {:.2} ({:.1} µs)", per_call(ran), per_call(usec)))
        })
        .collect();
    eprintln!(
        "{name}, {calls} sequential calls, per call: CPU {:.1} µs here (client and server), {:.1} µs redis-server; \
         Redis commands: {}",
        per_call(before.1, after.1),
        per_call(before.2, after.2),
        if commands.is_empty() { "none".to_owned() } else { commands.join(", ") }
    );
}

/// The message of the event written: a notification, not an answer, so the
/// store marks no call's record (a call answered within 10 ms has none) and
/// sends the commands of a call's answer.
const EVENT: &str = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"sum":3}}}"#;

/// The store's write of one event, as rmcp asks it of a call's answer, to a
/// stream never written before (each call's stream is new), on a task of the
/// runtime, as a call's is.
fn time_store_writes(runtime: &tokio::runtime::Runtime, store: &RedisStore, iters: u64) -> Duration {
    let store = store.clone();
    let message: ServerJsonRpcMessage = serde_json::from_str(EVENT).expect("a notification");
    let event = ServerSseMessage::from_message(message);
    let task = runtime.spawn(async move {
        let start = Instant::now();
        for _ in 0..iters {
            store.store_event(&format!("bench-store-{}", fresh()), &event).await.expect("stored");
        }
        start.elapsed()
    });
    runtime.block_on(task).expect("the task ends")
}

/// The same five commands as the store's write (`MULTI`, `XADD`, `PEXPIRE`,
/// `PUBLISH`, `EXEC`) written by hand on a connection of their own, from a
/// task of the runtime: the round trip and Redis's own work, without the
/// Redis client or the store. Or, not `write`, a `PING`: the bare round trip.
fn time_by_hand(runtime: &tokio::runtime::Runtime, url: &str, write: bool, iters: u64) -> Duration {
    let addr = redis_addr(url).to_owned();
    let message = serde_json::to_string(&serde_json::from_str::<ServerJsonRpcMessage>(EVENT).unwrap()).unwrap();
    let task = runtime.spawn(async move {
        let mut redis = TcpStream::connect(addr).await.expect("redis-server listens");
        redis.set_nodelay(true).unwrap();
        let (mut out, mut reply) = (Vec::new(), vec![0; 512]);
        let (length, age) = (DEFAULT_EVENTS_PER_STREAM.to_string(), DEFAULT_EVENT_AGE.as_millis().to_string());
        let start = Instant::now();
        for _ in 0..iters {
            let n = fresh();
            let (key, wake) = (format!("mcp:bench:events:{n}"), format!("mcp:bench:wake:{n}"));
            out.clear();
            let commands = [
                &["MULTI"][..],
                &["XADD", &key, "MAXLEN", &length, "*", "message", &message],
                &["PEXPIRE", &key, &age],
                &["PUBLISH", &wake, ""],
                &["EXEC"],
            ];
            let (commands, reply_lines) = if write { (&commands[..], 9) } else { (&[&["PING"][..]][..], 1) };
            for &command in commands {
                out.extend_from_slice(format!("*{}\r\n", command.len()).as_bytes());
                for arg in command {
                    out.extend_from_slice(format!("${}\r\n{arg}\r\n", arg.len()).as_bytes());
                }
            }
            redis.write_all(&out).await.unwrap();
            // +OK, +QUEUED three times, then EXEC's *3 of the entry's id
            // ($ and the id), PEXPIRE's :1 and PUBLISH's :0: nine lines.
            let (mut read, mut lines) = (0, 0);
            while lines < reply_lines {
                let got = redis.read(&mut reply[read..]).await.unwrap();
                assert!(got > 0, "redis-server closed the connection");
                lines += reply[read..read + got].iter().filter(|&&byte| byte == b'\n').count();
                read += got;
            }
            let expected: &[u8] = if write { b"+OK\r\n+QUEUED\r\n" } else { b"+PONG\r\n" };
            assert!(reply.starts_with(expected), "{}", String::from_utf8_lossy(&reply[..read]));
        }
        start.elapsed()
    });
    runtime.block_on(task).expect("the task ends")
}

/// A number not used before in this process: each write goes to a new stream.
fn fresh() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn replicas(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (redis_server, url) = redis();
    let redis = Some(url.as_str());
    let (memory, one, two, behind, two_behind) = runtime.block_on(async {
        (
            replica(None, false).await,
            replica(redis, false).await,
            [replica(redis, false).await, replica(redis, false).await],
            replica(redis, true).await,
            [replica(redis, true).await, replica(redis, true).await],
        )
    });
    let (_proxy, proxied) = haproxy(&two);
    let (_proxy_behind, proxied_behind) = haproxy(&two_behind);
    let counted =
        [("memory_one_replica", memory), ("redis_one_replica", one), ("redis_write_behind_one_replica", behind)];
    for (name, addr) in counted {
        count_per_call(&runtime, name, addr, (redis_server.0.id(), &url), 5_000);
    }
    let setups = [
        ("memory_one_replica", memory),
        ("redis_one_replica", one),
        ("redis_two_replicas_haproxy", proxied),
        ("redis_write_behind_one_replica", behind),
        ("redis_write_behind_two_replicas_haproxy", proxied_behind),
    ];

    // What of a sequential call's cost with Redis (above in memory) is its
    // one write: the floor of that cost, beside it in the same run.
    let mut write = c.benchmark_group("redis_answer_write");
    let store = RedisStore::new(&url).expect("a Redis URL");
    write.bench_function("store", |b| b.iter_custom(|iters| time_store_writes(&runtime, &store, iters)));
    write.bench_function("by_hand", |b| b.iter_custom(|iters| time_by_hand(&runtime, &url, true, iters)));
    write.bench_function("ping_by_hand", |b| b.iter_custom(|iters| time_by_hand(&runtime, &url, false, iters)));
    write.finish();

    let mut sequential = c.benchmark_group("http_session_tools_call_sequential");
    for (name, addr) in setups {
        let mut connection = runtime.block_on(Connection::open(addr, true));
        sequential.bench_function(name, |b| b.iter_custom(|iters| http::time_calls(&runtime, &mut connection, iters)));
    }
    sequential.finish();

    // One iteration is 8 calls at once, one per session: the figure is per batch of 8.
    let mut concurrent = c.benchmark_group("http_session_tools_call_8_concurrent");
    for (name, addr) in setups {
        let mut connections = runtime.block_on(futures::future::join_all((0..8).map(|_| Connection::open(addr, true))));
        concurrent.bench_function(name, |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        futures::future::join_all(connections.iter_mut().map(Connection::call)).await;
                    }
                    start.elapsed()
                })
            });
        });
    }
    concurrent.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1)).sample_size(20);
    targets = replicas
}
criterion_main!(benches);
