//! `mcp_contract::testing` and the test contexts: a handler's unit test with a
//! caller, state, capabilities and captured output, and the in-process client
//! over the whole stack.

use std::time::Duration;

use mcp_contract::context::{Capability, ClientCapabilities, LogRecord, ProgressUpdate};
use mcp_contract::prelude::*;
use mcp_contract::server::Changes;
use mcp_contract::testing::{Client, Notification};
use serde_json::json;

pub struct Shelf {
    titles: Vec<&'static str>,
}

#[derive(Deserialize, JsonSchema)]
pub struct ShelfInput {
    /// Position on the shelf, from 0.
    pub index: usize,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
pub struct ShelfOutput {
    /// The title at that position.
    pub title: String,
    /// Who asked.
    pub asked_by: Option<String>,
}

fn render_shelf(output: &ShelfOutput) -> String {
    format!("{} (asked by {})", output.title, output.asked_by.as_deref().unwrap_or("nobody"))
}

/// Read one title of the shelf, reporting progress and logging who asked.
#[mcp_tool(
    auth("shelf:read"),
    format = render_shelf,
    errors(no_such_index(code = NotFound, when = "The shelf has no title at this position",
        recovery = "Ask for a position below the shelf's size.")),
)]
async fn read_shelf(input: ShelfInput, shelf: State<Shelf>, ctx: Ctx) -> Result<ShelfOutput, McpError> {
    ctx.progress(1.0, Some(2.0), Some("looking".to_owned())).await;
    let asked_by = ctx.auth().and_then(|caller| caller.subject.clone());
    ctx.log(LogLevel::Info, json!({"asked_by": asked_by})).await;
    let title =
        shelf.titles.get(input.index).ok_or_else(|| ctx.fail(no_such_index, "No such position.").with_recovery())?;
    ctx.progress(2.0, Some(2.0), None).await;
    Ok(ShelfOutput { title: (*title).to_owned(), asked_by })
}

#[derive(Deserialize, JsonSchema, ElicitForm)]
struct Confirm {
    /// Remove it for good.
    confirm: bool,
}

/// Remove a title after the user confirms, and summarize it with the client's model.
#[mcp_tool(requires(elicitation, sampling), annotations(destructive))]
async fn remove_title(ctx: Ctx) -> Result<String, McpError> {
    match ctx.elicit::<Confirm>("Remove the title?").await? {
        Elicitation::Accepted(Confirm { confirm: true }) => {
            let summary = ctx.sample(Sampling::new(20).user("Summarize the removed title.")).await?;
            Ok(format!("removed: {}", summary.text))
        }
        _ => Ok("kept".to_owned()),
    }
}

/// Wait until the call is cancelled.
#[mcp_tool]
async fn wait_for_cancel(ctx: Ctx) -> Result<String, McpError> {
    ctx.cancelled().await;
    Ok("cancelled".to_owned())
}

#[derive(Deserialize, JsonSchema)]
struct TitleParams {
    index: usize,
}

/// One title of the shelf.
#[mcp_resource(uri = "shelf://titles/{index}", name = "title", mime_type = "text/plain",
    errors(no_such_index(code = NotFound, when = "The shelf has no title at this position",
        recovery = "Ask for a position below the shelf's size.")))]
fn title(params: TitleParams, shelf: State<Shelf>, ctx: Ctx) -> Result<String, McpError> {
    shelf.titles.get(params.index).map(|t| (*t).to_owned()).ok_or_else(|| ctx.fail(no_such_index, "No such position."))
}

#[derive(Deserialize, JsonSchema)]
struct BrowseArgs {
    /// The first letter to browse, e.g. "V".
    letter: String,
}

/// Browse the shelf by first letter.
#[mcp_prompt(complete = complete_letter)]
fn browse(args: BrowseArgs) -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::user(format!("List the titles starting with {}.", args.letter))])
}

