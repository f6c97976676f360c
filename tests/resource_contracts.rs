//! `#[mcp_resource]` and `#[mcp_prompt]` with an `errors(..)` contract, served:
//! the contract in the definitions and the lists, a declared failure in the
//! JSON-RPC error envelope (`data.reason`, the opted-in recovery hint) over an
//! in-process pipe and over Streamable HTTP; and a plain `fn` handler that
//! blocks delays no other request.
#![cfg(feature = "rmcp")]

use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use mcp_contract::prelude::*;
use mcp_contract::server::{ERRORS_META_KEY, HttpOptions};
use rmcp::model::{ClientConfig, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::service::{RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

// The raw HTTP/1.1 client of the runtime's serving suites.
#[path = "../runtime/tests/support/mod.rs"]
mod support;
use support::HttpClient;

#[derive(Deserialize, JsonSchema)]
struct ObjectParams {
    object_id: u32,
}

/// One object of the collection, as JSON.
#[mcp_resource(
    uri = "museum://objects/{object_id}",
    name = "object_record",
    mime_type = "application/json",
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
        withdrawn(code = Forbidden, when = "The object was withdrawn from the public collection",
            recovery = "Pick another object; withdrawn ones cannot be read."),
    )
)]
async fn object_record(params: ObjectParams, ctx: Ctx) -> Result<ReadResourceResult, McpError> {
    match params.object_id {
        1 => ReadResourceResult::json(&json!({"id": 1, "title": "Vase"})),
        13 => Err(ctx.fail(withdrawn, "Object 13 was withdrawn.")),
        id => Err(ctx.fail(not_in_collection, format!("No object {id}.")).with_recovery()),
    }
}

#[derive(Deserialize, JsonSchema)]
struct PlanVisitArgs {
    /// The department to visit, e.g. "Asian Art".
    department: String,
}

/// Plan a visit around one department.
#[mcp_prompt(reason_type = PlanFailure, errors(
    no_such_department(code = InvalidParams, when = "The museum has no department of this name",
        recovery = "Read museum://about for the list of departments."),
))]
fn plan_visit(args: PlanVisitArgs, ctx: &Ctx) -> Result<Vec<PromptMessage>, McpError> {
    if args.department != "Asian Art" {
        return Err(ctx.fail(no_such_department, format!("No department `{}`.", args.department)).with_recovery());
    }
    Ok(vec![PromptMessage::user("Plan a visit of the Asian Art department.")])
}

#[test]
fn the_contract_is_in_the_definitions_and_the_reason_enums() {
    let errors = Resource::definition(&ObjectRecord).errors;
    assert_eq!(errors.iter().map(|entry| entry.reason).collect::<Vec<_>>(), ["not_in_collection", "withdrawn"]);
    assert_eq!(errors[1].code, JsonRpcErrorCode::Forbidden);
    assert_eq!(ObjectRecordReason::NotInCollection.as_str(), "not_in_collection");
    assert_eq!(Prompt::definition(&PlanVisit).errors, [*PlanFailure::NoSuchDepartment.contract()]);
}

#[tokio::test]
async fn handlers_stay_callable_with_their_test_ctx() {
    let error = object_record(ObjectParams { object_id: 7 }, ObjectRecord::test_ctx()).await.unwrap_err();
    assert_eq!(error.reason(), Some("not_in_collection"));
    assert_eq!(error.recovery_hint(), Some("Search with search_objects first to find valid object IDs."));
    let args = PlanVisitArgs { department: "Arms".into() };
    assert_eq!(plan_visit(args, &PlanVisit::test_ctx()).unwrap_err().reason(), Some("no_such_department"));
}

fn server() -> Server {
    Server::new("m", "1").resource(ObjectRecord).prompt(PlanVisit)
}

type Client = RunningService<RoleClient, ClientConfig>;

