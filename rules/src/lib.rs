//! The rules of [mcp-contract](https://docs.rs/mcp-contract), once, for the two
//! places that judge them: the attribute macros at compile time and the
//! definition linter at run time.
//!
//! - [`Rule`] and [`Severity`]: every rule id with its severity, and where its
//!   section of the lint reference is ([`Rule::url`]);
//! - [`codes`]: the JSON-RPC codes with their names, categories and factories;
//! - [`check`]: the value checks both sides run (reason format, recovery words,
//!   name and scope format), so a rule has one verdict wherever it is judged.
//!
//! The crate has no dependencies (serde behind a feature), so the proc-macro
//! crate can read it without building the runtime. Users reach it through the
//! facade: `mcp_contract::rules`.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod check;
pub mod codes;

use std::fmt;

pub use codes::{ErrorCategory, JsonRpcErrorCode, http_status_to_error_code};

/// Where the lint reference is published: `docs/lints.md`, as the rustdoc of
/// the facade's `rules` module. Each section's heading is the bare rule id, so
/// `#<rule-id>` is its anchor.
pub const DOCS_URL: &str = "https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html";

/// Where the lint reference documents `rule`.
///
/// ```
/// assert_eq!(
///     mcp_contract::rules::docs_url("name-unique"),
///     "https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#name-unique"
/// );
/// ```
pub fn docs_url(rule: &str) -> String {
    format!("{DOCS_URL}#{rule}")
}

/// How bad a finding of a rule is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A MUST-level problem: the build fails (compile time), the lint run fails
    /// and the server does not build (run time); `allow(..)` refuses it.
    Error,
    /// A SHOULD-level or quality problem: a rustc warning at the token (compile
    /// time) or a reported finding (run time); `allow(..)` silences it.
    Warning,
}

impl Severity {
    /// The lowercase name, as serialized: `"error"`, `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Severity {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A rule: its id (the anchor of its section in `docs/lints.md`) and its severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The rule id, e.g. `format-parity`.
    pub id: &'static str,
    /// The severity of its findings.
    pub severity: Severity,
}

impl Rule {
    /// The rule's section of the lint reference.
    pub fn url(self) -> String {
        docs_url(self.id)
    }