async fn complete_letter(request: CompletionRequest, _ctx: Context) -> Result<Completion, McpError> {
    Ok(Completion::matching(["V", "W", "Vi"], &request.value))
}

fn shelf() -> Shelf {
    Shelf { titles: vec!["Vase", "Wave"] }
}

fn server() -> Server {
    Server::new("shelf", "1.0.0")
        .state(shelf())
        .tool(ReadShelf)
        .tool(RemoveTitle)
        .tool(WaitForCancel)
        .resource(Title)
        .prompt(Browse)
        .changes(Changes::new())
}

// ------------------------------------------------------------ test contexts

#[tokio::test]
async fn a_test_context_carries_the_caller_and_captures_progress_and_logs() {
    let ctx = ReadShelf::test_ctx().with_caller(AuthInfo::with_scopes(["shelf:read"]));
    let found = read_shelf(ShelfInput { index: 1 }, State::new(shelf()), ctx.clone()).await.unwrap();
    assert_eq!(found.title, "Wave");
    let captured = ctx.captured().expect("a test context records");
    assert_eq!(
        captured.progress().iter().map(|p| (p.progress, p.total)).collect::<Vec<_>>(),
        [(1.0, Some(2.0)), (2.0, Some(2.0))]
    );
    assert_eq!(captured.progress()[0].message.as_deref(), Some("looking"));
    let logs: Vec<LogRecord> = captured.logs();
    assert_eq!((logs[0].level, &logs[0].data), (LogLevel::Info, &json!({"asked_by": null})));
    // The caller is there for check_scopes: scopes are enforced on it.
    assert!(check_scopes(&ctx, ["shelf:read"]).is_ok());
    assert_eq!(check_scopes(&ctx, ["shelf:write"]).unwrap_err().code(), JsonRpcErrorCode::Forbidden);
}

#[tokio::test]
async fn a_test_context_fails_with_the_contract_and_records_no_progress_past_the_failure() {
    let ctx = ReadShelf::test_ctx();
    let err = read_shelf(ShelfInput { index: 9 }, State::new(shelf()), ctx.clone()).await.unwrap_err();
    assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("no_such_index")));
    let progress: Vec<ProgressUpdate> = ctx.captured().unwrap().progress();
    assert_eq!(progress.len(), 1, "{progress:?}");
}

#[tokio::test]
async fn a_test_context_answers_elicitation_and_sampling_from_its_script() {
    let ctx = RemoveTitle::test_ctx()
        .answer_elicitation(json!({"action": "accept", "content": {"confirm": true}}))
        .answer_sampling(json!({"role": "assistant", "content": {"type": "text", "text": "a vase"}, "model": "m"}));
    assert!(
        ctx.client_capabilities().has(Capability::Elicitation) && ctx.client_capabilities().has(Capability::Sampling)
    );
    assert_eq!(remove_title(ctx.clone()).await.unwrap(), "removed: a vase");
    let requests = ctx.captured().unwrap().requests();
    assert_eq!(requests.iter().map(|r| r.method).collect::<Vec<_>>(), ["elicitation/create", "sampling/createMessage"]);
    assert_eq!(requests[0].params["message"], "Remove the title?");
    // The script is spent: the next request finds no answer, as with a client that went away.
    let err = remove_title(ctx).await.unwrap_err();
    assert_eq!(err.reason(), Some("client_unavailable"));
}

#[tokio::test]
async fn a_test_context_without_the_capability_sends_nothing() {
    let ctx = RemoveTitle::test_ctx().with_client_capabilities(ClientCapabilities::declaring([Capability::Sampling]));
    let err = remove_title(ctx.clone()).await.unwrap_err();
    assert_eq!(err.reason(), Some("client_capability_missing"));
    assert!(ctx.captured().unwrap().requests().is_empty());
}

