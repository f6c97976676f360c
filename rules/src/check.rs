//! The value checks of the rules that both the macros and the definition linter
//! judge. Each answers for one value, so the two sides word their findings in
//! their own way (a spanned compile error, a diagnostic with a JSON Pointer) but
//! never reach different verdicts.

use crate::{META_UI_RESOURCE_URI_REQUIRED, META_UI_RESOURCE_URI_SCHEME, Rule};

/// The fewest words a useful `recovery` has (`error-contract-recovery-min-words`).
pub const MIN_RECOVERY_WORDS: usize = 5;

/// The names a contract entry's `severity = ..` accepts, the reference's four
/// levels below `error` (`error-contract-severity-unknown`).
pub const ERROR_SEVERITIES: [&str; 4] = ["debug", "info", "notice", "warning"];

/// The longest name MCP allows a tool (`name-format`).
pub const MAX_NAME_LEN: usize = 128;

/// `error-contract-reason-format`: snake_case words, `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`.
///
/// Stricter than the reference's `^[a-z][a-z0-9_]*$`: a doubled or trailing
/// underscore is no word boundary, and `a__b` would name the same reason variant
/// (`AB`) as `a_b`.
///
/// ```
/// use mcp_contract::rules::check::is_snake_case;
/// assert!(is_snake_case("not_in_collection"));
/// assert!(is_snake_case("http2_refused"));
/// for bad in ["NotFound", "not-found", "_x", "x_", "a__b", "9lives", ""] {
///     assert!(!is_snake_case(bad), "{bad}");
/// }
/// ```
pub fn is_snake_case(name: &str) -> bool {
    name.starts_with(|ch: char| ch.is_ascii_lowercase())
        && name
            .split('_')
            .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// The words of a `recovery` hint, as `error-contract-recovery-empty` (none) and
/// `error-contract-recovery-min-words` (fewer than [`MIN_RECOVERY_WORDS`]) count them.
///
/// ```
/// use mcp_contract::rules::check::recovery_words;
/// assert_eq!(recovery_words("  Search first. "), 2);
/// assert_eq!(recovery_words("\n"), 0);
/// ```
pub fn recovery_words(recovery: &str) -> usize {
    recovery.split_whitespace().count()
}

/// `name-format`: 1 to [`MAX_NAME_LEN`] characters of `A-Z a-z 0-9 _ - .`, as MCP
/// allows a tool name.
///
/// ```
/// use mcp_contract::rules::check::is_valid_name;
/// assert!(is_valid_name("get_object"));
/// assert!(is_valid_name("museum.get-object"));
/// assert!(!is_valid_name("get object"));
/// assert!(!is_valid_name(""));
/// assert!(!is_valid_name(&"x".repeat(129)));
/// ```
pub fn is_valid_name(name: &str) -> bool {
    (1..=MAX_NAME_LEN).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// `auth-scope-format`: a scope is a non-empty string without white space.
///
/// ```
/// use mcp_contract::rules::check::is_valid_scope;
/// assert!(is_valid_scope("objects:read"));
/// assert!(!is_valid_scope(""));
/// assert!(!is_valid_scope("objects read"));
/// ```
pub fn is_valid_scope(scope: &str) -> bool {
    !scope.is_empty() && !scope.chars().any(char::is_whitespace)
}

/// `meta-ui-resource-uri-required` (empty) and `meta-ui-resource-uri-scheme`
/// (not `ui://`, which MCP Apps hosts expect): the rule a tool's app URI breaks.
///
/// ```
/// use mcp_contract::rules::{META_UI_RESOURCE_URI_SCHEME, check::app_uri};
/// assert_eq!(app_uri("ui://museum/object-viewer"), Ok(()));
/// assert_eq!(app_uri("https://museum.example/viewer"), Err(META_UI_RESOURCE_URI_SCHEME));
/// ```
pub fn app_uri(uri: &str) -> Result<(), Rule> {
    if uri.trim().is_empty() {
        Err(META_UI_RESOURCE_URI_REQUIRED)
    } else if !uri.starts_with("ui://") {
        Err(META_UI_RESOURCE_URI_SCHEME)
    } else {
        Ok(())
    }
}

/// The MIME type an MCP App's HTML is served as (the extension's `RESOURCE_MIME_TYPE`).
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// `meta-ui-csp-domain`: a domain of an app's CSP lists (`connectDomains`,
/// `resourceDomains`, ..) is an origin, `scheme://host[:port]`, the host
/// perhaps starting with `*.`. Hosts write these into the sandbox's
/// Content-Security-Policy, so anything else (a path, a space, a `;` that
/// would start a directive of its own) is refused with why.
///
/// ```
/// use mcp_contract::rules::check::app_csp_domain;
/// assert_eq!(app_csp_domain("https://api.example.org"), Ok(()));
/// assert_eq!(app_csp_domain("https://*.example.org:8443"), Ok(()));
/// assert!(app_csp_domain("example.org").is_err());
/// assert!(app_csp_domain("https://a.example; script-src *").is_err());
/// ```
pub fn app_csp_domain(domain: &str) -> Result<(), &'static str> {
    let Some((scheme, rest)) = domain.split_once("://") else {
        return Err("it has no scheme: write the origin, e.g. `https://api.example.org`");
    };
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err("its scheme is no URI scheme");
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    let host = host.strip_prefix("*.").unwrap_or(host);
    let label_ok = |label: &str| !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if host.is_empty() || !host.split('.').all(label_ok) {
        return Err(
            "it is no origin: `scheme://host[:port]` with no path, query, space or `;` (a host may start with `*.`)",
        );
    }
    if port.is_some_and(|port| port != "*" && (port.is_empty() || !port.chars().all(|c| c.is_ascii_digit()))) {
        return Err("its port is no number");
    }
    Ok(())
}

/// A conflict of `input-alias-conflict` among a tool's declared input aliases
/// (`input_aliases(field = ["alias", ..])`): the entry and the alias at fault,
/// by their index, so each side points at its own spelling of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AliasConflict {
    /// The alias at `(entry, alias)` is a field of the input (or one the
    /// aliases name), so a call that sends it means the field itself.
    AliasIsField {
        /// The index of the entry in the declared list.
        entry: usize,
        /// The index of the alias in its entry.
        alias: usize,
    },
    /// The alias at `(entry, alias)` was declared before, for the field of
    /// `first` (maybe the same one): a call that sends it names no one field.
    Shared {
        /// The index of the entry in the declared list.
        entry: usize,
        /// The index of the alias in its entry.
        alias: usize,
        /// The entry that declared the alias first.
        first: usize,
    },
    /// The field of `entry` is no field of the input: no call reaches it.
    UnknownField {
        /// The index of the entry in the declared list.
        entry: usize,
    },
}

