//! The macros of mcp-contract: the attributes `#[mcp_tool]`, `#[mcp_resource]`
//! and `#[mcp_prompt]`, the derives of an elicitation form (`ElicitForm`,
//! `FormField`, `expand::form`), and `embed_skills!` (`expand::skills`, a folder of
//! agent skills read into the binary). This file holds their entry points only; each hands the
//! handler function to its pipeline, `expand::tool::mcp_tool`,
//! `expand::resource::mcp_resource` or `expand::prompt::mcp_prompt`, which runs
//! the three stages in order, with every diagnostic collected in `diag` and
//! reported in one build:
//!
//! - `parse/`: the attribute's keys and the handler's signature into typed
//!   models that keep their spans;
//! - `valid/`: the models judged against the lint rules, the handler's body by
//!   the body rules;
//! - `expand/`: the handler rewritten (its reasons, its `?`s, its typed
//!   context) and the types the runtime serves generated.
//!
//! The folders are the stages, not the macros, as serde_derive's `internals/`
//! (read, check) stands apart from its `ser.rs` and `de.rs` (generate), and
//! clap_derive goes `attr` -> `item` -> `derives/`: most of each stage is
//! shared by the three attributes (the key-list grammar, the handler's
//! signature, the error contract with its checks and its reason enum, the name
//! and description checks), and what differs is one file per attribute inside
//! a stage (`tool.rs`, `resource.rs`, `prompt.rs`; a prompt has nothing of
//! its own to validate), with `expand/resource_or_prompt.rs` for what a
//! resource and a prompt generate alike. A stage uses only the stages before
//! it; the helpers beneath all three (`diag`, `kind`, `names`, `rules`) sit
//! beside this file.

#![warn(missing_docs)]

mod diag;
mod expand;
mod kind;
mod names;
mod parse;
mod rules;
mod valid;
#[cfg(test)]
mod verdict_tests;

use proc_macro::TokenStream;

/// Declare an MCP tool with a typed error contract.
///
/// ```ignore
/// /// Fetch one object of the collection by its ID.
/// #[mcp_tool(
///     annotations(read_only),
///     errors(not_in_collection(code = NotFound, when = "No object has this ID",
///         recovery = "Search with search_objects first to find valid object IDs.")),
/// )]
/// async fn get_object(input: GetObjectInput, ctx: Ctx) -> Result<GetObjectOutput, McpError> {
///     Err(ctx.fail(not_in_collection, "No such object."))
/// }
/// ```
///
/// Generates `GetObjectReason` (one variant per declared reason) and the tool type
/// `GetObject`, and keeps `get_object` callable. Keys, rules and diagnostics are
/// documented in the guide (guide/src/) and in the lint reference, `mcp_contract::rules`.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    match handler_fn(item, "mcp_tool") {
        Ok(item) => expand::tool::mcp_tool(args.into(), item).into(),
        Err(error) => error,
    }
}

/// Declare an MCP resource or resource template.
///
/// ```ignore
/// /// One object of the collection, as JSON.
/// #[mcp_resource(
///     uri = "museum://objects/{object_id}",
///     name = "object_record",
///     mime_type = "application/json",
///     errors(not_in_collection(code = NotFound, when = "No object has this ID",
///         recovery = "Search with search_objects first to find valid object IDs.")),
/// )]
/// async fn object_record(params: ObjectParams, museum: State<Museum>, ctx: Ctx) -> Result<ReadResourceResult, McpError> {
///     museum.find(params.object_id).map(ReadResourceResult::json).transpose()?
///         .ok_or_else(|| ctx.fail(not_in_collection, "No such object."))
/// }
/// ```
///
/// Generates the resource type `ObjectRecord`, with an `errors(..)` contract the
/// reason enum `ObjectRecordReason`, and keeps `object_record` callable
/// (`ObjectRecord::test_ctx()` gives it a context). The URI is checked at compile
/// time with the RFC 6570 parser the server matches URIs with
/// (`uri-template-valid`), and every template variable must be a field of the
/// params struct and every field a variable (`template-params-align`); a params
/// struct renamed for serde takes `params_renamed`, which leaves that check to
/// the definition linter (`Server::build`, or `assert_lint_clean` in a test). `errors(..)`, `reason_type`, `crate` and `allow(..)` are
/// those of `#[mcp_tool]`, with the same rules; a declared failure reaches the
/// client in the JSON-RPC error envelope. `complete = path` names an async
/// completer for the variables. A plain `fn` handler runs on the blocking pool.
/// `resource_type = Name` renames the generated type, as `tool_type` does.
///
/// `ui(..)` declares the HTML of an MCP App, the resource a tool names with
/// `#[mcp_tool(app = "ui://..")]`: it is served as `text/html;profile=mcp-app`
/// and its sandbox settings are published under `_meta.ui` in `resources/list`
/// and every `resources/read`: `ui(connect_domains = ["https://api.example.org"],
/// resource_domains = [..], frame_domains = [..], base_uri_domains = [..],
/// permissions(camera, microphone, geolocation, clipboard_write), domain = "..",
/// prefers_border = true)`, or bare `ui` for the host's default sandbox. Each
/// domain must be an origin (`meta-ui-csp-domain`), another `mime_type` is
/// refused (`meta-ui-resource-mime-type`), and a URI that is no `ui://` warns
/// (`meta-ui-resource-uri-scheme`).
#[proc_macro_attribute]
pub fn mcp_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    match handler_fn(item, "mcp_resource") {
        Ok(item) => expand::resource::mcp_resource(args.into(), item).into(),
        Err(error) => error,
    }
}

