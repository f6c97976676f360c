use mcp_contract::prelude::*;
use mcp_contract::JsonObject;

fn search_schema() -> serde_json::Value {
    serde_json::json!({"type": "object", "properties": {"query": {"type": "string"}}})
}

fn not_a_schema() -> String {
    "{}".to_owned()
}

/// Search the collection with a schema written as a string.
#[mcp_tool(input_schema = "search_schema")]
fn search_quoted(input: JsonObject) -> Result<String, McpError> {
    Ok(format!("{input:?}"))
}

/// Search the collection with a schema called rather than named.
#[mcp_tool(input_schema = search_schema())]
fn search_called(input: JsonObject) -> Result<String, McpError> {
    Ok(format!("{input:?}"))
}

/// Search the collection, answering text under an output schema.
#[mcp_tool(input_schema = search_schema, output_schema = search_schema)]
fn search_text(input: JsonObject) -> Result<String, McpError> {
    Ok(format!("{input:?}"))
}

/// Search the collection with a schema that is no JSON value.
#[mcp_tool(input_schema = not_a_schema)]
fn search_string(input: JsonObject) -> Result<String, McpError> {
    Ok(format!("{input:?}"))
}

fn main() {}
