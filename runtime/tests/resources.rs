//! Resources, resource templates, prompts and completion against rmcp's own
//! client over an in-process duplex pipe, and their errors over Streamable HTTP
//! too: what the lists publish, what reads and gets answer, and how failures
//! reach the client (the JSON-RPC error envelope, never an `isError` result).

use std::sync::LazyLock;

use mcp_contract_runtime::call::StateType;
use mcp_contract_runtime::define::NoArguments;
use mcp_contract_runtime::define::{Completion, CompletionRequest};
use mcp_contract_runtime::define::{Prompt, PromptDefinition, PromptMessage};
use mcp_contract_runtime::define::{ReadResourceResult, Resource, ResourceContent, ResourceDefinition};
use mcp_contract_runtime::define::{ToolDefinition, ToolOutput};
use mcp_contract_runtime::server::{ERRORS_META_KEY, HttpOptions, PrimitiveKind, Server, ServerError};
use mcp_contract_runtime::{Context, Ctx, ErrorContract, JsonRpcErrorCode, McpError, Reason, State, Tool};
use rmcp::model::{
    ArgumentInfo, ClientConfig, CompleteRequestParams, GetPromptRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams, Reference,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

mod support;
use support::HttpClient;
use support::surface::PlanVisit;

// --- A static resource -------------------------------------------------------

static ABOUT: ResourceDefinition = ResourceDefinition::new("museum://about", "about")
    .with_title("About the museum")
    .with_description("Opening hours and address.")
    .with_mime_type("text/markdown");

struct About;

impl Resource for About {
    type Params = NoArguments;

    fn definition(&self) -> &'static ResourceDefinition {
        &ABOUT
    }

    async fn read(&self, _uri: &str, _params: NoArguments, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text("# The museum\nOpen daily, 10:00 to 17:00."))
    }
}

// --- A template with a typed contract -----------------------------------------

#[derive(Clone, Copy, Debug)]
enum ObjectReason {
    NotInCollection,
}

const OBJECT_ERRORS: &[ErrorContract] = &[ErrorContract::new(
    "not_in_collection",
    JsonRpcErrorCode::NotFound,
    "No object has this ID",
    "Search the collection first to find valid object IDs.",
)];

impl Reason for ObjectReason {
    const CONTRACT: &'static [ErrorContract] = OBJECT_ERRORS;
    const ALL: &'static [Self] = &[Self::NotInCollection];

    fn index(self) -> usize {
        self as usize
    }
}

static OBJECT: ResourceDefinition = ResourceDefinition::new("museum://objects/{object_id}", "object_record")
    .with_title("Object record")
    .with_description("One object of the collection, by ID.")
    .with_mime_type("application/json")
    .with_errors(OBJECT_ERRORS);

#[derive(Deserialize, schemars::JsonSchema)]
struct ObjectParams {
    object_id: u32,
}

struct ObjectRecord;

impl Resource for ObjectRecord {
    type Params = ObjectParams;

    fn definition(&self) -> &'static ResourceDefinition {
        &OBJECT
    }

    async fn read(&self, uri: &str, params: ObjectParams, ctx: Context) -> Result<ReadResourceResult, McpError> {
        let ctx: Ctx<ObjectReason> = mcp_contract_runtime::__private::typed_context(ctx);
        match params.object_id {
            1 => ReadResourceResult::json(&json!({"id": 1, "title": "Vase"})),
            2 => Ok(ReadResourceResult::json(&json!({"id": 2, "title": "Lamp"}))?.and(
                ResourceContent::blob([0x89, b'P', b'N', b'G'])
                    .with_uri(format!("{uri}/image"))
                    .with_mime_type("image/png"),
            )),
            13 => Err(McpError::from_error(std::io::Error::new(std::io::ErrorKind::TimedOut, "upstream timed out"))),
            666 => panic!("secret internal state 0xdeadbeef"),
            id => Err(ctx
                .fail(ObjectReason::NotInCollection, format!("No object {id} in the collection."))
                .with_recovery()),
        }
    }

    async fn complete(&self, request: CompletionRequest, _ctx: Context) -> Result<Completion, McpError> {
        Ok(Completion::matching(["1", "2", "13", "100"], &request.value))
    }
}

