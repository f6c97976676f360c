//! Skills (the Skills extension, SEP-2640): the folder of `Server::skills_dir`
//! served as a client reads it (`skills/list`, `skills/get`, `resources/list`,
//! `resources/read`, `resources/directory/read`) on a session and on the
//! stateless revision 2026-07-28, and what `Server::build` and the linter
//! refuse.
#![cfg(feature = "rmcp")]

use std::path::{Path, PathBuf};

use mcp_contract::errors::JsonRpcErrorCode;
use mcp_contract::prelude::*;
use mcp_contract::server::{HttpOptions, Server, ServerError};
use mcp_contract::testing::Client;
use rmcp::model::{CacheScope, ResourceContents, SkillResources, sha256_digest};
use serde_json::{Value, json};

/// The skills `examples/conformance.rs` serves: `visit-planning` (a reference,
/// a binary asset) and `acme/refunds` (under a prefix).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conformance-skills")
}

/// Answers, so the skill's `allowed-tools` names a tool this server serves.
#[mcp_tool]
fn test_simple_text() -> Result<String, McpError> {
    Ok("ok".to_owned())
}

fn server() -> Server {
    Server::new("skills", "1.0.0").tool(TestSimpleText).skills_dir(fixture())
}

/// A folder of its own under the system's temporary one, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("mcp-contract-skills-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Self(dir)
    }

    fn write(&self, path: &str, text: &str) -> &Self {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("its folder");
        std::fs::write(path, text).expect("written");
        self
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn the_server_declares_the_extension_and_the_resources_capability() {
    let built = server().build().expect("the fixture serves");
    let capabilities = &built.config().capabilities;
    assert!(capabilities.resources.is_some(), "skills are read as resources, with no resource of the server's own");
    let skills = &capabilities.extensions.as_ref().expect("extensions")["io.modelcontextprotocol/skills"];
    assert_eq!(Value::Object(skills.clone()), json!({"directoryRead": true}));
}

#[tokio::test]
async fn every_file_is_listed_with_the_digest_and_size_of_the_bytes_read_back() {
    let client = Client::connect(server()).await.expect("connects");
    let skills = client.list_skills().await.expect("skills/list");
    let uris: Vec<&str> = skills.iter().map(|skill| skill.uri.as_str()).collect();
    assert_eq!(uris, ["skill://acme/refunds/SKILL.md", "skill://visit-planning/SKILL.md"]);
    let planning = &skills[1];
    assert_eq!(planning.frontmatter.name, "visit-planning");
    assert_eq!(planning.frontmatter.extra["license"], "MIT");
    assert_eq!(planning.frontmatter.extra["metadata"], json!({"version": "1.0"}));
    let SkillResources::Files(files) = &planning.resources else { panic!("a manifest of files") };
    let listed: Vec<&str> = files.iter().map(|file| file.uri.as_str()).collect();
    assert_eq!(
        listed,
        [
            "skill://visit-planning/SKILL.md",
            "skill://visit-planning/assets/plan.png",
            "skill://visit-planning/references/HOURS.md"
        ]
    );
    for file in files {
        let on_disk = std::fs::read(fixture().join(file.uri.trim_start_matches("skill://"))).expect("the file");
        assert_eq!(file.size, on_disk.len() as u64, "{}", file.uri);
        assert_eq!(file.digest, sha256_digest(&on_disk), "{}", file.uri);
        let read = client.read_resource(&file.uri).await.expect("resources/read");
        let bytes = match &read.contents[0] {
            ResourceContents::TextResourceContents { text, .. } => text.clone().into_bytes(),
            ResourceContents::BlobResourceContents { blob, .. } => {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD.decode(blob).expect("base64")
            }
            other => panic!("a file's contents: {other:?}"),
        };
        file.verify(&bytes).expect("the bytes read are those the manifest describes");
    }
}

#[tokio::test]
async fn files_are_served_with_their_mime_type() {
    let client = Client::connect(server()).await.expect("connects");
    let mime = |read: &rmcp::model::ReadResourceResult| match &read.contents[0] {
        ResourceContents::TextResourceContents { mime_type, .. } => (mime_type.clone(), "text"),
        ResourceContents::BlobResourceContents { mime_type, .. } => (mime_type.clone(), "blob"),
        other => panic!("a file's contents: {other:?}"),
    };
    let skill_md = client.read_resource("skill://visit-planning/SKILL.md").await.expect("read");
    assert_eq!(mime(&skill_md), (Some("text/markdown".into()), "text"));
    let png = client.read_resource("skill://visit-planning/assets/plan.png").await.expect("read");
    assert_eq!(mime(&png), (Some("image/png".into()), "blob"));
    let missing = client.read_resource("skill://visit-planning/NOTES.md").await.expect_err("no such file");
    assert!(missing.to_string().contains("No resource matches the URI `skill://visit-planning/NOTES.md`"), "{missing}");
}

#[tokio::test]
async fn resources_list_shows_each_skill_md_as_the_extension_says() {
    let client = Client::connect(server()).await.expect("connects");
    let resources = client.list_resources().await.expect("resources/list");
    let planning =
        resources.iter().find(|r| r.uri == "skill://visit-planning/SKILL.md").expect("the SKILL.md is listed");
    assert_eq!(planning.name, "visit-planning");
    assert_eq!(planning.mime_type.as_deref(), Some("text/markdown"));
    assert!(planning.description.as_deref().is_some_and(|d| d.starts_with("Plan a visit")));
    assert_eq!(resources.len(), 2, "only each skill's SKILL.md, not every file");
}

#[tokio::test]
async fn skills_get_answers_with_cache_hints_and_refuses_an_unknown_uri() {
    let client = Client::connect(server().skills_ttl(std::time::Duration::from_secs(60))).await.expect("connects");
    let got = client.get_skill("skill://acme/refunds/SKILL.md").await.expect("skills/get");
    assert_eq!(got.skill.frontmatter.name, "refunds");
    assert_eq!((got.ttl_ms, got.cache_scope), (Some(60_000), Some(CacheScope::Public)));
    let unknown = client.get_skill("skill://nowhere/SKILL.md").await.expect_err("no such skill");
    assert_eq!(unknown.code(), JsonRpcErrorCode::InvalidParams, "{unknown}");
    assert!(unknown.to_string().contains("skills/list"), "{unknown}");
}

#[tokio::test]
async fn a_directory_read_lists_direct_children_and_refuses_a_file() {
    let client = Client::connect(server()).await.expect("connects");
    let children = client.read_resource_directory("skill://visit-planning").await.expect("directory read");
    let entries: Vec<(&str, Option<&str>)> =
        children.iter().map(|child| (child.uri.as_str(), child.mime_type.as_deref())).collect();
    assert_eq!(
        entries,
        [
            ("skill://visit-planning/SKILL.md", Some("text/markdown")),
            ("skill://visit-planning/assets", Some("inode/directory")),
            ("skill://visit-planning/references", Some("inode/directory")),
        ]
    );
    let file = client.read_resource_directory("skill://visit-planning/SKILL.md").await.expect_err("a file");
    assert_eq!(file.code(), JsonRpcErrorCode::InvalidParams, "{file}");
}

#[tokio::test]
async fn a_server_without_skills_has_no_skills_methods() {
    let built = Server::new("plain", "1.0.0").tool(TestSimpleText).build().expect("builds");
    assert!(
        built
            .config()
            .capabilities
            .extensions
            .as_ref()
            .is_none_or(|e| !e.contains_key("io.modelcontextprotocol/skills"))
    );
    let client = Client::connect(Server::new("plain", "1.0.0").tool(TestSimpleText)).await.expect("connects");
    let refused = client.list_skills().await.expect_err("not declared");
    assert_eq!(refused.code(), JsonRpcErrorCode::MethodNotFound, "{refused}");
}

/// The test server over Streamable HTTP on a loopback port, until the guard drops.
async fn serving_http() -> (std::net::SocketAddr, tokio_util::sync::DropGuard) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let stop = tokio_util::sync::CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    tokio::spawn(server().build().expect("builds").serve_http_on(listener, options));
    (addr, stop.drop_guard())
}

