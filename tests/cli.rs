//! A server's own command line: `ServeArgs` flattened into the user's clap
//! parser, and state built by a factory after parsing (`Server::state_with`),
//! which `--help`, `lint` and `server-json` never run.

#![cfg(feature = "rmcp")]

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use clap::Parser;
use mcp_contract::prelude::*;
use mcp_contract::server::{ServeArgs, ServeCommand, ServerError};

/// The issue tracker's database, opened by the factory.
struct Db {
    file: std::path::PathBuf,
}

/// Count the open issues.
#[mcp_tool(annotations(read_only))]
fn count_issues(db: State<Db>) -> Result<String, McpError> {
    Ok(db.file.display().to_string())
}

/// The tracker's command line: its own flag beside the serving ones.
#[derive(Parser, Debug)]
#[command(name = "tracker")]
struct Cli {
    /// The SQLite database of the issues.
    #[arg(long, default_value = "tracker.db")]
    db: std::path::PathBuf,
    #[command(flatten)]
    serve: ServeArgs,
}

/// A server whose factory counts its runs and creates the database file, as
/// opening a SQLite database does.
fn tracker(db: std::path::PathBuf, runs: &Arc<AtomicU32>) -> Server {
    let runs = Arc::clone(runs);
    let server = Server::new("tracker", "1.0.0")
        .description("Issues of a small team, on SQLite.")
        .repository("https://github.com/acme/tracker");
    server.tool(CountIssues).state_with(move || async move {
        runs.fetch_add(1, Ordering::SeqCst);
        std::fs::write(&db, b"")?;
        Ok::<_, std::io::Error>(Db { file: db })
    })
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-contract-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn the_serving_flags_sit_beside_the_servers_own() {
    let cli = Cli::try_parse_from(["tracker", "--db", "issues.db", "--http", "127.0.0.1:0", "--stateless"]).unwrap();
    assert_eq!(cli.db, std::path::Path::new("issues.db"));
    assert_eq!((cli.serve.http.as_deref(), cli.serve.stateless), (Some("127.0.0.1:0"), true));
    let cli = Cli::try_parse_from(["tracker", "lint", "--format", "json"]).unwrap();
    assert!(matches!(cli.serve.command, Some(ServeCommand::Lint { .. })), "{cli:?}");

    let help = Cli::try_parse_from(["tracker", "--help"]).unwrap_err();
    assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
    let text = help.to_string();
    for item in ["Usage: tracker", "--db <DB>", "--http <ADDR>", "--allowed-hosts", "lint", "server-json"] {
        assert!(text.contains(item), "{item}: {text}");
    }
}

#[tokio::test]
async fn help_lint_and_server_json_never_run_the_factory() {
    let runs = Arc::new(AtomicU32::new(0));
    let db = scratch("help-lint.db");
    for line in [&["--help"][..], &["lint"], &["lint", "--format", "json"], &["server-json"], &["--bogus"]] {
        let code = tracker(db.clone(), &runs).run_cli_with(line.iter().map(|arg| (*arg).to_owned())).await;
        let expected = if line == ["--bogus"] { ExitCode::from(2) } else { ExitCode::SUCCESS };
        assert_eq!(code, expected, "{line:?}");
    }
    let cli = Cli::try_parse_from(["tracker", "--db", db.to_str().unwrap(), "lint"]).unwrap();
    assert_eq!(cli.serve.run(tracker(cli.db, &runs)).await, ExitCode::SUCCESS);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert!(!db.exists(), "no command but serving creates the database file");
}

/// Built without the features that serve them, a metrics path or a rate
/// limit asked for stops the server before it binds (exit 2, the usage
/// errors' code), rather than serving without them. Given here by flag: the
/// variables take the same path (`flag_or_env`), and tests share the
/// process's environment.
/// `cargo test --workspace` builds the features in (the runtime's own tests
/// use them); CI runs this with `cargo test -p mcp-contract --test cli`.
#[tokio::test]
#[cfg(not(any(feature = "metrics", feature = "rate-limit")))]
async fn a_metrics_path_or_a_rate_limit_without_its_feature_stops_the_server() {
    let runs = Arc::new(AtomicU32::new(0));
    let db = scratch("unserved.db");
    for flag in [["--rate-limit", "120/min"], ["--rate-limit", "lots"], ["--metrics-path", "/metrics"]] {
        let line = ["--http", "127.0.0.1:0", flag[0], flag[1]].map(str::to_owned);
        // Bounded: a server that took the flag would serve until stopped.
        let run =
            tokio::time::timeout(std::time::Duration::from_secs(10), tracker(db.clone(), &runs).run_cli_with(line));
        assert_eq!(run.await, Ok(ExitCode::from(2)), "{flag:?}");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0, "refused before the state is built");
}

#[tokio::test]
async fn lint_counts_the_state_of_a_factory_as_registered() {
    let runs = Arc::new(AtomicU32::new(0));
    // Without the factory the tool's state is missing, and `lint` says so.
    let bare = Server::new("tracker", "1.0.0").tool(CountIssues).run_cli_with(["lint".to_owned()]).await;
    assert_eq!(bare, ExitCode::FAILURE);
    let code = tracker(scratch("lint.db"), &runs).run_cli_with(["lint".to_owned()]).await;
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn serving_runs_the_factory_once_and_registers_its_value() {
    let runs = Arc::new(AtomicU32::new(0));
    let db = scratch("serve.db");
    let err = tracker(db.clone(), &runs).build().unwrap_err();
    assert!(matches!(err, ServerError::StatePending { .. }), "{err}");
    assert!(err.to_string().contains("Server::build_state"), "{err}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // The tool's `State<Db>` is there: `build` checks it.
    let server = tracker(db.clone(), &runs).build_state().await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(db.exists());
    server.build().unwrap();
}

#[tokio::test]
async fn a_failing_factory_stops_the_server_before_it_serves() {
    let runs = Arc::new(AtomicU32::new(0));
    // A directory that does not exist: the factory cannot create the file.
    let db = scratch("missing").join("tracker.db");
    let err = tracker(db.clone(), &runs).build_state().await.unwrap_err();
    assert!(matches!(err, ServerError::StateFactory { .. }), "{err}");
    assert!(err.to_string().starts_with("Building the state `cli::Db` failed: "), "{err}");
    // Through the command line: exit 1 before binding, for stdio and HTTP alike.
    let code = tracker(db, &runs).run_cli_with(["--http".to_owned(), "127.0.0.1:0".to_owned()]).await;
    assert_eq!(code, ExitCode::FAILURE);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_value_given_later_replaces_a_factory_of_its_type() {
    let runs = Arc::new(AtomicU32::new(0));
    let server = tracker(scratch("replaced.db"), &runs).state(Db { file: "memory".into() });
    server.build().expect("no factory is left to run");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

/// A parser with subcommands of its own takes `ServeArgs` as one of them.
#[derive(Parser, Debug)]
#[command(name = "tracker")]
struct WithSubcommands {
    #[command(subcommand)]
    command: TrackerCommand,
}

#[derive(clap::Subcommand, Debug)]
enum TrackerCommand {
    /// Serve the tracker over MCP.
    // Boxed: the serving flags outweigh a variant without data (clippy::large_enum_variant).
    Serve(Box<ServeArgs>),
    /// Migrate the database.
    Migrate,
}

#[test]
fn a_parser_with_subcommands_of_its_own_nests_the_serving_command_line() {
    let parse = |line: &[&str]| WithSubcommands::try_parse_from(std::iter::once("tracker").chain(line.iter().copied()));
    let TrackerCommand::Serve(serve) = parse(&["serve", "--http", "127.0.0.1:0"]).unwrap().command else {
        panic!("`serve` is the serving command line");
    };
    assert_eq!(serve.http.as_deref(), Some("127.0.0.1:0"));
    let TrackerCommand::Serve(serve) = parse(&["serve", "lint", "--format", "json"]).unwrap().command else {
        panic!("`serve lint` lints");
    };
    assert!(matches!(serve.command, Some(ServeCommand::Lint { .. })), "{serve:?}");
    assert!(matches!(parse(&["migrate"]).unwrap().command, TrackerCommand::Migrate));
}
