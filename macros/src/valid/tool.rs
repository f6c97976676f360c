//! Validate: judge `#[mcp_tool]`'s typed attribute against the lint rules and
//! build the model that `expand::tool` generates from. Every problem is
//! reported; where a value is bad, a stand-in keeps the model whole so the
//! expansion adds no second error.

use darling::util::SpannedValue;
use proc_macro2::Ident;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{LitStr, Path};

use super::contract::{Entry, check};
use super::name_and_description::{description_of, tool_name};
use crate::diag::Diagnostics;
use crate::kind::Kind;
use crate::names::type_name;
use crate::parse::attr::{Bool, Parsed};
use crate::parse::handler::Handler;
use crate::parse::tool::{AnnotationArgs, AnnotationFlag, RawAttr};
use crate::rules;

/// The tool as validated.
pub(crate) struct Tool {
    pub(crate) name: String,
    /// The generated tool type: `tool_type = ..`, or the PascalCase handler name.
    pub(crate) tool_type: Ident,
    /// The generated reason enum: `reason_type = ..`, or the tool type + `Reason`.
    pub(crate) reason_type: Ident,
    /// The path of the facade crate: `crate = ..`, or `::mcp_contract`.
    pub(crate) krate: Path,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) annotations: Annotations,
    pub(crate) auth: Vec<String>,
    /// The `Capability` variants of `requires(..)`.
    pub(crate) requires: Vec<Ident>,
    pub(crate) format: Option<Path>,
    /// `enrichment = Type`.
    pub(crate) enrichment: Option<Path>,
    /// `trailer(..)`: the trailer's labels and renderers (only with an enrichment).
    pub(crate) trailer: Vec<crate::parse::trailer::TrailerEntry>,
    /// `app = "ui://.."`.
    pub(crate) app: Option<String>,
    /// `None` without `errors(..)`: the tool has no contract and no `fail`.
    pub(crate) contract: Option<Vec<Entry>>,
    /// `task(optional)` or `task(required)`, maybe with `input_first`.
    pub(crate) task: Option<crate::parse::tool::TaskArgs>,
    /// `input_schema = path`: the input schema as written, not the input type's.
    pub(crate) input_schema: Option<Path>,
    /// `output_schema = path`: the output schema as written (a tool with a structured result only).
    pub(crate) output_schema: Option<Path>,
    /// `input_aliases(..)`: each field with its aliases, checked.
    pub(crate) input_aliases: Vec<(String, Vec<String>)>,
    /// `repair_arguments = ..`.
    pub(crate) repair_arguments: Option<bool>,
    /// The rule ids of `allow(..)`: the macro drops its own warnings of them,
    /// and the definition carries them to the definition linter.
    pub(crate) allowed_rules: Vec<String>,
}

#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) title: Option<String>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

pub(crate) fn validate(raw: RawAttr, handler: &Handler, diag: &mut Diagnostics) -> Tool {
    let fn_ident = &handler.item.sig.ident;

    let name = match &raw.name {
        Some(name) => tool_name(name.value(), name.span(), diag),
        None => tool_name(fn_ident.unraw().to_string(), fn_ident.span(), diag),
    };
    let description =
        description_of(Kind::Tool, raw.description.as_ref(), handler.doc.clone(), &name, fn_ident.span(), diag);

    let input_aliases = check_input_aliases(&raw.input_aliases, diag);
    let repair_arguments = raw.repair_arguments.map(SpannedValue::into_inner);
    let RawAttr { annotations, auth, requires, contract, allow, task, trailer, input_schema, output_schema, .. } = raw;
    // A text result has no structured content for an output schema to describe.
    let output_schema = output_schema.filter(|path| {
        if handler.text_only {
            diag.rule_error(
                rules::SCHEMA_FUNCTION,
                path.span(),
                format_args!(
                    "tool `{name}` answers with text, which has no structured content for `output_schema` to \
                     describe: return a type with named fields, or remove `output_schema`"
                ),
            );
        }
        !handler.text_only
    });
    let annotations = annotations.map(|args| check_annotations(args, diag)).unwrap_or_default();
    let auth = auth.map(|scopes| auth_scopes(scopes, diag)).unwrap_or_default();
    let contract = check(contract, &allow, &handler.item.block, diag);
    let allowed_rules = allow.iter().map(|rule| rule.id.clone()).collect();

    let (title, format, enrichment, tool_type, reason_type, krate) = (
        raw.title.as_ref().map(LitStr::value),
        raw.format.clone(),
        raw.enrichment.clone(),
        raw.tool_type.clone(),
        raw.reason_type.clone(),
        raw.krate.clone(),
    );

    let tool_type = type_name(tool_type, fn_ident);
    let reason_type = reason_type.unwrap_or_else(|| format_ident!("{tool_type}Reason", span = fn_ident.span()));
    if tool_type == reason_type {
        diag.rule_error(
            rules::ATTRIBUTE_SYNTAX,
            reason_type.span(),
            format_args!(
                "`tool_type` and `reason_type` are both `{tool_type}`: give the two generated types different names"
            ),
        );
    }
    let krate = krate.unwrap_or_else(|| syn::parse_quote!(::mcp_contract));

    let app = raw.app.as_ref().map(|uri| check_app(uri, diag));
    // enrichment-trailer-orphan: the trailer renders enrichment fields only.
    let trailer = match (trailer, &enrichment) {
        (Some(trailer), None) => {
            diag.rule_error(
                rules::ENRICHMENT_TRAILER_ORPHAN,
                trailer.span,
                "`trailer(..)` without `enrichment = ..`: the trailer only shows enrichment fields; declare the enrichment type (`enrichment = SearchEnrichment`) or drop `trailer`",
            );
            Vec::new()
        }
        (Some(trailer), Some(_)) => trailer.entries,
        (None, _) => Vec::new(),
    };
    Tool {
        name,
        tool_type,
        reason_type,
        krate,
        title,
        description,
        annotations,
        auth,
        requires,
        format,
        enrichment,
        trailer,
        app,
        contract,
        task,
        input_schema,
        output_schema,
        input_aliases,
        repair_arguments,
        allowed_rules,
    }
}

