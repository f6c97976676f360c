//! `mcp_contract::logging::init()`: the crate's `tracing` output reaches stderr,
//! filtered by `RUST_LOG`, and never stdout (which carries a stdio server's protocol).
//!
//! A global subscriber can be installed once per process, so each case runs this
//! test binary again as a child process that installs it and logs.

#![cfg(feature = "logging")]

use std::process::{Command, Output};

use mcp_contract::{McpError, TryCatch, try_catch_sync};

/// Set in the child: which case to play.
const CHILD: &str = "MCP_CONTRACT_LOGGING_TEST_CHILD";

/// Run `case` in a child process with `RUST_LOG` set to `filter` (unset for `None`).
fn child(case: &str, filter: Option<&str>) -> Output {
    let mut command = Command::new(std::env::current_exe().expect("the test binary has a path"));
    command.args(["--exact", case, "--nocapture", "--test-threads=1"]).env(CHILD, "1");
    match filter {
        Some(filter) => command.env("RUST_LOG", filter),
        None => command.env_remove("RUST_LOG"),
    };
    let output = command.output().expect("the test binary runs again");
    assert!(output.status.success(), "child failed: {}", String::from_utf8_lossy(&output.stderr));
    output
}

/// In the child: install the subscriber, log a failure through `try_catch`, and
/// an event at each level.
#[test]
fn logs_at_every_level() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    mcp_contract::logging::init();
    let failed: Result<(), McpError> = try_catch_sync(TryCatch::new("catalogue.load"), || {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, "catalogue.json is missing"))
    });
    assert!(failed.is_err());
    tracing::info!("an info event");
    tracing::debug!("a debug event");
    // A second init is harmless: the first subscriber stays.
    mcp_contract::logging::init();
}

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn by_default_info_and_above_reach_stderr_and_nothing_reaches_stdout() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let output = child("logs_at_every_level", None);
    let stderr = stderr_of(&output);
    assert!(stderr.contains("an info event"), "{stderr}");
    assert!(stderr.contains("catalogue.load"), "try_catch's one event per failure is visible: {stderr}");
    assert!(!stderr.contains("a debug event"), "debug is below the default filter: {stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains("an info event") && !stdout.contains("catalogue.load"),
        "stdout carries the protocol, never logs: {stdout}"
    );
}

#[test]
fn rust_log_chooses_the_levels() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let stderr = stderr_of(&child("logs_at_every_level", Some("debug")));
    assert!(stderr.contains("a debug event"), "{stderr}");
    let stderr = stderr_of(&child("logs_at_every_level", Some("error")));
    assert!(!stderr.contains("an info event"), "{stderr}");
    assert!(stderr.contains("catalogue.load"), "a failure logged by try_catch is an error event: {stderr}");
}
