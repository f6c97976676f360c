//! MCP Apps: a tool paired with a `ui://` resource. What `tools/list`,
//! `resources/list`, `resources/read` and `initialize` say over rmcp's
//! in-process transport, and the pairing rule.
#![cfg(feature = "rmcp")]

use mcp_contract::apps::{APP_MIME_TYPE, AppUi, UI_EXTENSION};
use mcp_contract::prelude::*;
use mcp_contract::server::ServerError;
use rmcp::model::{ClientConfig, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
pub struct ShowInput {
    /// The object to show, e.g. 436535.
    pub object_id: u32,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct ShowOutput {
    /// The object's title.
    pub title: String,
}

/// Show one object in the object viewer.
#[mcp_tool(app = "ui://museum/object-viewer")]
async fn show_object(input: ShowInput) -> Result<ShowOutput, McpError> {
    Ok(ShowOutput { title: format!("Object {}", input.object_id) })
}

/// A tool whose app the server does not serve.
#[mcp_tool(app = "ui://museum/missing")]
async fn show_missing(input: ShowInput) -> Result<ShowOutput, McpError> {
    Ok(ShowOutput { title: input.object_id.to_string() })
}

/// The object viewer's HTML.
#[mcp_resource(uri = "ui://museum/object-viewer", name = "object_viewer", mime_type = "text/html;profile=mcp-app")]
fn object_viewer() -> Result<ReadResourceResult, McpError> {
    Ok(ReadResourceResult::text("<!doctype html><title>Object viewer</title>"))
}

/// The same resource, written by hand with its sandbox settings.
struct StyledViewer;

const UI: AppUi = AppUi::new().with_connect_domains(&["https://collection.example"]).with_prefers_border(true);

static STYLED: mcp_contract::resources::ResourceDefinition =
    mcp_contract::resources::ResourceDefinition::new("ui://museum/object-viewer", "object_viewer")
        .with_description("The object viewer's HTML.")
        .with_mime_type(APP_MIME_TYPE)
        .with_ui(UI);

impl Resource for StyledViewer {
    type Params = mcp_contract::tools::NoArguments;

    fn definition(&self) -> &'static mcp_contract::resources::ResourceDefinition {
        &STYLED
    }

    async fn read(&self, _uri: &str, _params: Self::Params, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text("<!doctype html><title>Object viewer</title>"))
    }
}

/// The same resource again, its sandbox settings declared in the attribute.
#[mcp_resource(
    uri = "ui://museum/object-viewer",
    name = "object_viewer",
    ui(
        connect_domains = ["https://collection.example"],
        resource_domains = ["https://*.cdn.example", "https://fonts.example:8443"],
        permissions(clipboard_write, geolocation),
        domain = "a1b2.apps.example",
        prefers_border = false,
    )
)]
fn declared_viewer() -> Result<ReadResourceResult, McpError> {
    Ok(ReadResourceResult::text("<!doctype html><title>Object viewer</title>"))
}

async fn connect(server: Server) -> RunningService<RoleClient, ClientConfig> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server.build().expect("the server builds");
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("serves");
        let _ = running.waiting().await;
    });
    ClientConfig::default().serve(client_io).await.expect("connects")
}

