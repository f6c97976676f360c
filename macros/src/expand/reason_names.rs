//! Reasons by their bare names, without changing what any other name means.
//!
//! `ctx.fail(not_in_collection, ..)` reads like the reference's
//! `ctx.fail('not_in_collection')`. Binding the reasons as locals at the top of
//! the body would shadow the author's own names (a reason `timeout` would hide
//! `tokio::time::timeout`), so nothing is bound: only the first argument of a
//! call of a reason-taking method of the typed context (`fail`, `fail_from`,
//! `recovery_for`) that is a bare name of a declared reason is rewritten into
//! `ToolReason::Variant`, spanned at that name. Every other use of the name keeps
//! its meaning. The rewrite works on tokens, so it reaches into macro calls
//! (`tokio::select!`, `format!`) that a syntax tree leaves opaque.
//!
//! A bare name there that is no declared reason and that the body never
//! mentions anywhere else (so it can be no local of the author's) is a typo: an
//! error at the typo, naming the closest declared reason and listing them all.

use std::collections::HashSet;

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::{ToTokens, quote_spanned};
use syn::ItemFn;
use syn::ext::IdentExt;

use crate::diag::Diagnostics;
use crate::diag::closest;
use crate::kind::Kind;
use crate::rules;
use crate::valid::contract::Entry;

/// The methods of `Ctx<R>` whose first argument is a reason.
const REASON_METHODS: [&str; 3] = ["fail", "fail_from", "recovery_for"];

/// What the rewrite needs to know about the tool, resource or prompt.
pub(crate) struct Reasons<'a> {
    pub(crate) contract: &'a [Entry],
    pub(crate) reason_type: &'a Ident,
    /// The typed context's parameter name when the macro chose its reason type
    /// (`ctx: Ctx`): only then is an unknown name at `ctx.fail(..)` surely a typo.
    pub(crate) typed_ctx: Option<&'a Ident>,
    /// For the messages.
    pub(crate) kind: Kind,
}

/// What the body does with the declared reasons.
pub(crate) struct Resolved {
    pub(crate) body: TokenStream,
    /// The snake_case names of the reasons the body uses: by bare name at a
    /// rewritten call, by variant (`ToolReason::NotFound`), or by its name as
    /// a string (`.with_reason("not_found")`).
    pub(crate) used: HashSet<String>,
}

/// Rewrite the reason names of the handler's body, and warn of the declared
/// reasons it never uses (`error-contract-reason-unused`). The handlers of
/// `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` alike: `item` is the
/// handler, `reasons.typed_ctx` its `ctx: Ctx` parameter.
pub(crate) fn resolve_handler(item: &mut ItemFn, reasons: &Reasons<'_>, diag: &mut Diagnostics) {
    let params = item.sig.inputs.to_token_stream();
    let resolved = resolve(item.block.to_token_stream(), params, reasons, diag);
    // Only names were replaced by paths in argument position, which always
    // parses; should it not, the body as written stands on its own.
    if let Ok(block) = syn::parse2(resolved.body) {
        *item.block = block;
    }
    // A handler with an error already has the author's attention; an unused
    // reason then is more likely a symptom (a typo at `ctx.fail`) than news.
    if diag.has_errors() {
        return;
    }
    // A reason `raised_by = service` is built by a service the handler calls,
    // where this macro cannot look.
    for entry in reasons.contract.iter().filter(|entry| !entry.raised_by_service) {
        let name = entry.reason.unraw().to_string();
        if !resolved.used.contains(&name) {
            diag.rule_warning(rules::ERROR_CONTRACT_REASON_UNUSED,
                entry.reason.span(),
                format_args!(
                    "the handler never fails with reason `{name}`: return `ctx.fail({name}, ..)` where this failure happens, write `raised_by = service` in its entry when a service the handler calls raises it, or remove it from `errors(..)`"
                ),
            );
        }
    }
}

/// Rewrite `body`; `params` (the handler's parameters) only count as mentions.
pub(crate) fn resolve(
    body: TokenStream,
    params: TokenStream,
    reasons: &Reasons<'_>,
    diag: &mut Diagnostics,
) -> Resolved {
    let mut mentioned = HashSet::new();
    collect_mentions(body.clone(), &mut mentioned);
    collect_mentions(params, &mut mentioned);
    let mut rewrite = Rewrite { reasons, mentioned: &mentioned, used: HashSet::new(), diag };
    let body = rewrite.stream(body);
    let mut used = rewrite.used;
    let reason_type = reasons.reason_type;
    let all = mentioned.contains(&format!("{reason_type}::ALL"));
    for entry in reasons.contract {
        let name = entry.reason.unraw().to_string();
        let variant = &entry.variant;
        if all
            || mentioned.contains(&format!("{reason_type}::{variant}"))
            || mentioned.contains(&format!("Self::{variant}"))
            || mentioned.contains(&format!("\"{name}\""))
        {
            used.insert(name);
        }
    }
    Resolved { body, used }
}

