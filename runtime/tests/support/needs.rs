//! Tests that need a program they cannot install themselves (Chromium,
//! `redis-server`, haproxy, `python3`, `node`): on a machine without it such a
//! test is skipped, with one line naming the program and how to install it,
//! so that `cargo test --workspace` passes on a fresh machine; under CI (`CI`
//! set, as every CI service does) it fails instead, so CI never skips one.
//!
//! Std only: the facade's tests include this file too (`tests/support/mod.rs`).
#![allow(dead_code, unreachable_pub, reason = "each suite uses part of it, from a private module")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A program a test runs, and how a Debian/Ubuntu machine gets it.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// The names to look for on `PATH`, in order (Chromium has three).
    pub names: &'static [&'static str],
    /// The command that installs it.
    pub install: &'static str,
    /// The lowest major version the tests work with, read from `<name> --version`.
    pub min_major: Option<u32>,
}

pub const CHROMIUM: Program = Program {
    names: &["chromium", "chromium-browser", "google-chrome"],
    install: "apt-get install --no-install-recommends chromium",
    min_major: None,
};
pub const REDIS_SERVER: Program =
    Program { names: &["redis-server"], install: "apt-get install redis-server", min_major: None };
/// `redis-cli` comes with `redis-server` (Debian's `redis-tools`, which `redis-server` depends on).
pub const REDIS_CLI: Program =
    Program { names: &["redis-cli"], install: "apt-get install redis-server", min_major: None };
pub const HAPROXY: Program = Program { names: &["haproxy"], install: "apt-get install haproxy", min_major: None };
/// The tests make a virtualenv, hence `venv` with it.
pub const PYTHON3: Program =
    Program { names: &["python3"], install: "apt-get install python3 python3-venv", min_major: None };
/// The TypeScript clients' packages want Node 20 or later (their `engines`); `npm ci` installs them.
pub const NODE: Program = Program { names: &["node"], install: "apt-get install nodejs npm", min_major: Some(20) };
pub const NPM: Program = Program { names: &["npm"], install: "apt-get install nodejs npm", min_major: None };

/// Whether CI runs these tests: `CI` set to anything but empty, `0` or `false`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.trim(), "" | "0" | "false"))
}

/// The first of `program`'s names found on `PATH` (and recent enough), or
/// `None` after the skip line; under CI a missing program fails the test.
pub fn find(program: Program) -> Option<PathBuf> {
    let found = program.names.iter().find_map(|name| on_path(name));
    let problem = match (&found, program.min_major) {
        (None, _) => format!("needs {}", program.names[0]),
        (Some(path), Some(min)) => match major_version(path) {
            Some(major) if major >= min => return found,
            Some(major) => format!("needs {} {min} or later (found {major})", program.names[0]),
            None => format!("needs {} {min} or later (its --version did not say)", program.names[0]),
        },
        (Some(_), None) => return found,
    };
    assert!(!in_ci(), "{problem}: install it ({}); CI (`CI` is set) runs every test", program.install);
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    // Straight to the process' stderr, past the test harness' capture, so the
    // skip shows in a plain `cargo test` run.
    let _ = writeln!(std::io::stderr().lock(), "skipped {test}: {problem} ({})", program.install);
    None
}

/// [`find`] for each of `programs`: whether all are here (one skip line, for the first missing).
pub fn all(programs: &[Program]) -> bool {
    programs.iter().all(|program| find(*program).is_some())
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.with_extension("exe").is_file() || path.is_file()
}

/// The first number of `<program> --version` (`v20.20.2` is 20).
fn major_version(program: &Path) -> Option<u32> {
    let output = Command::new(program).arg("--version").stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let digits = text.trim_start_matches(|ch: char| !ch.is_ascii_digit());
    digits.split(|ch: char| !ch.is_ascii_digit()).next()?.parse().ok()
}
