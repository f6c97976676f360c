//! `elicitation-form-flat`: an elicitation form asks for one object of flat
//! fields (strings, numbers, booleans, enums, a `Vec` of an enum), so a type
//! that cannot be one is refused where the handler writes
//! `ctx.elicit::<T>(..)`.
//!
//! The macro sees the handler's tokens only. It judges `T` itself (a `Vec`, a
//! map, a tuple, a bare `String` are no form), and the fields of a struct
//! declared in the handler's body (a field that is a struct declared there
//! is a nested object; a `Vec` of one, an array of objects). A struct declared
//! elsewhere is out of its sight: the runtime refuses it when the form is
//! built, before anything is sent (`ClientRequestError::FormInvalid`).

use std::collections::HashMap;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{GenericArgument, ItemFn, PathArguments, Type};

use crate::diag::Diagnostics;
use crate::rules;

/// Scalar types a form field may be.
const SCALARS: &[&str] = &[
    "String", "str", "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "f32", "f64",
];
const LISTS: &[&str] = &["Vec", "VecDeque", "HashSet", "BTreeSet", "LinkedList"];
const MAPS: &[&str] = &["HashMap", "BTreeMap", "IndexMap", "Map", "Value", "JsonObject"];

/// Refuse every `.elicit::<T>(..)` of the handler whose `T` cannot be a form.
pub(crate) fn check_forms(item: &ItemFn, diag: &mut Diagnostics) {
    let mut locals = Locals::default();
    locals.visit_block(&item.block);
    let mut forms = Vec::new();
    turbofish_types(item.block.to_token_stream(), &mut forms);
    for form in forms {
        if let Some(why) = judge_form(&form, &locals) {
            let written = form.to_token_stream().to_string().replace(' ', "");
            diag.rule_error(
                rules::ELICITATION_FORM_FLAT,
                syn::spanned::Spanned::span(&form),
                format_args!(
                    "`{written}` cannot be an elicitation form: {why}. A form asks for one object of flat fields \
                     (strings, numbers, booleans, enums of unit variants, a `Vec` of such an enum): elicit a struct \
                     of those, and ask for a nested value in an elicitation of its own"
                ),
            );
        }
    }
}

/// The structs and enums the body declares, by name.
#[derive(Default)]
struct Locals {
    structs: HashMap<String, Vec<(String, Type)>>,
    enums: Vec<String>,
}

impl<'ast> Visit<'ast> for Locals {
    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        // A flattened field's own fields join the form, and a skipped one is
        // no field of it: neither is judged as a field.
        let own_field = |field: &syn::Field| {
            !field.attrs.iter().any(|attr| {
                attr.path().is_ident("serde") && {
                    let tokens = attr.meta.to_token_stream().to_string();
                    tokens.contains("flatten") || tokens.contains("skip")
                }
            })
        };
        let fields = item
            .fields
            .iter()
            .filter(|field| own_field(field))
            .enumerate()
            .map(|(index, field)| {
                let name = field.ident.as_ref().map_or_else(|| index.to_string(), ToString::to_string);
                (name, field.ty.clone())
            })
            .collect();
        self.structs.insert(item.ident.to_string(), fields);
        visit::visit_item_struct(self, item);
    }

    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        self.enums.push(item.ident.to_string());
        visit::visit_item_enum(self, item);
    }
}

