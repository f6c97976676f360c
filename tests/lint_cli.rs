//! The museum example's command line (its own `--collection` beside
//! `ServeArgs`): `--help`, the `lint` mode with its text and JSON reports and
//! `--server-json`, exit codes, and state built only to serve.

#![cfg(feature = "rmcp")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The museum example, which `cargo test` builds beside this test binary.
fn museum() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    let profile = exe.parent().and_then(Path::parent).expect("the test binary lies in target/<profile>/deps");
    let path = profile.join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing: run `cargo build --example museum` first", path.display());
    path
}

fn run(args: &[&str]) -> Output {
    Command::new(museum()).args(args).output().expect("the museum example runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn help_names_the_binary() {
    let output = run(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("Usage: museum [OPTIONS] [COMMAND]"), "{text}");
    for item in ["--collection <PATH>", "--http <ADDR>", "--stateless", "MCP_ALLOWED_HOSTS", "lint", "server-json"] {
        assert!(text.contains(item), "{item}: {text}");
    }
    assert!(!text.contains("<server>"), "{text}");
}

/// The collection is the museum's state, read by its factory when serving
/// starts: `--help` and `lint` do not read it, serving does and stops on a bad one.
#[test]
fn only_serving_reads_the_collection() {
    let missing = "/nonexistent/collection.json";
    assert_eq!(run(&["--collection", missing, "--help"]).status.code(), Some(0));
    let lint = run(&["--collection", missing, "lint"]);
    assert_eq!(lint.status.code(), Some(0), "{}", String::from_utf8_lossy(&lint.stderr));
    assert_eq!(stdout(&lint), "lint passed: 0 error(s), 0 warning(s)\n");

    for serve in [&["--collection", missing][..], &["--collection", missing, "--http", "127.0.0.1:0"]] {
        let output = Command::new(museum()).args(serve).stdin(std::process::Stdio::null()).output().expect("runs");
        assert_eq!(output.status.code(), Some(1), "{serve:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr
                .contains(&format!("museum: Building the state `museum::Collection` failed: cannot read {missing}: ")),
            "{serve:?}: {stderr}"
        );
    }
}

#[test]
fn lint_passes_on_the_museum() {
    let output = run(&["lint"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(stdout(&output), "lint passed: 0 error(s), 0 warning(s)\n");
}

#[test]
fn lint_json_is_one_document_of_the_documented_shape() {
    let output = run(&["lint", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "{\"passed\":true,\"diagnostics\":[]}\n");
}

#[test]
fn lint_server_json_adds_its_rules_and_exits_1_on_errors() {
    let dir = std::env::temp_dir().join(format!("mcp-contract-lint-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("server.json");
    std::fs::write(&path, r#"{"name": "io.github.acme/museum", "version": "^0.1"}"#).expect("server.json is written");

    let output = run(&["lint", "--format", "json", "--server-json", path.to_str().expect("a UTF-8 path")]);
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(report["passed"], false);
    let rules: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().expect("a rule id"))
        .collect();
    assert_eq!(rules, ["server-json-description-required", "server-json-version-no-range", "server-json-version-sync"]);
    let first = &report["diagnostics"][0];
    assert_eq!(first["severity"], "error");
    assert_eq!(first["kind"], "server-json");
    assert_eq!(first["name"], "io.github.acme/museum");
    assert_eq!(first["path"], "/description");
    assert!(
        first["message"].as_str().is_some_and(|m| m.ends_with("rules/index.html#server-json-description-required"))
    );

    let text = run(&["lint", "--server-json", path.to_str().expect("a UTF-8 path")]);
    assert_eq!(text.status.code(), Some(1));
    let text = stdout(&text);
    assert!(text.starts_with("errors (2):\n  error[server-json-description-required] server-json `io.github.acme/museum` at `/description`: "), "{text}");
    assert!(text.contains("\nwarnings (1):\n  warning[server-json-version-sync]"), "{text}");
    assert!(text.ends_with("lint failed: 2 error(s), 1 warning(s)\n"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_exit_2_with_the_usage() {
    let output = run(&["lint", "--format", "yaml"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid value 'yaml' for '--format <FORMAT>'"), "{stderr}");
    assert!(stderr.contains("[possible values: text, json]") && stderr.contains("try '--help'"), "{stderr}");

    let missing = run(&["lint", "--server-json", "/nonexistent/server.json"]);
    assert_eq!(missing.status.code(), Some(2));
}
