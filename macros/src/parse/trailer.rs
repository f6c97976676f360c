//! Parse: `#[mcp_tool(trailer(..))]`, how the enrichment trailer shows a
//! field, a label instead of its key or a renderer of the author's own, which
//! the trailer tries first (`expand::tool` writes the entries out).
//!
//! ```text
//! trailer(totalCount(label = "Matches"), page(render = render_page))
//! ```
//!
//! Each entry is named by the field's JSON name (`totalCount`, as the
//! enrichment type serializes it); whether the type has such a field is the
//! definition linter's (`enrichment-trailer-unknown-field`), since only serde
//! knows the names. A renderer is a `fn(&serde_json::Value) -> String`.

use darling::ast::NestedMeta;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, Meta, Path};

use crate::diag::{Diagnostics, closest};
use crate::rules;

/// One field's presentation.
pub(crate) struct TrailerEntry {
    /// The field's JSON name.
    pub(crate) key: String,
    pub(crate) label: Option<LitStr>,
    pub(crate) render: Option<Path>,
}

/// `trailer(..)` as written: where it stands (for `enrichment-trailer-orphan`) and its entries.
pub(crate) struct RawTrailer {
    pub(crate) span: Span,
    pub(crate) entries: Vec<TrailerEntry>,
}

const KEYS: &[&str] = &["label", "render"];

/// Read `trailer(..)`; what is malformed is reported (`attribute-syntax`) and left out.
pub(crate) fn parse(meta: &Meta, diag: &mut Diagnostics) -> RawTrailer {
    let span = meta.path().span();
    let shape = "`trailer` lists enrichment fields by their JSON name, each with a `label = \"..\"` or a \
                 `render = path` (a `fn(&serde_json::Value) -> String`): \
                 `trailer(totalCount(label = \"Matches\"), page(render = render_page))`";
    let items = match meta {
        Meta::List(list) => match NestedMeta::parse_meta_list(list.tokens.clone()) {
            Ok(items) => items,
            Err(err) => {
                diag.error(err);
                return RawTrailer { span, entries: Vec::new() };
            }
        },
        _ => {
            diag.rule_error(rules::ATTRIBUTE_SYNTAX, meta.span(), shape);
            return RawTrailer { span, entries: Vec::new() };
        }
    };
    let mut entries: Vec<TrailerEntry> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for item in &items {
        let NestedMeta::Meta(Meta::List(field)) = item else {
            diag.rule_error(rules::ATTRIBUTE_SYNTAX, item.span(), shape);
            continue;
        };
        let Some(key) = field.path.get_ident().map(|ident| syn::ext::IdentExt::unraw(ident).to_string()) else {
            diag.rule_error(rules::ATTRIBUTE_SYNTAX, field.path.span(), shape);
            continue;
        };
        if seen.contains(&key) {
            diag.rule_error(
                rules::ATTRIBUTE_SYNTAX,
                field.path.span(),
                format_args!("`trailer` names `{key}` twice: give each field one entry"),
            );
            continue;
        }
        seen.push(key.clone());
        let settings = match NestedMeta::parse_meta_list(field.tokens.clone()) {
            Ok(settings) => settings,
            Err(err) => {
                diag.error(err);
                continue;
            }
        };
        let mut entry = TrailerEntry { key, label: None, render: None };
        for setting in &settings {
            let NestedMeta::Meta(Meta::NameValue(pair)) = setting else {
                diag.rule_error(rules::ATTRIBUTE_SYNTAX, setting.span(), shape);
                continue;
            };
            let name = pair.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match (name.as_str(), &pair.value) {
                ("label", Expr::Lit(syn::ExprLit { lit: Lit::Str(label), .. })) if !label.value().trim().is_empty() => {
                    entry.label = Some(label.clone());
                }
                ("label", value) => diag.rule_error(
                    rules::ATTRIBUTE_SYNTAX,
                    value.span(),
                    "`label` is a non-empty string, shown instead of the field's name: `label = \"Matches\"`",
                ),
                ("render", Expr::Path(path)) => entry.render = Some(path.path.clone()),
                ("render", value) => diag.rule_error(
                    rules::ATTRIBUTE_SYNTAX,
                    value.span(),
                    "`render` names a function `fn(&serde_json::Value) -> String` that writes the field's Markdown: \
                     `render = render_page`",
                ),
                (other, _) => {
                    let hint =
                        closest(other, KEYS).map_or_else(String::new, |name| format!(" (did you mean `{name}`?)"));
                    diag.rule_error(
                        rules::ATTRIBUTE_SYNTAX,
                        pair.path.span(),
                        format_args!("`{other}` is no setting of a trailer field{hint}; it takes `label` and `render`"),
                    );
                }
            }
        }
        if entry.label.is_none() && entry.render.is_none() {
            if settings.is_empty() {
                diag.rule_error(
                    rules::ATTRIBUTE_SYNTAX,
                    field.span(),
                    format_args!(
                        "the trailer entry `{}` sets nothing: give it a `label = \"..\"` or a `render = path`",
                        entry.key
                    ),
                );
            }
            continue;
        }
        entries.push(entry);
    }
    RawTrailer { span, entries }
}
