//! Parse: the tokens of `#[mcp_tool(..)]` into a raw model that keeps every
//! span. Nothing is judged here beyond the grammar; `valid.rs` judges.

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::{Ident, LitStr, Meta, Path};

use crate::diag::Diagnostics;

/// The keys of the attribute, as darling reads them. Values that carry a lint
/// rule of their own stay raw (`Meta`), so the rule, not darling, words the error.
#[derive(Default, FromMeta)]
pub(crate) struct ToolArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) annotations: Option<Meta>,
    pub(crate) auth: Option<Meta>,
    pub(crate) format: Option<Path>,
    pub(crate) errors: Option<Meta>,
    /// `tool_type = Name`: the generated tool type (default: the PascalCase handler name).
    pub(crate) tool_type: Option<Ident>,
    /// `reason_type = Name`: the generated reason enum (default: the tool type + `Reason`).
    pub(crate) reason_type: Option<Ident>,
    /// `crate = path`: where `mcp-contract` is, for crates that re-export it (as serde's `crate`).
    #[darling(rename = "crate")]
    pub(crate) krate: Option<Path>,
}

/// The keys of one `errors(..)` entry, values raw for the same reason.
#[derive(Default, FromMeta)]
pub(crate) struct EntryArgs {
    pub(crate) code: Option<Meta>,
    pub(crate) when: Option<Meta>,
    pub(crate) recovery: Option<Meta>,
    pub(crate) retryable: Option<Meta>,
}

/// The keys of `annotations(..)`.
#[derive(Default, FromMeta)]
pub(crate) struct AnnotationArgs {
    pub(crate) read_only: Option<Meta>,
    pub(crate) destructive: Option<Meta>,
    pub(crate) idempotent: Option<Meta>,
    pub(crate) open_world: Option<Meta>,
    pub(crate) title: Option<Meta>,
}

/// A list of keys that darling reads, with the names it accepts.
pub(crate) trait Keys: FromMeta + Default {
    const KEYS: &'static [&'static str];
}

impl Keys for ToolArgs {
    const KEYS: &'static [&'static str] = &[
        "name",
        "title",
        "description",
        "annotations",
        "auth",
        "format",
        "errors",
        "tool_type",
        "reason_type",
        "crate",
    ];
}

impl Keys for EntryArgs {
    const KEYS: &'static [&'static str] = &["code", "when", "recovery", "retryable"];
}

impl Keys for AnnotationArgs {
    const KEYS: &'static [&'static str] = &["read_only", "destructive", "idempotent", "open_world", "title"];
}

/// Read a key list. darling gives up on the whole list at an unknown key; reading
/// the unknown keys apart (for darling's "did you mean" error) and the known ones
/// on their own keeps the rest of the list, so its mistakes are reported too.
pub(crate) fn from_items<T: Keys>(items: &[NestedMeta], diag: &mut Diagnostics) -> Option<T> {
    let (known, unknown): (Vec<NestedMeta>, Vec<NestedMeta>) = items.iter().cloned().partition(|item| match item {
        NestedMeta::Meta(meta) => meta.path().get_ident().is_some_and(|key| T::KEYS.iter().any(|known| key == known)),
        _ => true,
    });
    if !unknown.is_empty() {
        diag.darling(T::from_list(&unknown));
    }
    diag.darling(T::from_list(&known))
}

/// Whether a key list names a key `T` does not have: darling reports it with a
/// "did you mean", and the key it meant must not be reported missing as well.
pub(crate) fn has_unknown_keys<T: Keys>(meta: &Meta) -> bool {
    list_items(meta).is_ok_and(|items| {
        items.iter().any(|item| match item {
            NestedMeta::Meta(meta) => {
                !meta.path().get_ident().is_some_and(|key| T::KEYS.iter().any(|known| key == known))
            }
            _ => false,
        })
    })
}

