//! Parse: the keys of `#[mcp_tool(..)]` into the typed model `valid::tool`
//! judges: `annotations(..)`, `auth(..)`, `requires(..)`, `task(..)`, the
//! schema functions and `trailer(..)` read into their own values, `errors(..)`
//! through `parse::contract`.

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, LitStr, Meta, Path};

use super::attr::{
    AllowedRule, Bool, Keys, Parsed, Text, from_items, keys, list_items, parse_keys, path_name, value_error, value_rule,
};
use super::contract::{RawContract, contract};
use crate::diag::{Diagnostics, closest, message};
use crate::rules::{self, Rule};

keys! {
    /// The keys of the attribute. The lists (`annotations`, `auth`, `errors`)
    /// stay raw here and are read into their own models by [`parse`].
    struct ToolArgs {
        name: Option<LitStr>,
        title: Option<LitStr>,
        description: Option<LitStr>,
        annotations: Option<Meta>,
        auth: Option<Meta>,
        requires: Option<Meta>,
        format: Option<Path>,
        /// `enrichment = Type`: what the handler tells the agent beside the result, through `ctx.enrich()`.
        enrichment: Option<Path>,
        /// `trailer(field(label = "..", render = path), ..)`: how the enrichment trailer shows a field.
        trailer: Option<Meta>,
        /// `app = "ui://.."`: the MCP App resource the tool pairs with.
        app: Option<LitStr>,
        errors: Option<Meta>,
        /// `task(optional)` or `task(required)`, with `input_first` maybe:
        /// calls run as tasks (SEP-2663).
        task: Option<Meta>,
        /// `input_schema = path`: a function giving the input schema as written, instead of the input type's.
        input_schema: Option<Meta>,
        /// `output_schema = path`: the same for the output schema.
        output_schema: Option<Meta>,
        /// `input_aliases(field = ["alias", ..], ..)`: other names of input fields, repaired to the field.
        input_aliases: Option<Meta>,
        /// `repair_arguments = false`: no repair of this tool's arguments.
        repair_arguments: Option<Parsed<Bool<RepairFlag>>>,
        /// `tool_type = Name`: the generated tool type (default: the PascalCase handler name).
        tool_type: Option<Ident>,
        /// `reason_type = Name`: the generated reason enum (default: the tool type + `Reason`).
        reason_type: Option<Ident>,
        /// `crate = path`: where `mcp-contract` is, for crates that re-export it (as serde's `crate`).
        #[key = "crate"]
        krate: Option<Path>,
    }
}

keys! {
    /// The keys of `annotations(..)`.
    struct AnnotationArgs {
        read_only: Option<Parsed<Bool<AnnotationFlag>>>,
        destructive: Option<Parsed<Bool<AnnotationFlag>>>,
        idempotent: Option<Parsed<Bool<AnnotationFlag>>>,
        open_world: Option<Parsed<Bool<AnnotationFlag>>>,
        title: Option<Parsed<Text<AnnotationTitle>>>,
    }
}

value_rule!(AnnotationFlag: rules::ANNOTATION_TYPE, |key| {
    format!("annotation `{key}` is a flag: write `{key}` or `{key} = true` / `{key} = false`")
});
value_rule!(AnnotationTitle: rules::ANNOTATION_TYPE, |_| {
    "annotation `title` is a string: `title = \"..\"`".to_owned()
});

value_rule!(RepairFlag: rules::ATTRIBUTE_SYNTAX, |key| {
    format!("`{key}` is a flag: write `{key} = false` to refuse arguments that do not fit as sent")
});

/// One entry of `input_aliases(..)`: a field and its aliases, spans kept.
pub(crate) struct AliasEntry {
    pub(crate) field: Ident,
    pub(crate) aliases: Vec<LitStr>,
}

/// The attribute, read into typed values.
pub(crate) struct RawAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) format: Option<Path>,
    pub(crate) enrichment: Option<Path>,
    pub(crate) trailer: Option<super::trailer::RawTrailer>,
    pub(crate) app: Option<LitStr>,
    pub(crate) tool_type: Option<Ident>,
    pub(crate) reason_type: Option<Ident>,
    pub(crate) krate: Option<Path>,
    pub(crate) annotations: Option<AnnotationArgs>,
    /// The scopes of `auth(..)` that are strings; the other items were reported.
    pub(crate) auth: Option<Vec<LitStr>>,
    /// The client capabilities of `requires(..)`, as their `Capability` variant names.
    pub(crate) requires: Vec<Ident>,
    pub(crate) contract: Option<RawContract>,
    /// `task(optional)` or `task(required)`, maybe with `input_first`: checked.
    pub(crate) task: Option<TaskArgs>,
    /// `input_schema = path`: the function that gives the input schema.
    pub(crate) input_schema: Option<Path>,
    /// `output_schema = path`: the function that gives the output schema.
    pub(crate) output_schema: Option<Path>,
    /// `input_aliases(..)`, as read; conflicts are judged in `valid`.
    pub(crate) input_aliases: Vec<AliasEntry>,
    /// `repair_arguments = ..`.
    pub(crate) repair_arguments: Option<darling::util::SpannedValue<bool>>,
    pub(crate) allow: Vec<AllowedRule>,
}

