//! What `#[mcp_resource]` and `#[mcp_prompt]` generate alike: the call of the
//! handler with what it takes, `required_state`, and the author's completer.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, ItemFn};

use crate::expand::contract::Contract;
use crate::parse::handler::{CtxKind, Param};

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
