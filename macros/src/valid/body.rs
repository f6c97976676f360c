//! Lints of a handler's body: how it builds and rethrows errors.
//!
//! The rules and their ids come from the reference framework's handler-body and
//! error-contract linters, which scan `handler.toString()` with regular
//! expressions. Here the body is a `syn` syntax tree, so a rule matches a call,
//! a pattern or a macro, never text: a code named in a comment or a string
//! literal cannot fire a rule, and `McpError::not_found` is recognised however
//! its path is qualified.
//!
//! Every finding is a warning. The scan sees only the handler's own code: an
//! error built in a called function, kept in a variable first (`let err =
//! McpError::not_found(..); return Err(err)`) or built inside a macro this
//! module cannot parse as expressions is invisible. Nested items (`fn`, `impl`,
//! `mod`, ..) are not the handler and are skipped; closures and async blocks are
//! walked, since what they build usually flows back out of the handler.
//!
//! This module walks the body and recognises how errors are built; the rule
//! groups live in its children: `contract` (`error-contract-conformance`,
//! `error-contract-prefer-fail`, `prefer-error-factory`), `untyped`
//! (`prefer-mcp-error-in-handler`), `rethrow` (`preserve-cause-on-rethrow`) and
//! `stringify` (`no-stringify-upstream-error`).

mod contract;
mod rethrow;
mod stringify;
#[cfg(test)]
mod tests;
mod untyped;

use std::collections::HashSet;

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Block, Expr, ExprCall, ExprIf, ExprMatch, ExprMethodCall, ExprPath, Ident, Item, Macro, Token};

use crate::diag::Warning;
use crate::rules::JsonRpcErrorCode;

use self::rethrow::{Body, err_binding, is_rethrow_combinator};
use self::untyped::{untyped_call, untyped_macro};

/// The contract facts the body rules compare the body against.
pub(crate) struct BodyFacts<'a> {
    /// Declared `(reason_name, code_variant_name)` pairs of the contract, such as
    /// `("not_in_collection", "NotFound")`. Empty when the tool declares no
    /// `errors(..)`: the two contract rules then stay silent, as in the reference.
    pub(crate) declared: &'a [(String, String)],
}

/// Macros whose input is a comma-separated list of expressions, so their
/// arguments can be walked like code. Any other macro is opaque.
const EXPRESSION_MACROS: [&str; 27] = [
    "format",
    "format_args",
    "print",
    "println",
    "eprint",
    "eprintln",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "unreachable",
    "todo",
    "unimplemented",
    "vec",
    "dbg",
    "anyhow",
    "bail",
    "eyre",
    "format_err",
    "ensure",
    "join",
    "try_join",
];

/// Walks `block` and returns every finding of the body rules, in source order.
///
/// When one expression breaks several rules, each rule reports it: the rules are
/// independent, so `allow(..)` of one never hides another. For example
/// `McpError::new(JsonRpcErrorCode::NotFound, ..)` with `NotFound` undeclared
/// gives both `prefer-error-factory` and `error-contract-conformance`.
pub(crate) fn check_body(block: &Block, facts: &BodyFacts<'_>) -> Vec<Warning> {
    let mut linter = BodyLinter { facts, findings: Vec::new(), error_bindings: HashSet::new() };
    linter.visit_block(block);
    linter.findings
}

struct BodyLinter<'f> {
    facts: &'f BodyFacts<'f>,
    findings: Vec<Warning>,
    /// Names bound to a caught error (`|e|` of `map_err`, `Err(e)`), so that
    /// `no-stringify-upstream-error` knows them whatever they are called.
    /// Not scoped: a name caught once is error-like in the whole body.
    error_bindings: HashSet<String>,
}