/// `meta-ui-resource-uri-required`, `meta-ui-resource-uri-scheme`.
fn check_app(uri: &LitStr, diag: &mut Diagnostics) -> String {
    let value = uri.value();
    match rules::check::app_uri(&value) {
        Err(rule) if rule == rules::META_UI_RESOURCE_URI_REQUIRED => diag.rule_error(
            rule,
            uri.span(),
            "`app` is empty: name the `ui://` resource that serves the tool's MCP App, e.g. `app = \"ui://museum/object-viewer\"`",
        ),
        Err(rule) => diag.rule_warning(
            rule,
            uri.span(),
            format_args!("`app = \"{value}\"` is no `ui://` URI, which MCP Apps hosts expect (SDK hosts refuse others): serve the app at `ui://..`"),
        ),
        Ok(()) => {}
    }
    value
}

/// `annotations(read_only, destructive = false, title = "..")`: `annotation-type`
/// (read in `parse::tool`), `annotation-coherence`.
fn check_annotations(args: AnnotationArgs, diag: &mut Diagnostics) -> Annotations {
    let mut flag = |parsed: Option<Parsed<Bool<AnnotationFlag>>>| {
        parsed.and_then(|parsed| parsed.take(diag)).map(|flag| flag.value)
    };
    let read_only = flag(args.read_only);
    let destructive = flag(args.destructive);
    let idempotent = flag(args.idempotent);
    let open_world = flag(args.open_world);
    let title = args.title.and_then(|parsed| parsed.take(diag)).map(|title| title.value.into_inner());

    if read_only.as_deref() == Some(&true)
        && let Some(destructive) = &destructive
    {
        diag.rule_warning(
            rules::ANNOTATION_COHERENCE,
            destructive.span(),
            "a `read_only` tool makes no changes, so `destructive` means nothing here: remove `destructive` or `read_only`",
        );
    }

    let [read_only, destructive, idempotent, open_world] =
        [read_only, destructive, idempotent, open_world].map(|flag| flag.map(SpannedValue::into_inner));
    Annotations { title, read_only, destructive, idempotent, open_world }
}

/// `auth-scope-format` over the scope strings of `auth(..)` (`auth-type` is read in `parse::tool`).
fn auth_scopes(scopes: Vec<LitStr>, diag: &mut Diagnostics) -> Vec<String> {
    let mut valid = Vec::new();
    for scope in scopes {
        let value = scope.value();
        if !rules::check::is_valid_scope(&value) {
            diag.rule_error(
                rules::AUTH_SCOPE_FORMAT,
                scope.span(),
                "a scope is a non-empty string without spaces, such as `\"objects:read\"`",
            );
        } else {
            valid.push(value);
        }
    }
    valid
}

/// `input-alias-conflict`, as far as the attribute shows it (the input's own
/// fields are the linter's to judge): by the rule's one check, at the alias.
fn check_input_aliases(
    entries: &[crate::parse::tool::AliasEntry],
    diag: &mut Diagnostics,
) -> Vec<(String, Vec<String>)> {
    let declared: Vec<(String, Vec<String>)> = entries
        .iter()
        .map(|entry| (entry.field.to_string(), entry.aliases.iter().map(LitStr::value).collect()))
        .collect();
    let names: Vec<Vec<&str>> =
        declared.iter().map(|(_, aliases)| aliases.iter().map(String::as_str).collect()).collect();
    let view: Vec<(&str, &[&str])> =
        declared.iter().zip(&names).map(|((field, _), aliases)| (field.as_str(), aliases.as_slice())).collect();
    for conflict in rules::check::alias_conflicts(&view, None) {
        match conflict {
            rules::check::AliasConflict::AliasIsField { entry, alias } => diag.rule_error(
                rules::INPUT_ALIAS_CONFLICT,
                entries[entry].aliases[alias].span(),
                format_args!(
                    "the alias `{}` of `{}` is a field these aliases name: a call that sends it means that field; \
                     remove the alias",
                    view[entry].1[alias], view[entry].0
                ),
            ),
            rules::check::AliasConflict::Shared { entry, alias, first } => diag.rule_error(
                rules::INPUT_ALIAS_CONFLICT,
                entries[entry].aliases[alias].span(),
                format_args!(
                    "the alias `{}` is declared for `{}` already: a call that sends it would name no one field; \
                     keep it on one field",
                    view[entry].1[alias], view[first].0
                ),
            ),
            // The macro passes no fields: the linter judges this one.
            rules::check::AliasConflict::UnknownField { .. } => {}
        }
    }
    declared
}
