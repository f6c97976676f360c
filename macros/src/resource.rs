//! `#[mcp_resource]`: a handler function into a resource type. Parse the keys
//! and the handler's parameters, check the URI template with the runtime's own
//! RFC 6570 parser (crate `mcp-contract-uri-template`), take the error contract
//! as `#[mcp_tool]` does (`contract.rs`), and generate the `Resource` impl.

use darling::FromMeta;
use darling::util::Flag;
use mcp_contract_uri_template::UriTemplate;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, ItemFn, LitStr, Meta, Path, Type};

use crate::ast::{self, Param, doc_paragraph};
use crate::attr::{self, Keys, keys};
use crate::contract::{Contract, ContractKeys};
use crate::diag::Diagnostics;
use crate::names::to_pascal_case;
use crate::primitive::{Generated, completer, parse_params};
use crate::rules;

keys! {
    /// The keys of `#[mcp_resource]`; `allow(..)` is taken out before.
    struct ResourceArgs {
        uri: Option<LitStr>,
        name: Option<LitStr>,
        title: Option<LitStr>,
        description: Option<LitStr>,
        mime_type: Option<LitStr>,
        /// `ui` or `ui(..)`: the resource serves an MCP App's HTML, with these sandbox settings.
        ui: Option<Meta>,
        complete: Option<Path>,
        errors: Option<Meta>,
        /// `resource_type = Name`: the generated resource type (default: the PascalCase function name).
        resource_type: Option<Ident>,
        /// `reason_type = Name`: the generated reason enum (default: the resource type + `Reason`).
        reason_type: Option<Ident>,
        /// `crate = path`: where `mcp-contract` is, for crates that re-export it.
        #[key = "crate"]
        krate: Option<Path>,
        /// `params_renamed`: the params struct renames its fields for serde, so
        /// `template-params-align` is left to `Server::build`, which sees the names.
        params_renamed: Flag,
    }
}

