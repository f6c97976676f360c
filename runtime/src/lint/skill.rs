//! Rules over the skills a server serves (the Skills extension, SEP-2640)
//! that only the whole server shows: `skill-allowed-tools-served` (a skill
//! pre-approves a tool the server does not serve), `skill-name-unique` (two
//! skills one name) and `skill-uri-clash` (a resource of the server's own
//! answers for a skill's file). What a skill's own folder shows (its
//! frontmatter, its files, its size) is judged when it is read.

use std::collections::HashMap;

use super::model::LintSkill;
use super::{DefinitionKind, Diagnostic};
use crate::define::{DynResource, DynTool};
use mcp_contract_rules::{SKILL_ALLOWED_TOOLS_SERVED, SKILL_NAME_UNIQUE, SKILL_URI_CLASH};
use mcp_contract_uri_template::UriTemplate;

const KIND: DefinitionKind = DefinitionKind::Skill;

pub(super) fn check(
    skills: &[LintSkill],
    tools: &[&dyn DynTool],
    resources: &[&dyn DynResource],
    out: &mut Vec<Diagnostic>,
) {
    let served: Vec<&str> = tools.iter().map(|tool| tool.definition().name).collect();
    for skill in skills {
        for tool in skill.allowed_tools.iter().filter(|tool| !served.contains(&tool.as_str())) {
            out.push(Diagnostic::new(
                SKILL_ALLOWED_TOOLS_SERVED,
                KIND,
                &skill.name,
                Some("/frontmatter/allowed-tools".into()),
                format!(
                    "the skill `{}` pre-approves the tool `{tool}` in `allowed-tools`, which this server does not serve: \
                     name a tool of `tools/list`, or drop it (a tool of the host's own, such as `Bash(git:*)`, is the host's to grant)",
                    skill.uri
                ),
            ));
        }
    }

    let mut by_name: HashMap<&str, &str> = HashMap::new();
    for skill in skills {
        if let Some(first) = by_name.insert(&skill.name, &skill.uri) {
            by_name.insert(&skill.name, first);
            out.push(Diagnostic::new(
                SKILL_NAME_UNIQUE,
                KIND,
                &skill.name,
                Some("/frontmatter/name".into()),
                format!(
                    "the skills `{first}` and `{}` are both named `{}`, so a host must tell them apart by their path: \
                     rename one of them",
                    skill.uri, skill.name
                ),
            ));
        }
    }

    for resource in resources {
        let definition = resource.definition();
        // A URI that is no template is `uri-template-valid`'s to report.
        let Ok(template) = UriTemplate::parse(definition.uri) else { continue };
        let clash = skills
            .iter()
            .flat_map(|skill| skill.files.iter().map(move |file| (skill, file)))
            .find(|(_, file)| template.match_uri(file).is_some());
        if let Some((skill, file)) = clash {
            let path = if template.is_static() { "/uri" } else { "/uriTemplate" };
            out.push(Diagnostic::new(
                SKILL_URI_CLASH,
                DefinitionKind::Resource,
                definition.name,
                Some(path.into()),
                format!(
                    "the resource's URI `{}` answers for `{file}`, a file of the skill `{}`; a client reading it could get \
                     either: give the resource a URI outside the skill's folder (or outside `skill://`)",
                    definition.uri, skill.uri
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::{LintInput, validate};

    #[test]
    fn a_tool_the_server_does_not_serve_is_reported() {
        let skill = LintSkill::new("skill://search/SKILL.md", "search").allowed_tools(["search_objects"]);
        let report = validate(&LintInput::default().skills([skill]));
        let found = report.diagnostics.iter().find(|d| d.rule == "skill-allowed-tools-served").expect("reported");
        assert_eq!((found.severity, found.kind), (mcp_contract_rules::Severity::Warning, DefinitionKind::Skill));
        assert!(found.message.contains("`search_objects`"), "{}", found.message);
        assert!(report.passed, "a warning");
    }

    #[test]
    fn two_skills_of_one_name_are_reported_at_the_second() {
        let skills = [
            LintSkill::new("skill://acme/billing/refunds/SKILL.md", "refunds"),
            LintSkill::new("skill://acme/support/refunds/SKILL.md", "refunds"),
            LintSkill::new("skill://search/SKILL.md", "search"),
        ];
        let report = validate(&LintInput::default().skills(skills));
        let found: Vec<_> = report.diagnostics.iter().filter(|d| d.rule == "skill-name-unique").collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("skill://acme/support/refunds/SKILL.md"), "{}", found[0].message);
    }

    #[test]
    fn distinct_names_are_clean() {
        let skills = [LintSkill::new("skill://a/SKILL.md", "a"), LintSkill::new("skill://b/SKILL.md", "b")];
        assert!(validate(&LintInput::default().skills(skills)).diagnostics.is_empty());
    }
}
