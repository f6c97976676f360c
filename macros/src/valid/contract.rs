//! Validate: the error contract the three attributes share, `errors(..)` as
//! `parse::contract` read it judged by the `error-contract-*` rules into its
//! entries, `allow(..)`, which names warning rules only, and the body rules
//! run against the declared reasons ([`check`]); for a resource or a prompt
//! also its elicitation forms and the name of its reason enum ([`check_keys`]).

use proc_macro2::Ident;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::{Block, ItemFn, Path};

use super::body::{self, BodyFacts};
use crate::diag::Diagnostics;
use crate::kind::Kind;
use crate::names::{to_pascal_case, to_snake_case};
use crate::parse::attr::AllowedRule;
use crate::parse::contract::{ContractKeys, EntryArgs, RawContract, RawEntry, contract};
use crate::rules::{self, Severity};

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
    /// `severity = ..`: `debug`, `info`, `notice` or `warning`.
    pub(crate) severity: Option<String>,
    pub(crate) recovery_private: bool,
    /// `raised_by = service`: a service raises it, not the handler's body.
    pub(crate) raised_by_service: bool,
}

/// The contract of any of the three attributes: `errors(..)` judged into its
/// entries (`None` without it), `allow(..)` checked, and the body rules run
/// against the declared reasons.
pub(crate) fn check(
    raw: Option<RawContract>,
    allow: &[AllowedRule],
    block: &Block,
    diag: &mut Diagnostics,
) -> Option<Vec<Entry>> {
    let entries = raw.map(|raw| check_contract(raw, diag));
    check_allowed(allow, diag);
    let declared: Vec<(String, String)> =
        entries.iter().flatten().map(|entry| (entry.reason.unraw().to_string(), entry.code.to_string())).collect();
    for warning in body::check_body(block, &BodyFacts { declared: &declared }) {
        diag.warning(warning);
    }
    entries
}

/// The contract of a resource or prompt, judged; its handler is not rewritten yet.
pub(crate) struct Judged {
    /// `None` without `errors(..)`.
    pub(crate) entries: Option<Vec<Entry>>,
    /// The generated reason enum: `reason_type = ..`, or the generated type + `Reason`.
    pub(crate) reason_type: Ident,
    pub(crate) krate: Option<Path>,
    /// The rule ids of `allow(..)`.
    pub(crate) allowed: Vec<String>,
}

/// The contract keys of a resource or prompt judged as a tool's are
/// ([`check`]) and the name
/// of its reason enum, which must not be that of `type_ident`, the generated
/// resource or prompt type.
pub(crate) fn check_keys(
    keys: ContractKeys,
    kind: Kind,
    item: &ItemFn,
    type_ident: &Ident,
    diag: &mut Diagnostics,
) -> Judged {
    let ContractKeys { errors, reason_type, krate, allow } = keys;
    let raw = errors.as_ref().map(|meta| contract(meta, diag));
    let entries = check(raw, &allow, &item.block, diag);

    let reason_type = reason_type.unwrap_or_else(|| format_ident!("{type_ident}Reason", span = item.sig.ident.span()));
    if reason_type == *type_ident {
        diag.rule_error(
            rules::ATTRIBUTE_SYNTAX,
            reason_type.span(),
            format_args!(
                "`reason_type = {reason_type}` is the name of the generated {} type: give the reason enum another name",
                kind.noun()
            ),
        );
    }
    Judged { entries, reason_type, krate, allowed: allow.into_iter().map(|rule| rule.id).collect() }
}

/// `allow(..)` names warning rules only: an error rule is a mistake to fix, and
/// an unknown id is likely a typo. The definition of a tool, resource or
/// prompt carries the rules it allows, so the definition linter honours them.
fn check_allowed(allow: &[AllowedRule], diag: &mut Diagnostics) {
    for allowed in allow {
        let text = match rules::find(&allowed.id) {
            Some(rule) if rule.severity == Severity::Warning => continue,
            // The one error rule with a key that moves it: the macro compares
            // Rust field names, and cannot see serde's renames.
            Some(rule) if rule == rules::TEMPLATE_PARAMS_ALIGN => format!(
                "`{rule}` is an error rule and cannot be allowed; when the params struct renames its fields with `#[serde(rename ..)]`, write `params_renamed` instead, which moves the check to `Server::build`; see {}",
                rule.url()
            ),
            Some(rule) => format!(
                "`{rule}` is an error rule and cannot be allowed; fix the attribute instead; see {}",
                rule.url()
            ),
            None => crate::diag::message(
                rules::ATTRIBUTE_SYNTAX,
                format_args!(
                    "unknown lint rule `{}`; the rules that `allow(..)` accepts are: {}",
                    allowed.id,
                    rules::warning_ids().join(", "),
                ),
            ),
        };
        diag.error(syn::Error::new_spanned(&allowed.tokens, text));
    }
}

