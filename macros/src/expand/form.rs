//! `#[derive(ElicitForm)]` and `#[derive(FormField)]`: the item read, its
//! shape judged, and the trait implemented, with each field's type checked
//! where it is written.
//!
//! A field's check is a call of a `const fn` bounded by the trait it needs,
//! instantiated with the field's type at the field's span (thiserror's way),
//! so rustc's error, worded by the trait's `on_unimplemented`, points at the
//! field. The impl itself stays unconditional, so a bad field is one error
//! and not a second one at every `ctx.elicit::<T>()`. A field whose type
//! names one of the item's type parameters cannot be checked alone: its
//! bound goes on the impl instead (`Form<T>` is a form when `T` is a field).

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Type, WherePredicate};

use super::respan;
use crate::diag::Diagnostics;
use crate::parse::form::FormItem;
use crate::valid::form::{FieldShape, check_field, check_form};

/// The expansion of `#[derive(ElicitForm)]`.
pub(crate) fn derive_elicit_form(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(err) => return err.to_compile_error(),
    };
    let mut diag = Diagnostics::default();
    let item = FormItem::read(&input, &mut diag);
    check_form(&item, &mut diag);
    let krate = &item.krate;
    let private = quote!(#krate::__private);
    let mut checks = Checks::new(&input);
    for field in item.fields().iter().filter(|field| !field.unchecked) {
        let ty = &field.schema_type;
        if field.flatten {
            checks.add(ty, ty.span(), &quote!(#private::ElicitForm), &quote!(#private::bounds::form_flattened));
            continue;
        }
        checks.add(ty, ty.span(), &quote!(#private::FormField), &quote!(#private::bounds::form_field));
        if let Some(at) = field.default {
            // At the `default` key: the type's own span would win otherwise.
            let own: Type = syn::parse2(respan(field.original.ty.to_token_stream(), at))
                .unwrap_or_else(|_| field.original.ty.clone());
            checks.add(&own, at, &quote!(#private::bounds::FormDefault), &quote!(#private::bounds::form_default));
        }
    }
    let supertraits = quote!(#private::serde::de::DeserializeOwned + #private::schemars::JsonSchema);
    let implementation = checks.implement(&input, &quote!(#private::ElicitForm), Some(&supertraits));
    let errors = diag.into_tokens(false);
    quote! { #errors #implementation }
}

/// The expansion of `#[derive(FormField)]`.
pub(crate) fn derive_form_field(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(err) => return err.to_compile_error(),
    };
    let mut diag = Diagnostics::default();
    let item = FormItem::read(&input, &mut diag);
    let shape = check_field(&item, &mut diag);
    let krate = &item.krate;
    let private = quote!(#krate::__private);
    let mut checks = Checks::new(&input);
    let mut implementation = match shape {
        Some(FieldShape::Newtype(inner)) => {
            checks.add(inner, inner.span(), &quote!(#private::FormField), &quote!(#private::bounds::form_field));
            TokenStream::new()
        }
        // A choice, and what a bad item falls back to, so a mistake is one error.
        Some(FieldShape::Choice) | None => Checks::new(&input).implement(&input, &quote!(#private::FormChoice), None),
    };
    implementation.extend(checks.implement(&input, &quote!(#private::FormField), None));
    let errors = diag.into_tokens(false);
    quote! { #errors #implementation }
}

/// The checks of an item's fields: calls for concrete types, bounds of the
/// impl for generic ones.
struct Checks {
    params: Vec<Ident>,
    calls: Vec<TokenStream>,
    bounds: Vec<WherePredicate>,
}

impl Checks {
    fn new(input: &DeriveInput) -> Self {
        let params = input.generics.type_params().map(|param| param.ident.clone()).collect();
        Self { params, calls: Vec::new(), bounds: Vec::new() }
    }

    /// `ty` must implement `bound`, reported at `span`; `check` is the
    /// `const fn` of `__private::bounds` bounded by it.
    fn add(&mut self, ty: &Type, span: Span, bound: &TokenStream, check: &TokenStream) {
        if mentions(ty.to_token_stream(), &self.params) {
            self.bounds.push(syn::parse_quote_spanned!(span=> #ty: #bound));
        } else {
            self.calls.push(quote_spanned!(span=> #check::<#ty>();));
        }
    }

    fn implement(
        self,
        input: &DeriveInput,
        trait_path: &TokenStream,
        supertraits: Option<&TokenStream>,
    ) -> TokenStream {
        let name = &input.ident;
        let mut generics = input.generics.clone();
        let (_, ty_generics, _) = input.generics.split_for_impl();
        let predicates = &mut generics.make_where_clause().predicates;
        predicates.extend(self.bounds);
        // serde's and schemars' derives bound each parameter themselves; a
        // generic form states what its supertraits ask of them.
        if let Some(supertraits) = supertraits.filter(|_| !self.params.is_empty()) {
            predicates.push(syn::parse_quote!(#name #ty_generics: #supertraits));
        }
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        let calls = &self.calls;
        let checks = (!calls.is_empty()).then(|| quote! { const _: () = { #(#calls)* }; });
        quote! {
            #[automatically_derived]
            impl #impl_generics #trait_path for #name #ty_generics #where_clause {}
            #checks
        }
    }
}

/// Whether `tokens` name one of `params`.
fn mentions(tokens: TokenStream, params: &[Ident]) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => params.contains(&ident),
        TokenTree::Group(group) => mentions(group.stream(), params),
        _ => false,
    })
}
