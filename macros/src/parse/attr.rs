//! Parse: the tokens of `#[mcp_tool(..)]` into a typed model that keeps every
//! span. Values are read into their types here (a flag into a bool, a code into
//! a code name, a reason's keys into its entry); a value of the wrong type is an
//! error of its rule, kept so the rest of the list is still read. What the values
//! mean (a blank `when`, a short `recovery`, a duplicate reason) `valid.rs` judges.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::SpannedValue;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, LitStr, Meta, Path};

use crate::diag::{Diagnostics, closest, message};
use crate::rules::{self, JsonRpcErrorCode, Rule};

const CODE_NAMES: &[&str] = &JsonRpcErrorCode::NAMES;

/// A key list that darling reads, declared once: the struct and the names of
/// its keys come from the same field list, so a key added to one is in the other.
macro_rules! keys {
    (
        $(#[doc = $doc:literal])*
        struct $name:ident {
            $( $(#[doc = $field_doc:literal])* $(#[key = $key:literal])? $field:ident: $ty:ty, )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Default, FromMeta)]
        pub(crate) struct $name {
            $( $(#[doc = $field_doc])* $(#[darling(rename = $key)])? pub(crate) $field: $ty, )*
        }

        impl Keys for $name {
            const KEYS: &'static [&'static str] = &[$( keys!(@key $field $($key)?) ),*];
        }
    };
    (@key $field:ident $key:literal) => { $key };
    (@key $field:ident) => { stringify!($field) };
}

/// `#[mcp_resource]` and `#[mcp_prompt]` declare their key lists with it too.
pub(crate) use keys;

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
    /// The keys of one `errors(..)` entry.
    struct EntryArgs {
        code: Option<Parsed<CodeName>>,
        when: Option<Parsed<Text<When>>>,
        recovery: Option<Parsed<Text<Recovery>>>,
        retryable: Option<Parsed<Bool<Retryable>>>,
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

/// A key list that darling reads, with the names it accepts.
pub(crate) trait Keys: FromMeta + Default {
    const KEYS: &'static [&'static str];
}

/// A value read at the parse stage, or the error saying why it could not be.
/// darling gives up a whole key list at its first bad value; a bad value kept
/// as its error lets the other keys of the list be read and checked too.
pub(crate) enum Parsed<T> {
    Value(T),
    Invalid(syn::Error),
}

impl<T> Parsed<T> {
    /// The value; an invalid one is reported.
    pub(crate) fn take(self, diag: &mut Diagnostics) -> Option<T> {
        match self {
            Self::Value(value) => Some(value),
            Self::Invalid(err) => {
                diag.error(err);
                None
            }
        }
    }
}

/// How a typed value reads itself from its `key = value` (or bare `key`).
pub(crate) trait ParseValue: Sized {
    fn parse_value(meta: &Meta) -> syn::Result<Self>;
}

impl<T: ParseValue> FromMeta for Parsed<T> {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        Ok(match T::parse_value(item) {
            Ok(value) => Self::Value(value),
            Err(err) => Self::Invalid(err),
        })
    }
}

/// What a wrong value of a key is: the rule it breaks and how to say so.
pub(crate) trait ValueRule {
    const RULE: Rule;
    fn wrong_type(key: &str) -> String;
}

/// `flag`, `flag = true` or `flag = false`, with the span of the key.
pub(crate) struct Bool<R> {
    pub(crate) value: SpannedValue<bool>,
    rule: std::marker::PhantomData<R>,
}

impl<R: ValueRule> ParseValue for Bool<R> {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        let value = match meta {
            Meta::Path(_) => Some(true),
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: Lit::Bool(value), .. }) => Some(value.value),
                _ => None,
            },
            Meta::List(_) => None,
        };
        match value {
            Some(value) => {
                Ok(Self { value: SpannedValue::new(value, meta.path().span()), rule: std::marker::PhantomData })
            }
            None => Err(value_error(R::RULE, meta, R::wrong_type(&path_name(meta.path())))),
        }
    }
}

