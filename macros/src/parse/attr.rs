//! Parse: the key-list grammar the three attributes share. A key list is
//! declared once with [`keys!`] and read by darling, key by key, so one bad key
//! leaves the rest of the list read; values are read into their types here (a
//! flag into a bool, a string into a text), and a value of the wrong type is an
//! error of its rule, kept so the rest of the list is still read. `allow(..)`,
//! whose rule ids are no Rust paths, is taken out before darling sees the rest.
//! What the values mean (a blank `when`, a short `recovery`, a duplicate reason)
//! `valid` judges.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::SpannedValue;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, Meta, Path};

use crate::diag::{Diagnostics, message};
use crate::rules::{self, Rule};

/// A key list that darling reads, declared once: the struct and the names of
/// its keys come from the same field list, so a key added to one is in the other.
macro_rules! keys {
    (
        $(#[doc = $doc:literal])*
        struct $name:ident {
            $( $(#[doc = $field_doc:literal])* $(#[key = $key:literal])? $field:ident: $ty:ty, )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Default, FromMeta)]
        pub(crate) struct $name {
            $( $(#[doc = $field_doc])* $(#[darling(rename = $key)])? pub(crate) $field: $ty, )*
        }

        impl Keys for $name {
            const KEYS: &'static [&'static str] = &[$( keys!(@key $field $($key)?) ),*];
        }
    };
    (@key $field:ident $key:literal) => { $key };
    (@key $field:ident) => { stringify!($field) };
}

/// `#[mcp_resource]` and `#[mcp_prompt]` declare their key lists with it too.
pub(crate) use keys;

/// A key list that darling reads, with the names it accepts.
pub(crate) trait Keys: FromMeta + Default {
    const KEYS: &'static [&'static str];
}

/// A value read at the parse stage, or the error saying why it could not be.
/// darling gives up a whole key list at its first bad value; a bad value kept
/// as its error lets the other keys of the list be read and checked too.
pub(crate) enum Parsed<T> {
    Value(T),
    Invalid(syn::Error),
}

impl<T> Parsed<T> {
    /// The value; an invalid one is reported.
    pub(crate) fn take(self, diag: &mut Diagnostics) -> Option<T> {
        match self {
            Self::Value(value) => Some(value),
            Self::Invalid(err) => {
                diag.error(err);
                None
            }
        }
    }
}

/// How a typed value reads itself from its `key = value` (or bare `key`).
pub(crate) trait ParseValue: Sized {
    fn parse_value(meta: &Meta) -> syn::Result<Self>;
}

impl<T: ParseValue> FromMeta for Parsed<T> {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        Ok(match T::parse_value(item) {
            Ok(value) => Self::Value(value),
            Err(err) => Self::Invalid(err),
        })
    }
}

/// What a wrong value of a key is: the rule it breaks and how to say so.
pub(crate) trait ValueRule {
    const RULE: Rule;
    fn wrong_type(key: &str) -> String;
}

/// A kind of value, declared once: the type that names it, the rule a wrong
/// value breaks, and the message (`key` is the key as written).
macro_rules! value_rule {
    ($name:ident: $rule:expr, |$key:tt| $text:expr) => {
        pub(crate) struct $name;

        impl $crate::parse::attr::ValueRule for $name {
            const RULE: $crate::rules::Rule = $rule;
            fn wrong_type($key: &str) -> String {
                $text
            }
        }
    };
}

pub(crate) use value_rule;

/// `flag`, `flag = true` or `flag = false`, with the span of the key.
pub(crate) struct Bool<R> {
    pub(crate) value: SpannedValue<bool>,
    rule: std::marker::PhantomData<R>,
}

impl<R: ValueRule> ParseValue for Bool<R> {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        let value = match meta {
            Meta::Path(_) => Some(true),
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: Lit::Bool(value), .. }) => Some(value.value),
                _ => None,
            },
            Meta::List(_) => None,
        };
        match value {
            Some(value) => {
                Ok(Self { value: SpannedValue::new(value, meta.path().span()), rule: std::marker::PhantomData })
            }
            None => Err(value_error(R::RULE, meta, R::wrong_type(&path_name(meta.path())))),
        }
    }
}

/// `key = "text"`, with the span of the string.
pub(crate) struct Text<R> {
    pub(crate) value: SpannedValue<String>,
    rule: std::marker::PhantomData<R>,
}

impl<R: ValueRule> ParseValue for Text<R> {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        match meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => {
                    Ok(Self { value: SpannedValue::new(text.value(), text.span()), rule: std::marker::PhantomData })
                }
                _ => Err(value_error(R::RULE, meta, R::wrong_type(&path_name(meta.path())))),
            },
            _ => Err(value_error(R::RULE, meta, R::wrong_type(&path_name(meta.path())))),
        }
    }
}

/// A rule's error at a key's value (the key itself when it has none), spanning
/// the value's first to last token.
pub(crate) fn value_error(rule: Rule, meta: &Meta, text: impl std::fmt::Display) -> syn::Error {
    match meta {
        Meta::NameValue(nv) => syn::Error::new_spanned(&nv.value, message(rule, text)),
        Meta::List(list) => syn::Error::new_spanned(list, message(rule, text)),
        Meta::Path(path) => syn::Error::new_spanned(path, message(rule, text)),
    }
}

pub(crate) fn path_name(path: &Path) -> String {
    path.segments.iter().map(|segment| segment.ident.to_string()).collect::<Vec<_>>().join("::")
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
pub(crate) fn has_unknown_keys<T: Keys>(items: &[NestedMeta]) -> bool {
    items.iter().any(|item| match item {
        NestedMeta::Meta(meta) => !meta.path().get_ident().is_some_and(|key| T::KEYS.iter().any(|known| key == known)),
        _ => false,
    })
}

/// A rule id named in `allow(..)`, with its tokens: an error spans all of them
/// (`name-required` is three tokens, and `Span::join` is `None` on stable).
pub(crate) struct AllowedRule {
    pub(crate) id: String,
    pub(crate) tokens: TokenStream,
}

/// Take `allow(..)` out of an attribute's tokens: the rest, and the rule ids it names.
/// The keys of `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`, typed, and
/// the rules its `allow(..)` names. Rule ids are hyphenated
/// (`error-contract-empty`), which is no Rust path, so `allow(..)` is taken
/// out before darling sees the rest; what darling refuses is reported and the
/// defaults stand in, so the other checks still run.
pub(crate) fn parse_keys<T: Keys + Default>(tokens: TokenStream, diag: &mut Diagnostics) -> (T, Vec<AllowedRule>) {
    let (rest, allow) = split_allow(tokens, diag);
    let args = match NestedMeta::parse_meta_list(rest) {
        Ok(items) => from_items(&items, diag).unwrap_or_default(),
        Err(err) => {
            diag.error(err);
            T::default()
        }
    };
    (args, allow)
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
                message(
                    rules::ATTRIBUTE_SYNTAX,
                    "expected a lint rule id such as `error-contract-empty` in `allow(..)`",
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
        _ => Err(syn::Error::new_spanned(meta, message(rules::ATTRIBUTE_SYNTAX, "expected a list: `key(..)`"))),
    }
}