#[tokio::test]
async fn a_test_context_can_be_cancelled_from_the_test() {
    let token = tokio_util::sync::CancellationToken::new();
    let ctx = WaitForCancel::test_ctx().with_cancellation(token.clone());
    let call = tokio::spawn(wait_for_cancel(ctx));
    token.cancel();
    assert_eq!(tokio::time::timeout(Duration::from_secs(5), call).await.unwrap().unwrap().unwrap(), "cancelled");
}

#[tokio::test]
async fn resources_and_prompts_get_the_same_test_contexts() {
    let ctx = Title::test_ctx().with_state(State::new(shelf()));
    assert_eq!(ctx.state::<Shelf>().unwrap().titles.len(), 2);
    let err = title(TitleParams { index: 5 }, State::new(shelf()), ctx).unwrap_err();
    assert_eq!(err.reason(), Some("no_such_index"));
    assert!(Browse::test_ctx().captured().is_some());
}

// ------------------------------------------------------ the in-process client

#[tokio::test]
async fn the_client_calls_a_tool_through_the_whole_stack() {
    let client = Client::connect(server()).await.unwrap();
    let found = client.call(ReadShelf, json!({"index": 0})).await.unwrap();
    assert_eq!(found, ShelfOutput { title: "Vase".to_owned(), asked_by: None });
    let result = client.call_tool("read_shelf", json!({"index": 0})).await.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "Vase (asked by nobody)");
    let progress = client.wait_for(4, |n| matches!(n, Notification::Progress { .. })).await.unwrap();
    assert!(progress.contains(&Notification::Progress {
        progress: 1.0,
        total: Some(2.0),
        message: Some("looking".to_owned())
    }));
    let logs = client.wait_for(2, |n| matches!(n, Notification::Log { .. })).await.unwrap();
    assert!(matches!(&logs[0], Notification::Log { level, data, .. } if level == "info" && data["asked_by"].is_null()));
}

#[tokio::test]
async fn the_client_reads_a_tool_error_as_an_mcp_error() {
    let client = Client::connect(server()).await.unwrap();
    let err = client.call(ReadShelf, json!({"index": 7})).await.unwrap_err();
    assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("no_such_index")));
    assert_eq!(err.recovery_hint(), Some("Ask for a position below the shelf's size."));
    // Arguments that do not decode, and a tool the server does not have.
    let err = client.call(ReadShelf, json!({"index": "first"})).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams);
    let err = client.call_tool("no_such_tool", json!({})).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams);
    assert!(err.message().contains("no_such_tool"), "{}", err.message());
}

#[tokio::test]
async fn the_client_calls_as_a_caller_and_the_declared_scopes_are_enforced() {
    let reader = AuthInfo::from_claims(json!({"sub": "ada", "scope": "shelf:read"}).as_object().unwrap()).unwrap();
    let client = Client::builder().caller(reader).connect(server()).await.unwrap();
    assert_eq!(client.call(ReadShelf, json!({"index": 1})).await.unwrap().asked_by.as_deref(), Some("ada"));
    let stranger = Client::builder().caller(AuthInfo::with_scopes(["other"])).connect(server()).await.unwrap();
    let err = stranger.call(ReadShelf, json!({"index": 1})).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::Forbidden);
    assert_eq!(err.data().unwrap()["missingScopes"], json!(["shelf:read"]));
}

#[tokio::test]
async fn the_client_answers_elicitation_and_sampling_from_its_script() {
    let client = Client::builder()
        .answer_elicitation(json!({"action": "accept", "content": {"confirm": true}}))
        .answer_sampling(json!({"role": "assistant", "content": {"type": "text", "text": "a wave"}, "model": "m"}))
        .connect(server())
        .await
        .unwrap();
    assert_eq!(client.call(RemoveTitle, json!({})).await.unwrap(), "removed: a wave");
    client.answer_elicitation(json!({"action": "decline"}));
    assert_eq!(client.call(RemoveTitle, json!({})).await.unwrap(), "kept");
    let asked: Vec<&str> = client.server_requests().iter().map(|r| r.method).collect();
    assert_eq!(asked, ["elicitation/create", "sampling/createMessage", "elicitation/create"]);
    // Without the capabilities the tool is refused before it runs.
    let plain = Client::connect(server()).await.unwrap();
    assert_eq!(plain.call(RemoveTitle, json!({})).await.unwrap_err().reason(), Some("client_capability_missing"));
}

