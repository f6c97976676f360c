//! `tools/call` over Streamable HTTP sessions, one at a time and 8 at once
//! (8 sessions, one keep-alive connection each), with the in-memory stores,
//! with Redis (feature `redis`) and one replica, and with Redis and two
//! replicas behind haproxy (round robin): what the shared store costs a call.
//! The client writes HTTP/1.1 by hand, as benches/serve_http.rs does.
//!
//! It starts its own `redis-server` and `haproxy` on free loopback ports.
//! `cargo bench --features redis --bench replicas`; the README's "Performance"
//! section quotes it.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_contract::prelude::*;
use mcp_contract::server::{HttpOptions, RedisStore};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

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

async fn replica(redis: Option<&str>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let mut server = Server::new("bench", "0").tool(Add);
    if let Some(url) = redis {
        server = server.redis_store(RedisStore::new(url).expect("a Redis URL"));
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

/// A keep-alive connection with a session of its own.
struct Connection {
    stream: BufReader<TcpStream>,
    session: Option<String>,
    body: Vec<u8>,
}

impl Connection {
    async fn open(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).await.expect("the server accepts");
        stream.set_nodelay(true).expect("nodelay");
        let mut connection = Self { stream: BufReader::new(stream), session: None, body: Vec::new() };
        let initialize = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
        connection.session = Some(connection.post(initialize).await.expect("a session id"));
        connection.post(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        connection
    }

    /// POST `body`; returns the session id header, if any, and keeps the answer's body.
    async fn post(&mut self, body: &[u8]) -> Option<String> {
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\n\
             content-type: application/json\r\ncontent-length: {}\r\n",
            body.len()
        );
        if let Some(session) = &self.session {
            request.push_str(&format!("mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n"));
        }
        request.push_str("\r\n");
        let mut bytes = request.into_bytes();
        bytes.extend_from_slice(body);
        self.stream.get_mut().write_all(&bytes).await.expect("the server reads");

        let (mut session, mut length, mut chunked) = (None, None, false);
        let mut line = String::new();
        loop {
            line.clear();
            self.stream.read_line(&mut line).await.expect("an answer");
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let lower = header.to_ascii_lowercase();
            if let Some(value) = lower.strip_prefix("content-length:") {
                length = value.trim().parse().ok();
            } else if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            } else if lower.starts_with("mcp-session-id:") {
                session = header.split_once(':').map(|(_, value)| value.trim().to_owned());
            }
        }
        self.body.clear();
        if let Some(length) = length {
            self.body.resize(length, 0);
            self.stream.read_exact(&mut self.body).await.expect("the body");
        } else if chunked {
            loop {
                line.clear();
                self.stream.read_line(&mut line).await.expect("a chunk size");
                let size = usize::from_str_radix(line.trim(), 16).expect("a hex size");
                let start = self.body.len();
                self.body.resize(start + size + 2, 0);
                self.stream.read_exact(&mut self.body[start..]).await.expect("a chunk");
                self.body.truncate(start + size);
                if size == 0 {
                    break;
                }
            }
        }
        session
    }

    async fn call(&mut self) {
        self.post(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22}}}"#,
        )
        .await;
        assert!(
            self.body.windows(10).any(|window| window == br#"{"sum":42}"#),
            "{}",
            String::from_utf8_lossy(&self.body)
        );
    }
}

fn replicas(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (_redis, url) = redis();
    let (memory, one, two) = runtime.block_on(async {
        (replica(None).await, replica(Some(&url)).await, [replica(Some(&url)).await, replica(Some(&url)).await])
    });
    let (_proxy, proxied) = haproxy(&two);
    let setups = [("memory_one_replica", memory), ("redis_one_replica", one), ("redis_two_replicas_haproxy", proxied)];

    let mut sequential = c.benchmark_group("http_session_tools_call_sequential");
    for (name, addr) in setups {
        let mut connection = runtime.block_on(Connection::open(addr));
        sequential.bench_function(name, |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        connection.call().await;
                    }
                    start.elapsed()
                })
            });
        });
    }
    sequential.finish();

    // One iteration is 8 calls at once, one per session: the figure is per batch of 8.
    let mut concurrent = c.benchmark_group("http_session_tools_call_8_concurrent");
    for (name, addr) in setups {
        let mut connections = runtime.block_on(futures::future::join_all((0..8).map(|_| Connection::open(addr))));
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