/// `key = "text"`, with the span of the string.
pub(crate) struct Text<R> {
    pub(crate) value: SpannedValue<String>,
    rule: std::marker::PhantomData<R>,
}

impl<R: ValueRule> ParseValue for Text<R> {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        match meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => {
                    Ok(Self { value: SpannedValue::new(text.value(), text.span()), rule: std::marker::PhantomData })
                }
                _ => Err(value_error(R::RULE, meta, R::wrong_type(&path_name(meta.path())))),
            },
            _ => Err(value_error(R::RULE, meta, R::wrong_type(&path_name(meta.path())))),
        }
    }
}

pub(crate) struct AnnotationFlag;

impl ValueRule for AnnotationFlag {
    const RULE: Rule = rules::ANNOTATION_TYPE;
    fn wrong_type(key: &str) -> String {
        format!("annotation `{key}` is a flag: write `{key}` or `{key} = true` / `{key} = false`")
    }
}

pub(crate) struct AnnotationTitle;

impl ValueRule for AnnotationTitle {
    const RULE: Rule = rules::ANNOTATION_TYPE;
    fn wrong_type(_: &str) -> String {
        "annotation `title` is a string: `title = \"..\"`".to_owned()
    }
}

pub(crate) struct Retryable;

impl ValueRule for Retryable {
    const RULE: Rule = rules::ERROR_CONTRACT_RETRYABLE_TYPE;
    fn wrong_type(_: &str) -> String {
        "`retryable` is a flag: write `retryable` or `retryable = true` / `retryable = false`".to_owned()
    }
}

pub(crate) struct When;

impl ValueRule for When {
    const RULE: Rule = rules::ERROR_CONTRACT_WHEN_REQUIRED;
    fn wrong_type(_: &str) -> String {
        "`when` is a non-empty string saying when this failure happens".to_owned()
    }
}

pub(crate) struct Recovery;

impl ValueRule for Recovery {
    const RULE: Rule = rules::ERROR_CONTRACT_RECOVERY_REQUIRED;
    fn wrong_type(_: &str) -> String {
        "`recovery` is a string telling the model what to do next".to_owned()
    }
}

/// `code = NotFound` or `code = JsonRpcErrorCode::NotFound`: the variant name,
/// spanned at the author's value. An unknown name is `error-contract-code-unknown`;
/// a number or a string is `error-contract-code-type`, with a message that
/// names what was written and the fix.
pub(crate) struct CodeName(pub(crate) Ident);

impl ParseValue for CodeName {
    fn parse_value(meta: &Meta) -> syn::Result<Self> {
        let valid = CODE_NAMES.join(", ");
        let rule = rules::ERROR_CONTRACT_CODE_UNKNOWN;
        let Meta::NameValue(nv) = meta else {
            return Err(value_error(
                rule,
                meta,
                format!("`code` takes the name of a JSON-RPC error code: `code = NotFound`; valid codes are {valid}"),
            ));
        };
        let mut rule = rule;
        let text = match &nv.value {
            Expr::Path(path) if path.qself.is_none() && !path.path.segments.is_empty() => {
                let last = path.path.segments.last().map(|segment| segment.ident.clone()).expect("not empty");
                if CODE_NAMES.iter().any(|name| last == name) {
                    return Ok(Self(last));
                }
                let hint = closest(&last.to_string(), CODE_NAMES)
                    .map(|name| format!("did you mean `{name}`? "))
                    .unwrap_or_default();
                format!("unknown error code `{last}`: {hint}valid codes are {valid}")
            }
            Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => {
                rule = rules::ERROR_CONTRACT_CODE_TYPE;
                let written = text.value();
                match CODE_NAMES.iter().copied().find(|name| *name == written).or_else(|| closest(&written, CODE_NAMES))
                {
                    Some(name) => format!(
                        "`code = \"{written}\"` is a string: write the code's name without quotes: `code = {name}`"
                    ),
                    None => format!(
                        "`code = \"{written}\"` is a string, and no error code has this name: write a code's name without quotes, one of {valid}"
                    ),
                }
            }
            number @ (Expr::Lit(_) | Expr::Unary(_)) => {
                rule = rules::ERROR_CONTRACT_CODE_TYPE;
                let written = quote::ToTokens::to_token_stream(number).to_string().replace(' ', "");
                match written.parse::<i64>().ok().and_then(JsonRpcErrorCode::from_number).map(JsonRpcErrorCode::name) {
                    Some(name) => {
                        format!(
                            "`code = {written}` is a number: write the JSON-RPC error code's name, here `code = {name}`"
                        )
                    }
                    None => {
                        format!("`code = {written}` is a number: write the JSON-RPC error code's name, one of {valid}")
                    }
                }
            }
            _ => format!(
                "`code` takes the name of a JSON-RPC error code, such as `code = NotFound`; valid codes are {valid}"
            ),
        };
        Err(syn::Error::new_spanned(&nv.value, message(rule, text)))
    }
}

