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
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;
use support::run;
use support::stdio::{StdioMuseum, call};

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
    let mut museum = StdioMuseum::initialized("shutdown");

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
    museum.send(burst.trim_end());

    let mut seen: Vec<Value> = Vec::new();
    let cheap = owed.keys().filter(|id| id.starts_with("cheap")).count();
    while seen.iter().filter(|answer| answer["id"].as_str().is_some_and(|id| id.starts_with("cheap"))).count() < cheap {
        seen.push(museum.answers.recv_timeout(Duration::from_secs(20)).expect("the cheap calls are answered"));
    }
    // Nothing left to read: stdin's thread waits in `read`.
    std::thread::sleep(Duration::from_millis(200));
    let signalled = Instant::now();
    run(Command::new("kill").args(["-TERM", &museum.process.0.id().to_string()]), "kill -TERM");
    // Shutdown has begun (the handler runs within milliseconds), and the
    // long calls run: these are read, and refused.
    std::thread::sleep(Duration::from_millis(300));
    for n in 0..3 {
        let id = format!("late{n}");
        museum.send(&call(&id, "get_object", json!({"object_id": 100019})));
        owed.insert(id, false);
    }

    let status = loop {
        if let Some(status) = museum.process.0.try_wait().expect("the child can be waited on") {
            break status;
        }
        assert!(
            signalled.elapsed() < EXITS_WITHIN,
            "the museum did not exit within {EXITS_WITHIN:?} of SIGTERM (grace {GRACE:?}); answered so far: {}",
            seen.len() + museum.answers.try_iter().count()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "the museum did not exit cleanly on SIGTERM: {status}");
    // Its output closed: the reader's channel ends once it read the rest.
    seen.extend(museum.answers.iter());

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
