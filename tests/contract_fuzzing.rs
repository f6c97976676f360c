//! `testing::check_contract` against tools broken on purpose, one per kind of
//! finding, each found with a shrunk input; and a sound tool that passes.

use std::time::Duration;

use mcp_contract::BoxFuture;
use mcp_contract::prelude::*;
use mcp_contract::testing::{
    Cases, Client, FindingKind, assert_contract, check_contract, check_prompt_contract, check_resource_contract,
    check_server_contract,
};
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

/// A vault of notes by title, shared by the tools below.
#[derive(Default)]
pub struct Vault(std::sync::Mutex<std::collections::BTreeSet<String>>);

#[derive(Deserialize, JsonSchema)]
#[schemars(example = json!({"title": "groceries"}))]
pub struct NoteInput {
    /// The note's title, e.g. "groceries".
    pub title: String,
}

/// Delete a note by its title: destructive and name-keyed, so it only
/// succeeds on a title that exists, which no generator guesses.
#[mcp_tool(annotations(destructive), errors(no_such_note(code = NotFound, when = "No note has this title",
    recovery = "List the notes to find a title.")))]
async fn delete_note(input: NoteInput, vault: State<Vault>, ctx: Ctx) -> Result<String, McpError> {
    if !vault.0.lock().unwrap().remove(&input.title) {
        return Err(ctx.fail(no_such_note, format!("No note `{}`.", input.title)));
    }
    Ok(format!("deleted {}", input.title))
}

#[derive(Deserialize, JsonSchema)]
pub struct NewNoteInput {
    /// The note's title, e.g. "groceries".
    pub title: String,
}

/// Create a note.
#[mcp_tool]
async fn create_note(input: NewNoteInput, vault: State<Vault>) -> Result<String, McpError> {
    vault.0.lock().unwrap().insert(input.title.clone());
    Ok(format!("created {}", input.title))
}

/// A set-up that creates the notes `titles` before each case.
fn create(titles: &'static [&'static str]) -> impl for<'a> Fn(&'a Client) -> BoxFuture<'a, Result<(), McpError>> {
    move |client| {
        Box::pin(async move {
            for title in titles {
                client.call_tool("create_note", json!({"title": title})).await?;
            }
            Ok(())
        })
    }
}

async fn vault_client() -> Client {
    let server = Server::new("notes", "1.0.0").state(Vault::default()).tool(DeleteNote).tool(CreateNote);
    Client::connect(server).await.expect("the server builds")
}

/// Regression (issue 34): a destructive, name-keyed tool got 0 successes in
/// 150 cases. The input schema's `examples` and examples given to `Cases`,
/// with a set-up that creates the notes they name, give it successes.
#[tokio::test]
async fn examples_and_a_set_up_give_a_name_keyed_tool_successes() {
    let client = vault_client().await;
    // The schema's example is tried, but names no note.
    let plain = check_contract(&client, DeleteNote, Cases::new(150).seed(3)).await.unwrap();
    assert_eq!(plain.succeeded, 0, "no note exists: {plain}");

    // The schema's example, `groceries`, exists before each case.
    let report =
        check_contract(&client, DeleteNote, Cases::new(150).seed(3).setup(create(&["groceries"]))).await.unwrap();
    report.assert_passed();
    assert!(report.succeeded >= 20, "the schema's example succeeds once its note exists: {report}");

    let cases =
        Cases::new(150).seed(3).with_examples([json!({"title": "books"})]).setup(create(&["groceries", "books"]));
    let report = check_contract(&client, DeleteNote, cases).await.unwrap();
    report.assert_passed();
    assert!(report.succeeded >= 20, "both examples succeed: {report}");
    assert!(report.failed > 0, "generated titles and invalid inputs still fail: {report}");
}

#[tokio::test]
async fn a_set_up_that_fails_stops_the_run_with_its_error() {
    let client = vault_client().await;
    let cases = Cases::new(10)
        .setup(|client| Box::pin(async move { client.call_tool("create_note", json!({})).await.map(drop) }));
    let err = check_contract(&client, DeleteNote, cases).await.unwrap_err();
    assert!(err.message().starts_with("the set-up before case 1 failed: "), "{err}");
}

