//! Multi-round-trip requests (SEP-2322) over Streamable HTTP on the stateless
//! revision 2026-07-28: a handler's ask ends the request with an
//! `input_required` result, the retry with `inputResponses` and the signed
//! `requestState` finds the answer where the handler asks again; a changed
//! or foreign state is refused, unknown answers are ignored, a malformed one
//! is a protocol error. And the same handler on a session, where the ask is
//! a request to the client.

mod support;

use std::sync::{Arc, LazyLock, Mutex};

use mcp_contract_runtime::call::{ClientRequestError, Elicitation};
use mcp_contract_runtime::define::{ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{HttpOptions, Server, ServerError};
use mcp_contract_runtime::{Context, McpError, Tool};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};
use support::{Answer, HttpClient};
use tokio_util::sync::CancellationToken;

#[derive(Deserialize, schemars::JsonSchema)]
struct DeleteInput {
    /// The file to delete.
    filename: String,
}

#[derive(Deserialize, schemars::JsonSchema, mcp_contract::context::ElicitForm)]
struct Confirm {
    confirm: bool,
}

/// The files `delete` deleted: a refused retry must not reach the end of the handler.
static DELETED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn deleted(filename: &str) -> bool {
    DELETED.lock().unwrap().iter().any(|name| name == filename)
}

/// Deletes a file after the user confirms; the ask goes under its default key.
struct Delete;
static DELETE: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("delete", mcp_contract_runtime::schema::input_schema::<DeleteInput>())
        .with_description("Delete a file once the user confirms.")
});

impl Tool for Delete {
    type Input = DeleteInput;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &DELETE
    }
    async fn call(&self, input: DeleteInput, ctx: Context) -> Result<String, McpError> {
        let answer = ctx.elicit::<Confirm>(format!("Delete {}?", input.filename)).await?;
        Ok(match answer {
            Elicitation::Accepted(Confirm { confirm: true }) => {
                DELETED.lock().unwrap().push(input.filename.clone());
                format!("deleted {}", input.filename)
            }
            _ => format!("kept {}", input.filename),
        })
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

#[derive(Deserialize, schemars::JsonSchema, mcp_contract::context::ElicitForm)]
struct Word {
    word: String,
}

/// Asks two words at once, then a third under a key of its own.
struct Words;
static WORDS: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new(
        "words",
        mcp_contract_runtime::schema::input_schema::<mcp_contract_runtime::define::NoArguments>(),
    )
    .with_description("Ask for three words.")
});

impl Tool for Words {
    type Input = mcp_contract_runtime::define::NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &WORDS
    }
    async fn call(&self, _input: Self::Input, ctx: Context) -> Result<String, McpError> {
        let word = |answer: Result<Elicitation<Word>, ClientRequestError>| {
            answer.map(|answer| answer.accepted().map_or_else(String::new, |word| word.word))
        };
        let (first, second) = tokio::join!(ctx.elicit::<Word>("First word?"), ctx.elicit::<Word>("Second word?"));
        let (first, second) = (word(first)?, word(second)?);
        let third = word(ctx.input("last").elicit::<Word>("Last word?").await)?;
        Ok(format!("{first} {second} {third}"))
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Street {
    #[allow(dead_code)]
    name: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Registration {
    #[allow(dead_code)]
    street: Street,
}

// By hand, as a type no derive checked would be (`#[derive(ElicitForm)]`
// refuses `street` at compile time): the run-time check is the defence.
impl mcp_contract_runtime::call::ElicitForm for Registration {}

/// Elicits a form with a nested object, which no elicitation can carry:
/// declared outside any macro's sight, so refused at run time.
struct Register;
static REGISTER: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new(
        "register",
        mcp_contract_runtime::schema::input_schema::<mcp_contract_runtime::define::NoArguments>(),
    )
    .with_description("Ask for an address.")
});

impl Tool for Register {
    type Input = mcp_contract_runtime::define::NoArguments;
    type Output = String;
    fn definition(&self) -> &'static ToolDefinition {
        &REGISTER
    }
    async fn call(&self, _input: Self::Input, ctx: Context) -> Result<String, McpError> {
        ctx.elicit::<Registration>("Your address?").await?;
        Ok("registered".to_owned())
    }
    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

fn server(key: Option<&str>) -> Server {
    let server = Server::new("rounds", "1.0.0").tool(Delete).tool(Words).tool(Register);
    match key {
        Some(key) => server.request_state_key(key),
        None => server,
    }
}

const SHARED_KEY: &str = "a secret the replicas share, 32 bytes or more";

/// A server on a loopback port; stopped when the token is dropped.
async fn serve(server: Server) -> (std::net::SocketAddr, tokio_util::sync::DropGuard) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let stop = CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    tokio::spawn(server.build().expect("the server builds").serve_http_on(listener, options));
    (addr, stop.drop_guard())
}

