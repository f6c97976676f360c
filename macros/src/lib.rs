//! The `#[mcp_tool]` attribute of mcp-contract: parse (`attr`, `ast`) ->
//! validate (`valid`) -> expand (`expand`), with every diagnostic collected in
//! `diag` and reported in one build.

mod ast;
mod attr;
mod codes;
mod diag;
mod expand;
mod lint;
mod reasons;
mod rules;
mod valid;

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
/// documented in the README and in the lint reference, `mcp_contract::lints`.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(item as syn::ItemFn);
    let mut diag = diag::Diagnostics::default();
    let raw = attr::parse(args.into(), &mut diag);
    let mut handler = ast::parse(item, &mut diag);
    let allowed: Vec<String> = raw.allow.iter().map(|rule| rule.id.clone()).collect();
    let tool = valid::validate(raw, &handler, &mut diag);
    if let Some(contract) = &tool.contract {
        reasons::resolve_handler(&mut handler, contract, &tool.reason_type, &mut diag);
    }
    diag.retain_warnings(|warning| !allowed.iter().any(|rule| *rule == warning.rule.id));
    let allow_deprecated = handler.allow_deprecated;
    let expanded = expand::expand(handler, &tool);
    let diagnostics = diag.into_tokens(allow_deprecated);
    quote::quote!(#diagnostics #expanded).into()
}
