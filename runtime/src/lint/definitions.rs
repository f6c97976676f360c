//! The macro's definition rules, checked again on tools `#[mcp_tool]` did not
//! build (hand-written `Tool` impls), with the same ids; the ones tools share
//! with resources and prompts (`name-required`, `description-required`, the
//! error contract's rules); and `name-unique` across a server's tools,
//! resources and prompts.
//!
//! The rules that Rust's types already enforce on a [`ToolDefinition`]
//! (`annotation-type`, `auth-type`, `error-contract-code-unknown`,
//! `error-contract-retryable-type`) cannot fire here.

use std::collections::HashMap;
use std::collections::HashSet;

use super::{DefinitionKind, Diagnostic};
use crate::define::ToolDefinition;
use crate::error::{ErrorContract, JsonRpcErrorCode};
use mcp_contract_rules::{
    ANNOTATION_COHERENCE, AUTH_SCOPE_FORMAT, DESCRIPTION_REQUIRED, ERROR_CONTRACT_CODE_UNKNOWN_ERROR,
    ERROR_CONTRACT_REASON_FORMAT, ERROR_CONTRACT_REASON_REQUIRED, ERROR_CONTRACT_REASON_UNIQUE,
    ERROR_CONTRACT_RECOVERY_EMPTY, ERROR_CONTRACT_RECOVERY_MIN_WORDS, ERROR_CONTRACT_WHEN_REQUIRED, NAME_FORMAT,
    NAME_REQUIRED, NAME_UNIQUE, check,
};

pub(super) fn check_definition(definition: &ToolDefinition, out: &mut Vec<Diagnostic>) {
    let name = definition.name;
    let report = |out: &mut Vec<Diagnostic>, rule, path: Option<String>, text: String| {
        out.push(Diagnostic::new(rule, DefinitionKind::Tool, name, path, text));
    };

    if check_name_required(DefinitionKind::Tool, name, "get_object", out) && !check::is_valid_name(name) {
        report(
            out,
            NAME_FORMAT,
            Some("/name".into()),
            format!("tool name `{name}` must be 1 to 128 characters of `A-Z a-z 0-9 _ - .`"),
        );
    }

    check_description(DefinitionKind::Tool, name, definition.description, "say what it does and when to use it", out);

    let annotations = &definition.annotations;
    if annotations.read_only_hint == Some(true) && annotations.destructive_hint.is_some() {
        report(
            out,
            ANNOTATION_COHERENCE,
            Some("/annotations/destructiveHint".into()),
            "a read-only tool makes no changes, so `destructiveHint` means nothing here: remove it or `readOnlyHint`"
                .into(),
        );
    }

    for (index, scope) in definition.auth_scopes.iter().enumerate() {
        if !check::is_valid_scope(scope) {
            report(
                out,
                AUTH_SCOPE_FORMAT,
                Some(format!("/authScopes/{index}")),
                format!("scope `{scope}` is not a non-empty string without spaces, such as `objects:read`"),
            );
        }
    }

    check_contract(DefinitionKind::Tool, name, definition.errors, out);
}

/// `name-required`: whether the name is there (not empty, not only white space).
/// `example` is a name of the kind's style, for the message.
pub(super) fn check_name_required(kind: DefinitionKind, name: &str, example: &str, out: &mut Vec<Diagnostic>) -> bool {
    if !name.trim().is_empty() {
        return true;
    }
    out.push(Diagnostic::new(
        NAME_REQUIRED,
        kind,
        name,
        Some("/name".into()),
        format!("the {kind} name is empty: give it a name such as `{example}`"),
    ));
    false
}

/// `description-required`; `what` says what a description of this kind tells the model.
pub(super) fn check_description(
    kind: DefinitionKind,
    name: &str,
    description: Option<&str>,
    what: &str,
    out: &mut Vec<Diagnostic>,
) {
    if description.is_none_or(|text| text.trim().is_empty()) {
        out.push(Diagnostic::new(
            DESCRIPTION_REQUIRED,
            kind,
            name,
            Some("/description".into()),
            format!("{kind} `{name}` has no description: {what}"),
        ));
    }
}