#[tokio::test]
async fn the_tool_names_its_app_and_the_server_advertises_the_extension() {
    let client = connect(Server::new("museum", "1.0.0").tool(ShowObject).resource(ObjectViewer)).await;
    let info = client.peer_info().expect("initialized");
    let capabilities = serde_json::to_value(&info.capabilities).unwrap();
    assert_eq!(capabilities["extensions"][UI_EXTENSION], json!({}));
    let tools = client.list_all_tools().await.unwrap();
    let meta = serde_json::to_value(tools[0].meta.as_ref().expect("a _meta")).unwrap();
    assert_eq!(meta["ui"]["resourceUri"], "ui://museum/object-viewer");
    assert_eq!(meta["ui/resourceUri"], "ui://museum/object-viewer", "the key current hosts read");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_without_apps_advertises_no_extension() {
    let client = connect(Server::new("museum", "1.0.0").resource(ObjectViewer)).await;
    let capabilities = serde_json::to_value(&client.peer_info().unwrap().capabilities).unwrap();
    assert!(capabilities.get("extensions").is_none_or(|extensions| extensions.get(UI_EXTENSION).is_none()));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_resource_carries_its_sandbox_settings_in_the_list_and_every_read() {
    let client = connect(Server::new("museum", "1.0.0").tool(ShowObject).resource(StyledViewer)).await;
    let listed = client.list_all_resources().await.unwrap();
    let listed = serde_json::to_value(&listed[0]).unwrap();
    assert_eq!(listed["mimeType"], APP_MIME_TYPE);
    let ui = json!({"csp": {"connectDomains": ["https://collection.example"]}, "prefersBorder": true});
    assert_eq!(listed["_meta"]["ui"], ui);
    let read = client.read_resource(ReadResourceRequestParams::new("ui://museum/object-viewer")).await.unwrap();
    let read: Value = serde_json::to_value(&read).unwrap();
    assert_eq!(read["contents"][0]["_meta"]["ui"], ui);
    assert_eq!(read["contents"][0]["mimeType"], APP_MIME_TYPE);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_attribute_declares_the_sandbox_settings_and_the_app_mime_type() {
    assert_eq!(DeclaredViewer.definition().mime_type, Some(APP_MIME_TYPE), "`ui` sets the MIME type");
    let client = connect(Server::new("museum", "1.0.0").tool(ShowObject).resource(DeclaredViewer)).await;
    let ui = json!({
        "csp": {"connectDomains": ["https://collection.example"],
                "resourceDomains": ["https://*.cdn.example", "https://fonts.example:8443"]},
        "permissions": {"clipboardWrite": {}, "geolocation": {}},
        "domain": "a1b2.apps.example",
        "prefersBorder": false,
    });
    let listed = serde_json::to_value(&client.list_all_resources().await.unwrap()[0]).unwrap();
    assert_eq!(listed["_meta"]["ui"], ui);
    assert_eq!(listed["mimeType"], APP_MIME_TYPE);
    let read = client.read_resource(ReadResourceRequestParams::new("ui://museum/object-viewer")).await.unwrap();
    let read: Value = serde_json::to_value(&read).unwrap();
    assert_eq!(read["contents"][0]["_meta"]["ui"], ui, "every read carries the settings too");
    assert_eq!(read["contents"][0]["mimeType"], APP_MIME_TYPE);
    client.cancel().await.unwrap();
}

/// A hand-written app resource whose settings the attribute would refuse.
struct SloppyViewer;

static SLOPPY: mcp_contract::resources::ResourceDefinition =
    mcp_contract::resources::ResourceDefinition::new("ui://museum/object-viewer", "object_viewer")
        .with_description("The object viewer's HTML.")
        .with_mime_type("text/html")
        .with_ui(AppUi::new().with_connect_domains(&["collection.example", "https://ok.example"]));

impl Resource for SloppyViewer {
    type Params = mcp_contract::tools::NoArguments;

    fn definition(&self) -> &'static mcp_contract::resources::ResourceDefinition {
        &SLOPPY
    }

    async fn read(&self, _uri: &str, _params: Self::Params, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text("<!doctype html>"))
    }
}

#[test]
fn the_linter_checks_a_hand_written_app_resource_as_the_attribute_does() {
    let err = Server::new("museum", "1.0.0").tool(ShowObject).resource(SloppyViewer).build().unwrap_err();
    let ServerError::Lint(report) = &err else { panic!("not a lint error: {err}") };
    let found: Vec<(&str, Option<&str>)> = report.diagnostics.iter().map(|d| (d.rule, d.path.as_deref())).collect();
    assert_eq!(
        found,
        [
            ("meta-ui-resource-mime-type", Some("/mimeType")),
            ("meta-ui-csp-domain", Some("/_meta/ui/csp/connectDomains/0")),
        ]
    );
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(ShowObject).resource(StyledViewer));
}

#[test]
fn a_tool_whose_app_is_not_served_fails_the_build_with_app_tool_resource_pairing() {
    let err =
        Server::new("museum", "1.0.0").tool(ShowObject).tool(ShowMissing).resource(ObjectViewer).build().unwrap_err();
    let ServerError::Lint(report) = &err else { panic!("not a lint error: {err}") };
    let rules: Vec<(&str, &str)> = report.diagnostics.iter().map(|d| (d.rule, d.name.as_str())).collect();
    assert_eq!(rules, [("app-tool-resource-pairing", "show_missing")]);
    assert!(report.diagnostics[0].message.contains("`ui://museum/object-viewer`"), "names what is registered");
    mcp_contract::lint::assert_lint_clean(&Server::new("museum", "1.0.0").tool(ShowObject).resource(ObjectViewer));
}
