//! Skills (the Skills extension, SEP-2640, `io.modelcontextprotocol/skills`):
//! the folder of [`Server::skills_dir`](crate::server::Server::skills_dir),
//! checked when the server is built and served by rmcp's [`SkillCatalog`]
//! (`skills/list`, `skills/get`, the `skill://` files through
//! `resources/list`, `resources/read` and `resources/directory/read`).
//!
//! rmcp's catalog skips a skill it cannot serve with a line in the log. A
//! server here refuses to build instead: the folder is walked first, and
//! every skill with a link or special file (`skill-files`), over the
//! extension's limits (`skill-size-limit`) or with a frontmatter the Agent
//! Skills format does not allow (`skill-frontmatter`) is reported, all at once.

use std::fs;
use std::path::Path;
use std::time::Duration;

use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{
    CacheScope, ErrorData, GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult, ReadResourceResult, Resource,
    ResourcesCapability, SKILL_MD, SKILLS_EXTENSION_ID, ServerCapabilities, SkillResources, SkillsCapability,
};
use serde_json::Value;

use crate::error::JsonObject;
use crate::lint::LintSkill;
use crate::server::error::ServerError;
use mcp_contract_rules::check::{
    MAX_SKILL_BYTES, MAX_SKILL_COMPATIBILITY_LEN, MAX_SKILL_DESCRIPTION_LEN, MAX_SKILL_FILES, SKILL_FRONTMATTER_KEYS,
    skill_name,
};
use mcp_contract_rules::{Rule, SKILL_FILES, SKILL_FRONTMATTER, SKILL_SIZE_LIMIT};

/// How long a host may keep `skills/list` and `skills/get` answers unless
/// [`Server::skills_ttl`](crate::server::Server::skills_ttl) says otherwise:
/// the folder is read once, when the server is built, so an answer goes stale
/// only with a new deployment.
pub(crate) const DEFAULT_SKILLS_TTL: Duration = Duration::from_secs(300);

/// The skills of a built server and their cache hints.
pub(crate) struct Skills {
    catalog: SkillCatalog,
    ttl_ms: u64,
    cache_scope: CacheScope,
}

impl Skills {
    /// Check the skills below `dir` and load them. `private` when the server
    /// answers only callers with a token: a shared cache must not hand its
    /// answers to anyone else.
    pub(crate) fn load(dir: &Path, ttl: Duration, private: bool) -> Result<Self, ServerError> {
        let fail = |problems| ServerError::Skills { dir: dir.to_path_buf(), problems };
        let walked = walk(dir).map_err(|err| fail(vec![format!("the folder cannot be read: {err}")]))?;
        let problems = check(dir, &walked);
        if !problems.is_empty() {
            return Err(fail(problems));
        }
        let catalog = SkillCatalog::from_dir(dir).map_err(|err| fail(vec![err.to_string()]))?;
        // What the walk passed, the catalog serves; a skill it skipped all the
        // same (a file changed in between) must not go missing without a word.
        let served: Vec<String> = catalog.skills().into_iter().map(|skill| skill.uri).collect();
        let skipped: Vec<String> = skill_folders(&walked)
            .filter(|folder| !served.contains(&skill_uri(folder)))
            .map(|folder| format!("`{folder}` was not served; the log says why (rmcp's skill catalog, at warn)"))
            .collect();
        if !skipped.is_empty() {
            return Err(fail(skipped));
        }
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let cache_scope = if private { CacheScope::Private } else { CacheScope::Public };
        Ok(Self { catalog, ttl_ms, cache_scope })
    }

    /// Declare the extension, with `resources/directory/read`, and the
    /// `resources` capability the skills' files are read through.
    pub(crate) fn advertise(capabilities: &mut ServerCapabilities) {
        capabilities.resources.get_or_insert_with(ResourcesCapability::default);
        let settings = match serde_json::to_value(SkillsCapability::new().with_directory_read()) {
            Ok(Value::Object(settings)) => settings,
            _ => JsonObject::new(),
        };
        capabilities.extensions.get_or_insert_default().insert(SKILLS_EXTENSION_ID.to_owned(), settings);
    }

