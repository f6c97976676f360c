//! Validate: judge the raw attribute against the lint rules and build the model
//! that `expand.rs` generates from. Every problem is reported; where a value is
//! bad, a stand-in keeps the model whole so the expansion adds no second error.

use darling::ast::NestedMeta;
use proc_macro2::{Ident, Span};
use quote::format_ident;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, Meta, Path};

use crate::ast::Handler;
use crate::attr::{self, AnnotationArgs, EntryArgs, RawAttr};
use crate::codes::{CODE_NAMES, code_for_number};
use crate::diag::Diagnostics;
use crate::lint::body::{self, BodyFacts};
use crate::rules::{self, Rule, Severity};

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
    pub(crate) format: Option<Path>,
    /// `None` without `errors(..)`: the tool has no contract and no `fail`.
    pub(crate) contract: Option<Vec<Entry>>,
}

#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) title: Option<String>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

/// One failure mode of the contract.
pub(crate) struct Entry {
    /// The reason as written, which is also the binding the body uses.
    pub(crate) reason: Ident,
    /// Its PascalCase variant.
    pub(crate) variant: Ident,
    /// A `JsonRpcErrorCode` variant name, spanned at the user's `code = ..` value.
    pub(crate) code: Ident,
    pub(crate) when: String,
    pub(crate) recovery: String,
    pub(crate) retryable: bool,
}

pub(crate) fn validate(raw: RawAttr, handler: &Handler, diag: &mut Diagnostics) -> Tool {
    let args = raw.args;
    let fn_ident = &handler.item.sig.ident;

    let name = match &args.name {
        Some(name) => check_name(name.value(), name.span(), diag),
        None => check_name(fn_ident.unraw().to_string(), fn_ident.span(), diag),
    };

    let description = args.description.as_ref().map(LitStr::value).or_else(|| handler.doc.clone());
    if description.as_deref().is_none_or(|text| text.trim().is_empty()) {
        diag.rule_warning(rules::DESCRIPTION_REQUIRED,
            fn_ident.span(),
            format_args!("tool `{name}` has no description: add a `///` doc comment or `description = \"..\"` saying what it does and when to use it"),
        );
    }

    let annotations = args.annotations.as_ref().map(|meta| annotations(meta, diag)).unwrap_or_default();
    let auth = args.auth.as_ref().map(|meta| auth_scopes(meta, diag)).unwrap_or_default();
    let contract = args.errors.as_ref().map(|meta| contract(meta, diag));

    for allowed in &raw.allow {
        let text = match Rule::find(&allowed.id) {
            Some(rule) if rule.severity == Severity::Warning => continue,
            Some(rule) => format!(
                "`{rule}` is an error rule and cannot be allowed; fix the attribute instead; see {}",
                rule.url()
            ),
            None => format!(
                "unknown lint rule `{}`; the rules that `allow(..)` accepts are: {}; see {}",
                allowed.id,
                rules::warning_ids().join(", "),
                rules::DOCS_URL
            ),
        };
        diag.error(syn::Error::new_spanned(&allowed.tokens, text));
    }

    let declared: Vec<(String, String)> =
        contract.iter().flatten().map(|entry| (entry.reason.unraw().to_string(), entry.code.to_string())).collect();
    for warning in body::check_body(&handler.item.block, &BodyFacts { declared: &declared }) {
        diag.warning(warning);
    }

    let pascal = to_pascal_case(&fn_ident.unraw().to_string());
    let tool_type = args.tool_type.clone().unwrap_or_else(|| format_ident!("{pascal}", span = fn_ident.span()));
    let reason_type =
        args.reason_type.clone().unwrap_or_else(|| format_ident!("{tool_type}Reason", span = fn_ident.span()));
    if tool_type == reason_type {
        diag.error(syn::Error::new(
            reason_type.span(),
            format_args!(
                "`tool_type` and `reason_type` are both `{tool_type}`: give the two generated types different names"
            ),
        ));
    }
    let krate = args.krate.clone().unwrap_or_else(|| syn::parse_quote!(::mcp_contract));

    Tool {
        name,
        tool_type,
        reason_type,
        krate,
        title: args.title.as_ref().map(LitStr::value),
        description,
        annotations,
        auth,
        format: args.format,
        contract,
    }
}

/// `name-required`, `name-format`.
fn check_name(name: String, span: Span, diag: &mut Diagnostics) -> String {
    if name.is_empty() {
        diag.rule_error(rules::NAME_REQUIRED, span, "the tool name is empty: give it a name such as `get_object`");
    } else if name.len() > 128 || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)) {
        diag.rule_error(
            rules::NAME_FORMAT,
            span,
            format_args!("tool name `{name}` must be 1 to 128 characters of `A-Z a-z 0-9 _ - .`"),
        );
    }
    name
}

