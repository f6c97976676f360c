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
//! | schema | `schema-is-object`, `describe-on-fields`, `schema-unsatisfiable`, portability (`schema-format-portability`, ..) | `schema.rs` |
//! | header parameters | `header-param-designation` | `header_params.rs` |
//! | definitions | `name-unique` across tools, resources and prompts, and the macro's rules on hand-written tools | `definitions.rs` |
//! | resources | `uri-template-valid`, `template-params-align`, `resource-name-not-uri`, `resource-mime-type-format`, .. | `resource.rs` |
//! | prompts | `prompt-arguments-align`, `describe-on-fields` on arguments, .. | `prompt.rs` |
//! | server.json | the 41 `server-json-*` rules | `server_json.rs` |
//! | landing page | the 23 `landing-*` rules on [`Landing`](crate::define::Landing) | `landing.rs` |
//! | skills | `skill-allowed-tools-served`, `skill-name-unique`, `skill-uri-clash` | `skill.rs` |
//!
//! Where it runs: [`Server::build`](crate::server::Server::build) (errors fail
//! the build, warnings go to the log), the `lint` mode of
//! [`Server::run_cli`](crate::server::Server::run_cli), and
//! [`assert_lint_clean`](crate::server::assert_lint_clean) in a user's tests.
//!
//! ```
//! use mcp_contract::lint::{LintInput, validate};
//!
//! let report = validate(&LintInput::default().server_json(r#"{"name": "io.github.acme/museum"}"#));
//! assert!(!report.passed);
//! assert!(report.diagnostics.iter().any(|d| d.rule == "server-json-description-required"));
//! let first = &report.diagnostics[0];
//! assert!(first.message.ends_with(&mcp_contract::rules::docs_url(first.rule)));
//! ```

mod app;
mod definitions;
mod enrichment;
mod format_parity;
mod header_params;
mod landing;
mod model;
mod prompt;
mod resource;
mod schema;
mod server_json;
mod skill;

/// The one `name-unique` check, which `Server::build` shares.
#[cfg(feature = "rmcp")]
pub(crate) use definitions::{RepeatedName, repeated_names};

pub use self::model::{DefinitionKind, Diagnostic, LintInput, LintOptions, LintReport, LintSkill, Profile};
/// The landing page's limits and the repository shape, which the renderer applies too.
#[cfg(feature = "rmcp")]
pub(crate) use landing::{GITHUB_REPO_ROOT, MAX_ENV_EXAMPLE, MAX_LINKS};
pub use mcp_contract_rules::{Rule, Severity};

/// `allow(..)` on a tool, resource or prompt silences a warning rule for it,
/// as at compile time: drop the warnings of `allowed` rules among the
/// diagnostics from `first` on, which are that definition's.
fn drop_allowed(diagnostics: &mut Vec<Diagnostic>, first: usize, allowed: &[&str]) {
    let mut index = 0;
    diagnostics.retain(|diagnostic| {
        index += 1;
        index <= first || diagnostic.severity == Severity::Error || !allowed.contains(&diagnostic.rule)
    });
}

/// Run every rule on `input`.
///
/// Diagnostics come per tool in registration order (definition rules, schema
/// rules, format parity), then per resource and per prompt, then `name-unique`
/// across the three kinds, then `server.json`, then the landing page's config.
pub fn validate(input: &LintInput<'_>) -> LintReport {
    let mut diagnostics = Vec::new();
    let mut shared_formatters = format_parity::SharedFormatters::default();
    for tool in &input.tools {
        let definition = tool.definition();
        let first = diagnostics.len();
        if !tool.checked_at_compile_time() {
            definitions::check_definition(definition, &mut diagnostics);
        }
        schema::check_tool(definition, &input.options, &mut diagnostics);
        enrichment::check_tool(definition, &input.options, &mut diagnostics);
        header_params::check_tool(definition, &mut diagnostics);
        if input.options.format_parity {
            format_parity::check_tool(*tool, &mut shared_formatters, &mut diagnostics);
        }
        drop_allowed(&mut diagnostics, first, definition.allowed_rules);
    }
    shared_formatters.finish(&mut diagnostics);
    for resource in &input.resources {
        let first = diagnostics.len();
        resource::check(*resource, &mut diagnostics);
        drop_allowed(&mut diagnostics, first, resource.definition().allowed_rules);
    }
    for prompt in &input.prompts {
        let first = diagnostics.len();
        prompt::check(*prompt, &input.options, &mut diagnostics);
        drop_allowed(&mut diagnostics, first, prompt.definition().allowed_rules);
    }
    app::check(&input.tools, &input.resources, &mut diagnostics);
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
    if let Some(config) = input.landing {
        landing::check(config, &mut diagnostics);
    }
    skill::check(&input.skills, &input.tools, &input.resources, &mut diagnostics);
    LintReport::from_diagnostics(diagnostics)
}
