//! Shared by the test suites: test tools (and `text_tool!` for one of a suite's own), and raw clients over
//! stdio-style lines and HTTP/1.1 that send exactly the bytes a test gives.
#![allow(dead_code, unreachable_pub, reason = "each suite uses part of the support")]

pub mod asking;
pub mod surface;

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use mcp_contract_runtime::__private::run_blocking;
use mcp_contract_runtime::define::{ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{HttpOptions, Server, StdioOptions, ToolServer};
use mcp_contract_runtime::{Context, McpError, Tool};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

/// `XXXXX-XXXXX` of upper-case letters and digits: the form of `data.requestId`.
pub fn is_request_id(id: &str) -> bool {
    id.len() == 11
        && id
            .char_indices()
            .all(|(at, ch)| if at == 5 { ch == '-' } else { ch.is_ascii_uppercase() || ch.is_ascii_digit() })
}

/// An error's `data` (or a whole `{code, message, data}` error) without its
/// `requestId`, which every error carries and is checked here: fresh each
/// time, it is the one thing an exact comparison cannot name. A `data` left
/// empty goes, as an error without the id would have none.
pub fn sans_request_id(value: &Value) -> Value {
    let mut value = value.clone();
    let whole_error = value.get("code").is_some();
    let data = if whole_error { value.get_mut("data") } else { Some(&mut value) };
    let id = data.and_then(Value::as_object_mut).and_then(|data| data.remove("requestId"));
    assert!(id.as_ref().and_then(Value::as_str).is_some_and(is_request_id), "no request id in {value}");
    if whole_error
        && value["data"].as_object().is_some_and(serde_json::Map::is_empty)
        && let Some(error) = value.as_object_mut()
    {
        error.remove("data");
    }
    value
}

/// The longest any single answer may take in these suites.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

pub fn definition<T: schemars::JsonSchema>(name: &'static str) -> ToolDefinition {
    ToolDefinition::new(name, mcp_contract_runtime::schema::input_schema::<T>()).with_description("A test tool.")
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct EchoInput {
    text: String,
    times: Option<u32>,
}

/// Repeats a text: the cheap call.
pub struct Echo;
static ECHO: LazyLock<ToolDefinition> = LazyLock::new(|| definition::<EchoInput>("echo"));

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &ECHO
    }
    async fn call(&self, input: EchoInput, _ctx: Context) -> Result<String, McpError> {
        // Capped: the fuzz suite may ask for any number.
        Ok(input.text.repeat(input.times.unwrap_or(1).min(10) as usize))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct SpinInput {
    millis: u64,
}

/// An `async` handler that computes without ever yielding.
pub struct Spin;
static SPIN: LazyLock<ToolDefinition> = LazyLock::new(|| definition::<SpinInput>("spin"));

impl Tool for Spin {
    type Input = SpinInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &SPIN
    }
    async fn call(&self, input: SpinInput, _ctx: Context) -> Result<String, McpError> {
        let until = Instant::now() + Duration::from_millis(input.millis);
        let mut turns = 0u64;
        while Instant::now() < until {
            turns = std::hint::black_box(turns.wrapping_add(1));
        }
        Ok(format!("spun {turns}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// A plain `fn` handler, as `#[mcp_tool]` runs it: on the blocking pool.
pub struct Grind;
static GRIND: LazyLock<ToolDefinition> = LazyLock::new(|| definition::<SpinInput>("grind"));

impl Tool for Grind {
    type Input = SpinInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &GRIND
    }
    fn call(&self, input: SpinInput, ctx: Context) -> impl Future<Output = Result<String, McpError>> + Send {
        run_blocking(move || {
            let until = Instant::now() + Duration::from_millis(input.millis);
            while Instant::now() < until {
                if ctx.is_cancelled() {
                    return Ok("stopped".to_owned());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok("ground".to_owned())
        })
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Nothing {}

/// A tool named `$name` without arguments whose handler, given its context
/// as `$ctx`, answers `$body` (a `Result<String, McpError>`) as text: the
/// tools of a test about what happens around a call rather than in it.
#[allow(unused_macros, reason = "each suite uses part of the support")]
macro_rules! text_tool {
    ($tool:ident, $name:literal, |$ctx:ident| $body:expr) => {
        struct $tool;
        impl ::mcp_contract_runtime::Tool for $tool {
            type Input = $crate::support::Nothing;
            type Output = String;
            fn definition(&self) -> &'static ::mcp_contract_runtime::define::ToolDefinition {
                static DEFINITION: ::std::sync::LazyLock<::mcp_contract_runtime::define::ToolDefinition> =
                    ::std::sync::LazyLock::new(|| $crate::support::definition::<$crate::support::Nothing>($name));
                &DEFINITION
            }
            async fn call(
                &self,
                _input: $crate::support::Nothing,
                $ctx: ::mcp_contract_runtime::Context,
            ) -> Result<String, ::mcp_contract_runtime::McpError> {
                $body
            }
            fn render(
                &self,
                output: String,
            ) -> Result<::mcp_contract_runtime::define::ToolOutput, ::mcp_contract_runtime::McpError> {
                Ok(::mcp_contract_runtime::define::ToolOutput::text(output))
            }
        }
    };
}
#[allow(unused_imports, reason = "each suite uses part of the support")]
pub(crate) use text_tool;

/// Panics with a message that must stay in the server.
pub struct Explode;
static EXPLODE: LazyLock<ToolDefinition> = LazyLock::new(|| definition::<Nothing>("explode"));

impl Tool for Explode {
    type Input = Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &EXPLODE
    }
    async fn call(&self, _input: Nothing, _ctx: Context) -> Result<String, McpError> {
        panic!("secret at /home/server/src/secret.rs: mcp_contract_runtime::Hidden")
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Refuses its input by quoting it whole in the message, as a careless handler does.
pub struct Refuse;
static REFUSE: LazyLock<ToolDefinition> = LazyLock::new(|| definition::<EchoInput>("refuse"));

impl Tool for Refuse {
    type Input = EchoInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &REFUSE
    }
    async fn call(&self, input: EchoInput, _ctx: Context) -> Result<String, McpError> {
        Err(McpError::validation_error(format!("`{}` is not a word this tool knows", input.text)))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

pub fn server() -> ToolServer {
    Server::new("hardening", "1.0.0")
        .tool(Echo)
        .tool(Refuse)
        .tool(Spin)
        .tool(Grind)
        .tool(Explode)
        .resource(surface::About)
        .resource(surface::ObjectRecord)
        .resource(surface::Loan)
        .resource(surface::Search)
        .prompt(surface::PlanVisit)
        .build()
        .expect("the server builds")
}

pub fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> Vec<u8> {
    let message = json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    message.to_string().into_bytes()
}

pub fn initialize(id: impl Into<Value>) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hardening", "version": "1"}
    }})
    .to_string()
    .into_bytes()
}

/// One stateless 2026-07-28 request (no session) from a client that declares
/// elicitation; `name` is what the `Mcp-Name` header carries (the tool, the
/// URI, the prompt).
pub async fn stateless(addr: std::net::SocketAddr, id: &str, method: &str, name: &str, params: Value) -> Value {
    stateless_with(addr, id, method, name, params, json!({"elicitation": {}})).await
}

/// [`stateless`] from a client that declares `capabilities`.
pub async fn stateless_with(
    addr: std::net::SocketAddr,
    id: &str,
    method: &str,
    name: &str,
    mut params: Value,
    capabilities: Value,
) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "support", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    let headers = [
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name),
    ];
    HttpClient::connect(addr).await.request("POST", &headers, body.as_bytes()).await.message()
}

pub const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Fragments that would mean internals reached the client.
const LEAKS: &[&str] = &["panicked", "secret", ".rs", "src/", "::", "RUST_BACKTRACE", "JsonRpcMessage", "serde"];

/// Fails when `answer` shows a panic, a file path or a Rust type name.
pub fn assert_no_leak(answer: &str) {
    assert_no_leak_beyond(answer, b"");
}

/// Fails when `answer` shows a panic, a file path or a Rust type name that is
/// not in `sent`: an error may quote the client's own text (a URI, a name).
pub fn assert_no_leak_beyond(answer: &str, sent: &[u8]) {
    assert_no_leak_but(answer, &leaks_in(sent));
}

/// The fragments of [`LEAKS`] that `sent` holds.
fn leaks_in(sent: &[u8]) -> Vec<&'static str> {
    let sent = String::from_utf8_lossy(sent);
    LEAKS.iter().copied().filter(|leak| sent.contains(leak)).collect()
}

fn assert_no_leak_but(answer: &str, sent: &[&str]) {
    for leak in LEAKS {
        assert!(!answer.contains(leak) || sent.contains(leak), "the answer leaks `{leak}`: {}", cut(answer));
    }
}

pub fn cut(text: &str) -> String {
    text.chars().take(400).collect()
}

// ---------------------------------------------------------------- stdio

/// A client writing raw lines to a server served with `ToolServer::serve_io`.
pub struct LineClient {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
    /// The leak fragments of a message whose text the answers may quote; see
    /// [`assert_no_leak_beyond`].
    echo: Vec<&'static str>,
}

impl LineClient {
    /// A served connection, initialized.
    pub async fn start() -> Self {
        Self::start_with(StdioOptions::default().without_signal_handling()).await.0
    }

    /// A served connection with `options`, initialized, and the task serving it.
    pub async fn start_with(
        options: StdioOptions,
    ) -> (Self, tokio::task::JoinHandle<Result<(), mcp_contract_runtime::server::ServerError>>) {
        Self::serving(server(), options).await
    }

    /// [`start_with`](Self::start_with) for a server of the test's own.
    pub async fn serving(
        server: ToolServer,
        options: StdioOptions,
    ) -> (Self, tokio::task::JoinHandle<Result<(), mcp_contract_runtime::server::ServerError>>) {
        let (client, server_side) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_side);
        let served = tokio::spawn(server.serve_io_with(read, write, options));
        let (read, write) = tokio::io::split(client);
        let mut client = Self { write, read: BufReader::new(read), echo: Vec::new() };
        client.send(&initialize("init")).await;
        let answer = client.next().await;
        assert_eq!(answer["id"], "init", "{answer}");
        client.send(INITIALIZED).await;
        (client, served)
    }

    /// Send `bytes` and a newline.
    pub async fn send(&mut self, bytes: &[u8]) {
        self.write.write_all(bytes).await.expect("the server reads");
        self.write.write_all(b"\n").await.expect("the server reads");
        self.write.flush().await.expect("the server reads");
    }

    /// Write `bytes` as they are, in one write.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.write.write_all(bytes).await.expect("the server reads");
        self.write.flush().await.expect("the server reads");
    }

    /// The next line from the server, parsed; `None` once it closed its
    /// output. Fails after [`ANSWER_TIMEOUT`].
    pub async fn next_or_end(&mut self) -> Option<Value> {
        let mut line = String::new();
        let read = tokio::time::timeout(ANSWER_TIMEOUT, self.read.read_line(&mut line)).await;
        let read = read.expect("the server answers or closes in time").expect("the server's output is readable");
        if read == 0 {
            return None;
        }
        Some(serde_json::from_str(&line).unwrap_or_else(|err| panic!("the server wrote invalid JSON ({err}): {line}")))
    }

    /// Let the next answers quote `message`'s text, fragments that would be
    /// leaks included: the client sent them.
    pub fn allow_echo(&mut self, message: &[u8]) {
        self.echo = leaks_in(message);
    }

    /// The next line from the server, parsed; fails after [`ANSWER_TIMEOUT`].
    pub async fn next(&mut self) -> Value {
        self.next_within(ANSWER_TIMEOUT).await.expect("the server answers in time")
    }

    pub async fn next_within(&mut self, timeout: Duration) -> Option<Value> {
        let mut line = String::new();
        let read = tokio::time::timeout(timeout, self.read.read_line(&mut line)).await.ok()?;
        assert!(read.expect("the server's output is readable") > 0, "the server closed its output");
        assert_no_leak_but(&line, &self.echo);
        Some(serde_json::from_str(&line).unwrap_or_else(|err| panic!("the server wrote invalid JSON ({err}): {line}")))
    }
}

