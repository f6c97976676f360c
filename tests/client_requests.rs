//! What a handler asks the client (elicitation, sampling) and what it gets
//! back, against a client written line by line over stdio, so that it can
//! answer well, with an error, with garbage, or never.

use std::time::Duration;

use mcp_contract::context::{ClientRequestError, Elicitation, Sampling};
use mcp_contract::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

#[derive(Debug, Deserialize, JsonSchema, ElicitForm)]
struct Confirm {
    /// Whether to delete the object.
    confirm: bool,
}

/// Delete an object of the collection after the user confirms.
#[mcp_tool(requires(elicitation), annotations(destructive))]
async fn delete_object(ctx: Ctx) -> Result<String, McpError> {
    Ok(match ctx.elicit::<Confirm>("Delete object 7?").await? {
        Elicitation::Accepted(Confirm { confirm: true }) => "deleted".to_owned(),
        Elicitation::Accepted(Confirm { confirm: false }) => "kept".to_owned(),
        Elicitation::Declined => "declined".to_owned(),
        Elicitation::Cancelled => "cancelled".to_owned(),
    })
}

/// Summarize a text with the client's model.
#[mcp_tool(requires(sampling))]
async fn summarize(ctx: Ctx) -> Result<String, McpError> {
    let answer = ctx.sample(Sampling::new(50).system_prompt("Be brief.").user("Summarize: a harbor at dusk.")).await?;
    Ok(format!("{} ({})", answer.text, answer.model))
}

/// Report whether the client can sample, without requiring it.
#[mcp_tool]
async fn can_sample(ctx: Ctx) -> Result<String, McpError> {
    let declared = ctx.client_capabilities().has(mcp_contract::context::Capability::Sampling);
    match ctx.sample(Sampling::new(10).user("hi")).await {
        Err(ClientRequestError::NotDeclared { capability }) => Ok(format!("declared={declared} missing={capability}")),
        Ok(answer) => Ok(format!("declared={declared} sampled={}", answer.text)),
        Err(other) => Err(other.into()),
    }
}

struct Client {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
}

impl Client {
    async fn start(capabilities: Value, timeout: Duration) -> Self {
        let server = Server::new("client-requests", "1.0.0")
            .tool(DeleteObject)
            .tool(Summarize)
            .tool(CanSample)
            .client_request_timeout(timeout)
            .build()
            .expect("the server builds");
        let (client, server_side) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_side);
        tokio::spawn(async move {
            let _ = server.serve_io(read, write).await;
        });
        let (read, write) = tokio::io::split(client);
        let mut client = Self { write, read: BufReader::new(read) };
        client
            .send(json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": capabilities,
                "clientInfo": {"name": "line-client", "version": "1"}}}))
            .await;
        assert_eq!(client.next().await["id"], "init");
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        client
    }

    async fn send(&mut self, message: Value) {
        self.write.write_all(format!("{message}\n").as_bytes()).await.expect("the server reads");
        self.write.flush().await.expect("the server reads");
    }

    async fn next(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), self.read.read_line(&mut line))
            .await
            .expect("the server answers in time")
            .expect("readable");
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"))
    }

    async fn call(&mut self, id: i64, tool: &str) {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}}),
        )
        .await;
    }

    /// The next message that is not a notification.
    async fn next_request_or_answer(&mut self) -> Value {
        loop {
            let message = self.next().await;
            if message.get("id").is_some() {
                return message;
            }
        }
    }
}

const BOTH: fn() -> Value = || json!({"elicitation": {}, "sampling": {}});

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {answer}"))
}

#[tokio::test]
async fn an_accepted_form_reaches_the_handler_typed() {
    let mut client = Client::start(BOTH(), Duration::from_secs(5)).await;
    client.call(1, "delete_object").await;
    let request = client.next_request_or_answer().await;
    assert_eq!(request["method"], "elicitation/create", "{request}");
    let params = &request["params"];
    assert_eq!(params["message"], "Delete object 7?");
    assert_eq!(
        params["requestedSchema"],
        json!({"type": "object", "properties": {"confirm": {"type": "boolean", "description": "Whether to delete the object."}}, "required": ["confirm"]})
    );
    client.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"confirm": true}}})).await;
    let answer = client.next_request_or_answer().await;
    assert_eq!((answer["id"].clone(), text(&answer)), (json!(1), "deleted"), "{answer}");
}

#[tokio::test]
async fn declined_and_cancelled_are_answers_not_errors() {
    let mut client = Client::start(BOTH(), Duration::from_secs(5)).await;
    for (id, action) in [(1, "decline"), (2, "cancel")] {
        client.call(id, "delete_object").await;
        let request = client.next_request_or_answer().await;
        client.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": action}})).await;
        let answer = client.next_request_or_answer().await;
        assert_eq!(text(&answer), format!("{action}d").replace("canceld", "cancelled"), "{answer}");
    }
}