// --- Two templates that overlap: the more specific one wins --------------------

static FILES: ResourceDefinition =
    ResourceDefinition::new("museum://files/{+path}", "file").with_description("Any file of the archive.");

static TEXTS: ResourceDefinition = ResourceDefinition::new("museum://files/{name}.txt", "text_file")
    .with_description("A text file of the archive.")
    .with_mime_type("text/plain");

/// Echoes which definition served the read and the variables it got.
struct Echo(&'static ResourceDefinition);

impl Resource for Echo {
    type Params = std::collections::BTreeMap<String, String>;

    fn definition(&self) -> &'static ResourceDefinition {
        self.0
    }

    async fn read(
        &self,
        _uri: &str,
        params: std::collections::BTreeMap<String, String>,
        _ctx: Context,
    ) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text(format!("{} {params:?}", self.0.name)))
    }
}

// --- A prompt: the fuzz's (`support::surface::PlanVisit`) -----------------------

// --- A tool, to check names across kinds ---------------------------------------

static NAMED: LazyLock<ToolDefinition> = LazyLock::new(|| {
    ToolDefinition::new("about", mcp_contract_runtime::schema::input_schema::<NoArguments>())
        .with_description("A tool that takes the name of a resource.")
});

struct NamedTool;

impl Tool for NamedTool {
    type Input = NoArguments;
    type Output = String;

    fn definition(&self) -> &'static ToolDefinition {
        &NAMED
    }

    async fn call(&self, _input: NoArguments, _ctx: Context) -> Result<String, McpError> {
        Ok(String::new())
    }

    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

// --- Plumbing -------------------------------------------------------------------

fn server() -> Server {
    Server::new("museum", "1.0.0")
        .resource(About)
        .resource(ObjectRecord)
        .resource(Echo(&FILES))
        .resource(Echo(&TEXTS))
        .prompt(PlanVisit)
}

type Client = RunningService<RoleClient, ClientConfig>;

async fn connect(server: Server) -> Client {
    let server = server.build().expect("the server builds");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    ClientConfig::default().serve(client_io).await.expect("the client connects")
}

async fn read(client: &Client, uri: &str) -> Result<Value, ServiceError> {
    let result = client.read_resource(ReadResourceRequestParams::new(uri)).await?;
    Ok(serde_json::to_value(result.contents).unwrap())
}

