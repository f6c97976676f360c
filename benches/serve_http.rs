//! Sequential `tools/call` round trips over Streamable HTTP on loopback: one
//! keep-alive connection, one call at a time, with sessions (the answer is an
//! SSE stream) and stateless (an SSE stream, or `application/json` with
//! `json_response`). The client writes HTTP/1.1 by hand, so the figures are the
//! server's and the loopback's, not a client library's.
//!
//! Before it measures, it prints p50/p90/p99 over 2,000 single calls of each
//! kind: the target is p50 under 2 ms.
//!
//! `cargo bench --bench serve_http`; the README's "Performance" section quotes it.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_contract::prelude::*;
use mcp_contract::server::HttpOptions;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
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

async fn start(options: HttpOptions) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let server = Server::new("bench", "0").tool(Add).build().expect("the server builds");
    tokio::spawn(server.serve_http_on(listener, options.without_signal_handling()));
    addr
}

/// A keep-alive connection, with a session when the server keeps them.
struct Connection {
    stream: BufReader<TcpStream>,
    session: Option<String>,
    body: Vec<u8>,
}

impl Connection {
    async fn open(addr: SocketAddr, sessions: bool) -> Self {
        let stream = TcpStream::connect(addr).await.expect("the server accepts");
        stream.set_nodelay(true).expect("nodelay");
        let mut connection = Self { stream: BufReader::new(stream), session: None, body: Vec::new() };
        let initialize = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
        let session = connection.post(initialize).await;
        if sessions {
            connection.session = Some(session.expect("a session id"));
            connection.post(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        }
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
        group.bench_function(name, |b| {
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
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(4));
    targets = serve_http
}
criterion_main!(benches);