    /// The rule by id.
    pub fn find(id: &str) -> Option<Self> {
        ALL.iter().copied().find(|rule| rule.id == id)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

macro_rules! rules {
    ($( $group:ident: { $( $(#[doc = $doc:literal])* $name:ident = $id:literal, $severity:ident; )* } )*) => {
        $($(
            #[doc = concat!("`", $id, "`.")]
            $(#[doc = ""] #[doc = $doc])*
            pub const $name: Rule = Rule { id: $id, severity: Severity::$severity };
        )*)*

        rules!(@lists $( $group: [$($name),*] )*);
    };
    (@lists compile_time: [$($compile:ident),*] both: [$($both:ident),*] linter: [$($linter:ident),*]) => {
        /// Every rule, once.
        pub const ALL: &[Rule] = &[$($compile,)* $($both,)* $($linter),*];
        /// The rules the attribute macros check at compile time.
        pub const COMPILE_TIME: &[Rule] = &[$($compile,)* $($both),*];
        /// The rules the definition linter checks over built definitions: the
        /// rules only a built value can show, and the macros' rules again, for
        /// definitions written by hand.
        pub const DEFINITION_LINTER: &[Rule] = &[$($both,)* $($linter),*];
    };
}

rules! {
    compile_time: {
        /// `errors = ..` is no list of failure modes.
        ERROR_CONTRACT_TYPE = "error-contract-type", Error;
        /// `trailer(..)` without `enrichment = ..`.
        ENRICHMENT_TRAILER_ORPHAN = "enrichment-trailer-orphan", Error;
        /// An entry of `errors(..)` is no `reason(..)`.
        ERROR_CONTRACT_ENTRY_TYPE = "error-contract-entry-type", Error;
        /// `code = "NotFound"` or `code = 404`: a string or a number, not a code's name.
        ERROR_CONTRACT_CODE_TYPE = "error-contract-code-type", Error;
        /// The attribute sits on something that is no function.
        HANDLER_REQUIRED = "handler-required", Error;
        /// An input or output type whose JSON Schema cannot be generated (no `JsonSchema`).
        SCHEMA_SERIALIZABLE = "schema-serializable", Error;
        /// `errors()` declares no failure mode.
        ERROR_CONTRACT_EMPTY = "error-contract-empty", Warning;
        /// `code = ..` names no `JsonRpcErrorCode`, or is missing.
        ERROR_CONTRACT_CODE_UNKNOWN = "error-contract-code-unknown", Error;
        /// The handler never fails with a declared reason.
        ERROR_CONTRACT_REASON_UNUSED = "error-contract-reason-unused", Warning;
        /// A failure mode has no `recovery`, or it is no string.
        ERROR_CONTRACT_RECOVERY_REQUIRED = "error-contract-recovery-required", Error;
        /// `retryable` is not a flag.
        ERROR_CONTRACT_RETRYABLE_TYPE = "error-contract-retryable-type", Error;
        /// `severity = ..` names none of `debug`, `info`, `notice`, `warning`.
        ERROR_CONTRACT_SEVERITY_UNKNOWN = "error-contract-severity-unknown", Error;
        /// The body builds a code its contract does not declare.
        ERROR_CONTRACT_CONFORMANCE = "error-contract-conformance", Warning;
        /// The body builds a declared code directly instead of through `ctx.fail(reason, ..)`.
        ERROR_CONTRACT_PREFER_FAIL = "error-contract-prefer-fail", Warning;
        /// The body builds an untyped error (`anyhow!`, `Err("..".into())`, ..).
        PREFER_MCP_ERROR_IN_HANDLER = "prefer-mcp-error-in-handler", Warning;
        /// The body spells out `McpError::new(JsonRpcErrorCode::X, ..)` where a factory exists.
        PREFER_ERROR_FACTORY = "prefer-error-factory", Warning;
        /// The body turns a caught error into a new one and drops the caught one.
        PRESERVE_CAUSE_ON_RETHROW = "preserve-cause-on-rethrow", Warning;
        /// The body writes an upstream error's debug form into an error message.
        NO_STRINGIFY_UPSTREAM_ERROR = "no-stringify-upstream-error", Warning;
        /// An annotation has a value of the wrong type.
        ANNOTATION_TYPE = "annotation-type", Error;
        /// `auth` is not a list of strings.
        AUTH_TYPE = "auth-type", Error;
        /// A key of the attribute that does not parse: an unknown key, a value of the wrong shape.
        ATTRIBUTE_SYNTAX = "attribute-syntax", Error;
        /// A handler's shape the call cannot serve: a receiver, generics, the
        /// return type, an input taken by reference, a parameter taken twice.
        HANDLER_SIGNATURE = "handler-signature", Error;
        /// A handler's input, output or state type lacks a trait the call needs.
        HANDLER_TYPE_TRAITS = "handler-type-traits", Error;
        /// A handler's error, or an error under `?` in it, has no conversion into `McpError`.
        HANDLER_ERROR_CONVERSION = "handler-error-conversion", Error;
        HANDLER_FUTURE_SEND = "handler-future-send", Error;
        /// `ctx.fail(reason, ..)` names a reason its contract does not declare.
        ERROR_CONTRACT_REASON_UNKNOWN = "error-contract-reason-unknown", Error;
        /// `requires(..)` names something that is not a client capability.
        REQUIRES_CAPABILITY = "requires-capability", Error;
        /// `input_schema = ..` / `output_schema = ..` is no path to the function
        /// giving the schema, or gives an output schema to a text-only tool.
        SCHEMA_FUNCTION = "schema-function", Error;
        /// A field of `#[derive(ElicitForm)]` no elicitation form can carry (a
        /// nested object, an array of objects, a list of free values), a
        /// `#[derive(FormField)]` enum with data, a default that would vanish
        /// without `Serialize`; the runtime refuses a hand-written form's
        /// before sending.
        ELICITATION_FORM_FLAT = "elicitation-form-flat", Error;
    }
    both: {
        /// `app = ""`: an MCP App without its resource URI.
        META_UI_RESOURCE_URI_REQUIRED = "meta-ui-resource-uri-required", Error;
        /// An MCP App resource URI that is not `ui://`.
        META_UI_RESOURCE_URI_SCHEME = "meta-ui-resource-uri-scheme", Warning;
        /// A resource with MCP App settings (`ui(..)`) served as another MIME type than the app's.
        META_UI_RESOURCE_MIME_TYPE = "meta-ui-resource-mime-type", Error;
        /// A domain of an MCP App's CSP lists that is no origin.
        META_UI_CSP_DOMAIN = "meta-ui-csp-domain", Error;
        /// `code = UnknownError`.
        ERROR_CONTRACT_CODE_UNKNOWN_ERROR = "error-contract-code-unknown-error", Warning;
        /// A reason is not snake_case.
        ERROR_CONTRACT_REASON_FORMAT = "error-contract-reason-format", Warning;
        /// Two failure modes share a reason.
        ERROR_CONTRACT_REASON_UNIQUE = "error-contract-reason-unique", Error;
        /// A failure mode has no `when`.
        ERROR_CONTRACT_WHEN_REQUIRED = "error-contract-when-required", Error;
        /// `recovery` is blank.
        ERROR_CONTRACT_RECOVERY_EMPTY = "error-contract-recovery-empty", Error;
        /// `recovery` has fewer than 5 words.
        ERROR_CONTRACT_RECOVERY_MIN_WORDS = "error-contract-recovery-min-words", Warning;
        /// The tool name is empty.
        NAME_REQUIRED = "name-required", Error;
        /// The tool name has characters MCP does not allow, or is too long.
        NAME_FORMAT = "name-format", Error;
        /// The tool has no description.
        DESCRIPTION_REQUIRED = "description-required", Warning;
        /// `read_only` together with `destructive`.
        ANNOTATION_COHERENCE = "annotation-coherence", Warning;
        /// A scope is empty or has white space.
        AUTH_SCOPE_FORMAT = "auth-scope-format", Error;
        /// `#[mcp_resource]` without `uri = ".."`.
        URI_TEMPLATE_REQUIRED = "uri-template-required", Error;
        /// A resource URI that is no valid RFC 6570 template.
        URI_TEMPLATE_VALID = "uri-template-valid", Error;
        /// A template variable that is no field of the params, or a field no variable fills.
        TEMPLATE_PARAMS_ALIGN = "template-params-align", Error;
        /// A resource's name that looks like a URI.
        RESOURCE_NAME_NOT_URI = "resource-name-not-uri", Warning;
        /// An input alias that is also a field, that two fields share, or
        /// whose field the input does not have.
        INPUT_ALIAS_CONFLICT = "input-alias-conflict", Error;
        /// `embed_skills!` and `Server::skills_dir`: a `SKILL.md` whose frontmatter breaks the Agent Skills rules (a
        /// missing or malformed `name` or `description`, a `name` that is not
        /// its folder's, a key the format does not define).
        SKILL_FRONTMATTER = "skill-frontmatter", Error;
        /// A skill holding a symbolic link, a special file or a name that is not UTF-8.
        SKILL_FILES = "skill-files", Error;
    }
    linter: {
        /// A tool's MCP App URI matches no resource the server serves.
        APP_TOOL_RESOURCE_PAIRING = "app-tool-resource-pairing", Error;
        /// The enrichment type's schema is no object.
        ENRICHMENT_TYPE = "enrichment-type", Error;
        /// The enrichment type has no fields.
        ENRICHMENT_EMPTY = "enrichment-empty", Warning;
        /// An enrichment field is also an output field.
        ENRICHMENT_OUTPUT_COLLISION = "enrichment-output-collision", Error;
        /// An output field looks like enrichment (notice, effectiveQuery, queryEcho).
        ENRICHMENT_PREFER_BLOCK = "enrichment-prefer-block", Warning;
        /// A compound enrichment field without a trailer renderer.
        ENRICHMENT_TRAILER_RENDER = "enrichment-trailer-render", Error;
        /// A trailer entry names no enrichment field.
        ENRICHMENT_TRAILER_UNKNOWN_FIELD = "enrichment-trailer-unknown-field", Error;
        /// A cap-like input and a list output, with no truncation disclosed.
        CAPPED_LIST_NO_TRUNCATION = "capped-list-no-truncation", Warning;
        FORMAT_PARITY = "format-parity", Error;
        FORMAT_PARITY_THREW = "format-parity-threw", Warning;
        FORMAT_PARITY_WALK_FAILED = "format-parity-walk-failed", Warning;
        FORMAT_PARITY_DEPTH_LIMIT = "format-parity-depth-limit", Warning;
        SCHEMA_IS_OBJECT = "schema-is-object", Error;
        DESCRIBE_ON_FIELDS = "describe-on-fields", Warning;
        SCHEMA_FORMAT_PORTABILITY = "schema-format-portability", Error;
        SCHEMA_ANYOF_NEEDS_TYPE = "schema-anyof-needs-type", Warning;
        SCHEMA_NO_DISCRIMINATOR_KEYWORD = "schema-no-discriminator-keyword", Warning;
        SCHEMA_NO_DEFS = "schema-no-defs", Warning;
        SCHEMA_DIALECT_TAG = "schema-dialect-tag", Warning;
        SCHEMA_TYPE_ARRAY = "schema-type-array", Warning;
        /// A schema node no value can satisfy (`enum: []`, `anyOf: []`, `not: {}`, ..).
        SCHEMA_UNSATISFIABLE = "schema-unsatisfiable", Error;
        /// A `oneOf` at the root of an input schema (the `strict` profile).
        SCHEMA_ROOT_ONEOF_PORTABILITY = "schema-root-oneof-portability", Warning;
        /// An `x-mcp-header` designation the 2026-07-28 revision does not allow.
        HEADER_PARAM_DESIGNATION = "header-param-designation", Error;
        NAME_UNIQUE = "name-unique", Error;
        ERROR_CONTRACT_REASON_REQUIRED = "error-contract-reason-required", Error;
        RESOURCE_MIME_TYPE_FORMAT = "resource-mime-type-format", Warning;
        PROMPT_ARGUMENTS_ALIGN = "prompt-arguments-align", Error;
        SERVER_JSON_PARSE = "server-json-parse", Error;
        SERVER_JSON_TYPE = "server-json-type", Error;
        SERVER_JSON_NAME_REQUIRED = "server-json-name-required", Error;
        SERVER_JSON_NAME_LENGTH = "server-json-name-length", Error;
        SERVER_JSON_NAME_FORMAT = "server-json-name-format", Error;
        SERVER_JSON_DESCRIPTION_REQUIRED = "server-json-description-required", Error;
        SERVER_JSON_DESCRIPTION_LENGTH = "server-json-description-length", Warning;
        SERVER_JSON_VERSION_REQUIRED = "server-json-version-required", Error;
        SERVER_JSON_VERSION_LENGTH = "server-json-version-length", Error;
        SERVER_JSON_VERSION_NO_RANGE = "server-json-version-no-range", Error;
        SERVER_JSON_VERSION_SEMVER = "server-json-version-semver", Warning;
        SERVER_JSON_VERSION_SYNC = "server-json-version-sync", Warning;
        SERVER_JSON_REPOSITORY_TYPE = "server-json-repository-type", Error;
        SERVER_JSON_REPOSITORY_URL = "server-json-repository-url", Error;
        SERVER_JSON_REPOSITORY_SOURCE = "server-json-repository-source", Error;
        SERVER_JSON_PACKAGES_TYPE = "server-json-packages-type", Error;
        SERVER_JSON_PACKAGE_TYPE = "server-json-package-type", Error;
        SERVER_JSON_PACKAGE_REGISTRY = "server-json-package-registry", Error;
        SERVER_JSON_PACKAGE_IDENTIFIER = "server-json-package-identifier", Error;
        SERVER_JSON_PACKAGE_TRANSPORT = "server-json-package-transport", Error;
        SERVER_JSON_PACKAGE_NO_LATEST = "server-json-package-no-latest", Error;
        SERVER_JSON_PACKAGE_VERSION_SYNC = "server-json-package-version-sync", Warning;
        SERVER_JSON_PACKAGE_ARGS_TYPE = "server-json-package-args-type", Error;
        SERVER_JSON_RUNTIME_ARGS_TYPE = "server-json-runtime-args-type", Error;
        SERVER_JSON_ENV_VARS_TYPE = "server-json-env-vars-type", Error;
        SERVER_JSON_REMOTES_TYPE = "server-json-remotes-type", Error;
        SERVER_JSON_REMOTE_TYPE = "server-json-remote-type", Error;
        SERVER_JSON_REMOTE_TRANSPORT_TYPE = "server-json-remote-transport-type", Error;
        SERVER_JSON_REMOTE_NO_STDIO = "server-json-remote-no-stdio", Error;
        SERVER_JSON_TRANSPORT_TYPE = "server-json-transport-type", Error;
        SERVER_JSON_TRANSPORT_TYPE_VALUE = "server-json-transport-type-value", Error;
        SERVER_JSON_TRANSPORT_URL_REQUIRED = "server-json-transport-url-required", Error;
        SERVER_JSON_TRANSPORT_URL_FORMAT = "server-json-transport-url-format", Warning;
        SERVER_JSON_ARGUMENT_TYPE = "server-json-argument-type", Error;
        SERVER_JSON_ARGUMENT_TYPE_VALUE = "server-json-argument-type-value", Error;
        SERVER_JSON_ARGUMENT_NAME = "server-json-argument-name", Error;
        SERVER_JSON_ARGUMENT_VALUE = "server-json-argument-value", Error;
        SERVER_JSON_INPUT_FORMAT = "server-json-input-format", Warning;
        SERVER_JSON_ENV_VAR_TYPE = "server-json-env-var-type", Error;
        SERVER_JSON_ENV_VAR_NAME = "server-json-env-var-name", Error;
        SERVER_JSON_ENV_VAR_DESCRIPTION = "server-json-env-var-description", Warning;
        LANDING_SHAPE = "landing-shape", Error;
        LANDING_TAGLINE_TYPE = "landing-tagline-type", Error;
        LANDING_TAGLINE_LENGTH = "landing-tagline-length", Error;
        LANDING_LOGO_TYPE = "landing-logo-type", Error;
        LANDING_LOGO_SIZE = "landing-logo-size", Error;
        LANDING_LINKS_TYPE = "landing-links-type", Error;
        LANDING_LINKS_COUNT = "landing-links-count", Warning;
        LANDING_LINK_SHAPE = "landing-link-shape", Error;
        LANDING_LINK_HREF = "landing-link-href", Error;
        LANDING_LINK_LABEL = "landing-link-label", Error;
        LANDING_REPO_ROOT_TYPE = "landing-repo-root-type", Error;
        LANDING_REPO_ROOT_SHAPE = "landing-repo-root-shape", Error;
        LANDING_ENV_EXAMPLE_TYPE = "landing-env-example-type", Error;
        LANDING_ENV_EXAMPLE_COUNT = "landing-env-example-count", Warning;
        LANDING_ENV_EXAMPLE_KEY = "landing-env-example-key", Warning;
        LANDING_ENV_EXAMPLE_VALUE = "landing-env-example-value", Error;
        LANDING_CONNECT_SNIPPETS_TYPE = "landing-connect-snippets-type", Error;
        LANDING_CONNECT_SNIPPETS_KEY = "landing-connect-snippets-key", Warning;
        LANDING_CONNECT_SNIPPETS_VALUE = "landing-connect-snippets-value", Error;
        LANDING_CONNECT_SNIPPETS_EMPTY = "landing-connect-snippets-empty", Warning;
        LANDING_THEME_TYPE = "landing-theme-type", Error;
        LANDING_THEME_ACCENT = "landing-theme-accent", Error;
        LANDING_THEME_ACCENT_FORMAT = "landing-theme-accent-format", Error;
        /// A skill over the extension's limits: 512 files or 16 MiB.
        SKILL_SIZE_LIMIT = "skill-size-limit", Error;
        /// A skill's `allowed-tools` names a tool this server does not serve.
        SKILL_ALLOWED_TOOLS_SERVED = "skill-allowed-tools-served", Warning;
        /// Two skills of one server share a name.
        SKILL_NAME_UNIQUE = "skill-name-unique", Warning;
        /// A resource of the server's own answers for a URI a skill serves.
        SKILL_URI_CLASH = "skill-uri-clash", Error;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn ids_are_unique_and_lowercase_kebab_case() {
        let mut seen = HashSet::new();
        for rule in ALL {
            assert!(seen.insert(rule.id), "{} is listed twice", rule.id);
            assert!(rule.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", rule.id);
        }
        assert_eq!(seen.len(), ALL.len());
    }

    #[test]
    fn every_rule_is_checked_somewhere() {
        for rule in ALL {
            assert!(COMPILE_TIME.contains(rule) || DEFINITION_LINTER.contains(rule), "{rule}");
        }
    }

    /// The heading is the bare id (rustdoc's anchor is then the id), the
    /// section's first word states the severity, and the table lists every
    /// compile-time rule with it.
    #[test]
    fn every_rule_has_its_section_in_docs_lints_md_with_its_severity() {
        let docs = include_str!("../../docs/lints.md");
        for rule in ALL {
            let heading = format!("\n### {}\n", rule.id);
            let at = docs.find(&heading).unwrap_or_else(|| panic!("docs/lints.md has no `### {}`", rule.id));
            let section = docs[at + heading.len()..].trim_start();
            let word = match rule.severity {
                Severity::Error => "**Error",
                Severity::Warning => "**Warning",
            };
            assert!(
                section.starts_with(word) || section.starts_with(&format!("**Severity:** {}", rule.severity)),
                "docs/lints.md says another severity for {}",
                rule.id
            );
            if COMPILE_TIME.contains(rule) {
                let row = format!("| [`{0}`](#{0}) | {1} |", rule.id, rule.severity);
                assert!(docs.contains(&row), "the table of docs/lints.md lacks `{row}`");
            }
        }
    }

    /// Every rule id of the reference framework's linter has its place here: a
    /// section that documents the rule, or says why a Rust program cannot
    /// break it (`rules/reference-rule-ids.txt` is the reference's list).
    #[test]
    fn every_reference_rule_id_has_its_section() {
        let docs = include_str!("../../docs/lints.md");
        let ids = include_str!("../reference-rule-ids.txt");
        let ids: Vec<&str> =
            ids.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#')).collect();
        assert!(ids.len() >= 120, "the reference's list has 120 ids, read {}", ids.len());
        let missing: Vec<&&str> = ids.iter().filter(|id| !docs.contains(&format!("\n### {id}\n"))).collect();
        assert!(missing.is_empty(), "docs/lints.md has no section for the reference's {missing:?}");
    }

    #[test]
    fn urls_end_with_the_id() {
        assert_eq!(NAME_FORMAT.url(), format!("{DOCS_URL}#name-format"));
        assert_eq!(Rule::find("name-format"), Some(NAME_FORMAT));
        assert_eq!(Rule::find("no-such-rule"), None);
    }
}
