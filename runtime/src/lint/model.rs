//! What the linter reads and what it reports: the [`LintInput`] and
//! [`LintOptions`] of a run, and its [`LintReport`] of [`Diagnostic`]s.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

use crate::define::{DynPrompt, DynResource, DynTool, Landing};
use mcp_contract_rules::{Rule, Severity};

/// What a [`Diagnostic`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DefinitionKind {
    /// A tool definition.
    Tool,
    /// A resource or resource template definition.
    Resource,
    /// A prompt definition.
    Prompt,
    /// The `server.json` manifest.
    ServerJson,
    /// The landing page's [`Landing`](crate::define::Landing) config.
    Landing,
    /// A skill the server serves (the Skills extension, SEP-2640).
    Skill,
}

impl fmt::Display for DefinitionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
            Self::ServerJson => "server-json",
            Self::Landing => "landing",
            Self::Skill => "skill",
        })
    }
}

/// One finding of the linter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The rule id, e.g. `format-parity`; its section in `docs/lints.md` has this anchor.
    pub rule: &'static str,
    /// The rule's severity.
    pub severity: Severity,
    /// What kind of definition the finding is about.
    pub kind: DefinitionKind,
    /// The definition's name: a tool's, resource's or prompt's name, or the
    /// manifest's `name` (`server.json` without one).
    pub name: String,
    /// Where in the definition, when there is a place: a JSON Pointer into the
    /// definition's list entry (`tools/list`: `/inputSchema/properties/id`;
    /// `resources/templates/list`: `/uriTemplate`; `prompts/list`:
    /// `/arguments/0/description`) or into `server.json` (`/packages/0/version`);
    /// into the JSON Schema of a resource's params type or a prompt's arguments
    /// type, which no list publishes, under `/paramsSchema` and
    /// `/argumentsSchema`; or for format parity the field's path in the
    /// structured result (`results[].title`).
    pub path: Option<String>,
    /// What is wrong and how to fix it, ending with `see <the rule's section of the lint reference>`
    /// ([`rules::docs_url`](crate::rules::docs_url)).
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(
        rule: Rule,
        kind: DefinitionKind,
        name: impl Into<String>,
        path: Option<String>,
        text: impl fmt::Display,
    ) -> Self {
        Self {
            rule: rule.id,
            severity: rule.severity,
            kind,
            name: name.into(),
            path,
            message: format!("{text}; see {}", mcp_contract_rules::docs_url(rule.id)),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}] {} `{}`", self.severity, self.rule, self.kind, self.name)?;
        if let Some(path) = &self.path {
            write!(f, " at `{path}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The result of [`validate`](super::validate): every diagnostic, and whether none is an error.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LintReport {
    /// `false` when any diagnostic is an error; warnings never fail a run.
    pub passed: bool,
    /// Every finding, errors and warnings, in the order the rules ran.
    pub diagnostics: Vec<Diagnostic>,
}

impl LintReport {
    pub(super) fn from_diagnostics(diagnostics: Vec<Diagnostic>) -> Self {
        let passed = diagnostics.iter().all(|d| d.severity != Severity::Error);
        Self { passed, diagnostics }
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }

    /// The report as one JSON document, as `lint --format json` prints it:
    /// `{"passed": bool, "diagnostics": [{"rule", "severity", "kind", "name", "path", "message"}]}`.
    ///
    /// ```
    /// use mcp_contract::lint::{LintInput, validate};
    /// let json = validate(&LintInput::default().server_json("[]")).to_json();
    /// assert_eq!(json["passed"], false);
    /// assert_eq!(json["diagnostics"][0]["rule"], "server-json-type");
    /// assert_eq!(json["diagnostics"][0]["kind"], "server-json");
    /// assert_eq!(json["diagnostics"][0]["path"], "");
    /// ```
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// [`LintReport::to_json`] as one line of text, keys in the documented order.
    ///
    /// ```
    /// use mcp_contract::lint::LintReport;
    /// assert_eq!(LintReport { passed: true, diagnostics: vec![] }.to_json_string(), r#"{"passed":true,"diagnostics":[]}"#);
    /// ```
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Grouped by severity: errors first, then warnings, then a count.
impl fmt::Display for LintReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (severity, title) in [(Severity::Error, "errors"), (Severity::Warning, "warnings")] {
            let group: Vec<&Diagnostic> = self.diagnostics.iter().filter(|d| d.severity == severity).collect();
            if group.is_empty() {
                continue;
            }
            writeln!(f, "{title} ({}):", group.len())?;
            for diagnostic in group {
                writeln!(f, "  {diagnostic}")?;
            }
        }
        let errors = self.errors().count();
        let warnings = self.warnings().count();
        write!(f, "lint {}: {errors} error(s), {warnings} warning(s)", if self.passed { "passed" } else { "failed" })
    }
}

