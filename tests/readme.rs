//! The README holds: its examples compile as the facade's doctests (the facade
//! includes README.md as its crate doc), and every crate they name is one the
//! dependency block of "In your own crate" lists, so that block cannot drift
//! from what the examples need. The doctests themselves compile with the
//! workspace's dev-dependencies, which is why the names are checked here.

use std::collections::BTreeSet;

const README: &str = include_str!("../README.md");

/// The fenced blocks of `markdown` whose info string starts with `lang`: (info, body).
fn blocks<'a>(markdown: &'a str, lang: &str) -> Vec<(&'a str, &'a str)> {
    let mut out = Vec::new();
    let mut rest = markdown;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let Some(line_end) = after.find('\n') else { break };
        let info = after[..line_end].trim();
        let body_start = &after[line_end + 1..];
        let Some(end) = body_start.find("```") else { break };
        if info.split(',').next() == Some(lang) {
            out.push((info, &body_start[..end]));
        }
        rest = &body_start[end + 3..];
    }
    out
}

/// The crates of the `[dependencies]` block under "In your own crate", as Rust
/// names (`mcp-contract` is `mcp_contract`).
fn dependency_block() -> BTreeSet<String> {
    let section = README.split("### In your own crate").nth(1).expect("README has \"### In your own crate\"");
    let (_, toml) = blocks(section, "toml").into_iter().next().expect("the section has a toml block");
    toml.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('[') && !line.starts_with('#') && line.contains('='))
        .map(|line| line.split('=').next().unwrap().trim().replace('-', "_"))
        .collect()
}

/// The first segment of every path in `code` (`http` in `http::Response`),
/// leaving out names the code brings in with `use` or defines as a module.
fn path_roots(code: &str) -> BTreeSet<String> {
    let code: String =
        code.lines().map(|line| line.trim_start().trim_start_matches("# ")).collect::<Vec<_>>().join("\n");
    let mut local = BTreeSet::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        if let Some(used) = statement.strip_prefix("use ").or_else(|| statement.strip_prefix("pub use ")) {
            local.extend(used.split(|c: char| !(c.is_alphanumeric() || c == '_')).skip(1).map(str::to_owned));
        }
    }
    let bytes = code.as_bytes();
    let mut roots = BTreeSet::new();
    for (at, _) in code.match_indices("::") {
        let start = code[..at].rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let name = &code[start..at];
        let preceded_by_path = start >= 2 && &bytes[start - 2..start] == b"::";
        let in_string = code[..start].matches('"').count() % 2 == 1;
        // `ctx.elicit::<Confirm>(..)`, `iter.collect::<Vec<_>>()`: a turbofish, no path.
        let turbofish = code[at + 2..].starts_with('<');
        if name.is_empty() || preceded_by_path || in_string || turbofish || name.starts_with(|c: char| c.is_uppercase())
        {
            continue;
        }
        if !local.contains(name) {
            roots.insert(name.to_owned());
        }
    }
    roots
}

#[test]
fn every_crate_the_readme_examples_name_is_in_the_dependency_block() {
    let listed = dependency_block();
    assert!(listed.contains("mcp_contract") && listed.contains("tokio"), "{listed:?}");
    // The standard crates, path keywords, and primitive types, whose associated
    // functions (`str::to_owned`, `u64::from`) read like a crate's path.
    let builtin = [
        "std", "core", "alloc", "crate", "self", "super", "str", "bool", "char", "u8", "u16", "u32", "u64", "u128",
        "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64",
    ];
    for (info, code) in blocks(README, "rust") {
        for root in path_roots(code) {
            assert!(
                listed.contains(&root) || builtin.contains(&root.as_str()),
                "a README example (```{info}) names `{root}::`, which the dependency block of \"In your own crate\" does not list:\n{code}"
            );
        }
    }
}

#[test]
fn readme_examples_are_doctests_not_ignored() {
    let examples = blocks(README, "rust");
    assert!(examples.len() >= 10, "{} examples", examples.len());
    for (info, code) in examples {
        assert!(!info.contains("ignore"), "a README example is not compiled (```{info}):\n{code}");
    }
}

#[test]
fn the_scan_sees_a_crate_missing_from_the_block() {
    let roots =
        path_roots("use mcp_contract::errors::render;\nlet r = http::Response::new(());\nrender::x(\"a::b\");\n");
    assert_eq!(roots, BTreeSet::from(["http".to_owned(), "mcp_contract".to_owned()]));
}