/// `errors(reason(code = .., when = .., recovery = .., retryable))`: the
/// `error-contract-*` rules over what `parse::contract` read.
fn check_contract(raw: RawContract, diag: &mut Diagnostics) -> Vec<Entry> {
    if raw.entries.is_empty() && !raw.malformed {
        diag.rule_warning(
            rules::ERROR_CONTRACT_EMPTY,
            raw.key,
            "the error contract declares no failure mode: add one `reason(code = .., when = .., recovery = ..)` per way the handler can fail, or remove `errors()`",
        );
    }

    let mut entries: Vec<Entry> = Vec::new();
    for raw_entry in raw.entries {
        let reason = raw_entry.reason.clone();
        let reason_text = reason.unraw().to_string();
        if !rules::check::is_snake_case(&reason_text) {
            diag.rule_warning(
                rules::ERROR_CONTRACT_REASON_FORMAT,
                reason.span(),
                format_args!("reason `{reason_text}` is not snake_case: write `{}`", to_snake_case(&reason_text)),
            );
        }
        let duplicate = entries.iter().any(|entry| entry.reason == reason);
        let entry = check_entry(raw_entry, diag);
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

fn check_entry(raw: RawEntry, diag: &mut Diagnostics) -> Entry {
    let RawEntry { reason, args, misspelled } = raw;
    let variant = format_ident!("{}", to_pascal_case(&reason.unraw().to_string()), span = reason.span());
    let EntryArgs { code, when, recovery, retryable, severity, recovery_private, raised_by } = args;

    let code = match code {
        Some(parsed) => parsed.take(diag).map(|code| code.0),
        None if misspelled => None,
        None => {
            diag.rule_error(
                rules::ERROR_CONTRACT_CODE_UNKNOWN,
                reason.span(),
                format_args!(
                    "reason `{reason}` has no `code = ..`: choose one of {}",
                    rules::JsonRpcErrorCode::NAMES.join(", ")
                ),
            );
            None
        }
    }
    .unwrap_or_else(|| Ident::new("InternalError", reason.span()));
    if code == "UnknownError" {
        diag.rule_warning(
            rules::ERROR_CONTRACT_CODE_UNKNOWN_ERROR,
            code.span(),
            "`UnknownError` tells the model nothing: choose the code that says what went wrong, such as `NotFound` or `ServiceUnavailable`",
        );
    }

    let when = match when.map(|parsed| parsed.take(diag)) {
        Some(Some(text)) if !text.value.trim().is_empty() => text.value.into_inner(),
        Some(Some(text)) => {
            diag.rule_error(
                rules::ERROR_CONTRACT_WHEN_REQUIRED,
                text.value.span(),
                "`when` is a non-empty string saying when this failure happens",
            );
            String::new()
        }
        Some(None) => String::new(),
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

    let recovery = match recovery.map(|parsed| parsed.take(diag)) {
        Some(Some(text)) => {
            let words = rules::check::recovery_words(&text.value);
            if words == 0 {
                diag.rule_error(
                    rules::ERROR_CONTRACT_RECOVERY_EMPTY,
                    text.value.span(),
                    "`recovery` is empty: tell the model what to do next, in a full sentence",
                );
            } else if words < rules::check::MIN_RECOVERY_WORDS {
                diag.rule_warning(
                    rules::ERROR_CONTRACT_RECOVERY_MIN_WORDS,
                    text.value.span(),
                    format_args!("`recovery` has {words} word(s): a useful hint names the next step in at least {} words, e.g. \"Search with search_objects to find valid IDs.\"", rules::check::MIN_RECOVERY_WORDS),
                );
            }
            text.value.into_inner()
        }
        Some(None) => String::new(),
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

    let retryable = retryable.and_then(|parsed| parsed.take(diag)).is_some_and(|flag| flag.value.into_inner());
    let severity = severity.and_then(|parsed| parsed.take(diag)).map(|name| name.0.into_inner());
    let recovery_private =
        recovery_private.and_then(|parsed| parsed.take(diag)).is_some_and(|flag| flag.value.into_inner());
    let raised_by_service = raised_by.and_then(|parsed| parsed.take(diag)).is_some_and(|raised| raised.service);

    Entry { reason, variant, code, when, recovery, retryable, severity, recovery_private, raised_by_service }
}
