//! Two museum replicas behind a real haproxy (round robin, no stickiness)
//! sharing one Redis (feature `redis`), driven by the official clients
//! (tests/e2e/python/replicas_client.py and tests/e2e/ts2/replicas_client.mjs): a session initialized through the
//! proxy keeps working whichever replica each request reaches, and a task
//! started through one replica is polled and read through the other; and a
//! call whose replica is killed mid-call is resumed by the client's own
//! reconnection (`Last-Event-ID`) through the other replica, which runs it
//! again (the museum's `export_department` is read-only) and answers it.
//! haproxy's log shows which replica served each request; its `X-Replica`
//! response header tells the client. Each test runs with PyPI `mcp` and
//! with npm `@modelcontextprotocol/client` (the TypeScript SDK v2).
//!
//! The museum binary must be built with the feature: `cargo build --example
//! museum --features redis` (`.ci/run` does). Without `redis-server`,
//! `haproxy`, `python3` or `node` a test is skipped with how to install it,
//! and fails under CI.

#![cfg(feature = "redis")]

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::cluster::{Process, free_port, haproxy, museum, redis};
use support::needs::{self, HAPROXY, NODE, NPM, PYTHON3, REDIS_SERVER};
use support::{root, run, venv_python};

/// Redis, two museum replicas sharing it, and haproxy in front of them, in a
/// directory of their own; `None` (skipped) on a machine without one of their programs.
struct Cluster {
    dir: PathBuf,
    // Dropped last: the replicas and the proxy go first.
    replicas: Vec<Option<Process>>,
    proxy: Option<Process>,
    log: PathBuf,
    url: String,
    _redis: Process,
}

impl Cluster {
    fn start(client: Client) -> Option<Self> {
        Self::start_with(client, &[])
    }

    /// [`Cluster::start`] with `env` set for both replicas.
    fn start_with(client: Client, env: &[(&str, &str)]) -> Option<Self> {
        let mut programs = vec![REDIS_SERVER, HAPROXY];
        match client {
            Client::Python => programs.push(PYTHON3),
            Client::TypeScript => programs.extend([NODE, NPM]),
        }
        if !needs::all(&programs) {
            return None;
        }
        let dir = std::env::temp_dir().join(format!("mcp-contract-replicas-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&dir).unwrap();
        let redis_port = free_port();
        let redis = redis(redis_port);
        let redis_url = format!("redis://127.0.0.1:{redis_port}/");
        let ports = [free_port(), free_port()];
        let replicas = ports.iter().map(|port| Some(museum(*port, &redis_url, env))).collect();
        let proxy_port = free_port();
        let (proxy, log) = haproxy(proxy_port, &ports, &dir, None);
        let url = format!("http://127.0.0.1:{proxy_port}/mcp");
        Some(Self { dir, replicas, proxy: Some(proxy), log, url, _redis: redis })
    }

    /// How many requests each replica served, by haproxy's log (complete once the proxy stopped).
    fn served(&mut self) -> (String, [usize; 2]) {
        drop(self.proxy.take());
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let served = |replica: &str| log.lines().filter(|line| line.contains(&format!("museums/{replica} "))).count();
        let counts = [served("replica0"), served("replica1")];
        (log, counts)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.replicas.clear();
        drop(self.proxy.take());
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The official client that drives the cluster.
#[derive(Clone, Copy)]
enum Client {
    /// PyPI `mcp` (tests/e2e/python/replicas_client.py).
    Python,
    /// npm `@modelcontextprotocol/client` (tests/e2e/ts2/replicas_client.mjs).
    TypeScript,
}

impl Client {
    fn command(self, url: &str, mode: &str) -> Command {
        let mut command = match self {
            Self::Python => {
                let mut command = Command::new(venv_python());
                command.arg(root().join("tests/e2e/python/replicas_client.py"));
                command
            }
            Self::TypeScript => {
                let mut command = Command::new("node");
                command.arg("replicas_client.mjs").current_dir(support::ts2_dir());
                command
            }
        };
        command.arg("--data").arg(root().join("examples/data/collection.json")).args(["--url", url, "--mode", mode]);
        command
    }
}

/// A session through the proxy works whichever replica each request
/// reaches, and a task started through one is polled and read through both.
fn share_sessions_and_tasks(client: Client) {
    let Some(mut cluster) = Cluster::start(client) else { return };
    let output = run(&mut client.command(&cluster.url, "share"), "the client through haproxy");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ok: "), "the client printed no verdict:\n{stdout}");
    let (log, [first, second]) = cluster.served();
    eprintln!("replicas: {}; requests served by each replica: {first} and {second}", stdout.trim());
    assert!(first >= 10 && second >= 10, "each replica served a share of the requests:\n{log}");
}

/// The replica serving a call is killed (SIGKILL) once the call's stream
/// began: the client resumes it through the proxy with `Last-Event-ID`, the
/// other replica answers, and the answer is the whole export.
fn resume_a_call_whose_replica_was_killed(client: Client, env: &[(&str, &str)]) {
    let Some(mut cluster) = Cluster::start_with(client, env) else { return };
    let mut child = client
        .command(&cluster.url, "killed")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let said = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut printed = String::new();
    let killed = loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = child.wait();
            panic!("the client ended before its call began:\n{printed}\n{}", said.join().unwrap_or_default());
        }
        printed.push_str(&line);
        if let Some(replica) = line.trim().strip_prefix("serving-replica: ") {
            break replica.to_owned();
        }
    };
    let index: usize = match killed.as_str() {
        "replica0" => 0,
        "replica1" => 1,
        other => panic!("the call's response named no replica ({other:?}): is haproxy's X-Replica header set?"),
    };
    // A killed process: nothing drains, its calls and its heartbeat stop at once.
    drop(cluster.replicas[index].take());
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the client can be waited for") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the client got no answer within 90 s of its replica's death:\n{}", said.join().unwrap_or_default());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = stdout.read_to_string(&mut printed);
    let said = said.join().unwrap_or_default();
    assert!(status.success() && printed.contains("ok: "), "the client failed ({status}):\n{printed}\n{said}");
    let (log, _) = cluster.served();
    let survivor = format!("museums/replica{} ", 1 - index);
    assert!(
        log.lines().any(|line| line.contains(&survivor) && line.contains("\"GET ")),
        "the client resumed through the other replica:\n{log}"
    );
    eprintln!("replicas: {killed} killed mid-call; {}", said.trim());
}

#[test]
fn two_museum_replicas_behind_haproxy_share_sessions_and_tasks_through_redis() {
    share_sessions_and_tasks(Client::Python);
}

#[test]
fn a_call_whose_replica_is_killed_is_resumed_through_the_other_and_answered() {
    resume_a_call_whose_replica_was_killed(Client::Python, &[]);
}

/// The same with the replicas writing a call's events behind their sending
/// (`MCP_REDIS_WRITE_BEHIND=1`).
#[test]
fn written_behind_a_call_whose_replica_is_killed_is_resumed_through_the_other_and_answered() {
    resume_a_call_whose_replica_was_killed(Client::Python, &[("MCP_REDIS_WRITE_BEHIND", "1")]);
}

#[test]
fn two_museum_replicas_behind_haproxy_serve_the_typescript_client() {
    share_sessions_and_tasks(Client::TypeScript);
}

#[test]
fn a_call_whose_replica_is_killed_is_resumed_by_the_typescript_client() {
    resume_a_call_whose_replica_was_killed(Client::TypeScript, &[]);
}

/// One `POST` of `body` to `port` over a fresh connection, as a 2026-07-28
/// client sends a `tools/call` of `take_off_view`: the JSON-RPC answer, from a
/// JSON body or the SSE event that carries it.
fn post_round(port: u16, body: &serde_json::Value) -> serde_json::Value {
    use std::io::Write;
    let body = body.to_string();
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the replica listens");
    socket.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        socket,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: take_off_view\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    socket.read_to_string(&mut text).expect("the replica answers within 10 s");
    text.lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|message| message.get("id").is_some())
        .unwrap_or_else(|| panic!("no answer in:\n{text}"))
}

