//! A tool, a resource and a prompt whose handlers ask the user to confirm
//! before they answer: on a stateless 2026-07-28 request each one's first
//! round ends `input_required`, and the retry with the confirmation finishes.

use std::sync::LazyLock;

use mcp_contract_runtime::define::{NoArguments, Prompt, PromptDefinition, PromptMessage};
use mcp_contract_runtime::define::{ReadResourceResult, Resource, ResourceDefinition};
use mcp_contract_runtime::server::{Server, ToolServer};
use mcp_contract_runtime::{Context, McpError};
use serde::Deserialize;
use serde_json::{Value, json};

use super::text_tool;

#[derive(Deserialize, schemars::JsonSchema, mcp_contract::context::ElicitForm)]
pub struct Confirm {
    pub confirm: bool,
}

text_tool!(Book, "book", |ctx| {
    ctx.elicit::<Confirm>("Book the visit?").await?;
    Ok("booked".to_owned())
});

pub struct Visit;
pub const VISIT_URI: &str = "museum://visit";
static VISIT: ResourceDefinition =
    ResourceDefinition::new(VISIT_URI, "visit").with_description("The visit, once the user confirms.");

impl Resource for Visit {
    type Params = NoArguments;
    fn definition(&self) -> &'static ResourceDefinition {
        &VISIT
    }
    async fn read(&self, _uri: &str, _params: NoArguments, ctx: Context) -> Result<ReadResourceResult, McpError> {
        ctx.elicit::<Confirm>("Show the visit?").await?;
        Ok(ReadResourceResult::text("The visit: Egyptian Art, then Arms and Armor."))
    }
}

pub struct Plan;
static PLAN: LazyLock<PromptDefinition> =
    LazyLock::new(|| PromptDefinition::new("plan", Vec::new()).with_description("Plan a visit the user confirms."));

impl Prompt for Plan {
    type Arguments = NoArguments;
    fn definition(&self) -> &'static PromptDefinition {
        &PLAN
    }
    async fn get(&self, _arguments: NoArguments, ctx: Context) -> Result<Vec<PromptMessage>, McpError> {
        ctx.elicit::<Confirm>("Plan the visit?").await?;
        Ok(vec![PromptMessage::user("Plan a one-hour visit.")])
    }
}

/// A server of the three.
pub fn server(server: Server) -> ToolServer {
    server.tool(Book).resource(Visit).prompt(Plan).build().expect("the server builds")
}

/// One of the three asks: the `kind` and `name` the server's metrics and
/// spans give it, its request's method, `Mcp-Name` header and params.
pub struct Ask {
    pub kind: &'static str,
    pub name: &'static str,
    pub method: &'static str,
    pub header: &'static str,
    pub params: Value,
}

pub fn asks() -> [Ask; 3] {
    [
        Ask { kind: "tool", name: "book", method: "tools/call", header: "book", params: json!({"name": "book"}) },
        Ask {
            kind: "resource",
            name: "visit",
            method: "resources/read",
            header: VISIT_URI,
            params: json!({"uri": VISIT_URI}),
        },
        Ask { kind: "prompt", name: "plan", method: "prompts/get", header: "plan", params: json!({"name": "plan"}) },
    ]
}

impl Ask {
    /// The request again, with the user's confirmation of what `first` (its
    /// `input_required` answer) asked.
    pub fn confirmed(&self, first: &Value) -> Value {
        let mut params = self.params.clone();
        params["inputResponses"] = json!({"elicitation-1": {"action": "accept", "content": {"confirm": true}}});
        params["requestState"] = first["result"]["requestState"].clone();
        params
    }
}
