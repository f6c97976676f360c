//! The Redis store (feature `redis`) against a real `redis-server` that each
//! test starts on a free loopback port and stops after: rmcp's `EventStore`
//! and `SessionStore` contracts and our `TaskStore` across two store
//! instances (two replicas), retention, and two servers sharing one Redis
//! over Streamable HTTP: a session opened on one served by the other, a task
//! started on one read on the other, and Redis stopped and restarted under
//! load, every request answered; a stream cut and resumed on the other
//! replica, followed live, or its call run again (or answered as lost) there
//! when the replica running it stopped.
//!
//! Without `redis-server` (and its `redis-cli`) these tests are skipped with
//! how to install it, and fail under CI (`.ci/run` installs it).

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant, SystemTime};

use futures::StreamExt;
use mcp_contract_runtime::define::{TaskSupport, ToolAnnotations, ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{HttpOptions, RedisStore, Server, TaskStore};
use mcp_contract_runtime::{Context, McpError, Tool};
use rmcp::model::{
    ClientCapabilities, DetailedTask, ServerJsonRpcMessage, ServerResult, Task, TaskPayload, TaskStatus,
};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::{EventStore, SessionState, SessionStore};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

#[path = "support/needs.rs"]
mod needs;

/// A `redis-server` of this test, on a free loopback port, with an
/// append-only file so what it kept survives a restart; killed when dropped.
struct Redis {
    port: u16,
    dir: std::path::PathBuf,
    child: Option<Child>,
    /// Set for a server that speaks TLS only: its CA, in PEM.
    tls_ca: Option<Vec<u8>>,
    /// Set for a server that asks clients for a certificate (mutual TLS):
    /// one its CA signed, and its key, in PEM.
    client_tls: Option<(Vec<u8>, Vec<u8>)>,
}

impl Redis {
    /// A fresh server, or `None` (skipped, with a line saying so) on a machine without `redis-server`.
    fn start() -> Option<Self> {
        if !needs::all(&[needs::REDIS_SERVER, needs::REDIS_CLI]) {
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = std::env::temp_dir().join(format!("mcp-contract-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut redis = Self { port, dir, child: None, tls_ca: None, client_tls: None };
        redis.spawn();
        Some(redis)
    }

    /// A fresh server as production runs one: TLS only, with a certificate
    /// for `localhost` from a CA this test makes, and no default user: the
    /// ACL user `mcp` with the password [`ACL_PASSWORD`].
    fn start_tls() -> Option<Self> {
        Self::start_tls_with(false)
    }

    /// [`start_tls`](Self::start_tls) asking every client for a certificate
    /// its CA signed (`tls-auth-clients yes`): [`Redis::client_tls`] is one.
    fn start_mutual_tls() -> Option<Self> {
        Self::start_tls_with(true)
    }

    fn start_tls_with(mutual: bool) -> Option<Self> {
        let mut redis = Self::start()?;
        redis.stop();
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca.distinguished_name.push(rcgen::DnType::CommonName, "mcp-contract test CA");
        let ca = rcgen::CertifiedIssuer::self_signed(ca, ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let certificate =
            rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap().signed_by(&key, &ca).unwrap();
        std::fs::write(redis.dir.join("ca.crt"), ca.pem()).unwrap();
        std::fs::write(redis.dir.join("redis.crt"), certificate.pem()).unwrap();
        std::fs::write(redis.dir.join("redis.key"), key.serialize_pem()).unwrap();
        redis.tls_ca = Some(ca.pem().into_bytes());
        if mutual {
            let key = rcgen::KeyPair::generate().unwrap();
            let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
            params.distinguished_name.push(rcgen::DnType::CommonName, "mcp replica");
            params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
            let certificate = params.signed_by(&key, &ca).unwrap();
            redis.client_tls = Some((certificate.pem().into_bytes(), key.serialize_pem().into_bytes()));
        }
        redis.spawn();
        Some(redis)
    }

    fn spawn(&mut self) {
        let port = self.port.to_string();
        let mut command = Command::new("redis-server");
        if self.tls_ca.is_some() {
            let file = |name: &str| self.dir.join(name).display().to_string();
            let mutual = if self.client_tls.is_some() { "yes" } else { "no" };
            command.args(["--port", "0", "--tls-port", &port, "--tls-auth-clients", mutual]);
            command.args(["--tls-cert-file", &file("redis.crt"), "--tls-key-file", &file("redis.key")]);
            command.args(["--tls-ca-cert-file", &file("ca.crt")]);
            command.args(["--user", "default", "off", "--user", "mcp", "on", &format!(">{ACL_PASSWORD}")]);
            command.args(["~*", "&*", "+@all"]);
        } else {
            command.args(["--port", &port]);
        }
        let child = command
            .args(["--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "yes", "--appendfsync", "always", "--dir"])
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| {
                panic!(
                    "`redis-server` could not be started ({err}); the Redis store's tests need it. Install it \
                     (Debian/Ubuntu: `{}`; `.ci/run` does)",
                    needs::REDIS_SERVER.install
                )
            });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.pings() {
            assert!(Instant::now() < deadline, "redis-server did not answer PING within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn pings(&self) -> bool {
        let Ok(mut socket) = TcpStream::connect(("127.0.0.1", self.port)) else { return false };
        if self.tls_ca.is_some() {
            // Listening is enough: the stores' own TLS handshake is what the tests try.
            return true;
        }
        let _ = socket.set_read_timeout(Some(Duration::from_millis(500)));
        let mut answer = [0u8; 64];
        socket.write_all(b"PING\r\n").is_ok()
            && socket.read(&mut answer).is_ok_and(|n| answer[..n].starts_with(b"+PONG"))
    }

    /// The pub/sub channels someone is subscribed to (`PUBSUB CHANNELS`).
    fn channels(&self) -> Vec<String> {
        let mut socket = TcpStream::connect(("127.0.0.1", self.port)).expect("redis-server answers");
        socket.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        socket.write_all(b"PUBSUB CHANNELS *\r\n").unwrap();
        let mut answer = Vec::new();
        let mut chunk = [0u8; 4096];
        // An array of bulk strings: `*n`, then `$len` and the name, n times.
        loop {
            let n = socket.read(&mut chunk).unwrap();
            answer.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&answer);
            let lines: Vec<&str> = text.split("\r\n").collect();
            let count: usize = lines[0].trim_start_matches('*').parse().unwrap_or(0);
            if n == 0 || lines.len() > 2 * count + 1 {
                return lines.iter().skip(2).step_by(2).take(count).map(|name| (*name).to_owned()).collect();
            }
        }
    }

    fn url(&self) -> String {
        match self.tls_ca {
            Some(_) => format!("rediss://mcp:{ACL_PASSWORD}@localhost:{}/", self.port),
            None => format!("redis://127.0.0.1:{}/", self.port),
        }
    }

    /// Stop the server (SIGTERM, as an operator does: it flushes its file).
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").arg(child.id().to_string()).status();
            let _ = child.wait();
        }
    }

    /// Freeze the server (SIGSTOP): connected, and answering nothing.
    fn freeze(&self, frozen: bool) {
        let child = self.child.as_ref().expect("running");
        let signal = if frozen { "-STOP" } else { "-CONT" };
        let _ = Command::new("kill").args([signal, &child.id().to_string()]).status();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(child) = &self.child {
            let _ = Command::new("kill").args(["-CONT", &child.id().to_string()]).status();
        }
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The password of the ACL user of [`Redis::start_tls`].
const ACL_PASSWORD: &str = "pw-7c1e-never-shown";

fn store(redis: &Redis, namespace: &str) -> RedisStore {
    let store = RedisStore::new(&redis.url()).expect("a Redis URL").namespace(namespace);
    match &redis.tls_ca {
        Some(ca) => store.ca_certificate(ca.clone()).expect("a CA in PEM"),
        None => store,
    }
}

fn event(n: u64) -> ServerSseMessage {
    let message = ServerJsonRpcMessage::response(
        ServerResult::empty(()),
        rmcp::model::NumberOrString::Number(i64::try_from(n).unwrap()),
    );
    ServerSseMessage::from_message(message)
}

fn id_of(event: &ServerSseMessage) -> u64 {
    let message = event.message.as_deref().expect("a message");
    match serde_json::to_value(message).unwrap()["id"].as_u64() {
        Some(id) => id,
        None => panic!("no id: {message:?}"),
    }
}

#[tokio::test]
async fn event_ids_are_unique_across_replicas_and_a_replay_is_the_later_events_of_its_stream_in_order() {
    let Some(redis) = Redis::start() else { return };
    // Two replicas: two stores of one namespace, each with its own connection.
    let (a, b) = (store(&redis, "museum"), store(&redis, "museum"));
    let mut ids = Vec::new();
    for n in 0..10u64 {
        let (replica, stream) = match n % 4 {
            0 => (&a, "one"),
            1 => (&b, "one"),
            2 => (&a, "two"),
            _ => (&b, "two"),
        };
        ids.push(replica.store_event(stream, &event(n)).await.expect("stored"));
    }
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len(), "unique ids: {ids:?}");
    // After the second event of stream `one` (n = 1): its later events, 4, 5, 8, 9, in order, from either replica.
    for replica in [&a, &b] {
        let replayed: Vec<ServerSseMessage> = replica.replay_events_after(&ids[1]).await.unwrap().collect().await;
        assert_eq!(replayed.iter().map(id_of).collect::<Vec<_>>(), [4, 5, 8, 9]);
        let replayed_ids: Vec<&str> = replayed.iter().map(|event| event.event_id.as_deref().unwrap()).collect();
        assert_eq!(replayed_ids, [&ids[4], &ids[5], &ids[8], &ids[9]], "the ids first given");
    }
    let after_last: Vec<_> = a.replay_events_after(&ids[9]).await.unwrap().collect().await;
    assert!(after_last.is_empty());
    // Another server's namespace holds none of them.
    let other: Vec<_> = store(&redis, "library").replay_events_after(&ids[1]).await.unwrap().collect().await;
    assert!(other.is_empty(), "namespaces are apart");
    // An id this store never gave is refused, not read as another stream's.
    assert!(a.replay_events_after("no-such-id").await.is_err());
    // A priming event (a retry hint, no message) is not written: a replay after it is its stream from the start.
    let priming = a.store_event("three", &ServerSseMessage::retry(Duration::from_millis(1500))).await.unwrap();
    let first = a.store_event("three", &event(42)).await.unwrap();
    let replayed: Vec<_> = a.replay_events_after(&priming).await.unwrap().collect().await;
    assert_eq!(replayed.len(), 1);
    assert_eq!(replayed[0].event_id.as_deref(), Some(first.as_str()));
}

#[tokio::test]
async fn events_are_kept_per_stream_up_to_the_count_and_the_age() {
    let Some(redis) = Redis::start() else { return };
    let counted = store(&redis, "count").events_per_stream(3);
    let mut ids = Vec::new();
    for n in 0..6 {
        ids.push(counted.store_event("s", &event(n)).await.unwrap());
    }
    let replayed: Vec<_> = counted.replay_events_after(&ids[0]).await.unwrap().collect().await;
    assert_eq!(replayed.iter().map(id_of).collect::<Vec<_>>(), [3, 4, 5], "the three newest are kept");
    let aged = store(&redis, "age").event_age(Duration::from_secs(1));
    let first = aged.store_event("s", &event(0)).await.unwrap();
    aged.store_event("s", &event(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let replayed: Vec<_> = aged.replay_events_after(&first).await.unwrap().collect().await;
    assert!(replayed.is_empty(), "events older than their age are gone");
}

fn initialize_params() -> rmcp::model::InitializeRequestParams {
    serde_json::from_value(json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1.0.0"}
    }))
    .unwrap()
}

#[tokio::test]
async fn sessions_and_tasks_are_shared_and_expire() {
    let Some(redis) = Redis::start() else { return };
    let idle = |redis: &Redis| store(redis, "museum").session_idle(Duration::from_secs(1));
    let (a, b) = (idle(&redis), idle(&redis));
    SessionStore::store(&a, "s1", &SessionState::new(initialize_params())).await.unwrap();
    let loaded = SessionStore::load(&b, "s1").await.unwrap().expect("the other replica finds it");
    assert_eq!(loaded.initialize_params.client_info.name, "test");
    assert!(SessionStore::load(&store(&redis, "library"), "s1").await.unwrap().is_none(), "keys are per server");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(SessionStore::load(&a, "s1").await.unwrap().is_none(), "gone once idle");
    SessionStore::store(&a, "s2", &SessionState::new(initialize_params())).await.unwrap();
    SessionStore::delete(&b, "s2").await.unwrap();
    assert!(SessionStore::load(&a, "s2").await.unwrap().is_none(), "deleted");

    let task = DetailedTask::new(
        Task::new("t1", TaskStatus::Working, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"),
        TaskPayload::Working,
    );
    let expires = SystemTime::now() + Duration::from_secs(1);
    a.put(task.clone(), expires).await.unwrap();
    assert_eq!(b.get("t1").await.unwrap(), Some(task), "read on the other replica");
    // The creating call's trace context, for the spans of the task's later rounds on either replica.
    let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    a.put_trace_link("t1", parent.to_owned(), expires).await.unwrap();
    assert_eq!(b.trace_link("t1").await.unwrap().as_deref(), Some(parent), "the link, on the other replica");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(b.get("t1").await.unwrap(), None, "gone past its time to live");
    assert_eq!(b.trace_link("t1").await.unwrap(), None, "the link with it");
}

#[tokio::test]
async fn a_store_that_cannot_reach_redis_answers_within_its_timeout_and_recovers() {
    let Some(mut redis) = Redis::start() else { return };
    let a = store(&redis, "museum").timeout(Duration::from_millis(300));
    a.put(task("t", TaskPayload::Working), SystemTime::now() + Duration::from_secs(60)).await.unwrap();
    redis.freeze(true);
    let started = Instant::now();
    let err = a.get("t").await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "bounded: {:?}", started.elapsed());
    assert_eq!(err.code(), mcp_contract_runtime::JsonRpcErrorCode::ServiceUnavailable);
    assert!(!err.message().contains("127.0.0.1"), "no internals: {}", err.message());
    // While it is down, an event still gets an id (its answer goes out live) that no replay accepts.
    let live = a.store_event("s", &event(1)).await.expect("an id all the same");
    // Written behind, an event is named at once; once that write failed,
    // the store is down for it too, and the next events go out under ids
    // no replay accepts.
    let behind = store(&redis, "museum").write_behind(true).timeout(Duration::from_millis(300));
    let named = behind.store_event("w", &event(2)).await.expect("named");
    assert!(!named.contains("#~"), "an entry of its own: {named}");
    let deadline = Instant::now() + Duration::from_secs(5);
    let unstored = loop {
        let id = behind.store_event("w", &event(3)).await.expect("an id all the same");
        if id.contains("#~") {
            break id;
        }
        assert!(Instant::now() < deadline, "a failed write behind did not take the store for down: {id}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    redis.freeze(false);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(a.replay_events_after(&live).await.is_err());
    assert!(behind.replay_events_after(&unstored).await.is_err());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if a.get("t").await.is_ok_and(|found| found.is_some()) {
            break;
        }
        assert!(Instant::now() < deadline, "the store did not recover within 5 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    redis.stop();
}

fn task(id: &str, payload: TaskPayload) -> DetailedTask {
    DetailedTask::new(
        Task::new(id, TaskStatus::Working, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"),
        payload,
    )
}

// Two servers over Streamable HTTP sharing one Redis.

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoInput {
    /// What to say back.
    text: String,
}

struct Echo;
static ECHO: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("echo", mcp_contract_runtime::schema::input_schema::<EchoInput>())
        .with_description("Say it back.")
});

impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &ECHO
    }
    async fn call(&self, input: EchoInput, _ctx: Context) -> Result<String, McpError> {
        Ok(input.text)
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ExportInput {
    /// How long the export takes, in milliseconds.
    millis: u64,
}

struct Export;
static EXPORT: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("export", mcp_contract_runtime::schema::input_schema::<ExportInput>())
        .with_description("Export, as a task.")
        .with_task_support(TaskSupport::Optional)
});

impl Tool for Export {
    type Input = ExportInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &EXPORT
    }
    async fn call(&self, input: ExportInput, _ctx: Context) -> Result<String, McpError> {
        tokio::time::sleep(Duration::from_millis(input.millis)).await;
        Ok(format!("exported in {} ms", input.millis))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

struct Count;
static COUNT: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new(
        "count",
        mcp_contract_runtime::schema::input_schema::<mcp_contract_runtime::define::NoArguments>(),
    )
    .with_description("Count to three, with progress.")
});

impl Tool for Count {
    type Input = mcp_contract_runtime::define::NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &COUNT
    }
    async fn call(&self, _input: Self::Input, ctx: Context) -> Result<String, McpError> {
        for n in 1..=3 {
            ctx.progress(f64::from(n), Some(3.0), None).await;
        }
        Ok("counted to three".to_owned())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Closes its stream for SSE polling, then answers whether it did.
struct Polled;
static POLLED: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new(
        "polled",
        mcp_contract_runtime::schema::input_schema::<mcp_contract_runtime::define::NoArguments>(),
    )
    .with_description("Close the stream, then answer.")
});

impl Tool for Polled {
    type Input = mcp_contract_runtime::define::NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &POLLED
    }
    async fn call(&self, _input: Self::Input, ctx: Context) -> Result<String, McpError> {
        let closed = ctx.close_sse_stream().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(format!("closed: {closed}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// One replica on a loopback port; stops when dropped.
struct Replica {
    url: String,
    stop: CancellationToken,
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn replica(store: RedisStore) -> Replica {
    replica_with(store, HttpOptions::default()).await
}

async fn replica_with(store: RedisStore, options: HttpOptions) -> Replica {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let options = options.shutdown_token(stop.clone()).without_signal_handling();
    let server = Server::new("museum", "1.0.0")
        .tool(Echo)
        .tool(Export)
        .tool(Count)
        .tool(Polled)
        .redis_store(store)
        .build()
        .unwrap();
    tokio::spawn(server.serve_http_on(listener, options));
    Replica { url, stop }
}

/// What a request got: its status and the JSON-RPC message answering it.
#[derive(Debug)]
struct Answer {
    status: u16,
    session: Option<String>,
    message: Value,
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(5)).build().unwrap()
}

/// A POST of `body` to `url` as a 2025-06-18 client sends it, on `session` when given.
fn post_request(http: &reqwest::Client, url: &str, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(body.to_string());
    match session {
        Some(session) => request.header("mcp-session-id", session),
        None => request,
    }
}

async fn post(http: &reqwest::Client, url: &str, session: Option<&str>, body: &Value) -> Result<Answer, String> {
    let response = post_request(http, url, session, body).send().await.map_err(|err| err.to_string())?;
    let status = response.status().as_u16();
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let text = response.text().await.map_err(|err| err.to_string())?;
    // A JSON body, or the SSE event that answers the request.
    let message = serde_json::from_str(&text).ok().or_else(|| {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id") == body.get("id"))
    });
    Ok(Answer { status, session, message: message.unwrap_or(Value::Null) })
}

async fn initialize(http: &reqwest::Client, url: &str, tasks: bool) -> Result<Answer, String> {
    let capabilities = if tasks {
        serde_json::to_value(ClientCapabilities::builder().enable_tasks().build()).unwrap()
    } else {
        json!({})
    };
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": capabilities,
        "clientInfo": {"name": "replica-test", "version": "1.0.0"}}});
    post(http, url, None, &body).await
}

/// `initialize` and `notifications/initialized` through `url`: the session id.
async fn open_session(http: &reqwest::Client, url: &str, tasks: bool) -> String {
    let answer = initialize(http, url, tasks).await.expect("initialize is answered");
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = post(http, url, Some(&session), &initialized).await.unwrap();
    assert_eq!(answer.status, 202, "{answer:?}");
    session
}

fn echo_call(id: u64, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}})
}

/// With the sessions in Redis, a hibernating session keeps nothing on its
/// replica but its clock: its next request, on that replica or the other,
/// restores it from the shared store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_hibernating_with_its_initialize_in_redis_wakes_on_either_replica() {
    let Some(redis) = Redis::start() else { return };
    let options = || HttpOptions::default().session_hibernate_after(Duration::from_millis(100));
    let first = replica_with(store(&redis, "hibernate"), options()).await;
    let second = replica_with(store(&redis, "hibernate"), options()).await;
    let http = client();
    let session = open_session(&http, &first.url, false).await;
    for (id, url) in [(1, &first.url), (2, &second.url), (3, &first.url), (4, &second.url)] {
        // Past the delay and the sweep after it: the session sleeps on both replicas.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let answer = post(&http, url, Some(&session), &echo_call(id, "awake")).await.unwrap();
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.message["result"]["content"][0]["text"], "awake", "{answer:?}");
    }
}