/// The JSON-RPC error of a request that must fail, as `{code, message, data?}`.
fn rpc_error<T: std::fmt::Debug>(outcome: Result<T, ServiceError>) -> Value {
    match outcome {
        Err(ServiceError::McpError(error)) => serde_json::to_value(error).unwrap(),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().expect("arguments are an object")
}

// --- The tests ------------------------------------------------------------------

#[tokio::test]
async fn capabilities_are_advertised_only_for_what_the_server_has() {
    let client = connect(server()).await;
    let capabilities = &client.peer_info().unwrap().capabilities;
    assert!(capabilities.resources.is_some() && capabilities.prompts.is_some() && capabilities.completions.is_some());

    let tools_only = connect(Server::new("tools", "1").tool(NamedTool)).await;
    let capabilities = &tools_only.peer_info().unwrap().capabilities;
    assert!(capabilities.tools.is_some());
    assert!(capabilities.resources.is_none() && capabilities.prompts.is_none() && capabilities.completions.is_none());

    let static_only = connect(Server::new("about", "1").resource(About)).await;
    let capabilities = &static_only.peer_info().unwrap().capabilities;
    assert!(capabilities.resources.is_some() && capabilities.prompts.is_none());
    assert!(capabilities.completions.is_none(), "a static resource has nothing to complete");
}

#[tokio::test]
async fn static_resources_and_templates_are_listed_apart_with_their_contract() {
    let client = connect(server()).await;
    let resources = serde_json::to_value(client.list_all_resources().await.unwrap()).unwrap();
    assert_eq!(
        resources,
        json!([{
            "uri": "museum://about",
            "name": "about",
            "title": "About the museum",
            "description": "Opening hours and address.",
            "mimeType": "text/markdown",
        }])
    );
    let templates = serde_json::to_value(client.list_all_resource_templates().await.unwrap()).unwrap();
    assert_eq!(templates.as_array().unwrap().len(), 3);
    assert_eq!(
        templates[0],
        json!({
            "uriTemplate": "museum://objects/{object_id}",
            "name": "object_record",
            "title": "Object record",
            "description": "One object of the collection, by ID.",
            "mimeType": "application/json",
            "_meta": {ERRORS_META_KEY: [{
                "reason": "not_in_collection",
                "code": -32001,
                "when": "No object has this ID",
                "recovery": "Search the collection first to find valid object IDs.",
                "retryable": false,
            }]},
        })
    );
}

#[tokio::test]
async fn reading_a_static_resource_gives_its_text_with_uri_and_mime_type() {
    let client = connect(server()).await;
    assert_eq!(
        read(&client, "museum://about").await.unwrap(),
        json!([{"uri": "museum://about", "mimeType": "text/markdown", "text": "# The museum\nOpen daily, 10:00 to 17:00."}])
    );
}

#[tokio::test]
async fn reading_a_template_decodes_typed_params_and_gives_one_or_several_contents() {
    let client = connect(server()).await;
    assert_eq!(
        read(&client, "museum://objects/1").await.unwrap(),
        json!([{"uri": "museum://objects/1", "mimeType": "application/json", "text": "{\"id\":1,\"title\":\"Vase\"}"}])
    );
    assert_eq!(
        read(&client, "museum://objects/2").await.unwrap(),
        json!([
            {"uri": "museum://objects/2", "mimeType": "application/json", "text": "{\"id\":2,\"title\":\"Lamp\"}"},
            {"uri": "museum://objects/2/image", "mimeType": "image/png", "blob": "iVBORw=="},
        ])
    );
}

#[tokio::test]
async fn the_template_with_the_most_literal_text_wins() {
    let client = connect(server()).await;
    let text = |contents: Value| contents[0]["text"].as_str().unwrap().to_owned();
    assert_eq!(text(read(&client, "museum://files/notes.txt").await.unwrap()), r#"text_file {"name": "notes"}"#);
    assert_eq!(text(read(&client, "museum://files/a/b%20c.md").await.unwrap()), r#"file {"path": "a/b c.md"}"#);
}

#[tokio::test]
async fn a_uri_matching_no_resource_is_resource_not_found_with_the_uri() {
    let client = connect(server()).await;
    let error = rpc_error(read(&client, "museum://objects/1/image").await);
    assert_eq!(error["code"], -32002);
    assert_eq!(support::sans_request_id(&error["data"]), json!({"uri": "museum://objects/1/image"}));
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("`museum://objects/1/image`") && message.contains("resources/templates/list"),
        "{message}"
    );
}

#[tokio::test]
async fn a_variable_that_does_not_decode_is_invalid_params_naming_it() {
    let client = connect(server()).await;
    let error = rpc_error(read(&client, "museum://objects/vase").await);
    assert_eq!(error["code"], -32602);
    assert_eq!(
        support::sans_request_id(&error["data"]),
        json!({"uri": "museum://objects/vase", "variable": "object_id"})
    );
    let message = error["message"].as_str().unwrap();
    // In the terms of the params' schema: no `u32`, no serde wording.
    assert!(
        message.ends_with(
            r#"its variable `object_id` is invalid: expected an integer of at least 0, got the string "vase"."#
        ),
        "{message}"
    );
}

#[tokio::test]
async fn a_declared_failure_is_a_json_rpc_error_with_reason_and_recovery() {
    let client = connect(server()).await;
    let error = rpc_error(read(&client, "museum://objects/99").await);
    assert_eq!(
        support::sans_request_id(&error),
        json!({
            "code": -32001,
            "message": "No object 99 in the collection.",
            "data": {
                "reason": "not_in_collection",
                "recovery": {"hint": "Search the collection first to find valid object IDs."},
                "retryable": false,
            },
        })
    );
}

#[tokio::test]
async fn an_auto_classified_failure_carries_code_and_message_only() {
    let client = connect(server()).await;
    let error = rpc_error(read(&client, "museum://objects/13").await);
    assert_eq!(support::sans_request_id(&error), json!({"code": -32004, "message": "upstream timed out"}));
}

#[tokio::test]
async fn a_panicking_resource_is_an_internal_error_and_the_server_keeps_serving() {
    let client = connect(server()).await;
    let error = rpc_error(read(&client, "museum://objects/666").await);
    assert_eq!(error["code"], -32603);
    assert_eq!(support::sans_request_id(&error).get("data"), None, "the id and nothing else: {error}");
    assert!(!error.to_string().contains("deadbeef"), "the panic message stays in the server: {error}");
    assert!(read(&client, "museum://objects/1").await.is_ok());
}

#[tokio::test]
async fn prompts_list_their_arguments_from_the_arguments_type() {
    let client = connect(server()).await;
    let prompts = serde_json::to_value(client.list_all_prompts().await.unwrap()).unwrap();
    assert_eq!(
        prompts,
        json!([{
            "name": "plan_visit",
            "title": "Plan a visit",
            "description": "Plan a visit around one department.",
            "arguments": [
                {"name": "department", "description": "The department to visit, e.g. \"Asian Art\".", "required": true},
                {"name": "days", "description": "How many days, 1 to 7.", "required": false},
                {"name": "step_free", "description": "Whether to keep to step-free routes.", "required": false},
            ],
        }])
    );
}

#[tokio::test]
async fn a_prompt_gives_text_embedded_resource_and_image_messages_from_string_arguments() {
    let client = connect(server()).await;
    let request =
        GetPromptRequestParams::new("plan_visit").with_arguments(args(json!({"department": "Asian Art", "days": "2"})));
    let result = client.get_prompt(request).await.unwrap();
    let mut result = serde_json::to_value(result).unwrap();
    result.as_object_mut().unwrap().remove("resultType");
    assert_eq!(
        result,
        json!({
            "description": "Plan a visit around one department.",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Plan a 2-day visit of the Asian Art department."}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "museum://about", "text": "Open daily."}}},
                {"role": "user", "content": {"type": "image", "data": "AQID", "mimeType": "image/png"}},
                {"role": "assistant", "content": {"type": "text", "text": "Start with the highlights."}},
            ],
        })
    );
}

#[tokio::test]
async fn missing_or_bad_prompt_arguments_are_invalid_params_naming_the_argument() {
    let client = connect(server()).await;
    let get = |arguments: Value| GetPromptRequestParams::new("plan_visit").with_arguments(args(arguments));

    let missing = rpc_error(client.get_prompt(get(json!({"days": "2"}))).await);
    assert_eq!(missing["code"], -32602);
    assert_eq!(support::sans_request_id(&missing["data"]), json!({"argument": "department"}));
    assert_eq!(missing["message"], "The prompt `plan_visit` needs the argument `department` (a string).");

    let bad = rpc_error(client.get_prompt(get(json!({"department": "Arms", "days": "many"}))).await);
    assert_eq!(bad["code"], -32602);
    assert_eq!(support::sans_request_id(&bad["data"]), json!({"argument": "days"}));
    let message = bad["message"].as_str().unwrap();
    assert!(
        message.starts_with("The argument `days` of the prompt `plan_visit` is invalid: expected an integer"),
        "{message}"
    );
    assert!(message.ends_with(r#", got the string "many"."#), "{message}");

    let unknown = rpc_error(client.get_prompt(GetPromptRequestParams::new("nope")).await);
    assert_eq!(unknown["code"], -32602);
    assert!(unknown["message"].as_str().unwrap().contains("Unknown prompt `nope`"));

    let failed = rpc_error(client.get_prompt(get(json!({"department": "Arms", "days": "9"}))).await);
    assert_eq!(
        support::sans_request_id(&failed),
        json!({
            "code": -32007,
            "message": "A visit of 9 days is too long.",
            "data": {"reason": "too_long", "recovery": {"hint": "Plan at most seven days."}},
        })
    );
}

/// Every list comes whole on one page, so a cursor is none this server gave.
#[tokio::test]
async fn a_list_with_a_cursor_the_server_never_gave_is_invalid_params() {
    let client = connect(server()).await;
    let page = |cursor: &str| Some(PaginatedRequestParams::default().with_cursor(Some(cursor.to_owned())));
    let refused = [
        ("tools/list", rpc_error(client.list_tools(page("eyJwYWdlIjogMn0=")).await)),
        ("resources/list", rpc_error(client.list_resources(page("2")).await)),
        ("resources/templates/list", rpc_error(client.list_resource_templates(page("2")).await)),
        ("prompts/list", rpc_error(client.list_prompts(page(&"x".repeat(10_000))).await)),
    ];
    for (method, error) in &refused {
        assert_eq!(error["code"], -32602, "{method}");
        assert!(error["message"].as_str().unwrap().contains(&format!("on one page. Call {method} without a cursor")));
    }
    assert_eq!(support::sans_request_id(&refused[0].1["data"]), json!({"cursor": "eyJwYWdlIjogMn0="}));
    assert_quotes_capped(&refused[3].1);
    // Without a cursor, the whole list.
    assert_eq!(client.list_prompts(None).await.unwrap().prompts.len(), 1);
    assert!(client.list_resources(Some(PaginatedRequestParams::default())).await.unwrap().next_cursor.is_none());
}

#[tokio::test]
async fn completion_asks_the_authors_completer_for_variables_and_arguments() {
    let client = connect(server()).await;
    let complete = |reference: Reference, name: &str, value: &str| {
        client.complete(CompleteRequestParams::new(reference, ArgumentInfo::new(name, value)))
    };
    let variable = complete(Reference::for_resource("museum://objects/{object_id}"), "object_id", "1").await.unwrap();
    assert_eq!(variable.completion.values, ["1", "13", "100"]);
    assert_eq!((variable.completion.total, variable.completion.has_more), (Some(3), Some(false)));

    let argument = complete(Reference::for_prompt("plan_visit"), "department", "a").await.unwrap();
    assert_eq!(argument.completion.values, ["Arms and Armor", "Asian Art"]);

    let none = complete(Reference::for_resource("museum://files/{+path}"), "path", "x").await.unwrap();
    assert!(none.completion.values.is_empty(), "no completer, no suggestions");

    let unknown = rpc_error(complete(Reference::for_prompt("plan_visit"), "colour", "r").await);
    assert_eq!(unknown["code"], -32602);
    assert_eq!(support::sans_request_id(&unknown["data"]), json!({"argument": "colour"}));
    let unknown = rpc_error(complete(Reference::for_resource("museum://nope/{x}"), "x", "").await);
    assert_eq!(unknown["code"], -32602);
}

/// The client's text an error quotes is cut at 200 characters and marked "…";
/// a message stays a few hundred characters whatever the client sent.
fn assert_quotes_capped(error: &Value) {
    let message = error["message"].as_str().unwrap();
    assert!(message.chars().count() < 1000, "a {}-character message", message.chars().count());
    assert!(message.contains('…'), "{message}");
    for value in error["data"].as_object().into_iter().flat_map(|data| data.values()) {
        assert!(value.as_str().is_none_or(|text| text.chars().count() <= 201), "{error}");
    }
}

#[tokio::test]
async fn errors_quote_the_clients_uris_names_and_values_capped() {
    let client = connect(server()).await;
    let long = "9".repeat(5000);

    let variable = rpc_error(read(&client, &format!("museum://objects/{long}")).await);
    assert_eq!((variable["code"].as_i64(), &variable["data"]["variable"]), (Some(-32602), &json!("object_id")));
    assert_quotes_capped(&variable);
    let missing = rpc_error(read(&client, &format!("museum://nowhere/{long}")).await);
    assert_eq!(missing["code"], -32002);
    assert_quotes_capped(&missing);

    let get = |arguments: Value| GetPromptRequestParams::new("plan_visit").with_arguments(args(arguments));
    let days = rpc_error(client.get_prompt(get(json!({"department": "Arms", "days": long}))).await);
    assert_eq!((days["code"].as_i64(), &days["data"]["argument"]), (Some(-32602), &json!("days")));
    assert_quotes_capped(&days);
    let unknown_argument = rpc_error(client.get_prompt(get(json!({"department": "Arms", long.clone(): "1"}))).await);
    assert_eq!(unknown_argument["code"], -32602);
    assert_quotes_capped(&unknown_argument);
    let unknown_prompt = rpc_error(client.get_prompt(GetPromptRequestParams::new(long.clone())).await);
    assert_eq!(unknown_prompt["code"], -32602);
    assert_quotes_capped(&unknown_prompt);

    let complete = |reference: Reference, name: &str| {
        client.complete(CompleteRequestParams::new(reference, ArgumentInfo::new(name, "")))
    };
    for error in [
        rpc_error(complete(Reference::for_resource("museum://objects/{object_id}"), &long).await),
        rpc_error(complete(Reference::for_resource(format!("museum://{long}/{{x}}")), "x").await),
        rpc_error(complete(Reference::for_prompt(long.clone()), "department").await),
    ] {
        assert_eq!(error["code"], -32602);
        assert_quotes_capped(&error);
    }
}

#[tokio::test]
async fn a_uri_longer_than_the_server_reads_is_not_found_at_once() {
    let client = connect(server()).await;
    // `museum://files/{name}.txt` could take the span before each `.txt`: a
    // megabyte of them costs the square of its length to rule out.
    let uri = format!("museum://files/{} ", "a.txt".repeat(200_000));
    let error = rpc_error(read(&client, &uri).await);
    assert_eq!(error["code"], -32002);
    assert!(error["message"].as_str().unwrap().contains("at most 8192 bytes"), "{}", support::cut(&error.to_string()));
    assert_quotes_capped(&error);
    // A static resource is looked up whole, whatever its length.
    assert!(read(&client, "museum://about").await.is_ok());
}

#[test]
fn names_are_unique_across_tools_resources_and_prompts() {
    let err = Server::new("x", "1").tool(NamedTool).resource(About).build().unwrap_err();
    assert!(
        matches!(
            err,
            ServerError::DuplicateName { name: "about", first: PrimitiveKind::Tool, second: PrimitiveKind::Resource }
        ),
        "{err}"
    );
    assert!(err.to_string().contains(&mcp_contract_runtime::rules::docs_url("name-unique")), "{err}");

    static ABOUT_PROMPT: LazyLock<PromptDefinition> = LazyLock::new(|| {
        PromptDefinition::new("object_record", Vec::new()).with_description("Shares a resource's name.")
    });
    struct Clash;
    impl Prompt for Clash {
        type Arguments = NoArguments;
        fn definition(&self) -> &'static PromptDefinition {
            &ABOUT_PROMPT
        }
        async fn get(&self, _args: NoArguments, _ctx: Context) -> Result<Vec<PromptMessage>, McpError> {
            Ok(Vec::new())
        }
    }
    let err = Server::new("x", "1").resource(ObjectRecord).prompt(Clash).build().unwrap_err();
    assert!(matches!(err, ServerError::DuplicateName { name: "object_record", second: PrimitiveKind::Prompt, .. }));
}

#[test]
fn resource_uris_must_be_valid_templates_registered_once() {
    static BROKEN: ResourceDefinition = ResourceDefinition::new("museum://objects/{object id}", "broken");
    // The linter reports it with everything else it finds.
    let err = Server::new("x", "1").resource(Echo(&BROKEN)).build().unwrap_err();
    let ServerError::Lint(report) = &err else { panic!("{err}") };
    assert!(report.errors().any(|d| d.rule == "uri-template-valid" && d.name == "broken"), "{report}");
    // Without it, building the catalog refuses the template.
    let err = Server::new("x", "1").resource(Echo(&BROKEN)).lint_at_build(false).build().unwrap_err();
    let ServerError::InvalidUriTemplate { resource: "broken", error } = &err else { panic!("{err}") };
    assert_eq!(error.offset(), 24);
    assert!(err.to_string().contains(&mcp_contract_runtime::rules::docs_url("uri-template-valid")), "{err}");

    static AGAIN: ResourceDefinition = ResourceDefinition::new("museum://files/{+path}", "file_again");
    let err = Server::new("x", "1").resource(Echo(&FILES)).resource(Echo(&AGAIN)).build().unwrap_err();
    assert!(matches!(err, ServerError::DuplicateResourceUri { uri: "museum://files/{+path}", .. }), "{err}");
}

// --- Streamable HTTP --------------------------------------------------------------

/// POST one JSON-RPC request to a stateless JSON-response endpoint, return the
/// JSON-RPC response.
async fn post(addr: std::net::SocketAddr, body: Value) -> Value {
    let answer = HttpClient::connect(addr).await.post(body.to_string().as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    answer.message()
}

#[tokio::test]
async fn errors_reach_a_streamable_http_client_in_the_json_rpc_envelope() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let options = HttpOptions::default()
        .stateless(true)
        .json_response(true)
        .without_signal_handling()
        .shutdown_token(shutdown.clone());
    let served = tokio::spawn(server().build().unwrap().serve_http_on(listener, options));

    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let initialized = post(addr, init).await;
    assert!(initialized["result"]["capabilities"]["resources"].is_object(), "{initialized}");

    let read =
        |id: u32, uri: &str| json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}});
    let ok = post(addr, read(1, "museum://objects/1")).await;
    assert_eq!(ok["result"]["contents"][0]["text"], "{\"id\":1,\"title\":\"Vase\"}", "{ok}");

    let missing = post(addr, read(2, "museum://nowhere")).await;
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    assert_eq!(support::sans_request_id(&missing["error"]["data"]), json!({"uri": "museum://nowhere"}));

    let declared = post(addr, read(3, "museum://objects/99")).await;
    assert_eq!(declared["error"]["data"]["reason"], "not_in_collection", "{declared}");
    assert_eq!(declared["error"]["code"], -32001);

    let get =
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "plan_visit", "arguments": {}}});
    let bad = post(addr, get).await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert_eq!(support::sans_request_id(&bad["error"]["data"]), json!({"argument": "department"}));

    shutdown.cancel();
    served.await.unwrap().unwrap();
}