/// `input-alias-conflict`: the conflicts among `aliases` (each a field and its
/// aliases, in declaration order), against the input's `fields` when they are
/// known (the definition linter reads them from the input schema; the
/// attribute macro, which cannot see the input type, passes `None` and judges
/// what the attribute shows).
///
/// ```
/// use mcp_contract::rules::check::{AliasConflict, alias_conflicts};
/// let aliases = [("query", &["q", "search"][..]), ("limit", &["q", "max"][..])];
/// assert_eq!(alias_conflicts(&aliases, None), [AliasConflict::Shared { entry: 1, alias: 0, first: 0 }]);
/// let fields = ["query", "max"];
/// assert_eq!(
///     alias_conflicts(&aliases, Some(&fields)),
///     [
///         AliasConflict::UnknownField { entry: 1 },
///         AliasConflict::Shared { entry: 1, alias: 0, first: 0 },
///         AliasConflict::AliasIsField { entry: 1, alias: 1 },
///     ]
/// );
/// ```
pub fn alias_conflicts(aliases: &[(&str, &[&str])], fields: Option<&[&str]>) -> Vec<AliasConflict> {
    let mut conflicts = Vec::new();
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (entry, (field, names)) in aliases.iter().enumerate() {
        if fields.is_some_and(|fields| !fields.contains(field)) {
            conflicts.push(AliasConflict::UnknownField { entry });
        }
        for (alias, name) in names.iter().enumerate() {
            if let Some((_, first)) = seen.iter().find(|(seen, _)| seen == name) {
                conflicts.push(AliasConflict::Shared { entry, alias, first: *first });
            } else if aliases.iter().any(|(field, _)| field == name)
                || fields.is_some_and(|fields| fields.contains(name))
            {
                conflicts.push(AliasConflict::AliasIsField { entry, alias });
            }
            seen.push((name, entry));
        }
    }
    conflicts
}