// ---------------------------------------------------------------- HTTP

/// An HTTP server on a loopback port the system chose; stopped when dropped.
pub struct HttpServer {
    pub addr: std::net::SocketAddr,
    pub stop: CancellationToken,
    pub served: Option<tokio::task::JoinHandle<Result<(), mcp_contract_runtime::server::ServerError>>>,
}

impl HttpServer {
    pub async fn start(options: HttpOptions) -> Self {
        Self::serving(server(), options).await
    }

    /// [`start`](Self::start) for a server of the test's own.
    pub async fn serving(server: ToolServer, options: HttpOptions) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let addr = listener.local_addr().expect("bound");
        let stop = CancellationToken::new();
        let options = options.shutdown_token(stop.clone()).without_signal_handling();
        let served = Some(tokio::spawn(server.serve_http_on(listener, options)));
        Self { addr, stop, served }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The request's body, whose text the answer may quote.
    pub sent: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The JSON-RPC messages of the body: the body itself, or an SSE stream's data events.
    pub fn messages(&self) -> Vec<Value> {
        let text = self.text();
        assert_no_leak_beyond(&text, &self.sent);
        if self.header("content-type").is_some_and(|kind| kind.starts_with("text/event-stream")) {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .filter(|data| !data.is_empty())
                .map(|data| serde_json::from_str(data).expect("an SSE data event is JSON"))
                .collect()
        } else if text.trim().is_empty() {
            Vec::new()
        } else {
            vec![serde_json::from_str(&text).unwrap_or_else(|err| panic!("not JSON ({err}): {}", cut(&text)))]
        }
    }

