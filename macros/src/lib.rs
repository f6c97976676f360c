//! The `#[mcp_tool]` attribute of mcp-contract: parse (`attr`, `ast`) ->
//! validate (`valid`) -> expand (`expand`), with every diagnostic collected in
//! `diag` and reported in one build; `#[mcp_resource]` (`resource`) and
//! `#[mcp_prompt]` (`prompt`) take its error contract through `contract` and
//! share what they generate alike in `primitive`.

mod app_ui;
mod ast;
mod attr;
mod contract;
mod diag;
mod elicit;
mod expand;
mod lint;
mod names;
mod primitive;
mod prompt;
mod question;
mod reasons;
mod resource;
mod rules;
mod trailer;
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
///     Err(ctx.fail(not_in_collection, "No such object.").with_recovery())
/// }
/// ```
///
/// Generates `GetObjectReason` (one variant per declared reason) and the tool type
/// `GetObject`, and keeps `get_object` callable. Keys, rules and diagnostics are
/// documented in the README and in the lint reference, `mcp_contract::rules`.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = match handler_fn(item, "mcp_tool") {
        Ok(item) => item,
        Err(error) => return error,
    };
    let mut diag = diag::Diagnostics::default();
    let raw = attr::parse(args.into(), &mut diag);
    let mut handler = ast::parse(item, &mut diag);
    let allowed: Vec<String> = raw.allow.iter().map(|rule| rule.id.clone()).collect();
    let tool = valid::validate(raw, &handler, &mut diag);
    elicit::check_forms(&handler.item, &mut diag);
    if let Some(contract) = &tool.contract {
        let typed_ctx = if handler.ctx() == Some(ast::CtxKind::Typed) { handler.ctx_name.as_ref() } else { None };
        let reasons = reasons::Reasons { contract, reason_type: &tool.reason_type, typed_ctx, kind: "tool" };
        reasons::resolve_handler(&mut handler.item, &reasons, &mut diag);
    }
    let krate = &tool.krate;
    question::rewrite_handler(&mut handler.item, &quote::quote!(#krate::__private));
    diag.retain_warnings(|warning| !allowed.iter().any(|rule| *rule == warning.rule.id));
    let allow_deprecated = handler.allow_deprecated;
    let expanded = expand::expand(handler, &tool);
    let diagnostics = diag.into_tokens(allow_deprecated);
    quote::quote!(#diagnostics #expanded).into()
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
///         .ok_or_else(|| ctx.fail(not_in_collection, "No such object.").with_recovery())
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
    let item = match handler_fn(item, "mcp_resource") {
        Ok(item) => item,
        Err(error) => return error,
    };
    resource::expand(args.into(), item).into()
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
///         return Err(ctx.fail(no_such_department, "No such department.").with_recovery());
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
    let item = match handler_fn(item, "mcp_prompt") {
        Ok(item) => item,
        Err(error) => return error,
    };
    prompt::expand(args.into(), item).into()
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
