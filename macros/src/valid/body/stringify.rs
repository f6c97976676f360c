//! `no-stringify-upstream-error`: an upstream error's debug form in a message.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, ExprCall, ExprClosure, ExprMethodCall, ExprPath, Ident, Item, Lit, Macro, Token};

use crate::diag::Warning;
use crate::rules::NO_STRINGIFY_UPSTREAM_ERROR;

use super::{BodyLinter, expression_macro_args, fail_call, last_path_ident, macro_name, mcp_error_call};

impl BodyLinter<'_> {
    /// `no-stringify-upstream-error` over the message argument of an error.
    pub(super) fn check_message(&mut self, message: &Expr) {
        let mut scan = MessageScan { error_bindings: &self.error_bindings, findings: Vec::new() };
        scan.visit_expr(message);
        self.findings.append(&mut scan.findings);
    }
}

/// `no-stringify-upstream-error` inside one message argument. Nested error
/// constructions and closures are left to their own checks.
struct MessageScan<'b> {
    error_bindings: &'b HashSet<String>,
    findings: Vec<Warning>,
}

impl<'ast> Visit<'ast> for MessageScan<'_> {
    fn visit_item(&mut self, _: &'ast Item) {}

    fn visit_expr_closure(&mut self, _: &'ast ExprClosure) {}

    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        if mcp_error_call(call).is_some() {
            return;
        }
        if let Expr::Path(ExprPath { qself: None, path, .. }) = &*call.func
            && path.segments.len() >= 2
            && path.segments[0].ident == "serde_json"
            && let Some(last) = path.segments.last()
            && ["to_string", "to_string_pretty", "to_value", "to_vec"].iter().any(|f| last.ident == f)
            && let Some(arg) = call.args.first()
            && let Some(name) = error_name(arg, self.error_bindings)
        {
            self.findings.push(stringify_finding(last.ident.span(), &format!("`serde_json::{}`", last.ident), &name));
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        if fail_call(call).is_some() {
            return;
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        let Some(args) = expression_macro_args(mac) else {
            return;
        };
        if let Some(name) = macro_name(mac)
            && (name == "format" || name == "format_args")
        {
            self.check_format(name, &args);
        }
        for arg in &args {
            self.visit_expr(arg);
        }
    }
}

impl MessageScan<'_> {
    /// Debug placeholders (`{:?}`, `{e:?}`, `{0:#?}`) whose argument is an error.
    fn check_format(&mut self, macro_ident: &Ident, args: &Punctuated<Expr, Token![,]>) {
        let mut args = args.iter();
        let Some(Expr::Lit(fmt)) = args.next() else {
            return;
        };
        let Lit::Str(fmt) = &fmt.lit else {
            return;
        };
        let mut positional = Vec::new();
        let mut named = Vec::new();
        for arg in args {
            match arg {
                Expr::Assign(assign) if last_path_ident(&assign.left).is_some() => {
                    named.push((last_path_ident(&assign.left).map(Ident::to_string), &*assign.right));
                }
                _ => positional.push(arg),
            }
        }
        for placeholder in placeholders(&fmt.value()) {
            if !placeholder.debug {
                continue;
            }
            let name = match &placeholder.arg {
                ArgRef::Positional(index) => {
                    positional.get(*index).and_then(|arg| error_name(arg, self.error_bindings))
                }
                ArgRef::Named(name) => match named.iter().find(|(arg, _)| arg.as_deref() == Some(name.as_str())) {
                    Some((_, value)) => error_name(value, self.error_bindings),
                    None => is_error_name(name, self.error_bindings).then(|| name.clone()),
                },
            };
            if let Some(name) = name {
                let written = format!("`{}` in `{macro_ident}!`", placeholder.written);
                self.findings.push(stringify_finding(macro_ident.span(), &written, &name));
            }
        }
    }
}

fn stringify_finding(span: Span, what: &str, name: &str) -> Warning {
    Warning::new(
        NO_STRINGIFY_UPSTREAM_ERROR,
        span,
        format!(
            "{what} writes the upstream error `{name}` into the message in full, which can leak internal details \
             to the client; write a short summary in the message and keep the error with `.with_cause({name})`"
        ),
    )
}

/// The name of an expression that is an error binding, behind `&` or parentheses.
fn error_name(expr: &Expr, error_bindings: &HashSet<String>) -> Option<String> {
    match expr {
        Expr::Reference(reference) => error_name(&reference.expr, error_bindings),
        Expr::Paren(paren) => error_name(&paren.expr, error_bindings),
        Expr::Path(ExprPath { qself: None, path, .. }) => {
            let name = path.get_ident()?.to_string();
            is_error_name(&name, error_bindings).then_some(name)
        }
        _ => None,
    }
}

/// A caught error's binding, or a name that conventionally holds an error.
fn is_error_name(name: &str, error_bindings: &HashSet<String>) -> bool {
    error_bindings.contains(name)
        || matches!(name, "e" | "err" | "error" | "cause")
        || name.starts_with("err_")
        || name.ends_with("_err")
        || name.ends_with("_error")
}

/// Which argument a placeholder formats.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ArgRef {
    /// The n-th positional argument, implicit (`{}`) or explicit (`{0}`).
    Positional(usize),
    /// A named argument or an inline capture (`{e}`).
    Named(String),
}

#[derive(Debug, PartialEq, Eq)]
pub(super) struct Placeholder {
    /// As written, braces included: `{e:?}`.
    pub(super) written: String,
    pub(super) arg: ArgRef,
    /// Formatted with `Debug` (`?`, `#?`, `x?`).
    pub(super) debug: bool,
}

/// The placeholders of a `format!` string, following std's grammar for the
/// parts that choose an argument and its trait.
pub(super) fn placeholders(fmt: &str) -> Vec<Placeholder> {
    let mut found = Vec::new();
    let mut next_positional = 0;
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '{' {
            continue;
        }
        if chars.peek() == Some(&'{') {
            chars.next();
            continue;
        }
        let inner: String = chars.by_ref().take_while(|&c| c != '}').collect();
        let (arg, spec) = inner.split_once(':').unwrap_or((inner.as_str(), ""));
        let arg = arg.trim();
        // `.*` reads the precision from the next positional argument, before the value.
        if spec.contains(".*") {
            next_positional += 1;
        }
        let arg = if arg.is_empty() {
            next_positional += 1;
            ArgRef::Positional(next_positional - 1)
        } else if let Ok(index) = arg.parse() {
            ArgRef::Positional(index)
        } else {
            ArgRef::Named(arg.to_owned())
        };
        found.push(Placeholder { written: format!("{{{inner}}}"), arg, debug: is_debug_spec(spec) });
    }
    found
}

/// Whether a format spec (after `:`) selects `Debug`. The fill character may be
/// any character, `?` included, so it is skipped with its alignment first.
fn is_debug_spec(spec: &str) -> bool {
    let mut chars = spec.chars();
    let rest = match (chars.next(), chars.next()) {
        (Some(_), Some('<' | '^' | '>')) => &spec[spec.char_indices().nth(2).map_or(spec.len(), |(i, _)| i)..],
        _ => spec,
    };
    rest.ends_with('?')
}
