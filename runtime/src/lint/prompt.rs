//! Rules over prompts: `name-required`, `description-required`, the error
//! contract's rules, `describe-on-fields` on the arguments `prompts/list`
//! publishes, and the arguments type's schema (`schema-is-object`, the
//! portability rules, `prompt-arguments-align`).
//!
//! `prompt-arguments-align` goes beyond the reference: a hand-written
//! definition lists its arguments apart from the type that decodes them, and a
//! required field the list leaves out is one no client knows to send.

use super::definitions::{check_contract, check_description, check_name_required};
use super::schema::portability;
use super::{DefinitionKind, Diagnostic, LintOptions};
use crate::define::{DynPrompt, PromptDefinition};
use crate::error::JsonObject;
use crate::schema::{Fields, is_object_schema};
use mcp_contract_rules::{DESCRIBE_ON_FIELDS, PROMPT_ARGUMENTS_ALIGN, SCHEMA_IS_OBJECT};

const KIND: DefinitionKind = DefinitionKind::Prompt;

pub(super) fn check(prompt: &dyn DynPrompt, options: &LintOptions, out: &mut Vec<Diagnostic>) {
    let definition = prompt.definition();
    let name = definition.name;
    if !prompt.checked_at_compile_time() {
        check_name_required(KIND, name, "plan_visit", out);
        check_description(KIND, name, definition.description, "say what the prompt is for and when to use it", out);
        check_contract(KIND, name, definition.errors, out);
    }

    for (index, argument) in definition.arguments.iter().enumerate() {
        if argument.description.as_deref().is_none_or(|text| text.trim().is_empty()) {
            out.push(Diagnostic::new(
                DESCRIBE_ON_FIELDS,
                KIND,
                name,
                Some(format!("/arguments/{index}/description")),
                format!(
                    "argument `{}` of prompt `{name}` has no description: add a `///` doc comment on the field (or `#[schemars(description = \"..\")]`) saying what to give, since the person or model filling it in reads it",
                    argument.name
                ),
            ));
        }
    }

    let schema = prompt.arguments_schema();
    if !is_object_schema(&schema) {
        out.push(Diagnostic::new(
            SCHEMA_IS_OBJECT,
            KIND,
            name,
            Some("/argumentsSchema".into()),
            format!("the arguments type of prompt `{name}` is not a struct with named fields (its schema is not `type: \"object\"`), and MCP sends prompt arguments by name: take a struct with a field per argument"),
        ));
        return;
    }
    portability(KIND, name, "/argumentsSchema", &schema, options, out);
    check_alignment(definition, &schema, out);
}

