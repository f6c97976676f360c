//! Enrichment end to end: `#[mcp_tool(enrichment = T)]`, `ctx.enrich()` in the
//! handler and in a service that takes the context, what `tools/list`
//! advertises and what a call returns.

use mcp_contract::prelude::*;
use mcp_contract::{Content, DynTool};

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
    let advertised = mcp_contract::define::extend_output_schema(domain, enrichment);
    for key in ["titles", "effectiveQuery", "totalCount", "notice"] {
        assert!(advertised["properties"].get(key).is_some(), "{key}");
    }
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(SearchTitles));
}