#[tokio::test]
async fn a_call_past_the_clients_bound_is_a_timeout() {
    let client = Client::builder().call_timeout(Duration::from_millis(200)).connect(server()).await.unwrap();
    let err = client.call(WaitForCancel, json!({})).await.unwrap_err();
    assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::Timeout, Some("call_timeout")));
}

#[tokio::test]
async fn the_client_reads_resources_gets_prompts_and_completes() {
    let client = Client::connect(server()).await.unwrap();
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "shelf://titles/{index}");
    let read = client.read_resource("shelf://titles/1").await.unwrap();
    assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "Wave");
    let err = client.read_resource("shelf://titles/9").await.unwrap_err();
    assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("no_such_index")));
    let err = client.read_resource("shelf://nothing").await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::Conflict, "-32002 is MCP's resource-not-found, Conflict here");
    let prompt = client.get_prompt("browse", json!({"letter": "V"})).await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"],
        "List the titles starting with V."
    );
    let err = client.get_prompt("browse", json!({})).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams);
    assert_eq!(client.complete_prompt("browse", "letter", "V").await.unwrap().values, ["V", "Vi"]);
    assert_eq!(client.list_prompts().await.unwrap().len(), 1);
}

#[tokio::test]
async fn the_client_hears_resource_updates_it_subscribed_to() {
    let changes = Changes::new();
    let client = Client::connect(server().changes(changes.clone())).await.unwrap();
    client.subscribe("shelf://titles/1").await.unwrap();
    assert_eq!(changes.resource_updated("shelf://titles/1").await, 1);
    let updated = client.wait_for(1, |n| matches!(n, Notification::ResourceUpdated { .. })).await.unwrap();
    assert_eq!(updated, [Notification::ResourceUpdated { uri: "shelf://titles/1".to_owned() }]);
}

/// A pin accepted at `version` in a snapshot file under a scratch "crate",
/// and the place `assert_contract_pinned!` would check against it.
fn accepted_at(
    pin: &mcp_contract::testing::Pin,
    version: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) -> (mcp_contract::testing::PinPlace, std::path::PathBuf) {
    let root = std::env::temp_dir().join(format!("mcp-contract-pins-{}-{version}", std::process::id()));
    std::fs::create_dir_all(root.join("tests/snapshots")).expect("a scratch directory");
    std::fs::write(root.join("tests/pins.rs"), "").expect("the test file");
    let mut accepted = pin.value.clone();
    accepted["server"]["version"] = json!(version);
    edit(&mut accepted);
    let place = mcp_contract::testing::PinPlace::new(root.to_str().unwrap(), "tests/pins.rs", pin);
    let text = format!("---\nsource: tests/pins.rs\n---\n{}\n", serde_json::to_string_pretty(&accepted).unwrap());
    std::fs::write(root.join(format!("tests/snapshots/{}.snap", place.name())), text).expect("the snapshot");
    (place, root)
}