#[tokio::test]
async fn a_whole_server_is_checked_tool_by_tool() {
    let client = client().await;
    let reports = check_server_contract(&client, cases()).await.unwrap();
    let names: Vec<&str> = reports.iter().map(|report| report.tool.as_str()).collect();
    assert_eq!(
        names,
        ["undeclared_code", "undeclared_reason", "panics", "slow", "output_mismatch", "format_parity", "sound"]
    );
    let failing: Vec<&str> = reports.iter().filter(|report| !report.passed()).map(|r| r.tool.as_str()).collect();
    assert_eq!(failing, &names[..6], "each broken tool is found, the sound one passes");
}

#[derive(Deserialize, JsonSchema)]
pub struct ShelfParams {
    /// The shelf's number, e.g. 3.
    pub shelf: u32,
}

/// One shelf of the vault; fails with a Conflict it does not declare past shelf 100.
#[mcp_resource(uri = "vault://shelves/{shelf}", name = "shelf", mime_type = "text/plain",
    allow(error-contract-conformance),
    errors(empty_shelf(code = NotFound, when = "The shelf holds nothing", recovery = "Try shelves 1 to 100.")))]
async fn shelf(params: ShelfParams, ctx: Ctx) -> Result<String, McpError> {
    match params.shelf {
        0 => Err(ctx.fail(empty_shelf, "Shelf 0 is empty.")),
        1..=100 => Ok(format!("shelf {}", params.shelf)),
        _ => Err(McpError::conflict("The shelves are being moved.")),
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct TourArgs {
    /// How many stops, e.g. 3.
    pub stops: u32,
}

/// Plan a tour; panics on zero stops.
#[mcp_prompt]
fn plan_tour(args: TourArgs) -> Result<Vec<PromptMessage>, McpError> {
    let per_stop = 60 / args.stops;
    Ok(vec![PromptMessage::user(format!("Plan a tour of {} stops, {per_stop} minutes each.", args.stops))])
}

/// The same check for a resource and a prompt (issue 34): what breaks the
/// contract is found with its input, beside reads that succeed.
#[tokio::test]
async fn resources_and_prompts_get_the_same_check() {
    let server = Server::new("vault", "1.0.0").resource(Shelf).prompt(PlanTour);
    let client = Client::connect(server).await.unwrap();
    let report = check_resource_contract(&client, Shelf, cases()).await.unwrap();
    let (input, summary) = only(&report, FindingKind::UndeclaredCode);
    assert!(input["shelf"].as_u64().is_some_and(|shelf| shelf > 100), "{summary}");
    assert!(report.succeeded > 0 && report.failed > 0, "{summary}");

    let report = check_prompt_contract(&client, PlanTour, cases()).await.unwrap();
    let (input, summary) = only(&report, FindingKind::Panic);
    assert_eq!(input, json!({"stops": 0}), "{summary}");
    assert!(summary.starts_with("contract check of `plan_tour`"), "{summary}");
}

/// Regression: `check_server_contract` checked the tools alone; a server's
/// resources and prompts are checked too, after its tools, each kind in the
/// order registered.
#[tokio::test]
async fn a_whole_server_is_checked_with_its_resources_and_prompts() {
    let server = Server::new("vault", "1.0.0").tool(Sound).resource(Shelf).prompt(PlanTour);
    let client = Client::connect(server).await.unwrap();
    let reports = check_server_contract(&client, cases()).await.unwrap();
    let verdicts: Vec<(&str, bool)> = reports.iter().map(|report| (report.tool.as_str(), report.passed())).collect();
    assert_eq!(verdicts, [("sound", true), ("shelf", false), ("plan_tour", false)]);
    let (input, _) = only(&reports[1], FindingKind::UndeclaredCode);
    assert!(input["shelf"].as_u64().is_some_and(|shelf| shelf > 100), "{}", reports[1]);
    let (input, _) = only(&reports[2], FindingKind::Panic);
    assert_eq!(input, json!({"stops": 0}), "{}", reports[2]);
}
