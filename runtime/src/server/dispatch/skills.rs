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

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{
    CacheScope, DIRECTORY_MIME_TYPE, ErrorData, GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult,
    ReadResourceResult, Resource, ResourceContents, ResourcesCapability, SKILL_MD, SKILLS_EXTENSION_ID,
    ServerCapabilities, Skill, SkillFrontmatter, SkillResource, SkillResources, SkillsCapability,
};
use serde_json::Value;

use crate::define::EmbeddedSkills;
use crate::error::JsonObject;
use crate::lint::LintSkill;
use crate::server::error::ServerError;
use mcp_contract_rules::check::{
    FrontmatterValue, SkillEntryKind, skill_folder_problems, skill_frontmatter, skill_frontmatter_block,
};

/// How long a host may keep `skills/list` and `skills/get` answers unless
/// [`Server::skills_ttl`](crate::server::Server::skills_ttl) says otherwise:
/// the folder is read once, when the server is built, so an answer goes stale
/// only with a new deployment.
pub(crate) const DEFAULT_SKILLS_TTL: Duration = Duration::from_secs(300);

/// Where a server's skills come from.
#[derive(Clone, Debug)]
pub(crate) enum SkillsSource {
    /// A folder read when the server is built (`Server::skills_dir`).
    Folder(PathBuf),
    /// A folder read into the binary (`embed_skills!`, `Server::skills`).
    Embedded(EmbeddedSkills),
}

/// The skills of a built server and their cache hints.
pub(crate) struct Skills {
    source: Source,
    ttl_ms: u64,
    cache_scope: CacheScope,
}

enum Source {
    /// rmcp's catalog of a folder on disk.
    Folder(SkillCatalog),
    /// The same answers, from the files in the binary.
    Embedded(Embedded),
}

impl Skills {
    /// Check the skills and load them. `private` when the server answers only
    /// callers with a token: a shared cache must not hand its answers to
    /// anyone else.
    pub(crate) fn load(from: &SkillsSource, ttl: Duration, private: bool) -> Result<Self, ServerError> {
        let source = match from {
            SkillsSource::Folder(dir) => Source::Folder(load_folder(dir)?),
            SkillsSource::Embedded(embedded) => Source::Embedded(
                Embedded::new(embedded)
                    .map_err(|problems| ServerError::Skills { dir: PathBuf::from(embedded.folder()), problems })?,
            ),
        };
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let cache_scope = if private { CacheScope::Private } else { CacheScope::Public };
        Ok(Self { source, ttl_ms, cache_scope })
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
        let mut result = match &self.source {
            Source::Folder(catalog) => catalog.list_skills(),
            Source::Embedded(embedded) => ListSkillsResult::with_all_items(embedded.skills.clone()),
        };
        result.ttl_ms = Some(self.ttl_ms);
        result.cache_scope = Some(self.cache_scope);
        result
    }

    /// `skills/get`; `-32602` for a URI that is no skill's `SKILL.md`.
    pub(crate) fn get(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        let uri_quoted = crate::define::cap_quoted(uri);
        let found = match &self.source {
            Source::Folder(catalog) => catalog.get_skill(uri).ok(),
            Source::Embedded(embedded) => {
                embedded.skills.iter().find(|skill| skill.uri == uri).map(|skill| GetSkillResult::new(skill.clone()))
            }
        };
        let result = found.ok_or_else(|| {
            ErrorData::invalid_params(
                format!("No skill of this server has its SKILL.md at `{uri_quoted}`. Call skills/list for the skills it serves."),
                Some(serde_json::json!({ "uri": uri_quoted })),
            )
        })?;
        Ok(result.with_ttl_ms(self.ttl_ms).with_cache_scope(self.cache_scope))
    }

    /// Each skill's `SKILL.md`, for `resources/list`.
    pub(crate) fn resources(&self) -> Vec<Resource> {
        match &self.source {
            Source::Folder(catalog) => catalog.resources(),
            Source::Embedded(embedded) => embedded.listed.clone(),
        }
    }

