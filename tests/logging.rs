//! `mcp_contract::logging::init()`: the crate's `tracing` output reaches stderr,
//! filtered by `RUST_LOG`, and never stdout (which carries a stdio server's protocol).
//!
//! A global subscriber can be installed once per process, so each case runs this
//! test binary again as a child process that installs it and logs.

#![cfg(feature = "logging")]

use std::process::{Command, Output};

use mcp_contract::{
    McpError,
    errors::{TryCatch, try_catch_sync},
};

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
    // Lines are written by a thread that ends with the process.
    assert!(mcp_contract::logging::flush(std::time::Duration::from_secs(5)));
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

/// In the child: serve stdio through the command line, whose banner goes to
/// stderr (stdin is empty, so serving ends at once), then log 5 MB, far more
/// than a pipe holds.
#[test]
fn serves_stdio_then_logs_a_lot() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    mcp_contract::logging::init();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let code = runtime.block_on(mcp_contract::server::Server::new("t", "1.0.0").run_cli_with(Vec::new()));
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let filler = "x".repeat(1000);
    for n in 0..5000 {
        tracing::info!(n, "{filler}");
    }
    std::io::Write::write_all(&mut std::io::stdout(), b"served\n").expect("stdout is the parent's pipe");
}

fn spawn_child(case: &str, stderr: std::process::Stdio) -> std::process::Child {
    Command::new(std::env::current_exe().expect("the test binary has a path"))
        .args(["--exact", case, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("the test binary runs again")
}

/// The child's stdout once it exits, or `None` when it is still running after 20 s.
fn stdout_within_20s(mut child: std::process::Child) -> Option<(bool, String)> {
    let (done, outcome) = std::sync::mpsc::channel();
    let mut stdout = child.stdout.take().expect("piped");
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        let _ = done.send(text);
    });
    let text = outcome.recv_timeout(std::time::Duration::from_secs(20)).ok();
    if text.is_none() {
        let _ = child.kill();
    }
    let status = child.wait().expect("the child ends");
    text.map(|text| (status.success(), text))
}

/// Regression: the command line's banner used `eprintln!`, so `2>/dev/full`
/// exited 101 before serving.
#[test]
fn an_unwritable_stderr_neither_panics_nor_stops_the_server() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full exists on Linux");
    let (success, stdout) =
        stdout_within_20s(spawn_child("serves_stdio_then_logs_a_lot", full.into())).expect("the child ends");
    assert!(success && stdout.contains("served"), "{stdout}");
}

/// Regression: logs were written on the request's thread, so a stderr pipe
/// nobody drains blocked the server once the pipe was full (about 64 KB).
#[test]
fn a_stderr_nobody_reads_never_blocks_the_server() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let child = spawn_child("serves_stdio_then_logs_a_lot", std::process::Stdio::piped());
    // The child's stderr pipe stays open and unread until the child ends.
    let (success, stdout) = stdout_within_20s(child).expect("logging never waits for stderr");
    assert!(success && stdout.contains("served"), "{stdout}");
}