/// The error contract's structural rules, as `#[mcp_tool]` checks them, on
/// the contract of a tool, resource or prompt; paths `/errors/<index>/<field>`.
pub(super) fn check_contract(kind: DefinitionKind, name: &str, errors: &[ErrorContract], out: &mut Vec<Diagnostic>) {
    let report = |out: &mut Vec<Diagnostic>, rule, path: Option<String>, text: String| {
        out.push(Diagnostic::new(rule, kind, name, path, text));
    };
    let mut seen = HashSet::new();
    for (index, entry) in errors.iter().enumerate() {
        let at = |field: &str| Some(format!("/errors/{index}/{field}"));
        let reason = entry.reason;
        if reason.is_empty() {
            report(
                out,
                ERROR_CONTRACT_REASON_REQUIRED,
                at("reason"),
                "a failure mode has an empty `reason`: give it a snake_case name such as `not_in_collection`".into(),
            );
        } else {
            if !check::is_snake_case(reason) {
                report(
                    out,
                    ERROR_CONTRACT_REASON_FORMAT,
                    at("reason"),
                    format!("reason `{reason}` is not snake_case (`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)"),
                );
            }
            if !seen.insert(reason) {
                report(
                    out,
                    ERROR_CONTRACT_REASON_UNIQUE,
                    at("reason"),
                    format!("reason `{reason}` is declared twice: give each failure mode its own reason"),
                );
            }
        }
        if entry.code == JsonRpcErrorCode::UnknownError {
            report(
                out,
                ERROR_CONTRACT_CODE_UNKNOWN_ERROR,
                at("code"),
                format!(
                    "reason `{reason}` declares `UnknownError`, which tells the model nothing: choose the code that says what went wrong"
                ),
            );
        }
        if entry.when.trim().is_empty() {
            report(
                out,
                ERROR_CONTRACT_WHEN_REQUIRED,
                at("when"),
                format!("reason `{reason}` has an empty `when`: say when this failure happens"),
            );
        }
        let words = check::recovery_words(entry.recovery);
        if words == 0 {
            report(
                out,
                ERROR_CONTRACT_RECOVERY_EMPTY,
                at("recovery"),
                format!(
                    "reason `{reason}` has an empty `recovery`: tell the model what to do next, in a full sentence"
                ),
            );
        } else if words < check::MIN_RECOVERY_WORDS {
            report(
                out,
                ERROR_CONTRACT_RECOVERY_MIN_WORDS,
                at("recovery"),
                format!(
                    "the `recovery` of reason `{reason}` has {words} word(s): a useful hint names the next step in at least {} words",
                    check::MIN_RECOVERY_WORDS
                ),
            );
        }
    }
}

/// A name registered more than once: the name, the kind registered first under
/// it, and the kind of its first repeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RepeatedName<'a, K> {
    pub(crate) name: &'a str,
    pub(crate) first: K,
    pub(crate) second: K,
}

/// The one check of `name-unique`: names are one namespace across tools,
/// resources and prompts. Each repeated name once, at its first repeat, in
/// registration order. `Server::build` refuses the first; the linter reports all.
pub(crate) fn repeated_names<'a, K: Copy>(entries: impl IntoIterator<Item = (K, &'a str)>) -> Vec<RepeatedName<'a, K>> {
    let mut first_kind: HashMap<&str, K> = HashMap::new();
    let mut reported = HashSet::new();
    let mut repeats = Vec::new();
    for (kind, name) in entries {
        match first_kind.get(name) {
            None => {
                first_kind.insert(name, kind);
            }
            Some(&first) => {
                if reported.insert(name) {
                    repeats.push(RepeatedName { name, first, second: kind });
                }
            }
        }
    }
    repeats
}