    /// `resources/read` of a skill's file; `None` for a URI no skill serves.
    pub(crate) fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        match &self.source {
            Source::Folder(catalog) => catalog.read_resource(uri),
            Source::Embedded(embedded) => embedded.read(uri),
        }
    }

    /// `resources/directory/read`; `-32602` for a URI that is no folder of a skill.
    pub(crate) fn read_directory(&self, uri: &str) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let children = match &self.source {
            Source::Folder(catalog) => catalog.read_resource_directory(uri).ok(),
            Source::Embedded(embedded) => embedded
                .directories
                .get(uri)
                .map(|children| ReadResourceDirectoryResult::with_all_items(children.clone())),
        };
        children.ok_or_else(|| {
            let uri = crate::define::cap_quoted(uri);
            ErrorData::invalid_params(
                format!("`{uri}` is no folder of a skill this server serves. Read a skill's folder: its SKILL.md's URI without `/SKILL.md`."),
                Some(serde_json::json!({ "uri": uri })),
            )
        })
    }

    /// What the definition linter reads of each skill.
    pub(crate) fn for_lint(&self) -> Vec<LintSkill> {
        let skills = match &self.source {
            Source::Folder(catalog) => catalog.skills(),
            Source::Embedded(embedded) => embedded.skills.clone(),
        };
        skills
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

/// Check the skills below `dir` and load them into rmcp's catalog.
fn load_folder(dir: &Path) -> Result<SkillCatalog, ServerError> {
    let fail = |problems| ServerError::Skills { dir: dir.to_path_buf(), problems };
    let walked = walk(dir).map_err(|err| fail(vec![format!("the folder cannot be read: {err}")]))?;
    let problems = check(&walked, |path| fs::read(dir.join(path)).ok().map(Cow::Owned));
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
    Ok(catalog)
}

/// One entry below the skills folder; hidden ones (a name starting with `.`)
/// are neither walked nor served, as rmcp's catalog does.
struct Walked {
    /// Relative to the folder, `/`-separated.
    path: String,
    kind: SkillEntryKind,
}

/// Every entry below `root`, as the compile-time embedding walks it.
fn walk(root: &Path) -> std::io::Result<Vec<Walked>> {
    let entries = mcp_contract_rules::check::skill_entries(root)?;
    Ok(entries.into_iter().map(|entry| Walked { path: entry.path, kind: entry.kind }).collect())
}

/// The folders holding a `SKILL.md` (of any kind, so a linked one is reported).
fn skill_folders(walked: &[Walked]) -> impl Iterator<Item = &str> {
    walked.iter().filter(|entry| entry.kind != SkillEntryKind::Folder).filter_map(|entry| {
        let (folder, file) = entry.path.rsplit_once('/').unwrap_or(("", &entry.path));
        (file == SKILL_MD).then_some(folder)
    })
}

/// The URI rmcp's catalog serves a skill folder's `SKILL.md` at.
fn skill_uri(folder: &str) -> String {
    uri_of(&format!("{folder}/{SKILL_MD}"))
}

/// The `skill://` URI of a path below the skills folder, percent-encoded as
/// rmcp's catalog encodes it.
fn uri_of(path: &str) -> String {
    let mut uri = String::from("skill://");
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// Every problem of every skill below `root`, each a sentence ending with its rule's URL.
fn check<'a>(walked: &[Walked], read: impl Fn(&str) -> Option<Cow<'a, [u8]>>) -> Vec<String> {
    let kinds: Vec<(&str, SkillEntryKind)> = walked.iter().map(|entry| (entry.path.as_str(), entry.kind)).collect();
    let manifest =
        |path: &str, folder: &str| read(path).map_or_else(Vec::new, |text| frontmatter_problems(&text, folder));
    skill_folder_problems(&kinds, manifest)
        .into_iter()
        .map(|(rule, text)| format!("{text} (rule `{}`: {})", rule.id, rule.url()))
        .collect()
}

/// What the Agent Skills format forbids in a `SKILL.md`'s frontmatter, each
/// with its fix (`rules::check::skill_frontmatter`, which the embedding macro
/// runs too). `folder` is the name of the skill's folder, which `name` must be.
pub(crate) fn frontmatter_problems(bytes: &[u8], folder: &str) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(bytes) else { return vec!["the file is not UTF-8".into()] };
    let Some(block) = skill_frontmatter_block(text) else {
        return vec!["the file does not start with a frontmatter block between `---` lines: begin it with `---`, `name: ..`, `description: ..`, `---`".into()];
    };
    let fields: JsonObject = match yaml_serde::from_str::<Value>(block) {
        Ok(Value::Object(fields)) => fields,
        Ok(_) => return vec!["the frontmatter is no mapping of keys to values".into()],
        Err(err) => return vec![format!("the frontmatter is no valid YAML: {err}")],
    };
    let shapes: Vec<(&str, FrontmatterValue<'_>)> = fields
        .iter()
        .map(|(key, value)| {
            let shape = match value {
                Value::String(text) => FrontmatterValue::Text(text),
                Value::Object(_) => FrontmatterValue::Mapping,
                _ => FrontmatterValue::Other,
            };
            (key.as_str(), shape)
        })
        .collect();
    skill_frontmatter(&shapes, folder)
}

/// The skills of an [`EmbeddedSkills`], answered as rmcp's catalog answers a
/// folder: the same entries, digests, MIME types and directory listings.
struct Embedded {
    skills: Vec<Skill>,
    /// Each skill's `SKILL.md`, for `resources/list`.
    listed: Vec<Resource>,
    /// Every file of a skill, by URI.
    files: HashMap<String, &'static [u8]>,
    /// The children of every folder of a skill, by the folder's URI.
    directories: HashMap<String, Vec<Resource>>,
}

impl Embedded {
    fn new(embedded: &EmbeddedSkills) -> Result<Self, Vec<String>> {
        let files = embedded.files();
        let mut folders = BTreeSet::new();
        for (path, _) in files {
            let mut at = *path;
            while let Some((parent, _)) = at.rsplit_once('/') {
                folders.insert(parent);
                at = parent;
            }
        }
        let mut walked: Vec<Walked> =
            folders.iter().map(|folder| Walked { path: (*folder).to_owned(), kind: SkillEntryKind::Folder }).collect();
        walked.extend(files.iter().map(|(path, bytes)| Walked {
            path: (*path).to_owned(),
            kind: SkillEntryKind::File { size: bytes.len() as u64 },
        }));
        let bytes_of = |path: &str| files.iter().find(|(at, _)| *at == path).map(|(_, bytes)| *bytes);
        let problems = check(&walked, |path| bytes_of(path).map(Cow::Borrowed));
        if !problems.is_empty() {
            return Err(problems);
        }

        let mut skills = Vec::new();
        let mut listed = Vec::new();
        let mut served = HashMap::new();
        let mut skill_dirs = Vec::new();
        for folder in skill_folders(&walked) {
            let manifest = bytes_of(&format!("{folder}/{SKILL_MD}")).unwrap_or_default();
            let frontmatter =
                parse_frontmatter(manifest).map_err(|why| vec![format!("`{folder}/{SKILL_MD}`: {why}")])?;
            let inside = |path: &&(&str, &[u8])| path.0.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/'));
            let mut resources: Vec<SkillResource> = files
                .iter()
                .filter(inside)
                .map(|(path, bytes)| SkillResource::from_bytes(uri_of(path), bytes))
                .collect();
            resources.sort_by(|a, b| a.uri.cmp(&b.uri));
            for (path, bytes) in files.iter().filter(inside) {
                served.insert(uri_of(path), *bytes);
            }
            let uri = skill_uri(folder);
            listed.push(
                Resource::new(&uri, &frontmatter.name)
                    .with_description(&frontmatter.description)
                    .with_mime_type(MARKDOWN)
                    .with_size(manifest.len() as u64),
            );
            let skill = Skill::new(uri, frontmatter, SkillResources::Files(resources));
            skill.validate().map_err(|err| vec![format!("`{folder}`: {err}")])?;
            skills.push(skill);
            skill_dirs.push(folder);
        }
        skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        listed.sort_by(|a, b| a.uri.cmp(&b.uri));

        // The folders of the skills, each with its direct children.
        let in_a_skill = |path: &str| {
            skill_dirs
                .iter()
                .any(|dir| path == *dir || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/')))
        };
        let mut directories: HashMap<String, Vec<Resource>> = HashMap::new();
        for dir in folders.iter().copied().filter(|dir| in_a_skill(dir)) {
            directories.insert(uri_of(dir), Vec::new());
        }
        for entry in &walked {
            let Some((parent, name)) = entry.path.rsplit_once('/') else { continue };
            let Some(children) = directories.get_mut(&uri_of(parent)) else { continue };
            let uri = uri_of(&entry.path);
            children.push(match entry.kind {
                SkillEntryKind::File { size } => {
                    let resource = Resource::new(uri, name).with_size(size);
                    match mime_type_of(name) {
                        Some(mime) => resource.with_mime_type(mime),
                        None => resource,
                    }
                }
                _ => Resource::new(uri, name).with_mime_type(DIRECTORY_MIME_TYPE),
            });
        }
        for children in directories.values_mut() {
            children.sort_by(|a, b| a.uri.cmp(&b.uri));
        }
        Ok(Self { skills, listed, files: served, directories })
    }

    fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        let bytes = *self.files.get(uri)?;
        let mime = mime_type_of(uri);
        let text = mime
            .is_some_and(is_textual)
            .then_some(bytes)
            .filter(|bytes| !bytes.contains(&0))
            .and_then(|bytes| std::str::from_utf8(bytes).ok());
        let contents = match text {
            Some(text) => ResourceContents::text(text, uri),
            None => {
                use base64::Engine as _;
                ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri)
            }
        };
        let contents = match mime {
            Some(mime) => contents.with_mime_type(mime),
            None => contents,
        };
        Some(ReadResourceResult::new(vec![contents]))
    }
}

