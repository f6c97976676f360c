//! Validate: what only a resource has to check. Its URI, parsed with the
//! runtime's own RFC 6570 parser (crate `mcp-contract-uri-template`):
//! `uri-template-required`, `uri-template-valid`; the template's variables
//! against the params struct's fields: `template-params-align`; and an MCP
//! App's URI and MIME type: `meta-ui-resource-uri-scheme`,
//! `meta-ui-resource-mime-type`. Its name and description are judged as a
//! prompt's (`name_and_description`), its contract as every attribute's
//! (`contract`).

use mcp_contract_uri_template::UriTemplate;
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Type};

use crate::diag::Diagnostics;
use crate::names::to_pascal_case;
use crate::rules;

/// `uri-template-required`, `uri-template-valid`: the template of `uri = ".."`.
pub(crate) fn uri_template(uri: Option<&LitStr>, diag: &mut Diagnostics) -> Option<UriTemplate> {
    match uri {
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
    }
}

/// What `template-params-align` leaves to rustc: the params struct's path and
/// the template's variables as its fields, for an exhaustive pattern spanned
/// at the URI (`expand::resource` writes it).
pub(crate) struct Align<'a> {
    pub(crate) path: &'a syn::Path,
    pub(crate) fields: Vec<Ident>,
    /// The URI's.
    pub(crate) span: Span,
}

/// `template-params-align`: variables need a params struct (`params_ty`), a
/// static URI takes none, and the variables and the struct's fields are the
/// same names. `renamed` (`params_renamed`) leaves the names to the
/// definition linter.
pub(crate) fn params_align<'a>(
    template: Option<&UriTemplate>,
    uri: Option<&LitStr>,
    params_ty: Option<&'a Type>,
    renamed: bool,
    fn_ident: &Ident,
    diag: &mut Diagnostics,
) -> Option<Align<'a>> {
    let (Some(template), Some(uri)) = (template, uri) else { return None };
    let variables = template.variable_names();
    match params_ty {
        None if !variables.is_empty() => diag.rule_error(
            rules::TEMPLATE_PARAMS_ALIGN,
            uri.span(),
            format_args!(
                "the URI template has the variables {}; take them as one params struct, e.g. `params: {}Params` with a field per variable",
                variables.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "),
                to_pascal_case(&fn_ident.unraw().to_string())
            ),
        ),
        Some(ty) if variables.is_empty() => diag.rule_error(
            rules::TEMPLATE_PARAMS_ALIGN,
            ty.span(),
            "a static URI has no variables to fill this params struct; remove the parameter, or put `{variable}`s in the URI",
        ),
        // The macro sees Rust field names, serde renames them: the check
        // against the serde names is the definition linter's, at `Server::build`.
        Some(_) if renamed => {}
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
            // Both directions in one exhaustive pattern: rustc names a variable
            // that is no field (E0026) and a field no variable fills (E0027).
            // Only for a plain struct path.
            if let Type::Path(path) = ty
                && path.qself.is_none()
            {
                return Some(Align { path: &path.path, fields, span: uri.span() });
            }
        }
        None => {}
    }
    None
}

/// `ui(..)`: the resource's URI and MIME type checked for an app:
/// `meta-ui-resource-uri-scheme` (hosts fetch apps at `ui://`) and
/// `meta-ui-resource-mime-type` (hosts render only the app MIME type).
pub(crate) fn app(uri: Option<&LitStr>, mime_type: Option<&LitStr>, diag: &mut Diagnostics) {
    if let Some(uri) = uri
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
    if let Some(mime) = mime_type
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
}
