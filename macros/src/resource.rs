//! `#[mcp_resource]`: a handler function into a resource type. Parse the keys
//! and the handler's parameters, check the URI template with the runtime's own
//! RFC 6570 parser (crate `mcp-contract-uri-template`), and generate the
//! `Resource` impl. Everything here is new and apart from `#[mcp_tool]`'s files.
//!
//! Not yet: an `errors(..)` contract (darling refuses the key).

use darling::FromMeta;
use darling::ast::NestedMeta;
use mcp_contract_uri_template::UriTemplate;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{FnArg, GenericArgument, ItemFn, LitStr, PathArguments, ReturnType, Type};

use crate::ast::doc_paragraph;
use crate::diag::Diagnostics;
use crate::rules;

#[derive(Default, FromMeta)]
struct ResourceArgs {
    uri: Option<LitStr>,
    name: Option<LitStr>,
    title: Option<LitStr>,
    description: Option<LitStr>,
    mime_type: Option<LitStr>,
    complete: Option<syn::Path>,
}

/// How the handler takes the context.
pub(crate) enum CtxParam {
    /// `Context`, `&Context`.
    Untyped { by_ref: bool },
    /// `Ctx`, `Ctx<R>`, `&Ctx`.
    Typed { by_ref: bool },
}

pub(crate) enum Param {
    Params(Box<Type>),
    State(Box<Type>),
    Ctx(CtxParam),
}