/// A rule id named in `allow(..)`, with its tokens: an error spans all of them
/// (`name-required` is three tokens, and `Span::join` is `None` on stable).
pub(crate) struct AllowedRule {
    pub(crate) id: String,
    pub(crate) tokens: TokenStream,
}

/// The attribute, split into darling's part and the `allow(..)` list.
pub(crate) struct RawAttr {
    pub(crate) args: ToolArgs,
    pub(crate) allow: Vec<AllowedRule>,
}

/// Read the attribute. Grammar errors land in `diag`; what could be read is kept.
pub(crate) fn parse(tokens: TokenStream, diag: &mut Diagnostics) -> RawAttr {
    // Rule ids are hyphenated (`error-contract-empty`), which is no Rust path, so
    // `allow(..)` is taken out before darling sees the rest.
    let (rest, allow) = split_allow(tokens, diag);
    let args = match NestedMeta::parse_meta_list(rest) {
        Ok(items) => from_items(&items, diag).unwrap_or_default(),
        Err(err) => {
            diag.error(err);
            ToolArgs::default()
        }
    };
    RawAttr { args, allow }
}

fn split_allow(tokens: TokenStream, diag: &mut Diagnostics) -> (TokenStream, Vec<AllowedRule>) {
    let mut rest = Vec::new();
    let mut allow = Vec::new();
    for item in split_top_level(tokens) {
        match item.as_slice() {
            [TokenTree::Ident(key), TokenTree::Group(group)]
                if key == "allow" && group.delimiter() == Delimiter::Parenthesis =>
            {
                allow.extend(parse_rule_ids(group.stream(), diag));
            }
            _ => {
                if !rest.is_empty() {
                    rest.push(TokenTree::Punct(proc_macro2::Punct::new(',', proc_macro2::Spacing::Alone)));
                }
                rest.extend(item);
            }
        }
    }
    (rest.into_iter().collect(), allow)
}

/// `error-contract-empty, "prefer-error-factory"` -> the ids and their spans.
fn parse_rule_ids(tokens: TokenStream, diag: &mut Diagnostics) -> Vec<AllowedRule> {
    let mut rules = Vec::new();
    for item in split_top_level(tokens) {
        let tokens: TokenStream = item.iter().cloned().collect();
        let id = match item.as_slice() {
            [TokenTree::Literal(lit)] => match syn::parse2::<LitStr>(TokenTree::Literal(lit.clone()).into()) {
                Ok(lit) => lit.value(),
                Err(_) => String::new(),
            },
            _ if item.iter().all(|tt| matches!(tt, TokenTree::Ident(_)) || is_hyphen(tt)) => {
                item.iter().map(ToString::to_string).collect()
            }
            _ => String::new(),
        };
        if id.is_empty() {
            diag.error(syn::Error::new_spanned(
                &tokens,
                format!(
                    "expected a lint rule id such as `error-contract-empty` in `allow(..)`; see {}",
                    crate::rules::DOCS_URL
                ),
            ));
        } else {
            rules.push(AllowedRule { id, tokens });
        }
    }
    rules
}

fn is_hyphen(tt: &TokenTree) -> bool {
    matches!(tt, TokenTree::Punct(punct) if punct.as_char() == '-')
}

/// Split a token stream at its top-level commas.
fn split_top_level(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut items = vec![Vec::new()];
    for tt in tokens {
        match &tt {
            TokenTree::Punct(punct) if punct.as_char() == ',' => items.push(Vec::new()),
            _ => items.last_mut().expect("never empty").push(tt),
        }
    }
    items.retain(|item| !item.is_empty());
    items
}

/// The items of a list-shaped key such as `errors(..)`, or an error for the other shapes.
pub(crate) fn list_items(meta: &Meta) -> syn::Result<Vec<NestedMeta>> {
    match meta {
        Meta::List(list) => NestedMeta::parse_meta_list(list.tokens.clone()),
        _ => Err(syn::Error::new_spanned(meta, "expected a list: `key(..)`")),
    }
}
