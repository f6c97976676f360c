//! End-to-end: the museum example driven by the official MCP clients.
//!
//! - Python (`mcp`, pinned in tests/e2e/python/requirements.txt), over stdio and
//!   over Streamable HTTP with sessions and stateless; the virtualenv is created
//!   under `target/e2e/` on first use.
//! - TypeScript (`@modelcontextprotocol/sdk`, pinned in tests/e2e/ts/package-lock.json),
//!   the strict client that validates error results against output schemas;
//!   `npm ci` installs it under `target/e2e/ts/` on first use, so the source
//!   tree never holds a `node_modules`.
//!
//! A missing `python3` or `node` fails these tests with how to install it; set
//! `MCP_CONTRACT_SKIP_E2E=1` to skip them on a machine without the clients.

#![cfg(feature = "rmcp")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>`: this test binary lives in its `deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    exe.parent().and_then(Path::parent).expect("the test binary lies in target/<profile>/deps").to_path_buf()
}

fn museum() -> PathBuf {
    let path = profile_dir().join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: `cargo test --workspace` builds the examples; after `cargo test --test e2e` alone, \
         run `cargo build --example museum` first",
        path.display()
    );
    path
}

fn collection() -> PathBuf {
    root().join("examples/data/collection.json")
}

/// The variable that skips these tests on a machine without the clients' runtimes.
const SKIP_VARIABLE: &str = "MCP_CONTRACT_SKIP_E2E";

/// Whether the end-to-end tests should run: `false` only when the user opted out
/// with `MCP_CONTRACT_SKIP_E2E=1`. A missing `program` fails the test with how
/// to install it, so that a machine without it never passes silently.
fn require(program: &str) -> bool {
    if std::env::var_os(SKIP_VARIABLE).is_some_and(|value| value == "1") {
        eprintln!("SKIPPED: {SKIP_VARIABLE}=1; the end-to-end test against `{program}` did not run");
        return false;
    }
    let found = Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    assert!(
        found.is_ok_and(|status| status.success()),
        "`{program}` is needed by the end-to-end tests, which drive the museum example with the official \
         MCP clients. Install it (Debian/Ubuntu: `apt-get install {package}`), or set {SKIP_VARIABLE}=1 to \
         skip these tests.",
        package = install_package(program),
    );
    true
}

/// The Debian package that brings `program`.
fn install_package(program: &str) -> &str {
    match program {
        "python3" => "python3 python3-venv",
        "node" | "npm" => "nodejs npm",
        other => other,
    }
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

/// The virtualenv's python, with the pinned requirements installed (once per
/// requirements file content: a stamp holds what was installed).
fn venv_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let requirements = root().join("tests/e2e/python/requirements.txt");
        let wanted = std::fs::read_to_string(&requirements).expect("requirements.txt is readable");
        let venv = profile_dir().parent().expect("target/").join("e2e/python-venv");
        let bin = if cfg!(windows) { venv.join("Scripts") } else { venv.join("bin") };
        let python = bin.join(format!("python{}", std::env::consts::EXE_SUFFIX));
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
    })
}

fn python_client() -> Command {
    let mut command = Command::new(venv_python());
    command.arg(root().join("tests/e2e/python/museum_client.py")).arg("--data").arg(collection());
    command
}

fn assert_checks_passed(output: &Output, what: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ok: "), "{what} printed no verdict:\n{stdout}");
    eprintln!("{what}: {}", stdout.trim());
}

#[test]
fn python_client_over_stdio() {
    if !require("python3") {
        return;
    }
    let output = run(python_client().arg("--stdio").arg(museum()), "the Python client over stdio");
    assert_checks_passed(&output, "python/stdio");
}

/// The museum example serving Streamable HTTP on a port the system chose;
/// killed when dropped, unless [`HttpMuseum::terminate`] stopped it first.
struct HttpMuseum {
    child: Child,
    url: String,
}

impl HttpMuseum {
    fn start(extra: &[&str]) -> Self {
        Self::start_with_env(extra, &[])
    }

    fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(museum())
            .args(["--http", "127.0.0.1:0"])
            .args(extra)
            .env("MUSEUM_TEST_TOOLS", "1")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the museum example starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
        let mut line = String::new();
        let url = loop {
            line.clear();
            let read = stderr.read_line(&mut line).expect("stderr is readable");
            assert!(read > 0, "the museum example exited before serving");
            if let Some(at) = line.find("http://") {
                break line[at..].trim().to_owned();
            }
        };
        // Keep draining stderr (the panic test writes a backtrace there) so the
        // server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Self { child, url }
    }

    /// SIGTERM, then expect a clean exit within a few seconds: graceful shutdown.
    #[cfg(unix)]
    fn terminate(mut self) {
        run(Command::new("kill").args(["-TERM", &self.child.id().to_string()]), "kill -TERM");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited on") {
                assert!(status.success(), "the server did not exit cleanly on SIGTERM: {status}");
                return;
            }
            assert!(Instant::now() < deadline, "the server did not stop within 10 s of SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for HttpMuseum {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python_client_over_http(extra: &[&str], what: &str) {
    if !require("python3") {
        return;
    }
    let server = HttpMuseum::start(extra);
    let mut client = python_client();
    client.arg("--url").arg(&server.url);
    if extra.contains(&"--stateless") {
        // No session to remember the client's capabilities, carry an answer back or
        // announce resource updates to: the client skips client requests and subscriptions.
        client.arg("--stateless");
    }
    let output = run(&mut client, what);
    assert_checks_passed(&output, what);
    #[cfg(unix)]
    server.terminate();
}

#[test]
fn python_client_over_streamable_http_with_sessions() {
    python_client_over_http(&[], "python/http (sessions)");
}

#[test]
fn python_client_over_stateless_streamable_http() {
    python_client_over_http(&["--stateless"], "python/http (stateless)");
}

/// The museum in auth mode `jwt`: the client mints its tokens with PyJWT, runs
/// the whole exercise with a bearer token holding the museum's scope, then
/// checks the 401 challenge, the metadata and a refused scope.
#[test]
fn python_client_over_streamable_http_with_bearer_tokens() {
    if !require("python3") {
        return;
    }
    let secret = "e2e-secret-for-loopback-tests-0123456789";
    let server = HttpMuseum::start_with_env(&[], &[("MCP_AUTH_MODE", "jwt"), ("MCP_AUTH_SECRET_KEY", secret)]);
    let what = "python/http (jwt)";
    let output = run(python_client().arg("--url").arg(&server.url).arg("--jwt-secret").arg(secret), what);
    assert_checks_passed(&output, what);
    #[cfg(unix)]
    server.terminate();
}

#[test]
fn typescript_client_accepts_error_results_of_tools_with_output_schemas() {
    if !require("node") || !require("npm") {
        return;
    }
    // The client and its pinned packages run from target/e2e/ts: node resolves
    // imports next to the script, and the source tree stays free of node_modules.
    let source = root().join("tests/e2e/ts");
    let dir = profile_dir().parent().expect("target/").join("e2e/ts");
    std::fs::create_dir_all(&dir).expect("target/e2e/ts is writable");
    for file in ["package.json", "strict_client.mjs"] {
        std::fs::copy(source.join(file), dir.join(file)).expect("the client's files copy");
    }
    // Install again whenever the committed lock file differs from the installed one.
    let lock = std::fs::read(source.join("package-lock.json")).expect("package-lock.json is readable");
    let stamp = dir.join("installed-package-lock.json");
    if std::fs::read(&stamp).ok().as_ref() != Some(&lock) || !dir.join("node_modules").exists() {
        std::fs::write(dir.join("package-lock.json"), &lock).expect("the lock file copies");
        run(
            Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&dir),
            "npm ci in target/e2e/ts",
        );
        std::fs::write(&stamp, &lock).expect("the stamp is writable");
    }
    let output = run(
        Command::new("node").arg("strict_client.mjs").arg(museum()).arg(collection()).current_dir(&dir),
        "the TypeScript client",
    );
    assert_checks_passed(&output, "typescript/stdio");
}

#[test]
fn a_client_that_closes_stdin_before_initialize_ends_the_server_cleanly() {
    let output = Command::new(museum()).stdin(Stdio::null()).output().expect("the museum example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: {stderr}", output.status);
    assert!(!stderr.contains("rror"), "nothing failed, nothing is reported: {stderr}");
    assert!(output.stdout.is_empty(), "stdout carries only the protocol");
}

#[test]
fn a_startup_failure_prints_its_message_not_debug_output() {
    let output = Command::new(museum()).args(["--http", "127.0.0.1:99999"]).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.starts_with("museum: "), "{stderr}");
    assert!(!stderr.contains("Io(") && !stderr.contains("Custom {"), "no Debug form: {stderr}");
}
