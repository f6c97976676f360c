//! Tools that run as tasks (SEP-2663) against rmcp's own client over an
//! in-process pipe: the task a call makes, `tasks/get` until it finishes,
//! `tasks/cancel`, `tasks/update`, the -32021 of a required task, retention
//! and the store's bound; a tool that gathers its input on stateless
//! requests before it becomes a task, over Streamable HTTP.

mod support;

use std::sync::LazyLock;
use std::time::Duration;

use mcp_contract_runtime::call::Elicitation;
use mcp_contract_runtime::define::{TaskSupport, ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{HttpOptions, MemoryTaskStore, Server};
use mcp_contract_runtime::{Context, McpError, Tool};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig, GetTaskParams,
    GetTaskResult, TASKS_EXTENSION_ID, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, schemars::JsonSchema)]
struct SlowInput {
    /// How long to work, in milliseconds.
    millis: u64,
}

/// Works for a while, as a task when the client can poll.
struct Slow;
static SLOW: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("slow", mcp_contract_runtime::schema::input_schema::<SlowInput>())
        .with_description("Work for a while.")
        .with_task_support(TaskSupport::Optional)
});

impl Tool for Slow {
    type Input = SlowInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &SLOW
    }
    async fn call(&self, input: SlowInput, _ctx: Context) -> Result<String, McpError> {
        tokio::time::sleep(Duration::from_millis(input.millis)).await;
        Ok(format!("worked {} ms", input.millis))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Always runs as a task, and fails.
struct Failing;
static FAILING: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new(
        "failing",
        mcp_contract_runtime::schema::input_schema::<mcp_contract_runtime::define::NoArguments>(),
    )
    .with_description("Fail, as a task.")
    .with_task_support(TaskSupport::Required)
});

impl Tool for Failing {
    type Input = mcp_contract_runtime::define::NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &FAILING
    }
    async fn call(&self, _input: Self::Input, _ctx: Context) -> Result<String, McpError> {
        Err(McpError::service_unavailable("The archive is closed."))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// Cannot run: its job runner is gone, a failure of the request rather than
/// of the work, so it fails with a protocol error.
struct Unrunnable;
static UNRUNNABLE: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new(
        "unrunnable",
        mcp_contract_runtime::schema::input_schema::<mcp_contract_runtime::define::NoArguments>(),
    )
    .with_description("Fail with a protocol error, as a task when the client can poll.")
    .with_task_support(TaskSupport::Optional)
});

impl Tool for Unrunnable {
    type Input = mcp_contract_runtime::define::NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &UNRUNNABLE
    }
    async fn call(&self, _input: Self::Input, _ctx: Context) -> Result<String, McpError> {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Err(McpError::service_unavailable("The job runner is gone.")
            .with_data_field("runner", "batch-2")
            .into_protocol_error())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

struct Plain;

impl ClientHandler for Plain {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

/// A client that declares the tasks extension.
struct Polling;

impl ClientHandler for Polling {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities = ClientCapabilities::builder().enable_tasks().build();
        config
    }
}

async fn connect<C: ClientHandler>(server: Server, client: C) -> RunningService<RoleClient, C> {
    let built = server.build().expect("the server builds");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = built.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_io).await.expect("the client connects")
}

#[derive(Deserialize, schemars::JsonSchema, mcp_contract::context::ElicitForm)]
struct Answer {
    word: String,
}

/// Asks two words at once, as a task when the client can poll.
struct Ask;
static ASK: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new(
        "ask",
        mcp_contract_runtime::schema::input_schema::<mcp_contract_runtime::define::NoArguments>(),
    )
    .with_description("Ask for two words.")
    .with_task_support(TaskSupport::Optional)
});

