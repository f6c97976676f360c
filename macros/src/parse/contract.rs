//! Parse: `errors(..)`, the error contract the three attributes share, entry
//! by entry: each reason with its `code`, `when`, `recovery`, `retryable`,
//! `severity`, `recovery_private` and `raised_by` read into their types.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, Meta, Path};

use super::attr::{
    AllowedRule, Bool, Keys, ParseValue, Parsed, Text, from_items, has_unknown_keys, keys, list_items, value_error,
    value_rule,
};
use crate::diag::{Diagnostics, closest, message};
use crate::rules::{self, JsonRpcErrorCode};

const CODE_NAMES: &[&str] = &JsonRpcErrorCode::NAMES;

keys! {
    /// The keys of one `errors(..)` entry.
    struct EntryArgs {
        code: Option<Parsed<CodeName>>,
        when: Option<Parsed<Text<When>>>,
        recovery: Option<Parsed<Text<Recovery>>>,
        retryable: Option<Parsed<Bool<Retryable>>>,
        severity: Option<Parsed<SeverityName>>,
        recovery_private: Option<Parsed<Bool<RecoveryPrivate>>>,
        raised_by: Option<Parsed<RaisedBy>>,
    }
}

value_rule!(RecoveryPrivate: rules::ATTRIBUTE_SYNTAX, |_| {
    "`recovery_private` is a flag: write `recovery_private` to keep the hint out of the answer".to_owned()
});

/// `severity = notice` (or `"notice"`): the log level of the failure, one of
/// the reference's four below `error`. Anything else is
/// `error-contract-severity-unknown`, at the value.
pub(crate) struct SeverityName(pub(crate) SpannedValue<String>);

impl ParseValue for SeverityName {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        let names = &rules::check::ERROR_SEVERITIES;
        let valid = names.map(|name| format!("`{name}`")).join(", ");
        let written = match meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Path(path) => path.path.get_ident().map(|ident| (ident.to_string(), ident.span())),
                Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => Some((text.value(), text.span())),
                _ => None,
            },
            _ => None,
        };
        let text = match written {
            Some((name, span)) if names.contains(&name.as_str()) => return Ok(Self(SpannedValue::new(name, span))),
            Some((name, _)) if name == "error" => format!(
                "`severity = error` is no severity: a declared failure is a modelled answer and logs at `info` unless its `severity` says one of {valid}; an undeclared failure of the server's side logs at `warn`"
            ),
            Some((name, _)) => {
                let hint = closest(&name, names).map(|name| format!("did you mean `{name}`? ")).unwrap_or_default();
                format!("unknown severity `{name}`: {hint}a failure's severity is one of {valid}")
            }
            None => format!("`severity` takes a log level: `severity = notice`, one of {valid}"),
        };
        Err(value_error(rules::ERROR_CONTRACT_SEVERITY_UNKNOWN, meta, text))
    }
}

/// `raised_by = service`: a reason the handler's own body never names, as
/// a service it calls builds the error (the reference's `thrownBy:
/// 'service'`), so `error-contract-reason-unused` does not expect it in the
/// body. `raised_by = handler` is the default, said out loud.
pub(crate) struct RaisedBy {
    pub(crate) service: bool,
}

impl ParseValue for RaisedBy {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        if let Meta::NameValue(nv) = meta
            && let Expr::Path(path) = &nv.value
            && let Some(ident) = path.path.get_ident()
        {
            if ident == "service" {
                return Ok(Self { service: true });
            }
            if ident == "handler" {
                return Ok(Self { service: false });
            }
        }
        Err(value_error(
            rules::ATTRIBUTE_SYNTAX,
            meta,
            "`raised_by` says who raises the reason: `raised_by = service` for a reason a service the handler calls builds, `raised_by = handler` (the default) for one the handler's body fails with",
        ))
    }
}

value_rule!(Retryable: rules::ERROR_CONTRACT_RETRYABLE_TYPE, |_| {
    "`retryable` is a flag: write `retryable` or `retryable = true` / `retryable = false`".to_owned()
});
value_rule!(When: rules::ERROR_CONTRACT_WHEN_REQUIRED, |_| {
    "`when` is a non-empty string saying when this failure happens".to_owned()
});
value_rule!(Recovery: rules::ERROR_CONTRACT_RECOVERY_REQUIRED, |_| {
    "`recovery` is a string telling the model what to do next".to_owned()
});

/// `code = NotFound` or `code = JsonRpcErrorCode::NotFound`: the variant name,
/// spanned at the author's value. An unknown name is `error-contract-code-unknown`;
/// a number or a string is `error-contract-code-type`, with a message that
/// names what was written and the fix.
pub(crate) struct CodeName(pub(crate) Ident);