/// One stateless 2026-07-28 `tools/call` with `extra` params beside name and arguments.
async fn call(addr: std::net::SocketAddr, tool: &str, arguments: Value, extra: Value) -> Value {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "rounds", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let mut params = json!({"name": tool, "arguments": arguments, "_meta": meta});
    for (key, value) in extra.as_object().into_iter().flatten() {
        params[key] = value.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).to_string();
    let headers = [
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    let answer: Answer = HttpClient::connect(addr).await.request("POST", &headers, body.as_bytes()).await;
    answer.message()
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text result: {answer}"))
}

fn state(answer: &Value) -> &str {
    answer["result"]["requestState"].as_str().unwrap_or_else(|| panic!("no requestState: {answer}"))
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_ends_the_round_and_the_retry_finds_its_answer() {
    let (addr, _stop) = serve(server(None)).await;
    let first = call(addr, "delete", json!({"filename": "a.txt"}), json!({})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let request = &result["inputRequests"]["elicitation-1"];
    assert_eq!(request["method"], "elicitation/create", "{first}");
    assert_eq!(request["params"]["message"], "Delete a.txt?");
    assert_eq!(request["params"]["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
    assert!(result.get("content").is_none(), "an input-required result is no tool result: {first}");

    assert!(!deleted("a.txt"), "nothing is deleted before the user confirms");
    let retry =
        json!({"inputResponses": {"elicitation-1": accept(json!({"confirm": true}))}, "requestState": state(&first)});
    let done = call(addr, "delete", json!({"filename": "a.txt"}), retry).await;
    assert_eq!(text(&done), "deleted a.txt", "{done}");
    assert_eq!(done["result"]["resultType"], "complete");
    assert!(deleted("a.txt"));

    // A retry without the state is fine too: the answer came with it.
    let declined = json!({"inputResponses": {"elicitation-1": {"action": "decline"}}});
    assert_eq!(text(&call(addr, "delete", json!({"filename": "a.txt"}), declined).await), "kept a.txt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asks_made_together_share_a_round_and_answers_carry_over_to_the_next() {
    let (addr, _stop) = serve(server(None)).await;
    let first = call(addr, "words", json!({}), json!({})).await;
    let requests = first["result"]["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["elicitation-1", "elicitation-2"], "{first}");

    let answers = json!({
        "elicitation-1": accept(json!({"word": "red"})),
        "elicitation-2": accept(json!({"word": "green"})),
    });
    let second =
        call(addr, "words", json!({}), json!({"inputResponses": answers, "requestState": state(&first)})).await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    let requests = second["result"]["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["last"], "{second}");
    assert_ne!(state(&first), state(&second), "the second state holds the first round's answers");

    // Only the last answer: the first two come back from the state.
    let last = json!({"inputResponses": {"last": accept(json!({"word": "blue"}))}, "requestState": state(&second)});
    let done = call(addr, "words", json!({}), last).await;
    assert_eq!(text(&done), "red green blue", "{done}");
}

fn assert_refused(answer: &Value, says: &str) {
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_or_foreign_request_state_is_refused_before_the_handler_runs() {
    let (addr, _stop) = serve(server(None)).await;
    let first = call(addr, "delete", json!({"filename": "t.txt"}), json!({})).await;
    let answer = json!({"elicitation-1": accept(json!({"confirm": true}))});

    let tampered = format!("{}-TAMPERED", state(&first));
    let refused =
        call(addr, "delete", json!({"filename": "t.txt"}), json!({"inputResponses": answer, "requestState": tampered}))
            .await;
    assert_refused(&refused, "requestState integrity check failed");
    let mut flipped = state(&first).to_owned().into_bytes();
    let middle = flipped.len() / 2;
    flipped[middle] = if flipped[middle] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    let refused =
        call(addr, "delete", json!({"filename": "t.txt"}), json!({"inputResponses": answer, "requestState": flipped}))
            .await;
    assert_refused(&refused, "requestState integrity check failed");

    // The state of t.txt's deletion does not confirm u.txt's.
    let other = call(
        addr,
        "delete",
        json!({"filename": "u.txt"}),
        json!({"inputResponses": answer, "requestState": state(&first)}),
    )
    .await;
    assert_refused(&other, "requestState integrity check failed");

    // Another process, with its own random key, gave none of these states.
    let (elsewhere, _stop_elsewhere) = serve(server(None)).await;
    let foreign = call(
        elsewhere,
        "delete",
        json!({"filename": "t.txt"}),
        json!({"inputResponses": answer, "requestState": state(&first)}),
    )
    .await;
    assert_refused(&foreign, "requestState integrity check failed");
    assert!(!deleted("t.txt") && !deleted("u.txt"), "no refused retry deleted anything");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_with_a_shared_key_take_each_others_states() {
    let (one, _stop_one) = serve(server(Some(SHARED_KEY))).await;
    let (two, _stop_two) = serve(server(Some(SHARED_KEY))).await;
    let first = call(one, "words", json!({}), json!({})).await;
    let answers = json!({
        "elicitation-1": accept(json!({"word": "one"})),
        "elicitation-2": accept(json!({"word": "two"})),
    });
    let second = call(two, "words", json!({}), json!({"inputResponses": answers, "requestState": state(&first)})).await;
    let last = json!({"inputResponses": {"last": accept(json!({"word": "three"}))}, "requestState": state(&second)});
    assert_eq!(text(&call(one, "words", json!({}), last).await), "one two three");
}

#[test]
fn a_short_request_state_key_fails_the_build() {
    let err = server(Some("too short")).build().unwrap_err();
    assert!(matches!(err, ServerError::RequestStateKey(_)), "{err}");
    assert!(err.to_string().contains("at least 32 bytes"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_answers_are_ignored_and_a_malformed_one_is_a_protocol_error() {
    let (addr, _stop) = serve(server(None)).await;
    let extra = json!({"inputResponses": {
        "elicitation-1": accept(json!({"confirm": false})),
        "unknown_extra_key": {"anything": true},
        "another": 12,
    }});
    let done = call(addr, "delete", json!({"filename": "c.txt"}), extra).await;
    assert_eq!(text(&done), "kept c.txt", "{done}");

    // An answer under a key nobody asked: the ask is still unanswered.
    let wrong = json!({"inputResponses": {"wrong_key": accept(json!({"confirm": true}))}});
    let again = call(addr, "delete", json!({"filename": "c.txt"}), wrong).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    assert!(again["result"]["inputRequests"]["elicitation-1"].is_object(), "{again}");

    for malformed in [json!(12345), json!({"action": "maybe"}), accept(json!({"confirm": "yes"}))] {
        let bad = json!({"inputResponses": {"elicitation-1": malformed}});
        let refused = call(addr, "delete", json!({"filename": "c.txt"}), bad).await;
        assert_refused(&refused, "inputResponses[`elicitation-1`]");
        assert_eq!(refused["error"]["data"]["inputResponse"], "elicitation-1");
    }
    // `inputResponses: null` is no answer at all: the handler asks.
    let none = call(addr, "delete", json!({"filename": "c.txt"}), json!({"inputResponses": null})).await;
    assert_eq!(none["result"]["resultType"], "input_required", "{none}");
}

/// A client that confirms every elicitation, as a person clicking "yes".
struct Confirming;

impl ClientHandler for Confirming {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities = ClientCapabilities::builder().enable_elicitation().build();
        config
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"confirm": true})))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_handler_on_a_session_asks_the_client_directly() {
    let built = server(None).build().expect("the server builds");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = built.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = Confirming.serve(client_io).await.expect("the client connects");
    let arguments = json!({"filename": "d.txt"}).as_object().cloned().unwrap();
    let answer = client
        .call_tool_once(CallToolRequestParams::new("delete").with_arguments(arguments))
        .await
        .expect("the call is answered");
    let CallToolResponse::Complete(result) = answer else { panic!("a complete result on a session: {answer:?}") };
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "deleted d.txt");
    client.cancel().await.expect("the client stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_no_elicitation_can_carry_is_refused_before_anything_is_asked() {
    LazyLock::force(&LOGGED);
    let (addr, _stop) = serve(server(None)).await;
    let answer = call(addr, "register", json!({}), json!({})).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "a tool error, not an input request: {answer}");
    assert!(result.get("inputRequests").is_none(), "{answer}");
    let text = text(&answer);
    // The author's field names and fix are no business of the client's ..
    assert!(text.contains("its elicitation form is invalid"), "{text}");
    assert!(!text.contains("street") && !text.contains("Registration") && !text.contains("flatten"), "{text}");
    assert_eq!(result["structuredContent"]["error"]["data"]["reason"], "elicitation_form_invalid", "{answer}");
    // .. they are in the server's log, with the rule.
    let logged = LOGGED.lock().unwrap().clone();
    assert!(
        logged.iter().any(|line| line.contains("field `street` of `Registration` is an object")
            && line.contains("flatten it")
            && line.contains("elicitation-form-flat")),
        "{logged:?}"
    );
}

/// The messages of the error events this test binary logged, with their `rule`.
static LOGGED: LazyLock<Arc<Mutex<Vec<String>>>> = LazyLock::new(|| {
    use tracing_subscriber::layer::SubscriberExt as _;
    let logged = Arc::new(Mutex::new(Vec::new()));
    let subscriber = tracing_subscriber::registry().with(ErrorLog(Arc::clone(&logged)));
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber of this test binary");
    logged
});

struct ErrorLog(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ErrorLog {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        struct Line<'a>(&'a mut String);
        impl tracing::field::Visit for Line<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                use std::fmt::Write as _;
                let _ = write!(self.0, "{}={value:?} ", field.name());
            }
        }
        if *event.metadata().level() == tracing::Level::ERROR {
            let mut line = String::new();
            event.record(&mut Line(&mut line));
            self.0.lock().unwrap().push(line);
        }
    }
}