impl Tool for Ask {
    type Input = mcp_contract_runtime::define::NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &ASK
    }
    async fn call(&self, _input: Self::Input, ctx: Context) -> Result<String, McpError> {
        let (first, second) = tokio::join!(
            ctx.input("first").elicit::<Answer>("First?"),
            ctx.input("second").elicit::<Answer>("Second?")
        );
        let word = |answer: Elicitation<Answer>| answer.accepted().map_or_else(|| "-".to_owned(), |answer| answer.word);
        Ok(format!("{} {}", word(first?), word(second?)))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// A client that declares the tasks extension and elicitation.
struct Answering;
impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities = ClientCapabilities::builder().enable_tasks().enable_elicitation().build();
        config
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ExportInput {
    /// The department to export; asked for when not given.
    department: Option<String>,
}

/// Exports a department, asking which one on the request before it becomes a task.
struct Export;
static EXPORT: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("export", mcp_contract_runtime::schema::input_schema::<ExportInput>())
        .with_description("Export a department.")
        .with_task_support(TaskSupport::Required)
        .with_task_input_first()
});

impl Tool for Export {
    type Input = ExportInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &EXPORT
    }
    async fn call(&self, input: ExportInput, ctx: Context) -> Result<String, McpError> {
        let department = match input.department {
            Some(department) => department,
            None => {
                let answer = ctx.input("department").elicit::<Answer>("Which department?").await?;
                answer.accepted().map_or_else(|| "none".to_owned(), |answer| answer.word)
            }
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(format!("exported {department}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct StepsInput {
    /// How many steps to take, 50 ms each.
    steps: u32,
}

/// Reports its progress step by step, as a task when the client can poll;
/// its result names the progress token its request carried.
struct Steps;
static STEPS: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("steps", mcp_contract_runtime::schema::input_schema::<StepsInput>())
        .with_description("Take a few steps, reporting each.")
        .with_task_support(TaskSupport::Optional)
});

impl Tool for Steps {
    type Input = StepsInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &STEPS
    }
    async fn call(&self, input: StepsInput, ctx: Context) -> Result<String, McpError> {
        for step in 1..=input.steps {
            ctx.progress(f64::from(step), Some(f64::from(input.steps)), Some("Walking".to_owned())).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let token = ctx.progress_token().map_or(Value::Null, |token| serde_json::to_value(token).unwrap());
        Ok(format!("token {token}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

fn server() -> Server {
    Server::new("museum", "1.0.0").tool(Slow).tool(Failing).tool(Ask).tool(Unrunnable).tool(Export).tool(Steps)
}

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(arguments.as_object().cloned().unwrap_or_default())
}

async fn task_id<C: ClientHandler>(client: &RunningService<RoleClient, C>, params: CallToolRequestParams) -> String {
    match client.call_tool_once(params).await.expect("the call answers") {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            created.task.task_id
        }
        other => panic!("a task was due: {other:?}"),
    }
}

async fn get<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    id: &str,
) -> Result<GetTaskResult, ServiceError> {
    client.get_task(GetTaskParams::new(id)).await
}

/// Poll (bounded) until the task is terminal.
async fn finished<C: ClientHandler>(client: &RunningService<RoleClient, C>, id: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let task = get(client, id).await.expect("the task is known");
        if task.task.status().is_terminal() {
            return serde_json::to_value(&task).unwrap();
        }
        assert!(tokio::time::Instant::now() < deadline, "the task did not finish within 10 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn code(err: &ServiceError) -> i32 {
    match err {
        ServiceError::McpError(data) => data.code.0,
        other => panic!("a JSON-RPC error was due: {other:?}"),
    }
}

#[tokio::test]
async fn the_tasks_extension_is_advertised_only_by_a_server_with_a_task_tool() {
    let with = server().build().unwrap();
    let extensions = with.config().capabilities.extensions.clone().unwrap_or_default();
    assert!(extensions.contains_key(TASKS_EXTENSION_ID), "{extensions:?}");
    let without = Server::new("museum", "1.0.0").build().unwrap();
    assert!(without.config().capabilities.extensions.as_ref().is_none_or(|e| !e.contains_key(TASKS_EXTENSION_ID)));
}

#[tokio::test]
async fn a_call_from_a_polling_client_runs_as_a_task_until_it_completes() {
    let client = connect(server(), Polling).await;
    let created = client.call_tool_once(call("slow", json!({"millis": 300}))).await.unwrap();
    let CallToolResponse::Task(created) = created else { panic!("a task was due: {created:?}") };
    let wire = serde_json::to_value(&created).unwrap();
    assert_eq!(wire["resultType"], "task");
    assert_eq!(wire["ttlMs"], 15 * 60 * 1000, "the default retention: {wire}");
    assert_eq!(wire["pollIntervalMs"], 500, "{wire}");
    let iso = regex_lite(&wire["createdAt"]);
    assert!(iso, "ISO 8601: {wire}");

    // Known at once, and working.
    let now = get(&client, &created.task.task_id).await.unwrap();
    assert_eq!(now.task.status(), TaskStatus::Working);
    let done = finished(&client, &created.task.task_id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "worked 300 ms", "{done}");
    assert!(done["result"].get("resultType").is_none(), "{done}");
}

fn regex_lite(value: &Value) -> bool {
    let text = value.as_str().unwrap_or("");
    let bytes = text.as_bytes();
    text.len() >= 19
        && [4, 7].iter().all(|&i| bytes[i] == b'-')
        && bytes[10] == b'T'
        && [13, 16].iter().all(|&i| bytes[i] == b':')
        && text.ends_with('Z')
}

#[tokio::test]
async fn an_optional_task_tool_answers_a_client_without_the_extension_at_once() {
    let client = connect(server(), Plain).await;
    match client.call_tool_once(call("slow", json!({"millis": 0}))).await.unwrap() {
        CallToolResponse::Complete(result) => assert_eq!(result.is_error, Some(false)),
        other => panic!("a complete result was due: {other:?}"),
    }
}

#[tokio::test]
async fn a_required_task_tool_refuses_a_client_without_the_extension() {
    let client = connect(server(), Plain).await;
    let err = client.call_tool_once(call("failing", json!({}))).await.unwrap_err();
    assert_eq!(code(&err), -32021);
    let ServiceError::McpError(data) = err else { unreachable!() };
    let required = &data.data.expect("data")["requiredCapabilities"];
    assert!(required["extensions"][TASKS_EXTENSION_ID].is_object(), "{required}");
}

#[tokio::test]
async fn a_tool_error_in_a_task_is_a_completed_task_with_an_error_result() {
    let client = connect(server(), Polling).await;
    let id = task_id(&client, call("failing", json!({}))).await;
    let done = finished(&client, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert!(done["result"]["content"][0]["text"].as_str().unwrap().contains("The archive is closed."), "{done}");
}

#[tokio::test]
async fn a_protocol_error_is_a_json_rpc_error_on_a_plain_call_and_a_failed_task_in_a_task() {
    let plain = connect(server(), Plain).await;
    let err = plain.call_tool_once(call("unrunnable", json!({}))).await.unwrap_err();
    assert_eq!(code(&err), -32000, "{err:?}");
    let ServiceError::McpError(data) = err else { unreachable!() };
    assert_eq!(data.message, "The job runner is gone.");
    assert_eq!(data.data.as_ref().map(support::sans_request_id), Some(json!({"runner": "batch-2"})));

    let client = connect(server(), Polling).await;
    let id = task_id(&client, call("unrunnable", json!({}))).await;
    let done = finished(&client, &id).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(
        support::sans_request_id(&done["error"]),
        json!({"code": -32000, "message": "The job runner is gone.", "data": {"runner": "batch-2"}}),
        "{done}"
    );
    assert!(done.get("result").is_none(), "a failed task has no result: {done}");
}

#[tokio::test]
async fn an_unknown_task_id_is_invalid_params_everywhere() {
    let client = connect(server(), Polling).await;
    assert_eq!(code(&get(&client, "no-such-task").await.unwrap_err()), -32602);
    assert_eq!(code(&client.cancel_task(CancelTaskParams::new("no-such-task")).await.unwrap_err()), -32602);
    let update = UpdateTaskParams::new("no-such-task", Default::default());
    assert_eq!(code(&client.update_task(update).await.unwrap_err()), -32602);
}

#[tokio::test]
async fn cancelling_stops_a_running_task_and_leaves_a_finished_one_as_it_is() {
    let client = connect(server(), Polling).await;
    let running = task_id(&client, call("slow", json!({"millis": 60_000}))).await;
    client.cancel_task(CancelTaskParams::new(running.as_str())).await.expect("an empty ack");
    let done = finished(&client, &running).await;
    assert_eq!(done["status"], "cancelled", "{done}");

    let quick = task_id(&client, call("slow", json!({"millis": 10}))).await;
    assert_eq!(finished(&client, &quick).await["status"], "completed");
    client.cancel_task(CancelTaskParams::new(quick.as_str())).await.expect("cancel of a finished task is acked");
    client.cancel_task(CancelTaskParams::new(quick.as_str())).await.expect("and again");
    assert_eq!(get(&client, &quick).await.unwrap().task.status(), TaskStatus::Completed);
    // An update with nothing to answer is acknowledged too.
    client.update_task(UpdateTaskParams::new(quick.as_str(), Default::default())).await.expect("an empty ack");
}

#[tokio::test]
async fn a_task_is_kept_for_its_time_to_live_and_no_longer() {
    let server = server().task_retention(Duration::from_millis(800), Duration::from_millis(100));
    let client = connect(server, Polling).await;
    let id = task_id(&client, call("slow", json!({"millis": 0}))).await;
    assert_eq!(finished(&client, &id).await["ttlMs"], 800);
    tokio::time::sleep(Duration::from_millis(300)).await;
    get(&client, &id).await.expect("still within its time to live");
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(code(&get(&client, &id).await.unwrap_err()), -32602, "past its time to live, the task is gone");
}

#[tokio::test]
async fn a_full_store_refuses_a_new_task_while_every_kept_one_runs() {
    let client = connect(server().task_store(MemoryTaskStore::new(1)), Polling).await;
    let first = task_id(&client, call("slow", json!({"millis": 60_000}))).await;
    let err = client.call_tool_once(call("slow", json!({"millis": 0}))).await.unwrap_err();
    assert_eq!(code(&err), -32000, "{err:?}");
    client.cancel_task(CancelTaskParams::new(first.as_str())).await.unwrap();
    assert_eq!(finished(&client, &first).await["status"], "cancelled");
    // A finished task makes room.
    let second = task_id(&client, call("slow", json!({"millis": 0}))).await;
    assert_eq!(finished(&client, &second).await["status"], "completed");
}

/// Poll (bounded) until the task waits for exactly `keys`.
async fn waiting_for<C: ClientHandler>(client: &RunningService<RoleClient, C>, id: &str, keys: &[&str]) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let task = serde_json::to_value(get(client, id).await.expect("the task is known")).unwrap();
        let waiting: Vec<&str> = task["inputRequests"]
            .as_object()
            .map(|requests| requests.keys().map(String::as_str).collect())
            .unwrap_or_default();
        if task["status"] == "input_required" && waiting == keys {
            return task;
        }
        assert!(tokio::time::Instant::now() < deadline, "the task did not wait for {keys:?}: {task}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn answer(key: &str, word: &str) -> rmcp::model::InputResponses {
    [(key.to_owned(), json!({"action": "accept", "content": {"word": word}}))].into_iter().collect()
}

#[tokio::test]
async fn a_task_that_asks_waits_in_input_required_until_tasks_update_answers_each_ask() {
    let client = connect(server(), Answering).await;
    let id = task_id(&client, call("ask", json!({}))).await;
    let task = waiting_for(&client, &id, &["first", "second"]).await;
    assert_eq!(task["inputRequests"]["first"]["method"], "elicitation/create", "{task}");
    assert_eq!(task["inputRequests"]["first"]["params"]["message"], "First?");
    assert!(task.get("requestState").is_none(), "a task has no requestState: {task}");

    // One answer: the very next tasks/get shows only the other ask.
    client.update_task(UpdateTaskParams::new(id.as_str(), answer("first", "red"))).await.expect("an empty ack");
    let task = serde_json::to_value(get(&client, &id).await.unwrap()).unwrap();
    assert_eq!(task["status"], "input_required", "{task}");
    assert_eq!(task["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["second"], "{task}");

    // An answer nobody asked for is acknowledged and changes nothing.
    client.update_task(UpdateTaskParams::new(id.as_str(), answer("unknown-key", "x"))).await.expect("an empty ack");
    waiting_for(&client, &id, &["second"]).await;

    client.update_task(UpdateTaskParams::new(id.as_str(), answer("second", "blue"))).await.expect("an empty ack");
    let done = finished(&client, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "red blue", "{done}");
    // A finished task takes updates, and drops them.
    client.update_task(UpdateTaskParams::new(id.as_str(), answer("second", "late"))).await.expect("an empty ack");
}

#[tokio::test]
async fn a_waiting_task_is_cancelled_by_tasks_cancel() {
    let client = connect(server(), Answering).await;
    let id = task_id(&client, call("ask", json!({}))).await;
    waiting_for(&client, &id, &["first", "second"]).await;
    client.cancel_task(CancelTaskParams::new(id.as_str())).await.expect("an empty ack");
    assert_eq!(finished(&client, &id).await["status"], "cancelled");
}

/// A server on a loopback port; stopped when the guard is dropped.
async fn serve_http(server: Server) -> (std::net::SocketAddr, tokio_util::sync::DropGuard) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let stop = tokio_util::sync::CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    tokio::spawn(server.build().expect("the server builds").serve_http_on(listener, options));
    (addr, stop.drop_guard())
}

/// One stateless 2026-07-28 request from a client that declares elicitation
/// and the tasks extension; `name` is the tool or the task id.
async fn stateless(addr: std::net::SocketAddr, method: &str, name: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "tasks", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS_EXTENSION_ID: {}}},
    });
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params}).to_string();
    let headers = [
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name),
    ];
    let answer = support::HttpClient::connect(addr).await.request("POST", &headers, body.as_bytes()).await;
    answer.message()
}

