//! Two museum replicas behind a real haproxy (round robin, no stickiness)
//! sharing one Redis (feature `redis`), driven by the official Python client
//! (tests/e2e/python/replicas_client.py): a session initialized through the
//! proxy keeps working whichever replica each request reaches, and a task
//! started through one replica is polled and read through the other.
//! haproxy's log shows which replica served each request.
//!
//! The museum binary must be built with the feature: `cargo build --example
//! museum --features redis` (`.ci/run` does). A missing `redis-server`,
//! `haproxy` or `python3` fails the test with how to install it;
//! `MCP_CONTRACT_SKIP_REDIS=1` skips it.

#![cfg(feature = "redis")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const SKIP_VARIABLE: &str = "MCP_CONTRACT_SKIP_REDIS";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>`: this test binary lives in its `deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    exe.parent().and_then(Path::parent).expect("the test binary lies in target/<profile>/deps").to_path_buf()
}

/// Whether to run: `false` under `MCP_CONTRACT_SKIP_REDIS=1`; a missing program fails with how to install it.
fn require(programs: &[(&str, &str, &str)]) -> bool {
    if std::env::var_os(SKIP_VARIABLE).is_some_and(|value| value == "1") {
        eprintln!("SKIPPED: {SKIP_VARIABLE}=1; the replicas behind haproxy did not run");
        return false;
    }
    for (program, version, package) in programs {
        let found = Command::new(program).arg(version).stdout(Stdio::null()).stderr(Stdio::null()).status();
        assert!(
            found.is_ok_and(|status| status.success()),
            "`{program}` is needed to serve two replicas behind a proxy. Install it (Debian/Ubuntu: `apt-get \
             install {package}`; `.ci/run` does), or set {SKIP_VARIABLE}=1 to skip this test."
        );
    }
    true
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn run(command: &mut Command, what: &str) -> Output {
    let output = command.output().unwrap_or_else(|err| panic!("{what}: cannot start: {err}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
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
    let mut child = Command::new(&binary)
        .args(["--http", &format!("127.0.0.1:{port}")])
        .env("MCP_REDIS_URL", redis_url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the museum example starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut said = String::new();
    loop {
        let mut line = String::new();
        let read = stderr.read_line(&mut line).expect("stderr is readable");
        assert!(read > 0, "the museum example exited before serving:\n{said}");
        said.push_str(&line);
        if line.contains("http://") {
            break;
        }
    }
    assert!(
        said.contains("in the Redis of MCP_REDIS_URL"),
        "the museum binary was built without the `redis` feature: run `cargo build --example museum --features \
         redis`\n{said}"
    );
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    Process(child)
}

/// haproxy in front of `replicas`: round robin, no stickiness, each request
/// logged (with the replica that served it) to `log`.
fn haproxy(port: u16, replicas: &[u16], dir: &Path) -> (Process, PathBuf) {
    let servers: String =
        replicas.iter().enumerate().map(|(n, replica)| format!("  server replica{n} 127.0.0.1:{replica}\n")).collect();
    let config = format!(
        "global\n  log stdout format raw local0\n\
         defaults\n  mode http\n  log global\n  option httplog\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n\
         frontend mcp\n  bind 127.0.0.1:{port}\n  default_backend museums\n\
         backend museums\n  balance roundrobin\n{servers}"
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

/// The virtualenv of tests/e2e.rs, with the pinned Python client.
fn venv_python() -> PathBuf {
    let requirements = root().join("tests/e2e/python/requirements.txt");
    let wanted = std::fs::read_to_string(&requirements).expect("requirements.txt is readable");
    let venv = profile_dir().parent().expect("target/").join("e2e/python-venv");
    let python = venv.join("bin").join("python");
    let stamp = venv.join("installed-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|installed| installed == wanted) {
        return python;
    }
    let _ = std::fs::remove_dir_all(&venv);
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv), "python3 -m venv");
    run(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(&requirements),
        "pip install -r tests/e2e/python/requirements.txt",
    );
    std::fs::write(&stamp, wanted).expect("the stamp is writable");
    python
}

#[test]
fn two_museum_replicas_behind_haproxy_share_sessions_and_tasks_through_redis() {
    let programs = [
        ("redis-server", "--version", "redis-server"),
        ("haproxy", "-v", "haproxy"),
        ("python3", "--version", "python3 python3-venv"),
    ];
    if !require(&programs) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("mcp-contract-replicas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let redis_port = free_port();
    let _redis = redis(redis_port);
    let redis_url = format!("redis://127.0.0.1:{redis_port}/");
    let ports = [free_port(), free_port()];
    let _replicas: Vec<Process> = ports.iter().map(|port| museum(*port, &redis_url)).collect();
    let proxy_port = free_port();
    let (proxy, log) = haproxy(proxy_port, &ports, &dir);

    let output = run(
        Command::new(venv_python())
            .arg(root().join("tests/e2e/python/replicas_client.py"))
            .arg("--data")
            .arg(root().join("examples/data/collection.json"))
            .arg("--url")
            .arg(format!("http://127.0.0.1:{proxy_port}/mcp")),
        "the Python client through haproxy",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ok: "), "the client printed no verdict:\n{stdout}");
    drop(proxy);
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    let served = |replica: &str| log.lines().filter(|line| line.contains(&format!("museums/{replica} "))).count();
    let (first, second) = (served("replica0"), served("replica1"));
    eprintln!("replicas: {}; requests served by each replica: {first} and {second}", stdout.trim());
    assert!(first >= 10 && second >= 10, "each replica served a share of the requests:\n{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