/// The longest skill `name` the Agent Skills format allows (`skill-frontmatter`).
pub const MAX_SKILL_NAME_LEN: usize = 64;

/// The longest skill `description` the Agent Skills format allows (`skill-frontmatter`).
pub const MAX_SKILL_DESCRIPTION_LEN: usize = 1024;

/// The longest `compatibility` the Agent Skills format allows (`skill-frontmatter`).
pub const MAX_SKILL_COMPATIBILITY_LEN: usize = 500;

/// The frontmatter keys the Agent Skills format defines; any other key is a
/// typo or belongs under `metadata` (`skill-frontmatter`).
pub const SKILL_FRONTMATTER_KEYS: &[&str] =
    &["name", "description", "license", "compatibility", "metadata", "allowed-tools"];

/// Files per skill the Skills extension (SEP-2640) guarantees every host loads (`skill-size-limit`).
pub const MAX_SKILL_FILES: usize = 512;

/// Bytes per skill the Skills extension (SEP-2640) guarantees every host loads (`skill-size-limit`).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// `skill-frontmatter`: a skill `name` is 1 to [`MAX_SKILL_NAME_LEN`]
/// characters of lowercase letters, digits and single hyphens inside the word,
/// as the Agent Skills format and the conformance suite's naming check read it.
/// The error says what is wrong, for the message.
///
/// ```
/// use mcp_contract::rules::check::skill_name;
/// assert!(skill_name("collection-search").is_ok());
/// for bad in ["", "Search", "-search", "search-", "col--search", "col_search"] {
///     assert!(skill_name(bad).is_err(), "{bad}");
/// }
/// assert!(skill_name(&"x".repeat(65)).is_err());
/// ```
pub fn skill_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name.chars().count() > MAX_SKILL_NAME_LEN {
        return Err("is longer than 64 characters");
    }
    if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        return Err("has characters other than lowercase letters, digits and hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err("starts or ends with a hyphen, or has two in a row");
    }
    Ok(())
}

/// A frontmatter value as [`skill_frontmatter`] judges it: each side reads the
/// YAML with its own parser and hands over only the shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontmatterValue<'a> {
    /// A string.
    Text(&'a str),
    /// A mapping of keys to values.
    Mapping,
    /// Anything else: a number, a list, a boolean, null.
    Other,
}

/// The YAML between the first line `---` of a `SKILL.md` and the next line
/// `---`, or `None` when the file does not start with such a block.
///
/// ```
/// use mcp_contract::rules::check::skill_frontmatter_block;
/// assert_eq!(skill_frontmatter_block("---\nname: a\n---\nBody"), Some("name: a\n"));
/// assert_eq!(skill_frontmatter_block("# Title\n"), None);
/// assert_eq!(skill_frontmatter_block("---\nname: a\n"), None);
/// ```
pub fn skill_frontmatter_block(text: &str) -> Option<&str> {
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return None;
    }
    let start = text.find('\n')? + 1;
    let mut end = start;
    for line in lines {
        if line.trim_end() == "---" {
            return Some(&text[start..end]);
        }
        end += line.len();
    }
    None
}

