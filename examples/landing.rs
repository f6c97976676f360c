//! What a person and a registry see of a server on Streamable HTTP: the
//! landing page at `/` (how to connect from each client, every tool with its
//! error contract), written from the definitions and a typed `Landing`; the
//! server card at `/.well-known/mcp.json`.
//!
//! ```text
//! cargo run --example landing -- --http 127.0.0.1:8080     # then open http://127.0.0.1:8080/
//! ```

use mcp_contract::prelude::*;
use mcp_contract::server::{ConnectTab, Landing};

#[derive(Deserialize, JsonSchema)]
pub struct LookupInput {
    /// Object ID in the collection, e.g. 436535.
    pub object_id: u32,
}

/// Look one object of the collection up by its ID.
#[mcp_tool(
    annotations(read_only, open_world = false),
    errors(not_in_collection(code = NotFound, when = "No object has this ID",
        recovery = "Check the ID on the museum's website.")),
)]
async fn lookup(input: LookupInput, ctx: Ctx) -> Result<String, McpError> {
    match input.object_id {
        436535 => Ok("Wheat Field with Cypresses".to_owned()),
        id => Err(ctx.fail(not_in_collection, format!("No object {id}."))),
    }
}

fn server() -> Server {
    mcp_contract::server_from_crate!().tool(Lookup).landing(
        Landing::new()
            .tagline("Look objects of the collection up by their ID")
            .link("https://museum.example.org/docs", "Docs")
            .connect_snippet(
                ConnectTab::Cursor,
                r#"{ "mcpServers": { "museum": { "url": "https://museum.example.org/mcp" } } }"#,
            )
            .accent("#0f766e"),
    )
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loopback;

    #[tokio::test]
    async fn the_page_and_the_card_over_http() {
        let served = loopback::serve(server()).await;
        let page = served.get("/").await;
        assert_eq!(page.status(), 200);
        let html = page.text().await.unwrap();
        assert!(html.contains("Look objects of the collection up by their ID"), "the tagline: {html}");
        assert!(html.contains("<code>lookup</code>") && html.contains("<code>not_in_collection</code>"), "{html}");
        assert!(html.contains(&format!("claude mcp add --transport http mcp-contract {}/mcp", served.base)), "{html}");
        assert!(html.contains("museum.example.org/docs") && html.contains("#0f766e"), "{html}");

        let card: serde_json::Value =
            serde_json::from_str(&served.get("/.well-known/mcp.json").await.text().await.unwrap()).unwrap();
        assert_eq!(card["server_name"], "mcp-contract");
        assert_eq!(card["endpoints"]["streamable_http"], format!("{}/mcp", served.base));
    }
}
