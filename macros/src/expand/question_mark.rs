//! `?` in a handler that returns `Result<_, McpError>`: any
//! `std::error::Error + Send + Sync + 'static` converts, classified as
//! `McpError::from_error` does, while a `From` conversion (`McpError` itself,
//! `anyhow::Error`, an author's own) keeps its exact code.
//!
//! Rust's own `?` converts with `From` only, and a blanket
//! `From<E: Error> for McpError` would overlap `From<McpError> for McpError`.
//! The macro owns the handler, so it rewrites the handler's own `expr?` into a
//! match whose error arm picks the conversion by autoref
//! (`mcp_contract::__private::bounds::question`). A `?` in a closure, an `async`
//! block or a nested item belongs to that one's own return type and is left as
//! written.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, GenericArgument, ItemFn, PathArguments, ReturnType, Type};

use super::respan;

/// Rewrite the `?`s of `item` when it returns `Result<_, McpError>`;
/// `private` is `<crate>::__private`.
pub(crate) fn rewrite_handler(item: &mut ItemFn, private: &TokenStream) {
    if !returns_mcp_error(&item.sig.output) {
        return;
    }
    let mut rewrite = Rewrite { private };
    rewrite.visit_block_mut(&mut item.block);
}

/// Whether the return type is `Result<_, McpError>` (however `McpError` is qualified).
fn returns_mcp_error(output: &ReturnType) -> bool {
    let ReturnType::Type(_, ty) = output else { return false };
    let Type::Path(path) = &**ty else { return false };
    let Some(last) = path.path.segments.last() else { return false };
    if last.ident != "Result" {
        return false;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return false };
    matches!(
        args.args.iter().nth(1),
        Some(GenericArgument::Type(Type::Path(error)))
            if error.path.segments.last().is_some_and(|segment| segment.ident == "McpError")
    )
}

struct Rewrite<'a> {
    private: &'a TokenStream,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            // Their `?` returns from them, not from the handler.
            Expr::Closure(_) | Expr::Async(_) | Expr::TryBlock(_) => {}
            Expr::Try(_) => {
                visit_mut::visit_expr_mut(self, expr);
                let Expr::Try(question) = expr else { unreachable!("matched above") };
                let tokens = self.question(&question.expr, question.question_token.span());
                if let Ok(rewritten) = syn::parse2(tokens) {
                    *expr = rewritten;
                }
            }
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    // A nested `fn`, `impl` or `mod` has its own return types.
    fn visit_item_mut(&mut self, _item: &mut syn::Item) {}
}

impl Rewrite<'_> {
    /// `value?`, spanned at the `?` so that a missing conversion is reported
    /// there, once: the parentheses put the argument at the `?` too.
    /// Mixed-site hygiene keeps `value` and `error` from meaning anything of the body's.
    fn question(&self, value: &Expr, at: Span) -> TokenStream {
        let span = Span::mixed_site().located_at(at);
        let private = respan(self.private.clone(), span);
        quote_spanned! {span=>
            match #private::bounds::question((#value)) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    #[allow(unused_imports)]
                    use #private::bounds::{ViaFrom as _, ViaNothing as _, ViaStdError as _};
                    return ::core::result::Result::Err(
                        (&&&#private::bounds::ErrorProbe::of(&error)).mcp_conversion().convert(error),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::{ToTokens, quote};

    use super::*;

    fn rewritten(source: &str) -> String {
        let mut item: ItemFn = syn::parse_str(source).expect("parses");
        rewrite_handler(&mut item, &quote!(::mcp_contract::__private));
        item.block.to_token_stream().to_string()
    }

    #[test]
    fn rewrites_the_handlers_own_question_marks() {
        let body = rewritten("fn f() -> Result<u8, McpError> { let n = g()?; Ok(h(n).await?) }");
        assert_eq!(body.matches("bounds :: question").count(), 2, "{body}");
        assert!(!body.contains('?'), "{body}");
    }

    #[test]
    fn leaves_closures_async_blocks_and_nested_items_alone() {
        let body = rewritten(
            "fn f() -> Result<u8, mcp_contract::McpError> { \
                let c = || -> Option<u8> { Some(g()?) }; \
                let a = async { h()? }; \
                fn inner() -> Option<u8> { None? } \
                Ok(0) }",
        );
        assert_eq!(body.matches('?').count(), 3, "{body}");
        assert!(!body.contains("bounds :: question"), "{body}");
    }

    #[test]
    fn leaves_handlers_with_another_error_type_alone() {
        let body = rewritten("fn f() -> Result<u8, MyError> { Ok(g()?) }");
        assert!(body.contains('?') && !body.contains("question"), "{body}");
    }
}
