//! The items `#[mcp_resource]` generates, served and read as a client would.
#![cfg(feature = "rmcp")]

use mcp_contract::prelude::*;
use mcp_contract::resources::ResourceDefinition;
use rmcp::ServiceExt;
use rmcp::model::{ClientConfig, ReadResourceRequestParams};
use serde_json::{Value, json};

struct Museum {
    name: &'static str,
}

/// Opening hours and address.
#[mcp_resource(uri = "museum://about", name = "about", mime_type = "text/markdown")]
fn about(museum: State<Museum>) -> Result<String, McpError> {
    Ok(format!("# {}\nOpen daily.", museum.name))
}

#[derive(Deserialize, JsonSchema)]
struct ObjectParams {
    object_id: u32,
}

/// One object of the collection, as JSON.
#[mcp_resource(
    uri = "museum://objects/{object_id}",
    name = "object_record",
    title = "Object record",
    mime_type = "application/json"
)]
async fn object_record(params: ObjectParams, ctx: Context) -> Result<ReadResourceResult, McpError> {
    let _ = ctx.tool_name();
    match params.object_id {
        1 => ReadResourceResult::json(&json!({"id": 1, "title": "Vase"})),
        id => Err(McpError::not_found(format!("No object {id}.")).with_reason("not_in_collection")),
    }
}

#[test]
fn the_definition_comes_from_the_attribute_and_the_doc_comment() {
    let definition: &ResourceDefinition = Resource::definition(&ObjectRecord);
    assert_eq!(definition.uri, "museum://objects/{object_id}");
    assert_eq!(definition.name, "object_record");
    assert_eq!(definition.title, Some("Object record"));
    assert_eq!(definition.description, Some("One object of the collection, as JSON."));
    assert_eq!(definition.mime_type, Some("application/json"));
    assert_eq!(Resource::definition(&About).description, Some("Opening hours and address."));
    assert_eq!(
        Resource::required_state(&About).iter().map(|state| state.type_name()).collect::<Vec<_>>(),
        [std::any::type_name::<Museum>()]
    );
    // The handler stays callable.
    assert_eq!(about(State::new(Museum { name: "Met" })).unwrap(), "# Met\nOpen daily.");
}

#[tokio::test]
async fn generated_resources_are_served() {
    assert!(Server::new("m", "1").resource(About).build().is_err(), "the state `about` takes is missing");
    let server = Server::new("m", "1").state(Museum { name: "Met" }).resource(About).resource(ObjectRecord);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server.build().unwrap();
    tokio::spawn(async move {
        let running = server.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = ClientConfig::default().serve(client_io).await.unwrap();
    let read = |uri: &'static str| client.read_resource(ReadResourceRequestParams::new(uri));
    let about = serde_json::to_value(read("museum://about").await.unwrap().contents).unwrap();
    assert_eq!(about, json!([{"uri": "museum://about", "mimeType": "text/markdown", "text": "# Met\nOpen daily."}]));
    let object = serde_json::to_value(read("museum://objects/1").await.unwrap().contents).unwrap();
    assert_eq!(object[0]["text"], "{\"id\":1,\"title\":\"Vase\"}");
    match read("museum://objects/7").await {
        Err(rmcp::service::ServiceError::McpError(error)) => {
            let mut error: Value = serde_json::to_value(error).unwrap();
            let request_id = error["data"].as_object_mut().and_then(|data| data.remove("requestId"));
            assert!(request_id.is_some_and(|id| id.as_str().is_some_and(|id| id.len() == 11)), "{error}");
            assert_eq!(
                error,
                json!({"code": -32001, "message": "No object 7.", "data": {"reason": "not_in_collection"}})
            );
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[derive(Deserialize, JsonSchema)]
struct PlanVisitArgs {
    /// The department to visit, e.g. "Asian Art".
    department: String,
    /// How many days, 1 by default.
    days: Option<u8>,
}

/// Plan a visit around one department.
#[mcp_prompt(title = "Plan a visit", complete = complete_department)]
fn plan_visit(args: PlanVisitArgs, museum: State<Museum>) -> Result<Vec<PromptMessage>, McpError> {
    let days = args.days.unwrap_or(1);
    Ok(vec![PromptMessage::user(format!(
        "Plan a {days}-day visit of the {} department at the {}.",
        args.department, museum.name
    ))])
}

async fn complete_department(request: CompletionRequest, _ctx: Context) -> Result<Completion, McpError> {
    Ok(Completion::matching(["Arms and Armor", "Asian Art", "Egyptian Art"], &request.value))
}

/// Say hello.
#[mcp_prompt(name = "greet")]
async fn greeting() -> Result<Vec<PromptMessage>, McpError> {
    Ok(vec![PromptMessage::assistant("Welcome to the museum.")])
}

#[tokio::test]
async fn generated_prompts_are_served_with_their_arguments() {
    let definition = Prompt::definition(&PlanVisit);
    assert_eq!((definition.name, definition.title), ("plan_visit", Some("Plan a visit")));
    assert_eq!(definition.description, Some("Plan a visit around one department."));
    let arguments: Vec<(&str, bool)> = definition.arguments.iter().map(|a| (a.name.as_str(), a.required)).collect();
    assert_eq!(arguments, [("department", true), ("days", false)]);
    assert_eq!(Prompt::definition(&Greeting).name, "greet");
    assert!(Prompt::definition(&Greeting).arguments.is_empty());

    let server = Server::new("m", "1").state(Museum { name: "Met" }).prompt(PlanVisit).prompt(Greeting);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server.build().unwrap();
    tokio::spawn(async move {
        let running = server.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = ClientConfig::default().serve(client_io).await.unwrap();
    let arguments = json!({"department": "Asian Art", "days": "2"}).as_object().cloned().unwrap();
    let result = client
        .get_prompt(rmcp::model::GetPromptRequestParams::new("plan_visit").with_arguments(arguments))
        .await
        .unwrap();
    let messages = serde_json::to_value(result.messages).unwrap();
    assert_eq!(messages[0]["content"]["text"], "Plan a 2-day visit of the Asian Art department at the Met.");
    match client.get_prompt(rmcp::model::GetPromptRequestParams::new("plan_visit")).await {
        Err(rmcp::service::ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32602);
            let mut data = error.data.expect("data");
            assert!(data.as_object_mut().and_then(|data| data.remove("requestId")).is_some(), "{data}");
            assert_eq!(data, json!({"argument": "department"}));
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
    let completion = client
        .complete(rmcp::model::CompleteRequestParams::new(
            rmcp::model::Reference::for_prompt("plan_visit"),
            rmcp::model::ArgumentInfo::new("department", "a"),
        ))
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["Arms and Armor", "Asian Art"]);
    let greeting = client.get_prompt(rmcp::model::GetPromptRequestParams::new("greet")).await.unwrap();
    assert_eq!(greeting.messages.len(), 1);
}
