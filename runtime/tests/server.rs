//! The server against rmcp's own client over an in-process duplex pipe, with
//! hand-written tools: what `tools/list` publishes and what `tools/call` answers.
#![allow(deprecated, reason = "MCP logging (deprecated by SEP-2577) is what the server under test sends")]

use std::sync::LazyLock;
use std::time::Duration;

use mcp_contract_runtime::define::{ToolAnnotations, ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{ERRORS_META_KEY, Server, ServerError};
use mcp_contract_runtime::{Content, Context, ErrorContract, JsonObject, JsonRpcErrorCode, LogLevel, McpError, Tool};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, LoggingMessageNotificationParam, NumberOrString,
    ProgressNotificationParam, ProgressToken, RequestMetaObject,
};
use rmcp::service::{NotificationContext, RunningService, ServiceError};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoInput {
    /// The text to repeat.
    text: String,
    /// How many times, at most 3.
    times: Option<u32>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct EchoOutput {
    echoed: String,
}

const ECHO_ERRORS: &[ErrorContract] = &[ErrorContract::new(
    "too_many",
    JsonRpcErrorCode::ValidationError,
    "More than three repetitions are asked for",
    "Ask for three repetitions or fewer.",
)];

static ECHO: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("echo", mcp_contract_runtime::schema::input_schema::<EchoInput>())
        .with_title("Echo")
        .with_description("Repeat a text.")
        .with_output_schema(mcp_contract_runtime::schema::output_schema::<EchoOutput>())
        .with_annotations(ToolAnnotations::new().with_read_only_hint(true))
        .with_errors(ECHO_ERRORS)
});

struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    type Output = EchoOutput;

    fn definition(&self) -> &'static ToolDefinition {
        &ECHO
    }

    async fn call(&self, input: EchoInput, ctx: Context) -> Result<EchoOutput, McpError> {
        let times = input.times.unwrap_or(1);
        if times > 3 {
            let hint = ctx.recovery_for("too_many").unwrap_or_default();
            return Err(McpError::validation_error(format!("Cannot repeat {times} times."))
                .with_data(hint)
                .with_reason("too_many"));
        }
        if input.text == "io" {
            // An error nobody built on purpose: classified, code and message only.
            return Err(McpError::from_error(std::io::Error::new(std::io::ErrorKind::TimedOut, "upstream timed out")));
        }
        Ok(EchoOutput { echoed: input.text.repeat(times as usize) })
    }

    fn render(&self, output: EchoOutput) -> Result<ToolOutput, McpError> {
        let text = format!("Echo: {}", output.echoed);
        ToolOutput::structured(&output, Some(vec![Content::text(text)]))
    }
}

