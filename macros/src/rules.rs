//! The lint rules of `#[mcp_tool]`, once: id, severity, and the link every
//! diagnostic ends with. Code names a rule through its constant (as serde's
//! `symbol.rs` names attributes), never through a string literal, and the tests
//! below hold the list to `docs/lints.md` and to the ui cases.

use std::fmt;

/// Where the lint reference is published: `docs/lints.md`, as the rustdoc of
/// the facade's `lints` module. Each section's heading is the bare rule id, so
/// `#<rule-id>` is its anchor.
pub(crate) const DOCS_URL: &str = "https://docs.rs/mcp-contract/latest/mcp_contract/lints/index.html";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    /// Fails the build; `allow(..)` refuses it.
    Error,
    /// A rustc warning at the token; `allow(..)` silences it for one tool.
    Warning,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) id: &'static str,
    pub(crate) severity: Severity,
}

impl Rule {
    /// The rule's section of the lint reference.
    pub(crate) fn url(self) -> String {
        format!("{DOCS_URL}#{}", self.id)
    }

    /// The rule by id.
    pub(crate) fn find(id: &str) -> Option<Self> {
        ALL.iter().copied().find(|rule| rule.id == id)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

macro_rules! rules {
    ($( $(#[doc = $doc:literal])* $name:ident = $id:literal, $severity:ident; )*) => {
        $(
            $(#[doc = $doc])*
            pub(crate) const $name: Rule = Rule { id: $id, severity: Severity::$severity };
        )*

        /// Every rule the macro checks, in the order of `docs/lints.md`.
        pub(crate) const ALL: &[Rule] = &[$($name),*];
    };
}

rules! {
    /// `errors()` declares no failure mode.
    ERROR_CONTRACT_EMPTY = "error-contract-empty", Warning;
    /// `code = ..` names no `JsonRpcErrorCode`, or is missing.
    ERROR_CONTRACT_CODE_UNKNOWN = "error-contract-code-unknown", Error;
    /// `code = UnknownError`.
    ERROR_CONTRACT_CODE_UNKNOWN_ERROR = "error-contract-code-unknown-error", Warning;
    /// A reason is not snake_case.
    ERROR_CONTRACT_REASON_FORMAT = "error-contract-reason-format", Warning;
    /// Two failure modes share a reason.
    ERROR_CONTRACT_REASON_UNIQUE = "error-contract-reason-unique", Error;
    /// The handler never fails with a declared reason.
    ERROR_CONTRACT_REASON_UNUSED = "error-contract-reason-unused", Warning;
    /// A failure mode has no `when`.
    ERROR_CONTRACT_WHEN_REQUIRED = "error-contract-when-required", Error;
    /// A failure mode has no `recovery`, or it is no string.
    ERROR_CONTRACT_RECOVERY_REQUIRED = "error-contract-recovery-required", Error;
    /// `recovery` is blank.
    ERROR_CONTRACT_RECOVERY_EMPTY = "error-contract-recovery-empty", Error;
    /// `recovery` has fewer than 5 words.
    ERROR_CONTRACT_RECOVERY_MIN_WORDS = "error-contract-recovery-min-words", Warning;
    /// `retryable` is not a flag.
    ERROR_CONTRACT_RETRYABLE_TYPE = "error-contract-retryable-type", Error;
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
    /// The tool name is empty.
    NAME_REQUIRED = "name-required", Error;
    /// The tool name has characters MCP does not allow, or is too long.
    NAME_FORMAT = "name-format", Error;
    /// The tool has no description.
    DESCRIPTION_REQUIRED = "description-required", Warning;
    /// An annotation has a value of the wrong type.
    ANNOTATION_TYPE = "annotation-type", Error;
    /// `read_only` together with `destructive`.
    ANNOTATION_COHERENCE = "annotation-coherence", Warning;
    /// `auth` is not a list of strings.
    AUTH_TYPE = "auth-type", Error;
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
}

/// The rules `allow(..)` accepts, for its error message.
pub(crate) fn warning_ids() -> Vec<&'static str> {
    ALL.iter().filter(|rule| rule.severity == Severity::Warning).map(|rule| rule.id).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::Path;

    use super::*;

    const LINTS_MD: &str = include_str!("../../docs/lints.md");

    #[test]
    fn ids_are_unique_and_lowercase_kebab_case() {
        let mut seen = HashSet::new();
        for rule in ALL {
            assert!(seen.insert(rule.id), "{} is listed twice", rule.id);
            assert!(rule.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", rule.id);
        }
    }

    /// The heading is the bare id (rustdoc's anchor is then the id), and the
    /// section's first word states the severity the macro reports.
    #[test]
    fn every_rule_has_its_section_in_docs_lints_md_with_its_severity() {
        for rule in ALL {
            let heading = format!("\n### {}\n", rule.id);
            let at = LINTS_MD.find(&heading).unwrap_or_else(|| panic!("docs/lints.md has no `### {}`", rule.id));
            let section = &LINTS_MD[at + heading.len()..];
            let (word, lowercase) = match rule.severity {
                Severity::Error => ("**Error", "error"),
                Severity::Warning => ("**Warning", "warning"),
            };
            let section = section.trim_start();
            assert!(
                section.starts_with(word) || section.starts_with(&format!("**Severity:** {lowercase}")),
                "docs/lints.md says another severity for {}",
                rule.id
            );
            let row = format!("| [`{0}`](#{0}) | {lowercase} |", rule.id);
            assert!(LINTS_MD.contains(&row), "the table of docs/lints.md lacks `{row}`");
        }
    }

    #[test]
    fn every_rule_has_a_ui_case_named_after_it() {
        let fail = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui-tests/tests/ui/fail");
        for rule in ALL {
            let case = fail.join(format!("{}.rs", rule.id));
            assert!(case.is_file(), "no ui case {}", case.display());
            assert!(case.with_extension("stderr").is_file(), "no snapshot for {}", case.display());
            let stderr = std::fs::read_to_string(case.with_extension("stderr")).unwrap();
            assert!(stderr.contains(&rule.url()), "the snapshot of {} never reports the rule", case.display());
        }
    }
}
