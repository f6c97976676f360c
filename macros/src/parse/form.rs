//! `#[derive(ElicitForm)]` and `#[derive(FormField)]`: the item read into
//! the fields a form shows, each with the type its schema comes from and the
//! serde and schemars attributes that change what the form holds.
//!
//! serde and schemars report their own attributes' mistakes, so anything this
//! reader does not understand is skipped, not refused.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Field, LitStr, Path, Token, Type};

/// A struct or enum under one of the two derives.
pub(crate) struct FormItem<'a> {
    pub(crate) original: &'a DeriveInput,
    /// `#[elicit(crate = path)]`: where `mcp-contract` is (as serde's `crate`).
    pub(crate) krate: Path,
    /// The container's `#[serde(default)]`: every field has a default.
    pub(crate) default: Option<Span>,
}

/// One field of a form, as the form's schema sees it.
pub(crate) struct FormFieldItem<'a> {
    pub(crate) original: &'a Field,
    /// The type the field's schema comes from: `#[schemars(with = "T")]`'s
    /// `T`, or the field's own.
    pub(crate) schema_type: Type,
    /// `#[serde(flatten)]`: its fields join the form.
    pub(crate) flatten: bool,
    /// `#[serde(skip)]`, `skip_deserializing` or schemars' `schema_with`: no
    /// field of the form, or one whose schema no type names.
    pub(crate) unchecked: bool,
    /// `#[serde(default ..)]`, at the attribute.
    pub(crate) default: Option<Span>,
}

impl<'a> FormItem<'a> {
    pub(crate) fn read(original: &'a DeriveInput, diag: &mut crate::diag::Diagnostics) -> Self {
        let mut krate: Path = syn::parse_quote!(::mcp_contract);
        for attr in original.attrs.iter().filter(|attr| attr.path().is_ident("elicit")) {
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    // `crate = path` as `#[mcp_tool]` writes it, or `crate = "path"` as serde does.
                    krate = match meta.value()?.parse::<syn::Expr>()? {
                        syn::Expr::Path(path) => path.path,
                        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) => text.parse()?,
                        other => {
                            return Err(syn::Error::new(
                                other.span(),
                                "`crate` takes a path: `#[elicit(crate = my_crate::mcp)]`",
                            ));
                        }
                    };
                    Ok(())
                } else {
                    Err(meta.error("the only key of `#[elicit(..)]` is `crate = path`"))
                }
            });
            if let Err(err) = parsed {
                diag.error(syn::Error::new(err.span(), crate::diag::message(crate::rules::ATTRIBUTE_SYNTAX, err)));
            }
        }
        let mut default = None;
        for attr in original.attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            each_key(attr, |key, _| {
                if key.is_ident("default") {
                    default = Some(key.span());
                }
            });
        }
        Self { original, krate, default }
    }

    /// The named fields of a struct, read.
    pub(crate) fn fields(&self) -> Vec<FormFieldItem<'a>> {
        let syn::Data::Struct(data) = &self.original.data else { return Vec::new() };
        data.fields.iter().map(|field| FormFieldItem::read(field, self.default)).collect()
    }
}

impl<'a> FormFieldItem<'a> {
    fn read(original: &'a Field, container_default: Option<Span>) -> Self {
        let mut item = Self {
            original,
            schema_type: original.ty.clone(),
            flatten: false,
            unchecked: false,
            default: container_default,
        };
        for attr in &original.attrs {
            if attr.path().is_ident("serde") {
                each_key(attr, |key, _| {
                    if key.is_ident("flatten") {
                        item.flatten = true;
                    } else if key.is_ident("skip") || key.is_ident("skip_deserializing") {
                        item.unchecked = true;
                    } else if key.is_ident("default") {
                        item.default = Some(key.span());
                    }
                });
            } else if attr.path().is_ident("schemars") {
                each_key(attr, |key, value| {
                    if key.is_ident("with") {
                        match value.and_then(|value| value.parse::<Type>().ok()) {
                            Some(with) => item.schema_type = with,
                            None => item.unchecked = true,
                        }
                    } else if key.is_ident("schema_with") || key.is_ident("skip") {
                        item.unchecked = true;
                    }
                });
            }
        }
        item
    }
}

/// Each `key`, `key = "value"` or `key(..)` of a `#[serde(..)]`-like
/// attribute, with the value when it is a string.
fn each_key(attr: &Attribute, mut found: impl FnMut(&Path, Option<LitStr>)) {
    // A malformed attribute is its own derive's to report.
    let _ = attr.parse_nested_meta(|meta| {
        let value = if meta.input.peek(Token![=]) {
            let value: syn::Expr = meta.value()?.parse()?;
            match value {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) => Some(text),
                _ => None,
            }
        } else {
            if meta.input.peek(syn::token::Paren) {
                meta.input.step(|cursor| {
                    let (_, _, rest) =
                        cursor.group(proc_macro2::Delimiter::Parenthesis).ok_or_else(|| cursor.error("("))?;
                    Ok(((), rest))
                })?;
            }
            None
        };
        found(&meta.path, value);
        Ok(())
    });
}
