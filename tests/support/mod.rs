//! What the tests that drive the museum with the official clients share: the
//! paths of the build, running a command, and the clients' runtimes, each
//! installed pinned under `target/e2e/` once per lock file.
//!
//! The installs hold a file lock, so test binaries run at once (nextest)
//! never build one virtualenv or `node_modules` over each other.

// Each test binary uses its part.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

#[path = "../../runtime/tests/support/needs.rs"]
pub(crate) mod needs;

pub(crate) mod cluster;
pub(crate) mod stdio;

pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>`: the test binary lives in its `deps/`.
pub(crate) fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    exe.parent().and_then(Path::parent).expect("the test binary lies in target/<profile>/deps").to_path_buf()
}

/// Start `server` (a command that serves Streamable HTTP and says its URL on
/// stderr), and wait until it serves: the child, its URL, and what it said
/// up to it. Its stderr is drained after, so it never blocks on a full pipe.
pub(crate) fn serve_http(server: &mut Command) -> (Child, String, String) {
    let mut child =
        server.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the server starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut said = String::new();
    let url = loop {
        let mut line = String::new();
        let read = stderr.read_line(&mut line).expect("stderr is readable");
        assert!(read > 0, "the server exited before serving:\n{said}");
        said.push_str(&line);
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, url, said)
}

/// [`serve_http`], keeping what the server says on stderr after it serves
/// (read it once the server stopped, to see what a shutdown logged).
pub(crate) fn serve_http_keeping_stderr(
    server: &mut Command,
) -> (Child, String, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
    let mut child =
        server.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the server starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let kept = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let url = loop {
        let mut line = String::new();
        let read = stderr.read_line(&mut line).expect("stderr is readable");
        let said = String::from_utf8_lossy(&kept.lock().unwrap()).into_owned();
        assert!(read > 0, "the server exited before serving:\n{said}");
        kept.lock().unwrap().extend_from_slice(line.as_bytes());
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_owned();
        }
    };
    let sink = std::sync::Arc::clone(&kept);
    std::thread::spawn(move || {
        let mut rest = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut rest);
        sink.lock().unwrap().extend_from_slice(&rest);
    });
    (child, url, kept)
}

/// `target/e2e`, where the clients' runtimes are installed.
fn e2e_dir() -> PathBuf {
    let dir = profile_dir().parent().expect("target/").join("e2e");
    std::fs::create_dir_all(&dir).expect("target/e2e is writable");
    dir
}

/// Run `install` under the lock of `target/e2e`, once per test binary.
fn installed(install: impl FnOnce() -> PathBuf) -> PathBuf {
    let lock = std::fs::File::create(e2e_dir().join(".install.lock")).expect("the install lock opens");
    lock.lock().expect("the install lock is taken");
    install()
}

pub(crate) fn run(command: &mut Command, what: &str) -> Output {
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

/// The virtualenv's python, with tests/e2e/python/requirements.txt
/// installed (once per its content: a stamp holds what was installed).
pub(crate) fn venv_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| pinned_venv("python", "python-venv"))
}

/// [`venv_python`] with FastMCP 4 instead, from tests/e2e/fastmcp/requirements.txt:
/// a venv of its own, since it pins another `mcp` than the official client's.
pub(crate) fn fastmcp_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| pinned_venv("fastmcp", "fastmcp-venv"))
}

/// The python of `target/e2e/<venv>`, with tests/e2e/<clients>/requirements.txt installed.
fn pinned_venv(clients: &str, venv: &str) -> PathBuf {
    installed(|| {
        let requirements = root().join(format!("tests/e2e/{clients}/requirements.txt"));
        let wanted = std::fs::read_to_string(&requirements).expect("requirements.txt is readable");
        let venv = e2e_dir().join(venv);
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
            &format!("pip install -r tests/e2e/{clients}/requirements.txt"),
        );
        std::fs::write(&stamp, wanted).expect("the stamp is writable");
        python
    })
}

/// `target/e2e/ts2`: the TypeScript SDK v2 client and the MCP Apps SDK
/// (tests/e2e/ts2), installed once per test binary.
pub(crate) fn ts2_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| node_clients("ts2"))
}

/// `target/e2e/<name>`: the Node clients of tests/e2e/<name>, with the
/// packages its package-lock.json pins, installed with `npm ci` once per lock
/// file; the clients' scripts are copied beside them, so node resolves their
/// imports there and the source tree never holds a `node_modules`.
pub(crate) fn node_clients(name: &str) -> PathBuf {
    installed(|| {
        let source = root().join("tests/e2e").join(name);
        let dir = e2e_dir().join(name);
        std::fs::create_dir_all(&dir).expect("target/e2e is writable");
        for entry in std::fs::read_dir(&source).expect("the clients' directory is readable") {
            let path = entry.expect("the clients' directory lists").path();
            let file = path.file_name().and_then(|file| file.to_str()).unwrap_or_default();
            if file == "package.json" || file.ends_with(".mjs") {
                std::fs::copy(&path, dir.join(file)).expect("the client's files copy");
            }
        }
        let lock = std::fs::read(source.join("package-lock.json")).expect("package-lock.json is readable");
        let stamp = dir.join("installed-package-lock.json");
        if std::fs::read(&stamp).ok().as_ref() != Some(&lock) || !dir.join("node_modules").exists() {
            std::fs::write(dir.join("package-lock.json"), &lock).expect("the lock file copies");
            run(
                Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&dir),
                &format!("npm ci in target/e2e/{name}"),
            );
            std::fs::write(&stamp, &lock).expect("the stamp is writable");
        }
        dir
    })
}