/// The `T` of every `. elicit :: < T > (` in `tokens`, macro arguments
/// (`tokio::join!(..)`) included.
fn turbofish_types(tokens: TokenStream, found: &mut Vec<Type>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (index, token) in tokens.iter().enumerate() {
        if let TokenTree::Group(group) = token {
            turbofish_types(group.stream(), found);
            continue;
        }
        let TokenTree::Ident(ident) = token else { continue };
        let dot_before = index > 0 && matches!(&tokens[index - 1], TokenTree::Punct(p) if p.as_char() == '.');
        if ident != "elicit" || !dot_before {
            continue;
        }
        let punct = |at: usize, char: char| matches!(tokens.get(at), Some(TokenTree::Punct(p)) if p.as_char() == char);
        if !(punct(index + 1, ':') && punct(index + 2, ':') && punct(index + 3, '<')) {
            continue;
        }
        let mut depth = 1;
        let mut end = index + 4;
        while end < tokens.len() {
            match &tokens[end] {
                TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
                // `->` of a fn type is no closing bracket.
                TokenTree::Punct(p) if p.as_char() == '>' && !punct(end - 1, '-') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            end += 1;
        }
        let written: TokenStream = tokens[index + 4..end.min(tokens.len())].iter().cloned().collect();
        if let Ok(ty) = syn::parse2::<Type>(written) {
            found.push(ty);
        }
    }
}

/// The last segment of a path type, with its generic arguments.
fn last_segment(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    let arguments = match &segment.arguments {
        PathArguments::AngleBracketed(arguments) => arguments
            .args
            .iter()
            .filter_map(|argument| match argument {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((segment.ident.to_string(), arguments))
}

/// Why `ty` cannot be the form itself, if the macro can tell.
fn judge_form(ty: &Type, locals: &Locals) -> Option<String> {
    match ty {
        Type::Paren(inner) => judge_form(&inner.elem, locals),
        Type::Group(inner) => judge_form(&inner.elem, locals),
        Type::Array(_) | Type::Slice(_) => Some("it is a list, not an object".to_owned()),
        Type::Tuple(_) => Some("it is a tuple, not an object with named fields".to_owned()),
        Type::Path(_) => {
            let (name, _) = last_segment(ty)?;
            if LISTS.contains(&name.as_str()) {
                return Some("it is a list, not an object".to_owned());
            }
            if MAPS.contains(&name.as_str()) {
                return Some("it is an object of any shape, and a form's fields are fixed".to_owned());
            }
            if SCALARS.contains(&name.as_str()) {
                return Some(format!(
                    "it is one `{name}`, not an object: wrap it, `struct Answer {{ value: {name} }}`"
                ));
            }
            if name == "Option" {
                return Some("an `Option` form: a user declines a form without one; elicit the struct".to_owned());
            }
            let fields = locals.structs.get(&name)?;
            fields
                .iter()
                .find_map(|(field, ty)| judge_field(ty, locals).map(|why| format!("its field `{field}` {why}")))
        }
        _ => None,
    }
}

/// Why a field of type `ty` cannot be in a form, if the macro can tell.
fn judge_field(ty: &Type, locals: &Locals) -> Option<String> {
    match ty {
        Type::Paren(inner) => judge_field(&inner.elem, locals),
        Type::Group(inner) => judge_field(&inner.elem, locals),
        Type::Array(_) | Type::Slice(_) => Some("is an array: a multi-select is a `Vec` of an enum".to_owned()),
        Type::Tuple(_) => Some("is a tuple".to_owned()),
        Type::Path(_) => {
            let (name, arguments) = last_segment(ty)?;
            if (name == "Option" || name == "Box") && arguments.len() == 1 {
                return judge_field(arguments[0], locals);
            }
            if LISTS.contains(&name.as_str()) {
                let item = arguments.first()?;
                let (item_name, _) = last_segment(item)?;
                if locals.structs.contains_key(&item_name) {
                    return Some(format!("is an array of objects (`{item_name}` is a struct)"));
                }
                if SCALARS.contains(&item_name.as_str()) || LISTS.contains(&item_name.as_str()) {
                    return Some(format!("is an array of `{item_name}`: a multi-select is a `Vec` of an enum"));
                }
                return None;
            }
            if MAPS.contains(&name.as_str()) {
                return Some("is an object of any shape".to_owned());
            }
            if locals.structs.contains_key(&name) && !locals.enums.contains(&name) {
                return Some(format!("is a nested object (`{name}` is a struct)"));
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the check says of each form the handler elicits: `None` for a pass.
    fn verdicts(item: ItemFn) -> Vec<Option<String>> {
        let mut locals = Locals::default();
        locals.visit_block(&item.block);
        let mut forms = Vec::new();
        turbofish_types(item.block.to_token_stream(), &mut forms);
        forms.iter().map(|form| judge_form(form, &locals)).collect()
    }

    #[test]
    fn flat_forms_pass_and_what_the_macro_cannot_see_is_left_to_the_runtime() {
        let item: ItemFn = syn::parse_quote! {
            async fn f(ctx: Ctx) -> Result<String, McpError> {
                enum Color { Red, Blue }
                struct Address { street: String }
                struct Flat {
                    name: String, age: Option<u32>, colors: Vec<Color>, favorite: Color, ok: bool,
                    #[serde(flatten)] address: Address,
                    #[serde(skip)] cache: Vec<Address>,
                }
                let _ = ctx.elicit::<Flat>("?").await;
                let _ = ctx.input("k").elicit::<Elsewhere>("?").await;
                let _ = tokio::join!(ctx.elicit::<crate::forms::Other>("?"), ctx.elicit::<Flat>("?"));
                ctx.elicit("no turbofish").await
            }
        };
        assert_eq!(verdicts(item), vec![None, None, None, None]);
    }

    #[test]
    fn lists_maps_scalars_nested_objects_and_arrays_of_objects_are_refused() {
        let item: ItemFn = syn::parse_quote! {
            async fn f(ctx: Ctx) -> Result<String, McpError> {
                struct Inner { city: String }
                struct Nested { inner: Option<Inner> }
                struct Listed { all: Vec<Inner> }
                struct Strings { tags: Vec<String> }
                struct Mapped { extra: std::collections::HashMap<String, String> }
                ctx.elicit::<Vec<Inner>>("?");
                ctx.elicit::<(String, u32)>("?");
                ctx.elicit::<serde_json::Value>("?");
                ctx.elicit::<u32>("?");
                ctx.elicit::<Nested>("?");
                ctx.elicit::<Listed>("?");
                ctx.elicit::<Strings>("?");
                ctx.elicit::<Mapped>("?");
            }
        };
        let verdicts = verdicts(item);
        let expected = [
            "it is a list",
            "it is a tuple",
            "an object of any shape",
            "it is one `u32`",
            "field `inner` is a nested object",
            "field `all` is an array of objects",
            "field `tags` is an array of `String`",
            "field `extra` is an object of any shape",
        ];
        assert_eq!(verdicts.len(), expected.len(), "{verdicts:?}");
        for (verdict, expected) in verdicts.iter().zip(expected) {
            let verdict = verdict.as_deref().unwrap_or("passed");
            assert!(verdict.contains(expected), "{verdict:?} should say {expected:?}");
        }
    }
}