pub(crate) fn expand(args: TokenStream, mut item: ItemFn) -> TokenStream {
    let mut diag = Diagnostics::default();
    let (mut args, allow): (ResourceArgs, _) = attr::parse_keys(args, &mut diag);
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
        ast::Kind::Resource,
        "`Result<ReadResourceResult, McpError>` (or any `Ok` type that converts into `ReadResourceResult`, such as `String`)",
    );
    let params_ty = params.iter().find_map(|param| match param {
        Param::Input(ty) => Some(ty.clone()),
        Param::State(_) | Param::Ctx { .. } => None,
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
            // The macro sees Rust field names, serde renames them: the check
            // against the serde names is the definition linter's, at `Server::build`.
            Some(_) if args.params_renamed.is_present() => {}
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
                            format_args!("the variable `{variable}` cannot be a field of the params struct; name it like a Rust field (letters, digits, `_`), or, when a field is renamed to it with `#[serde(rename = \"{variable}\")]`, add `params_renamed`"),
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

    let type_ident = args
        .resource_type
        .take()
        .unwrap_or_else(|| format_ident!("{}", to_pascal_case(&fn_name), span = fn_ident.span()));
    let keys = ContractKeys {
        errors: args.errors.take(),
        reason_type: args.reason_type.take(),
        krate: args.krate.take(),
        allow,
    };
    let contract = Contract::apply(keys, "resource", &mut item, &type_ident, &mut diag);
    let ui = args.ui.as_ref().map(|meta| app_ui(&args, meta, &contract.private, &mut diag));
    contract.retain_warnings(&mut diag);

    let resource =
        Generated { item: &item, type_ident: &type_ident, name: &name, params: &params, contract: &contract };
    let generated = resource.generate(&args, description.as_deref(), params_ty.as_deref(), align, ui);
    let allow_deprecated =
        item.attrs.iter().any(|attr| attr.path().is_ident("allow") && quote!(#attr).to_string().contains("deprecated"));
    let diagnostics = diag.into_tokens(allow_deprecated);
    quote!(#diagnostics #item #generated)
}

/// `ui(..)`: its settings, and the resource's URI and MIME type checked for an
/// app: `meta-ui-resource-uri-scheme` (hosts fetch apps at `ui://`) and
/// `meta-ui-resource-mime-type` (hosts render only the app MIME type).
fn app_ui(args: &ResourceArgs, meta: &Meta, private: &TokenStream, diag: &mut Diagnostics) -> TokenStream {
    if let Some(uri) = &args.uri
        && !uri.value().starts_with("ui://")
    {
        diag.rule_warning(
            rules::META_UI_RESOURCE_URI_SCHEME,
            uri.span(),
            format_args!(
                "the MCP App resource `{}` is no `ui://` URI, which MCP Apps hosts expect (SDK hosts refuse others): serve it at `ui://..`",
                uri.value()
            ),
        );
    }
    if let Some(mime) = &args.mime_type
        && mime.value() != rules::check::APP_MIME_TYPE
    {
        diag.rule_error(
            rules::META_UI_RESOURCE_MIME_TYPE,
            mime.span(),
            format_args!(
                "an MCP App's HTML is served as `{app}`, which hosts look for, not `{}`: remove `mime_type` (`ui` sets it) or write `mime_type = \"{app}\"`",
                mime.value(),
                app = rules::check::APP_MIME_TYPE
            ),
        );
    }
    crate::app_ui::parse(meta, private, diag)
}

impl Generated<'_> {
    /// The resource type, its definition and its `Resource` impl.
    fn generate(
        &self,
        args: &ResourceArgs,
        description: Option<&str>,
        params_ty: Option<&Type>,
        align: TokenStream,
        ui: Option<TokenStream>,
    ) -> TokenStream {
        let Self { item, type_ident, name, contract, .. } = self;
        let private = &contract.private;
        let fn_ident = &item.sig.ident;
        let vis = &item.vis;
        let uri = args.uri.as_ref().map_or_else(String::new, LitStr::value);
        let title = args.title.as_ref().map(|title| quote!(.with_title(#title)));
        let description = description.map(|text| quote!(.with_description(#text)));
        // An app's HTML is served as the extension's MIME type unless the author wrote it.
        let mime_type = match (&args.mime_type, &ui) {
            (Some(mime), _) => Some(quote!(.with_mime_type(#mime))),
            (None, Some(_)) => Some(quote!(.with_mime_type(#private::APP_MIME_TYPE))),
            (None, None) => None,
        };
        let ui = ui.map(|ui| quote!(.with_ui(#ui)));
        let errors = contract.with_errors();
        let params_ty = params_ty.map_or_else(|| quote!(#private::NoArguments), |ty| quote!(#ty));
        let call = self.call(Some(quote!(::core::convert::Into::<#private::ReadResourceResult>::into)));
        let complete = completer(args.complete.as_ref(), private);
        let required_state = self.required_state();
        let items = contract.items(item, type_ident, name);
        let doc = format!("The resource `{name}` (`{uri}`), generated by `#[mcp_resource]` from [`{fn_ident}`].");
        quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default)]
            #vis struct #type_ident;

            #items

            const _: () = {
                static DEFINITION: #private::ResourceDefinition =
                    #private::ResourceDefinition::new(#uri, #name) #title #description #mime_type #ui #errors;

                #align

                #[automatically_derived]
                impl #private::Resource for #type_ident {
                    type Params = #params_ty;

                    fn definition(&self) -> &'static #private::ResourceDefinition {
                        &DEFINITION
                    }

                    async fn read(
                        &self,
                        _uri: &str,
                        params: #params_ty,
                        ctx: #private::Context,
                    ) -> ::core::result::Result<#private::ReadResourceResult, #private::McpError> {
                        #call
                    }

                    #complete

                    fn checked_at_compile_time(&self) -> bool {
                        true
                    }

                    #required_state
                }
            };
        }
    }
}