/// On the stateless revision the cache hints are what the extension requires
/// of both answers; a session's client (2025-11-25) gets them too.
#[tokio::test]
async fn the_stateless_revision_gets_the_same_skills_with_cache_hints() {
    let (addr, _stop) = serving_http().await;

    let list = stateless(addr, "skills/list", json!({})).await;
    let result = &list["result"];
    assert_eq!(result["skills"].as_array().map(Vec::len), Some(2), "{list}");
    assert_eq!((result["ttlMs"].as_u64(), result["cacheScope"].as_str()), (Some(300_000), Some("public")), "{list}");
    assert_eq!(result["resultType"], "complete", "{list}");
    let get = stateless(addr, "skills/get", json!({"uri": "skill://visit-planning/SKILL.md"})).await;
    assert_eq!(get["result"]["skill"]["frontmatter"]["allowed-tools"], "test_simple_text", "{get}");
    let dir = stateless(addr, "resources/directory/read", json!({"uri": "skill://visit-planning/references"})).await;
    assert_eq!(dir["result"]["resources"][0]["uri"], "skill://visit-planning/references/HOURS.md", "{dir}");
    let unknown = stateless(addr, "skills/get", json!({"uri": "skill://nowhere/SKILL.md"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

/// One stateless 2026-07-28 request over HTTP, its JSON-RPC answer.
async fn stateless(addr: std::net::SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "skills", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(uri) = params["uri"].as_str() {
        request = request.header("mcp-name", uri);
    }
    let response = tokio::time::timeout(std::time::Duration::from_secs(10), request.body(body.to_string()).send())
        .await
        .expect("answered in time")
        .expect("sent");
    let text = response.text().await.expect("a body");
    // A JSON body, or one SSE event whose data is the message.
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:").map(str::trim))
        .find(|data| !data.is_empty())
        .unwrap_or(text.as_str());
    serde_json::from_str(json).unwrap_or_else(|err| panic!("{err}: {text}"))
}

#[test]
fn every_problem_of_a_folder_is_reported_at_once_with_its_rule() {
    let scratch = Scratch::new("broken");
    scratch
        .write("Bad_Name/SKILL.md", "---\nname: Bad_Name\ndescription: Broken.\nauthor: me\n---\n")
        .write("no-frontmatter/SKILL.md", "# Just a title\n")
        .write("SKILL.md", "---\nname: root\ndescription: At the root.\n---\n");
    let Err(ServerError::Skills { problems, .. }) = Server::new("broken", "1.0.0").skills_dir(&scratch.0).build()
    else {
        panic!("the folder is refused")
    };
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems.iter().any(|p| p.contains("`SKILL.md` sits at the folder's root") && p.contains("skill-files")));
    assert!(problems.iter().any(|p| p.contains("`name: Bad_Name`") && p.contains("skill-frontmatter")));
    assert!(problems.iter().any(|p| p.contains("`author` is no key") && p.contains("skill-frontmatter")));
    assert!(problems.iter().any(|p| p.contains("no-frontmatter/SKILL.md") && p.contains("frontmatter block")));
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_in_a_skill_is_refused() {
    let scratch = Scratch::new("link");
    scratch.write("search/SKILL.md", "---\nname: search\ndescription: Find objects.\n---\n");
    std::os::unix::fs::symlink("/etc/hostname", scratch.0.join("search/secret.txt")).expect("a link");
    let err = Server::new("link", "1.0.0").skills_dir(&scratch.0).build().expect_err("refused");
    let message = err.to_string();
    assert!(message.contains("`search/secret.txt`") && message.contains("symbolic link"), "{message}");
    assert!(message.contains("skill-files"), "{message}");
}

#[test]
fn a_missing_folder_is_refused() {
    let err = Server::new("missing", "1.0.0").skills_dir("/nonexistent/skills").build().expect_err("refused");
    assert!(err.to_string().contains("/nonexistent/skills"), "{err}");
}

#[test]
fn allowed_tools_naming_an_unserved_tool_is_a_warning() {
    let report = Server::new("skills", "1.0.0").skills_dir(fixture()).lint(None);
    let found: Vec<_> = report.diagnostics.iter().filter(|d| d.rule == "skill-allowed-tools-served").collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("`test_simple_text`"), "{}", found[0].message);
    assert!(server().lint(None).diagnostics.iter().all(|d| !d.rule.starts_with("skill-")), "the tool is served");
}

/// Answers for every file under `skill://visit-planning/`.
#[mcp_resource(uri = "skill://visit-planning/{+path}", name = "planning_files", mime_type = "text/plain")]
fn planning_files(_params: PlanningPath) -> Result<String, McpError> {
    Ok(String::new())
}

#[derive(Deserialize, JsonSchema)]
struct PlanningPath {
    /// The file's path in the skill.
    #[allow(dead_code, reason = "read by the template only")]
    path: String,
}

#[test]
fn a_resource_answering_for_a_skill_file_fails_the_build() {
    let err = server().resource(PlanningFiles).build().expect_err("skill-uri-clash is an error");
    let message = err.to_string();
    assert!(message.contains("skill-uri-clash"), "{message}");
    assert!(message.contains("skill://visit-planning/"), "{message}");
}

/// `embed_skills!` serves the folder from the binary with the very answers
/// `skills_dir` gives from disk.
#[tokio::test]
async fn embedded_skills_answer_as_the_folder_does() {
    let embedded = mcp_contract::embed_skills!("../examples/conformance-skills");
    assert_eq!(embedded.files().len(), 5, "every file of the folder");
    let from_disk = Client::connect(server()).await.expect("connects");
    let from_binary =
        Client::connect(Server::new("skills", "1.0.0").tool(TestSimpleText).skills(embedded)).await.expect("connects");
    let skills = from_disk.list_skills().await.expect("list");
    assert_eq!(from_binary.list_skills().await.expect("list"), skills);
    assert_eq!(from_binary.list_resources().await.expect("list"), from_disk.list_resources().await.expect("list"));
    for skill in &skills {
        let SkillResources::Files(files) = &skill.resources else { panic!("files") };
        for file in files {
            assert_eq!(
                from_binary.read_resource(&file.uri).await.expect("read"),
                from_disk.read_resource(&file.uri).await.expect("read"),
                "{}",
                file.uri
            );
        }
        assert_eq!(
            from_binary.get_skill(&skill.uri).await.expect("get"),
            from_disk.get_skill(&skill.uri).await.expect("get")
        );
    }
    for dir in ["skill://visit-planning", "skill://visit-planning/references", "skill://acme/refunds"] {
        assert_eq!(
            from_binary.read_resource_directory(dir).await.expect("dir"),
            from_disk.read_resource_directory(dir).await.expect("dir"),
            "{dir}"
        );
    }
    let not_a_dir = from_binary.read_resource_directory("skill://acme").await.expect_err("above the skills");
    assert_eq!(not_a_dir.code(), JsonRpcErrorCode::InvalidParams);
}

/// The repository's own skills (`skills/`) are skills this crate serves
/// without a finding, their `allowed-tools` aside (they name none).
#[test]
fn the_repository_skills_are_served_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
    let server = Server::new("mcp-contract", "0.1.0").skills_dir(&dir);
    let report = server.lint(None);
    assert!(report.diagnostics.is_empty(), "{report}");
    let embedded = mcp_contract::embed_skills!("../skills");
    let mut names: Vec<&str> = embedded.files().iter().filter_map(|(path, _)| path.strip_suffix("/SKILL.md")).collect();
    names.sort_unstable();
    assert_eq!(names, ["deploying-servers", "error-contracts", "lint-diagnostics", "testing-servers"]);
    server.build().expect("every skill is valid");
}

/// The landing page and the server card name the skills beside the tools.
#[tokio::test]
async fn the_card_and_the_landing_page_mention_the_skills() {
    let (addr, _stop) = serving_http().await;
    let get = |path: &str| {
        let request = reqwest::Client::new().get(format!("http://{addr}{path}")).header("accept", "text/html");
        async move {
            let response = tokio::time::timeout(std::time::Duration::from_secs(10), request.send())
                .await
                .expect("answered in time")
                .expect("sent");
            response.text().await.expect("a body")
        }
    };
    let card: Value = serde_json::from_str(&get("/.well-known/mcp.json").await).expect("the card is JSON");
    assert_eq!(card["capabilities"]["skills"], true, "{card}");
    let names: Vec<&str> =
        card["skills"].as_array().expect("a list").iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["refunds", "visit-planning"], "{card}");
    let page = get("/").await;
    assert!(page.contains("2 agent skills (skills/list)"), "{page}");
}
