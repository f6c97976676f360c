//! The museum example as a child process with its test tools on
//! (`MUSEUM_TEST_TOOLS`), for the tests that need real pipes: tokio's IO
//! driver, the stdin thread blocked in `read`. Built beside the test binary
//! (`cargo build --example museum`).

// Each test binary uses its part.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// The museum's executable, in `target/<profile>/examples/`.
pub(crate) fn museum() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    let profile = exe.parent().and_then(Path::parent).expect("the test binary lies in target/<profile>/deps");
    let path = profile.join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing: run `cargo build --example museum` first", path.display());
    path
}

/// A child process, killed when dropped, so a failed assertion leaves none behind.
pub(crate) struct Killed(pub(crate) Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The museum serving stdio, its session initialized; what it writes is read
/// on a thread of its own into [`Self::answers`], which disconnects as its
/// output ends.
pub(crate) struct StdioMuseum {
    pub(crate) process: Killed,
    stdin: ChildStdin,
    pub(crate) answers: mpsc::Receiver<Value>,
}

impl StdioMuseum {
    /// Start it and initialize a session as the client `client`.
    pub(crate) fn initialized(client: &str) -> Self {
        let mut child = Command::new(museum())
            .env("MUSEUM_TEST_TOOLS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the museum starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                let answer = serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"));
                if tx.send(answer).is_err() {
                    return;
                }
            }
        });
        let mut museum = Self { process: Killed(child), stdin, answers };
        museum.send(&initialize(client));
        let answer = museum.answers.recv_timeout(Duration::from_secs(20)).expect("initialize is answered");
        assert_eq!(answer["id"], "init", "{answer}");
        museum.send(INITIALIZED);
        museum
    }

    /// Write one line (a JSON-RPC message) to its stdin.
    pub(crate) fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the server reads");
    }
}

/// `initialize` (id `"init"`) from the client `client`.
pub(crate) fn initialize(client: &str) -> String {
    json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}})
    .to_string()
}

pub(crate) const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A `tools/call` of `tool` with `arguments`, under the id `id`.
pub(crate) fn call(id: &str, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}