/// The museum's replicas, given one `REQUEST_STATE_KEY`, take each other's
/// `requestState`: an input-required round asked by one is answered through the
/// other, as a round robin sends it. Each drew its own key before (the soak found
/// half its rounds refused with "requestState integrity check failed").
#[test]
fn museum_replicas_with_one_request_state_key_take_each_others_rounds() {
    if !needs::all(&[REDIS_SERVER]) {
        return;
    }
    let redis_port = free_port();
    let _redis = redis(redis_port);
    let redis_url = format!("redis://127.0.0.1:{redis_port}/");
    let round = |key: Option<&str>| {
        let lines = support::cluster::Lines::default();
        let env: Vec<(&str, &str)> = key.map(|key| ("REQUEST_STATE_KEY", key)).into_iter().collect();
        let ports = [free_port(), free_port()];
        let _replicas: Vec<Process> =
            ports.iter().map(|port| support::cluster::museum_logged(*port, &redis_url, &env, &lines)).collect();
        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "replicas-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        });
        let mut params =
            serde_json::json!({"name": "take_off_view", "arguments": {"object_id": 100019}, "_meta": meta});
        let first = post_round(
            ports[0],
            &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}),
        );
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let (ask, _) =
            first["result"]["inputRequests"].as_object().and_then(|asks| asks.iter().next()).expect("an ask");
        params["inputResponses"] = serde_json::json!({ask.clone(): {"action": "accept", "content": {"confirm": true}}});
        params["requestState"] = first["result"]["requestState"].clone();
        post_round(ports[1], &serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}))
    };
    let shared = round(Some("the replicas of this test share this key, 32 bytes or more"));
    let text = shared["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("is off view"), "the other replica took the round: {shared}");
    // Without the key, each replica signs with its own: the check is real.
    let own = round(None);
    assert!(own["error"]["message"].as_str().is_some_and(|m| m.contains("requestState integrity")), "{own}");
}