    /// `skills/list`: every skill, on one page.
    pub(crate) fn list(&self) -> ListSkillsResult {
        let mut result = self.catalog.list_skills();
        result.ttl_ms = Some(self.ttl_ms);
        result.cache_scope = Some(self.cache_scope);
        result
    }

    /// `skills/get`; `-32602` for a URI that is no skill's `SKILL.md`.
    pub(crate) fn get(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        let uri_quoted = crate::define::cap_quoted(uri);
        let result = self.catalog.get_skill(uri).map_err(|_| {
            ErrorData::invalid_params(
                format!("No skill of this server has its SKILL.md at `{uri_quoted}`. Call skills/list for the skills it serves."),
                Some(serde_json::json!({ "uri": uri_quoted })),
            )
        })?;
        Ok(result.with_ttl_ms(self.ttl_ms).with_cache_scope(self.cache_scope))
    }

    /// Each skill's `SKILL.md`, for `resources/list`.
    pub(crate) fn resources(&self) -> Vec<Resource> {
        self.catalog.resources()
    }

    /// `resources/read` of a skill's file; `None` for a URI no skill serves.
    pub(crate) fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        self.catalog.read_resource(uri)
    }

    /// `resources/directory/read`; `-32602` for a URI that is no folder of a skill.
    pub(crate) fn read_directory(&self, uri: &str) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.catalog.read_resource_directory(uri).map_err(|_| {
            let uri = crate::define::cap_quoted(uri);
            ErrorData::invalid_params(
                format!("`{uri}` is no folder of a skill this server serves. Read a skill's folder: its SKILL.md's URI without `/SKILL.md`."),
                Some(serde_json::json!({ "uri": uri })),
            )
        })
    }

    /// What the definition linter reads of each skill.
    pub(crate) fn for_lint(&self) -> Vec<LintSkill> {
        self.catalog
            .skills()
            .into_iter()
            .map(|skill| {
                let files = match &skill.resources {
                    SkillResources::Files(files) => files.iter().map(|file| file.uri.clone()).collect(),
                    _ => vec![skill.uri.clone()],
                };
                let allowed = match skill.frontmatter.extra.get("allowed-tools") {
                    Some(Value::String(tools)) => tools.split_whitespace().map(str::to_owned).collect(),
                    _ => Vec::new(),
                };
                LintSkill::new(&skill.uri, skill.name()).files(files).allowed_tools(allowed)
            })
            .collect()
    }
}

