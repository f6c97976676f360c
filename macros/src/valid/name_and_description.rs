//! Validate: what a tool, a resource or a prompt is called and described as.
//! A tool's name: `name-required`, `name-format`; a resource's or prompt's
//! `name = ".."`: `name-required`, and for a resource `resource-name-not-uri`;
//! the description of all three: `description-required`.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{ItemFn, LitStr};

use crate::diag::Diagnostics;
use crate::kind::Kind;
use crate::parse::handler::doc_paragraph;
use crate::rules;

/// A tool's name, `name = ".."` or the handler's: `name-required`, `name-format`.
pub(crate) fn tool_name(name: String, span: Span, diag: &mut Diagnostics) -> String {
    if name.is_empty() {
        diag.rule_error(rules::NAME_REQUIRED, span, "the tool name is empty: give it a name such as `get_object`");
    } else if !rules::check::is_valid_name(&name) {
        diag.rule_error(
            rules::NAME_FORMAT,
            span,
            format_args!("tool name `{name}` must be 1 to 128 characters of `A-Z a-z 0-9 _ - .`"),
        );
    }
    name
}

/// A resource's or prompt's name and description: `name = ".."` or the
/// handler's name, `description = ".."` or its doc comment.
pub(crate) fn name_and_description(
    kind: Kind,
    name: Option<&LitStr>,
    description: Option<&LitStr>,
    item: &ItemFn,
    diag: &mut Diagnostics,
) -> (String, Option<String>) {
    let fn_name = item.sig.ident.unraw().to_string();
    let name = name_of(kind, name, &fn_name, diag);
    let shown = if name.trim().is_empty() { fn_name.as_str() } else { name.as_str() };
    let description = description_of(kind, description, doc_paragraph(item), shown, item.sig.ident.span(), diag);
    (name, description)
}

/// `name-required`, and for a resource `resource-name-not-uri`.
fn name_of(kind: Kind, written: Option<&LitStr>, fn_name: &str, diag: &mut Diagnostics) -> String {
    let name = written.map_or_else(|| fn_name.to_owned(), LitStr::value);
    if let Some(lit) = written {
        if name.trim().is_empty() {
            diag.rule_error(
                rules::NAME_REQUIRED,
                lit.span(),
                "`name = \"\"`: remove `name` to use the function's name, or give one",
            );
        } else if kind == Kind::Resource && name.contains("://") {
            diag.rule_warning(
                rules::RESOURCE_NAME_NOT_URI,
                lit.span(),
                format_args!("the resource name `{name}` looks like a URI; the URI belongs in `uri`, the name says what the resource is"),
            );
        }
    }
    name
}

/// `description-required`: the description, `description = ".."` or the doc
/// comment's paragraph, is missing or blank. The warning names the primitive
/// `shown` and stands at `at`, the handler's name.
pub(crate) fn description_of(
    kind: Kind,
    written: Option<&LitStr>,
    doc: Option<String>,
    shown: &str,
    at: Span,
    diag: &mut Diagnostics,
) -> Option<String> {
    let description = written.map(LitStr::value).or(doc);
    if description.as_deref().is_none_or(|text| text.trim().is_empty()) {
        diag.rule_warning(
            rules::DESCRIPTION_REQUIRED,
            at,
            format_args!(
                "{} `{shown}` has no description: add a `///` doc comment or `description = \"..\"` saying {}",
                kind.noun(),
                kind.describes()
            ),
        );
    }
    description
}
