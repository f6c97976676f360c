//! Diagnostics: every problem of one attribute is collected, then reported in
//! one build — errors as `compile_error!` at the offending token, warnings as
//! real rustc warnings at the offending token.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::rules::{Rule, Severity};

/// A warning of a rule, waiting to be emitted: the body rules' findings and
/// the attribute's warnings alike.
pub(crate) struct Warning {
    pub(crate) rule: Rule,
    /// The offending token.
    pub(crate) span: Span,
    /// Lowercase, without a trailing period, ending with the rule's link.
    pub(crate) message: String,
}

impl Warning {
    pub(crate) fn new(rule: Rule, span: Span, text: impl std::fmt::Display) -> Self {
        debug_assert_eq!(rule.severity, Severity::Warning, "{rule} is not a warning rule");
        Self { rule, span, message: message(rule, text) }
    }
}

#[derive(Default)]
pub(crate) struct Diagnostics {
    errors: Vec<syn::Error>,
    warnings: Vec<Warning>,
}

/// The message of a rule: what is wrong and the fix, then where it is documented.
pub(crate) fn message(rule: Rule, text: impl std::fmt::Display) -> String {
    format!("{text}; see {}", rule.url())
}

impl Diagnostics {
    /// An error of a lint rule at `span`.
    pub(crate) fn rule_error(&mut self, rule: Rule, span: Span, text: impl std::fmt::Display) {
        debug_assert_eq!(rule.severity, Severity::Error, "{rule} is not an error rule");
        self.errors.push(syn::Error::new(span, message(rule, text)));
    }

    /// A warning of a lint rule at `span`.
    pub(crate) fn rule_warning(&mut self, rule: Rule, span: Span, text: impl std::fmt::Display) {
        self.warnings.push(Warning::new(rule, span, text));
    }

    /// A warning built elsewhere (the body rules).
    pub(crate) fn warning(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }

    /// Whether an error was reported.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// A grammar error, worded by syn.
    pub(crate) fn error(&mut self, err: syn::Error) {
        self.errors.push(err);
    }

    /// The id of every rule reported so far, errors and warnings, in order: what a
    /// test compares with the definition linter's verdict.
    #[cfg(test)]
    pub(crate) fn rule_ids(&self) -> Vec<&'static str> {
        let errors = self.errors.iter().filter_map(|err| {
            let text = err.to_string();
            crate::rules::ALL.iter().find(|rule| text.ends_with(&rule.url())).map(|rule| rule.id)
        });
        errors.chain(self.warnings.iter().map(|warning| warning.rule.id)).collect()
    }

    /// Keep darling's errors (they list the valid keys) and go on with what parsed.
    pub(crate) fn darling<T>(&mut self, result: darling::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(err) => {
                // darling's words (the valid keys, the closest one) with the link.
                self.errors.extend(
                    err.flatten()
                        .into_iter()
                        .map(|err| syn::Error::new(err.span(), message(crate::rules::ATTRIBUTE_SYNTAX, err))),
                );
                None
            }
        }
    }

    /// Drop the warnings of rules the tool allows.
    pub(crate) fn retain_warnings(&mut self, keep: impl Fn(&Warning) -> bool) {
        self.warnings.retain(keep);
    }

    /// The tokens that report everything: one `compile_error!` per error, and one
    /// use of a deprecated constant per warning. `allow_deprecated` forwards the
    /// handler's own `#[allow(deprecated)]` to the warnings.
    pub(crate) fn into_tokens(self, allow_deprecated: bool) -> TokenStream {
        let errors = self.errors.iter().map(syn::Error::to_compile_error);
        let warnings = if allow_deprecated { Vec::new() } else { self.warnings };
        let warnings = warnings.iter().map(warning_tokens);
        quote! { #(#errors)* #(#warnings)* }
    }
}

/// A real rustc warning on stable: the use of a `#[deprecated]` constant, with the
/// use spanned at the user's token so the warning points there.
fn warning_tokens(warning: &Warning) -> TokenStream {
    let name = warning.rule.id.replace('-', "_");
    let note = &warning.message;
    // The use carries the user's span (interpolated idents keep their own span,
    // so it is set on the ident itself): rustc reports the warning there.
    let used = Ident::new(&name, warning.span);
    let name = Ident::new(&name, Span::call_site());
    quote! {
        const _: () = {
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const #name: () = ();
            #used
        };
    }
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
mod closest_tests {
    use super::closest;
    use crate::rules::JsonRpcErrorCode;

    #[test]
    fn suggests_close_code_names() {
        assert_eq!(closest("NotFund", &JsonRpcErrorCode::NAMES), Some("NotFound"));
        assert_eq!(closest("ratelimited", &JsonRpcErrorCode::NAMES), Some("RateLimited"));
        assert_eq!(closest("Banana", &JsonRpcErrorCode::NAMES), None);
    }
}
