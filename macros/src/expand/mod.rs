//! Expand: the handler rewritten and the types the runtime serves generated,
//! and each attribute's pipeline, which runs the three stages in the order
//! the diagnostics come in (`tool::mcp_tool`, `resource::mcp_resource`,
//! `prompt::mcp_prompt`).
//!
//! - `contract`: the reason enum, its `Reason` impl and the typed context,
//!   for the three; the contract of a resource or a prompt, wired in;
//! - `reason_names`: the bare reason names at `ctx.fail(..)` rewritten;
//! - `question_mark`: the handler's `?`s rewritten to convert any error;
//! - `tool`, `resource`, `prompt`: each attribute's pipeline and trait impl,
//!   with `resource_or_prompt` for what a resource and a prompt generate alike;
//! - `skills`: `embed_skills!`, a folder read, judged and embedded in one file;
//! - `form`: `#[derive(ElicitForm)]` and `#[derive(FormField)]`, each
//!   field's type checked where it is written.

use proc_macro2::TokenStream;

pub(crate) mod contract;
pub(crate) mod form;
pub(crate) mod prompt;
pub(crate) mod question_mark;
pub(crate) mod reason_names;
pub(crate) mod resource;
pub(crate) mod resource_or_prompt;
pub(crate) mod skills;
pub(crate) mod tool;

/// `Clone` for a generated `Copy` type, written rather than derived:
/// `derive(Clone)` on a `Copy` type also implements the standard library's
/// `TrivialClone` (Rust 1.95), one trait impl more per type for rustc's
/// coherence checking, where most of a tool's check time beyond rmcp's goes
/// (the guide's build-cost benchmark).
pub(crate) fn copy_clone(ident: &proc_macro2::Ident) -> TokenStream {
    quote::quote! {
        #[automatically_derived]
        impl ::core::clone::Clone for #ident {
            #[inline]
            fn clone(&self) -> Self {
                *self
            }
        }
    }
}

/// `tokens` with every token (inside groups too) at `span`.
pub(crate) fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner = proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            }
            token.set_span(span);
            token
        })
        .collect()
}
