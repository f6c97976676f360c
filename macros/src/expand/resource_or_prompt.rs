//! Expand: what `#[mcp_resource]` and `#[mcp_prompt]` generate alike, around
//! what differs (the definition and the method, `read` or `get`): the
//! generated type with its reason enum and `test_ctx()`, the `const _` block
//! that holds its definition and its trait impl, the call of the handler with
//! what it takes, `required_state`, the author's completer; and the
//! diagnostics in front of the handler.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, ItemFn, Path};

use super::contract::Contract;
use super::respan;
use crate::diag::Diagnostics;
use crate::names::to_pascal_case;
use crate::parse::handler::{CtxKind, Param, states};

/// What the generated resource or prompt type is made of.
pub(crate) struct Generated<'a> {
    /// The handler, as rewritten for its contract.
    pub(crate) item: &'a ItemFn,
    pub(crate) type_ident: &'a Ident,
    pub(crate) name: &'a str,
    pub(crate) params: &'a [Param],
    pub(crate) contract: &'a Contract,
    /// `complete = path`.
    pub(crate) complete: Option<&'a Path>,
}

/// What a resource's or a prompt's generated code has of its own.
pub(crate) struct Own {
    /// The generated type's doc.
    pub(crate) doc: String,
    /// `static DEFINITION`, and what else the `const _` block holds before the impl.
    pub(crate) definition: TokenStream,
    /// The trait's associated input type: `type Params = ..;`, `type Arguments = ..;`.
    pub(crate) input: TokenStream,
    /// `read` or `get`, which runs [`Generated::call`].
    pub(crate) method: TokenStream,
}

impl<'a> Generated<'a> {
    pub(crate) fn new(
        item: &'a ItemFn,
        type_ident: &'a Ident,
        name: &'a str,
        params: &'a [Param],
        contract: &'a Contract,
        complete: Option<&'a Path>,
    ) -> Self {
        Self { item, type_ident, name, params, contract, complete }
    }

    /// The generated type, its contract's items, and in a `const _` block its
    /// definition and its impl of the trait named after the kind, `Resource` or
    /// `Prompt`, whose definition type is `ResourceDefinition` or `PromptDefinition`.
    pub(crate) fn tokens(&self, own: Own) -> TokenStream {
        let Self { item, type_ident, name, contract, .. } = self;
        let Own { doc, definition, input, method } = own;
        let trait_ident = format_ident!("{}", to_pascal_case(contract.kind.noun()));
        let definition_type = format_ident!("{trait_ident}Definition");
        let private = &contract.private;
        let vis = &item.vis;
        let items = contract.items(item, type_ident, name);
        let complete = completer(self.complete, private);
        let required_state = self.required_state();
        let clone = super::copy_clone(type_ident);
        quote! {
            #[doc = #doc]
            #[derive(Copy, Debug, Default)]
            #vis struct #type_ident;

            #clone

            #items

            const _: () = {
                #definition

                #[automatically_derived]
                impl #private::#trait_ident for #type_ident {
                    #input

                    fn definition(&self) -> &'static #private::#definition_type {
                        &DEFINITION
                    }

                    #method

                    #complete

                    fn checked_at_compile_time(&self) -> bool {
                        true
                    }

                    #required_state
                }
            };
        }
    }

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
            // As a tool's (`handler-future-send`): a future that is not `Send`
            // is reported at the handler's name with the fix, once.
            let checked = respan(
                quote!(#private::bounds::send_handler(#private::bounds::handler_future(#call))),
                fn_ident.span(),
            );
            call = quote!(#checked.await);
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
    fn required_state(&self) -> TokenStream {
        let private = &self.contract.private;
        let states = states(self.params);
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
fn completer(path: Option<&Path>, private: &TokenStream) -> TokenStream {
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

/// The diagnostics, the handler as rewritten, and what was generated for it.
/// The handler's own `#[allow(deprecated)]` silences the warnings too.
pub(crate) fn finish(diag: Diagnostics, item: &ItemFn, generated: TokenStream) -> TokenStream {
    let allow_deprecated =
        item.attrs.iter().any(|attr| attr.path().is_ident("allow") && quote!(#attr).to_string().contains("deprecated"));
    let diagnostics = diag.into_tokens(allow_deprecated);
    quote!(#diagnostics #item #generated)
}