/// A rule's error at a key's value (the key itself when it has none), spanning
/// the value's first to last token.
fn value_error(rule: Rule, meta: &Meta, text: impl std::fmt::Display) -> syn::Error {
    match meta {
        Meta::NameValue(nv) => syn::Error::new_spanned(&nv.value, message(rule, text)),
        Meta::List(list) => syn::Error::new_spanned(list, message(rule, text)),
        Meta::Path(path) => syn::Error::new_spanned(path, message(rule, text)),
    }
}

fn path_name(path: &Path) -> String {
    path.segments.iter().map(|segment| segment.ident.to_string()).collect::<Vec<_>>().join("::")
}

/// Read a key list. darling gives up on the whole list at an unknown key; reading
/// the unknown keys apart (for darling's "did you mean" error) and the known ones
/// on their own keeps the rest of the list, so its mistakes are reported too.
pub(crate) fn from_items<T: Keys>(items: &[NestedMeta], diag: &mut Diagnostics) -> Option<T> {
    let (known, unknown): (Vec<NestedMeta>, Vec<NestedMeta>) = items.iter().cloned().partition(|item| match item {
        NestedMeta::Meta(meta) => meta.path().get_ident().is_some_and(|key| T::KEYS.iter().any(|known| key == known)),
        _ => true,
    });
    if !unknown.is_empty() {
        diag.darling(T::from_list(&unknown));
    }
    diag.darling(T::from_list(&known))
}

/// Whether a key list names a key `T` does not have: darling reports it with a
/// "did you mean", and the key it meant must not be reported missing as well.
fn has_unknown_keys<T: Keys>(items: &[NestedMeta]) -> bool {
    items.iter().any(|item| match item {
        NestedMeta::Meta(meta) => !meta.path().get_ident().is_some_and(|key| T::KEYS.iter().any(|known| key == known)),
        _ => false,
    })
}

/// A rule id named in `allow(..)`, with its tokens: an error spans all of them
/// (`name-required` is three tokens, and `Span::join` is `None` on stable).
pub(crate) struct AllowedRule {
    pub(crate) id: String,
    pub(crate) tokens: TokenStream,
}

/// The attribute, read into typed values.
pub(crate) struct RawAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) format: Option<Path>,
    pub(crate) enrichment: Option<Path>,
    pub(crate) trailer: Option<crate::parse::trailer::RawTrailer>,
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
    pub(crate) allow: Vec<AllowedRule>,
}

/// `errors(..)`, entry by entry.
pub(crate) struct RawContract {
    /// The `errors` key, where an empty contract is reported.
    pub(crate) key: Span,
    pub(crate) entries: Vec<RawEntry>,
    /// `errors` was no list (`error-contract-type`, reported): an empty
    /// contract is then no second finding.
    pub(crate) malformed: bool,
}

