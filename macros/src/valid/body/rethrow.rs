//! `preserve-cause-on-rethrow`: a caught error turned into a new one without it.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Block, Expr, ExprCall, ExprClosure, ExprMethodCall, ExprPath, Ident, Item, Lit, Macro, Pat};

use crate::diag::Warning;
use crate::rules::PRESERVE_CAUSE_ON_RETHROW;

use super::stringify::{ArgRef, placeholders};
use super::untyped::{untyped_call, untyped_macro};
use super::{BodyLinter, expression_macro_args, fail_call, macro_name, mcp_error_call};

/// Macros that turn their arguments into text: an error mentioned in them
/// reaches a message or a log line, not a cause chain.
const TEXT_MACROS: [&str; 9] =
    ["format", "format_args", "print", "println", "eprint", "eprintln", "write", "writeln", "panic"];

impl BodyLinter<'_> {
    pub(super) fn check_rethrow_closure(&mut self, closure: &ExprClosure) {
        if closure.inputs.len() == 1
            && let Some(binding) = binding_of(&closure.inputs[0])
        {
            self.check_rethrow(&binding, Body::Expr(&closure.body));
        }
    }

    /// `preserve-cause-on-rethrow`: a caught error `binding` whose handling
    /// `body` builds a new error.
    pub(super) fn check_rethrow(&mut self, binding: &Binding<'_>, body: Body<'_>) {
        if let Binding::Named(ident) = binding {
            self.error_bindings.insert(ident.to_string());
        }
        let mut builds = BuildFinder { found: false };
        body.walk(&mut builds);
        if !builds.found {
            return;
        }
        let fix = "keep it with `.with_cause(e)`, or build the error with `McpError::from_error(e)`";
        match binding {
            Binding::Wild(span) => self.findings.push(Warning::new(
                PRESERVE_CAUSE_ON_RETHROW,
                *span,
                format!(
                    "the caught error matched by `_` is dropped, so the error built here has no cause; bind it \
                     (`|e|`, `Err(e)`) and {fix}"
                ),
            )),
            Binding::Named(ident) => {
                let mut usage = Usage { name: ident, kept: false, as_text: false };
                body.walk(&mut usage);
                if usage.kept {
                    return;
                }
                let what = if usage.as_text { "only reaches the error as text" } else { "is dropped" };
                self.findings.push(Warning::new(
                    PRESERVE_CAUSE_ON_RETHROW,
                    ident.span(),
                    format!("the caught error `{ident}` {what}, so the error built here has no cause; {fix}"),
                ));
            }
        }
    }
}
/// Combinators whose closure receives the error of a `Result`.
pub(super) fn is_rethrow_combinator(method: &Ident) -> bool {
    method == "map_err" || method == "or_else"
}

/// How a caught error is bound.
pub(super) enum Binding<'p> {
    /// `e`, `_e`, `mut e`, `e: io::Error`.
    Named(&'p Ident),
    /// `_`: thrown away on purpose, with the span of `_`.
    Wild(Span),
}

fn binding_of(pat: &Pat) -> Option<Binding<'_>> {
    match pat {
        Pat::Ident(ident) if ident.subpat.is_none() => Some(Binding::Named(&ident.ident)),
        Pat::Wild(wild) => Some(Binding::Wild(wild.span())),
        Pat::Type(typed) => binding_of(&typed.pat),
        Pat::Paren(paren) => binding_of(&paren.pat),
        _ => None,
    }
}

/// The binding of an `Err(e)` pattern (also under a guard: `Err(e) if ..`).
pub(super) fn err_binding(pat: &Pat) -> Option<Binding<'_>> {
    match pat {
        Pat::Guard(guarded) => err_binding(&guarded.pat),
        Pat::TupleStruct(tuple) if tuple.elems.len() == 1 && tuple.path.segments.last()?.ident == "Err" => {
            binding_of(&tuple.elems[0])
        }
        _ => None,
    }
}