/// A Redis that lost its keys (restarted without persistence) loses no
/// session this replica put to sleep: its own copy of the `initialize`
/// restores it, as its worker would have served it awake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_hibernating_here_wakes_after_redis_lost_every_key() {
    let Some(redis) = Redis::start() else { return };
    let options = HttpOptions::default().session_hibernate_after(Duration::from_millis(100));
    let replica = replica_with(store(&redis, "hibernate-flushed"), options).await;
    let http = client();
    let session = open_session(&http, &replica.url, false).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let flushed = Command::new("redis-cli").args(["-p", &redis.port.to_string(), "FLUSHALL"]).status().unwrap();
    assert!(flushed.success());
    let answer = post(&http, &replica.url, Some(&session), &echo_call(1, "kept")).await.unwrap();
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.message["result"]["content"][0]["text"], "kept", "{answer:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_opened_on_one_replica_is_served_by_the_other_and_a_task_is_read_there() {
    let Some(redis) = Redis::start() else { return };
    replicas_share_a_session_and_a_task(&redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tls_with_an_acl_user_replicas_share_sessions_and_tasks_and_no_error_shows_the_password() {
    let Some(redis) = Redis::start_tls() else { return };
    replicas_share_a_session_and_a_task(&redis).await;

    let mcp_url = |password: &str| format!("rediss://mcp:{password}@localhost:{}/", redis.port);
    let ca = redis.tls_ca.clone().unwrap();
    let probe = |store: RedisStore| async move {
        let err = store.timeout(Duration::from_secs(2)).get("t").await.expect_err("refused");
        assert_eq!(err.code(), mcp_contract_runtime::JsonRpcErrorCode::ServiceUnavailable);
        format!("{err:?} {}", err.message())
    };
    // The wrong password, the system's roots instead of the CA, and plain
    // `redis://` to a TLS port: each refused, and nothing shows a password.
    let wrong = "pw-wrong-also-never-shown";
    let refusals = [
        probe(RedisStore::new(&mcp_url(wrong)).unwrap().ca_certificate(ca.clone()).unwrap()).await,
        probe(RedisStore::new(&mcp_url(ACL_PASSWORD)).unwrap()).await,
        probe(RedisStore::new(&format!("redis://mcp:{ACL_PASSWORD}@127.0.0.1:{}/", redis.port)).unwrap()).await,
    ];
    for refusal in &refusals {
        assert!(!refusal.contains(ACL_PASSWORD) && !refusal.contains(wrong), "{refusal}");
    }
    let store = RedisStore::new(&mcp_url(ACL_PASSWORD)).unwrap();
    assert!(!format!("{store:?}").contains(ACL_PASSWORD), "{store:?}");
    let err = RedisStore::new(&format!("http://mcp:{ACL_PASSWORD}@localhost/")).unwrap_err();
    assert!(!err.to_string().contains(ACL_PASSWORD), "{err}");
    let err = store.ca_certificate(b"no certificate".to_vec()).unwrap_err();
    assert!(!err.to_string().contains(ACL_PASSWORD), "{err}");
}

/// Two replicas on `redis`: a session opened on one is served by the other,
/// and a task started through one is polled and read through the other.
async fn replicas_share_a_session_and_a_task(redis: &Redis) {
    let (a, b) = (replica(store(redis, "museum")).await, replica(store(redis, "museum")).await);
    let http = client();
    let session = open_session(&http, &a.url, true).await;
    for n in 1..=6u64 {
        let url = if n % 2 == 0 { &a.url } else { &b.url };
        let answer = post(&http, url, Some(&session), &echo_call(n, &format!("call {n}"))).await.unwrap();
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.message["result"]["content"][0]["text"], format!("call {n}"), "{answer:?}");
    }
    // A session id no replica opened is unknown to both.
    let unknown = post(&http, &b.url, Some("no-such-session"), &echo_call(9, "x")).await.unwrap();
    assert_eq!(unknown.status, 404, "{unknown:?}");
    assert_eq!(unknown.message["error"]["code"], -32600, "{unknown:?}");

    // A task started through one replica is polled and read through the other.
    let start = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
        "params": {"name": "export", "arguments": {"millis": 300}}});
    let started = post(&http, &a.url, Some(&session), &start).await.unwrap();
    let task_id =
        started.message["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {started:?}")).to_owned();
    let deadline = Instant::now() + Duration::from_secs(10);
    let finished = loop {
        let get = json!({"jsonrpc": "2.0", "id": 21, "method": "tasks/get", "params": {"taskId": task_id}});
        let answer = post(&http, &b.url, Some(&session), &get).await.unwrap();
        assert_eq!(answer.status, 200, "{answer:?}");
        if answer.message["result"]["status"] != "working" {
            break answer.message;
        }
        assert!(Instant::now() < deadline, "the task did not finish within 10 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(finished["result"]["status"], "completed", "{finished}");
    assert_eq!(finished["result"]["result"]["content"][0]["text"], "exported in 300 ms", "{finished}");
}

/// How one request fared.
#[derive(Default)]
struct Tally {
    answered: AtomicUsize,
    unavailable: AtomicUsize,
    other: AtomicUsize,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_stopped_and_restarted_under_load_every_request_is_answered_and_the_server_recovers() {
    let Some(mut redis) = Redis::start() else { return };
    let fast = |redis: &Redis| store(redis, "museum").timeout(Duration::from_millis(500));
    let (a, b) = (replica(fast(&redis)).await, replica(fast(&redis)).await);
    let http = client();
    // Served by both replicas (each holds it now), and one only `a` holds.
    let both = open_session(&http, &a.url, true).await;
    post(&http, &b.url, Some(&both), &echo_call(1, "warm")).await.unwrap();
    let only_a = open_session(&http, &a.url, false).await;

    let running = Arc::new(AtomicBool::new(true));
    let down = Arc::new(AtomicBool::new(false));
    let (steady, outage) = (Arc::new(Tally::default()), Arc::new(Tally::default()));
    let mut load = Vec::new();
    for worker in 0..4u64 {
        let (http, urls, session) = (http.clone(), [a.url.clone(), b.url.clone()], both.clone());
        let (running, down, steady, outage) = (running.clone(), down.clone(), steady.clone(), outage.clone());
        load.push(tokio::spawn(async move {
            let mut n = 0u64;
            while running.load(Ordering::Relaxed) {
                n += 1;
                let id = worker * 1_000_000 + n;
                let tally = if down.load(Ordering::Relaxed) { &outage } else { &steady };
                match post(&http, &urls[(n % 2) as usize], Some(&session), &echo_call(id, "load")).await {
                    Ok(answer) if answer.status == 200 && answer.message["result"]["content"][0]["text"] == "load" => {
                        tally.answered.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(answer) if answer.status == 503 && answer.message["error"]["code"] == -32000 => {
                        tally.unavailable.fetch_add(1, Ordering::Relaxed);
                    }
                    other => {
                        eprintln!("neither answered nor refused: {other:?}");
                        tally.other.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    // And one client opening new sessions: those need the store.
    {
        let (http, urls) = (http.clone(), [a.url.clone(), b.url.clone()]);
        let (running, down, steady, outage) = (running.clone(), down.clone(), steady.clone(), outage.clone());
        load.push(tokio::spawn(async move {
            let mut n = 0usize;
            while running.load(Ordering::Relaxed) {
                n += 1;
                let tally = if down.load(Ordering::Relaxed) { &outage } else { &steady };
                match initialize(&http, &urls[n % 2], false).await {
                    Ok(answer) if answer.status == 200 && answer.session.is_some() => {
                        tally.answered.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(answer) if answer.status == 503 && answer.message["error"]["code"] == -32000 => {
                        tally.unavailable.fetch_add(1, Ordering::Relaxed);
                        // As a client honouring Retry-After would, if sooner.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    other => {
                        eprintln!("initialize neither answered nor refused: {other:?}");
                        tally.other.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    redis.stop();
    down.store(true, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(300)).await;

    // What needs the store is refused, with a JSON-RPC error naming the cause.
    let elsewhere = post(&http, &b.url, Some(&only_a), &echo_call(7, "x")).await.unwrap();
    assert_eq!(elsewhere.status, 503, "a session `b` must restore: {elsewhere:?}");
    assert_eq!(elsewhere.message["id"], 7, "{elsewhere:?}");
    let message = elsewhere.message["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("does not answer") && !message.contains("127.0.0.1"), "{message}");
    let fresh = initialize(&http, &a.url, false).await.unwrap();
    assert_eq!(fresh.status, 503, "a new session: {fresh:?}");
    let get = json!({"jsonrpc": "2.0", "id": 8, "method": "tasks/get", "params": {"taskId": "t"}});
    let polled = post(&http, &a.url, Some(&both), &get).await.unwrap();
    // 503 once the replica knows Redis is down (it failed in the last 250 ms);
    // the request that finds it down gets the same error in its SSE answer.
    assert!(polled.status == 503 || polled.status == 200, "a task: {polled:?}");
    assert_eq!(polled.message["error"]["code"], -32000, "a task: {polled:?}");
    assert!(polled.message["error"]["message"].as_str().is_some_and(|m| m.contains("does not answer")), "{polled:?}");
    // A call that would start a task cannot keep it: the same error, in its answer.
    let start = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
        "params": {"name": "export", "arguments": {"millis": 10}}});
    let refused = post(&http, &a.url, Some(&both), &start).await.unwrap();
    assert_eq!(refused.message["error"]["code"], -32000, "a task: {refused:?}");
    // Resuming a stream: 503 once the replica knows, else rmcp's empty stream for a replay that failed.
    let resumed = http
        .get(&a.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &both)
        .header("mcp-protocol-version", "2025-06-18")
        .header("last-event-id", "stream#1-0")
        .send()
        .await
        .unwrap();
    let status = resumed.status().as_u16();
    let text = resumed.text().await.unwrap();
    assert!(status == 503 && text.contains("-32000") || status == 200 && !text.contains("data:"), "{status} {text}");
    // What does not need it goes on: the session `a` holds.
    let held = post(&http, &a.url, Some(&only_a), &echo_call(9, "held")).await.unwrap();
    assert_eq!(held.message["result"]["content"][0]["text"], "held", "{held:?}");
    tokio::time::sleep(Duration::from_millis(700)).await;

    redis.spawn();
    down.store(false, Ordering::Relaxed);
    // Back by itself: the session `b` never held, and a new session.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = post(&http, &b.url, Some(&only_a), &echo_call(10, "back")).await.unwrap();
        if answer.status == 200 {
            assert_eq!(answer.message["result"]["content"][0]["text"], "back", "{answer:?}");
            break;
        }
        assert_eq!(answer.status, 503, "{answer:?}");
        assert!(Instant::now() < deadline, "not recovered within 10 s of Redis's return");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    open_session(&http, &b.url, false).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    running.store(false, Ordering::Relaxed);
    for worker in load {
        worker.await.unwrap();
    }
    let count = |tally: &Tally| {
        (
            tally.answered.load(Ordering::Relaxed),
            tally.unavailable.load(Ordering::Relaxed),
            tally.other.load(Ordering::Relaxed),
        )
    };
    let (steady, outage) = (count(&steady), count(&outage));
    eprintln!(
        "before the stop and after the restart (answered, 503, other): {steady:?}; while it was down: {outage:?}"
    );
    assert_eq!(steady.2 + outage.2, 0, "every request was answered or refused with 503");
    assert!(outage.0 > 0, "calls of sessions both replicas hold went on while Redis was down: {outage:?}");
    assert!(outage.1 > 0, "new sessions were refused while Redis was down: {outage:?}");
    assert!(steady.0 > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_begun_while_redis_is_down_is_not_closed_for_polling_and_carries_its_answer() {
    let Some(mut redis) = Redis::start() else { return };
    let a = replica(store(&redis, "museum").timeout(Duration::from_millis(300))).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let polled = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "polled"}});
    // With the store up, the stream closes before the answer, which waits there for a resumption.
    let closed = post(&http, &a.url, Some(&session), &polled(1)).await.unwrap();
    assert_eq!((closed.status, &closed.message), (200, &Value::Null), "{closed:?}");

    redis.stop();
    // Its first event went out under an id no replay accepts: closed, the
    // stream could never be resumed, and the call would never be answered.
    let open = post(&http, &a.url, Some(&session), &polled(2)).await.unwrap();
    assert_eq!(open.message["result"]["content"][0]["text"], "closed: false", "{open:?}");
}

/// A request of revision 2026-07-28: its version, client and capabilities ride on each request.
fn stateless_call(id: u64, text: &str) -> Value {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "replica-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}, "_meta": meta}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_of_2026_07_28_spread_across_replicas_without_a_store() {
    // Two replicas of a session-mode server, no Redis: nothing to share.
    let serve = || async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
        tokio::spawn(Server::new("museum", "1.0.0").tool(Echo).build().unwrap().serve_http_on(listener, options));
        Replica { url, stop }
    };
    let (a, b) = (serve().await, serve().await);
    let http = client();
    for n in 1..=8u64 {
        let url = if n % 2 == 0 { &a.url } else { &b.url };
        let body = stateless_call(n, &format!("call {n}"));
        let response = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.headers().get("mcp-session-id").is_none(), "no session is opened");
        let text = response.text().await.unwrap();
        assert!(text.contains(&format!("\"text\":\"call {n}\"")), "call {n} is answered by either replica: {text}");
    }
}

/// The `id:` and `data:` of each SSE event of `text`.
fn sse_events(text: &str) -> Vec<(Option<String>, Option<Value>)> {
    text.split("\n\n")
        .filter(|event| !event.trim().is_empty())
        .map(|event| {
            let field = |name: &str| event.lines().find_map(|line| line.strip_prefix(name)).map(str::trim);
            (field("id:").map(str::to_owned), field("data:").and_then(|data| serde_json::from_str(data).ok()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_is_replayed_through_the_other_replica_after_its_last_event_id() {
    let Some(redis) = Redis::start() else { return };
    let (a, b) = (replica(store(&redis, "museum")).await, replica(store(&redis, "museum")).await);
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let response = post_request(&http, &a.url, Some(&session), &call).send().await.unwrap();
    let events = sse_events(&response.text().await.unwrap());
    // The priming event, three progress notifications, the result: each with an id.
    assert_eq!(events.len(), 5, "{events:?}");
    assert!(events.iter().all(|(id, _)| id.is_some()), "{events:?}");
    assert_eq!(events[4].1.as_ref().unwrap()["result"]["content"][0]["text"], "counted to three");
    // A client cut after the first progress resumes through the other replica.
    let resumed = http
        .get(&b.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .header("last-event-id", events[1].0.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let replayed = sse_events(&resumed.text().await.unwrap());
    assert_eq!(replayed, events[2..].to_vec(), "the later events, in order, with their ids");
}

/// With auth on, a session restored on another replica stays bound to the
/// caller who opened it: to anyone else it does not exist there either.
#[cfg(feature = "auth")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_restored_on_another_replica_stays_bound_to_its_caller() {
    use mcp_contract_runtime::auth::AuthConfig;
    const SECRET: &str = "test-secret-0123456789abcdef-0123456789";
    let Some(redis) = Redis::start() else { return };
    let serve = |store: RedisStore| async move {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
        let server = Server::new("museum", "1.0.0").tool(Echo).auth(AuthConfig::jwt(SECRET)).redis_store(store);
        tokio::spawn(server.build().unwrap().serve_http_on(listener, options));
        Replica { url, stop }
    };
    let (a, b) = (serve(store(&redis, "museum")).await, serve(store(&redis, "museum")).await);
    let token = |subject: &str| {
        let claims = json!({"sub": subject, "exp": jsonwebtoken::get_current_timestamp() + 600});
        let key = jsonwebtoken::EncodingKey::from_secret(SECRET.as_bytes()).unwrap();
        jsonwebtoken::encode(&jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256), &claims, &key).unwrap()
    };
    let with = |subject: &str| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {}", token(subject)).parse().unwrap());
        reqwest::Client::builder().default_headers(headers).timeout(Duration::from_secs(5)).build().unwrap()
    };
    let (alice, mallory) = (with("alice"), with("mallory"));
    let session = open_session(&alice, &a.url, false).await;
    // Mallory reaches the other replica first, with Alice's session id: unknown to her.
    let refused = post(&mallory, &b.url, Some(&session), &echo_call(1, "x")).await.unwrap();
    assert_eq!(refused.status, 404, "{refused:?}");
    let served = post(&alice, &b.url, Some(&session), &echo_call(2, "mine")).await.unwrap();
    assert_eq!(served.message["result"]["content"][0]["text"], "mine", "{served:?}");
    let refused = post(&mallory, &b.url, Some(&session), &echo_call(3, "x")).await.unwrap();
    assert_eq!(refused.status, 404, "once restored too: {refused:?}");
}

// A call whose stream is cut, resumed on the other replica.

/// Which replica ran a call: each replica's state.
struct ReplicaName(&'static str);

#[derive(Deserialize, schemars::JsonSchema)]
struct SlowInput {
    /// How long the call takes, in milliseconds.
    millis: u64,
}

/// A slow call, with the name of the replica that ran it: `survey` is
/// annotated read-only (safe to run again), `stamp` is not.
struct Slow(&'static LazyLock<ToolDefinition>);
static SURVEY: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("survey", mcp_contract_runtime::schema::input_schema::<SlowInput>())
        .with_description("Count the galleries, slowly.")
        .with_annotations(ToolAnnotations::new().with_read_only_hint(true))
});
static STAMP: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("stamp", mcp_contract_runtime::schema::input_schema::<SlowInput>())
        .with_description("Stamp the ledger, slowly: each call adds a line.")
});

impl Tool for Slow {
    type Input = SlowInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        self.0
    }
    async fn call(&self, input: SlowInput, ctx: Context) -> Result<String, McpError> {
        tokio::time::sleep(Duration::from_millis(input.millis)).await;
        let replica = ctx.state::<ReplicaName>().map_or("?", |name| name.0);
        Ok(format!("{} by {replica}", self.0.name))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Closes its stream for SSE polling, then answers after `millis` with the
/// replica's name; read-only, so a replica that resumes its stream runs it again.
struct Gauge;
static GAUGE: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("gauge", mcp_contract_runtime::schema::input_schema::<SlowInput>())
        .with_description("Read the humidity, slowly, the stream closed meanwhile.")
        .with_annotations(ToolAnnotations::new().with_read_only_hint(true))
});

impl Tool for Gauge {
    type Input = SlowInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &GAUGE
    }
    async fn call(&self, input: SlowInput, ctx: Context) -> Result<String, McpError> {
        ctx.close_sse_stream().await;
        tokio::time::sleep(Duration::from_millis(input.millis)).await;
        let replica = ctx.state::<ReplicaName>().map_or("?", |name| name.0);
        Ok(format!("gauge by {replica}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// A progress notification, the stream closed for polling, a second
/// progress notification `millis` later, then the replica's name.
struct Meter;
static METER: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("meter", mcp_contract_runtime::schema::input_schema::<SlowInput>())
        .with_description("Meter twice, the stream closed between.")
        .with_annotations(ToolAnnotations::new().with_read_only_hint(true))
});

impl Tool for Meter {
    type Input = SlowInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &METER
    }
    async fn call(&self, input: SlowInput, ctx: Context) -> Result<String, McpError> {
        ctx.progress(1.0, Some(2.0), None).await;
        ctx.close_sse_stream().await;
        tokio::time::sleep(Duration::from_millis(input.millis)).await;
        ctx.progress(2.0, Some(2.0), None).await;
        let replica = ctx.state::<ReplicaName>().map_or("?", |name| name.0);
        Ok(format!("metered by {replica}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Six progress notifications over `millis`, then the replica's name;
/// read-only, so a replica that resumes its stream runs it again.
struct Tick;
static TICK: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("tick", mcp_contract_runtime::schema::input_schema::<SlowInput>())
        .with_description("Tick six times, with progress.")
        .with_annotations(ToolAnnotations::new().with_read_only_hint(true))
});

impl Tool for Tick {
    type Input = SlowInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &TICK
    }
    async fn call(&self, input: SlowInput, ctx: Context) -> Result<String, McpError> {
        for n in 1..=6 {
            tokio::time::sleep(Duration::from_millis(input.millis / 6)).await;
            ctx.progress(f64::from(n), Some(6.0), None).await;
        }
        let replica = ctx.state::<ReplicaName>().map_or("?", |name| name.0);
        Ok(format!("ticked by {replica}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

fn slow_server(name: &'static str, store: RedisStore) -> mcp_contract_runtime::server::ToolServer {
    Server::new("museum", "1.0.0")
        .tool(Slow(&SURVEY))
        .tool(Slow(&STAMP))
        .tool(Tick)
        .tool(Gauge)
        .tool(Meter)
        .tool(Export)
        .state(ReplicaName(name))
        .redis_store(store)
        .build()
        .unwrap()
}

/// A replica on a runtime and thread of its own: [`Doomed::kill`] stops
/// everything it runs at once (its calls, its connection to Redis, its
/// heartbeat), as a killed process stops: nothing drains, nothing says goodbye.
struct Doomed {
    url: String,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Doomed {
    fn start(server: mcp_contract_runtime::server::ToolServer) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let options = HttpOptions::default().without_signal_handling();
        runtime.spawn(async move {
            let listener = TcpListener::from_std(listener).unwrap();
            server.serve_http_on(listener, options).await
        });
        Self { url, runtime: Some(runtime) }
    }

    fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Doomed {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn serve_slow(name: &'static str, store: RedisStore) -> Replica {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    tokio::spawn(slow_server(name, store).serve_http_on(listener, options));
    Replica { url, stop }
}

/// Start `tool` (taking `millis`) as call `id` of `session` on `url`, and
/// cut its stream once the first event came: that event's id.
async fn start_and_cut(http: &reqwest::Client, url: &str, session: &str, id: u64, tool: &str, millis: u64) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {"millis": millis}}});
    let mut response = post_request(http, url, Some(session), &call).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut text = String::new();
    while !text.contains("\n\n") {
        let chunk = response.chunk().await.unwrap().expect("the priming event comes first");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(response);
    let events = sse_events(&text);
    events[0].0.clone().expect("the first event has an id")
}

/// The events of the stream `session` resumes on `url` after `last_event_id`.
async fn resume(url: &str, session: &str, last_event_id: &str) -> Vec<(Option<String>, Option<Value>)> {
    // Long enough for a stopped replica's key to expire and the call to run again.
    let http = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let resumed = http
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-06-18")
        .header("last-event-id", last_event_id)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    sse_events(&resumed.text().await.unwrap())
}

/// The answer among `events` (the message with an `id`).
fn answer_in(events: &[(Option<String>, Option<Value>)]) -> Value {
    let answers: Vec<&Value> =
        events.iter().filter_map(|(_, message)| message.as_ref()).filter(|m| m.get("id").is_some()).collect();
    assert_eq!(answers.len(), 1, "one answer: {events:?}");
    answers[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_stream_resumed_on_the_other_replica_follows_its_call_live_to_the_answer() {
    cut_stream_resumed_on_the_other_replica(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn written_behind_a_cut_stream_resumed_on_the_other_replica_follows_its_call_live_to_the_answer() {
    cut_stream_resumed_on_the_other_replica(true).await;
}

async fn cut_stream_resumed_on_the_other_replica(write_behind: bool) {
    let Some(redis) = Redis::start() else { return };
    let a = serve_slow("a", store(&redis, "museum").write_behind(write_behind)).await;
    let b = serve_slow("b", store(&redis, "museum").write_behind(write_behind)).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let priming = start_and_cut(&http, &a.url, &session, 7, "stamp", 1000).await;
    let started = Instant::now();
    let events = resume(&b.url, &session, &priming).await;
    let answer = answer_in(&events);
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["content"][0]["text"], "stamp by a", "a ran it, once: {events:?}");
    assert!(started.elapsed() >= Duration::from_millis(500), "the answer came live, as the call ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_call_whose_replica_stopped_runs_again_on_the_replica_the_client_resumes_on() {
    let Some(redis) = Redis::start() else { return };
    let mut a = Doomed::start(slow_server("a", store(&redis, "museum")));
    let b = serve_slow("b", store(&redis, "museum")).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let priming = start_and_cut(&http, &a.url, &session, 8, "survey", 2000).await;
    a.kill();
    // Another session that learned the event id does not get the call run for it.
    let other = open_session(&http, &b.url, false).await;
    let intruded = resume(&b.url, &other, &priming).await;
    assert!(intruded.iter().all(|(_, message)| message.as_ref().is_none_or(|m| m.get("id").is_none())), "{intruded:?}");
    let events = resume(&b.url, &session, &priming).await;
    let answer = answer_in(&events);
    assert_eq!(answer["id"], 8, "the answer to the call the client made: {events:?}");
    assert_eq!(answer["result"]["content"][0]["text"], "survey by b", "{events:?}");
    // The answer is on the call's first stream: a client that lost it again finds it there.
    let again = resume(&b.url, &session, &priming).await;
    assert_eq!(answer_in(&again), answer);
}

/// Found by the soak: the run of a lost call that closes its stream (SSE
/// polling) on the replica the client resumed on ended the resumption there
/// without the answer, which went to the run's own stream, which no client
/// knows; every later resumption followed the call's first stream in vain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_call_that_closes_its_stream_runs_again_and_its_answer_reaches_the_resuming_client() {
    let Some(redis) = Redis::start() else { return };
    let mut a = Doomed::start(slow_server("a", store(&redis, "museum")));
    let b = serve_slow("b", store(&redis, "museum")).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let priming = start_and_cut(&http, &a.url, &session, 8, "gauge", 2000).await;
    a.kill();
    let events = resume(&b.url, &session, &priming).await;
    let answer = answer_in(&events);
    assert_eq!(answer["result"]["content"][0]["text"], "gauge by b", "{events:?}");
    let again = resume(&b.url, &session, &priming).await;
    assert_eq!(answer_in(&again), answer, "the answer is on the call's first stream");
}

/// A call's priming event is not written to Redis (it has the id
/// `{stream}#0-{ms}`, before every entry), and the event that ends a stream
/// closed for polling carries the id of the last event the client got: a
/// client resuming on the other replica after it gets what followed, each
/// event once; resuming after the priming, the whole stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_closed_for_polling_resumes_on_the_other_replica_after_what_the_client_got() {
    let Some(redis) = Redis::start() else { return };
    let a = serve_slow("a", store(&redis, "museum")).await;
    let b = serve_slow("b", store(&redis, "museum")).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let call = json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call",
        "params": {"name": "meter", "arguments": {"millis": 300}, "_meta": {"progressToken": "m"}}});
    let response = post_request(&http, &a.url, Some(&session), &call).send().await.unwrap();
    assert_eq!(response.status(), 200);
    // The stream ends when the call closes it: the priming, the first progress, the close.
    let read = sse_events(&response.text().await.unwrap());
    assert_eq!(read.len(), 3, "{read:?}");
    let ids: Vec<&str> = read.iter().map(|(id, _)| id.as_deref().expect("each event has an id")).collect();
    assert_eq!(entry_of(ids[0]).0, 0, "the priming is before every entry: {ids:?}");
    assert_eq!(read[1].1.as_ref().unwrap()["params"]["progress"], 1.0, "{read:?}");
    assert!(read[2].1.is_none(), "the close carries no message: {read:?}");
    assert_eq!(ids[2], ids[1], "the close names the last event the client got");
    let resumed = resume(&b.url, &session, ids[2]).await;
    assert_eq!(resumed.len(), 2, "the second progress and the answer, nothing twice: {resumed:?}");
    assert_eq!(resumed[0].1.as_ref().unwrap()["params"]["progress"], 2.0, "{resumed:?}");
    assert_eq!(answer_in(&resumed)["result"]["content"][0]["text"], "metered by a", "{resumed:?}");
    let whole = resume(&b.url, &session, ids[0]).await;
    assert_eq!(whole[0], read[1], "after the priming, the stream from its start: {whole:?}");
    assert_eq!(whole[1..], resumed[..], "{whole:?}");
}

/// The `{ms}-{seq}` Redis entry of an event id `{stream}#{ms}-{seq}`, as numbers.
fn entry_of(id: &str) -> (u64, u64) {
    let (_, entry) = id.rsplit_once('#').unwrap_or_else(|| panic!("not an event id of the store: {id}"));
    let (ms, seq) = entry.split_once('-').unwrap_or_else(|| panic!("not a Redis entry id: {id}"));
    (ms.parse().unwrap(), seq.parse().unwrap())
}

/// A resumed SSE stream never duplicates, reorders or loses an event it
/// promised (gave an id), across the death of the replica that held it: the
/// client read part of a call's progress from a replica that is then killed,
/// resumes after the last id it read on the other replica, and gets the
/// events after it, in order, each once, to the answer; a second resumption
/// from the stream's first event replays exactly what the client read after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_resumed_across_its_replicas_death_repeats_reorders_and_loses_no_event() {
    stream_resumed_across_its_replicas_death(false).await;
}

/// The same with the events written behind their sending, the replica
/// killed once what its client read is in Redis (an event it sent and never
/// stored is the next test's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn written_behind_a_stream_resumed_across_its_replicas_death_repeats_reorders_and_loses_no_event() {
    stream_resumed_across_its_replicas_death(true).await;
}

async fn stream_resumed_across_its_replicas_death(write_behind: bool) {
    let Some(redis) = Redis::start() else { return };
    let mut a = Doomed::start(slow_server("a", store(&redis, "museum").write_behind(write_behind)));
    let b = serve_slow("b", store(&redis, "museum").write_behind(write_behind)).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let call = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
        "params": {"name": "tick", "arguments": {"millis": 3000}, "_meta": {"progressToken": "t"}}});
    let mut response = post_request(&http, &a.url, Some(&session), &call).send().await.unwrap();
    assert_eq!(response.status(), 200);
    // The priming event and two progress notifications, then the replica dies.
    let mut text = String::new();
    while sse_events(&text).len() < 3 || !text.ends_with("\n\n") {
        let chunk = response.chunk().await.unwrap().expect("the call's events come");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    if write_behind {
        let last = sse_events(&text).last().and_then(|(id, _)| id.clone()).unwrap();
        let (stream, entry) = last.rsplit_once('#').unwrap();
        let key = format!("mcp:museum:events:{stream}");
        eventually("the last event read is stored", || {
            redis_cli(redis.port, &["XREVRANGE", &key, "+", "-", "COUNT", "1"]).starts_with(entry)
        })
        .await;
    }
    a.kill();
    drop(response);
    let read = sse_events(&text);
    assert!(read.iter().all(|(id, _)| id.is_some()), "each event has an id: {read:?}");
    let last = read.last().and_then(|(id, _)| id.clone()).unwrap();
    let resumed = resume(&b.url, &session, &last).await;
    let answer = answer_in(&resumed);
    assert_eq!(answer["id"], 11, "{resumed:?}");
    assert_eq!(answer["result"]["content"][0]["text"], "ticked by b", "run again on b: {resumed:?}");
    // Every event of the stream the client saw, in the order it saw them.
    let seen: Vec<&(Option<String>, Option<Value>)> = read.iter().chain(&resumed).collect();
    let ids: Vec<&str> = seen.iter().map(|(id, _)| id.as_deref().expect("each event has an id")).collect();
    let unique: HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "no event twice: {ids:?}");
    assert!(ids.windows(2).all(|pair| entry_of(pair[0]) < entry_of(pair[1])), "in the order stored: {ids:?}");
    // What the store replays from the first event is what the client read after it.
    let first = read[0].0.as_deref().unwrap();
    let replayed = resume(&b.url, &session, first).await;
    let after_first: Vec<(Option<String>, Option<Value>)> = seen[1..].iter().map(|event| (*event).clone()).collect();
    assert_eq!(replayed, after_first, "the stream as stored: no event lost nor added");
}

/// A replica that stops after sending an event it wrote behind its sending,
/// named by its own clock, and never stored, leaves its client with an
/// entry that may be above every one in Redis (that clock ahead of Redis's). The replica that takes the call over
/// stores its events above that entry, so the client, resuming after it,
/// gets the answer: Redis's own next entry would be below it, and skipped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_call_is_answered_above_the_entry_its_client_resumed_after_though_redis_never_had_it() {
    let Some(redis) = Redis::start() else { return };
    let mut a = Doomed::start(slow_server("a", store(&redis, "museum").write_behind(true)));
    let b = serve_slow("b", store(&redis, "museum").write_behind(true)).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let priming = start_and_cut(&http, &a.url, &session, 9, "survey", 2000).await;
    a.kill();
    // What the client last got from `a`: an entry a minute ahead of the clocks here (the call and
    // the wait for `a`'s key to expire take seconds), never stored.
    let stream = priming.rsplit_once('#').unwrap().0;
    let ahead = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_millis() + 60_000;
    let unstored = format!("{stream}#{ahead}-0");
    let events = resume(&b.url, &session, &unstored).await;
    let answer = answer_in(&events);
    assert_eq!(answer["result"]["content"][0]["text"], "survey by b", "{events:?}");
    let id = events.iter().find(|(_, message)| message.as_ref() == Some(&answer)).and_then(|(id, _)| id.clone());
    assert!(entry_of(&id.unwrap()) > entry_of(&unstored), "{events:?}");
    // Resumed after it again, the stored answer is there.
    assert_eq!(answer_in(&resume(&b.url, &session, &unstored).await), answer);
}

/// Written behind their sending, the events of many calls at once are
/// stored each under the entry its call was given, each stream in the order
/// it was sent, and a replay on another replica reads them back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn written_behind_the_events_of_calls_at_once_are_stored_in_the_order_sent_under_the_ids_given() {
    let Some(redis) = Redis::start() else { return };
    let (a, b) = (store(&redis, "museum").write_behind(true), store(&redis, "museum"));
    let calls: Vec<_> = (0..8u64)
        .map(|call| {
            let a = a.clone();
            tokio::spawn(async move {
                let stream = format!("call-{call}");
                let mut ids = Vec::new();
                for n in 0..50 {
                    ids.push(a.store_event(&stream, &event(call * 100 + n)).await.expect("named"));
                }
                (stream, ids)
            })
        })
        .collect();
    for call in calls {
        let (stream, ids) = call.await.unwrap();
        assert!(ids.windows(2).all(|pair| entry_of(&pair[0]) < entry_of(&pair[1])), "{ids:?}");
        let key = format!("mcp:museum:events:{stream}");
        eventually("every event stored", || redis_cli(redis.port, &["XLEN", &key]) == "50").await;
        let replayed: Vec<ServerSseMessage> = b.replay_events_after(&ids[0]).await.unwrap().collect().await;
        let replayed_ids: Vec<&str> = replayed.iter().map(|event| event.event_id.as_deref().unwrap()).collect();
        assert_eq!(replayed_ids, ids[1..], "{stream}");
        let read = redis_cli(redis.port, &["XRANGE", &key, "-", "+"]);
        let entries: Vec<&str> = read.lines().filter(|line| line.contains('-') && !line.contains('{')).collect();
        let given: Vec<&str> = ids.iter().map(|id| id.rsplit_once('#').unwrap().1).collect();
        assert_eq!(entries, given, "{stream}: stored in the order sent, under the ids given");
    }
}

/// Written behind, at most 64 MiB of writes wait for Redis: with Redis
/// frozen, 64 events of just under 1 MiB each (with their commands) are
/// named at once and the next waits for room, not named; Redis thawed, it is
/// named too, and all are stored in the order sent, under the ids given.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn written_behind_an_event_past_the_queues_64_mib_waits_for_room_and_is_stored_after_the_others() {
    let Some(redis) = Redis::start() else { return };
    let store = store(&redis, "museum").write_behind(true).timeout(Duration::from_secs(10));
    // Connected (and its writer running) before Redis freezes.
    store.store_event("first", &event(0)).await.expect("named");
    eventually("the first event stored", || redis_cli(redis.port, &["XLEN", "mcp:museum:events:first"]) == "1").await;
    // Its JSON and the 512 bytes counted for its commands stay under 1 MiB.
    let big = |n: i64| {
        let text = "x".repeat((1 << 20) - 1024);
        let result = rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]);
        let message = ServerJsonRpcMessage::response(
            ServerResult::CallToolResult(result),
            rmcp::model::NumberOrString::Number(n),
        );
        ServerSseMessage::from_message(message)
    };
    redis.freeze(true);
    let mut ids = Vec::new();
    for n in 1..=64 {
        let named = tokio::time::timeout(Duration::from_secs(2), store.store_event("big", &big(n))).await;
        ids.push(named.expect("named at once: the queue has room").expect("named"));
    }
    let next = tokio::spawn({
        let (store, event) = (store.clone(), big(65));
        async move { store.store_event("big", &event).await }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!next.is_finished(), "the queue holds 64 MiB: the next event waits for room");
    redis.freeze(false);
    let next = tokio::time::timeout(Duration::from_secs(10), next).await.expect("named once room came back");
    ids.push(next.unwrap().expect("named"));
    assert!(ids.iter().all(|id| !id.contains("#~")), "all stored, none unstored: {ids:?}");
    eventually("all stored", || redis_cli(redis.port, &["XLEN", "mcp:museum:events:big"]) == "65").await;
    let replayed: Vec<ServerSseMessage> = store.replay_events_after(&ids[0]).await.unwrap().collect().await;
    let replayed_ids: Vec<&str> = replayed.iter().map(|event| event.event_id.as_deref().unwrap()).collect();
    assert_eq!(replayed_ids, ids[1..], "stored in the order sent, under the ids given");
}

/// A server stopping gracefully waits for the events it sent before they
/// were stored: with Redis frozen as a call answers (its answer written
/// behind), the stop ends only once Redis, thawed, has the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopping_gracefully_waits_for_the_events_it_wrote_behind() {
    let Some(redis) = Redis::start() else { return };
    let store = store(&redis, "museum").write_behind(true).timeout(Duration::from_secs(3));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    let served = tokio::spawn(slow_server("a", store).serve_http_on(listener, options));
    let http = client();
    let session = open_session(&http, &url, false).await;
    redis.freeze(true);
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "stamp", "arguments": {"millis": 0}}});
    let text = post_request(&http, &url, Some(&session), &call).send().await.unwrap().text().await.unwrap();
    let events = sse_events(&text);
    assert_eq!(answer_in(&events)["result"]["content"][0]["text"], "stamp by a", "answered, Redis frozen: {events:?}");
    let answer = events.last().and_then(|(id, _)| id.clone()).expect("the answer has an id");
    stop.cancel();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!served.is_finished(), "the stop waits for the answer's write");
    redis.freeze(false);
    tokio::time::timeout(Duration::from_secs(10), served).await.expect("stopped once written").unwrap().unwrap();
    let (stream, entry) = answer.rsplit_once('#').unwrap();
    let stored = redis_cli(redis.port, &["XRANGE", &format!("mcp:museum:events:{stream}"), entry, entry]);
    assert!(stored.starts_with(entry), "the answer is in Redis: {stored:?}");
}

/// A call that answers at once is not kept for the other replicas, and has
/// no record in Redis at all: its answer is stored before its response's
/// head goes out, and a client that resumes finds it there. A call still
/// running after a moment is kept, with its replica and request, before the
/// head goes out, and marked answered when it answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_kept_for_the_other_replicas_only_when_it_outlasts_a_moment() {
    let Some(redis) = Redis::start() else { return };
    let a = serve_slow("a", store(&redis, "museum")).await;
    let b = serve_slow("b", store(&redis, "museum")).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let call = |stream: &str| format!("mcp:museum:call:{stream}");
    let stream_of = |event_id: &str| event_id.rsplit_once('#').expect("{stream}#{entry}").0.to_owned();

    // A moment is 10 ms: on a loaded machine a call may take longer, and is
    // then kept; of ten, one answering in time is enough.
    let mut unkept = None;
    for id in 100..110 {
        let fast = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "stamp", "arguments": {"millis": 0}}});
        let text = post_request(&http, &a.url, Some(&session), &fast).send().await.unwrap().text().await.unwrap();
        let events = sse_events(&text);
        let (priming, answer) = (events[0].0.clone().expect("an id"), events.last().unwrap().0.clone().expect("an id"));
        assert_eq!(stream_of(&priming), stream_of(&answer), "{events:?}");
        let fields = redis_cli(redis.port, &["HKEYS", &call(&stream_of(&answer))]);
        if fields.is_empty() {
            unkept = Some(priming);
            break;
        }
        assert!(fields.contains("owner") && fields.contains("answered") && !fields.contains("request"), "{fields}");
    }
    let priming = unkept.expect("a call answered at once was never kept: it has no record at all");
    // Resumed on the other replica from its first event, the answer is there.
    let resumed = resume(&b.url, &session, &priming).await;
    assert_eq!(answer_in(&resumed)["result"]["content"][0]["text"], "stamp by a", "{resumed:?}");

    let priming = start_and_cut(&http, &a.url, &session, 4, "stamp", 600).await;
    let key = call(&stream_of(&priming));
    assert_eq!(redis_cli(redis.port, &["HEXISTS", &key, "request"]), "1", "kept before the head went out");
    assert!(!redis_cli(redis.port, &["HGET", &key, "owner"]).is_empty(), "with the replica running it");
    let resumed = resume(&b.url, &session, &priming).await;
    assert_eq!(answer_in(&resumed)["result"]["content"][0]["text"], "stamp by a", "{resumed:?}");
    assert_eq!(redis_cli(redis.port, &["HEXISTS", &key, "request"]), "0", "its request goes with its answer");
    assert_eq!(redis_cli(redis.port, &["HEXISTS", &key, "answered"]), "1", "no replica is to take it over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_not_safe_to_run_again_whose_replica_stopped_is_answered_as_lost() {
    let Some(redis) = Redis::start() else { return };
    let mut a = Doomed::start(slow_server("a", store(&redis, "museum")));
    let b = serve_slow("b", store(&redis, "museum")).await;
    let http = client();
    let session = open_session(&http, &a.url, false).await;
    let priming = start_and_cut(&http, &a.url, &session, 9, "stamp", 2000).await;
    a.kill();
    let events = resume(&b.url, &session, &priming).await;
    let answer = answer_in(&events);
    assert_eq!(answer["id"], 9);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stopped before it answered") && message.contains("not run again"), "{answer}");
    assert!(answer.to_string().contains("Check whether `stamp` took effect"), "a recovery: {answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_replica_stopped_reads_as_failed_on_the_other() {
    let Some(redis) = Redis::start() else { return };
    let mut a = Doomed::start(slow_server("a", store(&redis, "museum")));
    let b = serve_slow("b", store(&redis, "museum")).await;
    let http = client();
    let session = open_session(&http, &a.url, true).await;
    let start = json!({"jsonrpc": "2.0", "id": 30, "method": "tools/call",
        "params": {"name": "export", "arguments": {"millis": 60_000}}});
    let started = post(&http, &a.url, Some(&session), &start).await.unwrap();
    let task_id = started.message["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{started:?}")).to_owned();
    let get = json!({"jsonrpc": "2.0", "id": 31, "method": "tasks/get", "params": {"taskId": task_id}});
    let working = post(&http, &b.url, Some(&session), &get).await.unwrap();
    assert_eq!(working.message["result"]["status"], "working", "while its replica runs: {working:?}");
    a.kill();
    let deadline = Instant::now() + Duration::from_secs(10);
    let failed = loop {
        let answer = post(&http, &b.url, Some(&session), &get).await.unwrap();
        if answer.message["result"]["status"] != "working" {
            break answer.message;
        }
        assert!(Instant::now() < deadline, "the task still works 10 s after its replica stopped");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    assert!(failed.to_string().contains("stopped before it finished"), "{failed}");
}

/// Waits up to 5 s for `condition`.
async fn eventually(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !condition() {
        assert!(Instant::now() < deadline, "{what}: not within 5 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A Redis that asks for a client certificate (mutual TLS) serves a store
/// that presents one its CA signed, and refuses one without, within the
/// store's timeout; a key that is no key is an error that does not quote it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_mutual_tls_the_store_with_its_client_certificate_is_served_and_one_without_is_refused() {
    let Some(redis) = Redis::start_mutual_tls() else { return };
    let (certificate, key) = redis.client_tls.clone().unwrap();
    let without = store(&redis, "mtls").timeout(Duration::from_millis(500));
    let started = Instant::now();
    assert!(SessionStore::load(&without, "s").await.is_err(), "a store without a certificate is refused");
    assert!(started.elapsed() < Duration::from_secs(5), "within its timeout: {:?}", started.elapsed());
    let with = store(&redis, "mtls").client_certificate(certificate.clone(), key).expect("a certificate and key");
    assert!(matches!(SessionStore::load(&with, "s").await, Ok(None)), "served");
    let secret = b"secret-key-material, not in PEM".to_vec();
    let err = store(&redis, "mtls").client_certificate(certificate.clone(), secret).expect_err("no key");
    assert!(!err.to_string().contains("secret-key"), "the key stays out of the error: {err}");
    let err = RedisStore::new("redis://localhost:6379/").unwrap().client_certificate(certificate, b"".to_vec());
    assert!(err.err().is_some_and(|err| err.to_string().contains("PEM") || err.to_string().contains("rediss")));
}

/// Sentinels with a password of their own (`requirepass` in
/// `sentinel.conf`): a store given it finds the primary, one without is
/// refused, and the password shows in no error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sentinels_with_a_password_of_their_own_answer_a_store_that_has_it() {
    let Some(primary) = Redis::start() else { return };
    let sentinel_port = free_port();
    let config = primary.dir.join("sentinel.conf");
    let password = "sentinel-pw-4f2a-never-shown";
    std::fs::write(
        &config,
        format!(
            "port {sentinel_port}\nbind 127.0.0.1\nrequirepass {password}\nsentinel monitor museum 127.0.0.1 {} 1\n",
            primary.port
        ),
    )
    .unwrap();
    let _sentinel = Process::spawn(&[&config.display().to_string(), "--sentinel"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !redis_cli(sentinel_port, &["-a", password, "--no-auth-warning", "ping"]).contains("PONG") {
        assert!(Instant::now() < deadline, "the sentinel did not answer within 10 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let url = format!("redis+sentinel://127.0.0.1:{sentinel_port}/museum");
    let store =
        || RedisStore::new(&url).expect("a Sentinel URL").namespace("museum").timeout(Duration::from_millis(500));
    let refused = SessionStore::load(&store(), "s").await.expect_err("no password, no primary");
    assert!(!refused.to_string().contains(password), "{refused}");
    let with = store().sentinel_password(password).expect("a Sentinel URL");
    assert!(matches!(SessionStore::load(&with, "s").await, Ok(None)), "the primary, through the sentinel");
    assert!(
        RedisStore::new("redis://localhost/").unwrap().sentinel_password(password).is_err(),
        "for Sentinel URLs only"
    );
}

/// The variable that makes [`serve_from_the_environment`] serve, on its port.
const CLI_CHILD: &str = "MCP_CONTRACT_REDIS_CLI_PORT";

/// Run by [`the_command_line_reads_the_tls_files_of_the_environment`] in a
/// process of its own, with the environment a deployment sets: a server on
/// `run_cli`, which finds its Redis, CA and client certificate there.
#[tokio::test]
#[ignore = "a child process of the_command_line_reads_the_tls_files_of_the_environment"]
async fn serve_from_the_environment() {
    let port = std::env::var(CLI_CHILD).expect("run by the_command_line_reads_the_tls_files_of_the_environment");
    let server = Server::new("museum", "1.0.0").tool(Echo);
    let code = server.run_cli_with(["--http".to_owned(), format!("127.0.0.1:{port}")]).await;
    std::process::exit(if code == std::process::ExitCode::SUCCESS { 0 } else { 1 });
}

/// `run_cli` takes `MCP_REDIS_URL`, `MCP_REDIS_CA_FILE` and the client
/// certificate's `MCP_REDIS_CLIENT_CERT_FILE`/`MCP_REDIS_CLIENT_KEY_FILE`
/// from the environment: against a Redis that asks for TLS with a client
/// certificate, its sessions are stored (an `initialize` succeeds), and
/// `MCP_REDIS_WRITE_BEHIND=1` is taken; a CA file it cannot read, a
/// certificate without its key, or a write-behind that is neither on nor off
/// stops it with an error that names the variable, and shows no password.
#[test]
fn the_command_line_reads_the_tls_files_of_the_environment() {
    let Some(redis) = Redis::start_mutual_tls() else { return };
    let (certificate, key) = redis.client_tls.clone().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = redis.dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let ca = file("cli-ca.crt", redis.tls_ca.as_deref().unwrap());
    let (certificate, key) = (file("cli-client.crt", &certificate), file("cli-client.key", &key));
    let serve = |vars: &[(&str, &str)]| {
        let port = free_port();
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.args(["serve_from_the_environment", "--exact", "--ignored", "--nocapture"]);
        command.env(CLI_CHILD, port.to_string()).env("MCP_REDIS_URL", redis.url());
        for (name, value) in vars {
            command.env(name, value);
        }
        let child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        (port, Process(Some(child)))
    };
    let (port, mut served) = serve(&[
        ("MCP_REDIS_CA_FILE", &ca),
        ("MCP_REDIS_CLIENT_CERT_FILE", &certificate),
        ("MCP_REDIS_CLIENT_KEY_FILE", &key),
        ("MCP_REDIS_WRITE_BEHIND", "1"),
    ]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let deadline = Instant::now() + Duration::from_secs(30);
    let opened = loop {
        match runtime.block_on(initialize(&client(), &url, false)) {
            Ok(answer) => break answer,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            Err(err) => panic!("the server on run_cli did not answer within 30 s: {err}"),
        }
    };
    assert_eq!(opened.status, 200, "the session was stored in the Redis over mutual TLS: {opened:?}");
    assert!(opened.session.is_some(), "{opened:?}");
    let mut child = served.0.take().unwrap();
    let _ = child.kill();
    let mut said = String::new();
    child.stderr.take().unwrap().read_to_string(&mut said).unwrap();
    let _ = child.wait();
    assert!(said.contains("written to Redis (MCP_REDIS_WRITE_BEHIND)"), "the store writes behind: {said}");
    for (vars, named) in [
        (vec![("MCP_REDIS_CA_FILE", "/nonexistent/ca.crt")], "MCP_REDIS_CA_FILE"),
        (
            vec![("MCP_REDIS_CA_FILE", ca.as_str()), ("MCP_REDIS_CLIENT_CERT_FILE", certificate.as_str())],
            "MCP_REDIS_CLIENT_KEY_FILE",
        ),
        (vec![("MCP_REDIS_CA_FILE", ca.as_str()), ("MCP_REDIS_WRITE_BEHIND", "sometimes")], "MCP_REDIS_WRITE_BEHIND"),
    ] {
        let (_, mut refused) = serve(&vars);
        let mut child = refused.0.take().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the server did not stop within 30 s on {vars:?}");
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut said = String::new();
        child.stderr.take().unwrap().read_to_string(&mut said).unwrap();
        assert!(!status.success(), "{vars:?} stops the server: {said}");
        assert!(said.contains(named), "the error names {named}: {said}");
        assert!(!said.contains(ACL_PASSWORD), "no password in the error: {said}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_following_a_stream_is_woken_through_pub_sub_and_unsubscribes_when_it_ends() {
    let Some(redis) = Redis::start() else { return };
    let (a, b) = (store(&redis, "museum"), store(&redis, "museum"));
    let priming = a.store_event("call", &ServerSseMessage::retry(Duration::from_secs(1))).await.unwrap();
    let mut replay = b.replay_events_after(&priming).await.unwrap();
    let channel = "mcp:museum:wake:call".to_owned();
    eventually("the replay subscribes to its stream's channel", || redis.channels().contains(&channel)).await;
    let answer = a.store_event("call", &event(1)).await.unwrap();
    let woken = tokio::time::timeout(Duration::from_secs(5), replay.next()).await.unwrap().unwrap();
    assert_eq!(woken.event_id.as_deref(), Some(answer.as_str()));
    assert!(replay.next().await.is_none(), "the replay ends with its call's answer");
    eventually("the replay unsubscribes once it ended", || !redis.channels().contains(&channel)).await;
}

/// A `redis-server` or `redis-sentinel` process of a failover test; killed when dropped.
struct Process(Option<Child>);

impl Process {
    fn spawn(args: &[&str]) -> Self {
        let child = Command::new("redis-server")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts (see Redis::spawn for how to install it)");
        Self(Some(child))
    }

    /// SIGKILL, as a host dying: nothing is flushed, no goodbye to the sentinels.
    fn kill(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One line of `redis-cli` against `port`.
fn redis_cli(port: u16, args: &[&str]) -> String {
    let output = Command::new("redis-cli").args(["-p", &port.to_string()]).args(args).output().expect("redis-cli runs");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_sentinel_the_replicas_follow_a_failover_and_keep_the_sessions_and_tasks() {
    let Some(mut primary) = Redis::start() else { return };
    let replica_port = free_port();
    let replica_dir = primary.dir.join("replica");
    std::fs::create_dir_all(&replica_dir).unwrap();
    let replica_of = format!("127.0.0.1 {}", primary.port);
    let _redis_replica = Process::spawn(&[
        "--port",
        &replica_port.to_string(),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--dir",
        &replica_dir.display().to_string(),
        "--replicaof",
        &replica_of,
    ]);
    // One sentinel, quorum 1, a primary down after 1 s: production runs three.
    let sentinel_port = free_port();
    let config = primary.dir.join("sentinel.conf");
    std::fs::write(
        &config,
        format!(
            "port {sentinel_port}\nbind 127.0.0.1\nsentinel monitor museum 127.0.0.1 {} 1\n\
             sentinel down-after-milliseconds museum 1000\nsentinel failover-timeout museum 10000\n",
            primary.port
        ),
    )
    .unwrap();
    let _sentinel = Process::spawn(&[&config.display().to_string(), "--sentinel"]);
    let deadline = Instant::now() + Duration::from_secs(15);
    while !redis_cli(sentinel_port, &["sentinel", "replicas", "museum"]).contains(&replica_port.to_string())
        || redis_cli(replica_port, &["info", "replication"]).contains("master_link_status:down")
    {
        assert!(Instant::now() < deadline, "the sentinel did not see the replica in sync within 15 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let url = format!("redis+sentinel://127.0.0.1:{sentinel_port}/museum");
    let store =
        || RedisStore::new(&url).expect("a Sentinel URL").namespace("museum").timeout(Duration::from_millis(500));
    let (a, b) = (replica(store()).await, replica(store()).await);
    let http = client();
    let session = open_session(&http, &a.url, true).await;
    let start = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "export", "arguments": {"millis": 100}}});
    let started = post(&http, &a.url, Some(&session), &start).await.unwrap();
    let task_id = started.message["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{started:?}")).to_owned();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // What the primary holds is on the replica before the primary dies.
    assert_eq!(redis_cli(primary.port, &["wait", "1", "2000"]), "1", "the replica acknowledged");

    let running = Arc::new(AtomicBool::new(true));
    let tally = Arc::new(Tally::default());
    let recovered = Arc::new(Mutex::new(None::<Instant>));
    let killed_at = Arc::new(Mutex::new(None::<Instant>));
    let mut load = Vec::new();
    for worker in 0..2u64 {
        let (http, urls, session) = (http.clone(), [a.url.clone(), b.url.clone()], session.clone());
        let (running, tally, recovered, killed_at) =
            (running.clone(), tally.clone(), recovered.clone(), killed_at.clone());
        load.push(tokio::spawn(async move {
            let mut n = 0u64;
            while running.load(Ordering::Relaxed) {
                n += 1;
                // The session both replicas hold by now: calls on it need no store.
                match post(&http, &urls[(n % 2) as usize], Some(&session), &echo_call(worker * 1_000_000 + n, "load"))
                    .await
                {
                    Ok(answer) if answer.status == 200 && answer.message["result"]["content"][0]["text"] == "load" => {
                        tally.answered.fetch_add(1, Ordering::Relaxed);
                        if killed_at.lock().unwrap().is_some() {
                            recovered.lock().unwrap().get_or_insert_with(Instant::now);
                        }
                    }
                    Ok(answer) if answer.status == 503 && answer.message["error"]["code"] == -32000 => {
                        tally.unavailable.fetch_add(1, Ordering::Relaxed);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    other => {
                        eprintln!("neither answered nor refused: {other:?}");
                        tally.other.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    primary.child.take().map(|mut child| {
        let _ = child.kill();
        child.wait()
    });
    let killed = Instant::now();
    *killed_at.lock().unwrap() = Some(killed);
    // Recovered: both replicas serve a session opened after the failover (it needs the new primary).
    let deadline = killed + Duration::from_secs(30);
    loop {
        let opened = initialize(&http, &a.url, false).await;
        if let Ok(answer) = &opened
            && answer.status == 200
            && let Some(fresh) = &answer.session
            && post(&http, &b.url, Some(fresh), &echo_call(5, "after")).await.is_ok_and(|answer| answer.status == 200)
        {
            break;
        }
        assert!(Instant::now() < deadline, "no recovery within 30 s of the primary's death: {opened:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let recovery = killed.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    running.store(false, Ordering::Relaxed);
    for worker in load {
        worker.await.unwrap();
    }
    let promoted = redis_cli(sentinel_port, &["sentinel", "get-master-addr-by-name", "museum"]);
    assert!(promoted.contains(&replica_port.to_string()), "the sentinel promoted the replica: {promoted}");
    let (answered, unavailable, other) = (
        tally.answered.load(Ordering::Relaxed),
        tally.unavailable.load(Ordering::Relaxed),
        tally.other.load(Ordering::Relaxed),
    );
    eprintln!(
        "failover: recovered {recovery:?} after the primary was killed; {answered} calls answered, \
         {unavailable} refused with 503 while there was no primary, {other} otherwise"
    );
    assert_eq!(other, 0, "every call answered or refused with a retryable 503");
    assert!(answered > 0 && recovered.lock().unwrap().is_some(), "calls answered after the failover");
    // The session and the task made before the failover are on the new primary.
    let answer = post(&http, &b.url, Some(&session), &echo_call(30, "kept")).await.unwrap();
    assert_eq!(answer.message["result"]["content"][0]["text"], "kept", "{answer:?}");
    let get = json!({"jsonrpc": "2.0", "id": 31, "method": "tasks/get", "params": {"taskId": task_id}});
    let answer = post(&http, &b.url, Some(&session), &get).await.unwrap();
    assert_eq!(answer.message["result"]["status"], "completed", "{answer:?}");
}