impl ParseValue for CodeName {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        let valid = CODE_NAMES.join(", ");
        let rule = rules::ERROR_CONTRACT_CODE_UNKNOWN;
        let Meta::NameValue(nv) = meta else {
            return Err(value_error(
                rule,
                meta,
                format!("`code` takes the name of a JSON-RPC error code: `code = NotFound`; valid codes are {valid}"),
            ));
        };
        let mut rule = rule;
        let text = match &nv.value {
            Expr::Path(path) if path.qself.is_none() && !path.path.segments.is_empty() => {
                let last = path.path.segments.last().map(|segment| segment.ident.clone()).expect("not empty");
                if CODE_NAMES.iter().any(|name| last == name) {
                    return Ok(Self(last));
                }
                let hint = closest(&last.to_string(), CODE_NAMES)
                    .map(|name| format!("did you mean `{name}`? "))
                    .unwrap_or_default();
                format!("unknown error code `{last}`: {hint}valid codes are {valid}")
            }
            Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => {
                rule = rules::ERROR_CONTRACT_CODE_TYPE;
                let written = text.value();
                match CODE_NAMES.iter().copied().find(|name| *name == written).or_else(|| closest(&written, CODE_NAMES))
                {
                    Some(name) => format!(
                        "`code = \"{written}\"` is a string: write the code's name without quotes: `code = {name}`"
                    ),
                    None => format!(
                        "`code = \"{written}\"` is a string, and no error code has this name: write a code's name without quotes, one of {valid}"
                    ),
                }
            }
            number @ (Expr::Lit(_) | Expr::Unary(_)) => {
                rule = rules::ERROR_CONTRACT_CODE_TYPE;
                let written = quote::ToTokens::to_token_stream(number).to_string().replace(' ', "");
                match written.parse::<i64>().ok().and_then(JsonRpcErrorCode::from_number).map(JsonRpcErrorCode::name) {
                    Some(name) => {
                        format!(
                            "`code = {written}` is a number: write the JSON-RPC error code's name, here `code = {name}`"
                        )
                    }
                    None => {
                        format!("`code = {written}` is a number: write the JSON-RPC error code's name, one of {valid}")
                    }
                }
            }
            _ => format!(
                "`code` takes the name of a JSON-RPC error code, such as `code = NotFound`; valid codes are {valid}"
            ),
        };
        Err(syn::Error::new_spanned(&nv.value, message(rule, text)))
    }
}

/// `errors(..)`, entry by entry.
pub(crate) struct RawContract {
    /// The `errors` key, where an empty contract is reported.
    pub(crate) key: Span,
    pub(crate) entries: Vec<RawEntry>,
    /// `errors` was no list (`error-contract-type`, reported): an empty
    /// contract is then no second finding.
    pub(crate) malformed: bool,
}

/// One `reason(code = .., when = .., recovery = .., retryable)`.
pub(crate) struct RawEntry {
    pub(crate) reason: Ident,
    pub(crate) args: EntryArgs,
    /// The entry names a key it does not have (reported with a "did you mean"):
    /// a key it meant is then not also reported missing.
    pub(crate) misspelled: bool,
}

/// `errors(reason(..), ..)`: each entry's reason and keys.
pub(crate) fn contract(meta: &Meta, diag: &mut Diagnostics) -> RawContract {
    let key = meta.path().span();
    let Ok(items) = list_items(meta) else {
        diag.error(syn::Error::new_spanned(
            meta,
            message(
                rules::ERROR_CONTRACT_TYPE,
                "`errors` is a list of failure modes: `errors(not_found(code = NotFound, when = \"..\", recovery = \"..\"))`",
            ),
        ));
        return RawContract { key, entries: Vec::new(), malformed: true };
    };
    let mut entries = Vec::new();
    for item in &items {
        let NestedMeta::Meta(meta) = item else {
            diag.error(syn::Error::new_spanned(
                item,
                message(
                    rules::ERROR_CONTRACT_ENTRY_TYPE,
                    "expected a failure mode: `reason_name(code = .., when = .., recovery = ..)`",
                ),
            ));
            continue;
        };
        let Some(reason) = meta.path().get_ident().cloned() else {
            diag.error(syn::Error::new_spanned(
                meta.path(),
                message(rules::ATTRIBUTE_SYNTAX, "a reason is a single snake_case name, such as `not_in_collection`"),
            ));
            continue;
        };
        let (args, misspelled) = match meta {
            Meta::List(_) => match list_items(meta) {
                Ok(items) => (from_items(&items, diag).unwrap_or_default(), has_unknown_keys::<EntryArgs>(&items)),
                Err(err) => {
                    diag.error(err);
                    (EntryArgs::default(), false)
                }
            },
            Meta::NameValue(value) => {
                diag.error(syn::Error::new_spanned(
                    value,
                    message(
                        rules::ERROR_CONTRACT_ENTRY_TYPE,
                        format_args!(
                            "a failure mode is a list of keys, not a value: `{reason}(code = .., when = .., recovery = ..)`"
                        ),
                    ),
                ));
                continue;
            }
            // `reason` alone: every key is missing, and reported so.
            Meta::Path(_) => (EntryArgs::default(), false),
        };
        entries.push(RawEntry { reason, args, misspelled });
    }
    RawContract { key, entries, malformed: false }
}

/// The contract keys of a resource or prompt as written (a tool's are read
/// with its other keys, in `tool`). `errors(..)` is read when the contract is
/// judged, so its diagnostics come after those of the keys judged before it.
pub(crate) struct ContractKeys {
    pub(crate) errors: Option<Meta>,
    pub(crate) reason_type: Option<Ident>,
    pub(crate) krate: Option<Path>,
    pub(crate) allow: Vec<AllowedRule>,
}

impl ContractKeys {
    /// `errors(..)`, `reason_type = ..`, `crate = ..` and the rules of `allow(..)`.
    pub(crate) fn new(
        errors: Option<Meta>,
        reason_type: Option<Ident>,
        krate: Option<Path>,
        allow: Vec<AllowedRule>,
    ) -> Self {
        Self { errors, reason_type, krate, allow }
    }
}