/// One `reason(code = .., when = .., recovery = .., retryable)`.
pub(crate) struct RawEntry {
    pub(crate) reason: Ident,
    pub(crate) args: EntryArgs,
    /// The entry names a key it does not have (reported with a "did you mean"):
    /// a key it meant is then not also reported missing.
    pub(crate) misspelled: bool,
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
        name: args.name,
        title: args.title,
        description: args.description,
        format: args.format,
        enrichment: args.enrichment,
        trailer: args.trailer.as_ref().map(|meta| crate::parse::trailer::parse(meta, diag)),
        app: args.app,
        tool_type: args.tool_type,
        reason_type: args.reason_type,
        krate: args.krate,
        allow,
    }
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

/// `auth("scope:a", "scope:b")`: the strings; anything else is `auth-type`.
fn auth(meta: &Meta, diag: &mut Diagnostics) -> Vec<LitStr> {
    let type_error = "`auth` is a list of scope strings: `auth(\"objects:read\", \"objects:write\")`";
    let Meta::List(_) = meta else {
        diag.error(value_error(rules::AUTH_TYPE, meta, type_error));
        return Vec::new();
    };
    let items = match list_items(meta) {
        Ok(items) => items,
        Err(err) => {
            diag.error(err);
            return Vec::new();
        }
    };
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
    let Meta::List(_) = meta else {
        diag.error(value_error(rules::REQUIRES_CAPABILITY, meta, type_error));
        return Vec::new();
    };
    let items = match list_items(meta) {
        Ok(items) => items,
        Err(err) => {
            diag.error(err);
            return Vec::new();
        }
    };
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
                    .and_then(|name| crate::diag::closest(&name.to_string(), &known))
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

/// `errors(reason(..), ..)`: each entry's reason and keys.
pub(crate) fn contract(meta: &Meta, diag: &mut Diagnostics) -> RawContract {
    let key = meta.path().span();
    let Ok(items) = list_items(meta) else {
        diag.error(syn::Error::new_spanned(
            meta,
            message(
                rules::ERROR_CONTRACT_TYPE,
                "`errors` is a list of failure modes: `errors(not_found(code = NotFound, when = \"..\", recovery = \"..\"))`",
            ),
        ));
        return RawContract { key, entries: Vec::new(), malformed: true };
    };
    let mut entries = Vec::new();
    for item in &items {
        let NestedMeta::Meta(meta) = item else {
            diag.error(syn::Error::new_spanned(
                item,
                message(
                    rules::ERROR_CONTRACT_ENTRY_TYPE,
                    "expected a failure mode: `reason_name(code = .., when = .., recovery = ..)`",
                ),
            ));
            continue;
        };
        let Some(reason) = meta.path().get_ident().cloned() else {
            diag.error(syn::Error::new_spanned(
                meta.path(),
                message(rules::ATTRIBUTE_SYNTAX, "a reason is a single snake_case name, such as `not_in_collection`"),
            ));
            continue;
        };
        let (args, misspelled) = match meta {
            Meta::List(_) => match list_items(meta) {
                Ok(items) => (from_items(&items, diag).unwrap_or_default(), has_unknown_keys::<EntryArgs>(&items)),
                Err(err) => {
                    diag.error(err);
                    (EntryArgs::default(), false)
                }
            },
            Meta::NameValue(value) => {
                diag.error(syn::Error::new_spanned(
                    value,
                    message(
                        rules::ERROR_CONTRACT_ENTRY_TYPE,
                        format_args!(
                            "a failure mode is a list of keys, not a value: `{reason}(code = .., when = .., recovery = ..)`"
                        ),
                    ),
                ));
                continue;
            }
            // `reason` alone: every key is missing, and reported so.
            Meta::Path(_) => (EntryArgs::default(), false),
        };
        entries.push(RawEntry { reason, args, misspelled });
    }
    RawContract { key, entries, malformed: false }
}

/// Take `allow(..)` out of an attribute's tokens: the rest, and the rule ids it names.
/// The keys of `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`, typed, and
/// the rules its `allow(..)` names. Rule ids are hyphenated
/// (`error-contract-empty`), which is no Rust path, so `allow(..)` is taken
/// out before darling sees the rest; what darling refuses is reported and the
/// defaults stand in, so the other checks still run.
pub(crate) fn parse_keys<T: Keys + Default>(tokens: TokenStream, diag: &mut Diagnostics) -> (T, Vec<AllowedRule>) {
    let (rest, allow) = split_allow(tokens, diag);
    let args = match NestedMeta::parse_meta_list(rest) {
        Ok(items) => from_items(&items, diag).unwrap_or_default(),
        Err(err) => {
            diag.error(err);
            T::default()
        }
    };
    (args, allow)
}

fn split_allow(tokens: TokenStream, diag: &mut Diagnostics) -> (TokenStream, Vec<AllowedRule>) {
    let mut rest = Vec::new();
    let mut allow = Vec::new();
    for item in split_top_level(tokens) {
        match item.as_slice() {
            [TokenTree::Ident(key), TokenTree::Group(group)]
                if key == "allow" && group.delimiter() == Delimiter::Parenthesis =>
            {
                allow.extend(parse_rule_ids(group.stream(), diag));
            }
            _ => {
                if !rest.is_empty() {
                    rest.push(TokenTree::Punct(proc_macro2::Punct::new(',', proc_macro2::Spacing::Alone)));
                }
                rest.extend(item);
            }
        }
    }
    (rest.into_iter().collect(), allow)
}

/// `error-contract-empty, "prefer-error-factory"` -> the ids and their spans.
fn parse_rule_ids(tokens: TokenStream, diag: &mut Diagnostics) -> Vec<AllowedRule> {
    let mut rules = Vec::new();
    for item in split_top_level(tokens) {
        let tokens: TokenStream = item.iter().cloned().collect();
        let id = match item.as_slice() {
            [TokenTree::Literal(lit)] => match syn::parse2::<LitStr>(TokenTree::Literal(lit.clone()).into()) {
                Ok(lit) => lit.value(),
                Err(_) => String::new(),
            },
            _ if item.iter().all(|tt| matches!(tt, TokenTree::Ident(_)) || is_hyphen(tt)) => {
                item.iter().map(ToString::to_string).collect()
            }
            _ => String::new(),
        };
        if id.is_empty() {
            diag.error(syn::Error::new_spanned(
                &tokens,
                message(
                    rules::ATTRIBUTE_SYNTAX,
                    "expected a lint rule id such as `error-contract-empty` in `allow(..)`",
                ),
            ));
        } else {
            rules.push(AllowedRule { id, tokens });
        }
    }
    rules
}

fn is_hyphen(tt: &TokenTree) -> bool {
    matches!(tt, TokenTree::Punct(punct) if punct.as_char() == '-')
}

/// Split a token stream at its top-level commas.
fn split_top_level(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut items = vec![Vec::new()];
    for tt in tokens {
        match &tt {
            TokenTree::Punct(punct) if punct.as_char() == ',' => items.push(Vec::new()),
            _ => items.last_mut().expect("never empty").push(tt),
        }
    }
    items.retain(|item| !item.is_empty());
    items
}

/// The items of a list-shaped key such as `errors(..)`, or an error for the other shapes.
fn list_items(meta: &Meta) -> syn::Result<Vec<NestedMeta>> {
    match meta {
        Meta::List(list) => NestedMeta::parse_meta_list(list.tokens.clone()),
        _ => Err(syn::Error::new_spanned(meta, message(rules::ATTRIBUTE_SYNTAX, "expected a list: `key(..)`"))),
    }
}