struct Rewrite<'r, 'd> {
    reasons: &'r Reasons<'r>,
    /// Every ident of the body outside the rewritten positions, and every string
    /// literal as written (quotes included).
    mentioned: &'r HashSet<String>,
    used: HashSet<String>,
    diag: &'d mut Diagnostics,
}

impl Rewrite<'_, '_> {
    fn stream(&mut self, tokens: TokenStream) -> TokenStream {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = Vec::with_capacity(tokens.len());
        for (index, token) in tokens.iter().enumerate() {
            let rewritten = match token {
                TokenTree::Group(group) => {
                    let call = reason_call(&tokens, index);
                    let stream = match call {
                        Some(receiver) => self.call_args(group.stream(), receiver),
                        None => group.stream(),
                    };
                    let mut new = Group::new(group.delimiter(), self.stream(stream));
                    new.set_span(group.span());
                    TokenTree::Group(new)
                }
                TokenTree::Ident(ident) if is_reason_path(&tokens, index, self.reasons.reason_type) => {
                    TokenTree::Ident(self.variant(ident))
                }
                other => other.clone(),
            };
            out.push(rewritten);
        }
        out.into_iter().collect()
    }

    /// The arguments of `receiver.fail(..)`: the first one, when a bare name, is a reason.
    fn call_args(&mut self, args: TokenStream, receiver: Option<&Ident>) -> TokenStream {
        let mut tokens: Vec<TokenTree> = args.into_iter().collect();
        let Some(TokenTree::Ident(name)) = tokens.first() else { return tokens.into_iter().collect() };
        let bare = match tokens.get(1) {
            None => true,
            Some(TokenTree::Punct(punct)) => punct.as_char() == ',',
            Some(_) => false,
        };
        if !bare {
            return tokens.into_iter().collect();
        }
        let name = name.clone();
        let written = name.unraw().to_string();
        let entry = self.reasons.contract.iter().find(|entry| entry.reason.unraw() == written);
        let entry = match entry {
            Some(entry) => entry,
            None if self.is_typo(&name, receiver) => {
                let names: Vec<String> =
                    self.reasons.contract.iter().map(|entry| entry.reason.unraw().to_string()).collect();
                let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
                let hint =
                    closest(&written, &name_refs).map(|name| format!("did you mean `{name}`? ")).unwrap_or_default();
                let list = names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
                self.diag.rule_error(
                    rules::ERROR_CONTRACT_REASON_UNKNOWN,
                    name.span(),
                    format_args!(
                        "`{written}` is not a reason of this {}'s `errors(..)`: {hint}the declared reasons are {list}",
                        self.reasons.kind.noun()
                    ),
                );
                // A stand-in keeps rustc from adding "cannot find value" here.
                let guess = closest(&written, &name_refs).unwrap_or(name_refs[0]);
                match self.reasons.contract.iter().find(|entry| entry.reason.unraw() == guess) {
                    Some(entry) => entry,
                    None => return tokens.into_iter().collect(),
                }
            }
            None => return tokens.into_iter().collect(),
        };
        self.used.insert(entry.reason.unraw().to_string());
        let span = name.span();
        let mut reason_type = self.reasons.reason_type.clone();
        reason_type.set_span(span);
        let mut variant = entry.variant.clone();
        variant.set_span(span);
        let path = quote_spanned!(span=> #reason_type::#variant);
        tokens.splice(0..1, path);
        tokens.into_iter().collect()
    }

    /// The `Variant` of a path `ToolReason::Variant`: the enum is the macro's
    /// own, so a variant it does not have is a typo, reported as a bare name's
    /// is (with the declared reasons), instead of rustc's plain "no variant".
    /// Associated items (`ALL`, `index`) are not variant-shaped and pass.
    fn variant(&mut self, written: &Ident) -> Ident {
        let name = written.unraw().to_string();
        let upper_camel = name.starts_with(|first: char| first.is_ascii_uppercase())
            && name.contains(|letter: char| letter.is_ascii_lowercase());
        let contract = self.reasons.contract;
        if !upper_camel || contract.is_empty() || contract.iter().any(|entry| entry.variant == name) {
            return written.clone();
        }
        let reason_type = self.reasons.reason_type;
        let variants: Vec<String> = contract.iter().map(|entry| entry.variant.to_string()).collect();
        let variant_refs: Vec<&str> = variants.iter().map(String::as_str).collect();
        let guess = closest(&name, &variant_refs);
        let hint = guess.map(|variant| format!("did you mean `{reason_type}::{variant}`? ")).unwrap_or_default();
        let list = contract
            .iter()
            .map(|entry| format!("`{reason_type}::{}` (`{}`)", entry.variant, entry.reason.unraw()))
            .collect::<Vec<_>>()
            .join(", ");
        self.diag.rule_error(
            rules::ERROR_CONTRACT_REASON_UNKNOWN,
            written.span(),
            format_args!(
                "`{reason_type}::{name}` is not a reason of this {}'s `errors(..)`: {hint}the declared reasons are {list}",
                self.reasons.kind.noun()
            ),
        );
        // A stand-in keeps rustc from adding "no variant named .." here.
        Ident::new(guess.unwrap_or(variant_refs[0]), written.span())
    }

    fn is_typo(&self, name: &Ident, receiver: Option<&Ident>) -> bool {
        let Some(ctx) = self.reasons.typed_ctx else { return false };
        let written = name.to_string();
        !self.reasons.contract.is_empty()
            && receiver == Some(ctx)
            && written.starts_with(|first: char| first.is_ascii_lowercase() || first == '_')
            && !self.mentioned.contains(&written)
    }
}

/// Whether `tokens[index]` is the last segment of `ToolReason::Name`.
fn is_reason_path(tokens: &[TokenTree], index: usize, reason_type: &Ident) -> bool {
    let Some(at) = index.checked_sub(3) else { return false };
    matches!(
        &tokens[at..index],
        [TokenTree::Ident(ty), TokenTree::Punct(first), TokenTree::Punct(second)]
            if ty == reason_type && first.as_char() == ':' && second.as_char() == ':'
    )
}

/// Whether `tokens[index]` is the argument group of `<receiver>.fail(..)` (or
/// another reason method); `Some(receiver)` with the receiver's ident when the
/// receiver is a plain name.
fn reason_call(tokens: &[TokenTree], index: usize) -> Option<Option<&Ident>> {
    let TokenTree::Group(group) = &tokens[index] else { return None };
    if group.delimiter() != Delimiter::Parenthesis || index < 2 {
        return None;
    }
    let TokenTree::Ident(method) = &tokens[index - 1] else { return None };
    if !REASON_METHODS.iter().any(|known| method == known) {
        return None;
    }
    let TokenTree::Punct(dot) = &tokens[index - 2] else { return None };
    if dot.as_char() != '.' {
        return None;
    }
    let receiver = match index.checked_sub(3).map(|at| &tokens[at]) {
        Some(TokenTree::Ident(receiver)) => Some(receiver),
        _ => None,
    };
    Some(receiver)
}

/// Every ident, `A::B` path pair and string literal of `tokens`, except the
/// first argument of reason calls (the names the rewrite decides about).
fn collect_mentions(tokens: TokenStream, mentioned: &mut HashSet<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) => {
                mentioned.insert(ident.unraw().to_string());
                if let [TokenTree::Punct(first), TokenTree::Punct(second), TokenTree::Ident(next), ..] =
                    tokens.get(index + 1..).unwrap_or_default()
                    && first.as_char() == ':'
                    && second.as_char() == ':'
                {
                    mentioned.insert(format!("{}::{}", ident.unraw(), next.unraw()));
                }
            }
            TokenTree::Literal(literal) => {
                mentioned.insert(literal.to_string());
            }
            TokenTree::Group(group) => {
                let mut inner: Vec<TokenTree> = group.stream().into_iter().collect();
                if reason_call(&tokens, index).is_some()
                    && matches!(inner.first(), Some(TokenTree::Ident(_)))
                    && inner.get(1).is_none_or(|tt| matches!(tt, TokenTree::Punct(p) if p.as_char() == ','))
                {
                    inner.remove(0);
                }
                collect_mentions(inner.into_iter().collect(), mentioned);
            }
            TokenTree::Punct(_) => {}
        }
    }
}
