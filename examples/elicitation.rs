//! Asking the user during a call (elicitation): a form built from a flat
//! struct, and what the handler does when the user accepts, declines or
//! cancels. `requires(elicitation)` refuses a client that cannot show forms
//! before the handler runs.
//!
//! ```text
//! npx @modelcontextprotocol/inspector cargo run --example elicitation   # a client that shows forms
//! ```

use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct DeleteInput {
    /// Object ID in the collection, e.g. 7.
    pub object_id: u32,
}

/// The form the user fills in.
#[derive(Deserialize, JsonSchema, ElicitForm)]
pub struct Confirm {
    /// Delete the object for good.
    pub confirm: bool,
    /// Why, for the collection's log.
    #[serde(default)]
    pub note: Option<String>,
}

/// Remove an object from the collection, after the user confirms.
#[mcp_tool(requires(elicitation), annotations(destructive, open_world = false))]
async fn delete_object(input: DeleteInput, ctx: Ctx) -> Result<String, McpError> {
    // Ask first, then act: nothing is deleted before the answer.
    let answer = ctx.elicit::<Confirm>(format!("Delete object {} for good?", input.object_id)).await?;
    Ok(match answer {
        Elicitation::Accepted(Confirm { confirm: true, note }) => {
            format!("Deleted object {} ({}).", input.object_id, note.as_deref().unwrap_or("no note"))
        }
        Elicitation::Accepted(_) => "Kept: not confirmed.".to_owned(),
        Elicitation::Declined => "Kept: the user declined.".to_owned(),
        Elicitation::Cancelled => "Kept: the user dismissed the form.".to_owned(),
    })
}

fn server() -> Server {
    mcp_contract::server_from_crate!().tool(DeleteObject)
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

    async fn answered(answer: serde_json::Value) -> (String, Client) {
        let client = Client::builder().answer_elicitation(answer).connect(server()).await.unwrap();
        (client.call(DeleteObject, json!({"object_id": 7})).await.unwrap(), client)
    }

    #[tokio::test]
    async fn accepted_and_declined() {
        let (accepted, client) =
            answered(json!({"action": "accept", "content": {"confirm": true, "note": "a copy"}})).await;
        assert_eq!(accepted, "Deleted object 7 (a copy).");
        let asked = &client.server_requests()[0];
        assert_eq!(asked.method, "elicitation/create");
        assert_eq!(asked.params["message"], "Delete object 7 for good?");
        assert_eq!(asked.params["requestedSchema"]["properties"]["confirm"]["type"], "boolean");

        assert_eq!(answered(json!({"action": "decline"})).await.0, "Kept: the user declined.");
        assert_eq!(answered(json!({"action": "cancel"})).await.0, "Kept: the user dismissed the form.");
    }

    #[tokio::test]
    async fn a_client_without_forms_is_refused_before_anything_is_asked() {
        let client = Client::connect(server()).await.unwrap();
        let err = client.call(DeleteObject, json!({"object_id": 7})).await.unwrap_err();
        assert_eq!(err.reason(), Some("client_capability_missing"), "{err}");
        assert!(client.server_requests().is_empty());
    }
}