#[tokio::test]
async fn sampling_sends_the_conversation_and_reads_the_models_text() {
    let mut client = Client::start(BOTH(), Duration::from_secs(5)).await;
    client.call(1, "summarize").await;
    let request = client.next_request_or_answer().await;
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    assert_eq!(request["params"]["systemPrompt"], "Be brief.");
    assert_eq!(request["params"]["maxTokens"], 50);
    assert_eq!(request["params"]["messages"][0]["content"]["text"], "Summarize: a harbor at dusk.");
    let result = json!({"role": "assistant", "content": {"type": "text", "text": "Boats, dusk."}, "model": "m-1", "stopReason": "endTurn"});
    client.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).await;
    let answer = client.next_request_or_answer().await;
    assert_eq!(text(&answer), "Boats, dusk. (m-1)", "{answer}");
}

/// The tool error a failed request to the client becomes.
fn reason(answer: &Value) -> &str {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["structuredContent"]["error"]["data"]["reason"]
        .as_str()
        .or_else(|| answer["result"]["_meta"]["error"]["data"]["reason"].as_str())
        .unwrap_or_else(|| panic!("no reason: {answer}"))
}

#[tokio::test]
async fn a_client_error_garbage_or_silence_is_a_tool_error_with_a_reason() {
    let mut client = Client::start(BOTH(), Duration::from_millis(400)).await;
    client.call(1, "summarize").await;
    let request = client.next_request_or_answer().await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -1, "message": "User rejected sampling"}}),
        )
        .await;
    let answer = client.next_request_or_answer().await;
    assert_eq!(reason(&answer), "client_error", "{answer}");
    assert!(answer.to_string().contains("User rejected sampling"), "{answer}");

    client.call(2, "summarize").await;
    let request = client.next_request_or_answer().await;
    client.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"nonsense": [1, 2]}})).await;
    let answer = client.next_request_or_answer().await;
    assert_eq!(reason(&answer), "client_answer_malformed", "{answer}");

    client.call(3, "delete_object").await;
    let request = client.next_request_or_answer().await;
    client.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"confirm": "yes"}}})).await;
    let answer = client.next_request_or_answer().await;
    assert_eq!(reason(&answer), "client_answer_malformed", "{answer}");

    client.call(4, "delete_object").await;
    let request = client.next_request_or_answer().await;
    assert_eq!(request["method"], "elicitation/create");
    // No answer: the bound passes, the client hears the request withdrawn, the call ends.
    let mut withdrawn = false;
    let answer = loop {
        let message = client.next().await;
        if message["method"] == "notifications/cancelled" && message["params"]["requestId"] == request["id"] {
            withdrawn = true;
        } else if message.get("id") == Some(&json!(4)) {
            break message;
        }
    };
    assert_eq!(reason(&answer), "client_timeout", "{answer}");
    if !withdrawn {
        let message = client.next().await;
        assert_eq!(message["method"], "notifications/cancelled", "{message}");
    }
}

#[tokio::test]
async fn a_client_without_the_capability_is_refused_before_the_handler_and_never_asked() {
    let mut client = Client::start(json!({}), Duration::from_secs(5)).await;
    client.call(1, "delete_object").await;
    let answer = client.next_request_or_answer().await;
    assert_eq!(answer["id"], 1, "no request reached the client: {answer}");
    assert_eq!(reason(&answer), "client_capability_missing", "{answer}");
    assert!(answer.to_string().contains("`elicitation`"), "{answer}");

    client.call(2, "can_sample").await;
    let answer = client.next_request_or_answer().await;
    assert_eq!((answer["id"].clone(), text(&answer)), (json!(2), "declared=false missing=sampling"), "{answer}");
}

#[tokio::test]
async fn cancelling_the_call_withdraws_its_request_to_the_client() {
    let mut client = Client::start(BOTH(), Duration::from_secs(30)).await;
    client.call(1, "delete_object").await;
    let request = client.next_request_or_answer().await;
    assert_eq!(request["method"], "elicitation/create", "{request}");
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})).await;
    let withdrawn = loop {
        let message = client.next().await;
        if message["method"] == "notifications/cancelled" {
            break message;
        }
        assert_ne!(message.get("id"), Some(&json!(1)), "a cancelled call is not answered: {message}");
    };
    assert_eq!(withdrawn["params"]["requestId"], request["id"], "{withdrawn}");
    // The server serves on: the next call asks and is answered.
    client.call(2, "can_sample").await;
    let request = client.next_request_or_answer().await;
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    let result = json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"});
    client.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).await;
    let answer = client.next_request_or_answer().await;
    assert_eq!((answer["id"].clone(), text(&answer)), (json!(2), "declared=true sampled=hello"), "{answer}");
}
