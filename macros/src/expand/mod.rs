//! Expand: generate the handler's rewrites and the types the runtime serves.

use proc_macro2::TokenStream;

pub(crate) mod contract;
pub(crate) mod prompt;
pub(crate) mod question_mark;
pub(crate) mod reason_names;
pub(crate) mod resource;
pub(crate) mod resource_or_prompt;
pub(crate) mod tool;

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