/// `annotations(read_only, destructive = false, title = "..")`: `annotation-type`, `annotation-coherence`.
fn annotations(meta: &Meta, diag: &mut Diagnostics) -> Annotations {
    let Some(args) = list_args::<AnnotationArgs>(meta, diag) else { return Annotations::default() };
    let flag = |meta: &Option<Meta>, diag: &mut Diagnostics| {
        meta.as_ref().and_then(|meta| {
            bool_flag(meta).or_else(|| {
                diag.rule_error(
                    rules::ANNOTATION_TYPE,
                    value_span(meta),
                    format_args!(
                        "annotation `{}` is a flag: write `{0}` or `{0} = true` / `{0} = false`",
                        path_name(meta.path())
                    ),
                );
                None
            })
        })
    };
    let read_only = flag(&args.read_only, diag);
    let destructive = flag(&args.destructive, diag);
    let idempotent = flag(&args.idempotent, diag);
    let open_world = flag(&args.open_world, diag);
    let title = args.title.as_ref().and_then(|meta| {
        string_value(meta).or_else(|| {
            diag.rule_error(
                rules::ANNOTATION_TYPE,
                value_span(meta),
                "annotation `title` is a string: `title = \"..\"`",
            );
            None
        })
    });

    if read_only == Some(true)
        && let Some(destructive_meta) = &args.destructive
    {
        diag.rule_warning(rules::ANNOTATION_COHERENCE,
            destructive_meta.span(),
            "a `read_only` tool makes no changes, so `destructive` means nothing here: remove `destructive` or `read_only`",
        );
    }

    Annotations { title, read_only, destructive, idempotent, open_world }
}

/// `auth("scope:a", "scope:b")`: `auth-type`, `auth-scope-format`.
fn auth_scopes(meta: &Meta, diag: &mut Diagnostics) -> Vec<String> {
    let type_error = |span: Span, diag: &mut Diagnostics| {
        diag.rule_error(
            rules::AUTH_TYPE,
            span,
            "`auth` is a list of scope strings: `auth(\"objects:read\", \"objects:write\")`",
        );
    };
    let Meta::List(_) = meta else {
        type_error(value_span(meta), diag);
        return Vec::new();
    };
    let items = match attr::list_items(meta) {
        Ok(items) => items,
        Err(err) => {
            diag.error(err);
            return Vec::new();
        }
    };
    let mut scopes = Vec::new();
    for item in items {
        match &item {
            NestedMeta::Lit(Lit::Str(scope)) => {
                let value = scope.value();
                if value.trim().is_empty() || value.chars().any(char::is_whitespace) {
                    diag.rule_error(
                        rules::AUTH_SCOPE_FORMAT,
                        scope.span(),
                        "a scope is a non-empty string without spaces, such as `\"objects:read\"`",
                    );
                } else {
                    scopes.push(value);
                }
            }
            _ => type_error(item.span(), diag),
        }
    }
    scopes
}

/// `errors(reason(code = .., when = .., recovery = .., retryable))`: the
/// `error-contract-*` rules.
fn contract(meta: &Meta, diag: &mut Diagnostics) -> Vec<Entry> {
    let items = match attr::list_items(meta) {
        Ok(items) => items,
        Err(_) => {
            diag.error(syn::Error::new_spanned(
                meta,
                "`errors` is a list of failure modes: `errors(not_found(code = NotFound, when = \"..\", recovery = \"..\"))`",
            ));
            return Vec::new();
        }
    };
    if items.is_empty() {
        diag.rule_warning(rules::ERROR_CONTRACT_EMPTY,
            meta.path().span(),
            "the error contract declares no failure mode: add one `reason(code = .., when = .., recovery = ..)` per way the tool can fail, or remove `errors()`",
        );
    }

    let mut entries: Vec<Entry> = Vec::new();
    for item in &items {
        let NestedMeta::Meta(meta) = item else {
            diag.error(syn::Error::new_spanned(
                item,
                "expected a failure mode: `reason_name(code = .., when = .., recovery = ..)`",
            ));
            continue;
        };
        let Some(reason) = meta.path().get_ident().cloned() else {
            diag.error(syn::Error::new_spanned(
                meta.path(),
                "a reason is a single snake_case name, such as `not_in_collection`",
            ));
            continue;
        };
        let reason_text = reason.unraw().to_string();
        if !is_snake_case(&reason_text) {
            diag.rule_warning(
                rules::ERROR_CONTRACT_REASON_FORMAT,
                reason.span(),
                format_args!("reason `{reason_text}` is not snake_case: write `{}`", to_snake_case(&reason_text)),
            );
        }
        let duplicate = entries.iter().any(|entry| entry.reason == reason);
        let entry = entry(reason, meta, diag);
        if duplicate {
            diag.rule_error(
                rules::ERROR_CONTRACT_REASON_UNIQUE,
                entry.reason.span(),
                format_args!("reason `{}` is declared twice: give each failure mode its own reason", entry.reason),
            );
            // Left out of the model: a second variant of the same name would be a second error.
            continue;
        }
        entries.push(entry);
    }
    entries
}

