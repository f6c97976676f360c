//! The error core at work, offline: declare a tool with a contract, call it,
//! and see its failures as an MCP client receives them.
//!
//! `cargo run --example quickstart`

#![allow(clippy::print_stdout)]

use mcp_contract::errors::render;
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct GetObjectInput {
    /// Object ID in the collection, e.g. 436535.
    pub object_id: u32,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct GetObjectOutput {
    /// Title of the object.
    pub title: String,
    /// Artist display name, when known.
    pub artist: Option<String>,
}

/// Fetch one object of the collection by its ID.
#[mcp_tool(
    annotations(read_only, open_world = false),
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
        upstream_busy(code = RateLimited, retryable, when = "The collection API throttles us",
            recovery = "Wait thirty seconds, then call get_object again."),
    ),
)]
async fn get_object(input: GetObjectInput, ctx: Ctx) -> Result<GetObjectOutput, McpError> {
    match input.object_id {
        436535 => {
            Ok(GetObjectOutput { title: "Wheat Field with Cypresses".into(), artist: Some("Vincent van Gogh".into()) })
        }
        429 => Err(ctx.fail(upstream_busy, "The collection API is throttling requests.")),
        id => Err(ctx.fail(not_in_collection, format!("No object {id} in the collection."))),
    }
}

fn show(title: &str, value: &serde_json::Value) {
    println!("── {title}\n{}\n", serde_json::to_string_pretty(value).expect("JSON values serialize"));
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let definition = GetObject.definition();
    show("the contract, as published in tools/list", &serde_json::to_value(definition.errors).expect("contract"));
    show("the input schema", &serde_json::Value::Object((*definition.input_schema).clone()));

    let ctx = Context::new(definition.name, definition.errors);
    for object_id in [436535, 7, 429] {
        let call = GetObject.call(GetObjectInput { object_id }, ctx.clone()).await;
        match call.and_then(|output| GetObject.render(output)) {
            Ok(output) => show(&format!("get_object({object_id}): success"), &output.structured.unwrap_or_default()),
            Err(err) => show(&format!("get_object({object_id}): tool error result"), &render::tool_error_result(&err)),
        }
    }

    // Errors nobody built on purpose are classified, and carry no data.
    let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "open /srv/collection.db: permission denied");
    show("an io::Error, classified", &render::tool_error_result(&McpError::from_error(io)));
}
