//! One handler, both protocol revisions. On a 2025 session `ctx.elicit(..)`
//! and `ctx.sample(..)` are requests to the client that the handler waits
//! for; on a stateless 2026-07-28 request nothing is sent: the request is
//! answered `input_required` with the asks under their keys (named here with
//! `ctx.input(..)`), the client retries with its answers and the signed
//! `requestState`, and the handler runs again and finds them.
//!
//! ```text
//! cargo run --example input_required -- --http 127.0.0.1:8080 --stateless
//! ```

use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema, ElicitForm)]
pub struct Name {
    /// What to call you.
    pub name: String,
}

/// Greet the user by name, with a greeting the client's model writes.
#[mcp_tool(annotations(read_only, open_world = false))]
async fn greet(ctx: Ctx) -> Result<String, McpError> {
    // Asked together, answered in one round; the keys are the same on every run.
    let (name, greeting) = tokio::join!(
        ctx.input("user_name").elicit::<Name>("What is your name?"),
        ctx.input("greeting").sample(Sampling::new(50).user("Write a one-line greeting.")),
    );
    // Everything above runs again on each round: ask first, then act.
    let name = name?.accepted().map_or_else(|| "friend".to_owned(), |answer| answer.name);
    Ok(format!("{} {name}", greeting?.text))
}

fn server() -> Server {
    // Replicas behind one load balancer share the key that signs `requestState`:
    // `.request_state_key(std::env::var("REQUEST_STATE_KEY")?)`.
    mcp_contract::server_from_crate!().tool(Greet)
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
    use crate::loopback;

    fn greeting() -> serde_json::Value {
        json!({"role": "assistant", "content": {"type": "text", "text": "Good morning,"}, "model": "m"})
    }

    #[tokio::test]
    async fn on_a_session_the_client_is_asked() {
        let client = Client::builder()
            .answer_elicitation(json!({"action": "accept", "content": {"name": "Ada"}}))
            .answer_sampling(greeting())
            .connect(server())
            .await
            .unwrap();
        assert_eq!(client.call(Greet, json!({})).await.unwrap(), "Good morning, Ada");
        let mut asked: Vec<_> = client.server_requests().iter().map(|request| request.method).collect();
        asked.sort_unstable();
        assert_eq!(asked, ["elicitation/create", "sampling/createMessage"]);
    }

    #[tokio::test]
    async fn on_2026_07_28_the_request_comes_back_with_the_answers() {
        let served = loopback::serve(server()).await;
        let capabilities = json!({"elicitation": {}, "sampling": {}});
        let call = json!({"name": "greet", "arguments": {}});
        let first = served.stateless("tools/call", call.clone(), capabilities.clone(), None).await;
        let result = &first.message["result"];
        assert_eq!(result["resultType"], "input_required", "{}", first.message);
        let requests = result["inputRequests"].as_object().unwrap();
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["greeting", "user_name"]);
        assert_eq!(requests["user_name"]["method"], "elicitation/create");
        assert_eq!(requests["greeting"]["method"], "sampling/createMessage");

        let mut retry = call;
        retry["inputResponses"] =
            json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}, "greeting": greeting()});
        retry["requestState"] = result["requestState"].clone();
        let done = served.stateless("tools/call", retry.clone(), capabilities.clone(), None).await;
        assert_eq!(done.message["result"]["content"][0]["text"], "Good morning, Ada", "{}", done.message);

        // The state is signed: one changed on the way is refused before the handler runs.
        retry["requestState"] = json!("forged");
        let refused = served.stateless("tools/call", retry, capabilities, None).await;
        assert_eq!(refused.message["error"]["code"], -32602, "{}", refused.message);
    }
}
