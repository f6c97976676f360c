//! Enrichment end to end: `#[mcp_tool(enrichment = T)]`, `ctx.enrich()` in the
//! handler and in a service that takes the context, what `tools/list`
//! advertises and what a call returns.

use mcp_contract::prelude::*;
use mcp_contract::{content::Content, tools::DynTool};

#[derive(Deserialize, JsonSchema)]
pub struct SearchInput {
    /// Words to look for in object titles.
    pub query: String,
    /// How many titles to return at most.
    pub limit: u32,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct SearchOutput {
    /// The matching titles, at most `limit`.
    pub titles: Vec<String>,
}

/// What the agent should know about a search besides its hits.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchEnrichment {
    /// The query as the server understood it.
    pub effective_query: Option<String>,
    /// How many objects matched in all.
    pub total_count: Option<u64>,
    /// Why the result is empty, or that it was capped.
    pub notice: Option<String>,
}

const TITLES: [&str; 3] = ["The Great Wave", "Wave Study", "Wheat Field"];

/// A service that takes the untyped context, as helpers deeper in a server do.
fn count_matches(query: &str, ctx: &Context) -> u64 {
    let total = TITLES.iter().filter(|title| title.to_lowercase().contains(query)).count() as u64;
    ctx.enrich().total(total);
    total
}

/// Search object titles.
#[mcp_tool(enrichment = SearchEnrichment, format = render)]
async fn search_titles(input: SearchInput, ctx: Ctx) -> Result<SearchOutput, McpError> {
    let query = input.query.trim().to_lowercase();
    ctx.enrich().echo(query.clone());
    if count_matches(&query, &ctx) == 0 {
        ctx.enrich().notice("Nothing matched: try a shorter word.");
    }
    let titles = TITLES.iter().filter(|title| title.to_lowercase().contains(&query)).take(input.limit as usize);
    Ok(SearchOutput { titles: titles.map(|title| (*title).to_owned()).collect() })
}

fn render(output: &SearchOutput) -> String {
    format!("titles: {}", output.titles.join(", "))
}

fn arguments(value: serde_json::Value) -> mcp_contract::JsonObject {
    value.as_object().expect("an object").clone()
}

/// The context the server hands the tool for a call.
fn context() -> Context {
    Context::new("search_titles", &[])
}

fn text(content: &Content) -> &str {
    match content {
        Content::Text { text } => text,
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn enrichment_fields_join_the_structured_result_and_a_trailer() {
    let output = SearchTitles.call_json(arguments(serde_json::json!({"query": " Wave ", "limit": 5})), context()).await;
    let output = output.expect("the search succeeds");
    assert_eq!(
        output.structured,
        Some(
            serde_json::json!({"titles": ["The Great Wave", "Wave Study"], "effectiveQuery": "wave", "totalCount": 2})
        )
    );
    assert_eq!(output.content.len(), 2, "the format text, then the trailer");
    assert_eq!(text(&output.content[0]), "titles: The Great Wave, Wave Study");
    assert_eq!(text(&output.content[1]), "\n\nQuery: wave\n**2 total**");
}

#[tokio::test]
async fn an_empty_result_carries_the_notice() {
    let output = SearchTitles
        .call_json(arguments(serde_json::json!({"query": "vase", "limit": 5})), context())
        .await
        .expect("an empty result is no error");
    assert_eq!(text(&output.content[1]), "\n\nQuery: vase\n**0 total**\n> Nothing matched: try a shorter word.");
}

#[test]
fn the_advertised_output_schema_has_the_enrichment_fields_the_domain_schema_does_not() {
    let definition = Tool::definition(&SearchTitles);
    let domain = definition.output_schema.as_ref().expect("an output schema");
    assert!(domain["properties"].get("totalCount").is_none(), "format parity sees the domain output only");
    let enrichment = definition.enrichment.as_ref().expect("declared");
    let keys: Vec<&str> = enrichment.keys().collect();
    assert_eq!(keys, ["effectiveQuery", "notice", "totalCount"]);
    let advertised = mcp_contract::tools::extend_output_schema(domain, enrichment);
    for key in ["titles", "effectiveQuery", "totalCount", "notice"] {
        assert!(advertised["properties"].get(key).is_some(), "{key}");
    }
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(SearchTitles));
}

/// What a page of results was cut to, for the trailer's own renderer.
#[derive(Serialize, JsonSchema)]
pub struct PageInfo {
    /// The page shown.
    pub number: u32,
    /// How many results a page holds.
    pub size: u32,
}

/// A search's enrichment with a compound field, which needs a renderer.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PagedEnrichment {
    /// How many objects matched in all.
    pub total_count: Option<u64>,
    /// Which page this is.
    pub page: Option<PageInfo>,
    /// How the collection's size changed since the last search.
    pub size_in_objects: Option<serde_json::Value>,
}

