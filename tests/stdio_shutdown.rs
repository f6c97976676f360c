//! The museum example as a child process on real stdio, shut down by SIGTERM
//! while its stdin stays open: the path where the thread that reads stdin is
//! blocked in `read` when the shutdown comes (issue #35).
//!
//! The in-process tests of the shutdown sweep (`runtime/tests/answers.rs`,
//! `runtime/tests/hardening.rs`) serve a duplex pipe, which a task reads; only
//! a process's own stdin is read on a thread of its own, and only a real
//! signal goes through the handler `serve_stdio` installs.

#![cfg(all(feature = "rmcp", unix))]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;
use support::{profile_dir, run};

/// The museum's grace period: `serve_stdio`'s default.
const GRACE: Duration = Duration::from_secs(10);
/// A slow call that finishes within the grace period: its result comes.
const FINISHES_MILLIS: u64 = 1500;
/// A slow call that outlasts the grace period by far: cut with -32000.
const OUTLASTS_MILLIS: u64 = 40_000;
/// From SIGTERM to the exit: the grace period, the sweep (half a second to
/// read, as long to write, as long to close) and the log's last flush (1 s).
const EXITS_WITHIN: Duration = Duration::from_secs(14);
/// The JSON-RPC error of a request refused or cut at shutdown.
const SHUTTING_DOWN: i64 = -32000;

fn museum() -> PathBuf {
    let path = profile_dir().join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing: run `cargo build --example museum` first", path.display());
    path
}

/// Killed when dropped, so a failed assertion leaves no process behind.
struct Museum(Child);

impl Drop for Museum {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn call(id: &str, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"shutdown","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// What the docs promise an answer is: JSON-RPC 2.0 under the request's id,
/// and either a result or an error with an integer code and a message.
fn assert_well_formed(answer: &Value) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    let (result, error) = (answer.get("result"), answer.get("error"));
    assert!(result.is_some() != error.is_some(), "a result or an error, not both nor neither: {answer}");
    if let Some(error) = error {
        assert!(error["code"].is_i64(), "an integer code: {answer}");
        assert!(error["message"].as_str().is_some_and(|message| !message.is_empty()), "a message: {answer}");
    }
}

/// A burst of calls, two of them outlasting the grace period and a few
/// finishing within it; once every cheap one is answered (so stdin's thread
/// has read the burst and waits in `read`), SIGTERM, and more calls while the
/// slow ones run. Each call gets exactly one answer: the cheap and the short
/// ones their result, the long ones and those sent after SIGTERM the
/// retryable -32000; and the process exits once the grace period is over.
///
/// Regression: a plain `fn` handler ran on tokio's blocking pool, which the
/// runtime waits for as `main` returns, so the process outlived its answers
/// until the cut calls had computed to their end (40 s after SIGTERM here).
#[test]
fn sigterm_with_stdin_open_answers_every_call_once_and_exits_after_the_grace_period() {
    let mut child = Command::new(museum())
        .env("MUSEUM_TEST_TOOLS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the museum starts");
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut museum = Museum(child);
    let (tx, answers) = mpsc::channel::<Value>();
    // Ends with the server's output: the channel then disconnects.
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { return };
            let answer = serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"));
            if tx.send(answer).is_err() {
                return;
            }
        }
    });
    let mut send = |line: &str| writeln!(stdin, "{line}").expect("the server reads");
    send(INITIALIZE);
    assert_eq!(answers.recv_timeout(Duration::from_secs(20)).expect("initialized")["id"], "init");
    send(INITIALIZED);

    // What each id is owed: `true` for a result, `false` for the -32000.
    let mut owed: BTreeMap<String, bool> = BTreeMap::new();
    let mut burst = String::new();
    for n in 0..40 {
        let (id, line, result) = match n {
            7 | 23 => {
                let id = format!("outlasts{n}");
                let line = call(&id, "debug_busy", json!({"millis": OUTLASTS_MILLIS}));
                (id, line, false)
            }
            n if n % 8 == 3 => {
                let id = format!("finishes{n}");
                (id.clone(), call(&id, "debug_busy", json!({"millis": FINISHES_MILLIS})), true)
            }
            n => {
                let id = format!("cheap{n}");
                (id.clone(), call(&id, "get_object", json!({"object_id": 100019})), true)
            }
        };
        burst.push_str(&line);
        burst.push('\n');
        owed.insert(id, result);
    }
    // One write: the burst is in the pipe at once.
    send(burst.trim_end());

    let mut seen: Vec<Value> = Vec::new();
    let cheap = owed.keys().filter(|id| id.starts_with("cheap")).count();
    while seen.iter().filter(|answer| answer["id"].as_str().is_some_and(|id| id.starts_with("cheap"))).count() < cheap {
        seen.push(answers.recv_timeout(Duration::from_secs(20)).expect("the cheap calls are answered"));
    }
    // Nothing left to read: stdin's thread waits in `read`.
    std::thread::sleep(Duration::from_millis(200));
    let signalled = Instant::now();
    run(Command::new("kill").args(["-TERM", &museum.0.id().to_string()]), "kill -TERM");
    // Shutdown has begun (the handler runs within milliseconds), and the
    // long calls run: these are read, and refused.
    std::thread::sleep(Duration::from_millis(300));
    for n in 0..3 {
        let id = format!("late{n}");
        send(&call(&id, "get_object", json!({"object_id": 100019})));
        owed.insert(id, false);
    }

    let status = loop {
        if let Some(status) = museum.0.try_wait().expect("the child can be waited on") {
            break status;
        }
        assert!(
            signalled.elapsed() < EXITS_WITHIN,
            "the museum did not exit within {EXITS_WITHIN:?} of SIGTERM (grace {GRACE:?}); answered so far: {}",
            seen.len() + answers.try_iter().count()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "the museum did not exit cleanly on SIGTERM: {status}");
    // Its output closed: the reader's channel ends once it read the rest.
    seen.extend(answers.iter());
    drop(stdin);

    let mut answered: BTreeMap<String, usize> = BTreeMap::new();
    for answer in &seen {
        assert_well_formed(answer);
        let id = answer["id"].as_str().unwrap_or_else(|| panic!("an id the client sent: {answer}"));
        let Some(&result) = owed.get(id) else { panic!("an answer to {id}, which nobody sent: {answer}") };
        if result {
            assert!(answer["result"]["content"].is_array(), "{id} ran to its result: {answer}");
        } else {
            assert_eq!(answer["error"]["code"], SHUTTING_DOWN, "{id} answered with the shutdown's error: {answer}");
        }
        *answered.entry(id.to_owned()).or_default() += 1;
    }
    for id in owed.keys() {
        assert_eq!(answered.get(id), Some(&1), "{id} answered {:?} times", answered.get(id));
    }
}