impl<'ast> Visit<'ast> for BodyLinter<'_> {
    fn visit_item(&mut self, _: &'ast Item) {
        // A nested `fn`, `impl` or `mod` is not the handler's code.
    }

    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        if let Some(build) = mcp_error_call(call) {
            self.check_build(&build);
        }
        if let Some((span, what)) = untyped_call(call) {
            self.untyped(span, &what);
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        if let Some(build) = fail_call(call) {
            self.check_build(&build);
        } else if call.method == "with_message"
            && let Some(message) = call.args.first()
        {
            self.check_message(message);
        }
        if is_rethrow_combinator(&call.method)
            && let Some(Expr::Closure(closure)) = call.args.first()
        {
            self.check_rethrow_closure(closure);
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_match(&mut self, expr: &'ast ExprMatch) {
        for arm in &expr.arms {
            if let Some(binding) = err_binding(&arm.pat) {
                self.check_rethrow(&binding, Body::Expr(&arm.body));
            }
        }
        visit::visit_expr_match(self, expr);
    }

    fn visit_expr_if(&mut self, expr: &'ast ExprIf) {
        if let Expr::Let(cond) = &*expr.cond
            && let Some(binding) = err_binding(&cond.pat)
        {
            self.check_rethrow(&binding, Body::Block(&expr.then_branch));
        }
        visit::visit_expr_if(self, expr);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        if let Some(name) = untyped_macro(mac) {
            self.untyped(name.span(), &format!("`{name}!`"));
        }
        if let Some(args) = expression_macro_args(mac) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}

/// Who builds an error, as far as the rules care.
#[derive(Clone, Copy)]
enum Builder {
    /// `McpError::not_found(..)` and the other factories.
    Factory,
    /// `McpError::new(code, ..)`, with the span of `new`.
    New { new_span: Span },
    /// `ctx.fail(reason, ..)`: the contract's own way, so never "direct".
    Fail,
}

struct ErrorBuild<'e> {
    builder: Builder,
    /// The method ident (`not_found`, `new`, `fail`).
    method: &'e Ident,
    /// The code built, when the syntax names one.
    code: Option<&'static str>,
    /// Where the contract rules point: the factory's ident, or the code of `McpError::new`.
    code_span: Span,
    message: Option<&'e Expr>,
}

impl ErrorBuild<'_> {
    fn written(&self) -> String {
        match (self.builder, self.code) {
            (Builder::New { .. }, Some(code)) => format!("`McpError::new(JsonRpcErrorCode::{code}, ..)`"),
            (Builder::Fail, _) => "`ctx.fail(..)`".to_owned(),
            _ => format!("`McpError::{}(..)`", self.method),
        }
    }
}

/// `McpError::factory(message)` or `McpError::new(code, message)`, however the
/// path to `McpError` is qualified.
fn mcp_error_call(call: &ExprCall) -> Option<ErrorBuild<'_>> {
    let Expr::Path(ExprPath { qself: None, path, .. }) = &*call.func else {
        return None;
    };
    let segments = &path.segments;
    if segments.len() < 2 || segments[segments.len() - 2].ident != "McpError" {
        return None;
    }
    let method = &segments[segments.len() - 1].ident;
    if method == "new" {
        // Only the last segment of the code's path matters, so
        // `JsonRpcErrorCode::NotFound`, a fully qualified path and a bare
        // `NotFound` brought in by `use JsonRpcErrorCode::*` all count.
        let code_ident = call.args.first().and_then(last_path_ident).filter(|ident| code_name(ident).is_some());
        return Some(ErrorBuild {
            builder: Builder::New { new_span: method.span() },
            method,
            code: code_ident.and_then(code_name),
            code_span: code_ident.map_or_else(|| method.span(), Ident::span),
            message: call.args.iter().nth(1),
        });
    }
    let code =
        JsonRpcErrorCode::ALL.into_iter().find(|code| code.factory().is_some_and(|factory| method == factory))?.name();
    Some(ErrorBuild {
        builder: Builder::Factory,
        method,
        code: Some(code),
        code_span: method.span(),
        message: call.args.first(),
    })
}

/// `<ctx>.fail(reason, message)`, whatever the context is called.
fn fail_call(call: &ExprMethodCall) -> Option<ErrorBuild<'_>> {
    (call.method == "fail" && call.args.len() == 2).then(|| ErrorBuild {
        builder: Builder::Fail,
        method: &call.method,
        code: None,
        code_span: call.method.span(),
        message: call.args.iter().nth(1),
    })
}

fn code_name(ident: &Ident) -> Option<&'static str> {
    JsonRpcErrorCode::NAMES.into_iter().find(|code| ident == code)
}

fn last_path_ident(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(ExprPath { qself: None, path, .. }) => path.segments.last().map(|segment| &segment.ident),
        _ => None,
    }
}

fn macro_name(mac: &Macro) -> Option<&Ident> {
    mac.path.segments.last().map(|segment| &segment.ident)
}

/// The arguments of a macro known to take expressions, or `None` for any other
/// macro or input that does not parse.
fn expression_macro_args(mac: &Macro) -> Option<Punctuated<Expr, Token![,]>> {
    let name = macro_name(mac)?;
    if !EXPRESSION_MACROS.iter().any(|known| name == known) {
        return None;
    }
    mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated).ok()
}