fn render_page(page: &serde_json::Value) -> String {
    format!("### Page {}\n- {} per page", page["number"], page["size"])
}

/// Search object titles, one page at a time.
#[mcp_tool(
    enrichment = PagedEnrichment,
    format = render,
    trailer(page(render = render_page), totalCount(label = "Matches"), sizeInObjects(label = "Collection size")),
)]
async fn search_pages(input: SearchInput, ctx: Ctx) -> Result<SearchOutput, McpError> {
    let titles: Vec<String> = TITLES.iter().take(input.limit as usize).map(|title| (*title).to_owned()).collect();
    ctx.enrich().fields(serde_json::json!({"page": {"number": 1, "size": input.limit}, "totalCount": 3}));
    ctx.enrich().delta("sizeInObjects", 2, 3);
    Ok(SearchOutput { titles })
}

#[tokio::test]
async fn the_attribute_gives_the_trailer_its_labels_and_renderers() {
    let output = SearchPages.call_json(arguments(serde_json::json!({"query": "", "limit": 2})), context()).await;
    let output = output.expect("the search succeeds");
    // The author's renderer first; it ends in a list item, so a blank line
    // follows; a label replaces the key, also in a delta. The `total` kind is
    // set by `.total(..)` only, so `totalCount` set as a field renders with its label.
    assert_eq!(text(&output.content[1]), "\n\n### Page 1\n- 2 per page\n\n**Matches:** 3\n**Collection size:** 2 → 3");
    let structured = output.structured.expect("structured");
    assert_eq!(structured["page"], serde_json::json!({"number": 1, "size": 2}), "structuredContent keeps the value");
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(SearchPages));
}

/// The same enrichment without a renderer for `page`, and a trailer entry for a
/// field the type does not have (its Rust name, not its JSON name).
#[mcp_tool(enrichment = PagedEnrichment, format = render, trailer(total_count(label = "Matches")))]
async fn search_unrendered(input: SearchInput) -> Result<SearchOutput, McpError> {
    Ok(SearchOutput { titles: TITLES.iter().take(input.limit as usize).map(|title| (*title).to_string()).collect() })
}

#[test]
fn the_linter_checks_the_attributes_trailer_against_the_enrichment_type() {
    let err = Server::new("museum", "1.0.0").tool(SearchUnrendered).build().unwrap_err();
    let mcp_contract::server::ServerError::Lint(report) = &err else { panic!("not a lint error: {err}") };
    let mut rules: Vec<(&str, Option<&str>)> = report.diagnostics.iter().map(|d| (d.rule, d.path.as_deref())).collect();
    rules.sort_unstable();
    assert_eq!(
        rules,
        [
            ("enrichment-trailer-render", Some("/enrichment/properties/page")),
            ("enrichment-trailer-unknown-field", Some("/enrichment/trailer")),
        ]
    );
    let unknown = report.diagnostics.iter().find(|d| d.rule == "enrichment-trailer-unknown-field").unwrap();
    assert!(unknown.message.contains("`total_count`"), "{}", unknown.message);
}