/// Poll `tasks/get` (bounded) until the task is terminal.
async fn finished_stateless(addr: std::net::SocketAddr, id: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let task = stateless(addr, "tasks/get", id, json!({"taskId": id})).await;
        let status = task["result"]["status"].as_str().unwrap_or_else(|| panic!("no task: {task}")).to_owned();
        if ["completed", "failed", "cancelled"].contains(&status.as_str()) {
            return task["result"].clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "the task did not finish within 10 s: {task}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_first_task_asks_on_the_request_and_becomes_a_task_once_answered() {
    let (addr, _stop) = serve_http(server()).await;
    let first = stateless(addr, "tools/call", "export", json!({"name": "export", "arguments": {}})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(result["inputRequests"]["department"]["method"], "elicitation/create", "{first}");
    assert!(result.get("taskId").is_none(), "no task before the input is gathered: {first}");
    let state = result["requestState"].as_str().expect("a requestState").to_owned();

    let retry = json!({
        "name": "export",
        "arguments": {},
        "inputResponses": {"department": {"action": "accept", "content": {"word": "Asian Art"}}},
        "requestState": state,
    });
    let created = stateless(addr, "tools/call", "export", retry).await;
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "working", "{created}");
    assert!(task.get("requestState").is_none() && task.get("inputRequests").is_none(), "{created}");
    let id = task["taskId"].as_str().expect("a taskId");
    let done = finished_stateless(addr, id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "exported Asian Art", "the task found the answer: {done}");

    // A changed state is refused before anything runs, as for any round.
    let tampered = json!({
        "name": "export",
        "arguments": {},
        "inputResponses": {"department": {"action": "accept", "content": {"word": "x"}}},
        "requestState": format!("{state}-TAMPERED"),
    });
    let refused = stateless(addr, "tools/call", "export", tampered).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_first_task_that_asks_nothing_is_a_task_finished_at_once() {
    let (addr, _stop) = serve_http(server()).await;
    let params = json!({"name": "export", "arguments": {"department": "Arms and Armor"}});
    let created = stateless(addr, "tools/call", "export", params).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert_eq!(created["result"]["status"], "completed", "{created}");
    let id = created["result"]["taskId"].as_str().expect("a taskId");
    let task = stateless(addr, "tasks/get", id, json!({"taskId": id})).await;
    assert_eq!(task["result"]["status"], "completed", "known at once: {task}");
    assert_eq!(task["result"]["result"]["content"][0]["text"], "exported Arms and Armor", "{task}");
}

#[tokio::test]
async fn on_a_session_an_input_first_task_is_a_task_from_the_start() {
    let client = connect(server(), Answering).await;
    let id = task_id(&client, call("export", json!({}))).await;
    waiting_for(&client, &id, &["department"]).await;
    client.update_task(UpdateTaskParams::new(id.as_str(), answer("department", "Egyptian Art"))).await.unwrap();
    let done = finished(&client, &id).await;
    assert_eq!(done["result"]["content"][0]["text"], "exported Egyptian Art", "{done}");
}

/// A client of the tasks extension that keeps the `notifications/tasks` it hears.
#[derive(Clone, Default)]
struct Listening {
    heard: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

impl ClientHandler for Listening {
    fn get_info(&self) -> ClientConfig {
        Answering.get_info()
    }

    async fn on_task_status(
        &self,
        params: rmcp::model::TaskStatusNotificationParams,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.heard.lock().unwrap().push(serde_json::to_value(params).unwrap());
    }
}

impl Listening {
    /// The statuses heard of task `id`, in order, once one is terminal (at most 10 s).
    async fn statuses_of(&self, id: &str) -> Vec<String> {
        for _ in 0..200 {
            let statuses: Vec<String> = (self.heard.lock().unwrap().iter())
                .filter(|state| state["taskId"] == id)
                .map(|state| state["status"].as_str().unwrap_or_default().to_owned())
                .collect();
            if statuses.iter().any(|status| ["completed", "failed", "cancelled"].contains(&status.as_str())) {
                return statuses;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no terminal status heard of {id}: {:?}", self.heard.lock().unwrap());
    }
}

#[tokio::test]
async fn a_session_hears_each_status_of_its_task_as_tasks_get_gives_it() {
    let listening = Listening::default();
    let client = connect(server(), listening.clone()).await;
    let id = task_id(&client, call("slow", json!({"millis": 100}))).await;
    assert_eq!(listening.statuses_of(&id).await, ["completed"]);
    let heard = listening.heard.lock().unwrap().last().cloned().unwrap();
    assert_eq!(heard["result"]["content"][0]["text"], "worked 100 ms", "the state tasks/get gives: {heard}");
    let mut got = serde_json::to_value(get(&client, &id).await.unwrap()).unwrap();
    // `resultType` marks the answer to a request; a notification answers none.
    got.as_object_mut().unwrap().remove("resultType");
    assert_eq!(heard, got, "the task as tasks/get gives it");

    // A task that asks: input_required with its asks, then working, then completed.
    let id = task_id(&client, call("ask", json!({}))).await;
    waiting_for(&client, &id, &["first", "second"]).await;
    client.update_task(UpdateTaskParams::new(id.as_str(), answer("first", "red"))).await.expect("an empty ack");
    client.update_task(UpdateTaskParams::new(id.as_str(), answer("second", "blue"))).await.expect("an empty ack");
    let statuses = listening.statuses_of(&id).await;
    assert_eq!(statuses.first().map(String::as_str), Some("input_required"), "{statuses:?}");
    assert_eq!(statuses.last().map(String::as_str), Some("completed"), "{statuses:?}");
    let asks: Vec<Vec<String>> = (listening.heard.lock().unwrap().iter())
        .filter(|state| state["taskId"] == id.as_str() && state["status"] == "input_required")
        .map(|state| state["inputRequests"].as_object().unwrap().keys().cloned().collect())
        .collect();
    assert_eq!(asks, [vec!["first".to_owned(), "second".to_owned()], vec!["second".to_owned()]], "{asks:?}");
}

/// Regression (issue 34): arguments the handler cannot take made a working
/// task that failed later; they are refused on the call, with the
/// `invalid_arguments` envelope a plain call gets (an error result, -32602),
/// and repaired ones still make a task.
#[tokio::test]
async fn arguments_that_do_not_decode_are_refused_before_a_task_is_made() {
    let client = connect(server(), Polling).await;
    for arguments in [json!({}), json!({"millis": "soon"})] {
        let answer = client.call_tool_once(call("slow", arguments.clone())).await.expect("an answer");
        let CallToolResponse::Complete(refused) = answer else { panic!("no task for {arguments}: {answer:?}") };
        assert_eq!(refused.is_error, Some(true), "{refused:?}");
        let error = &refused.structured_content.as_ref().expect("the structured error")["error"];
        assert_eq!(error["code"], -32602, "{error}");
        assert_eq!(error["data"]["reason"], "invalid_arguments", "{error}");
        assert_eq!(error["data"]["path"], "millis", "{error}");
        assert!(error["data"]["recovery"]["hint"].as_str().is_some_and(|hint| !hint.is_empty()), "{error}");
        assert!(error["data"]["requestId"].is_string(), "{error}");
    }
    let plain = connect(server(), Plain).await;
    let answer = plain.call_tool_once(call("slow", json!({}))).await.expect("an answer");
    let CallToolResponse::Complete(plain) = answer else { panic!("{answer:?}") };
    let plain = &plain.structured_content.unwrap()["error"];
    assert_eq!((&plain["code"], &plain["data"]["reason"]), (&json!(-32602), &json!("invalid_arguments")), "{plain}");

    // "15" is repaired to 15, as the call would repair it: a task.
    let id = task_id(&client, call("slow", json!({"millis": "15"}))).await;
    let done = finished(&client, &id).await;
    assert_eq!(done["result"]["content"][0]["text"], "worked 15 ms", "{done}");
}

/// A client of the tasks extension that keeps the `notifications/progress` it hears.
#[derive(Clone, Default)]
struct Following {
    progress: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

impl ClientHandler for Following {
    fn get_info(&self) -> ClientConfig {
        Polling.get_info()
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(serde_json::to_value(params).unwrap());
    }
}

/// Regression (issue 34): a task's progress was dropped. `tasks/get` shows
/// the handler's last progress as the working task's `statusMessage`, the
/// session hears `notifications/progress` under the call's token until the
/// task ends, and the handler reads that token (as the client sent it).
#[tokio::test]
async fn a_tasks_progress_shows_in_tasks_get_and_reaches_the_session_under_its_token() {
    let following = Following::default();
    let client = connect(server(), following.clone()).await;
    // rmcp's client puts a token of its own on every call.
    let id = task_id(&client, call("steps", json!({"steps": 8}))).await;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let shown = loop {
        let state = serde_json::to_value(get(&client, &id).await.unwrap()).unwrap();
        if state["status"] == "working"
            && let Some(message) = state["statusMessage"].as_str()
        {
            break message.to_owned();
        }
        assert_ne!(state["status"], "completed", "the task finished before tasks/get showed progress: {state}");
        assert!(tokio::time::Instant::now() < deadline, "no progress shown within 10 s: {state}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert!(shown.starts_with("Walking (") && shown.ends_with(" of 8)"), "{shown}");

    let done = finished(&client, &id).await;
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    let token: Value = serde_json::from_str(text.strip_prefix("token ").expect("the handler read a token")).unwrap();
    assert!(done.get("statusMessage").is_none(), "a finished task shows its result, not its progress: {done}");
    // The notifications were sent before the task finished; the client reads them in its own time.
    for _ in 0..100 {
        if following.progress.lock().unwrap().len() >= 8 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let heard = following.progress.lock().unwrap().clone();
    assert_eq!(heard.len(), 8, "one notification per step: {heard:?}");
    assert!(heard.iter().all(|progress| progress["progressToken"] == token && progress["total"] == 8.0), "{heard:?}");
    assert_eq!(heard.last().unwrap()["progress"], 8.0, "{heard:?}");
}