#[tokio::test]
async fn a_breaking_change_fails_unless_the_version_announces_it() {
    let pin = mcp_contract::testing::Pin::read(server()).await.expect("the pin");
    assert_eq!(pin.version(), "1.0.0");
    // The accepted pin had a tool this server no longer serves.
    let removed_tool = |accepted: &mut serde_json::Value| {
        let copy = accepted["tools"]["read_shelf"].clone();
        accepted["tools"]["old_shelf"] = copy;
    };
    let (place, root) = accepted_at(&pin, "1.0.0", removed_tool);
    assert_eq!(place.accepted().expect("read back").version(), "1.0.0");
    let failed = std::panic::catch_unwind(|| place.check(&pin)).expect_err("unannounced");
    let message = failed.downcast_ref::<String>().expect("a message");
    assert!(message.contains("breaking: tools.old_shelf: the tool was removed"), "{message}");
    assert!(message.contains("bump the server's version to 2.0.0"), "{message}");
    std::fs::remove_dir_all(root).ok();

    // Accepted at 0.9.0: 1.0.0 is a major bump, which announces it.
    let (place, root) = accepted_at(&pin, "0.9.0", removed_tool);
    place.check(&pin);
    std::fs::remove_dir_all(root).ok();

    // An additive change (a tool the accepted pin lacked) needs no bump.
    let (place, root) = accepted_at(&pin, "1.0.0", |accepted| {
        accepted["tools"].as_object_mut().unwrap().remove("read_shelf");
    });
    place.check(&pin);
    let changes = pin.changes_since(&place.accepted().unwrap());
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].to_string(), "additive: tools.read_shelf: a new tool");
    std::fs::remove_dir_all(root).ok();
}

#[derive(Deserialize, JsonSchema)]
pub struct CatalogueInput {
    /// How many shelves to catalogue, 20 ms each.
    pub shelves: u32,
}

/// Catalogue the shelves, reporting each; as a task when the client can poll.
#[mcp_tool(task(optional), annotations(read_only))]
async fn catalogue(input: CatalogueInput, ctx: Ctx) -> Result<String, McpError> {
    for shelf in 1..=input.shelves {
        tokio::time::sleep(Duration::from_millis(20)).await;
        ctx.progress(f64::from(shelf), Some(f64::from(input.shelves)), Some("Cataloguing".to_owned())).await;
    }
    let token = ctx.progress_token().map(ToString::to_string).unwrap_or_default();
    Ok(format!("{} shelves (progress token {token})", input.shelves))
}

/// The client's typed task helpers (issue 34): a call made a task, its state
/// with the handler's progress, its result, its cancellation; a plain `call`
/// follows a task to its result.
#[tokio::test]
async fn a_client_of_the_tasks_extension_drives_a_task_to_its_end() {
    let server = || Server::new("library", "1.0.0").tool(Catalogue);
    let plain = Client::connect(server()).await.unwrap();
    let err = plain.call_tool_as_task("catalogue", json!({"shelves": 1})).await.unwrap_err();
    assert!(err.message().contains("Client::builder().tasks()"), "{err}");

    let client = Client::builder().tasks().connect(server()).await.unwrap();
    let task = client.call_tool_as_task("catalogue", json!({"shelves": 10})).await.unwrap();
    assert_eq!(task.status, rmcp::model::TaskStatus::Working);
    let shown = loop {
        let state = client.get_task(&task.task_id).await.unwrap();
        if let Some(message) = state.task.status_message {
            break message;
        }
        assert_eq!(state.task.status, rmcp::model::TaskStatus::Working, "progress before the end");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert!(shown.starts_with("Cataloguing (") && shown.ends_with(" of 10)"), "{shown}");
    let result = client.task_result(&task.task_id).await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.starts_with("10 shelves (progress token "), "the handler read its call's token: {text}");

    let task = client.call_tool_as_task("catalogue", json!({"shelves": 200})).await.unwrap();
    client.cancel_task(&task.task_id).await.unwrap();
    let err = client.task_result(&task.task_id).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::RequestCancelled, "{err}");
    let unknown = client.get_task("no-such-task").await.unwrap_err();
    assert_eq!(unknown.code(), JsonRpcErrorCode::InvalidParams, "{unknown}");

    // `call` makes a task of it, and follows it to its output.
    assert_eq!(client.call(Catalogue, json!({"shelves": 2})).await.unwrap().split(' ').next(), Some("2"));
}
