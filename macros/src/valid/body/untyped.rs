//! `prefer-mcp-error-in-handler`: errors built without a JSON-RPC code.

use proc_macro2::Span;
use syn::{Expr, ExprCall, ExprPath, GenericArgument, Ident, Lit, Macro, PathArguments, Type};

use crate::diag::Warning;
use crate::rules::PREFER_MCP_ERROR_IN_HANDLER;

use super::{BodyLinter, macro_name};

impl BodyLinter<'_> {
    pub(super) fn untyped(&mut self, span: Span, what: &str) {
        self.findings.push(Warning::new(
            PREFER_MCP_ERROR_IN_HANDLER,
            span,
            format!(
                "{what} builds an untyped error with no JSON-RPC code, so the client gets a code guessed from its \
                 text; return an `McpError` from a factory such as `McpError::not_found(..)`, or `ctx.fail(reason, \
                 ..)` for a declared failure"
            ),
        ));
    }
}

/// `anyhow!`, `bail!`, `eyre!`, `format_err!`, and `ensure!` when qualified by
/// `anyhow::` or `eyre::` (a bare `ensure!` may be snafu's, which is typed).
pub(super) fn untyped_macro(mac: &Macro) -> Option<&Ident> {
    let name = macro_name(mac)?;
    let first = &mac.path.segments.first()?.ident;
    let untyped = ["anyhow", "bail", "eyre", "format_err"].iter().any(|known| name == known)
        || (name == "ensure" && mac.path.segments.len() > 1 && (first == "anyhow" || first == "eyre"));
    untyped.then_some(name)
}

/// Untyped errors built by a call: `Err(<text>.into())`, `Box::<dyn Error>::from(..)`,
/// `Box::from(<text>)`, `anyhow::Error::msg(..)` and the like.
pub(super) fn untyped_call(call: &ExprCall) -> Option<(Span, String)> {
    let Expr::Path(func) = &*call.func else {
        return None;
    };
    let segments = &func.path.segments;
    let last = &segments.last()?.ident;
    let arg = call.args.first();

    if last == "Err"
        && call.args.len() == 1
        && let Some(Expr::MethodCall(into)) = arg
        && into.method == "into"
        && into.args.is_empty()
        && is_text(&into.receiver)
    {
        return Some((last.span(), "`Err(..into())` of a string".to_owned()));
    }

    if last == "from" {
        // `<Box<dyn Error>>::from(..)` or `Box::<dyn Error>::from(..)`.
        let qself_box = func.qself.as_ref().and_then(|qself| match &*qself.ty {
            Type::Path(ty) => ty.path.segments.last().filter(|segment| segment.ident == "Box"),
            _ => None,
        });
        let path_box = (segments.len() >= 2).then(|| &segments[segments.len() - 2]).filter(|s| s.ident == "Box");
        if let Some(boxed) = qself_box.or(path_box) {
            let dyn_error = match &boxed.arguments {
                PathArguments::AngleBracketed(args) => {
                    args.args.iter().any(|arg| matches!(arg, GenericArgument::Type(Type::TraitObject(_))))
                }
                _ => false,
            };
            if dyn_error || arg.is_some_and(is_text) {
                return Some((boxed.ident.span(), "`Box::<dyn Error>::from(..)`".to_owned()));
            }
        }
    }

    let first = &segments.first()?.ident;
    if segments.len() >= 3 && (first == "anyhow" || first == "eyre") && (last == "msg" || last == "new") {
        return Some((last.span(), format!("`{first}::..::{last}(..)`")));
    }
    None
}

/// An expression that is plainly a string: a literal, `format!(..)`,
/// `String::from(..)`, `x.to_string()`, `x.to_owned()`.
pub(super) fn is_text(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => matches!(lit.lit, Lit::Str(_)),
        Expr::Macro(mac) => macro_name(&mac.mac).is_some_and(|name| name == "format"),
        Expr::Call(call) => match &*call.func {
            Expr::Path(ExprPath { path, .. }) => {
                let segments = &path.segments;
                segments.len() >= 2
                    && segments[segments.len() - 2].ident == "String"
                    && segments[segments.len() - 1].ident == "from"
            }
            _ => false,
        },
        Expr::MethodCall(call) => call.args.is_empty() && (call.method == "to_string" || call.method == "to_owned"),
        Expr::Reference(reference) => is_text(&reference.expr),
        Expr::Paren(paren) => is_text(&paren.expr),
        _ => false,
    }
}
