//! Asking the client's model during a call (sampling): a request with a
//! system prompt, the user's text and model preferences; the answer's text.
//! `requires(sampling)` refuses a client that has no model to lend.
//!
//! ```text
//! cargo run --example sampling      # over stdio, from a client that declares sampling
//! ```

use mcp_contract::context::ModelPreferences;
use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct SummarizeInput {
    /// The record to summarize, e.g. "Portrait of a Lady, oil on canvas, 1885".
    pub record: String,
}

/// Summarize a museum record in one sentence with the client's model.
#[mcp_tool(requires(sampling), annotations(read_only, open_world = false))]
async fn summarize(input: SummarizeInput, ctx: Ctx) -> Result<String, McpError> {
    let request = Sampling::new(200)
        .system_prompt("You summarize museum records in one sentence.")
        .user(input.record)
        .model_preferences(ModelPreferences::new().hint("claude").speed_priority(0.8));
    let answer = ctx.sample(request).await?;
    Ok(format!("{} (by {})", answer.text, answer.model))
}

fn server() -> Server {
    mcp_contract::server_from_crate!().tool(Summarize)
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

    #[tokio::test]
    async fn the_model_answers_through_the_client() {
        let model =
            json!({"role": "assistant", "content": {"type": "text", "text": "A portrait."}, "model": "claude-x"});
        let client = Client::builder().answer_sampling(model).connect(server()).await.unwrap();
        let summary = client.call(Summarize, json!({"record": "Portrait of a Lady, 1885"})).await.unwrap();
        assert_eq!(summary, "A portrait. (by claude-x)");

        let asked = &client.server_requests()[0];
        assert_eq!(asked.method, "sampling/createMessage");
        assert_eq!(asked.params["systemPrompt"], "You summarize museum records in one sentence.");
        assert_eq!(asked.params["maxTokens"], 200);
        assert_eq!(asked.params["messages"][0]["content"]["text"], "Portrait of a Lady, 1885");
        assert_eq!(asked.params["modelPreferences"]["hints"][0]["name"], "claude");
    }

    #[tokio::test]
    async fn a_client_without_a_model_is_refused() {
        let client = Client::connect(server()).await.unwrap();
        let err = client.call(Summarize, json!({"record": "A vase"})).await.unwrap_err();
        assert_eq!(err.reason(), Some("client_capability_missing"), "{err}");
    }
}
