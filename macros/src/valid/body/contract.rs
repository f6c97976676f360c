//! The contract rules over error constructions: `error-contract-conformance`,
//! `error-contract-prefer-fail`, and `prefer-error-factory`.

use crate::diag::Warning;
use crate::rules::JsonRpcErrorCode;
use crate::rules::{ERROR_CONTRACT_CONFORMANCE, ERROR_CONTRACT_PREFER_FAIL, PREFER_ERROR_FACTORY};

use super::{BodyLinter, Builder, ErrorBuild};

impl BodyLinter<'_> {
    /// The contract rules, `prefer-error-factory`, and the message check of one
    /// error construction.
    pub(super) fn check_build(&mut self, build: &ErrorBuild<'_>) {
        if let Builder::New { new_span } = build.builder
            && let Some(code) = build.code
            && let Some(factory) = JsonRpcErrorCode::from_name(code).and_then(JsonRpcErrorCode::factory)
        {
            self.findings.push(Warning::new(
                PREFER_ERROR_FACTORY,
                new_span,
                format!(
                    "`McpError::new(JsonRpcErrorCode::{code}, ..)` spells out a code that has a factory; \
                     use `McpError::{factory}(..)`"
                ),
            ));
        }
        if !matches!(build.builder, Builder::Fail)
            && let Some(code) = build.code
            && !self.facts.declared.is_empty()
        {
            let reasons: Vec<&str> =
                self.facts.declared.iter().filter(|(_, c)| c == code).map(|(reason, _)| reason.as_str()).collect();
            let built = build.written();
            if !reasons.is_empty() {
                let names = join_alternatives(reasons.iter().map(|r| format!("`{r}`")), "and");
                let calls = join_alternatives(reasons.iter().map(|r| format!("`ctx.fail({r}, ..)`")), "or");
                self.findings.push(Warning::new(
                    ERROR_CONTRACT_PREFER_FAIL,
                    build.code_span,
                    format!(
                        "{built} builds a `{code}` error directly, but the contract declares `{code}` as {names}; \
                         use {calls} so the error carries its `data.reason`"
                    ),
                ));
            } else if !JsonRpcErrorCode::from_name(code).is_some_and(JsonRpcErrorCode::is_baseline) {
                self.findings.push(Warning::new(
                    ERROR_CONTRACT_CONFORMANCE,
                    build.code_span,
                    format!(
                        "{built} builds a `{code}` error, a code the handler's contract does not declare; declare it in \
                         `errors(..)` with a reason and build it with `ctx.fail(reason, ..)`, or use a baseline code \
                         (`InternalError`, `ServiceUnavailable`, `Timeout`, `ValidationError`, `SerializationError`)"
                    ),
                ));
            }
        }
        if let Some(message) = build.message {
            self.check_message(message);
        }
    }
}

/// `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` ``.
fn join_alternatives(items: impl Iterator<Item = String>, conjunction: &str) -> String {
    let items: Vec<String> = items.collect();
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} {conjunction} {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}
