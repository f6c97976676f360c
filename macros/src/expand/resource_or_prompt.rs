//! What `#[mcp_resource]` and `#[mcp_prompt]` generate alike: the handler's
//! parameters read as a tool's are, the call of the handler with what it takes,
//! `required_state`, and the author's completer.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ItemFn, PathArguments, ReturnType, Type};

use crate::diag::Diagnostics;
use crate::expand::contract::Contract;
use crate::parse::handler::{self as ast, CtxKind, Param};

/// What the generated resource or prompt type is made of.
pub(crate) struct Generated<'a> {
    /// The handler, as rewritten for its contract.
    pub(crate) item: &'a ItemFn,
    pub(crate) type_ident: &'a Ident,
    pub(crate) name: &'a str,
    pub(crate) params: &'a [Param],
    pub(crate) contract: &'a Contract,
}

impl Generated<'_> {
    /// The body of `read` or `get`: the handler called with what it takes, its
    /// success turned into the trait's by `into`. A plain `fn` runs on the
    /// blocking pool, as a tool's does (see `run_blocking`), so a handler that
    /// computes for long delays no other request.
    pub(crate) fn call(&self, into: Option<TokenStream>) -> TokenStream {
        let private = &self.contract.private;
        let fn_ident = &self.item.sig.ident;
        let args = call_args(self.params, private);
        let mut call = quote!(#fn_ident(#(#args),*));
        if self.item.sig.asyncness.is_some() {
            call = quote!(#call.await);
        }
        if let Some(into) = into {
            call = quote!(::core::result::Result::Ok(#into(#call?)));
        }
        let body =
            if self.item.sig.asyncness.is_some() { call } else { quote!(#private::run_blocking(move || #call).await) };
        // Not every handler takes the params or the context.
        quote! {
            let _ = (&params, &ctx);
            #body
        }
    }

    /// `required_state`: the `T` of each `State<T>` parameter.
    pub(crate) fn required_state(&self) -> TokenStream {
        let private = &self.contract.private;
        let states = self.params.iter().filter_map(|param| match param {
            Param::State(ty) => Some(&**ty),
            Param::Input(_) | Param::Ctx { .. } => None,
        });
        quote! {
            fn required_state(&self) -> &'static [#private::StateType] {
                const REQUIRED: &[#private::StateType] = &[#(#private::StateType::of::<#states>()),*];
                REQUIRED
            }
        }
    }
}

/// `complete = path`: the author's completer, an
/// `async fn(CompletionRequest, Context) -> Result<Completion, McpError>`.
pub(crate) fn completer(path: Option<&syn::Path>, private: &TokenStream) -> TokenStream {
    let Some(path) = path else { return TokenStream::new() };
    quote! {
        async fn complete(
            &self,
            request: #private::CompletionRequest,
            ctx: #private::Context,
        ) -> ::core::result::Result<#private::Completion, #private::McpError> {
            #path(request, ctx).await
        }
    }
}

/// The arguments the generated code calls the handler with, from `params`
/// (the decoded struct) and `ctx` (the untyped context).
fn call_args(params: &[Param], private: &TokenStream) -> Vec<TokenStream> {
    params
        .iter()
        .map(|param| match param {
            Param::Input(_) => quote!(params),
            Param::State(ty) => quote!(#private::State::<#ty>::from_context(&ctx)?),
            Param::Ctx { kind: CtxKind::Untyped, by_ref: false } => quote!(::core::clone::Clone::clone(&ctx)),
            Param::Ctx { kind: CtxKind::Untyped, by_ref: true } => quote!(&ctx),
            Param::Ctx { kind: CtxKind::Typed | CtxKind::TypedExplicit, by_ref } => {
                let amp = by_ref.then(|| quote!(&));
                quote!(#amp #private::typed_context(::core::clone::Clone::clone(&ctx)))
            }
        })
        .collect()
}

/// The parameters of a resource's or prompt's handler, read as a tool's are
/// ([`ast::signature`]), and the check of its return type, which differs per kind.
pub(crate) fn parse_params(item: &ItemFn, diag: &mut Diagnostics, kind: ast::Kind, returns: &str) -> Vec<Param> {
    let params = ast::signature(&item.sig, kind, diag).params;
    if !matches!(&item.sig.output, ReturnType::Type(_, ty) if last_segment(ty).is_some_and(|(name, _)| name == "Result"))
    {
        let span = match &item.sig.output {
            ReturnType::Default => item.sig.ident.span(),
            ReturnType::Type(_, ty) => syn::spanned::Spanned::span(&**ty),
        };
        let attribute = if kind == ast::Kind::Resource { "mcp_resource" } else { "mcp_prompt" };
        diag.rule_error(
            crate::rules::HANDLER_SIGNATURE,
            span,
            format_args!("a `#[{attribute}]` handler returns {returns}"),
        );
    }
    params
}

fn last_segment(ty: &Type) -> Option<(&str, &PathArguments)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    // The ident's text lives in the token; leak-free through a match on known names.
    let name = ["Context", "Ctx", "State", "Result"].into_iter().find(|known| last.ident == known)?;
    Some((name, &last.arguments))
}
