//! Expand: the error contract's generated code, for the three attributes: the
//! reason enum and its `Reason` impl, and `ctx: Ctx` typed with the enum. Then
//! the contract of `#[mcp_resource]` and `#[mcp_prompt]`, as `#[mcp_tool]` has
//! it: the same `errors(..)`, `reason_type`, `crate` and `allow(..)` keys, read
//! by `parse::contract`, judged by `valid::contract` and the body rules, the
//! reason names rewritten by `reason_names`; only the wiring into a resource or
//! a prompt lives here.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{FnArg, GenericArgument, ItemFn, PathArguments, Type};

use super::question_mark;
use super::reason_names::{self, Reasons};
use crate::diag::Diagnostics;
use crate::kind::Kind;
use crate::parse::contract::ContractKeys;
use crate::valid::contract::{Entry, Judged, check_keys};

/// `ctx: Ctx` becomes `ctx: Ctx<ToolReason>`, so `fail` accepts exactly the
/// declared reasons. The author's own path stays as written (only the generic
/// argument is added), so it resolves as the author wrote it and no lint sees a
/// qualification the author did not write.
pub(crate) fn type_the_context(item: &mut syn::ItemFn, reason_type: &TokenStream) {
    for arg in &mut item.sig.inputs {
        let FnArg::Typed(arg) = arg else { continue };
        let ty = match &mut *arg.ty {
            Type::Reference(reference) => &mut *reference.elem,
            ty => ty,
        };
        if let Type::Path(path) = ty
            && let Some(last) = path.path.segments.last_mut()
            && last.ident == "Ctx"
            && last.arguments.is_none()
        {
            let argument: GenericArgument = syn::parse_quote!(#reason_type);
            last.arguments = PathArguments::AngleBracketed(syn::parse_quote!(<#argument>));
        }
    }
}

/// The reason enum of a handler's contract; `kind` for its doc.
pub(crate) fn reason_enum(
    vis: &syn::Visibility,
    fn_ident: &Ident,
    reason_ident: &Ident,
    contract: &[Entry],
    kind: Kind,
) -> TokenStream {
    let variants = contract.iter().map(|entry| &entry.variant);
    let variant_docs = contract.iter().map(|entry| format!("{} (`{}`)", entry.when, entry.code));
    let doc = format!(
        "The failure modes of the `{fn_ident}` {}, as declared in its `errors(..)` contract; their accessors are the `Reason` trait's.",
        kind.noun()
    );
    let clone = super::copy_clone(reason_ident);
    quote! {
        #[doc = #doc]
        #[derive(Copy, Debug, PartialEq, Eq, Hash)]
        #vis enum #reason_ident {
            #( #[doc = #variant_docs] #variants, )*
        }

        #clone
    }
}

/// The contract itself; the runtime's `Reason` provides the accessors.
pub(crate) fn reason_impl(reason_ident: &Ident, contract: &[Entry], private: &TokenStream) -> TokenStream {
    let variants = contract.iter().map(|entry| &entry.variant);
    let entries = contract.iter().map(|entry| {
        let reason = syn::ext::IdentExt::unraw(&entry.reason).to_string();
        let (code, when, recovery, retryable) = (&entry.code, &entry.when, &entry.recovery, entry.retryable);
        // `code` keeps the span of the author's `code = ..` value.
        let code = quote!(#private::JsonRpcErrorCode::#code);
        let retryable = retryable.then(|| quote!(.with_retryable(true)));
        let severity = entry.severity.as_deref().map(|name| {
            let level = quote::format_ident!("{}", crate::names::to_pascal_case(name));
            quote!(.with_severity(#private::ErrorSeverity::#level))
        });
        let private_hint = entry.recovery_private.then(|| quote!(.with_recovery_private()));
        quote! {
            #private::ErrorContract::new(#reason, #code, #when, #recovery) #retryable #severity #private_hint
        }
    });
    quote! {
        #[automatically_derived]
        impl #private::Reason for #reason_ident {
            const CONTRACT: &'static [#private::ErrorContract] = &[ #(#entries),* ];
            const ALL: &'static [Self] = &[ #(Self::#variants),* ];

            fn index(self) -> usize {
                self as usize
            }
        }
    }
}

/// The contract of a resource or prompt, checked, with its handler rewritten.
pub(crate) struct Contract {
    /// `Resource` or `Prompt`.
    pub(crate) kind: Kind,
    /// `<crate>::__private`, where generated code finds the runtime.
    pub(crate) private: TokenStream,
    /// The generated reason enum: `reason_type = ..`, or the generated type + `Reason`.
    reason_type: Ident,
    /// `None` without `errors(..)`.
    entries: Option<Vec<Entry>>,
    allowed: Vec<String>,
}

impl Contract {
    /// Judge the keys and the handler's body as `#[mcp_tool]` does
    /// ([`check_keys`]), and rewrite the handler: the reasons at `ctx.fail(..)`
    /// resolved, `ctx: Ctx` typed with the reason enum, its `?`s converting any
    /// error. `type_ident` is the generated resource or prompt type.
    pub(crate) fn apply(
        keys: ContractKeys,
        kind: Kind,
        item: &mut ItemFn,
        type_ident: &Ident,
        diag: &mut Diagnostics,
    ) -> Self {
        let Judged { entries, reason_type, krate, allowed } = check_keys(keys, kind, item, type_ident, diag);

        if let Some(contract) = &entries {
            let (typed, ctx_name) = bare_ctx(item);
            let reasons = Reasons { contract, reason_type: &reason_type, typed_ctx: ctx_name.as_ref(), kind };
            reason_names::resolve_handler(item, &reasons, diag);
            if typed {
                type_the_context(item, &quote!(#reason_type));
            }
        }

        let krate = krate.unwrap_or_else(|| syn::parse_quote!(::mcp_contract));
        let private = quote!(#krate::__private);
        question_mark::rewrite_handler(item, &private);
        Self { kind, private, reason_type, entries, allowed }
    }

    /// Drop the warnings of the rules `allow(..)` names; once every warning is in.
    pub(crate) fn retain_warnings(&self, diag: &mut Diagnostics) {
        diag.retain_warnings(|warning| !self.allowed.iter().any(|rule| *rule == warning.rule.id));
    }

    /// `.with_allowed_rules(..)` of the definition, when `allow(..)` names
    /// rules: the definition linter honours them as the macro does.
    pub(crate) fn with_allowed_rules(&self) -> Option<TokenStream> {
        let ids = &self.allowed;
        (!ids.is_empty()).then(|| quote!(.with_allowed_rules(&[#(#ids),*])))
    }

    /// `.with_errors(..)` of the definition, when there is a contract.
    pub(crate) fn with_errors(&self) -> Option<TokenStream> {
        let private = &self.private;
        let reason_type = &self.reason_type;
        self.entries.as_ref().map(|_| quote!(.with_errors(<#reason_type as #private::Reason>::CONTRACT)))
    }

    /// The reason enum, and the generated type's `test_ctx()`.
    pub(crate) fn items(&self, item: &ItemFn, type_ident: &Ident, name: &str) -> TokenStream {
        let private = &self.private;
        let vis = &item.vis;
        let reason_enum = self.entries.as_ref().map(|entries| {
            let reason_enum = reason_enum(vis, &item.sig.ident, &self.reason_type, entries, self.kind);
            let reason_impl = reason_impl(&self.reason_type, entries, private);
            quote!(#reason_enum const _: () = { #reason_impl };)
        });
        let (reason_type, errors) = match &self.entries {
            Some(_) => {
                let reason_type = &self.reason_type;
                (quote!(#reason_type), quote!(<#reason_type as #private::Reason>::CONTRACT))
            }
            None => (quote!(#private::NoContract), quote!(&[])),
        };
        let kind = self.kind.noun();
        let doc = format!(
            "A context of this {kind} for unit tests of its handler: the {kind}'s name and contract, no client (what it sends is `captured()`); add a caller, state, capabilities with `with_caller(..)` and the rest."
        );
        quote! {
            #reason_enum

            #[automatically_derived]
            impl #type_ident {
                #[doc = #doc]
                #[must_use]
                #vis fn test_ctx() -> #private::Ctx<#reason_type> {
                    #private::typed_context(#private::Context::for_unit_test(#name, #errors))
                }
            }
        }
    }
}

/// Whether the handler takes `Ctx` without a reason type (which the macro then
/// fills in), and the parameter's name when it is a plain binding.
fn bare_ctx(item: &ItemFn) -> (bool, Option<Ident>) {
    for arg in &item.sig.inputs {
        let FnArg::Typed(arg) = arg else { continue };
        let ty = match &*arg.ty {
            Type::Reference(reference) => &*reference.elem,
            ty => ty,
        };
        if let Type::Path(path) = ty
            && let Some(last) = path.path.segments.last()
            && last.ident == "Ctx"
            && matches!(last.arguments, PathArguments::None)
        {
            let name = match &*arg.pat {
                syn::Pat::Ident(binding) => Some(binding.ident.clone()),
                _ => None,
            };
            return (true, name);
        }
    }
    (false, None)
}
