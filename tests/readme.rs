//! The README and the guide hold: their examples compile as the facade's
//! doctests (`mod guide` of `src/lib.rs` includes README.md and every chapter),
//! and every crate they name is one the dependency block of the guide's "In your
//! own crate" lists, so that block cannot drift from what the examples need.
//! The doctests themselves compile with the workspace's dev-dependencies, which
//! is why the names are checked here. The README stays a front page, and the
//! links between the pages resolve.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const README: &str = include_str!("../README.md");
const SUMMARY: &str = include_str!("../guide/src/SUMMARY.md");
const LIB: &str = include_str!("../src/lib.rs");

/// The README's length limit: a front page, the rest is the guide's.
const README_MAX_LINES: usize = 300;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The guide's chapters in `SUMMARY.md` order: (file name, text).
fn chapters() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in SUMMARY.lines() {
        let Some(start) = line.find("](") else { continue };
        let Some(end) = line[start + 2..].find(')') else { continue };
        let file = &line[start + 2..start + 2 + end];
        let text = std::fs::read_to_string(root().join("guide/src").join(file))
            .unwrap_or_else(|err| panic!("SUMMARY.md lists {file}, which cannot be read: {err}"));
        out.push((file.to_owned(), text));
    }
    out
}

/// Every page a user reads examples on: the README and the guide's chapters.
fn pages() -> Vec<(String, String)> {
    let mut pages = vec![("README.md".to_owned(), README.to_owned())];
    pages.extend(chapters().into_iter().map(|(file, text)| (format!("guide/src/{file}"), text)));
    pages
}

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
    crate_names(&first_server_toml())
}

/// The toml block under "In your own crate" of the guide's first chapter.
fn first_server_toml() -> String {
    let chapter = std::fs::read_to_string(root().join("guide/src/first-server.md")).unwrap();
    let section = chapter.split("## In your own crate").nth(1).expect("first-server.md has \"## In your own crate\"");
    let (_, toml) = blocks(section, "toml").into_iter().next().expect("the section has a toml block");
    toml.to_owned()
}

/// The crates a `[dependencies]` block lists, as Rust names (`mcp-contract` is `mcp_contract`).
fn crate_names(toml: &str) -> BTreeSet<String> {
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
fn every_crate_the_examples_name_is_in_the_dependency_block() {
    let listed = dependency_block();
    assert!(listed.contains("mcp_contract") && listed.contains("tokio"), "{listed:?}");
    // The standard crates, path keywords, and primitive types, whose associated
    // functions (`str::to_owned`, `u64::from`) read like a crate's path.
    let builtin = [
        "std", "core", "alloc", "crate", "self", "super", "str", "bool", "char", "u8", "u16", "u32", "u64", "u128",
        "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64",
    ];
    for (page, text) in pages() {
        for (info, code) in blocks(&text, "rust") {
            for root in path_roots(code) {
                assert!(
                    listed.contains(&root) || builtin.contains(&root.as_str()),
                    "an example of {page} (```{info}) names `{root}::`, which the dependency block of \"In your own crate\" (guide/src/first-server.md) does not list:\n{code}"
                );
            }
        }
    }
}

#[test]
fn the_readme_block_is_a_part_of_the_guide_block() {
    let guide = dependency_block();
    let section = README.split("## In your own crate").nth(1).expect("README has \"## In your own crate\"");
    let (_, toml) = blocks(section, "toml").into_iter().next().expect("the section has a toml block");
    let guide_toml = first_server_toml();
    for line in toml.lines().filter(|line| line.contains('=')) {
        assert!(guide_toml.contains(line), "README's dependency line `{line}` differs from the guide's");
    }
    assert!(crate_names(toml).is_subset(&guide));
}

#[test]
fn examples_are_doctests_not_ignored() {
    for (page, text) in pages() {
        for (info, code) in blocks(&text, "rust") {
            assert!(!info.contains("ignore"), "an example of {page} is not compiled (```{info}):\n{code}");
        }
    }
    assert!(!blocks(README, "rust").is_empty(), "the README shows a tool");
}

#[test]
fn every_chapter_of_writing_and_running_a_server_has_a_compiled_example() {
    let reference = SUMMARY.split("# Reference").nth(1).expect("SUMMARY.md has a Reference part");
    for (file, text) in chapters() {
        if reference.contains(&format!("({file})")) {
            continue;
        }
        assert!(!blocks(&text, "rust").is_empty(), "guide/src/{file} has no Rust example");
    }
}

#[test]
fn every_chapter_is_compiled_as_a_doctest() {
    let (_, guide) = LIB.split_once("mod guide {").expect("src/lib.rs has `mod guide`");
    for (file, _) in chapters() {
        let include = format!("include_str!(\"../guide/src/{file}\")");
        assert!(
            guide.contains(&include),
            "src/lib.rs's `mod guide` does not include {file}: its examples are not compiled"
        );
    }
    assert!(guide.contains("include_str!(\"../README.md\")"));
}

#[test]
fn the_readme_is_a_front_page() {
    let lines = README.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; move sections into the guide (at most {README_MAX_LINES})"
    );
}

/// The anchor mdBook and GitHub give a heading: lower case, spaces as `-`,
/// punctuation other than `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown page's headings (outside code blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets of a Markdown page: `](target)` outside code blocks.
fn links(markdown: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_owned());
            }
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn the_links_between_the_pages_resolve() {
    let mut pages = pages();
    for page in ["examples/README.md", "CHANGELOG.md"] {
        pages.push((page.to_owned(), std::fs::read_to_string(root().join(page)).unwrap()));
    }
    for (page, text) in pages {
        let dir: PathBuf = root().join(&page).parent().unwrap().to_owned();
        for target in links(&text) {
            let (file, anchor) = target.split_once('#').map_or((target.as_str(), None), |(f, a)| (f, Some(a)));
            let path = if file.is_empty() { root().join(&page) } else { dir.join(file) };
            assert!(path.exists(), "{page} links `{target}`, and {} does not exist", path.display());
            if let Some(anchor) = anchor.filter(|_| path.extension().is_some_and(|ext| ext == "md")) {
                let linked = std::fs::read_to_string(&path).unwrap();
                assert!(
                    anchors(&linked).contains(anchor),
                    "{page} links `{target}`, and that page has no heading `#{anchor}`"
                );
            }
        }
    }
}

#[test]
fn the_slug_is_the_one_the_renderers_give() {
    assert_eq!(slug(" The error envelope"), "the-error-envelope");
    assert_eq!(slug(" Pacing a rate-limited upstream"), "pacing-a-rate-limited-upstream");
    assert_eq!(
        slug(" One handler, both revisions: input-required results"),
        "one-handler-both-revisions-input-required-results"
    );
    assert_eq!(slug(" `Server::build` and `lint`"), "serverbuild-and-lint");
}

#[test]
fn the_scan_sees_a_crate_missing_from_the_block() {
    let roots =
        path_roots("use mcp_contract::errors::render;\nlet r = http::Response::new(());\nrender::x(\"a::b\");\n");
    assert_eq!(roots, BTreeSet::from(["http".to_owned(), "mcp_contract".to_owned()]));
}