/// Which LLM vendors' schema rules the portability lints apply.
///
/// | rule | `default` | `strict` | `gemini` |
/// |---|---|---|---|
/// | `schema-format-portability` (error) | yes | yes | yes |
/// | `schema-anyof-needs-type` | yes | yes | yes |
/// | `schema-no-discriminator-keyword` | yes | yes | yes |
/// | `schema-no-defs` | no | yes | yes |
/// | `schema-type-array` | no | yes | yes |
/// | `schema-dialect-tag` | no | `$schema` missing | `$schema` present |
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// What every vendor accepts today, as the reference checks by default
    /// (OpenAI's formats; typed union branches; no `discriminator`).
    #[default]
    Default,
    /// `default`, plus no `$defs`/`$ref`, no `type` arrays, plus an explicit `$schema` dialect tag.
    Strict,
    /// `default`, plus no `$defs`/`$ref`, no `type` arrays and no `$schema`: Gemini rejects all three.
    Gemini,
}

impl Profile {
    /// Every profile, by name.
    pub const ALL: [(&'static str, Self); 3] =
        [("default", Self::Default), ("strict", Self::Strict), ("gemini", Self::Gemini)];

    /// The profile's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Strict => "strict",
            Self::Gemini => "gemini",
        }
    }
}

impl FromStr for Profile {
    type Err = String;

    /// ```
    /// use mcp_contract::lint::Profile;
    /// assert_eq!("gemini".parse::<Profile>(), Ok(Profile::Gemini));
    /// assert!("claude".parse::<Profile>().unwrap_err().contains("default, strict, gemini"));
    /// ```
    fn from_str(name: &str) -> Result<Self, String> {
        Self::ALL.iter().find(|(known, _)| *known == name).map(|(_, profile)| *profile).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|(known, _)| *known).collect();
            format!("unknown portability profile `{name}`; the profiles are {}", names.join(", "))
        })
    }
}

/// How [`validate`](super::validate) runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintOptions {
    /// The portability profile.
    pub profile: Profile,
    /// The `format` values `schema-format-portability` accepts; `None` for
    /// [`PORTABLE_FORMATS`](crate::schema::PORTABLE_FORMATS) (OpenAI's nine).
    pub format_allowlist: Option<Vec<String>>,
    /// Whether to run each tool's `format` on samples (`format-parity`).
    pub format_parity: bool,
    /// Tools `capped-list-no-truncation` skips, by name: a tool whose cap can
    /// never cut its list (the reference's `truncationAllowlist`).
    pub truncation_allowlist: Vec<String>,
}

impl Default for LintOptions {
    fn default() -> Self {
        Self {
            profile: Profile::Default,
            format_allowlist: None,
            format_parity: true,
            truncation_allowlist: Vec::new(),
        }
    }
}

/// What [`validate`](super::validate) checks: a server's definitions, an optional `server.json`,
/// the crate's name and version, and the options.
///
/// ```
/// use mcp_contract::lint::{LintInput, validate};
/// use mcp_contract::tools::NoArguments;
/// use mcp_contract::{Context, McpError, resources::{Resource, ReadResourceResult, ResourceDefinition}};
///
/// /// A hand-written resource whose name is its URI.
/// struct About;
/// static ABOUT: ResourceDefinition =
///     ResourceDefinition::new("museum://about", "museum://about").with_description("Opening hours and address.");
/// impl Resource for About {
///     type Params = NoArguments;
///     fn definition(&self) -> &'static ResourceDefinition {
///         &ABOUT
///     }
///     async fn read(&self, _uri: &str, _params: NoArguments, _ctx: Context) -> Result<ReadResourceResult, McpError> {
///         Ok(ReadResourceResult::text("Open daily."))
///     }
/// }
///
/// let report = validate(&LintInput::default().resources([&About as &dyn mcp_contract::resources::DynResource]));
/// assert_eq!(report.diagnostics[0].rule, "resource-name-not-uri");
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct LintInput<'a> {
    /// The tools, in registration order.
    pub tools: Vec<&'a dyn DynTool>,
    /// The resources and resource templates, in registration order.
    pub resources: Vec<&'a dyn DynResource>,
    /// The prompts, in registration order.
    pub prompts: Vec<&'a dyn DynPrompt>,
    /// The text of a `server.json` manifest, when there is one to check.
    pub server_json: Option<&'a str>,
    /// The landing page's config, when the server has one.
    pub landing: Option<&'a Landing>,
    /// The skills the server serves, as the linter reads them.
    pub skills: Vec<LintSkill>,
    /// The crate's name (informational).
    pub crate_name: Option<&'a str>,
    /// The crate's version: `server-json-version-sync` compares `server.json`'s with it.
    pub crate_version: Option<&'a str>,
    /// How to run.
    pub options: LintOptions,
}

