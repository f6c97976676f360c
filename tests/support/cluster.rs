//! Redis, museum replicas sharing it, and haproxy in front of them, on free
//! loopback ports: what `tests/replicas.rs` and `tests/soak.rs` start.
//!
//! The museum binary must be built with the feature `redis`: `cargo build
//! --example museum --features redis` (`.ci/run` does).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::profile_dir;

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A child process killed (SIGKILL, and waited for) when dropped.
pub(crate) struct Process(pub(crate) Child);

impl Process {
    pub(crate) fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not listen on port {port} within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A `redis-server` on `port`, without persistence: a restart loses every key.
pub(crate) fn redis(port: u16) -> Process {
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

fn museum_binary() -> PathBuf {
    let binary = profile_dir().join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(binary.exists(), "{} is missing: run `cargo build --example museum --features redis`", binary.display());
    binary
}

fn assert_redis_feature(said: &str) {
    assert!(
        said.contains("in the Redis of MCP_REDIS_URL"),
        "the museum binary was built without the `redis` feature: run `cargo build --example museum --features \
         redis`\n{said}"
    );
}

/// A museum replica on `port`, sharing the Redis of `redis_url`, with `env` set.
pub(crate) fn museum(port: u16, redis_url: &str, env: &[(&str, &str)]) -> Process {
    let mut command = Command::new(museum_binary());
    command.args(["--http", &format!("127.0.0.1:{port}")]).env("MCP_REDIS_URL", redis_url).envs(env.iter().copied());
    let (child, _, said) = super::serve_http(&mut command);
    assert_redis_feature(&said);
    Process(child)
}

/// The lines a process wrote on stderr, each with when it was read.
pub(crate) type Lines = Arc<Mutex<Vec<(Instant, String)>>>;

/// [`museum`] with `env` set, each line it writes on stderr kept in `lines`
/// with the time it was read (the replica's own timestamps are not needed).
pub(crate) fn museum_logged(port: u16, redis_url: &str, env: &[(&str, &str)], lines: &Lines) -> Process {
    let mut command = Command::new(museum_binary());
    command.args(["--http", &format!("127.0.0.1:{port}")]).env("MCP_REDIS_URL", redis_url);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the museum starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut said = String::new();
    loop {
        let mut line = String::new();
        let read = stderr.read_line(&mut line).expect("stderr is readable");
        assert!(read > 0, "the museum exited before serving:\n{said}");
        said.push_str(&line);
        lines.lock().unwrap().push((Instant::now(), line.trim_end().to_owned()));
        if line.contains("http://") {
            break;
        }
    }
    assert_redis_feature(&said);
    let lines = Arc::clone(lines);
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            lines.lock().unwrap().push((Instant::now(), line));
        }
    });
    Process(child)
}

/// haproxy in front of `replicas`: round robin, no stickiness, each request
/// logged (with the replica that served it) to `log`, and answered with the
/// replica's name in `X-Replica`. A replica that stops is found by the health
/// check within a quarter second, and a request it cannot take goes to the
/// other; SSE events pass at once (`http-no-delay`: haproxy would else hold
/// the response headers and small events for about 200 ms).
///
/// With `sticky`, a second frontend on that port sends each session to one
/// replica, by a hash of its `Mcp-Session-Id` (an `initialize`, which has
/// none, goes round robin): what a tool asking its client on the session needs.
pub(crate) fn haproxy(port: u16, replicas: &[u16], dir: &Path, sticky: Option<u16>) -> (Process, PathBuf) {
    let servers: String = replicas
        .iter()
        .enumerate()
        .map(|(n, replica)| format!("  server replica{n} 127.0.0.1:{replica} check inter 250ms fall 1 rise 2\n"))
        .collect();
    let sticky = match sticky {
        Some(sticky) => format!(
            "frontend sticky\n  bind 127.0.0.1:{sticky}\n  default_backend sessions\n\
             backend sessions\n  balance hdr(Mcp-Session-Id)\n  hash-type consistent\n  option redispatch\n  retries 3\n  \
             option http-no-delay\n  http-response set-header X-Replica %[srv_name]\n{servers}"
        ),
        None => String::new(),
    };
    let config = format!(
        "global\n  log stdout format raw local0\n\
         defaults\n  mode http\n  log global\n  option httplog\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend museums\n\
         backend museums\n  balance roundrobin\n  option redispatch\n  retries 3\n  option http-no-delay\n\
         http-response set-header X-Replica %[srv_name]\n{servers}{sticky}"
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
