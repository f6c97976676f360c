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

use std::collections::HashSet;

use crate::codes::{BASELINE, CODE_NAMES, CODES, factory_of};

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{
    Block, Expr, ExprCall, ExprClosure, ExprIf, ExprMatch, ExprMethodCall, ExprPath, GenericArgument, Ident, Item, Lit,
    Macro, Pat, PathArguments, Token, Type,
};

/// The contract facts the body rules compare the body against.
pub(crate) struct BodyFacts<'a> {
    /// Declared `(reason_name, code_variant_name)` pairs of the contract, such as
    /// `("not_in_collection", "NotFound")`. Empty when the tool declares no
    /// `errors(..)`: the two contract rules then stay silent, as in the reference.
    pub(crate) declared: &'a [(String, String)],
}

/// One warning of a body rule, at the token that causes it.
pub(crate) struct Finding {
    /// The rule id, one of [`RULES`].
    pub(crate) rule: &'static str,
    /// The offending token: a factory's method ident, a code, a macro's name, an
    /// error binding.
    pub(crate) span: Span,
    /// Lowercase, without a trailing period, ending with the rule's docs anchor.
    pub(crate) message: String,
}

/// A body builds a code its contract does not declare.
pub(crate) const ERROR_CONTRACT_CONFORMANCE: &str = "error-contract-conformance";
/// A body builds a declared code directly instead of through `ctx.fail(reason, ..)`.
pub(crate) const ERROR_CONTRACT_PREFER_FAIL: &str = "error-contract-prefer-fail";
/// A body builds an untyped error (`anyhow!`, `Err("..".into())`, ..).
pub(crate) const PREFER_MCP_ERROR_IN_HANDLER: &str = "prefer-mcp-error-in-handler";
/// A body spells out `McpError::new(JsonRpcErrorCode::X, ..)` where a factory exists.
pub(crate) const PREFER_ERROR_FACTORY: &str = "prefer-error-factory";
/// A body turns a caught error into a new one and drops the caught one.
pub(crate) const PRESERVE_CAUSE_ON_RETHROW: &str = "preserve-cause-on-rethrow";
/// A body writes an upstream error's debug form into an error message.
pub(crate) const NO_STRINGIFY_UPSTREAM_ERROR: &str = "no-stringify-upstream-error";

/// Every rule id of this module; `diag::WARNING_RULES` must list each (tested there).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const RULES: [&str; 6] = [
    ERROR_CONTRACT_CONFORMANCE,
    ERROR_CONTRACT_PREFER_FAIL,
    PREFER_MCP_ERROR_IN_HANDLER,
    PREFER_ERROR_FACTORY,
    PRESERVE_CAUSE_ON_RETHROW,
    NO_STRINGIFY_UPSTREAM_ERROR,
];

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

/// Macros that turn their arguments into text: an error mentioned in them
/// reaches a message or a log line, not a cause chain.
const TEXT_MACROS: [&str; 9] =
    ["format", "format_args", "print", "println", "eprint", "eprintln", "write", "writeln", "panic"];

/// Walks `block` and returns every finding of the body rules, in source order.
///
/// When one expression breaks several rules, each rule reports it: the rules are
/// independent, so `allow(..)` of one never hides another. For example
/// `McpError::new(JsonRpcErrorCode::NotFound, ..)` with `NotFound` undeclared
/// gives both `prefer-error-factory` and `error-contract-conformance`.
pub(crate) fn check_body(block: &Block, facts: &BodyFacts<'_>) -> Vec<Finding> {
    let mut linter = BodyLinter { facts, findings: Vec::new(), error_bindings: HashSet::new() };
    linter.visit_block(block);
    linter.findings
}

fn finding(rule: &'static str, span: Span, text: &str) -> Finding {
    Finding { rule, span, message: format!("{text}; see docs/lints.md#{rule}") }
}

struct BodyLinter<'f> {
    facts: &'f BodyFacts<'f>,
    findings: Vec<Finding>,
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

