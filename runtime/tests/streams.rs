//! A call's response stream over Streamable HTTP, read as raw HTTP: the
//! call's logs ride it (never the standalone GET stream), the client's log
//! level decides what is sent (`logging/setLevel` on 2025 sessions, the
//! request's `_meta` on 2026-07-28), and a call that closes it for SSE polling
//! (SEP-1699) is resumed with `Last-Event-ID` from the event store.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use mcp_contract_runtime::define::{ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{
    EventId, EventStore, EventStoreError, EventStream, HttpOptions, MemoryEventStore, Server, ServerSseMessage,
    ToolServer,
};
use mcp_contract_runtime::{Context, LogLevel, McpError, Tool};
use serde::Deserialize;
use serde_json::{Value, json};
use support::{Answer, HttpClient, HttpServer, call};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Deserialize, schemars::JsonSchema)]
struct Nothing {}

fn definition(name: &'static str) -> ToolDefinition {
    ToolDefinition::new(name, mcp_contract_runtime::schema::input_schema::<Nothing>()).with_description("A test tool.")
}

/// Logs at info and at debug, then answers.
struct Chatty;
static CHATTY: LazyLock<ToolDefinition> = LazyLock::new(|| definition("chatty"));

impl Tool for Chatty {
    type Input = Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &CHATTY
    }
    async fn call(&self, _input: Nothing, ctx: Context) -> Result<String, McpError> {
        ctx.log(LogLevel::Info, "chatty started").await;
        ctx.log(LogLevel::Debug, "chatty detail").await;
        Ok("chatty done".to_owned())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Logs, closes its stream, logs again while nobody listens, then answers
/// whether the stream was closed.
struct Poll;
static POLL: LazyLock<ToolDefinition> = LazyLock::new(|| definition("poll"));

impl Tool for Poll {
    type Input = Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &POLL
    }
    async fn call(&self, _input: Nothing, ctx: Context) -> Result<String, McpError> {
        ctx.log(LogLevel::Info, "before closing").await;
        let closed = ctx.close_sse_stream().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LogLevel::Info, "while closed").await;
        Ok(format!("closed: {closed}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Takes its time, and knows nothing of streams.
struct Slow;
static SLOW: LazyLock<ToolDefinition> = LazyLock::new(|| definition("slow"));

impl Tool for Slow {
    type Input = Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &SLOW
    }
    async fn call(&self, _input: Nothing, _ctx: Context) -> Result<String, McpError> {
        tokio::time::sleep(Duration::from_millis(400)).await;
        Ok("slow done".to_owned())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Answers at once, and logs from a job of its own after its answer, as a
/// task's handler does.
struct Later;
static LATER: LazyLock<ToolDefinition> = LazyLock::new(|| definition("later"));

impl Tool for Later {
    type Input = Nothing;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &LATER
    }
    async fn call(&self, _input: Nothing, ctx: Context) -> Result<String, McpError> {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.log(LogLevel::Info, "after the answer").await;
        });
        Ok("answered".to_owned())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

fn server() -> ToolServer {
    Server::new("streams", "1.0.0").tool(Chatty).tool(Poll).tool(Slow).tool(Later).build().expect("the server builds")
}

/// The data of the answer's log messages, in order.
fn logs(answer: &Answer) -> Vec<String> {
    answer
        .messages()
        .iter()
        .filter(|message| message["method"] == "notifications/message")
        .map(|message| message["params"]["data"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The text of the answer's tool result, if it has one.
fn result_text(answer: &Answer) -> Option<String> {
    answer.messages().iter().find_map(|message| message["result"]["content"][0]["text"].as_str().map(str::to_owned))
}

/// The last SSE event id of the answer.
fn last_event_id(answer: &Answer) -> Option<String> {
    answer.text().lines().filter_map(|line| line.strip_prefix("id:")).map(|id| id.trim().to_owned()).next_back()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calls_logs_ride_its_own_response_stream_before_its_answer() {
    let server = HttpServer::serving(server(), HttpOptions::default()).await;
    // No GET stream is ever opened: what the client hears comes on the POST.
    let mut client = HttpClient::session(server.addr).await;
    let answer = client.post(&call(1, "chatty", json!({}))).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    let messages = answer.messages();
    assert_eq!(logs(&answer), ["chatty started"], "info passes the default level, debug does not: {messages:?}");
    let log_at = messages.iter().position(|message| message["method"] == "notifications/message");
    let answer_at = messages.iter().position(|message| message["id"] == 1);
    assert!(log_at < answer_at && answer_at.is_some(), "the log comes before the answer: {messages:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_set_level_is_honoured_on_a_2025_session() {
    let server = HttpServer::serving(server(), HttpOptions::default()).await;
    let mut client = HttpClient::session(server.addr).await;
    for (level, expected) in [("debug", &["chatty started", "chatty detail"][..]), ("error", &[][..])] {
        let set = json!({"jsonrpc": "2.0", "id": 10, "method": "logging/setLevel", "params": {"level": level}});
        let answer = client.post(set.to_string().as_bytes()).await;
        assert_eq!(answer.status, 200, "{}", answer.text());
        let answer = client.post(&call(11, "chatty", json!({}))).await;
        assert_eq!(logs(&answer), expected, "at level {level}");
        assert_eq!(result_text(&answer).as_deref(), Some("chatty done"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_request_gets_logs_only_at_the_level_its_meta_asks_for() {
    let server = HttpServer::serving(server(), HttpOptions::default().stateless(true)).await;
    let mut client = HttpClient::connect(server.addr).await;
    let headers = [
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "chatty"),
    ];
    let cases: [(Option<&str>, &[&str]); 4] = [
        (None, &[]),
        (Some("debug"), &["chatty started", "chatty detail"]),
        (Some("info"), &["chatty started"]),
        (Some("warning"), &[]),
    ];
    for (id, (level, expected)) in cases.into_iter().enumerate() {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "streams", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        if let Some(level) = level {
            meta["io.modelcontextprotocol/logLevel"] = Value::from(level);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "chatty", "arguments": {}, "_meta": meta}});
        let answer = client.request("POST", &headers, body.to_string().as_bytes()).await;
        assert_eq!(answer.status, 200, "{}", answer.text());
        assert_eq!(logs(&answer), expected, "with logLevel {level:?}");
        assert_eq!(result_text(&answer).as_deref(), Some("chatty done"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_closes_its_stream_is_resumed_with_last_event_id() {
    let server = HttpServer::serving(server(), HttpOptions::default().sse_retry(Duration::from_millis(250))).await;
    let mut client = HttpClient::session(server.addr).await;
    let answer = client.post(&call(1, "poll", json!({}))).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    let text = answer.text();
    assert!(text.starts_with("data:") && text.contains("retry: 250"), "a priming event with the retry hint: {text}");
    assert_eq!(logs(&answer), ["before closing"]);
    assert_eq!(result_text(&answer), None, "the stream ends before the answer: {text}");
    let last = last_event_id(&answer).expect("the closed stream's events have ids");

    // The client comes back as SEP-1699 says: GET with the last id it saw.
    let resumed = client.request("GET", &[("last-event-id", &last)], b"").await;
    assert_eq!(resumed.status, 200, "{}", resumed.text());
    assert_eq!(logs(&resumed), ["while closed"], "what the call sent while the stream was closed");
    assert_eq!(result_text(&resumed).as_deref(), Some("closed: true"), "{}", resumed.text());

    // An id the server never gave out resumes nothing, from no stream.
    let foreign = client.request("GET", &[("last-event-id", "0123456789abcdef0123456789abcdef-0")], b"").await;
    assert_eq!(foreign.status, 200);
    assert!(foreign.messages().is_empty(), "{}", foreign.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_event_store_a_call_keeps_its_stream() {
    let server = HttpServer::serving(server(), HttpOptions::default().without_event_store()).await;
    let mut client = HttpClient::session(server.addr).await;
    let answer = client.post(&call(1, "poll", json!({}))).await;
    assert_eq!(logs(&answer), ["before closing", "while closed"]);
    assert_eq!(result_text(&answer).as_deref(), Some("closed: false"), "nothing to resume from, so no closing");
}

/// The memory store, counting what it is given: the option takes any store.
struct Counting {
    stored: Arc<AtomicUsize>,
    inner: MemoryEventStore,
}

#[async_trait::async_trait]
impl EventStore for Counting {
    async fn store_event(&self, stream_id: &str, event: &ServerSseMessage) -> Result<EventId, EventStoreError> {
        self.stored.fetch_add(1, Ordering::Relaxed);
        self.inner.store_event(stream_id, event).await
    }
    async fn replay_events_after(&self, last_event_id: &str) -> Result<EventStream, EventStoreError> {
        self.inner.replay_events_after(last_event_id).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_store_option_takes_any_store() {
    let stored = Arc::new(AtomicUsize::new(0));
    let store = Counting { stored: Arc::clone(&stored), inner: MemoryEventStore::default() };
    let server = HttpServer::serving(server(), HttpOptions::default().event_store(Arc::new(store))).await;
    let mut client = HttpClient::session(server.addr).await;
    let answer = client.post(&call(1, "poll", json!({}))).await;
    let last = last_event_id(&answer).expect("event ids");
    let resumed = client.request("GET", &[("last-event-id", &last)], b"").await;
    assert_eq!(result_text(&resumed).as_deref(), Some("closed: true"));
    // priming, a log, the closing priming, a log, the answer
    assert!(stored.load(Ordering::Relaxed) >= 5, "the call's events went to the given store");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_closes_the_stream_of_a_long_call_and_the_client_resumes_it() {
    let options = HttpOptions::default().close_call_streams_after(Duration::from_millis(100));
    let server = HttpServer::serving(server(), options).await;
    let mut client = HttpClient::session(server.addr).await;
    // A quick call is answered on its stream, before the server would close it.
    let quick = client.post(&call(1, "chatty", json!({}))).await;
    assert_eq!(result_text(&quick).as_deref(), Some("chatty done"));

    let answer = client.post(&call(2, "slow", json!({}))).await;
    assert_eq!(result_text(&answer), None, "the stream ends before the answer: {}", answer.text());
    let last = last_event_id(&answer).expect("event ids");
    let resumed = client.request("GET", &[("last-event-id", &last)], b"").await;
    assert_eq!(result_text(&resumed).as_deref(), Some("slow done"), "{}", resumed.text());
}

/// A call whose stream closed runs on: its session does not hibernate under
/// it (which would cancel it), and the client that resumes after the session
/// went to sleep gets the answer from the event store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_stream_closed_keeps_its_session_awake_until_it_ends() {
    let options = HttpOptions::default()
        .close_call_streams_after(Duration::from_millis(100))
        .session_hibernate_after(Duration::from_millis(20));
    let server = HttpServer::serving(server(), options).await;
    let mut client = HttpClient::session(server.addr).await;
    // The 400 ms call outlives its stream by 300 ms, six sweeps.
    let answer = client.post(&call(1, "slow", json!({}))).await;
    assert_eq!(result_text(&answer), None, "the stream ends before the answer: {}", answer.text());
    let last = last_event_id(&answer).expect("event ids");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let resumed = client.request("GET", &[("last-event-id", &last)], b"").await;
    assert_eq!(result_text(&resumed).as_deref(), Some("slow done"), "{}", resumed.text());
}

/// Reads the session's standalone GET stream until `needle` shows, or `timeout` passes.
async fn standalone_stream_shows(addr: std::net::SocketAddr, session: &str, needle: &str, timeout: Duration) -> bool {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("the server accepts");
    let request = format!(
        "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: {session}\r\n\
         mcp-protocol-version: 2025-06-18\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("the server reads");
    let mut seen = Vec::new();
    let read = async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
            if String::from_utf8_lossy(&seen).contains(needle) {
                return true;
            }
        }
    };
    tokio::time::timeout(timeout, read).await.unwrap_or(false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_call_logs_after_its_answer_goes_to_the_standalone_stream() {
    let server = HttpServer::serving(server(), HttpOptions::default()).await;
    let mut client = HttpClient::session(server.addr).await;
    let session = client.session.clone().expect("a session");
    let addr = server.addr;
    let listening = tokio::spawn(async move {
        standalone_stream_shows(addr, &session, "after the answer", Duration::from_secs(5)).await
    });
    // The GET stream must be open before the log is sent.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let answer = client.post(&call(1, "later", json!({}))).await;
    assert_eq!(result_text(&answer).as_deref(), Some("answered"));
    assert!(logs(&answer).is_empty(), "nothing logged before the answer");
    assert!(listening.await.expect("the reader runs"), "the late log reached the standalone stream");
}

/// Sends a call of `tool` on a connection of its own in `session`, and
/// reads what the first read of the socket finds, and how long it took.
async fn first_read(addr: std::net::SocketAddr, session: &str, id: u64, tool: &str) -> (String, Duration) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("the server accepts");
    stream.set_nodelay(true).expect("nodelay");
    let body = call(id, tool, json!({}));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nmcp-session-id: {session}\r\n\
         mcp-protocol-version: 2025-06-18\r\n\r\n",
        body.len()
    );
    stream.write_all(&[head.as_bytes(), &body].concat()).await.expect("the server reads");
    let sent = std::time::Instant::now();
    let mut buffer = vec![0u8; 64 * 1024];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer)).await;
    let n = read.expect("the server answers within 10 s").expect("the socket reads");
    (String::from_utf8_lossy(&buffer[..n]).into_owned(), sent.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_answer_leaves_with_its_response_head_and_a_slow_call_gets_its_head_first() {
    let server = HttpServer::serving(server(), HttpOptions::default()).await;
    let client = HttpClient::session(server.addr).await;
    let session = client.session.clone().expect("a session");
    // A call answered within the head's wait (10 ms) leaves in one write: the
    // head, the priming event, its log and its answer, and the end of the body.
    // A machine busy enough to take longer over one call splits it in two,
    // so one call of five is asked to arrive whole.
    let mut whole = Vec::new();
    for id in 1..=5 {
        let (read, _) = first_read(server.addr, &session, id, "chatty").await;
        assert!(read.starts_with("HTTP/1.1 200"), "{read}");
        if read.contains("chatty started") && read.contains("chatty done") && read.ends_with("0\r\n\r\n") {
            whole.push(id);
        }
    }
    assert!(!whole.is_empty(), "no quick call arrived in one read");
    // A slow call's head does not wait for its answer: it comes after the
    // head's wait, with the priming event, and the answer 400 ms later.
    let (read, elapsed) = first_read(server.addr, &session, 9, "slow").await;
    assert!(read.starts_with("HTTP/1.1 200") && read.contains("id: "), "{read}");
    assert!(!read.contains("slow done"), "the head waited for the answer: {read}");
    assert!(elapsed < Duration::from_millis(300), "the head came after {elapsed:?}");
}
