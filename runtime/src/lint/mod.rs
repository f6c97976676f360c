//! The definition linter: the rules only a built value can show.
//!
//! `#[mcp_tool]` checks what it can see at compile time (the contract, names,
//! annotations, the handler body). What needs a built value is checked here, by
//! [`validate`]: a generated schema, a `format` function actually run on a
//! sample, every tool, resource and prompt of a server together, a resource's
//! params type against its URI template, a `server.json` manifest. Rule ids
//! and severities are those of the reference framework `@cyanheads/mcp-ts-core`;
//! each one is documented in `docs/lints.md` under its id.
//!
//! | family | rules | file |
//! |---|---|---|
//! | format parity | `format-parity`, `format-parity-threw`, `format-parity-walk-failed`, `format-parity-depth-limit` | `format_parity.rs` |
//! | schema | `schema-is-object`, `describe-on-fields`, portability (`schema-format-portability`, ..) | `schema.rs` |
//! | definitions | `name-unique` across tools, resources and prompts, and the macro's rules on hand-written tools | `definitions.rs` |
//! | resources | `uri-template-valid`, `template-params-align`, `resource-name-not-uri`, `resource-mime-type-format`, .. | `resource.rs` |
//! | prompts | `prompt-arguments-align`, `describe-on-fields` on arguments, .. | `prompt.rs` |
//! | server.json | the 40 `server-json-*` rules | `server_json.rs` |
//!
//! Where it runs: [`Server::build`](crate::server::Server::build) (errors fail
//! the build, warnings go to the log), the `lint` mode of
//! [`Server::run_cli`](crate::server::Server::run_cli), and
//! [`assert_lint_clean`] in a user's tests.
//!
//! ```
//! use mcp_contract_runtime::lint::{LintInput, validate};
//!
//! let report = validate(&LintInput::default().server_json(r#"{"name": "io.github.acme/museum"}"#));
//! assert!(!report.passed);
//! assert!(report.diagnostics.iter().any(|d| d.rule == "server-json-description-required"));
//! let first = &report.diagnostics[0];
//! assert!(first.message.ends_with(&mcp_contract_runtime::lint_docs_url(first.rule)));
//! ```

mod definitions;
mod format_parity;
mod prompt;
mod resource;
mod rules;
mod schema;
mod server_json;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

use crate::contract::DynTool;
use crate::prompt::DynPrompt;
use crate::resource::DynResource;

/// The one `name-unique` check, which `Server::build` shares.
#[cfg(feature = "rmcp")]
pub(crate) use definitions::{RepeatedName, repeated_names};

pub use rules::{RULES, Rule};

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A MUST-level problem: the lint run fails, the server does not build.
    Error,
    /// A SHOULD-level or quality problem: reported, nothing fails.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Error => "error",
            Self::Warning => "warning",
        })
    }
}

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
}

impl fmt::Display for DefinitionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
            Self::ServerJson => "server-json",
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
    /// ([`lint_docs_url`](crate::lint_docs_url)).
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
            message: format!("{text}; see {}", crate::lint_docs_url(rule.id)),
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

/// The result of [`validate`]: every diagnostic, and whether none is an error.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LintReport {
    /// `false` when any diagnostic is an error; warnings never fail a run.
    pub passed: bool,
    /// Every finding, errors and warnings, in the order the rules ran.
    pub diagnostics: Vec<Diagnostic>,
}

impl LintReport {
    fn from_diagnostics(diagnostics: Vec<Diagnostic>) -> Self {
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
    /// use mcp_contract_runtime::lint::{LintInput, validate};
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
    /// use mcp_contract_runtime::lint::LintReport;
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
/// | `schema-dialect-tag` | no | `$schema` missing | `$schema` present |
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// What every vendor accepts today, as the reference checks by default
    /// (OpenAI's formats; typed union branches; no `discriminator`).
    #[default]
    Default,
    /// `default`, plus no `$defs`/`$ref`, plus an explicit `$schema` dialect tag.
    Strict,
    /// `default`, plus no `$defs`/`$ref` and no `$schema`: Gemini rejects both.
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
    /// use mcp_contract_runtime::lint::Profile;
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

/// How [`validate`] runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintOptions {
    /// The portability profile.
    pub profile: Profile,
    /// The `format` values `schema-format-portability` accepts; `None` for
    /// [`PORTABLE_FORMATS`](crate::schema::PORTABLE_FORMATS) (OpenAI's nine).
    pub format_allowlist: Option<Vec<String>>,
    /// Whether to run each tool's `format` on samples (`format-parity`).
    pub format_parity: bool,
}

impl Default for LintOptions {
    fn default() -> Self {
        Self { profile: Profile::Default, format_allowlist: None, format_parity: true }
    }
}

/// What [`validate`] checks: a server's definitions, an optional `server.json`,
/// the crate's name and version, and the options.
///
/// ```
/// use mcp_contract_runtime::lint::{LintInput, validate};
/// use mcp_contract_runtime::{Context, McpError, NoArguments, Resource, ResourceContents, ResourceDefinition};
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
///     async fn read(&self, _uri: &str, _params: NoArguments, _ctx: Context) -> Result<ResourceContents, McpError> {
///         Ok(ResourceContents::text("Open daily."))
///     }
/// }
///
/// let report = validate(&LintInput::default().resources([&About as &dyn mcp_contract_runtime::DynResource]));
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
            .field("crate_name", &self.crate_name)
            .field("crate_version", &self.crate_version)
            .field("options", &self.options)
            .finish()
    }
}

