//! Shared state for handlers: `State<T>` parameters of `#[mcp_tool]`, registered
//! with `Server::state`, checked by `Server::build`, served over rmcp.

#![cfg(feature = "rmcp")]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use mcp_contract::prelude::*;
use mcp_contract::server::{MissingState, ServerError};
use mcp_contract::{JsonObject, tools::DynTool};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

/// The application's "database".
struct Catalogue {
    titles: Mutex<Vec<String>>,
}

/// A second state type: configuration.
struct Limits {
    max_title_chars: usize,
}

/// Counts calls, to show one value is shared by every call.
#[derive(Default)]
struct Calls(AtomicU32);

#[derive(Deserialize, JsonSchema)]
pub struct AddInput {
    /// The title to add, e.g. "Harbor at dawn".
    pub title: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct AddOutput {
    /// How many titles the catalogue holds now.
    pub count: usize,
}

/// Add a title to the catalogue.
#[mcp_tool(errors(title_too_long(code = ValidationError, when = "The title is longer than the configured limit",
    recovery = "Shorten the title to the limit the error names and call add_title again.")))]
async fn add_title(
    ctx: Ctx,
    limits: State<Limits>,
    input: AddInput,
    catalogue: State<Catalogue>,
) -> Result<AddOutput, McpError> {
    if input.title.chars().count() > limits.max_title_chars {
        let message = format!("Titles hold at most {} characters.", limits.max_title_chars);
        return Err(ctx.fail(title_too_long, message).with_recovery());
    }
    let mut titles = catalogue.titles.lock().unwrap_or_else(PoisonError::into_inner);
    titles.push(input.title);
    Ok(AddOutput { count: titles.len() })
}

/// Count this tool's calls.
#[mcp_tool]
fn count_calls(calls: State<Calls>) -> Result<String, McpError> {
    Ok(format!("call {}", calls.0.fetch_add(1, Ordering::SeqCst) + 1))
}

fn catalogue() -> Catalogue {
    Catalogue { titles: Mutex::new(vec!["Vase".to_owned()]) }
}

#[tokio::test]
async fn a_unit_test_calls_the_handler_with_state_and_the_tools_test_context() {
    let out = add_title(
        AddTitle::test_ctx(),
        State::new(Limits { max_title_chars: 20 }),
        AddInput { title: "Harbor at dawn".into() },
        State::new(catalogue()),
    )
    .await
    .unwrap();
    assert_eq!(out.count, 2);

    let ctx = AddTitle::test_ctx();
    assert_eq!(ctx.tool_name(), "add_title", "the test context is the tool's own");
    let err = add_title(
        ctx,
        State::new(Limits { max_title_chars: 3 }),
        AddInput { title: "Harbor".into() },
        State::new(catalogue()),
    )
    .await
    .unwrap_err();
    assert_eq!(err.reason(), Some("title_too_long"));
    assert_eq!(err.code(), JsonRpcErrorCode::ValidationError);
}

#[test]
fn the_tool_lists_the_state_types_it_needs() {
    let needed: Vec<&str> = Tool::required_state(&AddTitle).iter().map(|state| state.type_name()).collect();
    assert_eq!(needed, [std::any::type_name::<Limits>(), std::any::type_name::<Catalogue>()]);
    assert!(Tool::required_state(&CountCalls).iter().any(|state| state.type_name().ends_with("Calls")));
}

#[test]
fn a_server_without_the_state_a_tool_takes_does_not_build() {
    let err = Server::new("catalogue", "1.0.0")
        .state(Limits { max_title_chars: 20 })
        .tool(AddTitle)
        .tool(CountCalls)
        .build()
        .unwrap_err();
    let ServerError::MissingState(missing) = &err else { panic!("expected MissingState, got {err:?}") };
    assert_eq!(
        missing,
        &[
            MissingState { tool: "add_title", type_name: std::any::type_name::<Catalogue>() },
            MissingState { tool: "count_calls", type_name: std::any::type_name::<Calls>() },
        ]
    );
    let message = err.to_string();
    assert!(message.contains("`add_title` takes `State<") && message.contains("Catalogue>`"), "{message}");
    assert!(message.contains("Server::state"), "the message says how to fix it: {message}");
}

#[tokio::test]
async fn a_tool_called_without_its_state_fails_with_an_error_not_a_panic() {
    // Outside a server (a test driving the tool directly) nothing checked the state.
    let ctx = Context::new("count_calls", &[]);
    let err = DynTool::call_json(&CountCalls, JsonObject::new(), ctx).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::ConfigurationError);
    assert!(!err.message().contains("Calls"), "the type name stays in the log: {}", err.message());

    let ctx = Context::new("count_calls", &[]).with_state(State::new(Calls::default()));
    let output = DynTool::call_json(&CountCalls, JsonObject::new(), ctx).await.unwrap();
    assert_eq!(output.content, vec![Content::text("call 1")]);
}

#[tokio::test]
async fn served_tools_share_one_value_of_each_state_type() {
    let server = Server::new("catalogue", "1.0.0")
        .state(Limits { max_title_chars: 12 })
        .state(catalogue())
        .state(Calls::default())
        .tool(AddTitle)
        .tool(CountCalls)
        .build()
        .expect("every state type is registered");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("the client connects");
    let call = |name: &'static str, arguments: Value| {
        let request = CallToolRequestParams::new(name).with_arguments(arguments.as_object().cloned().unwrap());
        let client = &client;
        async move { serde_json::to_value(client.call_tool(request).await.unwrap()).unwrap() }
    };

    for expected in 2..=3 {
        let result = call("add_title", json!({"title": format!("Title {expected}")})).await;
        assert_eq!(result["structuredContent"]["count"], expected, "{result}");
    }
    let refused = call("add_title", json!({"title": "A title far too long"})).await;
    assert_eq!(refused["isError"], true);
    assert_eq!(refused["structuredContent"]["error"]["data"]["reason"], "title_too_long");

    assert_eq!(call("count_calls", json!({})).await["content"][0]["text"], "call 1");
    assert_eq!(call("count_calls", json!({})).await["content"][0]["text"], "call 2");
    client.cancel().await.unwrap();
}