/// `prompt-arguments-align`: every listed argument is a field the arguments
/// type decodes, listed as optional only when the type does not require it,
/// and every required field is listed.
fn check_alignment(definition: &PromptDefinition, schema: &JsonObject, out: &mut Vec<Diagnostic>) {
    let name = definition.name;
    let Fields { names: properties, required, takes_any } = Fields::of(schema);
    let report = |out: &mut Vec<Diagnostic>, path: String, text: String| {
        out.push(Diagnostic::new(PROMPT_ARGUMENTS_ALIGN, KIND, name, Some(path), text));
    };

    for (index, argument) in definition.arguments.iter().enumerate() {
        let listed = argument.name.as_str();
        if !properties.contains(&listed) && !takes_any {
            report(
                out,
                format!("/arguments/{index}/name"),
                format!(
                    "prompt `{name}` lists the argument `{listed}`, which its arguments type does not decode: build the arguments with `prompt_arguments::<T>()` of the prompt's own `Arguments` type"
                ),
            );
        } else if !argument.required && required.contains(&listed) {
            report(
                out,
                format!("/arguments/{index}/required"),
                format!(
                    "prompt `{name}` lists the argument `{listed}` as optional, but its arguments type requires it: a client that leaves it out gets an error; make the field an `Option`, or list it as required"
                ),
            );
        }
    }
    for field in required {
        if !definition.arguments.iter().any(|argument| argument.name == field) {
            report(
                out,
                "/arguments".into(),
                format!(
                    "the arguments type of prompt `{name}` requires `{field}`, which `prompts/list` does not list: no client knows to send it, so every `prompts/get` fails; build the arguments with `prompt_arguments::<T>()` of the prompt's own `Arguments` type"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;
    use crate::call::Context;
    use crate::define::{NoArguments, Prompt, PromptMessage, prompt_arguments};
    use crate::error::{ErrorContract, JsonRpcErrorCode, McpError};

    struct Fixture<A>(&'static PromptDefinition, std::marker::PhantomData<A>);

    impl<A: serde::de::DeserializeOwned + JsonSchema + Send + Sync + 'static> Prompt for Fixture<A> {
        type Arguments = A;
        fn definition(&self) -> &'static PromptDefinition {
            self.0
        }
        async fn get(&self, _arguments: A, _ctx: Context) -> Result<Vec<PromptMessage>, McpError> {
            Ok(Vec::new())
        }
    }

    fn findings<A: serde::de::DeserializeOwned + JsonSchema + Send + Sync + 'static>(
        definition: PromptDefinition,
        options: &LintOptions,
    ) -> Vec<(&'static str, String)> {
        let prompt = Fixture::<A>(Box::leak(Box::new(definition)), std::marker::PhantomData);
        let mut out = Vec::new();
        check(&prompt, options, &mut out);
        out.into_iter().map(|d| (d.rule, d.path.unwrap_or_default())).collect()
    }

    fn lint<A: serde::de::DeserializeOwned + JsonSchema + Send + Sync + 'static>(
        definition: PromptDefinition,
    ) -> Vec<(&'static str, String)> {
        findings::<A>(definition, &LintOptions::default())
    }

    /// The arguments of a visit plan.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct PlanVisit {
        /// The department to visit, e.g. "Asian Art".
        department: String,
        /// How many days, 1 by default.
        days: Option<u8>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Undocumented {
        department: String,
        /// How many days.
        days: Option<u8>,
    }

    fn plan_visit<A: JsonSchema>() -> PromptDefinition {
        PromptDefinition::new("plan_visit", prompt_arguments::<A>())
            .with_description("Plan a visit around one department.")
    }

    const NONE: Vec<(&str, String)> = Vec::new();

    #[test]
    fn a_good_prompt_passes() {
        assert_eq!(lint::<PlanVisit>(plan_visit::<PlanVisit>()), NONE);
        assert_eq!(
            lint::<NoArguments>(PromptDefinition::new("greet", Vec::new()).with_description("Say hello.")),
            NONE
        );
    }

    #[test]
    fn name_and_description() {
        let unnamed = PromptDefinition::new("", Vec::new()).with_description("Say hello.");
        assert_eq!(lint::<NoArguments>(unnamed), [("name-required", "/name".to_owned())]);
        let undescribed = PromptDefinition::new("greet", Vec::new());
        assert_eq!(lint::<NoArguments>(undescribed), [("description-required", "/description".to_owned())]);
    }

    #[test]
    fn describe_on_fields_reads_the_listed_arguments() {
        assert_eq!(
            lint::<Undocumented>(plan_visit::<Undocumented>()),
            [("describe-on-fields", "/arguments/0/description".to_owned())]
        );
    }

    #[test]
    fn arguments_schema_is_object() {
        assert_eq!(
            lint::<Vec<String>>(PromptDefinition::new("tags", Vec::new()).with_description("Tags.")),
            [("schema-is-object", "/argumentsSchema".to_owned())]
        );
    }

    #[test]
    fn arguments_schema_portability() {
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Visitor {
            /// Where to send the plan.
            #[schemars(email)]
            email: String,
        }
        let definition = || PromptDefinition::new("plan", prompt_arguments::<Visitor>()).with_description("A plan.");
        assert_eq!(lint::<Visitor>(definition()), NONE);
        let dates_only = LintOptions { format_allowlist: Some(vec!["date-time".into()]), ..LintOptions::default() };
        assert_eq!(
            findings::<Visitor>(definition(), &dates_only),
            [("schema-format-portability", "/argumentsSchema/properties/email".to_owned())]
        );
        let strict = LintOptions { profile: super::super::Profile::Strict, ..LintOptions::default() };
        assert_eq!(findings::<Visitor>(definition(), &strict), [("schema-dialect-tag", "/argumentsSchema".to_owned())]);
    }

    #[test]
    fn prompt_arguments_align() {
        // Listed from another type: `department` is not decoded, `topic` is not listed.
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Topic {
            /// The topic.
            topic: String,
        }
        assert_eq!(
            lint::<Topic>(plan_visit::<PlanVisit>()),
            [
                ("prompt-arguments-align", "/arguments/0/name".to_owned()),
                ("prompt-arguments-align", "/arguments/1/name".to_owned()),
                ("prompt-arguments-align", "/arguments".to_owned()),
            ]
        );
        // Listed as optional, required by the type.
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct StrictVisit {
            /// The department.
            department: String,
            /// How many days.
            days: u8,
        }
        assert_eq!(
            lint::<StrictVisit>(plan_visit::<PlanVisit>()),
            [("prompt-arguments-align", "/arguments/1/required".to_owned())]
        );
    }

    #[test]
    fn contract_rules() {
        static ERRORS: [ErrorContract; 1] = [ErrorContract::new(
            "too_long",
            JsonRpcErrorCode::UnknownError,
            "The visit is longer than a week",
            "Plan fewer days.",
        )];
        let definition = plan_visit::<PlanVisit>().with_errors(&ERRORS);
        assert_eq!(
            lint::<PlanVisit>(definition),
            [
                ("error-contract-code-unknown-error", "/errors/0/code".to_owned()),
                ("error-contract-recovery-min-words", "/errors/0/recovery".to_owned()),
            ]
        );
    }
}