/// Run every rule on `input`.
///
/// Diagnostics come per tool in registration order (definition rules, schema
/// rules, format parity), then per resource and per prompt, then `name-unique`
/// across the three kinds, then `server.json`.
pub fn validate(input: &LintInput<'_>) -> LintReport {
    let mut diagnostics = Vec::new();
    for tool in &input.tools {
        let definition = tool.definition();
        if !tool.checked_at_compile_time() {
            definitions::check_definition(definition, &mut diagnostics);
        }
        schema::check_tool(definition, &input.options, &mut diagnostics);
        if input.options.format_parity {
            format_parity::check_tool(*tool, &mut diagnostics);
        }
    }
    for resource in &input.resources {
        resource::check(*resource, &mut diagnostics);
    }
    for prompt in &input.prompts {
        prompt::check(*prompt, &input.options, &mut diagnostics);
    }
    let names = input
        .tools
        .iter()
        .map(|tool| (DefinitionKind::Tool, tool.definition().name))
        .chain(input.resources.iter().map(|resource| (DefinitionKind::Resource, resource.definition().name)))
        .chain(input.prompts.iter().map(|prompt| (DefinitionKind::Prompt, prompt.definition().name)));
    definitions::check_unique_names(names, &mut diagnostics);
    if let Some(text) = input.server_json {
        server_json::check(text, input.crate_version, &mut diagnostics);
    }
    LintReport::from_diagnostics(diagnostics)
}

/// Panic with the report unless linting `server`'s tools, resources and prompts finds nothing at all
/// (no error and no warning): the one-line `cargo test` of a server crate.
///
/// ```
/// use mcp_contract_runtime::server::Server;
///
/// fn server() -> Server {
///     Server::new("museum", "1.0.0") // .tool(GetObject).tool(SearchObjects)
/// }
///
/// // In the crate's tests, inside a `#[test] fn lint_clean()`:
/// mcp_contract_runtime::lint::assert_lint_clean(&server());
/// ```
///
/// # Panics
///
/// When the report has any diagnostic; the message lists them all.
#[cfg(feature = "rmcp")]
#[track_caller]
pub fn assert_lint_clean(server: &crate::server::Server) {
    let report = server.lint(None);
    assert!(report.diagnostics.is_empty(), "the server's definitions are not lint-clean:\n{report}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule id the linter emits has its section in docs/lints.md.
    #[test]
    fn every_rule_has_its_section_in_the_docs() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/lints.md");
        let docs = std::fs::read_to_string(path).expect("docs/lints.md is readable");
        for rule in RULES {
            assert!(docs.contains(&format!("\n### {}\n", rule.id)), "docs/lints.md has no section `### {}`", rule.id);
            let severity = match rule.severity {
                Severity::Error => "**Error",
                Severity::Warning => "**Warning",
            };
            let section = docs.split(&format!("\n### {}\n", rule.id)).nth(1).unwrap_or_default();
            assert!(
                section.trim_start().starts_with(severity),
                "the section of `{}` does not start with its severity {severity}",
                rule.id
            );
        }
    }

    /// `Server::build` logs each warning through `tracing`, with its rule id.
    #[cfg(feature = "rmcp")]
    #[test]
    fn build_logs_the_warnings() {
        use std::sync::{Arc, Mutex};

        use tracing::field::{Field, Visit};
        use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};

        use crate::contract::{Tool, ToolDefinition, ToolOutput};

        #[derive(Clone, Default)]
        struct Capture(Arc<Mutex<Vec<(String, String)>>>);
        struct Rule<'a>(&'a mut String);
        impl Visit for Rule<'_> {
            fn record_str(&mut self, field: &Field, value: &str) {
                if field.name() == "rule" {
                    value.clone_into(self.0);
                }
            }
            fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
        }
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
            fn on_event(&self, event: &tracing::Event<'_>, _ctx: LayerContext<'_, S>) {
                let mut rule = String::new();
                event.record(&mut Rule(&mut rule));
                self.0.lock().unwrap().push((event.metadata().target().to_owned(), rule));
            }
        }

        /// A hand-written tool without a description.
        struct Quiet;
        static QUIET: std::sync::LazyLock<ToolDefinition> = std::sync::LazyLock::new(|| {
            ToolDefinition::new("quiet", crate::schema::input_schema::<crate::contract::NoArguments>())
        });
        impl Tool for Quiet {
            type Input = crate::contract::NoArguments;
            type Output = String;
            fn definition(&self) -> &'static ToolDefinition {
                &QUIET
            }
            async fn call(&self, _input: Self::Input, _ctx: crate::Context) -> Result<String, crate::McpError> {
                Ok(String::new())
            }
            fn render(&self, output: String) -> Result<ToolOutput, crate::McpError> {
                Ok(ToolOutput::text(output))
            }
        }

        let capture = Capture::default();
        let subscriber = tracing_subscriber::registry().with(capture.clone());
        let built = tracing::subscriber::with_default(subscriber, || {
            crate::server::Server::new("museum", "1.0.0").tool(Quiet).build()
        });
        assert!(built.is_ok(), "a warning does not fail the build");
        let events = capture.0.lock().unwrap().clone();
        assert_eq!(events, [("mcp_contract::lint".to_owned(), "description-required".to_owned())]);

        let capture = Capture::default();
        let subscriber = tracing_subscriber::registry().with(capture.clone());
        tracing::subscriber::with_default(subscriber, || {
            crate::server::Server::new("museum", "1.0.0").tool(Quiet).lint_at_build(false).build()
        })
        .expect("builds");
        assert!(capture.0.lock().unwrap().is_empty(), "turned off, the linter says nothing");
    }

    #[test]
    fn rule_ids_are_unique() {
        let mut ids: Vec<&str> = RULES.iter().map(|rule| rule.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
    }
}