async fn connect(server: Server) -> Client {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server.build().unwrap();
    tokio::spawn(async move {
        let running = server.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    ClientConfig::default().serve(client_io).await.unwrap()
}

/// A JSON-RPC error without its `data.requestId`, which every error carries
/// (checked here) and which is fresh each time.
fn sans_request_id(mut error: Value) -> Value {
    let id = error["data"].as_object_mut().and_then(|data| data.remove("requestId"));
    assert!(
        id.as_ref().and_then(Value::as_str).is_some_and(|id| id.len() == 11 && id.as_bytes()[5] == b'-'),
        "{error}"
    );
    error
}

fn rpc_error<T: std::fmt::Debug>(outcome: Result<T, ServiceError>) -> Value {
    match outcome {
        Err(ServiceError::McpError(error)) => serde_json::to_value(error).unwrap(),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn declared_failures_reach_an_in_process_client_in_the_json_rpc_envelope() {
    let client = connect(server()).await;
    let templates = serde_json::to_value(client.list_all_resource_templates().await.unwrap()).unwrap();
    assert_eq!(templates[0]["_meta"][ERRORS_META_KEY][0]["reason"], "not_in_collection", "{templates}");

    let read = |uri: &'static str| client.read_resource(ReadResourceRequestParams::new(uri));
    assert_eq!(
        sans_request_id(rpc_error(read("museum://objects/7").await)),
        json!({"code": -32001, "message": "No object 7.", "data": {
            "reason": "not_in_collection",
            "recovery": {"hint": "Search with search_objects first to find valid object IDs."},
            "retryable": false,
        }})
    );
    // The declared hint comes by default: `.with_recovery()` is no longer needed for it.
    assert_eq!(
        sans_request_id(rpc_error(read("museum://objects/13").await)),
        json!({"code": -32005, "message": "Object 13 was withdrawn.", "data": {
            "reason": "withdrawn",
            "recovery": {"hint": "Pick another object; withdrawn ones cannot be read."},
            "retryable": false,
        }})
    );

    let arguments = json!({"department": "Arms"}).as_object().cloned().unwrap();
    let get = client.get_prompt(GetPromptRequestParams::new("plan_visit").with_arguments(arguments)).await;
    assert_eq!(
        sans_request_id(rpc_error(get)),
        json!({"code": -32602, "message": "No department `Arms`.", "data": {
            "reason": "no_such_department",
            "recovery": {"hint": "Read museum://about for the list of departments."},
            "retryable": false,
        }})
    );
}

/// POST one JSON-RPC request to a stateless JSON-response endpoint.
async fn post(addr: std::net::SocketAddr, body: Value) -> Value {
    let answer = HttpClient::connect(addr).await.post(body.to_string().as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    answer.message()
}

#[tokio::test]
async fn declared_failures_reach_a_streamable_http_client_in_the_json_rpc_envelope() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let options = HttpOptions::default().stateless(true).json_response(true).without_signal_handling();
    let served = tokio::spawn(server().build().unwrap().serve_http_on(listener, options));

    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    assert!(post(addr, init).await["result"]["capabilities"]["prompts"].is_object());

    let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "museum://objects/7"}});
    let answer = post(addr, read).await;
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
    assert_eq!(
        sans_request_id(answer["error"].clone())["data"],
        json!({
            "reason": "not_in_collection",
            "recovery": {"hint": "Search with search_objects first to find valid object IDs."},
            "retryable": false,
        })
    );
    assert!(answer.get("result").is_none(), "never an isError result: {answer}");

    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
        "params": {"name": "plan_visit", "arguments": {"department": "Arms"}}});
    let answer = post(addr, get).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["error"]["data"]["reason"], "no_such_department");

    served.abort();
}

// --- A params struct renamed for serde ----------------------------------------

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ImageParams {
    object_id: u32,
    #[serde(rename = "px")]
    size: Option<u32>,
}

/// One image of an object, by the serde names of its params.
#[mcp_resource(uri = "museum://objects/{objectId}/image{?px}", params_renamed)]
async fn object_image(params: ImageParams) -> Result<String, McpError> {
    Ok(format!("{} at {:?}", params.object_id, params.size))
}

