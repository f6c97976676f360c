//! The runtime's folders are layers, and `server/`'s folders are layers too:
//! a module names (`crate::..`) only its own layer and the layers below it,
//! and reaches nothing through the crate root's re-exports, which would hide
//! the layer it depends on. `docs/architecture.md` draws the same order; a
//! new import that runs up fails here, with the line that makes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each top-level layer of `runtime/src` and the layers it may name.
const LAYERS: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("logging", &[]),
    ("schema", &["error"]),
    ("call", &["error"]),
    ("define", &["error", "schema", "call"]),
    ("auth", &["error", "call"]),
    ("lint", &["error", "schema", "call", "define"]),
    // The OpenTelemetry pipeline and propagation (feature `otel`): it parents a
    // call's span on the trace context its request (`call`) carried, and
    // installs `logging`'s stderr layer beside its own.
    ("telemetry", &["error", "call", "define", "logging"]),
    ("server", &["error", "schema", "call", "define", "auth", "lint", "logging", "telemetry"]),
    ("testing", &["error", "schema", "call", "define", "auth", "lint", "server"]),
    // The module behind `__private`, which only the crate root re-exports.
    ("private", &["error", "schema", "call", "define"]),
];

/// `server/`'s own layers, lowest first: a module names only its own folder
/// and the ones before it (those on one line are one layer, apart).
const SERVER_LAYERS: &[&[&str]] =
    &[&["error", "peer", "wire"], &["store"], &["dispatch"], &["transport"], &["cli"], &["builder"], &["fuzzing"]];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::a::b` path in a line of code (not in a comment), as `(a, b)`.
fn crate_paths(line: &str) -> Vec<(String, Option<String>)> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return Vec::new();
    }
    let segment =
        |text: &str| -> String { text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        // `$crate::` in a macro is the user's view of the crate, not an import.
        let preceded =
            rest[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        let after = &rest[at + "crate::".len()..];
        rest = after;
        if preceded {
            continue;
        }
        let first = segment(after);
        let second = after[first.len()..].strip_prefix("::").map(segment).filter(|s| !s.is_empty());
        paths.push((first, second));
    }
    paths
}

#[test]
fn no_import_runs_up_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let server_rank = |folder: &str| SERVER_LAYERS.iter().position(|layer| layer.contains(&folder));
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let parts: Vec<String> = relative.with_extension("").iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let layer = parts[0].as_str();
        if layer == "lib" {
            continue;
        }
        let inside_server = (layer == "server" && parts.len() > 1 && parts[1] != "mod").then(|| parts[1].as_str());
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            for (first, second) in crate_paths(line) {
                let place = format!("{}:{}: {}", relative.display(), number + 1, line.trim());
                if !allowed.contains_key(first.as_str()) {
                    wrong.push(format!(
                        "{place}\n    `crate::{first}` is a re-export of the crate root: name the layer"
                    ));
                    continue;
                }
                let Some(mine) = allowed.get(layer) else {
                    wrong.push(format!("{place}\n    `{layer}` is in no layer of LAYERS"));
                    continue;
                };
                if first != layer && !mine.contains(&first.as_str()) {
                    wrong.push(format!("{place}\n    `{layer}` may not name `{first}`, a later layer"));
                    continue;
                }
                if let (Some(from), "server", Some(to)) = (inside_server, first.as_str(), second.as_deref()) {
                    let (Some(from_rank), Some(to_rank)) = (server_rank(from), server_rank(to)) else {
                        wrong.push(format!(
                            "{place}\n    `server/{to}` or `server/{from}` is in no layer of SERVER_LAYERS"
                        ));
                        continue;
                    };
                    if to_rank > from_rank || (to_rank == from_rank && to != from) {
                        wrong.push(format!("{place}\n    `server/{from}` may not name `server/{to}`"));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports that run up the layers:\n{}", wrong.join("\n"));
}

#[test]
fn the_checker_sees_what_runs_up() {
    assert_eq!(crate_paths("use crate::server::store::tasks::TaskStore;"), [("server".into(), Some("store".into()))]);
    assert_eq!(crate_paths("    // crate::server::builder"), []);
    assert_eq!(crate_paths("$crate::server::Server::new()"), []);
    assert_eq!(
        crate_paths("let x = crate::McpError::new(); crate::rules::ALL"),
        [("McpError".into(), Some("new".into())), ("rules".into(), Some("ALL".into()))]
    );
}
