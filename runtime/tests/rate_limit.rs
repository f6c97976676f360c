//! Rate limits per caller (feature `rate-limit`) over Streamable HTTP: without
//! auth each client address has its bucket, and a call past it is answered
//! RateLimited with `retryAfter`.

mod support;

use std::time::Duration;

use mcp_contract_runtime::server::{HttpOptions, RateLimit};
use serde_json::{Value, json};
use support::{HttpClient, HttpServer, INITIALIZED, call, initialize};

async fn open_session(mut client: HttpClient) -> HttpClient {
    let answer = client.post(&initialize(0)).await;
    client.session = Some(answer.header("mcp-session-id").expect("a session id").to_owned());
    assert_eq!(client.post(INITIALIZED).await.status, 202);
    client
}

fn error_of(answer: &Value) -> Option<&Value> {
    (answer["result"]["isError"] == true).then(|| &answer["result"]["structuredContent"]["error"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_past_its_limit_is_answered_rate_limited_with_retry_after_and_another_address_is_not() {
    let options = HttpOptions::default().rate_limit(RateLimit::per_minute(60).burst(3));
    let served = HttpServer::start(options).await;
    let mut client = open_session(HttpClient::connect(served.addr).await).await;
    for id in 0..3 {
        let answer = client.post(&call(id, "echo", json!({"text": "a"}))).await.message();
        assert!(error_of(&answer).is_none(), "within the burst: {answer}");
    }
    let answer = client.post(&call(3, "echo", json!({"text": "a"}))).await.message();
    let error = error_of(&answer).unwrap_or_else(|| panic!("refused past the burst: {answer}"));
    assert_eq!(error["code"], -32003, "{answer}");
    assert_eq!(error["data"]["retryAfter"], 1, "one token a second: {answer}");
    assert!(error["message"].as_str().unwrap().contains("Wait 1 s"), "{answer}");

    // Resources count too.
    let read = json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "museum://about"}});
    let answer = client.post(read.to_string().as_bytes()).await.message();
    assert_eq!(answer["error"]["code"], -32003, "{answer}");

    // Another address has a bucket of its own.
    let mut other = open_session(HttpClient::connect_from(served.addr, "127.0.0.2".parse().unwrap()).await).await;
    let answer = other.post(&call(5, "echo", json!({"text": "a"}))).await.message();
    assert!(error_of(&answer).is_none(), "another client: {answer}");

    // A token comes back after a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let answer = client.post(&call(6, "echo", json!({"text": "a"}))).await.message();
    assert!(error_of(&answer).is_none(), "after retryAfter: {answer}");
}

#[tokio::test]
async fn without_a_limit_nobody_is_limited() {
    let served = HttpServer::start(HttpOptions::default()).await;
    let mut client = open_session(HttpClient::connect(served.addr).await).await;
    for id in 0..50 {
        let answer = client.post(&call(id, "echo", json!({"text": "a"}))).await.message();
        assert!(error_of(&answer).is_none(), "{answer}");
    }
}