/// `name-unique`, reported at the first repeat of each name, with the repeat's kind.
pub(super) fn check_unique_names<'a>(
    entries: impl IntoIterator<Item = (DefinitionKind, &'a str)>,
    out: &mut Vec<Diagnostic>,
) {
    for RepeatedName { name, first, second } in repeated_names(entries) {
        let text = if first == second {
            format!(
                "two {second}s are registered under the name `{name}`; a client could only reach one of them: rename one of the {second}s or register it once"
            )
        } else {
            format!(
                "a {second} is registered under the name `{name}`, which a {first} already has; names are unique across tools, resources and prompts: rename one of them"
            )
        };
        out.push(Diagnostic::new(NAME_UNIQUE, second, name, Some("/name".into()), text));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::define::ToolAnnotations;
    use crate::error::{ErrorContract, JsonObject};

    fn definition() -> ToolDefinition {
        ToolDefinition {
            name: "get_object",
            title: None,
            description: Some("Fetch one object of the collection by its ID."),
            input_schema: Arc::new(JsonObject::new()),
            output_schema: None,
            annotations: ToolAnnotations::default(),
            auth_scopes: &["objects:read"],
            errors: &[ErrorContract {
                reason: "not_in_collection",
                code: JsonRpcErrorCode::NotFound,
                when: "No object has this ID",
                recovery: "Search with search_objects first to find valid object IDs.",
                retryable: false,
                severity: None,
                recovery_private: false,
            }],
            enrichment: None,
            app: None,
            requires: &[],
            task_support: crate::define::TaskSupport::Forbidden,
            task_input_first: false,
            input_aliases: &[],
            repair_arguments: true,
            allowed_rules: &[],
        }
    }

    fn rules_of(definition: &ToolDefinition) -> Vec<&'static str> {
        let mut out = Vec::new();
        check_definition(definition, &mut out);
        out.iter().map(|d| d.rule).collect()
    }

    #[test]
    fn a_good_definition_passes() {
        assert_eq!(rules_of(&definition()), Vec::<&str>::new());
    }

    #[test]
    fn name_rules() {
        assert_eq!(rules_of(&ToolDefinition { name: "", ..definition() }), ["name-required"]);
        assert_eq!(rules_of(&ToolDefinition { name: "look up/object", ..definition() }), ["name-format"]);
        let long: &'static str = Box::leak("x".repeat(129).into_boxed_str());
        assert_eq!(rules_of(&ToolDefinition { name: long, ..definition() }), ["name-format"]);
        assert_eq!(rules_of(&ToolDefinition { name: "get.object-v2_1", ..definition() }), Vec::<&str>::new());
    }

    #[test]
    fn description_required() {
        assert_eq!(rules_of(&ToolDefinition { description: None, ..definition() }), ["description-required"]);
        assert_eq!(rules_of(&ToolDefinition { description: Some("  "), ..definition() }), ["description-required"]);
    }

    #[test]
    fn annotation_coherence() {
        let read_only = ToolAnnotations { read_only_hint: Some(true), ..ToolAnnotations::default() };
        assert_eq!(rules_of(&ToolDefinition { annotations: read_only, ..definition() }), Vec::<&str>::new());
        let both = ToolAnnotations { destructive_hint: Some(false), ..read_only };
        assert_eq!(rules_of(&ToolDefinition { annotations: both, ..definition() }), ["annotation-coherence"]);
    }

    #[test]
    fn auth_scope_format() {
        assert_eq!(
            rules_of(&ToolDefinition { auth_scopes: &["", "objects write"], ..definition() }),
            ["auth-scope-format", "auth-scope-format"]
        );
    }

    #[test]
    fn contract_rules() {
        let entry = definition().errors[0];
        let errors: &'static [ErrorContract] = Box::leak(Box::new([
            ErrorContract { reason: "NotFound", code: JsonRpcErrorCode::UnknownError, ..entry },
            ErrorContract { reason: "NotFound", when: " ", recovery: "", ..entry },
            ErrorContract { reason: "", recovery: "Search first.", ..entry },
        ]));
        let mut out = Vec::new();
        check_definition(&ToolDefinition { errors, ..definition() }, &mut out);
        let found: Vec<(&str, Option<&str>)> = out.iter().map(|d| (d.rule, d.path.as_deref())).collect();
        assert_eq!(
            found,
            [
                ("error-contract-reason-format", Some("/errors/0/reason")),
                ("error-contract-code-unknown-error", Some("/errors/0/code")),
                ("error-contract-reason-format", Some("/errors/1/reason")),
                ("error-contract-reason-unique", Some("/errors/1/reason")),
                ("error-contract-when-required", Some("/errors/1/when")),
                ("error-contract-recovery-empty", Some("/errors/1/recovery")),
                ("error-contract-reason-required", Some("/errors/2/reason")),
                ("error-contract-recovery-min-words", Some("/errors/2/recovery")),
            ]
        );
    }

    #[test]
    fn name_unique_reports_each_repeated_name_once() {
        let tools = |names: &[&'static str]| names.iter().map(|name| (DefinitionKind::Tool, *name)).collect::<Vec<_>>();
        let mut out = Vec::new();
        check_unique_names(tools(&["a", "b", "a", "a", "c"]), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].rule, out[0].name.as_str()), ("name-unique", "a"));
        assert!(out[0].message.starts_with("two tools are registered under the name `a`"), "{}", out[0].message);
        out.clear();
        check_unique_names(tools(&["a", "b"]), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn name_unique_spans_the_three_kinds() {
        let entries = [
            (DefinitionKind::Tool, "about"),
            (DefinitionKind::Resource, "object_record"),
            (DefinitionKind::Resource, "about"),
            (DefinitionKind::Prompt, "object_record"),
            (DefinitionKind::Prompt, "plan_visit"),
        ];
        assert_eq!(
            repeated_names(entries),
            [
                RepeatedName { name: "about", first: DefinitionKind::Tool, second: DefinitionKind::Resource },
                RepeatedName { name: "object_record", first: DefinitionKind::Resource, second: DefinitionKind::Prompt },
            ]
        );
        let mut out = Vec::new();
        check_unique_names(entries, &mut out);
        let found: Vec<(DefinitionKind, &str)> = out.iter().map(|d| (d.kind, d.name.as_str())).collect();
        assert_eq!(found, [(DefinitionKind::Resource, "about"), (DefinitionKind::Prompt, "object_record")]);
        assert!(out[0].message.contains("a resource is registered under the name `about`, which a tool already has"));
    }

    #[test]
    fn contract_rules_apply_to_every_kind() {
        let errors = [ErrorContract { recovery: "Retry.", ..definition().errors[0] }];
        for kind in [DefinitionKind::Resource, DefinitionKind::Prompt] {
            let mut out = Vec::new();
            check_contract(kind, "x", &errors, &mut out);
            let found: Vec<(&str, DefinitionKind)> = out.iter().map(|d| (d.rule, d.kind)).collect();
            assert_eq!(found, [("error-contract-recovery-min-words", kind)]);
        }
    }
}