fn entry(reason: Ident, meta: &Meta, diag: &mut Diagnostics) -> Entry {
    let variant = format_ident!("{}", to_pascal_case(&reason.unraw().to_string()), span = reason.span());
    let args = match meta {
        Meta::List(_) => list_args::<EntryArgs>(meta, diag),
        _ => None,
    };
    let EntryArgs { code, when, recovery, retryable } = args.unwrap_or_default();
    let misspelled = attr::has_unknown_keys::<EntryArgs>(meta);

    let code = match &code {
        Some(meta) => code_name(meta, diag),
        None if misspelled => None,
        None => {
            diag.rule_error(
                rules::ERROR_CONTRACT_CODE_UNKNOWN,
                reason.span(),
                format_args!("reason `{reason}` has no `code = ..`: choose one of {}", CODE_NAMES.join(", ")),
            );
            None
        }
    }
    .unwrap_or_else(|| Ident::new("InternalError", reason.span()));
    if code == "UnknownError" {
        diag.rule_warning(rules::ERROR_CONTRACT_CODE_UNKNOWN_ERROR,
            code.span(),
            "`UnknownError` tells the model nothing: choose the code that says what went wrong, such as `NotFound` or `ServiceUnavailable`",
        );
    }

    let when = match when.as_ref().map(|meta| (meta, string_value(meta))) {
        Some((_, Some(text))) if !text.trim().is_empty() => text,
        Some((meta, _)) => {
            diag.rule_error(
                rules::ERROR_CONTRACT_WHEN_REQUIRED,
                value_span(meta),
                "`when` is a non-empty string saying when this failure happens",
            );
            String::new()
        }
        None if misspelled => String::new(),
        None => {
            diag.rule_error(
                rules::ERROR_CONTRACT_WHEN_REQUIRED,
                reason.span(),
                format_args!("reason `{reason}` has no `when = \"..\"`: say when this failure happens"),
            );
            String::new()
        }
    };

    let recovery = match recovery.as_ref().map(|meta| (meta, string_value(meta))) {
        Some((meta, Some(text))) => {
            let words = text.split_whitespace().count();
            if words == 0 {
                diag.rule_error(
                    rules::ERROR_CONTRACT_RECOVERY_EMPTY,
                    value_span(meta),
                    "`recovery` is empty: tell the model what to do next, in a full sentence",
                );
            } else if words < 5 {
                diag.rule_warning(rules::ERROR_CONTRACT_RECOVERY_MIN_WORDS,
                    value_span(meta),
                    format_args!("`recovery` has {words} word(s): a useful hint names the next step in at least 5 words, e.g. \"Search with search_objects to find valid IDs.\""),
                );
            }
            text
        }
        Some((meta, None)) => {
            diag.rule_error(
                rules::ERROR_CONTRACT_RECOVERY_REQUIRED,
                value_span(meta),
                "`recovery` is a string telling the model what to do next",
            );
            String::new()
        }
        None if misspelled => String::new(),
        None => {
            diag.rule_error(
                rules::ERROR_CONTRACT_RECOVERY_REQUIRED,
                reason.span(),
                format_args!("reason `{reason}` has no `recovery = \"..\"`: tell the model what to do next"),
            );
            String::new()
        }
    };

    let retryable = retryable.as_ref().is_some_and(|meta| {
        bool_flag(meta).unwrap_or_else(|| {
            diag.rule_error(
                rules::ERROR_CONTRACT_RETRYABLE_TYPE,
                value_span(meta),
                "`retryable` is a flag: write `retryable` or `retryable = true` / `retryable = false`",
            );
            false
        })
    });

    Entry { reason, variant, code, when, recovery, retryable }
}

