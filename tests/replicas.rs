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

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::needs::{self, HAPROXY, NODE, NPM, PYTHON3, REDIS_SERVER};
use support::{profile_dir, root, run, venv_python};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A child process killed (and waited for) when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not listen on port {port} within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn redis(port: u16) -> Process {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    let redis = Process(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(mut socket) = TcpStream::connect(("127.0.0.1", port)) {
            let mut answer = [0u8; 16];
            if socket.write_all(b"PING\r\n").is_ok()
                && socket.read(&mut answer).is_ok_and(|n| answer[..n].starts_with(b"+PONG"))
            {
                return redis;
            }
        }
        assert!(Instant::now() < deadline, "redis-server did not answer PING within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A museum replica on `port`, sharing the Redis of `redis_url`.
fn museum(port: u16, redis_url: &str) -> Process {
    let binary = profile_dir().join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(binary.exists(), "{} is missing: run `cargo build --example museum --features redis`", binary.display());
    let (child, _, said) = support::serve_http(
        Command::new(&binary).args(["--http", &format!("127.0.0.1:{port}")]).env("MCP_REDIS_URL", redis_url),
    );
    assert!(
        said.contains("in the Redis of MCP_REDIS_URL"),
        "the museum binary was built without the `redis` feature: run `cargo build --example museum --features \
         redis`\n{said}"
    );
    Process(child)
}

/// haproxy in front of `replicas`: round robin, no stickiness, each request
/// logged (with the replica that served it) to `log`, and answered with the
/// replica's name in `X-Replica`. A replica that stops is found by the health
/// check within a quarter second, and a request it cannot take goes to the
/// other; SSE events pass at once (`http-no-delay`: haproxy would else hold
/// the response headers and small events for about 200 ms).
fn haproxy(port: u16, replicas: &[u16], dir: &Path) -> (Process, PathBuf) {
    let servers: String = replicas
        .iter()
        .enumerate()
        .map(|(n, replica)| format!("  server replica{n} 127.0.0.1:{replica} check inter 250ms fall 1 rise 2\n"))
        .collect();
    let config = format!(
        "global\n  log stdout format raw local0\n\
         defaults\n  mode http\n  log global\n  option httplog\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend museums\n\
         backend museums\n  balance roundrobin\n  option redispatch\n  retries 3\n  option http-no-delay\n\
         http-response set-header X-Replica %[srv_name]\n{servers}"
    );
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).unwrap();
    let log = dir.join("haproxy.log");
    let child = Command::new("haproxy")
        .args(["-db", "-f"])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("haproxy starts");
    let proxy = Process(child);
    wait_for_port(port, "haproxy");
    (proxy, log)
}

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
        let replicas = ports.iter().map(|port| Some(museum(*port, &redis_url))).collect();
        let proxy_port = free_port();
        let (proxy, log) = haproxy(proxy_port, &ports, &dir);
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
fn resume_a_call_whose_replica_was_killed(client: Client) {
    let Some(mut cluster) = Cluster::start(client) else { return };
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
    resume_a_call_whose_replica_was_killed(Client::Python);
}

#[test]
fn two_museum_replicas_behind_haproxy_serve_the_typescript_client() {
    share_sessions_and_tasks(Client::TypeScript);
}

#[test]
fn a_call_whose_replica_is_killed_is_resumed_by_the_typescript_client() {
    resume_a_call_whose_replica_was_killed(Client::TypeScript);
}