// --- Shared state -----------------------------------------------------------------

struct Hours(&'static str);

static HOURS: ResourceDefinition =
    ResourceDefinition::new("museum://hours", "hours").with_description("Opening hours, from the server's state.");

struct OpeningHours;

impl Resource for OpeningHours {
    type Params = NoArguments;

    fn definition(&self) -> &'static ResourceDefinition {
        &HOURS
    }

    async fn read(&self, _uri: &str, _params: NoArguments, ctx: Context) -> Result<ReadResourceResult, McpError> {
        let hours = State::<Hours>::from_context(&ctx)?;
        Ok(ReadResourceResult::text(hours.0))
    }

    fn required_state(&self) -> &'static [StateType] {
        const NEEDS: &[StateType] = &[StateType::of::<Hours>()];
        NEEDS
    }
}

#[tokio::test]
async fn resource_handlers_get_the_servers_state_and_a_missing_one_fails_the_build() {
    let err = Server::new("x", "1").resource(OpeningHours).build().unwrap_err();
    assert!(matches!(err, ServerError::MissingStateOf { kind: PrimitiveKind::Resource, name: "hours", .. }), "{err}");
    assert!(err.to_string().contains("State<resources::Hours>"), "{err}");

    let client = connect(Server::new("x", "1").state(Hours("10:00 to 17:00")).resource(OpeningHours)).await;
    assert_eq!(read(&client, "museum://hours").await.unwrap()[0]["text"], "10:00 to 17:00");
}