pub(crate) fn expand(args: TokenStream, item: ItemFn) -> TokenStream {
    let mut diag = Diagnostics::default();
    let args = match NestedMeta::parse_meta_list(args) {
        Ok(items) => diag.darling(ResourceArgs::from_list(&items)).unwrap_or_default(),
        Err(err) => {
            diag.error(err);
            ResourceArgs::default()
        }
    };
    let fn_ident = item.sig.ident.clone();
    let fn_name = syn::ext::IdentExt::unraw(&fn_ident).to_string();

    // uri-template-required, uri-template-valid
    let template = match &args.uri {
        None => {
            diag.rule_error(
                rules::URI_TEMPLATE_REQUIRED,
                Span::call_site(),
                "`#[mcp_resource]` needs `uri = \"..\"`: a URI such as `museum://about`, or an RFC 6570 template such as `museum://objects/{object_id}`",
            );
            None
        }
        Some(uri) => match UriTemplate::parse(&uri.value()) {
            Ok(template) => Some(template),
            Err(err) => {
                let value = uri.value();
                let at = err.offset();
                let shown = value[at..].chars().next().map_or_else(String::new, |c| c.to_string());
                diag.rule_error(
                    rules::URI_TEMPLATE_VALID,
                    uri.span(),
                    format_args!(
                        "invalid URI template: {} (at byte {at}, `{shown}` in `{}`)",
                        err.message(),
                        value.escape_debug()
                    ),
                );
                None
            }
        },
    };

    // name-required, resource-name-not-uri
    let name = args.name.as_ref().map_or_else(|| fn_name.clone(), LitStr::value);
    if let Some(lit) = &args.name {
        if name.trim().is_empty() {
            diag.rule_error(
                rules::NAME_REQUIRED,
                lit.span(),
                "`name = \"\"`: remove `name` to use the function's name, or give one",
            );
        } else if name.contains("://") {
            diag.rule_warning(
                rules::RESOURCE_NAME_NOT_URI,
                lit.span(),
                format_args!("the resource name `{name}` looks like a URI; the URI belongs in `uri`, the name says what the resource is"),
            );
        }
    }

    // description-required
    let description = args.description.as_ref().map(LitStr::value).or_else(|| doc_paragraph(&item));
    let shown = if name.trim().is_empty() { fn_name.as_str() } else { name.as_str() };
    if description.as_deref().is_none_or(|text| text.trim().is_empty()) {
        diag.rule_warning(
            rules::DESCRIPTION_REQUIRED,
            fn_ident.span(),
            format_args!("resource `{shown}` has no description: add a `///` doc comment or `description = \"..\"` saying what it holds"),
        );
    }

    let params = parse_params(
        &item,
        &mut diag,
        "resource",
        "`Result<ResourceContents, McpError>` (or any `Ok` type that converts into `ResourceContents`, such as `String`)",
    );
    let params_ty = params.iter().find_map(|param| match param {
        Param::Params(ty) => Some(ty.clone()),
        Param::State(_) | Param::Ctx(_) => None,
    });

    // template-params-align: variables need a params struct, a static URI takes
    // none, and the variables and the struct's fields are the same names.
    let mut align = TokenStream::new();
    if let (Some(template), Some(uri)) = (&template, &args.uri) {
        let variables = template.variable_names();
        match &params_ty {
            None if !variables.is_empty() => diag.rule_error(
                rules::TEMPLATE_PARAMS_ALIGN,
                uri.span(),
                format_args!(
                    "the URI template has the variables {}; take them as one params struct, e.g. `params: {}Params` with a field per variable",
                    variables.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "),
                    to_pascal_case(&fn_name)
                ),
            ),
            Some(ty) if variables.is_empty() => diag.rule_error(
                rules::TEMPLATE_PARAMS_ALIGN,
                syn::spanned::Spanned::span(&**ty),
                "a static URI has no variables to fill this params struct; remove the parameter, or put `{variable}`s in the URI",
            ),
            Some(ty) => {
                let mut fields = Vec::new();
                for variable in variables {
                    match syn::parse_str::<syn::Ident>(variable) {
                        Ok(mut field) => {
                            field.set_span(uri.span());
                            fields.push(field);
                        }
                        Err(_) => diag.rule_error(
                            rules::TEMPLATE_PARAMS_ALIGN,
                            uri.span(),
                            format_args!("the variable `{variable}` cannot be a field of the params struct; name it like a Rust field (letters, digits, `_`)"),
                        ),
                    }
                }
                // Both directions in one exhaustive pattern, spanned at the URI:
                // rustc names a variable that is no field (E0026) and a field no
                // variable fills (E0027). Only for a plain struct path.
                if let Type::Path(path) = &**ty
                    && path.qself.is_none()
                {
                    // The path respanned too, so the diagnostics point at the URI alone.
                    let path: TokenStream = quote::ToTokens::to_token_stream(&path.path)
                        .into_iter()
                        .map(|mut token| {
                            token.set_span(uri.span());
                            token
                        })
                        .collect();
                    align = quote_spanned! {uri.span()=>
                        #[allow(dead_code, clippy::no_effect_underscore_binding)]
                        fn __template_params_align(params: &#path) {
                            let #path { #(#fields: _),* } = params;
                        }
                    };
                }
            }
            None => {}
        }
    }

    let generated = generate(&item, &args, &name, description.as_deref(), params_ty.as_deref(), &params, align);
    let allow_deprecated =
        item.attrs.iter().any(|attr| attr.path().is_ident("allow") && quote!(#attr).to_string().contains("deprecated"));
    let diagnostics = diag.into_tokens(allow_deprecated);
    quote!(#diagnostics #item #generated)
}

fn generate(
    item: &ItemFn,
    args: &ResourceArgs,
    name: &str,
    description: Option<&str>,
    params_ty: Option<&Type>,
    params: &[Param],
    align: TokenStream,
) -> TokenStream {
    let fn_ident = &item.sig.ident;
    let vis = &item.vis;
    let pascal = to_pascal_case(&syn::ext::IdentExt::unraw(fn_ident).to_string());
    let type_ident = format_ident!("{pascal}", span = fn_ident.span());
    let uri = args.uri.as_ref().map_or_else(String::new, LitStr::value);
    let title = args.title.as_ref().map(|title| quote!(.with_title(#title)));
    let description = description.map(|text| quote!(.with_description(#text)));
    let mime_type = args.mime_type.as_ref().map(|mime| quote!(.with_mime_type(#mime)));
    let params_ty = params_ty.map_or_else(|| quote!(::mcp_contract::__private::NoArguments), |ty| quote!(#ty));
    let call_args = call_args(params);
    let states = states(params);
    let complete = completer(args.complete.as_ref());
    let awaited = item.sig.asyncness.map(|_| quote!(.await));
    let doc = format!("The resource `{name}` (`{uri}`), generated by `#[mcp_resource]` from [`{fn_ident}`].");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #type_ident;

        const _: () = {
            static DEFINITION: ::mcp_contract::__private::ResourceDefinition =
                ::mcp_contract::__private::ResourceDefinition::new(#uri, #name) #title #description #mime_type;

            #align

            #[automatically_derived]
            impl ::mcp_contract::__private::Resource for #type_ident {
                type Params = #params_ty;

                fn definition(&self) -> &'static ::mcp_contract::__private::ResourceDefinition {
                    &DEFINITION
                }

                async fn read(
                    &self,
                    _uri: &str,
                    params: #params_ty,
                    ctx: ::mcp_contract::__private::Context,
                ) -> ::core::result::Result<::mcp_contract::__private::ResourceContents, ::mcp_contract::__private::McpError> {
                    let _ = &params;
                    let output = #fn_ident(#(#call_args),*) #awaited ?;
                    ::core::result::Result::Ok(::core::convert::Into::into(output))
                }

                #complete

                fn required_state(&self) -> &'static [::mcp_contract::__private::StateType] {
                    const REQUIRED: &[::mcp_contract::__private::StateType] =
                        &[#(::mcp_contract::__private::StateType::of::<#states>()),*];
                    REQUIRED
                }
            }
        };
    }
}

/// `complete = path`: the author's completer, an
/// `async fn(CompletionRequest, Context) -> Result<Completion, McpError>`.
pub(crate) fn completer(path: Option<&syn::Path>) -> TokenStream {
    let Some(path) = path else { return TokenStream::new() };
    quote! {
        async fn complete(
            &self,
            request: ::mcp_contract::__private::CompletionRequest,
            ctx: ::mcp_contract::__private::Context,
        ) -> ::core::result::Result<::mcp_contract::__private::Completion, ::mcp_contract::__private::McpError> {
            #path(request, ctx).await
        }
    }
}

/// The arguments the generated code calls the handler with, from `params`
/// (the decoded struct) and `ctx` (the untyped context).
pub(crate) fn call_args(params: &[Param]) -> Vec<TokenStream> {
    params
        .iter()
        .map(|param| match param {
            Param::Params(_) => quote!(params),
            Param::State(ty) => quote!(::mcp_contract::__private::State::<#ty>::from_context(&ctx)?),
            Param::Ctx(CtxParam::Untyped { by_ref: false }) => quote!(::core::clone::Clone::clone(&ctx)),
            Param::Ctx(CtxParam::Untyped { by_ref: true }) => quote!(&ctx),
            Param::Ctx(CtxParam::Typed { by_ref }) => {
                let amp = by_ref.then(|| quote!(&));
                quote!(#amp ::mcp_contract::__private::typed_context(::core::clone::Clone::clone(&ctx)))
            }
        })
        .collect()
}

/// The `T` of each `State<T>` parameter.
pub(crate) fn states(params: &[Param]) -> Vec<&Type> {
    params
        .iter()
        .filter_map(|param| match param {
            Param::State(ty) => Some(&**ty),
            Param::Params(_) | Param::Ctx(_) => None,
        })
        .collect()
}

pub(crate) fn parse_params(item: &ItemFn, diag: &mut Diagnostics, kind: &str, returns: &str) -> Vec<Param> {
    let mut params = Vec::new();
    for arg in &item.sig.inputs {
        let FnArg::Typed(arg) = arg else {
            diag.error(syn::Error::new_spanned(arg, format!("`#[mcp_{kind}]` handlers are free functions")));
            continue;
        };
        let (ty, by_ref) = match &*arg.ty {
            Type::Reference(reference) if reference.mutability.is_none() => (&*reference.elem, true),
            ty => (ty, false),
        };
        let param = match last_segment(ty) {
            Some(("Context", PathArguments::None)) => Param::Ctx(CtxParam::Untyped { by_ref }),
            Some(("Ctx", _)) => Param::Ctx(CtxParam::Typed { by_ref }),
            Some(("State", PathArguments::AngleBracketed(args))) if !by_ref => match args.args.first() {
                Some(GenericArgument::Type(ty)) => Param::State(Box::new(ty.clone())),
                _ => Param::Params(arg.ty.clone()),
            },
            _ => Param::Params(arg.ty.clone()),
        };
        let repeated = !matches!(param, Param::State(_))
            && params.iter().any(|seen| std::mem::discriminant(seen) == std::mem::discriminant(&param));
        if repeated {
            diag.error(syn::Error::new_spanned(
                arg,
                format!("a {kind} handler takes at most one params or arguments struct and one context; shared state is taken as `State<T>`"),
            ));
        } else {
            params.push(param);
        }
    }
    if !matches!(&item.sig.output, ReturnType::Type(_, ty) if last_segment(ty).is_some_and(|(name, _)| name == "Result"))
    {
        let span = match &item.sig.output {
            ReturnType::Default => item.sig.ident.span(),
            ReturnType::Type(_, ty) => syn::spanned::Spanned::span(&**ty),
        };
        diag.error(syn::Error::new(span, format!("a `#[mcp_{kind}]` handler returns {returns}")));
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

pub(crate) fn to_pascal_case(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
        })
        .collect()
}
