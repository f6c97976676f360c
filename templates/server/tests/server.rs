//! The whole server through the `testing` client: what an agent sees of the
//! tool, and its contract checked against generated calls.

use mcp_contract::prelude::*;
use mcp_contract::testing::{Cases, Client, check_contract};

// In a group of its own: rustfmt sorts imports within a group, and the crate's
// name is yours.
use {{crate_name}}::{Greet, server};

#[tokio::test]
async fn greet_answers_and_fails_as_its_contract_says() {
    let client = Client::connect(server()).await.unwrap();
    let hello = client
        .call(Greet, serde_json::json!({"name": "Ada"}))
        .await
        .unwrap();
    assert_eq!(hello, "Hello, Ada!");
    let err = client
        .call(Greet, serde_json::json!({"name": "  "}))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), err.reason()),
        (JsonRpcErrorCode::InvalidParams, Some("empty_name"))
    );
}

/// Every failure declared, every output as advertised: generated calls
/// (`MCP_CONTRACT_CASES` sets how many; a failure prints its seed to replay).
#[tokio::test]
async fn greet_keeps_its_contract() {
    let client = Client::connect(server()).await.unwrap();
    let cases = Cases::new(200)
        .with_examples([serde_json::json!({"name": ""})])
        .or_from_env();
    check_contract(&client, Greet, cases)
        .await
        .unwrap()
        .assert_passed();
}