/// `code = NotFound` or `code = JsonRpcErrorCode::NotFound`: `error-contract-code-unknown`.
/// A number or a string gets a message that names what was written and the fix.
fn code_name(meta: &Meta, diag: &mut Diagnostics) -> Option<Ident> {
    let valid = CODE_NAMES.join(", ");
    let Meta::NameValue(nv) = meta else {
        diag.rule_error(
            rules::ERROR_CONTRACT_CODE_UNKNOWN,
            value_span(meta),
            format_args!("`code` takes the name of a JSON-RPC error code: `code = NotFound`; valid codes are {valid}"),
        );
        return None;
    };
    let text = match &nv.value {
        Expr::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last().map(|segment| segment.ident.clone())?;
            if CODE_NAMES.iter().any(|name| last == name) {
                return Some(last);
            }
            let hint = closest(&last.to_string(), CODE_NAMES)
                .map(|name| format!("did you mean `{name}`? "))
                .unwrap_or_default();
            format!("unknown error code `{last}`: {hint}valid codes are {valid}")
        }
        Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => {
            let written = text.value();
            match CODE_NAMES.iter().copied().find(|name| *name == written).or_else(|| closest(&written, CODE_NAMES)) {
                Some(name) => {
                    format!("`code = \"{written}\"` is a string: write the code's name without quotes: `code = {name}`")
                }
                None => format!(
                    "`code = \"{written}\"` is a string, and no error code has this name: write a code's name without quotes, one of {valid}"
                ),
            }
        }
        number @ (Expr::Lit(_) | Expr::Unary(_)) => {
            let written = quote::ToTokens::to_token_stream(number).to_string().replace(' ', "");
            let suggestion = written.parse::<i64>().ok().and_then(code_for_number);
            match suggestion {
                Some(name) => format!(
                    "`code = {written}` is a number: write the JSON-RPC error code's name, here `code = {name}`"
                ),
                None => format!("`code = {written}` is a number: write the JSON-RPC error code's name, one of {valid}"),
            }
        }
        _ => format!(
            "`code` takes the name of a JSON-RPC error code, such as `code = NotFound`; valid codes are {valid}"
        ),
    };
    diag.rule_error_spanned(rules::ERROR_CONTRACT_CODE_UNKNOWN, &nv.value, text);
    None
}

fn list_args<T: attr::Keys>(meta: &Meta, diag: &mut Diagnostics) -> Option<T> {
    match attr::list_items(meta) {
        Ok(items) => attr::from_items(&items, diag),
        Err(err) => {
            diag.error(err);
            None
        }
    }
}

/// `flag` -> true, `flag = true|false` -> the bool, anything else -> `None`.
fn bool_flag(meta: &Meta) -> Option<bool> {
    match meta {
        Meta::Path(_) => Some(true),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Bool(value) => Some(value.value),
                _ => None,
            },
            _ => None,
        },
        Meta::List(_) => None,
    }
}

fn string_value(meta: &Meta) -> Option<String> {
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(text) => Some(text.value()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The span of a key's value, or of the key when it has none.
fn value_span(meta: &Meta) -> Span {
    match meta {
        Meta::NameValue(nv) => nv.value.span(),
        Meta::List(list) => list.span(),
        Meta::Path(path) => path.span(),
    }
}

fn path_name(path: &Path) -> String {
    path.segments.iter().map(|segment| segment.ident.to_string()).collect::<Vec<_>>().join("::")
}

pub(crate) fn is_snake_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_lowercase())
        && name.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
        && !name.contains("__")
        && !name.ends_with('_')
}

pub(crate) fn to_snake_case(name: &str) -> String {
    let mut snake = String::new();
    for (index, ch) in name.chars().enumerate() {
        if ch.is_uppercase() {
            if index > 0 && !snake.ends_with('_') {
                snake.push('_');
            }
            snake.extend(ch.to_lowercase());
        } else if ch == '-' || ch == ' ' {
            snake.push('_');
        } else {
            snake.push(ch);
        }
    }
    snake.trim_matches('_').to_owned()
}

pub(crate) fn to_pascal_case(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|first| first.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// The closest of `names` to `written`, if it is a plausible typo.
pub(crate) fn closest<'a>(written: &str, names: &[&'a str]) -> Option<&'a str> {
    let written = written.to_ascii_lowercase();
    names
        .iter()
        .map(|name| (levenshtein(&written, &name.to_ascii_lowercase()), *name))
        .filter(|(distance, name)| *distance <= name.len() / 3 + 1)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert!(is_snake_case("not_in_collection") && is_snake_case("rate_limited2"));
        assert!(
            !is_snake_case("NotFound") && !is_snake_case("not__found") && !is_snake_case("_x") && !is_snake_case("x_")
        );
        assert_eq!(to_snake_case("NotInCollection"), "not_in_collection");
        assert_eq!(to_pascal_case("not_in_collection"), "NotInCollection");
        assert_eq!(to_pascal_case("NotFound"), "NotFound");
    }

    #[test]
    fn suggests_close_code_names() {
        assert_eq!(closest("NotFund", CODE_NAMES), Some("NotFound"));
        assert_eq!(closest("ratelimited", CODE_NAMES), Some("RateLimited"));
        assert_eq!(closest("Banana", CODE_NAMES), None);
    }
}
