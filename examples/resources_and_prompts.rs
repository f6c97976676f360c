//! MCP's other two primitives beside the tools: a static resource, a
//! resource template whose variable is parsed into typed params (and fails
//! through its own contract), a prompt with typed arguments, and a completer
//! that answers `completion/complete` for both.
//!
//! ```text
//! cargo run --example resources_and_prompts     # then read museum://objects/2, get plan_visit
//! ```

use mcp_contract::prelude::*;

const DEPARTMENTS: [&str; 3] = ["Asian Art", "Arms and Armor", "Egyptian Art"];
const OBJECTS: [&str; 3] = ["Wheat Field with Cypresses", "The Great Wave", "Water Lilies"];

/// Opening hours and what the collection holds.
#[mcp_resource(uri = "museum://about", name = "about", mime_type = "text/markdown")]
fn about() -> Result<String, McpError> {
    Ok(format!("# The museum\n\nOpen daily, 10:00 to 17:00. Departments: {}.", DEPARTMENTS.join(", ")))
}

#[derive(Deserialize, JsonSchema)]
pub struct ObjectParams {
    /// Object ID in the collection, from 0 to 2.
    pub object_id: u32,
}

/// One object of the collection, as JSON.
#[mcp_resource(
    uri = "museum://objects/{object_id}",
    name = "object_record",
    mime_type = "application/json",
    complete = complete,
    errors(not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Read museum://about, or complete object_id, to find valid object IDs.")),
)]
async fn object_record(params: ObjectParams, ctx: Ctx) -> Result<ReadResourceResult, McpError> {
    match OBJECTS.get(params.object_id as usize) {
        Some(title) => ReadResourceResult::json(&serde_json::json!({"id": params.object_id, "title": title})),
        None => Err(ctx.fail(not_in_collection, format!("No object {}.", params.object_id))),
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct PlanVisitArgs {
    /// The department to visit, e.g. "Asian Art".
    pub department: String,
    /// How many hours, 2 by default.
    pub hours: Option<u8>,
}

/// Plan a visit around one department.
#[mcp_prompt(complete = complete)]
fn plan_visit(args: PlanVisitArgs) -> Result<Vec<PromptMessage>, McpError> {
    let hours = args.hours.unwrap_or(2);
    Ok(vec![PromptMessage::user(format!("Plan a {hours}-hour visit of the {} department.", args.department))])
}

/// `completion/complete` for the template's `object_id` and the prompt's `department`.
async fn complete(request: CompletionRequest, _ctx: Context) -> Result<Completion, McpError> {
    Ok(match request.argument.as_str() {
        "department" => Completion::matching(DEPARTMENTS, &request.value),
        "object_id" => Completion::matching((0..OBJECTS.len()).map(|id| id.to_string()), &request.value),
        _ => Completion::default(),
    })
}

fn server() -> Server {
    mcp_contract::server_from_crate!().resource(About).resource(ObjectRecord).prompt(PlanVisit)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::testing::Client;
    use serde_json::json;

    use super::*;

    /// The text of a `resources/read` answer's first content.
    fn text(result: &impl Serialize) -> String {
        serde_json::to_value(result).unwrap()["contents"][0]["text"].as_str().unwrap().to_owned()
    }

    #[tokio::test]
    async fn resources_are_read_and_a_template_fails_as_declared() {
        let client = Client::connect(server()).await.unwrap();
        assert!(text(&client.read_resource("museum://about").await.unwrap()).contains("Egyptian Art"));
        let record: serde_json::Value =
            serde_json::from_str(&text(&client.read_resource("museum://objects/1").await.unwrap())).unwrap();
        assert_eq!(record, json!({"id": 1, "title": "The Great Wave"}));

        let err = client.read_resource("museum://objects/9").await.unwrap_err();
        assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("not_in_collection")));
        let err = client.read_resource("museum://objects/first").await.unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams, "a variable that does not parse: {err}");
    }

    #[tokio::test]
    async fn the_prompt_takes_typed_arguments_and_both_complete() {
        let client = Client::connect(server()).await.unwrap();
        let prompt = client.get_prompt("plan_visit", json!({"department": "Asian Art", "hours": "3"})).await.unwrap();
        let message = serde_json::to_value(&prompt.messages[0]).unwrap();
        assert_eq!(message["content"]["text"], "Plan a 3-hour visit of the Asian Art department.");
        let err = client.get_prompt("plan_visit", json!({"hours": "3"})).await.unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams, "{err}");

        let departments = client.complete_prompt("plan_visit", "department", "a").await.unwrap();
        assert_eq!(departments.values, ["Asian Art", "Arms and Armor"]);
        let ids = client.complete_resource("museum://objects/{object_id}", "object_id", "").await.unwrap();
        assert_eq!(ids.values, ["0", "1", "2"]);
    }
}
