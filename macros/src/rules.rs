//! The lint rules as the macros use them: the shared registry of
//! `mcp-contract-rules` (ids, severities, the link every diagnostic ends with),
//! read through [`COMPILE_TIME`], the rules the macros check. Code names a rule
//! through its constant (as serde's `symbol.rs` names attributes), never through
//! a string literal, and the tests below hold the list to the ui cases.

pub(crate) use mcp_contract_rules::*;

/// The rule `allow(..)` names, by id: one the macro checks, or one the
/// definition linter checks on a definition (whose allow the definition carries).
pub(crate) fn find(id: &str) -> Option<Rule> {
    ALL.iter().copied().find(|rule| rule.id == id && judges_a_definition(*rule))
}

/// The rules `allow(..)` accepts, for its error message.
pub(crate) fn warning_ids() -> Vec<&'static str> {
    ALL.iter()
        .filter(|rule| rule.severity == Severity::Warning && judges_a_definition(**rule))
        .map(|rule| rule.id)
        .collect()
}

/// Whether a rule's finding is about one tool, resource or prompt, which its
/// `allow(..)` can speak for: not the rules of `server.json`, the landing page
/// or the skills, which belong to the whole server.
fn judges_a_definition(rule: Rule) -> bool {
    !["server-json-", "landing-", "skill-"].iter().any(|family| rule.id.starts_with(family))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn every_rule_has_a_ui_case_named_after_it() {
        let fail = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui-tests/tests/ui/fail");
        for rule in COMPILE_TIME {
            let case = fail.join(format!("{}.rs", rule.id));
            assert!(case.is_file(), "no ui case {}", case.display());
            assert!(case.with_extension("stderr").is_file(), "no snapshot for {}", case.display());
            let stderr = std::fs::read_to_string(case.with_extension("stderr")).unwrap();
            assert!(stderr.contains(&rule.url()), "the snapshot of {} never reports the rule", case.display());
        }
    }
}
