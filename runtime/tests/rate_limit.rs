//! Rate limits per caller (feature `rate-limit`) over Streamable HTTP: without
//! auth each client address has its bucket, and a call past it is answered
//! RateLimited with `retryAfter`; a call that would be a task is refused
//! before the task is made.

mod support;

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, SystemTime};

use mcp_contract_runtime::call::BoxFuture;
use mcp_contract_runtime::define::{NoArguments, TaskSupport, ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{HttpOptions, MemoryTaskStore, RateLimit, Server, TaskStore};
use mcp_contract_runtime::{Context, McpError, Tool};
use rmcp::model::{DetailedTask, TASKS_EXTENSION_ID};
use serde_json::{Value, json};
use support::{HttpClient, HttpServer, INITIALIZED, call, initialize, stateless_with};

async fn open_session(mut client: HttpClient) -> HttpClient {
    let answer = client.post(&initialize(0)).await;
    client.session = Some(answer.header("mcp-session-id").expect("a session id").to_owned());
    assert_eq!(client.post(INITIALIZED).await.status, 202);
    client
}

fn error_of(answer: &Value) -> Option<&Value> {
    (answer["result"]["isError"] == true).then(|| &answer["result"]["structuredContent"]["error"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_past_its_limit_is_answered_rate_limited_with_retry_after_and_another_address_is_not() {
    let options = HttpOptions::default().rate_limit(RateLimit::per_minute(60).burst(3));
    let served = HttpServer::start(options).await;
    let mut client = open_session(HttpClient::connect(served.addr).await).await;
    for id in 0..3 {
        let answer = client.post(&call(id, "echo", json!({"text": "a"}))).await.message();
        assert!(error_of(&answer).is_none(), "within the burst: {answer}");
    }
    let answer = client.post(&call(3, "echo", json!({"text": "a"}))).await.message();
    let error = error_of(&answer).unwrap_or_else(|| panic!("refused past the burst: {answer}"));
    assert_eq!(error["code"], -32003, "{answer}");
    assert_eq!(error["data"]["retryAfter"], 1, "one token a second: {answer}");
    assert!(error["message"].as_str().unwrap().contains("Wait 1 s"), "{answer}");

    // Resources count too.
    let read = json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "museum://about"}});
    let answer = client.post(read.to_string().as_bytes()).await.message();
    assert_eq!(answer["error"]["code"], -32003, "{answer}");

    // Another address has a bucket of its own.
    let mut other = open_session(HttpClient::connect_from(served.addr, "127.0.0.2".parse().unwrap()).await).await;
    let answer = other.post(&call(5, "echo", json!({"text": "a"}))).await.message();
    assert!(error_of(&answer).is_none(), "another client: {answer}");

    // A token comes back after a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let answer = client.post(&call(6, "echo", json!({"text": "a"}))).await.message();
    assert!(error_of(&answer).is_none(), "after retryAfter: {answer}");
}

#[tokio::test]
async fn without_a_limit_nobody_is_limited() {
    let served = HttpServer::start(HttpOptions::default()).await;
    let mut client = open_session(HttpClient::connect(served.addr).await).await;
    for id in 0..50 {
        let answer = client.post(&call(id, "echo", json!({"text": "a"}))).await.message();
        assert!(error_of(&answer).is_none(), "{answer}");
    }
}

/// Runs as a task when the client can poll.
struct Work;
static WORK: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("work", mcp_contract_runtime::schema::input_schema::<NoArguments>())
        .with_description("Work, as a task.")
        .with_task_support(TaskSupport::Optional)
});

impl Tool for Work {
    type Input = NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &WORK
    }
    async fn call(&self, _input: NoArguments, _ctx: Context) -> Result<String, McpError> {
        Ok("worked".to_owned())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// A memory store that keeps the id of every task the server made.
#[derive(Clone, Default)]
struct Counted {
    tasks: Arc<MemoryTaskStore>,
    made: Arc<Mutex<BTreeSet<String>>>,
}

impl TaskStore for Counted {
    fn put(&self, task: DetailedTask, expires_at: SystemTime) -> BoxFuture<'_, Result<(), McpError>> {
        self.made.lock().unwrap().insert(task.task.task_id.clone());
        self.tasks.put(task, expires_at)
    }
    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, McpError>> {
        self.tasks.get(task_id)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_limit_that_would_be_a_task_is_refused_before_the_task_is_made() {
    let store = Counted::default();
    let server = Server::new("rate", "1.0.0").tool(Work).task_store(store.clone()).build().expect("the server builds");
    let served =
        HttpServer::serving(server, HttpOptions::default().rate_limit(RateLimit::per_minute(60).burst(1))).await;
    let tasks = json!({"extensions": {TASKS_EXTENSION_ID: {}}});
    let work = json!({"name": "work", "arguments": {}});

    // The one token goes to the call that makes the task, none to its run.
    let created = stateless_with(served.addr, "1", "tools/call", "work", work.clone(), tasks.clone()).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().expect("a taskId").to_owned();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let done = loop {
        let task = stateless_with(served.addr, "2", "tasks/get", &id, json!({"taskId": id}), tasks.clone()).await;
        if task["result"]["status"] != "working" {
            break task;
        }
        assert!(tokio::time::Instant::now() < deadline, "the task did not finish within 10 s: {task}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "worked", "{done}");

    let refused = stateless_with(served.addr, "3", "tools/call", "work", work, tasks).await;
    assert!(refused["result"].get("taskId").is_none(), "no task for a refused call: {refused}");
    let error = error_of(&refused).unwrap_or_else(|| panic!("refused at once, as a call: {refused}"));
    assert_eq!(error["code"], -32003, "{refused}");
    assert!(error["data"]["retryAfter"].is_u64(), "{refused}");
    assert_eq!(store.made.lock().unwrap().len(), 1, "one task made");
}