/// Declare an MCP prompt.
///
/// ```ignore
/// /// Plan a visit around one department.
/// #[mcp_prompt(errors(no_such_department(code = InvalidParams,
///     when = "The museum has no department of this name",
///     recovery = "Read museum://about for the list of departments.")))]
/// fn plan_visit(args: PlanVisitArgs, ctx: Ctx) -> Result<Vec<PromptMessage>, McpError> {
///     if !DEPARTMENTS.contains(&args.department.as_str()) {
///         return Err(ctx.fail(no_such_department, "No such department."));
///     }
///     Ok(vec![PromptMessage::user(format!("Plan a visit of the {} department.", args.department))])
/// }
/// ```
///
/// Generates the prompt type `PlanVisit`, with an `errors(..)` contract the
/// reason enum `PlanVisitReason`, and keeps `plan_visit` callable
/// (`PlanVisit::test_ctx()` gives it a context). The arguments struct (deriving
/// `Deserialize` and `JsonSchema`) gives the prompt's arguments: doc comments as
/// descriptions, `Option` fields optional; MCP's string arguments are parsed
/// into the fields' types. `errors(..)`, `reason_type`, `crate` and `allow(..)`
/// are those of `#[mcp_tool]`, with the same rules; a declared failure reaches
/// the client in the JSON-RPC error envelope. `complete = path` names an async
/// completer for the arguments. A plain `fn` handler runs on the blocking pool.
/// `prompt_type = Name` renames the generated type, as `tool_type` does.
#[proc_macro_attribute]
pub fn mcp_prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    match handler_fn(item, "mcp_prompt") {
        Ok(item) => expand::prompt::mcp_prompt(args.into(), item).into(),
        Err(error) => error,
    }
}

/// The handler function an attribute sits on; on anything else, the error of
/// `handler-required` (syn's own "expected `fn`" names no fix).
fn handler_fn(item: TokenStream, attribute: &str) -> Result<syn::ItemFn, TokenStream> {
    syn::parse::<syn::ItemFn>(item).map_err(|err| {
        let text = diag::message(
            rules::HANDLER_REQUIRED,
            format_args!(
                "`#[{attribute}]` goes on the handler function it serves, such as `async fn get_object(input: GetObjectInput, ctx: Ctx) -> Result<GetObjectOutput, McpError>`"
            ),
        );
        syn::Error::new(err.span(), text).to_compile_error().into()
    })
}

/// Make a struct an elicitation form: `ctx.elicit::<T>()` asks only for a
/// type deriving this (with `Deserialize` and `JsonSchema`).
///
/// ```ignore
/// #[derive(Deserialize, JsonSchema, ElicitForm)]
/// struct Booking {
///     name: String,
///     guests: u8,
///     room: Option<Room>,       // an enum deriving `FormField`
///     extras: Vec<Extra>,       // a multi-select: a `Vec` of one
/// }
/// ```
///
/// Each field's type must be a `FormField`, checked at compile time with the
/// error at the field (`elicitation-form-flat`): a string, number, integer,
/// boolean, an enum of unit variants deriving `FormField`, a `Vec` of such an
/// enum, or an `Option` of one of these. A nested struct is refused with the
/// fix (flatten it). `#[schemars(with = "String")]` checks the type named
/// instead of the field's, a `#[serde(flatten)]` field must be a form itself,
/// and a field with `#[serde(default ..)]` must be `Serialize` (schemars
/// writes the default by serializing it, and leaves it out silently
/// otherwise). `#[elicit(crate = path)]` names where `mcp-contract` is.
#[proc_macro_derive(ElicitForm, attributes(elicit))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    expand::form::derive_elicit_form(input.into()).into()
}

/// Make an enum of unit variants a field of an elicitation form: a
/// single-select, or, in a `Vec`, a multi-select. On a newtype struct
/// (`struct Email(String)`), a field of what it wraps.
///
/// ```ignore
/// #[derive(Deserialize, Serialize, JsonSchema, FormField)]
/// #[serde(rename_all = "lowercase")]
/// enum Room { Egyptian, Greek }
/// ```
///
/// A variant that carries data is refused (`elicitation-form-flat`).
#[proc_macro_derive(FormField, attributes(elicit))]
pub fn derive_form_field(input: TokenStream) -> TokenStream {
    expand::form::derive_form_field(input.into()).into()
}

/// Read a folder of agent skills into the binary at compile time, for
/// `Server::skills`: a deployed server serves them with no file beside it.
///
/// ```ignore
/// let server = Server::new("museum", "1.0.0").skills(mcp_contract::embed_skills!("skills"));
/// ```
///
/// The path is relative to the file that invokes the macro, as
/// `include_bytes!`'s is (`"../skills"` from `src/main.rs`; where no such
/// file exists, in a doctest, to the crate's `Cargo.toml`). Every file below it but
/// hidden ones (a name starting with `.`) is embedded with `include_bytes!`,
/// so a change to one rebuilds the crate. Each folder holding a `SKILL.md` is
/// a skill, checked as `Server::build` checks a folder it reads, every problem
/// reported at the literal: its frontmatter (`skill-frontmatter`), its files
/// (no symbolic link, special file or name that is not UTF-8, no `SKILL.md`
/// at the root: `skill-files`) and its size (`skill-size-limit`).
#[proc_macro]
pub fn embed_skills(input: TokenStream) -> TokenStream {
    // The invoking file, whose folder a relative path is read from, as `include_bytes!`'s is.
    let file = proc_macro::Span::call_site().local_file();
    expand::skills::embed_skills(input.into(), file.as_deref()).into()
}