/// One entry below the skills folder; hidden ones (a name starting with `.`)
/// are neither walked nor served, as rmcp's catalog does.
struct Walked {
    /// Relative to the folder, `/`-separated.
    path: String,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File {
        size: u64,
    },
    Folder,
    /// A symbolic link, a special file or a name that is not UTF-8: the catalog serves none.
    Unservable(&'static str),
}

/// Every entry below `root`, without following links. Links are not
/// followed, so the walk ends: its depth is the tree's.
fn walk(root: &Path) -> std::io::Result<Vec<Walked>> {
    fn visit(dir: &Path, prefix: &str, out: &mut Vec<Walked>) -> std::io::Result<()> {
        let mut entries = fs::read_dir(dir)?.collect::<Result<Vec<_>, _>>()?;
        entries.sort_by_key(fs::DirEntry::file_name);
        for entry in entries {
            let name = entry.file_name();
            let (name, utf8) = match name.into_string() {
                Ok(name) => (name, true),
                Err(name) => (name.to_string_lossy().into_owned(), false),
            };
            if name.starts_with('.') {
                continue;
            }
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let metadata = fs::symlink_metadata(entry.path())?;
            let kind = if !utf8 {
                Kind::Unservable("has a name that is not UTF-8")
            } else if metadata.file_type().is_symlink() {
                Kind::Unservable("is a symbolic link, which is not served: copy the file in")
            } else if metadata.is_dir() {
                Kind::Folder
            } else if metadata.is_file() {
                Kind::File { size: metadata.len() }
            } else {
                Kind::Unservable("is no regular file")
            };
            out.push(Walked { path: path.clone(), kind });
            if kind == Kind::Folder {
                visit(&entry.path(), &path, out)?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    visit(root, "", &mut out)?;
    Ok(out)
}

/// The folders holding a `SKILL.md` (of any kind, so a linked one is reported).
fn skill_folders(walked: &[Walked]) -> impl Iterator<Item = &str> {
    walked.iter().filter(|entry| entry.kind != Kind::Folder).filter_map(|entry| {
        let (folder, file) = entry.path.rsplit_once('/').unwrap_or(("", &entry.path));
        (file == SKILL_MD).then_some(folder)
    })
}

/// The URI rmcp's catalog serves a skill folder's `SKILL.md` at.
fn skill_uri(folder: &str) -> String {
    let mut uri = String::from("skill://");
    for byte in folder.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.push('/');
    uri.push_str(SKILL_MD);
    uri
}

/// Every problem of every skill below `root`, each a sentence ending with its rule's URL.
fn check(root: &Path, walked: &[Walked]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut report = |rule: Rule, text: String| problems.push(format!("{text} (rule `{}`: {})", rule.id, rule.url()));
    for folder in skill_folders(walked) {
        if folder.is_empty() {
            report(
                SKILL_FILES,
                "`SKILL.md` sits at the folder's root; a skill is a folder of its own: move it into one named after the skill".into(),
            );
            continue;
        }
        let inside =
            walked.iter().filter(|entry| entry.path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/')));
        let (mut files, mut bytes) = (0usize, 0u64);
        for entry in inside {
            match entry.kind {
                Kind::File { size } => {
                    files += 1;
                    bytes += size;
                }
                Kind::Unservable(why) => report(SKILL_FILES, format!("`{}` in the skill `{folder}` {why}", entry.path)),
                Kind::Folder => {}
            }
        }
        if files > MAX_SKILL_FILES || bytes > MAX_SKILL_BYTES {
            report(
                SKILL_SIZE_LIMIT,
                format!(
                    "the skill `{folder}` has {files} files of {bytes} bytes, over the {MAX_SKILL_FILES} files or {MAX_SKILL_BYTES} bytes every host loads: split it or move large files out"
                ),
            );
        }
        let manifest = root.join(folder).join(SKILL_MD);
        let Ok(text) = fs::read(&manifest) else { continue };
        let dir_name = folder.rsplit('/').next().unwrap_or(folder);
        for problem in frontmatter_problems(&text, dir_name) {
            report(SKILL_FRONTMATTER, format!("`{folder}/{SKILL_MD}`: {problem}"));
        }
    }
    problems
}

/// What the Agent Skills format forbids in a `SKILL.md`'s frontmatter, each
/// with its fix. `folder` is the name of the skill's folder, which `name` must be.
pub(crate) fn frontmatter_problems(bytes: &[u8], folder: &str) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(bytes) else { return vec!["the file is not UTF-8".into()] };
    let Some(block) = frontmatter_block(text) else {
        return vec!["the file does not start with a frontmatter block between `---` lines: begin it with `---`, `name: ..`, `description: ..`, `---`".into()];
    };
    let fields: JsonObject = match yaml_serde::from_str::<Value>(block) {
        Ok(Value::Object(fields)) => fields,
        Ok(_) => return vec!["the frontmatter is no mapping of keys to values".into()],
        Err(err) => return vec![format!("the frontmatter is no valid YAML: {err}")],
    };
    let mut problems = Vec::new();
    match fields.get("name") {
        Some(Value::String(name)) => {
            if let Err(why) = skill_name(name) {
                problems.push(format!("`name: {name}` {why}: use lowercase words joined by single hyphens"));
            } else if name != folder {
                problems
                    .push(format!("`name: {name}` is not its folder's name `{folder}`: rename one to match the other"));
            }
        }
        _ => problems.push("`name` is missing or no string: add `name: <the folder's name>`".into()),
    }
    match fields.get("description") {
        Some(Value::String(description)) if description.trim().is_empty() => {
            problems.push("`description` is empty: say what the skill does and when to use it".into());
        }
        Some(Value::String(description)) if description.chars().count() > MAX_SKILL_DESCRIPTION_LEN => {
            problems.push(format!(
                "`description` is longer than {MAX_SKILL_DESCRIPTION_LEN} characters: move the detail into the body"
            ))
        }
        Some(Value::String(_)) => {}
        _ => problems.push("`description` is missing or no string: say what the skill does and when to use it".into()),
    }
    match fields.get("compatibility") {
        Some(Value::String(text)) if text.chars().count() > MAX_SKILL_COMPATIBILITY_LEN => problems
            .push(format!("`compatibility` is longer than {MAX_SKILL_COMPATIBILITY_LEN} characters: shorten it")),
        None | Some(Value::String(_)) => {}
        Some(_) => problems.push("`compatibility` is no string".into()),
    }
    for key in ["license", "allowed-tools"] {
        if fields.get(key).is_some_and(|value| !value.is_string()) {
            problems.push(format!("`{key}` is no string"));
        }
    }
    if fields.get("metadata").is_some_and(|value| !value.is_object()) {
        problems.push("`metadata` is no mapping".into());
    }
    for key in fields.keys().filter(|key| !SKILL_FRONTMATTER_KEYS.contains(&key.as_str())) {
        problems.push(format!(
            "`{key}` is no key of the Agent Skills format ({}): move it under `metadata`",
            SKILL_FRONTMATTER_KEYS.join(", ")
        ));
    }
    problems
}

/// The text between the first line `---` and the next, as rmcp's catalog reads it.
fn frontmatter_block(text: &str) -> Option<&str> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        frontmatter_problems(text.as_bytes(), "search")
    }

    #[test]
    fn a_valid_frontmatter_has_no_problem() {
        let text = "---\nname: search\ndescription: Find objects.\nlicense: MIT\nallowed-tools: search_objects\nmetadata:\n  version: \"1\"\n---\nBody\n";
        assert_eq!(problems(text), Vec::<String>::new());
    }

    #[test]
    fn each_broken_field_is_reported_at_once() {
        let text = "---\nname: Search_Tool\ndescription: \"\"\ncompatibility: 3\nauthor: me\n---\n";
        let found = problems(text);
        assert_eq!(found.len(), 4, "{found:#?}");
        assert!(found[0].contains("`name: Search_Tool`"), "{}", found[0]);
        assert!(found[1].contains("`description` is empty"), "{}", found[1]);
        assert!(found[2].contains("`compatibility` is no string"), "{}", found[2]);
        assert!(found[3].contains("`author` is no key") && found[3].contains("metadata"), "{}", found[3]);
    }

    #[test]
    fn a_name_that_is_not_the_folders_is_reported() {
        let found = problems("---\nname: finder\ndescription: Find.\n---\n");
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("not its folder's name `search`"), "{}", found[0]);
    }

    #[test]
    fn a_file_without_frontmatter_is_reported() {
        assert!(problems("# Search\n")[0].contains("does not start with a frontmatter block"));
        assert!(problems("---\nname: search\n")[0].contains("does not start with a frontmatter block"));
    }

    #[test]
    fn the_uri_encodes_what_the_catalog_encodes() {
        assert_eq!(skill_uri("acme/billing"), "skill://acme/billing/SKILL.md");
        assert_eq!(skill_uri("a b"), "skill://a%20b/SKILL.md");
    }
}
