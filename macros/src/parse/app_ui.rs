//! Parse: `#[mcp_resource(ui(..))]`, the sandbox settings of an MCP App's
//! HTML, read into the `AppUi` the resource definition publishes under
//! `_meta.ui`.
//!
//! ```text
//! ui(connect_domains = ["https://api.example.org"], resource_domains = [..],
//!    frame_domains = [..], base_uri_domains = [..],
//!    permissions(camera, microphone, geolocation, clipboard_write),
//!    domain = "..", prefers_border = true)
//! ```
//!
//! Bare `ui` declares an app resource with the host's default sandbox.
//!
//! Parse, and write out at once: each setting is one setter of `AppUi`, so a
//! model between the two would only repeat the keys. `expand::resource` reads
//! `ui(..)` after the contract is taken, so its diagnostics come last, as they
//! always have.

use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, Lit, Meta};

use crate::diag::{Diagnostics, closest};
use crate::rules::{self, check};

/// The keys of `ui(..)`.
const KEYS: &[&str] = &[
    "connect_domains",
    "resource_domains",
    "frame_domains",
    "base_uri_domains",
    "permissions",
    "domain",
    "prefers_border",
];

/// The names of `permissions(..)`, with their `AppPermission` variants.
const PERMISSIONS: &[(&str, &str)] = &[
    ("camera", "Camera"),
    ("microphone", "Microphone"),
    ("geolocation", "Geolocation"),
    ("clipboard_write", "ClipboardWrite"),
];

/// The `AppUi` expression of `ui` / `ui(..)`; what is malformed is reported
/// and left out, so the rest is still checked.
pub(crate) fn parse(meta: &Meta, private: &TokenStream, diag: &mut Diagnostics) -> TokenStream {
    let mut ui = quote!(#private::AppUi::new());
    let items = match meta {
        Meta::Path(_) => return ui,
        Meta::List(list) => match NestedMeta::parse_meta_list(list.tokens.clone()) {
            Ok(items) => items,
            Err(err) => {
                diag.error(err);
                return ui;
            }
        },
        Meta::NameValue(_) => {
            syntax(
                diag,
                meta.span(),
                "`ui` takes a list of sandbox settings, `ui(connect_domains = [\"https://..\"], ..)`, or stands alone",
            );
            return ui;
        }
    };
    for item in &items {
        let NestedMeta::Meta(meta) = item else {
            syntax(diag, item.span(), "expected a setting of `ui(..)`, such as `prefers_border = true`");
            continue;
        };
        let key = meta.path().get_ident().map(ToString::to_string).unwrap_or_default();
        match key.as_str() {
            "connect_domains" | "resource_domains" | "frame_domains" | "base_uri_domains" => {
                if let Some(domains) = domains(meta, &key, diag) {
                    let setter = quote::format_ident!("with_{key}");
                    ui = quote!(#ui.#setter(&[#(#domains),*]));
                }
            }
            "permissions" => {
                let variants = permissions(meta, private, diag);
                ui = quote!(#ui.with_permissions(&[#(#variants),*]));
            }
            "domain" => match value(meta) {
                Some(Lit::Str(domain)) => ui = quote!(#ui.with_domain(#domain)),
                _ => syntax(
                    diag,
                    meta.span(),
                    "`domain` is a string: the dedicated sandbox origin the host gave the app",
                ),
            },
            "prefers_border" => match meta {
                Meta::Path(_) => ui = quote!(#ui.with_prefers_border(true)),
                _ => match value(meta) {
                    Some(Lit::Bool(flag)) => ui = quote!(#ui.with_prefers_border(#flag)),
                    _ => syntax(diag, meta.span(), "`prefers_border` is `true` or `false`"),
                },
            },
            _ => {
                let hint = closest(&key, KEYS).map_or_else(String::new, |name| format!(" (did you mean `{name}`?)"));
                syntax(
                    diag,
                    meta.path().span(),
                    &format!("`{key}` is no setting of `ui(..)`{hint}; it takes {}", KEYS.join(", ")),
                );
            }
        }
    }
    ui
}

fn syntax(diag: &mut Diagnostics, span: proc_macro2::Span, text: &str) {
    diag.rule_error(rules::ATTRIBUTE_SYNTAX, span, text);
}

fn value(meta: &Meta) -> Option<&Lit> {
    match meta {
        Meta::NameValue(pair) => match &pair.value {
            Expr::Lit(lit) => Some(&lit.lit),
            _ => None,
        },
        _ => None,
    }
}

/// `key = ["https://..", ..]`: string literals, each an origin (`meta-ui-csp-domain`).
fn domains(meta: &Meta, key: &str, diag: &mut Diagnostics) -> Option<Vec<syn::LitStr>> {
    let shape = format!("`{key}` is a list of origins: `{key} = [\"https://api.example.org\"]`");
    let Meta::NameValue(pair) = meta else {
        syntax(diag, meta.span(), &shape);
        return None;
    };
    let Expr::Array(array) = &pair.value else {
        syntax(diag, pair.value.span(), &shape);
        return None;
    };
    let mut domains = Vec::new();
    for element in &array.elems {
        let Expr::Lit(syn::ExprLit { lit: Lit::Str(domain), .. }) = element else {
            syntax(diag, element.span(), &shape);
            continue;
        };
        if let Err(why) = check::app_csp_domain(&domain.value()) {
            diag.rule_error(
                rules::META_UI_CSP_DOMAIN,
                domain.span(),
                format_args!(
                    "`{}` in `{key}` is no origin for the app's Content-Security-Policy: {why}",
                    domain.value().escape_debug()
                ),
            );
            continue;
        }
        domains.push(domain.clone());
    }
    Some(domains)
}

/// `permissions(camera, clipboard_write)`: the `AppPermission` variants.
fn permissions(meta: &Meta, private: &TokenStream, diag: &mut Diagnostics) -> Vec<TokenStream> {
    let names = PERMISSIONS.iter().map(|(name, _)| *name).collect::<Vec<_>>();
    let shape = format!("`permissions` lists what the app asks the sandbox for: `permissions({})`", names.join(", "));
    let Meta::List(list) = meta else {
        syntax(diag, meta.span(), &shape);
        return Vec::new();
    };
    let items = match NestedMeta::parse_meta_list(list.tokens.clone()) {
        Ok(items) => items,
        Err(err) => {
            diag.error(err);
            return Vec::new();
        }
    };
    let mut variants = Vec::new();
    for item in &items {
        let word = match item {
            NestedMeta::Meta(Meta::Path(path)) => path.get_ident().map(ToString::to_string),
            _ => None,
        };
        match word.as_deref().and_then(|word| PERMISSIONS.iter().find(|(name, _)| *name == word)) {
            Some((_, variant)) => {
                let variant = quote::format_ident!("{variant}");
                variants.push(quote!(#private::AppPermission::#variant));
            }
            None => {
                let hint = word
                    .as_deref()
                    .and_then(|word| closest(word, &names))
                    .map_or_else(String::new, |name| format!(" (did you mean `{name}`?)"));
                syntax(diag, item.span(), &format!("{shape}{hint}"));
            }
        }
    }
    variants
}
