//! `testing::check_contract` against tools broken on purpose, one per kind of
//! finding, each found with a shrunk input; and a sound tool that passes.

use std::time::Duration;

use mcp_contract::prelude::*;
use mcp_contract::testing::{Cases, Client, FindingKind, assert_contract, check_contract};
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
pub struct CountInput {
    /// How many objects, e.g. 3.
    pub count: u32,
}

/// Fails with a Conflict it does not declare once the count passes 100.
#[mcp_tool(allow(error-contract-conformance), errors(too_few(code = NotFound, when = "The count is zero", recovery = "Ask for at least one object.")))]
async fn undeclared_code(input: CountInput, ctx: Ctx) -> Result<String, McpError> {
    match input.count {
        0 => Err(ctx.fail(too_few, "Zero objects.")),
        1..=100 => Ok(format!("{} objects", input.count)),
        _ => Err(McpError::conflict("The shelf is being rearranged.")),
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct QueryInput {
    /// Words to look for, e.g. "vase".
    pub query: String,
}

/// Files a long query under a reason its contract does not have.
#[mcp_tool(allow(error-contract-prefer-fail), errors(empty_query(code = ValidationError, when = "The query is empty", recovery = "Send a word of two letters or more.")))]
async fn undeclared_reason(input: QueryInput, ctx: Ctx) -> Result<String, McpError> {
    if input.query.is_empty() {
        return Err(ctx.fail(empty_query, "Empty query."));
    }
    if input.query.chars().count() > 5 {
        return Err(McpError::validation_error("Too long.").with_reason("query_too_long"));
    }
    Ok(input.query)
}

#[derive(Deserialize, JsonSchema)]
pub struct ItemsInput {
    /// Object IDs, e.g. [1, 2].
    pub ids: Vec<u32>,
}

/// Panics on an empty list.
#[mcp_tool]
async fn panics(input: ItemsInput) -> Result<String, McpError> {
    Ok(format!("first: {}", input.ids[0]))
}

#[derive(Deserialize, JsonSchema)]
pub struct SlowInput {
    /// Whether to take the slow path.
    pub thorough: bool,
    /// A label, e.g. "a".
    pub label: Option<String>,
}

/// Takes ten seconds on its thorough path.
#[mcp_tool]
async fn slow(input: SlowInput) -> Result<String, McpError> {
    if input.thorough {
        tokio::time::sleep(Duration::from_secs(10)).await;
    }
    Ok(input.label.unwrap_or_default())
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Stock {
    /// Objects in stock, at most 10.
    #[schemars(range(max = 10))]
    pub in_stock: u32,
}

fn render_stock(stock: &Stock) -> String {
    format!("{} in stock", stock.in_stock)
}

/// Promises at most 10 in stock, and reports what it is asked.
#[mcp_tool(format = render_stock)]
async fn output_mismatch(input: CountInput) -> Result<Stock, McpError> {
    Ok(Stock { in_stock: input.count })
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Label {
    /// The label's text.
    pub text: String,
}

fn render_label(label: &Label) -> String {
    // Short labels render whole; a long one is cut, and its text is lost.
    if label.text.chars().count() > 30 { "A long label.".to_owned() } else { format!("Label: {}", label.text) }
}

/// Echoes a label, which its format cuts when it is long.
#[mcp_tool(format = render_label)]
async fn format_parity(input: QueryInput) -> Result<Label, McpError> {
    Ok(Label { text: input.query })
}

/// A sound tool: it fails only as declared.
#[mcp_tool(format = render_label, errors(empty_query(code = ValidationError, when = "The query is empty", recovery = "Send a word of two letters or more.")))]
async fn sound(input: QueryInput, ctx: Ctx) -> Result<Label, McpError> {
    if input.query.trim().is_empty() {
        return Err(ctx.fail(empty_query, "Empty query."));
    }
    Ok(Label { text: input.query.chars().take(30).collect() })
}

async fn client() -> Client {
    let server = Server::new("broken", "1.0.0")
        .tool(UndeclaredCode)
        .tool(UndeclaredReason)
        .tool(Panics)
        .tool(Slow)
        .tool(OutputMismatch)
        .tool(FormatParity)
        .tool(Sound);
    Client::connect(server).await.expect("the server builds")
}

fn cases() -> Cases {
    Cases::new(200).seed(7).time_bound(Duration::from_millis(300))
}

/// The one finding of `kind`, and the report's summary.
fn only(report: &mcp_contract::testing::ContractReport, kind: FindingKind) -> (Value, String) {
    let summary = report.to_string();
    let found: Vec<_> = report.findings.iter().filter(|f| f.kind == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} finding: {summary}");
    assert_eq!(report.findings.len(), 1, "nothing else: {summary}");
    (found[0].input.clone(), summary)
}

#[tokio::test]
async fn an_undeclared_code_is_found_with_the_smallest_count() {
    let client = client().await;
    let report = check_contract(&client, UndeclaredCode, cases()).await.unwrap();
    let (input, summary) = only(&report, FindingKind::UndeclaredCode);
    assert_eq!(input, json!({"count": 101}), "{summary}");
    assert!(summary.contains("Conflict (-32002)"), "{summary}");
    assert!(summary.contains("smallest input: {\"count\":101}"), "{summary}");
}

#[tokio::test]
async fn an_undeclared_reason_is_found_with_the_shortest_query() {
    let client = client().await;
    let report = check_contract(&client, UndeclaredReason, cases()).await.unwrap();
    let (input, summary) = only(&report, FindingKind::UndeclaredReason);
    assert_eq!(input["query"].as_str().unwrap().chars().count(), 6, "{summary}");
    assert!(summary.contains("`query_too_long`"), "{summary}");
}

#[tokio::test]
async fn a_panic_is_found_with_the_empty_list() {
    let client = client().await;
    let report = check_contract(&client, Panics, cases()).await.unwrap();
    let (input, summary) = only(&report, FindingKind::Panic);
    assert_eq!(input, json!({"ids": []}), "{summary}");
}

#[tokio::test]
async fn a_call_past_the_bound_is_found_with_the_slow_flag_alone() {
    let client = client().await;
    let report = check_contract(&client, Slow, cases().max_shrink_steps(40)).await.unwrap();
    let (input, summary) = only(&report, FindingKind::TimeBound);
    assert_eq!(input, json!({"thorough": true}), "{summary}");
}

#[tokio::test]
async fn an_output_past_its_schema_is_found_with_the_smallest_count() {
    let client = client().await;
    let report = check_contract(&client, OutputMismatch, cases()).await.unwrap();
    let (input, summary) = only(&report, FindingKind::OutputSchema);
    assert_eq!(input, json!({"count": 11}), "{summary}");
    assert!(summary.contains("/in_stock"), "{summary}");
}

#[tokio::test]
async fn a_format_that_drops_a_field_is_found_with_the_shortest_long_label() {
    let client = client().await;
    let report = check_contract(&client, FormatParity, cases()).await.unwrap();
    let (input, summary) = only(&report, FindingKind::FormatParity);
    assert_eq!(input["query"].as_str().unwrap().chars().count(), 31, "{summary}");
    assert!(summary.contains("`/text`"), "{summary}");
}

#[tokio::test]
async fn a_sound_tool_passes_and_a_seed_replays_the_same_run() {
    let client = client().await;
    assert_contract(&client, Sound, Cases::new(300).seed(42)).await;
    let first = check_contract(&client, UndeclaredReason, cases()).await.unwrap();
    let again = check_contract(&client, UndeclaredReason, cases()).await.unwrap();
    assert_eq!(first.findings, again.findings);
    assert_eq!((first.succeeded, first.failed), (again.succeeded, again.failed));
    assert!(first.succeeded > 0 && first.failed > 0, "valid and invalid inputs: {first}");
}

#[tokio::test]
async fn the_summary_names_the_tool_the_seed_and_each_finding() {
    let client = client().await;
    let report = check_contract(&client, Panics, cases()).await.unwrap();
    let summary = report.to_string();
    assert!(summary.starts_with("contract check of `panics`: 200 cases (seed 7;"), "{summary}");
    assert!(summary.contains("1. panic: the handler panicked"), "{summary}");
    assert!(summary.ends_with("replay with Cases::new(200).seed(7)"), "{summary}");
    let failed = std::panic::catch_unwind(|| report.assert_passed()).unwrap_err();
    assert_eq!(failed.downcast_ref::<String>(), Some(&summary));
}