/// Read the attribute. Grammar and value errors land in `diag`; what could be
/// read is kept.
pub(crate) fn parse(tokens: TokenStream, diag: &mut Diagnostics) -> RawAttr {
    let (args, allow): (ToolArgs, _) = parse_keys(tokens, diag);
    let annotations = args.annotations.as_ref().map(|meta| match list_items(meta) {
        Ok(items) => from_items(&items, diag).unwrap_or_default(),
        Err(err) => {
            diag.error(err);
            AnnotationArgs::default()
        }
    });
    RawAttr {
        annotations,
        auth: args.auth.as_ref().map(|meta| auth(meta, diag)),
        requires: args.requires.as_ref().map(|meta| requires(meta, diag)).unwrap_or_default(),
        contract: args.errors.as_ref().map(|meta| contract(meta, diag)),
        task: args.task.as_ref().and_then(|meta| task(meta, diag)),
        input_schema: args.input_schema.as_ref().and_then(|meta| schema_function(meta, diag)),
        output_schema: args.output_schema.as_ref().and_then(|meta| schema_function(meta, diag)),
        input_aliases: args.input_aliases.as_ref().map(|meta| input_aliases(meta, diag)).unwrap_or_default(),
        repair_arguments: args.repair_arguments.and_then(|parsed| parsed.take(diag)).map(|flag| flag.value),
        name: args.name,
        title: args.title,
        description: args.description,
        format: args.format,
        enrichment: args.enrichment,
        trailer: args.trailer.as_ref().map(|meta| super::trailer::parse(meta, diag)),
        app: args.app,
        tool_type: args.tool_type,
        reason_type: args.reason_type,
        krate: args.krate,
        allow,
    }
}

