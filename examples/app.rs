//! An MCP App: a tool paired with an HTML resource that hosts of the
//! extension `io.modelcontextprotocol/ui` render in a sandboxed frame beside
//! the chat, handing it the tool's result. `app = "ui://.."` on the tool
//! names the page; `ui(..)` on the resource serves it as the app's HTML with
//! its sandbox settings.
//!
//! ```text
//! cargo run --example app -- --http 127.0.0.1:8080   # for a host that renders MCP Apps
//! ```

use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct ShowInput {
    /// The object to show, e.g. 436535.
    pub object_id: u32,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct ShowOutput {
    /// The object's ID.
    pub object_id: u32,
    /// The object's title.
    pub title: String,
}

/// Show one object in the object viewer.
#[mcp_tool(app = "ui://museum/object-viewer", annotations(read_only, open_world = false))]
async fn show_object(input: ShowInput) -> Result<ShowOutput, McpError> {
    Ok(ShowOutput { object_id: input.object_id, title: format!("Object {}", input.object_id) })
}

/// The object viewer: one page that shows the tool result the host hands it.
#[mcp_resource(
    uri = "ui://museum/object-viewer",
    name = "object_viewer",
    ui(resource_domains = ["https://images.collection.example"], prefers_border = true),
)]
fn object_viewer() -> Result<String, McpError> {
    // A real viewer speaks the host protocol (JSON-RPC over postMessage):
    // examples/museum-object-viewer.html is one.
    Ok(VIEWER.to_owned())
}

const VIEWER: &str = r#"<!doctype html>
<title>Object viewer</title>
<h1 id="title">Waiting for the tool result</h1>
<script>
  addEventListener("message", (event) => {
    const result = event.data?.params?.structuredContent;
    if (event.data?.method === "ui/notifications/tool-result" && result) {
      document.getElementById("title").textContent = result.title;
    }
  });
</script>
"#;

fn server() -> Server {
    mcp_contract::server_from_crate!().tool(ShowObject).resource(ObjectViewer)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::apps::{APP_MIME_TYPE, RESOURCE_URI_META_KEY};
    use mcp_contract::testing::Client;
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn the_tool_names_its_page_and_the_page_is_the_apps() {
        let client = Client::connect(server()).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        let meta = tools[0].meta.as_ref().expect("the tool's _meta");
        assert_eq!(meta["ui"]["resourceUri"], "ui://museum/object-viewer");
        assert_eq!(meta[RESOURCE_URI_META_KEY], "ui://museum/object-viewer");

        let page = serde_json::to_value(client.read_resource("ui://museum/object-viewer").await.unwrap()).unwrap();
        let content = &page["contents"][0];
        assert_eq!(content["mimeType"], APP_MIME_TYPE);
        assert_eq!(content["_meta"]["ui"]["csp"]["resourceDomains"], json!(["https://images.collection.example"]));
        assert!(content["text"].as_str().unwrap().contains("ui/notifications/tool-result"));

        let shown = client.call(ShowObject, json!({"object_id": 436535})).await.unwrap();
        assert_eq!(shown.title, "Object 436535");
    }

    #[test]
    fn a_tool_whose_page_nobody_serves_does_not_build() {
        let err = mcp_contract::server_from_crate!().tool(ShowObject).build().unwrap_err();
        assert!(err.to_string().contains("app-tool-resource-pairing"), "{err}");
    }
}