impl<'a> LintInput<'a> {
    /// Lint these tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = &'a dyn DynTool>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Lint these resources and resource templates.
    pub fn resources(mut self, resources: impl IntoIterator<Item = &'a dyn DynResource>) -> Self {
        self.resources.extend(resources);
        self
    }

    /// Lint these prompts.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = &'a dyn DynPrompt>) -> Self {
        self.prompts.extend(prompts);
        self
    }

    /// Lint this `server.json` text too.
    pub fn server_json(mut self, text: &'a str) -> Self {
        self.server_json = Some(text);
        self
    }

    /// Lint these skills with the tools and resources.
    pub fn skills(mut self, skills: impl IntoIterator<Item = LintSkill>) -> Self {
        self.skills.extend(skills);
        self
    }

    /// Lint the landing page's config too.
    pub fn landing(mut self, landing: &'a Landing) -> Self {
        self.landing = Some(landing);
        self
    }

    /// The crate's name and version (`env!("CARGO_PKG_NAME")`, `env!("CARGO_PKG_VERSION")`).
    pub fn crate_info(mut self, name: &'a str, version: &'a str) -> Self {
        self.crate_name = Some(name);
        self.crate_version = Some(version);
        self
    }

    /// Run with these options.
    pub fn options(mut self, options: LintOptions) -> Self {
        self.options = options;
        self
    }
}

impl fmt::Debug for LintInput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LintInput")
            .field("tools", &self.tools.iter().map(|tool| tool.definition().name).collect::<Vec<_>>())
            .field("resources", &self.resources.iter().map(|resource| resource.definition().name).collect::<Vec<_>>())
            .field("prompts", &self.prompts.iter().map(|prompt| prompt.definition().name).collect::<Vec<_>>())
            .field("server_json", &self.server_json.map(|text| text.len()))
            .field("landing", &self.landing)
            .field("crate_name", &self.crate_name)
            .field("crate_version", &self.crate_version)
            .field("options", &self.options)
            .finish()
    }
}

/// What the linter reads of a skill (the Skills extension, SEP-2640): what
/// only the whole server shows about it, since its own `SKILL.md` was checked
/// when it was read.
///
/// ```
/// use mcp_contract::lint::{LintInput, LintSkill, validate};
///
/// let skill = LintSkill::new("skill://search/SKILL.md", "search").allowed_tools(["search_objects"]);
/// let report = validate(&LintInput::default().skills([skill]));
/// assert!(report.diagnostics.iter().any(|d| d.rule == "skill-allowed-tools-served"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LintSkill {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its frontmatter `name`.
    pub name: String,
    /// The URIs of its files, `SKILL.md` included.
    pub files: Vec<String>,
    /// The tools its frontmatter's `allowed-tools` names.
    pub allowed_tools: Vec<String>,
}

impl LintSkill {
    /// The skill whose `SKILL.md` is at `uri`, named `name`, with that one file.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        let uri = uri.into();
        Self { files: vec![uri.clone()], uri, name: name.into(), allowed_tools: Vec::new() }
    }

    /// The URIs of its files, `SKILL.md` included.
    pub fn files(mut self, files: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.files = files.into_iter().map(Into::into).collect();
        self
    }

    /// The tools its `allowed-tools` names.
    pub fn allowed_tools(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_tools = tools.into_iter().map(Into::into).collect();
        self
    }
}