/// `input_aliases(query = ["q", "search"], ..)`: each entry a field named as
/// the input schema spells it, and a list of string literals; anything else is
/// reported with the form to write.
fn input_aliases(meta: &Meta, diag: &mut Diagnostics) -> Vec<AliasEntry> {
    let form = "`input_aliases` lists other names of input fields: `input_aliases(query = [\"q\", \"search\"])`";
    let items = match list_items(meta) {
        Ok(items) => items,
        Err(_) => {
            diag.error(value_error(rules::ATTRIBUTE_SYNTAX, meta, form));
            return Vec::new();
        }
    };
    let mut entries = Vec::new();
    for item in items {
        let entry = match &item {
            NestedMeta::Meta(Meta::NameValue(nv)) => match (nv.path.get_ident(), &nv.value) {
                (Some(field), Expr::Array(list)) => list
                    .elems
                    .iter()
                    .map(|alias| match alias {
                        Expr::Lit(syn::ExprLit { lit: Lit::Str(alias), .. }) => Some(alias.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .map(|aliases| AliasEntry { field: syn::ext::IdentExt::unraw(field), aliases }),
                _ => None,
            },
            _ => None,
        };
        match entry {
            Some(entry) => entries.push(entry),
            None => diag.error(syn::Error::new_spanned(&item, message(rules::ATTRIBUTE_SYNTAX, form))),
        }
    }
    entries
}

/// `input_schema = path` or `output_schema = path`: the path of the function
/// that gives the schema; anything else (a string, a call, a list) is
/// reported with the form to write.
fn schema_function(meta: &Meta, diag: &mut Diagnostics) -> Option<Path> {
    if let Meta::NameValue(nv) = meta
        && let Expr::Path(path) = &nv.value
        && path.qself.is_none()
    {
        return Some(path.path.clone());
    }
    let key = path_name(meta.path());
    diag.error(value_error(
        rules::SCHEMA_FUNCTION,
        meta,
        format_args!(
            "`{key}` names the function that gives the schema as written: `{key} = my_schema`, with \
             `fn my_schema() -> serde_json::Value`"
        ),
    ));
    None
}

/// `task(..)`: whether calls run as tasks, and whether they gather input first.
pub(crate) struct TaskArgs {
    /// `optional` or `required`: the `TaskSupport` variant's word.
    pub(crate) support: Ident,
    /// `input_first`: the handler's input is gathered on the request before the task.
    pub(crate) input_first: Option<Ident>,
}

/// `task(optional)` or `task(required)`, either with `input_first` after it;
/// anything else is `attribute-syntax`, reported with the forms.
fn task(meta: &Meta, diag: &mut Diagnostics) -> Option<TaskArgs> {
    const FORMS: &str = "`task` takes `optional` or `required`, then maybe `input_first`: `task(optional)` lets a \
                         client that declares the tasks extension run the call as a task, `task(required)` runs \
                         every call as one, `task(required, input_first)` gathers the handler's input on the \
                         request before the call becomes a task";
    let words = match meta {
        Meta::List(list) => {
            list.parse_args_with(syn::punctuated::Punctuated::<Ident, syn::Token![,]>::parse_terminated).ok()
        }
        _ => None,
    };
    let Some(words) = words else {
        diag.error(value_error(rules::ATTRIBUTE_SYNTAX, meta, FORMS));
        return None;
    };
    let mut support = None;
    let mut input_first = None;
    let mut valid = true;
    for word in words {
        let (slot, repeated) = if word == "optional" || word == "required" {
            (&mut support, "`task` names `optional` or `required` once")
        } else if word == "input_first" {
            (&mut input_first, "`input_first` is given once")
        } else {
            diag.error(syn::Error::new_spanned(&word, message(rules::ATTRIBUTE_SYNTAX, FORMS)));
            valid = false;
            continue;
        };
        if slot.is_some() {
            diag.error(syn::Error::new_spanned(&word, message(rules::ATTRIBUTE_SYNTAX, repeated)));
            valid = false;
        } else {
            *slot = Some(word);
        }
    }
    match support {
        Some(support) if valid => Some(TaskArgs { support, input_first }),
        Some(_) => None,
        None => {
            if valid {
                diag.error(value_error(
                    rules::ATTRIBUTE_SYNTAX,
                    meta,
                    "`task` names `optional` or `required` first: `task(required, input_first)`",
                ));
            }
            None
        }
    }
}

/// The items of a key that is a list (`auth(..)`, `requires(..)`); another
/// shape is an error of `rule`, a list that does not parse syn's error.
fn list_of(meta: &Meta, rule: Rule, type_error: &str, diag: &mut Diagnostics) -> Option<Vec<NestedMeta>> {
    let Meta::List(_) = meta else {
        diag.error(value_error(rule, meta, type_error));
        return None;
    };
    match list_items(meta) {
        Ok(items) => Some(items),
        Err(err) => {
            diag.error(err);
            None
        }
    }
}

/// `auth("scope:a", "scope:b")`: the strings; anything else is `auth-type`.
fn auth(meta: &Meta, diag: &mut Diagnostics) -> Vec<LitStr> {
    let type_error = "`auth` is a list of scope strings: `auth(\"objects:read\", \"objects:write\")`";
    let Some(items) = list_of(meta, rules::AUTH_TYPE, type_error, diag) else { return Vec::new() };
    let mut scopes = Vec::new();
    for item in items {
        match item {
            NestedMeta::Lit(Lit::Str(scope)) => scopes.push(scope),
            other => diag.error(syn::Error::new_spanned(other, message(rules::AUTH_TYPE, type_error))),
        }
    }
    scopes
}

/// The capabilities `requires(..)` may name, with their `Capability` variants.
const CAPABILITIES: &[(&str, &str)] = &[("elicitation", "Elicitation"), ("sampling", "Sampling"), ("roots", "Roots")];

/// `requires(elicitation, sampling)`: the `Capability` variants; anything else
/// is `requires-capability`.
fn requires(meta: &Meta, diag: &mut Diagnostics) -> Vec<Ident> {
    let type_error = "`requires` lists the client capabilities the tool needs: `requires(elicitation, sampling)` \
                      (one of `elicitation`, `sampling`, `roots`)";
    let Some(items) = list_of(meta, rules::REQUIRES_CAPABILITY, type_error, diag) else { return Vec::new() };
    let mut variants = Vec::new();
    for item in items {
        let name = match &item {
            NestedMeta::Meta(Meta::Path(path)) => path.get_ident().cloned(),
            _ => None,
        };
        match name.as_ref().and_then(|name| CAPABILITIES.iter().find(|(known, _)| name == known)) {
            Some((_, variant)) => variants.push(Ident::new(variant, item.span())),
            None => {
                let known: Vec<&str> = CAPABILITIES.iter().map(|(known, _)| *known).collect();
                let hint = name
                    .and_then(|name| closest(&name.to_string(), &known))
                    .map(|known| format!("; did you mean `{known}`?"))
                    .unwrap_or_default();
                diag.error(syn::Error::new_spanned(
                    &item,
                    message(rules::REQUIRES_CAPABILITY, format!("{type_error}{hint}")),
                ));
            }
        }
    }
    variants
}