/// The code that handles a caught error.
#[derive(Clone, Copy)]
pub(super) enum Body<'a> {
    Expr(&'a Expr),
    Block(&'a Block),
}

impl Body<'_> {
    fn walk<V: for<'x> Visit<'x>>(self, visitor: &mut V) {
        match self {
            Body::Expr(expr) => visitor.visit_expr(expr),
            Body::Block(block) => visitor.visit_block(block),
        }
    }
}

/// Whether code builds an error: an `McpError` or an untyped one.
struct BuildFinder {
    found: bool,
}

impl<'ast> Visit<'ast> for BuildFinder {
    fn visit_item(&mut self, _: &'ast Item) {}

    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        self.found |= mcp_error_call(call).is_some() || untyped_call(call).is_some();
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        self.found |= fail_call(call).is_some();
        visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        self.found |= untyped_macro(mac).is_some();
        if let Some(args) = expression_macro_args(mac) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}

/// How code uses a caught error `name`: `kept` when the error itself goes
/// somewhere (`.with_cause(e)`, `McpError::from_error(e)`, `e.into()`, a
/// function argument, a log macro's field); `as_text` when it only turns into
/// text (`e.to_string()`, `format!("{e}")`), which keeps no cause chain.
struct Usage<'n> {
    name: &'n Ident,
    kept: bool,
    as_text: bool,
}

impl<'ast> Visit<'ast> for Usage<'_> {
    fn visit_item(&mut self, _: &'ast Item) {}

    fn visit_expr_path(&mut self, expr: &'ast ExprPath) {
        if expr.qself.is_none() && expr.path.get_ident().is_some_and(|ident| ident == self.name) {
            self.kept = true;
        }
    }

    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        if call.method == "to_string" && call.args.is_empty() && is_name(&call.receiver, self.name) {
            self.as_text = true;
            return;
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        if macro_name(mac).is_some_and(|name| TEXT_MACROS.iter().any(|text| name == text)) {
            let mention = mentions(&mac.tokens, self.name);
            self.as_text |= mention.as_ident || mention.in_format_string;
        } else if let Some(args) = expression_macro_args(mac) {
            for arg in &args {
                self.visit_expr(arg);
            }
        } else {
            // An opaque macro (`tracing::warn!(error = %e, ..)`): an ident
            // token is taken as a use, a `{e}` capture as text.
            let mention = mentions(&mac.tokens, self.name);
            self.kept |= mention.as_ident;
            self.as_text |= mention.in_format_string;
        }
    }
}

fn is_name(expr: &Expr, name: &Ident) -> bool {
    match expr {
        Expr::Path(ExprPath { qself: None, path, .. }) => path.get_ident().is_some_and(|ident| ident == name),
        Expr::Paren(paren) => is_name(&paren.expr, name),
        Expr::Reference(reference) => is_name(&reference.expr, name),
        _ => false,
    }
}

#[derive(Default)]
struct Mention {
    as_ident: bool,
    in_format_string: bool,
}

/// Where `name` occurs in a macro's tokens: as an ident, or as an inline
/// capture `{name}` / `{name:..}` of a string literal.
fn mentions(tokens: &TokenStream, name: &Ident) -> Mention {
    let mut mention = Mention::default();
    for token in tokens.clone() {
        match token {
            TokenTree::Ident(ident) => mention.as_ident |= ident == *name,
            TokenTree::Group(group) => {
                let inner = mentions(&group.stream(), name);
                mention.as_ident |= inner.as_ident;
                mention.in_format_string |= inner.in_format_string;
            }
            TokenTree::Literal(literal) => {
                if let Ok(Lit::Str(text)) = syn::parse2::<Lit>(TokenTree::Literal(literal).into()) {
                    let name = name.to_string();
                    mention.in_format_string |= placeholders(&text.value())
                        .iter()
                        .any(|placeholder| matches!(&placeholder.arg, ArgRef::Named(arg) if *arg == name));
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
    mention
}