#[tokio::test]
async fn a_params_struct_renamed_for_serde_decodes_the_variables_by_their_serde_names() {
    let client = connect(Server::new("m", "1").resource(ObjectImage)).await;
    let read = client.read_resource(ReadResourceRequestParams::new("museum://objects/7/image?px=640")).await;
    assert_eq!(serde_json::to_value(read.unwrap().contents).unwrap()[0]["text"], "7 at Some(640)");
}

// --- Plain `fn` handlers off the async workers ----------------------------------

/// A gate between two requests: the blocking handler says it is in, then waits
/// for the other request to open the gate.
struct Gate {
    entered: (Mutex<Sender<()>>, Mutex<Receiver<()>>),
    open: (Mutex<Sender<()>>, Mutex<Receiver<()>>),
}

impl Gate {
    fn new() -> Self {
        let (entered, open) = (mpsc::channel(), mpsc::channel());
        Self { entered: (Mutex::new(entered.0), Mutex::new(entered.1)), open: (Mutex::new(open.0), Mutex::new(open.1)) }
    }

    /// In a blocking handler: wait, blocking the thread, for the gate to open.
    /// Run inline on the test's one-thread runtime, this blocks the request
    /// that would open it, and gives up after the (generous) limit.
    fn wait_blocking(&self) -> Result<String, McpError> {
        self.entered.0.lock().unwrap().send(()).unwrap();
        match self.open.1.lock().unwrap().recv_timeout(Duration::from_secs(20)) {
            Ok(()) => Ok("opened".to_owned()),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                Err(McpError::timeout("The gate never opened: the other request did not run."))
            }
        }
    }

    /// In an async handler: once the blocking one is in, open the gate.
    async fn open(&self) -> Result<String, McpError> {
        loop {
            match self.entered.1.lock().unwrap().try_recv() {
                Ok(()) => break,
                Err(mpsc::TryRecvError::Empty) => {}
                Err(mpsc::TryRecvError::Disconnected) => return Err(McpError::internal_error("no gate")),
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        self.open.0.lock().unwrap().send(()).unwrap();
        Ok("open".to_owned())
    }
}

/// Waits, blocking its thread, until `museum://open` is read.
#[mcp_resource(uri = "museum://blocked")]
#[allow(clippy::needless_pass_by_value)]
fn blocked(gate: State<Gate>) -> Result<String, McpError> {
    gate.wait_blocking()
}

/// Opens the gate `museum://blocked` waits at.
#[mcp_resource(uri = "museum://open")]
async fn open(gate: State<Gate>) -> Result<String, McpError> {
    gate.open().await
}

/// Waits, blocking its thread, until `museum://open` is read.
#[mcp_prompt]
#[allow(clippy::needless_pass_by_value)]
fn blocked_prompt(gate: State<Gate>) -> Result<Vec<PromptMessage>, McpError> {
    gate.wait_blocking().map(|text| vec![PromptMessage::user(text)])
}

/// The test's runtime has one thread: a handler run inline would hold it, and
/// the request that unblocks the handler could never run.
#[tokio::test(flavor = "current_thread")]
async fn a_blocking_plain_fn_resource_or_prompt_delays_no_other_request() {
    let client =
        connect(Server::new("m", "1").state(Gate::new()).resource(Blocked).resource(Open).prompt(BlockedPrompt)).await;
    let read = |uri: &'static str| client.read_resource(ReadResourceRequestParams::new(uri));
    let text =
        |result: rmcp::model::ReadResourceResult| serde_json::to_value(result.contents).unwrap()[0]["text"].clone();

    let (blocked, opened) = tokio::join!(read("museum://blocked"), read("museum://open"));
    assert_eq!(text(blocked.unwrap()), "opened");
    assert_eq!(text(opened.unwrap()), "open");

    let (blocked, opened) =
        tokio::join!(client.get_prompt(GetPromptRequestParams::new("blocked_prompt")), read("museum://open"));
    assert_eq!(serde_json::to_value(blocked.unwrap().messages).unwrap()[0]["content"]["text"], "opened");
    assert_eq!(text(opened.unwrap()), "open");
}
