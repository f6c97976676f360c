//! The lint rules as the macros use them: the shared registry of
//! `mcp-contract-rules` (ids, severities, the link every diagnostic ends with),
//! read through [`COMPILE_TIME`], the rules the macros check. Code names a rule
//! through its constant (as serde's `symbol.rs` names attributes), never through
//! a string literal, and the tests below hold the list to the ui cases.

pub(crate) use mcp_contract_rules::*;

/// The rule a macro checks, by id: `allow(..)` may name only these.
pub(crate) fn find(id: &str) -> Option<Rule> {
    COMPILE_TIME.iter().copied().find(|rule| rule.id == id)
}

/// The rules `allow(..)` accepts, for its error message.
pub(crate) fn warning_ids() -> Vec<&'static str> {
    COMPILE_TIME.iter().filter(|rule| rule.severity == Severity::Warning).map(|rule| rule.id).collect()
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
