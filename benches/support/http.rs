//! What the HTTP benchmarks share: the trivial `add` tool, a server on a
//! loopback port, and a keep-alive HTTP/1.1 connection that writes requests by
//! hand, so the figures are the server's and the loopback's, not a client
//! library's.

#![allow(dead_code, reason = "each benchmark uses part of it")]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mcp_contract::prelude::*;
use mcp_contract::server::HttpOptions;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[derive(Deserialize, JsonSchema)]
pub(crate) struct AddInput {
    /// The first addend.
    pub(crate) a: i64,
    /// The second addend.
    pub(crate) b: i64,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub(crate) struct AddOutput {
    /// The sum.
    pub(crate) sum: i64,
}

/// Add two numbers.
#[mcp_tool(annotations(read_only, open_world = false))]
pub(crate) async fn add(input: AddInput) -> Result<AddOutput, McpError> {
    Ok(AddOutput { sum: input.a + input.b })
}

pub(crate) async fn start(options: HttpOptions) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let server = Server::new("bench", "0").tool(Add).build().expect("the server builds");
    tokio::spawn(server.serve_http_on(listener, options.without_signal_handling()));
    addr
}

/// How long `iters` calls on `connection`, one after another, take: what
/// criterion's `iter_custom` asks of a sequential benchmark.
pub(crate) fn time_calls(runtime: &tokio::runtime::Runtime, connection: &mut Connection, iters: u64) -> Duration {
    runtime.block_on(async {
        let start = Instant::now();
        for _ in 0..iters {
            connection.call().await;
        }
        start.elapsed()
    })
}

/// A keep-alive connection, with a session when the server keeps them.
pub(crate) struct Connection {
    stream: BufReader<TcpStream>,
    session: Option<String>,
    body: Vec<u8>,
}

impl Connection {
    pub(crate) async fn open(addr: SocketAddr, sessions: bool) -> Self {
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
    pub(crate) async fn post(&mut self, body: &[u8]) -> Option<String> {
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

    /// `DELETE` the session, as a client does when it is done.
    pub(crate) async fn close(mut self) {
        let Some(session) = self.session.take() else { return };
        let request = format!(
            "DELETE /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: {session}\r\n\
             mcp-protocol-version: 2025-06-18\r\ncontent-length: 0\r\n\r\n"
        );
        self.stream.get_mut().write_all(request.as_bytes()).await.expect("the server reads");
        let mut status = String::new();
        self.stream.read_line(&mut status).await.expect("an answer");
        assert!(status.contains(" 200") || status.contains(" 202") || status.contains(" 204"), "{status}");
    }

    /// Call the `lookup` tool of `benches/server/calls.rs` (which the servers of
    /// other processes serve) for the item `key`, and check its answer.
    pub(crate) async fn lookup(&mut self, key: &str) {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"lookup","arguments":{{"id":"{key}","limit":5}}}}}}"#
        );
        self.post(call.as_bytes()).await;
        let name = format!(r#""item {key}""#);
        assert!(
            self.body.windows(name.len()).any(|window| window == name.as_bytes()),
            "{}",
            String::from_utf8_lossy(&self.body)
        );
    }

    pub(crate) async fn call(&mut self) {
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

/// The CPU time process `pid` has run, every thread, in nanoseconds
/// (`/proc/{pid}/task/*/schedstat`): unlike wall time, it hardly moves with
/// what else the machine runs.
pub(crate) fn cpu_nanos(pid: u32) -> u64 {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("Linux's /proc");
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}