    /// The one JSON-RPC answer of the body.
    pub fn message(&self) -> Value {
        let mut messages = self.messages();
        assert_eq!(messages.len(), 1, "one message expected: {}", cut(&self.text()));
        messages.remove(0)
    }
}

/// A keep-alive HTTP/1.1 connection that writes requests byte for byte.
pub struct HttpClient {
    stream: BufReader<TcpStream>,
    pub session: Option<String>,
    pub path: String,
}

impl HttpClient {
    pub async fn connect(addr: std::net::SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).await.expect("the server accepts");
        stream.set_nodelay(true).expect("nodelay");
        Self { stream: BufReader::new(stream), session: None, path: "/mcp".to_owned() }
    }

    /// A connection from `local`, another loopback address than 127.0.0.1.
    pub async fn connect_from(addr: std::net::SocketAddr, local: std::net::IpAddr) -> Self {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket.bind(std::net::SocketAddr::new(local, 0)).expect("a loopback address to bind");
        let stream = socket.connect(addr).await.expect("the server accepts");
        stream.set_nodelay(true).expect("nodelay");
        Self { stream: BufReader::new(stream), session: None, path: "/mcp".to_owned() }
    }

    /// A connection with an initialized session.
    pub async fn session(addr: std::net::SocketAddr) -> Self {
        let mut client = Self::connect(addr).await;
        let answer = client.post(&initialize(0)).await;
        assert_eq!(answer.status, 200, "{}", answer.text());
        client.session = Some(answer.header("mcp-session-id").expect("a session id").to_owned());
        let answer = client.post(INITIALIZED).await;
        assert_eq!(answer.status, 202, "{}", answer.text());
        client
    }

    /// [`post`](Self::post) owning the client and the body, for a spawned
    /// task: the status and the JSON-RPC messages of the answer.
    pub async fn post_owned(mut self, body: Vec<u8>) -> (u16, Vec<Value>) {
        let answer = self.post(&body).await;
        (answer.status, answer.messages())
    }

    pub async fn post(&mut self, body: &[u8]) -> Answer {
        self.request("POST", &[("content-type", "application/json")], body).await
    }

    pub async fn request(&mut self, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
        let mut head = format!(
            "{method} {} HTTP/1.1\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
            self.path,
            body.len()
        );
        // A test may send a `Host` of its own instead.
        if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
            head.push_str("host: 127.0.0.1\r\n");
        }
        if let Some(session) = &self.session {
            head.push_str(&format!("mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n"));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        let stream = self.stream.get_mut();
        stream.write_all(&bytes).await.expect("the server reads");
        let mut answer =
            tokio::time::timeout(ANSWER_TIMEOUT, self.read_answer()).await.expect("the server answers in time");
        answer.sent = body.to_vec();
        answer
    }

    async fn read_answer(&mut self) -> Answer {
        let mut status_line = String::new();
        self.stream.read_line(&mut status_line).await.expect("readable");
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP status line: {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).await.expect("readable");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header line");
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let mut answer = Answer { status, headers, body: Vec::new(), sent: Vec::new() };
        if let Some(length) = answer.header("content-length") {
            let mut body = vec![0; length.parse().expect("a length")];
            self.stream.read_exact(&mut body).await.expect("the body");
            answer.body = body;
        } else if answer.header("transfer-encoding").is_some_and(|coding| coding.contains("chunked")) {
            loop {
                let mut size = String::new();
                self.stream.read_line(&mut size).await.expect("a chunk size");
                let size = usize::from_str_radix(size.trim(), 16).expect("a hex chunk size");
                let mut chunk = vec![0; size + 2];
                self.stream.read_exact(&mut chunk).await.expect("a chunk");
                if size == 0 {
                    break;
                }
                answer.body.extend_from_slice(&chunk[..size]);
            }
        }
        answer
    }

    /// Whether the server closed the connection within `timeout`.
    pub async fn closed_within(&mut self, timeout: Duration) -> bool {
        let mut byte = [0u8; 1];
        matches!(tokio::time::timeout(timeout, self.stream.read(&mut byte)).await, Ok(Ok(0) | Err(_)))
    }

    /// Everything the server sends until it closes (or `timeout` passes).
    pub async fn read_to_end_within(&mut self, timeout: Duration) -> Vec<u8> {
        let mut bytes = Vec::new();
        let _ = tokio::time::timeout(timeout, self.stream.read_to_end(&mut bytes)).await;
        bytes
    }

    pub async fn write_raw(&mut self, bytes: &[u8]) {
        self.stream.get_mut().write_all(bytes).await.expect("writable");
    }
}