impl BodyLinter<'_> {
    /// The contract rules, `prefer-error-factory`, and the message check of one
    /// error construction.
    fn check_build(&mut self, build: &ErrorBuild<'_>) {
        if let Builder::New { new_span } = build.builder
            && let Some(code) = build.code
            && let Some(factory) = factory_of(code)
        {
            self.findings.push(finding(
                PREFER_ERROR_FACTORY,
                new_span,
                &format!(
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
                self.findings.push(finding(
                    ERROR_CONTRACT_PREFER_FAIL,
                    build.code_span,
                    &format!(
                        "{built} builds a `{code}` error directly, but the contract declares `{code}` as {names}; \
                         use {calls} so the error carries its `data.reason`"
                    ),
                ));
            } else if !BASELINE.contains(&code) {
                self.findings.push(finding(
                    ERROR_CONTRACT_CONFORMANCE,
                    build.code_span,
                    &format!(
                        "{built} builds a `{code}` error, a code the tool's contract does not declare; declare it in \
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

    /// `no-stringify-upstream-error` over the message argument of an error.
    fn check_message(&mut self, message: &Expr) {
        let mut scan = MessageScan { error_bindings: &self.error_bindings, findings: Vec::new() };
        scan.visit_expr(message);
        self.findings.append(&mut scan.findings);
    }

    fn untyped(&mut self, span: Span, what: &str) {
        self.findings.push(finding(
            PREFER_MCP_ERROR_IN_HANDLER,
            span,
            &format!(
                "{what} builds an untyped error with no JSON-RPC code, so the client gets a code guessed from its \
                 text; return an `McpError` from a factory such as `McpError::not_found(..)`, or `ctx.fail(reason, \
                 ..)` for a declared failure"
            ),
        ));
    }

    fn check_rethrow_closure(&mut self, closure: &ExprClosure) {
        if closure.inputs.len() == 1
            && let Some(binding) = binding_of(&closure.inputs[0])
        {
            self.check_rethrow(&binding, Body::Expr(&closure.body));
        }
    }

    /// `preserve-cause-on-rethrow`: a caught error `binding` whose handling
    /// `body` builds a new error.
    fn check_rethrow(&mut self, binding: &Binding<'_>, body: Body<'_>) {
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
            Binding::Wild(span) => self.findings.push(finding(
                PRESERVE_CAUSE_ON_RETHROW,
                *span,
                &format!(
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
                self.findings.push(finding(
                    PRESERVE_CAUSE_ON_RETHROW,
                    ident.span(),
                    &format!("the caught error `{ident}` {what}, so the error built here has no cause; {fix}"),
                ));
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
    let code = CODES.iter().find(|code| code.factory.is_some_and(|factory| method == factory)).map(|code| code.name)?;
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
    CODE_NAMES.iter().find(|code| ident == *code).copied()
}

fn last_path_ident(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(ExprPath { qself: None, path, .. }) => path.segments.last().map(|segment| &segment.ident),
        _ => None,
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

/// `anyhow!`, `bail!`, `eyre!`, `format_err!`, and `ensure!` when qualified by
/// `anyhow::` or `eyre::` (a bare `ensure!` may be snafu's, which is typed).
fn untyped_macro(mac: &Macro) -> Option<&Ident> {
    let name = macro_name(mac)?;
    let first = &mac.path.segments.first()?.ident;
    let untyped = ["anyhow", "bail", "eyre", "format_err"].iter().any(|known| name == known)
        || (name == "ensure" && mac.path.segments.len() > 1 && (first == "anyhow" || first == "eyre"));
    untyped.then_some(name)
}

/// Untyped errors built by a call: `Err(<text>.into())`, `Box::<dyn Error>::from(..)`,
/// `Box::from(<text>)`, `anyhow::Error::msg(..)` and the like.
fn untyped_call(call: &ExprCall) -> Option<(Span, String)> {
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
fn is_text(expr: &Expr) -> bool {
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

/// Combinators whose closure receives the error of a `Result`.
fn is_rethrow_combinator(method: &Ident) -> bool {
    method == "map_err" || method == "or_else"
}

/// How a caught error is bound.
enum Binding<'p> {
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
fn err_binding(pat: &Pat) -> Option<Binding<'_>> {
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
enum Body<'a> {
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

/// `no-stringify-upstream-error` inside one message argument. Nested error
/// constructions and closures are left to their own checks.
struct MessageScan<'b> {
    error_bindings: &'b HashSet<String>,
    findings: Vec<Finding>,
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

fn stringify_finding(span: Span, what: &str, name: &str) -> Finding {
    finding(
        NO_STRINGIFY_UPSTREAM_ERROR,
        span,
        &format!(
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
enum ArgRef {
    /// The n-th positional argument, implicit (`{}`) or explicit (`{0}`).
    Positional(usize),
    /// A named argument or an inline capture (`{e}`).
    Named(String),
}

#[derive(Debug, PartialEq, Eq)]
struct Placeholder {
    /// As written, braces included: `{e:?}`.
    written: String,
    arg: ArgRef,
    /// Formatted with `Debug` (`?`, `#?`, `x?`).
    debug: bool,
}

/// The placeholders of a `format!` string, following std's grammar for the
/// parts that choose an argument and its trait.
fn placeholders(fmt: &str) -> Vec<Placeholder> {
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

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    fn declared(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(reason, code)| ((*reason).to_owned(), (*code).to_owned())).collect()
    }

    fn lint(block: &Block, contract: &[(&str, &str)]) -> Vec<Finding> {
        let declared = declared(contract);
        check_body(block, &BodyFacts { declared: &declared })
    }

    fn rules(findings: &[Finding]) -> Vec<&'static str> {
        findings.iter().map(|finding| finding.rule).collect()
    }

    /// `(rule, text under the span)` of each finding of a body given as source,
    /// so spans have real positions (a `parse_quote!` span has none).
    fn located(source: &str, contract: &[(&str, &str)]) -> Vec<(&'static str, String)> {
        let block: Block = syn::parse_str(source).expect("test body parses");
        lint(&block, contract)
            .iter()
            .map(|finding| (finding.rule, finding.span.source_text().expect("span has a location")))
            .collect()
    }

    fn message_of<'f>(findings: &'f [Finding], rule: &str) -> &'f str {
        &findings.iter().find(|finding| finding.rule == rule).expect("rule fired").message
    }

    const CONTRACT: &[(&str, &str)] = &[("not_in_collection", "NotFound"), ("upstream_busy", "RateLimited")];

    #[test]
    fn every_message_is_lowercase_without_period_and_points_at_its_docs() {
        let block: Block = parse_quote!({
            let a = McpError::conflict("taken");
            let b = McpError::not_found("gone");
            let c = McpError::new(JsonRpcErrorCode::NotFound, "gone");
            let d = anyhow!("untyped");
            let e = fetch().map_err(|_| McpError::internal_error(format!("{:?}", err)))?;
        });
        let findings = lint(&block, CONTRACT);
        let mut seen: Vec<&str> = rules(&findings);
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), RULES.len(), "every rule fires once here: {seen:?}");
        for finding in &findings {
            let first = finding.message.chars().next().unwrap();
            assert!(!first.is_uppercase(), "{}", finding.message);
            assert!(!finding.message.ends_with('.'), "{}", finding.message);
            assert!(finding.message.ends_with(&format!("see docs/lints.md#{}", finding.rule)), "{}", finding.message);
        }
    }

    // ---- error-contract-conformance ----

    #[test]
    fn conformance_flags_an_undeclared_factory_code_at_the_factory() {
        let block: Block = parse_quote!({
            if taken {
                return Err(McpError::conflict("The name is taken."));
            }
        });
        let findings = lint(&block, CONTRACT);
        assert_eq!(rules(&findings), [ERROR_CONTRACT_CONFORMANCE]);
        assert_eq!(
            findings[0].message,
            "`McpError::conflict(..)` builds a `Conflict` error, a code the tool's contract does not declare; \
             declare it in `errors(..)` with a reason and build it with `ctx.fail(reason, ..)`, or use a baseline \
             code (`InternalError`, `ServiceUnavailable`, `Timeout`, `ValidationError`, `SerializationError`); \
             see docs/lints.md#error-contract-conformance"
        );
        assert_eq!(
            located("{ if taken { return Err(McpError::conflict(\"x\")); } }", CONTRACT),
            [(ERROR_CONTRACT_CONFORMANCE, "conflict".to_owned())]
        );
    }

    #[test]
    fn conformance_reads_qualified_and_bare_codes_of_mcp_error_new_in_closures() {
        let source = "{
            let run = || async {
                let a = mcp_contract::McpError::new(mcp_contract::JsonRpcErrorCode::Forbidden, \"no\");
                let b = McpError::new(MethodNotFound, \"no\");
                Ok::<_, McpError>(())
            };
        }";
        assert_eq!(
            located(source, CONTRACT),
            [
                (PREFER_ERROR_FACTORY, "new".to_owned()),
                (ERROR_CONTRACT_CONFORMANCE, "Forbidden".to_owned()),
                (ERROR_CONTRACT_CONFORMANCE, "MethodNotFound".to_owned()),
            ]
        );
    }

    #[test]
    fn conformance_allows_baseline_codes_and_tools_without_a_contract() {
        let block: Block = parse_quote!({
            let a = McpError::internal_error("bug");
            let b = McpError::service_unavailable("down");
            let c = McpError::timeout("slow");
            let d = McpError::validation_error("bad");
            let e = McpError::new(JsonRpcErrorCode::SerializationError, "bad json");
        });
        assert_eq!(rules(&lint(&block, CONTRACT)), [PREFER_ERROR_FACTORY]);

        let block: Block = parse_quote!({
            return Err(McpError::conflict("taken"));
        });
        assert!(lint(&block, &[]).is_empty(), "no `errors(..)`: nothing to conform to");
    }

    #[test]
    fn conformance_ignores_codes_that_are_compared_named_in_text_or_built_in_nested_fns() {
        let block: Block = parse_quote!({
            // McpError::conflict("in a comment")
            if err.code() == JsonRpcErrorCode::Conflict {
                tracing::info!("McpError::conflict(..) is only text here");
            }
            match code {
                JsonRpcErrorCode::Forbidden => {}
                _ => {}
            }
            fn helper() -> McpError {
                McpError::conflict("a nested fn is not the handler")
            }
        });
        assert!(lint(&block, CONTRACT).is_empty());
    }

    // ---- error-contract-prefer-fail ----

    #[test]
    fn prefer_fail_names_the_declared_reason_at_the_factory() {
        let block: Block = parse_quote!({
            let object = COLLECTION.get(id).ok_or_else(|| McpError::not_found("No such object."))?;
        });
        let findings = lint(&block, CONTRACT);
        assert_eq!(rules(&findings), [ERROR_CONTRACT_PREFER_FAIL]);
        assert_eq!(
            findings[0].message,
            "`McpError::not_found(..)` builds a `NotFound` error directly, but the contract declares `NotFound` as \
             `not_in_collection`; use `ctx.fail(not_in_collection, ..)` so the error carries its `data.reason`; \
             see docs/lints.md#error-contract-prefer-fail"
        );
        assert_eq!(
            located("{ let o = get(id).ok_or_else(|| McpError::not_found(\"x\"))?; }", CONTRACT),
            [(ERROR_CONTRACT_PREFER_FAIL, "not_found".to_owned())]
        );
    }

    #[test]
    fn prefer_fail_lists_every_reason_of_the_code_and_points_at_the_code_of_new() {
        let contract = [("no_match", "NotFound"), ("site_not_found", "NotFound")];
        let source = "{ { return Err(McpError::new(JsonRpcErrorCode::NotFound, \"none\")); } }";
        assert_eq!(
            located(source, &contract),
            [(PREFER_ERROR_FACTORY, "new".to_owned()), (ERROR_CONTRACT_PREFER_FAIL, "NotFound".to_owned())]
        );
        let block: Block = syn::parse_str(source).unwrap();
        let findings = lint(&block, &contract);
        assert!(
            message_of(&findings, ERROR_CONTRACT_PREFER_FAIL).contains(
                "declares `NotFound` as `no_match` and `site_not_found`; use `ctx.fail(no_match, ..)` or \
                 `ctx.fail(site_not_found, ..)`"
            ),
            "{}",
            message_of(&findings, ERROR_CONTRACT_PREFER_FAIL)
        );
    }

    #[test]
    fn prefer_fail_covers_declared_baseline_codes() {
        // The reference skips baseline codes here; a declared one has a reason
        // the direct construction loses, so this module reports it.
        let block: Block = parse_quote!({
            return Err(McpError::service_unavailable("The archive is down."));
        });
        let findings = lint(&block, &[("archive_down", "ServiceUnavailable")]);
        assert_eq!(rules(&findings), [ERROR_CONTRACT_PREFER_FAIL]);
        assert!(findings[0].message.contains("use `ctx.fail(archive_down, ..)`"));
    }

    #[test]
    fn prefer_fail_accepts_ctx_fail_in_question_mark_chains() {
        let block: Block = parse_quote!({
            let object = COLLECTION
                .get(input.object_id)
                .ok_or_else(|| ctx.fail(not_in_collection, format!("No object {}", input.object_id)))?;
            let page = fetch(&object).await.map_err(|e| ctx.fail(upstream_busy, "Throttled.").with_cause(e))?;
            Ok(page)
        });
        assert!(lint(&block, CONTRACT).is_empty());
    }

    #[test]
    fn prefer_fail_ignores_other_codes_and_codes_held_in_variables() {
        let block: Block = parse_quote!({
            let code = pick();
            let a = McpError::new(code, "dynamic");
            let b = McpError::timeout("slow");
        });
        assert!(lint(&block, CONTRACT).is_empty());
    }

    // ---- prefer-mcp-error-in-handler ----

    #[test]
    fn untyped_macros_are_flagged_at_their_name() {
        let source = "{
            if a { return Err(anyhow!(\"bad\").into()); }
            if b { anyhow::bail!(\"bad {}\", b); }
            let r = eyre::eyre!(\"bad\");
            anyhow::ensure!(c, \"bad\");
        }";
        assert_eq!(
            located(source, &[]),
            [
                (PREFER_MCP_ERROR_IN_HANDLER, "anyhow".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "bail".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "eyre".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "ensure".to_owned()),
            ]
        );
        let block: Block = parse_quote!({
            bail!("bad");
        });
        assert_eq!(
            lint(&block, &[])[0].message,
            "`bail!` builds an untyped error with no JSON-RPC code, so the client gets a code guessed from its \
             text; return an `McpError` from a factory such as `McpError::not_found(..)`, or `ctx.fail(reason, ..)` \
             for a declared failure; see docs/lints.md#prefer-mcp-error-in-handler"
        );
    }

    #[test]
    fn untyped_calls_are_flagged() {
        let source = "{
            let helper = |x: u32| -> Result<u32, Box<dyn std::error::Error>> {
                if x == 0 { return Err(\"zero\".into()); }
                if x == 1 { return Err(format!(\"one {x}\").into()); }
                if x == 2 { return Err(String::from(\"two\").into()); }
                if x == 3 { return Err(Box::<dyn std::error::Error + Send + Sync>::from(io_error)); }
                if x == 4 { return Err(<Box<dyn std::error::Error>>::from(\"four\")); }
                Err(anyhow::Error::msg(\"five\").into())
            };
        }";
        assert_eq!(
            located(source, &[]),
            [
                (PREFER_MCP_ERROR_IN_HANDLER, "Err".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "Err".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "Err".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "Box".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "Box".to_owned()),
                (PREFER_MCP_ERROR_IN_HANDLER, "msg".to_owned()),
            ]
        );
    }

    #[test]
    fn typed_errors_and_their_conversions_are_not_untyped() {
        let block: Block = parse_quote!({
            let bytes = std::fs::read(path)?;
            let parsed: Output = serde_json::from_slice(&bytes).map_err(McpError::from_error)?;
            if parsed.items.is_empty() {
                return Err(McpError::internal_error("empty"));
            }
            let boxed = Box::new(io_error);
            let from = Box::from(typed_error);
            let converted: McpError = io_error.into();
            ensure!(ready, NotReadySnafu);
            Err(e.into())
        });
        assert!(lint(&block, &[]).is_empty());
    }

    #[test]
    fn opaque_macros_are_not_searched() {
        let block: Block = parse_quote!({
            tokio::select! {
                _ = ctx.cancelled() => return Err(anyhow!("cancelled").into()),
                page = fetch() => page,
            }
        });
        // `select!` is not a list of expressions: nothing inside is linted.
        assert!(lint(&block, &[]).is_empty());
        let block: Block = parse_quote!({
            let all = vec![anyhow!("parsed")];
        });
        assert_eq!(rules(&lint(&block, &[])), [PREFER_MCP_ERROR_IN_HANDLER]);
    }

    // ---- prefer-error-factory ----

    #[test]
    fn prefer_error_factory_names_the_factory_at_new() {
        let block: Block = parse_quote!({
            return Err(McpError::new(JsonRpcErrorCode::RateLimited, "Slow down."));
        });
        let findings = lint(&block, &[]);
        assert_eq!(rules(&findings), [PREFER_ERROR_FACTORY]);
        assert_eq!(
            findings[0].message,
            "`McpError::new(JsonRpcErrorCode::RateLimited, ..)` spells out a code that has a factory; use \
             `McpError::rate_limited(..)`; see docs/lints.md#prefer-error-factory"
        );
        assert_eq!(
            located("{ Err(McpError::new(JsonRpcErrorCode::RateLimited, \"x\")) }", &[]),
            [(PREFER_ERROR_FACTORY, "new".to_owned())]
        );
    }

    #[test]
    fn prefer_error_factory_sees_through_qualified_paths_closures_and_try() {
        let block: Block = parse_quote!({
            let value = lookup(key)
                .map_err(|e| {
                    ::mcp_contract::McpError::new(::mcp_contract::JsonRpcErrorCode::DatabaseError, "lookup failed")
                        .with_cause(e)
                })?
                .ok_or_else(|| McpError::new(InvalidParams, "no key"))?;
        });
        let findings = lint(&block, &[]);
        assert_eq!(rules(&findings), [PREFER_ERROR_FACTORY, PREFER_ERROR_FACTORY]);
        assert!(findings[0].message.contains("use `McpError::database_error(..)`"));
        assert!(findings[1].message.contains("use `McpError::invalid_params(..)`"));
    }

    #[test]
    fn prefer_error_factory_skips_codes_without_a_factory_and_unknown_codes() {
        let block: Block = parse_quote!({
            let a = McpError::new(JsonRpcErrorCode::MethodNotFound, "no such method");
            let b = McpError::new(JsonRpcErrorCode::InitializationFailed, "not ready");
            let c = McpError::new(upstream.code(), "mirrored");
            let d = McpError::new(JsonRpcErrorCode::from_i32(raw).unwrap_or_default(), "mirrored");
            let e = Other::new(JsonRpcErrorCode::NotFound, "not an McpError");
        });
        assert!(lint(&block, &[]).is_empty());
    }

    // ---- preserve-cause-on-rethrow ----

    #[test]
    fn map_err_dropping_its_error_is_flagged_at_the_binding() {
        let source = "{
            let a = fetch().await.map_err(|_| McpError::service_unavailable(\"down\"))?;
            let b = parse(&a).map_err(|e| ctx.fail(upstream_busy, \"bad\"))?;
            let c = read().or_else(|_e: io::Error| Err(McpError::internal_error(\"io\")))?;
        }";
        assert_eq!(
            located(source, CONTRACT),
            [
                (PRESERVE_CAUSE_ON_RETHROW, "_".to_owned()),
                (PRESERVE_CAUSE_ON_RETHROW, "e".to_owned()),
                (PRESERVE_CAUSE_ON_RETHROW, "_e".to_owned()),
            ]
        );
        let block: Block = parse_quote!({
            let b = parse(&a).map_err(|e| ctx.fail(upstream_busy, "bad"))?;
        });
        assert_eq!(
            lint(&block, CONTRACT)[0].message,
            "the caught error `e` is dropped, so the error built here has no cause; keep it with `.with_cause(e)`, \
             or build the error with `McpError::from_error(e)`; see docs/lints.md#preserve-cause-on-rethrow"
        );
    }

    #[test]
    fn match_arms_and_if_let_dropping_or_stringifying_their_error_are_flagged() {
        let source = "{
            let page = match fetch(id).await {
                Ok(page) => page,
                Err(err) if err.is_timeout() => return Err(McpError::timeout(\"slow\")),
                Err(err) => return Err(McpError::internal_error(format!(\"fetch failed: {err}\"))),
            };
            if let Err(e) = store(&page) {
                return Err(McpError::internal_error(e.to_string()));
            }
        }";
        assert_eq!(
            located(source, &[]),
            [
                (PRESERVE_CAUSE_ON_RETHROW, "err".to_owned()),
                (PRESERVE_CAUSE_ON_RETHROW, "err".to_owned()),
                (PRESERVE_CAUSE_ON_RETHROW, "e".to_owned()),
            ]
        );
        let block: Block = syn::parse_str(source).unwrap();
        let findings = lint(&block, &[]);
        assert!(findings[0].message.starts_with("the caught error `err` is dropped"));
        assert!(findings[1].message.starts_with("the caught error `err` only reaches the error as text"));
        assert!(findings[2].message.starts_with("the caught error `e` only reaches the error as text"));
    }

    #[test]
    fn kept_causes_are_not_flagged() {
        let block: Block = parse_quote!({
            let a = fetch().map_err(|e| McpError::service_unavailable("down").with_cause(e))?;
            let b = parse(&a).map_err(|e| McpError::from_error(e))?;
            let c = parse(&a).map_err(McpError::from_error)?;
            let d = match read() {
                Ok(v) => v,
                Err(e) => return Err(ctx.fail(upstream_busy, "throttled").with_cause_arc(Arc::new(e))),
            };
            if let Err(e) = write() {
                return Err(e.into());
            }
            let f = lookup().map_err(|err| {
                tracing::warn!(error = %err, "lookup failed");
                McpError::internal_error("lookup failed")
            })?;
        });
        assert!(lint(&block, CONTRACT).is_empty());
    }

    #[test]
    fn handling_that_builds_no_error_is_not_a_rethrow() {
        let block: Block = parse_quote!({
            let cached = match cache.get(id) {
                Ok(hit) => hit,
                Err(_) => Vec::new(),
            };
            if let Err(e) = audit(id) {
                tracing::warn!("audit failed");
            }
            let n = text.parse::<u32>().map_err(|_| 0)?;
        });
        assert!(lint(&block, &[]).is_empty());
    }

    // ---- no-stringify-upstream-error ----

    #[test]
    fn debug_formatting_an_error_into_a_message_is_flagged_at_the_format_macro() {
        let source = "{
            let a = fetch().map_err(|e| McpError::service_unavailable(format!(\"down: {e:?}\")).with_cause(e))?;
            let b = McpError::internal_error(format!(\"bad: {:#?}\", upstream_err));
            let c = match read() {
                Ok(v) => v,
                Err(failure) => return Err(ctx.fail(upstream_busy, format!(\"{0:?}\", &failure)).with_cause(failure)),
            };
        }";
        assert_eq!(
            located(source, CONTRACT),
            [
                (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned()),
                (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned()),
                (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned()),
            ]
        );
        let block: Block = syn::parse_str(source).unwrap();
        let findings = lint(&block, CONTRACT);
        assert_eq!(
            findings[0].message,
            "`{e:?}` in `format!` writes the upstream error `e` into the message in full, which can leak internal \
             details to the client; write a short summary in the message and keep the error with `.with_cause(e)`; \
             see docs/lints.md#no-stringify-upstream-error"
        );
        assert!(findings[1].message.starts_with("`{:#?}` in `format!` writes the upstream error `upstream_err`"));
        assert!(findings[2].message.starts_with("`{0:?}` in `format!` writes the upstream error `failure`"));
    }

    #[test]
    fn serde_json_of_an_error_and_with_message_are_checked() {
        let source = "{
            let a = McpError::internal_error(serde_json::to_string(&err).unwrap_or_default());
            let b = McpError::internal_error(\"x\").with_message(format!(\"{:?} {}\", id, format!(\"{:?}\", e)));
        }";
        assert_eq!(
            located(source, &[]),
            [(NO_STRINGIFY_UPSTREAM_ERROR, "to_string".to_owned()), (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned())]
        );
    }

    #[test]
    fn named_format_arguments_resolve_to_their_value() {
        let block: Block = parse_quote!({
            let a = McpError::internal_error(format!("{detail:?}", detail = e));
            let b = McpError::internal_error(format!("{e:?}", e = request_id));
        });
        let findings = lint(&block, &[]);
        assert_eq!(rules(&findings), [NO_STRINGIFY_UPSTREAM_ERROR]);
        assert!(findings[0].message.starts_with("`{detail:?}` in `format!` writes the upstream error `e`"));
    }

    #[test]
    fn display_data_and_non_error_values_are_not_stringified_errors() {
        let block: Block = parse_quote!({
            let a = fetch().map_err(|e| {
                McpError::service_unavailable(format!("The archive is down: {e}"))
                    .with_data_field("upstream", format!("{e:?}"))
                    .with_cause(e)
            })?;
            let b = McpError::invalid_params(format!("bad id {:?} at {idx:?}", id));
            let c = McpError::internal_error(format!("{{e:?}} is escaped, {}", name));
            tracing::error!("{e:?}");
            let d = format!("{err:?}");
        });
        assert!(lint(&block, &[]).is_empty());
    }

    #[test]
    fn a_caught_error_with_any_name_is_known_to_the_message_check() {
        let block: Block = parse_quote!({
            let a = load().map_err(|problem| McpError::internal_error(format!("{problem:?}")).with_cause(problem))?;
        });
        assert_eq!(rules(&lint(&block, &[])), [NO_STRINGIFY_UPSTREAM_ERROR]);
        let block: Block = parse_quote!({
            let a = McpError::internal_error(format!("{problem:?}"));
        });
        assert!(lint(&block, &[]).is_empty(), "`problem` is neither caught nor named like an error");
    }

    // ---- format strings ----

    #[test]
    fn placeholders_follow_the_format_grammar() {
        let found = placeholders("{} {:?} {x:#?} {0:?} {{a:?}} {:.*} {:?>5} {:x?} {}");
        let summary: Vec<(&str, &ArgRef, bool)> = found.iter().map(|p| (p.written.as_str(), &p.arg, p.debug)).collect();
        assert_eq!(
            summary,
            [
                ("{}", &ArgRef::Positional(0), false),
                ("{:?}", &ArgRef::Positional(1), true),
                ("{x:#?}", &ArgRef::Named("x".to_owned()), true),
                ("{0:?}", &ArgRef::Positional(0), true),
                // `.*` takes argument 2 as precision and formats argument 3.
                ("{:.*}", &ArgRef::Positional(3), false),
                // `?` as the fill character, not the trait.
                ("{:?>5}", &ArgRef::Positional(4), false),
                ("{:x?}", &ArgRef::Positional(5), true),
                ("{}", &ArgRef::Positional(6), false),
            ]
        );
    }
}
