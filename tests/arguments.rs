//! Arguments an agent got slightly wrong, through the whole stack with the
//! testing `Client`: repaired before decoding (a normal success), or refused
//! with `invalid_arguments`, the issues and a hint built from the schema.

use mcp_contract::prelude::*;
use mcp_contract::testing::Client;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// Words to look for.
    pub query: String,
    /// How many results, at most.
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
    /// Departments to search in.
    pub departments: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
pub struct SearchOutput {
    /// What was searched, as the handler read it.
    pub echo: String,
}

/// Search the collection by keyword.
#[mcp_tool(input_aliases(query = ["q", "search"]))]
async fn search_objects(input: SearchInput) -> Result<SearchOutput, McpError> {
    Ok(SearchOutput { echo: format!("{} limit={:?} departments={:?}", input.query, input.limit, input.departments) })
}

/// Search the collection by keyword, arguments taken only as sent.
#[mcp_tool(repair_arguments = false)]
async fn search_strictly(input: SearchInput) -> Result<SearchOutput, McpError> {
    Ok(SearchOutput { echo: input.query })
}

fn server() -> Server {
    Server::new("arguments", "1.0.0").tool(SearchObjects).tool(SearchStrictly)
}

#[tokio::test]
async fn a_call_an_agent_got_slightly_wrong_answers_as_a_normal_success() {
    let client = Client::connect(server()).await.unwrap();
    let found = client
        .call(SearchObjects, json!({"q": "vase", "Limit": "15", "departments": "Asian Art", "_trace": "x"}))
        .await
        .unwrap();
    assert_eq!(found.echo, r#"vase limit=Some(15) departments=Some(["Asian Art"])"#);
}

#[tokio::test]
async fn a_refusal_says_what_is_missing_of_the_wrong_type_and_out_of_range() {
    let client = Client::connect(server()).await.unwrap();
    let err = client.call(SearchObjects, json!({"limit": 80, "departments": [true]})).await.unwrap_err();
    assert_eq!(err.code(), JsonRpcErrorCode::InvalidParams);
    assert_eq!(err.reason(), Some("invalid_arguments"));
    assert_eq!(
        err.recovery_hint(),
        Some(
            "Provide `query` (a string). Send `departments[0]` as a string, not `true`. Keep `limit` in range: an \
             integer between 1 and 50, not the number 80."
        )
    );
    let data = serde_json::Value::Object(err.data().unwrap().clone());
    assert_eq!(data["issuesCount"], 3);
    let problems: Vec<&str> =
        data["issues"].as_array().unwrap().iter().map(|issue| issue["problem"].as_str().unwrap()).collect();
    assert_eq!(problems, ["missing", "wrong_type", "out_of_range"]);
}

#[tokio::test]
async fn a_refusal_after_an_alias_names_the_rewrite() {
    let client = Client::connect(server()).await.unwrap();
    let err = client.call(SearchObjects, json!({"search": "vase", "limit": "many"})).await.unwrap_err();
    assert_eq!(err.reason(), Some("invalid_arguments"));
    let data = serde_json::Value::Object(err.data().unwrap().clone());
    assert_eq!(data["input"], json!({"aliased": [{"key": "search", "field": "query"}]}));
    assert!(err.recovery_hint().unwrap().ends_with("Validated `search` as `query`."), "{:?}", err.recovery_hint());
}

#[tokio::test]
async fn a_tool_or_a_server_that_turns_repair_off_takes_arguments_only_as_sent() {
    let client = Client::connect(server()).await.unwrap();
    let err = client.call(SearchStrictly, json!({"query": "vase", "limit": "15"})).await.unwrap_err();
    assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::InvalidParams, Some("invalid_arguments")));
    let strict = Client::connect(server().repair_arguments(false)).await.unwrap();
    let err = strict.call(SearchObjects, json!({"q": "vase"})).await.unwrap_err();
    assert_eq!(err.reason(), Some("invalid_arguments"));
    assert_eq!(
        strict.call(SearchObjects, json!({"query": "vase"})).await.unwrap().echo,
        "vase limit=None departments=None"
    );
}

#[tokio::test]
async fn declared_aliases_reach_the_definition_and_are_not_advertised() {
    let definition = mcp_contract::tools::Tool::definition(&SearchObjects);
    assert_eq!(definition.input_aliases, [mcp_contract::tools::InputAlias::new("query", &["q", "search"])]);
    assert!(definition.repair_arguments);
    assert!(!mcp_contract::tools::Tool::definition(&SearchStrictly).repair_arguments);
    assert!(!serde_json::Value::Object((*definition.input_schema).clone()).to_string().contains("\"q\""));
}

/// Search with an alias for a field the input does not have.
#[mcp_tool(input_aliases(colour = ["color"]))]
async fn search_by_colour(input: SearchInput) -> Result<SearchOutput, McpError> {
    Ok(SearchOutput { echo: input.query })
}

#[test]
fn an_alias_for_a_field_the_input_does_not_have_fails_the_build() {
    // The attribute cannot see the input type's fields: the linter judges them when the server builds.
    let err = Server::new("arguments", "1.0.0").tool(SearchByColour).build().map(drop).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("input-alias-conflict") && text.contains("/inputAliases/0"), "{text}");
}

/// The guide's refusal (guide/src/schemas.md), as the text surface renders it.
#[tokio::test]
async fn the_readme_s_refusal_reads_as_shown() {
    let client = Client::connect(server()).await.unwrap();
    let err = client.call(SearchObjects, json!({"limit": 80})).await.unwrap_err();
    let request_id = err.request_id().expect("every error carries its request id");
    assert_eq!(
        mcp_contract::errors::render::error_text(&err),
        format!(
            "Error: Invalid arguments: the field `query` is required: expected a string.\n\nRecovery: Provide `query` \
             (a string). Keep `limit` in range: an integer between 1 and 50, not the number 80.\n\n(reason \
             invalid_arguments · request {request_id})"
        )
    );
}

#[tokio::test]
async fn an_alias_sent_beside_its_field_is_named_as_one() {
    let client = Client::connect(server()).await.unwrap();
    let err = client.call(SearchObjects, json!({"query": "vase", "q": "bowl"})).await.unwrap_err();
    assert_eq!(err.reason(), Some("invalid_arguments"));
    let hint = err.recovery_hint().unwrap();
    assert!(hint.ends_with("`q` is an alias of `query`; send one of them, not both."), "{hint}");
}