/// `skill-frontmatter`: what the Agent Skills format forbids in the fields of
/// a `SKILL.md` whose folder is named `folder`, each a sentence with its fix.
///
/// ```
/// use mcp_contract::rules::check::{FrontmatterValue, skill_frontmatter};
/// let fields = [("name", FrontmatterValue::Text("search")), ("description", FrontmatterValue::Text("Find."))];
/// assert!(skill_frontmatter(&fields, "search").is_empty());
/// let problems = skill_frontmatter(&[("name", FrontmatterValue::Text("Search"))], "search");
/// assert_eq!(problems.len(), 2, "{problems:?}"); // the name, and no description
/// ```
pub fn skill_frontmatter(fields: &[(&str, FrontmatterValue<'_>)], folder: &str) -> Vec<String> {
    let get = |key: &str| fields.iter().find(|(name, _)| *name == key).map(|(_, value)| *value);
    let mut problems = Vec::new();
    match get("name") {
        Some(FrontmatterValue::Text(name)) => {
            if let Err(why) = skill_name(name) {
                problems.push(format!("`name: {name}` {why}: use lowercase words joined by single hyphens"));
            } else if name != folder {
                problems
                    .push(format!("`name: {name}` is not its folder's name `{folder}`: rename one to match the other"));
            }
        }
        _ => problems.push("`name` is missing or no string: add `name: <the folder's name>`".into()),
    }
    match get("description") {
        Some(FrontmatterValue::Text(description)) if description.trim().is_empty() => {
            problems.push("`description` is empty: say what the skill does and when to use it".into());
        }
        Some(FrontmatterValue::Text(description)) if description.chars().count() > MAX_SKILL_DESCRIPTION_LEN => {
            problems.push(format!(
                "`description` is longer than {MAX_SKILL_DESCRIPTION_LEN} characters: move the detail into the body"
            ));
        }
        Some(FrontmatterValue::Text(_)) => {}
        _ => problems.push("`description` is missing or no string: say what the skill does and when to use it".into()),
    }
    if let Some(FrontmatterValue::Text(text)) = get("compatibility")
        && text.chars().count() > MAX_SKILL_COMPATIBILITY_LEN
    {
        problems.push(format!("`compatibility` is longer than {MAX_SKILL_COMPATIBILITY_LEN} characters: shorten it"));
    }
    for key in ["license", "compatibility", "allowed-tools"] {
        if get(key).is_some_and(|value| !matches!(value, FrontmatterValue::Text(_))) {
            problems.push(format!("`{key}` is no string"));
        }
    }
    if get("metadata").is_some_and(|value| value != FrontmatterValue::Mapping) {
        problems.push("`metadata` is no mapping".into());
    }
    for (key, _) in fields.iter().filter(|(key, _)| !SKILL_FRONTMATTER_KEYS.contains(key)) {
        problems.push(format!(
            "`{key}` is no key of the Agent Skills format ({}): move it under `metadata`",
            SKILL_FRONTMATTER_KEYS.join(", ")
        ));
    }
    problems
}

/// One entry of a skills folder as `skill-files` judges it: a file with its
/// size, a folder, or what the Skills extension cannot serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillEntry {
    /// Relative to the skills folder, `/`-separated.
    pub path: String,
    /// Where it is on disk.
    pub absolute: std::path::PathBuf,
    /// What it is.
    pub kind: SkillEntryKind,
}

/// What a [`SkillEntry`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkillEntryKind {
    /// A regular file of `size` bytes.
    File {
        /// Its length in bytes.
        size: u64,
    },
    /// A folder, walked too.
    Folder,
    /// A symbolic link, a special file or a name that is not UTF-8, with why
    /// (`skill-files`): no host could read it the same way.
    Unservable(&'static str),
}

/// Every entry below `root`, in path order, for `embed_skills!` at compile
/// time and `Server::skills_dir` when the server is built alike. Hidden
/// entries (a name starting with `.`) are skipped, as rmcp's catalog skips
/// them; links are reported, never followed, so the walk ends.
///
/// # Errors
///
/// The I/O error of a folder or an entry that cannot be read.
pub fn skill_entries(root: &std::path::Path) -> std::io::Result<Vec<SkillEntry>> {
    fn visit(dir: &std::path::Path, prefix: &str, out: &mut Vec<SkillEntry>) -> std::io::Result<()> {
        let mut children = std::fs::read_dir(dir)?.collect::<Result<Vec<_>, _>>()?;
        children.sort_by_key(std::fs::DirEntry::file_name);
        for child in children {
            let (name, utf8) = match child.file_name().into_string() {
                Ok(name) => (name, true),
                Err(name) => (name.to_string_lossy().into_owned(), false),
            };
            if name.starts_with('.') {
                continue;
            }
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let metadata = std::fs::symlink_metadata(child.path())?;
            let kind = if !utf8 {
                SkillEntryKind::Unservable("has a name that is not UTF-8")
            } else if metadata.file_type().is_symlink() {
                SkillEntryKind::Unservable("is a symbolic link, which is not served: copy the file in")
            } else if metadata.is_dir() {
                SkillEntryKind::Folder
            } else if metadata.is_file() {
                SkillEntryKind::File { size: metadata.len() }
            } else {
                SkillEntryKind::Unservable("is no regular file")
            };
            out.push(SkillEntry { path: path.clone(), absolute: child.path(), kind });
            if kind == SkillEntryKind::Folder {
                visit(&child.path(), &path, out)?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    visit(root, "", &mut out)?;
    Ok(out)
}

/// `skill-files`, `skill-size-limit` and `skill-frontmatter` over the
/// entries of a skills folder (each a path and its kind, as
/// [`skill_entries`] walks them), each problem with its rule:
/// `embed_skills!` at compile time and `Server::skills_dir` at build judge a
/// folder by this one verdict. `manifest(path, folder)` judges the frontmatter
/// of the regular `SKILL.md` at `path` of the skill folder named `folder`
/// (each side reads YAML with its own parser, see [`skill_frontmatter`]).
///
/// ```
/// use mcp_contract::rules::check::{SkillEntryKind, skill_folder_problems};
/// let entries = [("SKILL.md", SkillEntryKind::File { size: 10 }), ("search/SKILL.md", SkillEntryKind::File { size: 10 })];
/// let problems = skill_folder_problems(&entries, |_, _| vec!["`name` is missing".into()]);
/// assert_eq!(problems.len(), 2);
/// assert_eq!(problems[0].0.id, "skill-files");
/// assert_eq!(problems[1], (mcp_contract::rules::SKILL_FRONTMATTER, "`search/SKILL.md`: `name` is missing".into()));
/// ```
pub fn skill_folder_problems(
    entries: &[(&str, SkillEntryKind)],
    mut manifest: impl FnMut(&str, &str) -> Vec<String>,
) -> Vec<(crate::Rule, String)> {
    const SKILL_MD: &str = "SKILL.md";
    let mut problems = Vec::new();
    let manifests = entries.iter().filter(|(_, kind)| *kind != SkillEntryKind::Folder).filter_map(|(path, kind)| {
        let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
        (file == SKILL_MD).then_some((folder, *kind))
    });
    for (folder, kind) in manifests {
        if folder.is_empty() {
            problems.push((
                crate::SKILL_FILES,
                "`SKILL.md` sits at the folder's root; a skill is a folder of its own: move it into one named after the skill".into(),
            ));
            continue;
        }
        let inside =
            entries.iter().filter(|(path, _)| path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/')));
        let (mut files, mut bytes) = (0usize, 0u64);
        for (path, kind) in inside {
            match kind {
                SkillEntryKind::File { size } => {
                    files += 1;
                    bytes += size;
                }
                SkillEntryKind::Unservable(why) => {
                    problems.push((crate::SKILL_FILES, format!("`{path}` in the skill `{folder}` {why}")));
                }
                SkillEntryKind::Folder => {}
            }
        }
        if files > MAX_SKILL_FILES || bytes > MAX_SKILL_BYTES {
            problems.push((
                crate::SKILL_SIZE_LIMIT,
                format!(
                    "the skill `{folder}` has {files} files of {bytes} bytes, over the {MAX_SKILL_FILES} files or {MAX_SKILL_BYTES} bytes every host loads: split it or move large files out"
                ),
            ));
        }
        if !matches!(kind, SkillEntryKind::File { .. }) {
            continue;
        }
        let name = folder.rsplit('/').next().unwrap_or(folder);
        for problem in manifest(&format!("{folder}/{SKILL_MD}"), name) {
            problems.push((crate::SKILL_FRONTMATTER, format!("`{folder}/{SKILL_MD}`: {problem}")));
        }
    }
    problems
}