const MARKDOWN: &str = "text/markdown";

/// The frontmatter as the extension lists it: `name`, `description`, and every other key as written.
fn parse_frontmatter(bytes: &[u8]) -> Result<SkillFrontmatter, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the file is not UTF-8".to_owned())?;
    let block = skill_frontmatter_block(text).ok_or("the file has no frontmatter block")?;
    let mut fields: JsonObject =
        yaml_serde::from_str(block).map_err(|err| format!("the frontmatter is no valid YAML: {err}"))?;
    let mut take = |key| match fields.remove(key) {
        Some(Value::String(text)) => Ok(text),
        _ => Err(format!("`{key}` is missing or no string")),
    };
    let (name, description) = (take("name")?, take("description")?);
    let mut frontmatter = SkillFrontmatter::new(name, description);
    frontmatter.extra = fields;
    Ok(frontmatter)
}

// rmcp's catalog keeps its table of MIME types to itself; this is the same
// table, so an embedded skill's files are typed as a folder's are.

/// Whether files of this type may be sent as `text` (when UTF-8 without NUL).
fn is_textual(mime_type: &str) -> bool {
    mime_type.starts_with("text/")
        || matches!(
            mime_type,
            "application/json"
                | "application/xml"
                | "application/yaml"
                | "application/toml"
                | "application/x-sh"
                | "image/svg+xml"
        )
}

/// The MIME type of a file by its extension; `None` for one the table does not know.
fn mime_type_of(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name.rsplit_once('.').map(|(_, extension)| extension.to_ascii_lowercase());
    Some(match extension.as_deref()? {
        "md" | "markdown" => MARKDOWN,
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" => "application/x-sh",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => return None,
    })
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