/// A tool of a given name whose handler does one of a few things, by argument.
struct Probe(&'static ToolDefinition);

static PROBE: LazyLock<ToolDefinition> = LazyLock::new(|| probe_definition("probe"));
static PROBE_TWIN: LazyLock<ToolDefinition> = LazyLock::new(|| probe_definition("probe"));

fn probe_definition(name: &'static str) -> ToolDefinition {
    ToolDefinition::new(name, mcp_contract_runtime::schema::input_schema::<ProbeInput>())
        .with_description("Panic, hang or chat, as asked.")
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ProbeInput {
    action: String,
}

/// Signalled when the hanging probe's future is dropped (its call cancelled).
static HANG_DROPPED: Notify = Notify::const_new();

struct SignalOnDrop;

impl Drop for SignalOnDrop {
    fn drop(&mut self) {
        HANG_DROPPED.notify_one();
    }
}

impl Tool for Probe {
    type Input = ProbeInput;
    type Output = String;

    fn definition(&self) -> &'static ToolDefinition {
        self.0
    }

    async fn call(&self, input: ProbeInput, ctx: Context) -> Result<String, McpError> {
        match input.action.as_str() {
            "panic" => panic!("secret internal state 0xdeadbeef"),
            "hang" => {
                let _guard = SignalOnDrop;
                std::future::pending::<()>().await;
                unreachable!("a pending future never resolves")
            }
            "chat" => {
                ctx.progress(1.0, Some(2.0), Some("halfway".to_owned())).await;
                ctx.log(LogLevel::Info, json!({"step": "halfway"})).await;
                ctx.log(LogLevel::Debug, "below the default level").await;
                ctx.progress(2.0, Some(2.0), None).await;
                Ok("chatted".to_owned())
            }
            other => Ok(format!("did {other}")),
        }
    }

    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

/// A client that records the notifications it receives.
#[derive(Clone)]
struct Recorder(mpsc::UnboundedSender<Value>);

impl ClientHandler for Recorder {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(json!({"progress": params.progress, "total": params.total, "message": params.message}));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(json!({"log": params.data, "logger": params.logger}));
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

type Client = RunningService<RoleClient, Recorder>;

async fn connect(server: Server) -> (Client, mpsc::UnboundedReceiver<Value>) {
    let server = server.build().expect("the server builds");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    let (tx, rx) = mpsc::unbounded_channel();
    let client = Recorder(tx).serve(client_io).await.expect("the client connects");
    (client, rx)
}

fn server() -> Server {
    Server::new("test-server", "9.9.9").instructions("Echo first.").tool(Echo).tool(Probe(&PROBE))
}

fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => unreachable!("arguments are objects"),
    }
}

async fn call(client: &Client, name: &'static str, arguments: Value) -> Result<CallToolResult, ServiceError> {
    client.call_tool(CallToolRequestParams::new(name).with_arguments(args(arguments))).await
}

fn as_json(result: &CallToolResult) -> Value {
    let mut value = serde_json::to_value(result).unwrap();
    // Not ours: rmcp's protocol-version marker.
    value.as_object_mut().unwrap().remove("resultType");
    value
}

#[tokio::test]
async fn initialize_reports_the_given_identity_and_the_tools_capability() {
    let (client, _) = connect(server()).await;
    let info = client.peer_info().expect("initialized");
    let info = info.server_info.as_ref().expect("server info");
    assert_eq!((info.name.as_str(), info.version.as_str()), ("test-server", "9.9.9"));
    let peer = client.peer_info().unwrap();
    assert!(peer.capabilities.tools.is_some());
    assert_eq!(peer.instructions.as_deref(), Some("Echo first."));
}

#[tokio::test]
async fn tools_list_publishes_schemas_annotations_and_the_error_contract() {
    let (client, _) = connect(server()).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["echo", "probe"]);
    let echo = serde_json::to_value(&tools[0]).unwrap();
    assert_eq!(echo["title"], "Echo");
    assert_eq!(echo["description"], "Repeat a text.");
    assert_eq!(echo["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(echo["inputSchema"]["required"], json!(["text"]));
    assert_eq!(
        echo["_meta"][ERRORS_META_KEY],
        json!([{
            "reason": "too_many",
            "code": -32007,
            "when": "More than three repetitions are asked for",
            "recovery": "Ask for three repetitions or fewer.",
            "retryable": false,
        }])
    );
    // The output schema admits an error result's structuredContent.
    assert_eq!(echo["outputSchema"]["properties"]["error"]["required"], json!(["code", "message"]));
    assert_eq!(
        echo["outputSchema"]["anyOf"],
        json!([{"type": "object", "required": ["echoed"]}, {"type": "object", "required": ["error"]}])
    );
    let probe = serde_json::to_value(&tools[1]).unwrap();
    assert_eq!(probe.get("_meta"), None, "no contract, no _meta");
    assert_eq!(probe.get("outputSchema"), None);
}

#[tokio::test]
async fn a_successful_call_has_structured_content_and_the_format_text() {
    let (client, _) = connect(server()).await;
    let result = call(&client, "echo", json!({"text": "ab", "times": 2})).await.unwrap();
    assert_eq!(
        as_json(&result),
        json!({
            "content": [{"type": "text", "text": "Echo: abab"}],
            "structuredContent": {"echoed": "abab"},
            "isError": false,
        })
    );
}

#[tokio::test]
async fn a_declared_failure_renders_both_surfaces_with_reason_and_recovery() {
    let (client, _) = connect(server()).await;
    let result = call(&client, "echo", json!({"text": "ab", "times": 9})).await.unwrap();
    let request_id = as_json(&result)["structuredContent"]["error"]["data"]["requestId"].as_str().unwrap().to_owned();
    assert_eq!(
        as_json(&result),
        json!({
            "content": [{"type": "text", "text": format!(
                "Error: Cannot repeat 9 times.\n\nRecovery: Ask for three repetitions or fewer.\n\n\
                 (reason too_many · not retryable · request {request_id})"
            )}],
            "structuredContent": {"error": {
                "code": -32007,
                "message": "Cannot repeat 9 times.",
                "data": {
                    "reason": "too_many",
                    "recovery": {"hint": "Ask for three repetitions or fewer."},
                    "retryable": false,
                    "requestId": request_id,
                },
            }},
            "isError": true,
        })
    );
    let expected = mcp_contract_runtime::render::tool_error_result(
        &McpError::validation_error("Cannot repeat 9 times.")
            .with_data(json!({
                "recovery": {"hint": "Ask for three repetitions or fewer."},
                "retryable": false,
                "requestId": request_id,
            }))
            .with_reason("too_many"),
    );
    assert_eq!(as_json(&result), expected, "the runtime renderer's result, unchanged");
}

#[tokio::test]
async fn an_auto_classified_error_carries_code_and_message_only() {
    let (client, _) = connect(server()).await;
    let result = call(&client, "echo", json!({"text": "io"})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let request_id = result.structured_content.as_ref().unwrap()["error"]["data"]["requestId"].clone();
    assert!(request_id.as_str().is_some_and(|id| id.len() == 11), "{request_id}");
    assert_eq!(
        result.structured_content,
        Some(json!({"error": {"code": -32004, "message": "upstream timed out", "data": {"requestId": request_id}}})),
        "classified (Timeout, from the io::ErrorKind) by the runtime's classifier, with no data but its request's id"
    );
}

#[tokio::test]
async fn arguments_that_do_not_decode_name_the_json_path() {
    let (client, _) = connect(server()).await;
    let result = call(&client, "echo", json!({"text": "ab", "times": "two"})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let error = &result.structured_content.as_ref().unwrap()["error"];
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["path"], "times");
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("Invalid arguments at `times`: expected an integer"), "{message}");
    assert!(message.ends_with(r#"got the string "two"."#), "{message}");
    assert_eq!(error["data"]["pointer"], "/times");

    let missing = call(&client, "echo", json!({})).await.unwrap();
    let message = missing.structured_content.as_ref().unwrap()["error"]["message"].as_str().unwrap().to_owned();
    assert_eq!(message, "Invalid arguments: the field `text` is required: expected a string.");
}

#[tokio::test]
async fn an_unknown_tool_is_the_json_rpc_error_rmcp_uses() {
    let (client, _) = connect(server()).await;
    match call(&client, "nope", json!({})).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32602);
            assert!(error.message.contains("Unknown tool `nope`"), "{}", error.message);
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_and_the_server_keeps_serving() {
    let (client, _) = connect(server()).await;
    let result = call(&client, "probe", json!({"action": "panic"})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let error = &result.structured_content.as_ref().unwrap()["error"];
    assert_eq!(error["code"], -32603);
    assert_eq!(
        error["data"].as_object().map(|data| data.keys().map(String::as_str).collect::<Vec<_>>()),
        Some(vec!["requestId"])
    );
    let text = serde_json::to_string(&result).unwrap();
    assert!(!text.contains("deadbeef"), "the panic message stays in the server: {text}");

    let after = call(&client, "probe", json!({"action": "wave"})).await.unwrap();
    assert_eq!(as_json(&after)["content"][0]["text"], "did wave");
}

#[tokio::test]
async fn a_cancelled_call_stops_its_handler() {
    let (client, _) = connect(server()).await;
    let waiting = HANG_DROPPED.notified();
    // Dropping the pending call makes rmcp's client send notifications/cancelled.
    let timed_out = tokio::time::timeout(Duration::from_millis(200), call(&client, "probe", json!({"action": "hang"})));
    assert!(timed_out.await.is_err(), "the handler hangs until cancelled");
    tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("the handler's future was dropped");
    // The server still answers.
    let after = call(&client, "probe", json!({"action": "wave"})).await.unwrap();
    assert_eq!(after.is_error, Some(false));
}

#[tokio::test]
async fn progress_and_logs_reach_the_client() {
    let (client, mut notifications) = connect(server()).await;
    let mut meta = RequestMetaObject::new();
    meta.set_progress_token(ProgressToken(NumberOrString::Number(7)));
    let mut request = CallToolRequestParams::new("probe").with_arguments(args(json!({"action": "chat"})));
    request.meta = Some(meta);
    let result = client.call_tool(request).await.unwrap();
    assert_eq!(as_json(&result)["content"][0]["text"], "chatted");

    let mut seen = Vec::new();
    while seen.len() < 3 {
        let next = tokio::time::timeout(Duration::from_secs(5), notifications.recv()).await;
        seen.push(next.expect("a notification").expect("the channel is open"));
    }
    assert_eq!(
        seen,
        [
            json!({"progress": 1.0, "total": 2.0, "message": "halfway"}),
            json!({"log": {"step": "halfway"}, "logger": "probe"}),
            json!({"progress": 2.0, "total": 2.0, "message": null}),
        ],
        "the debug log is below the default level"
    );
}

#[test]
fn two_tools_of_one_name_do_not_build() {
    let err = Server::new("x", "1").tool(Probe(&PROBE)).tool(Echo).tool(Probe(&PROBE_TWIN)).build().unwrap_err();
    assert!(matches!(err, ServerError::DuplicateTool { name: "probe" }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("`probe`"), "{message}");
    assert!(
        message.contains(
            "rule `name-unique`: https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#name-unique"
        ),
        "{message}"
    );
    // What `main() -> Result<(), Box<dyn Error>>` prints is the message, not the fields.
    assert_eq!(format!("{err:?}"), message);
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert_eq!(format!("{boxed:?}"), message);
}
