//! What a browser and a registry see of a server on Streamable HTTP: the
//! landing page at `GET /`, `robots.txt`, the server card and the status
//! document, over real loopback servers, with and without auth; and the
//! museum's page in a real browser.
//!
//! The browser test runs Debian's `chromium` headless (`.ci/run` installs it);
//! without it the test is skipped with how to install it, and fails under CI.

#![cfg(all(feature = "rmcp", feature = "auth"))]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_contract::auth::AuthConfig;
use mcp_contract::prelude::*;
use mcp_contract::server::{ConnectTab, Landing};
use mcp_contract::server::{HttpOptions, Server};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

#[path = "../runtime/tests/support/needs.rs"]
mod needs;

const SECRET: &str = "landing-test-secret-0123456789abcdef";

#[derive(Deserialize, JsonSchema)]
pub struct LookupInput {
    /// The object's id, e.g. 436535.
    pub object_id: u32,
}

/// Look one object up.
#[mcp_tool(
    annotations(read_only, open_world = false),
    errors(
        not_in_collection(code = NotFound, when = "No object has this ID",
            recovery = "Search with search_objects first to find valid object IDs."),
    ),
)]
async fn lookup(input: LookupInput, ctx: Ctx) -> Result<String, McpError> {
    Err(ctx.fail(not_in_collection, format!("No object {}.", input.object_id)))
}

/// Show one object in the object viewer.
#[mcp_tool(app = "ui://museum/object-viewer", task(optional))]
async fn show_object(input: LookupInput) -> Result<String, McpError> {
    Ok(format!("Object {}", input.object_id))
}

/// The object viewer's HTML.
#[mcp_resource(uri = "ui://museum/object-viewer", name = "object_viewer", ui)]
fn object_viewer() -> Result<String, McpError> {
    Ok("<!doctype html><title>Object viewer</title>".into())
}

/// A server on a loopback port; stops when dropped.
struct Served {
    base: String,
    stop: CancellationToken,
    http: reqwest::Client,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn serve(server: Server) -> Served {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    let server = server.build().expect("the server builds");
    tokio::spawn(server.serve_http_on(listener, options));
    Served { base, stop, http: reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap() }
}

fn museum_server() -> Server {
    Server::new("museum", "1.2.0")
        .description("A museum collection.")
        .tool(Lookup)
        .landing(Landing::new().repo_root("https://github.com/acme/museum").accent("#0f766e"))
}

impl Served {
    async fn get(&self, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
        let mut request = self.http.get(format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("the server answers")
    }
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response.headers().get(name).and_then(|value| value.to_str().ok()).unwrap_or("")
}

fn token() -> String {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({ "sub": "visitor", "iat": now, "exp": now + 600 });
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &EncodingKey::from_secret(SECRET.as_bytes()).unwrap())
        .unwrap()
}

/// The status document is answered behind the `Origin` check: a foreign
/// origin gets its 403, the server's own origin the document.
#[tokio::test]
async fn the_status_document_is_behind_the_origin_check() {
    let served = serve(museum_server().auth(AuthConfig::none())).await;
    let foreign = served.get("/mcp", &[("accept", "application/json"), ("origin", "http://evil.example")]).await;
    assert_eq!(foreign.status(), 403);
    let own = served.get("/mcp", &[("accept", "application/json"), ("origin", &served.base)]).await;
    assert_eq!(own.status(), 200);
    assert_eq!(header(&own, "cache-control"), "no-store");
    let status: Value = own.text().await.map(|t| serde_json::from_str(&t).unwrap()).unwrap();
    assert_eq!(status["status"], "ok");
}

#[tokio::test]
async fn the_page_card_status_and_robots_without_auth() {
    let served = serve(museum_server().auth(AuthConfig::none())).await;

    let page = served.get("/", &[]).await;
    assert_eq!(page.status(), 200);
    assert_eq!(header(&page, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(&page, "cache-control"), "public, max-age=60");
    assert_eq!(header(&page, "x-content-type-options"), "nosniff");
    let csp = header(&page, "content-security-policy").to_owned();
    assert!(csp.starts_with("default-src 'none'; style-src 'sha256-") && !csp.contains("unsafe"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'") && csp.contains("base-uri 'none'"), "{csp}");
    let html = page.text().await.unwrap();
    assert!(html.contains("<code>lookup</code>") && html.contains("<code>not_in_collection</code>"), "{html}");
    assert!(html.contains(&format!("claude mcp add --transport http museum {}/mcp", served.base)), "{html}");
    assert!(html.contains("<meta name=\"theme-color\" content=\"#0f766e\">"));
    assert!(html.contains("href=\"https://github.com/acme/museum/releases/tag/v1.2.0\""));
    assert!(html.contains(&format!("<meta property=\"og:url\" content=\"{}/\">", served.base)));

    let robots = served.get("/robots.txt", &[]).await;
    assert_eq!(header(&robots, "content-type"), "text/plain; charset=utf-8");
    assert_eq!(robots.text().await.unwrap(), "User-agent: *\nAllow: /\nDisallow: /mcp\n");

    let card = served.get("/.well-known/mcp.json", &[]).await;
    assert_eq!(header(&card, "cache-control"), "public, max-age=3600");
    assert_eq!(header(&card, "access-control-allow-origin"), "*");
    let card: Value = card.text().await.map(|t| serde_json::from_str(&t).unwrap()).unwrap();
    assert_eq!(card["server_name"], "museum");
    assert_eq!(card["server_version"], "1.2.0");
    assert_eq!(card["server_description"], "A museum collection.");
    assert_eq!(card["endpoints"]["streamable_http"], format!("{}/mcp", served.base));
    assert_eq!(card["capabilities"], json!({"tools": true, "resources": false, "prompts": false, "logging": true}));
    assert_eq!(card["authentication"], json!({"required": false, "type": "none"}));
    assert!(card["mcp_version"].as_str().is_some_and(|v| v.len() == 10), "{card}");
    assert!(card["generated_at"].as_str().is_some_and(|t| t.ends_with('Z')), "{card}");

    let status: Value = served
        .get("/mcp", &[("accept", "application/json")])
        .await
        .text()
        .await
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap();
    assert_eq!(status["status"], "ok");
    assert_eq!(status["server"]["name"], "museum");
    assert_eq!(status["server"]["version"], "1.2.0");
    assert_eq!(status["server"]["transport"], "streamable-http");
    assert_eq!(status["auth"]["mode"], "none");
    assert!(status["protocolVersions"].as_array().is_some_and(|v| v.iter().any(|v| v == "2025-06-18")), "{status}");
    assert_eq!(status["extensions"], json!({}), "no app, no task: no extension");

    // An SSE `Accept` still reaches the transport, which wants a session for a GET.
    let stream = served.get("/mcp", &[("accept", "text/event-stream")]).await;
    assert_ne!(stream.status(), 200, "the status document does not shadow the SSE stream");
}

#[tokio::test]
async fn behind_auth_anonymous_viewers_get_the_reduced_page() {
    let served = serve(museum_server().auth(AuthConfig::jwt(SECRET))).await;

    let anonymous = served.get("/", &[]).await;
    assert_eq!(anonymous.status(), 200);
    assert_eq!(header(&anonymous, "cache-control"), "private, max-age=60");
    assert_eq!(header(&anonymous, "vary"), "Authorization");
    let html = anonymous.text().await.unwrap();
    assert!(html.contains("<h1>museum</h1>") && html.contains("authenticated callers"), "{html}");
    assert!(!html.contains("lookup") && !html.contains("not_in_collection"), "no inventory: {html}");

    let forged = served.get("/", &[("authorization", "Bearer not.a.token")]).await.text().await.unwrap();
    assert!(!forged.contains("not_in_collection"), "a token that does not verify gets the reduced page");

    let bearer = format!("Bearer {}", token());
    let signed_in = served.get("/", &[("authorization", &bearer)]).await;
    assert_eq!(header(&signed_in, "vary"), "Authorization");
    let html = signed_in.text().await.unwrap();
    assert!(html.contains("<code>not_in_collection</code>"), "{html}");
    assert!(html.contains("--header &quot;Authorization: Bearer ${MCP_TOKEN}&quot;"), "jwt snippets carry the header");

    let card: Value =
        served.get("/.well-known/mcp.json", &[]).await.text().await.map(|t| serde_json::from_str(&t).unwrap()).unwrap();
    assert_eq!(card["authentication"], json!({"required": true, "type": "jwt"}));
    assert_eq!(card["server_name"], "museum");

    let status: Value = served.get("/mcp", &[]).await.text().await.map(|t| serde_json::from_str(&t).unwrap()).unwrap();
    assert_eq!(status, json!({"status": "ok"}), "behind auth the status names nothing");

    // The endpoint itself still wants the token.
    let call = served
        .http
        .post(format!("{}/mcp", served.base))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(call.status(), 401);
}

#[tokio::test]
async fn oauth_cards_name_the_authorization_server() {
    let config = AuthConfig::oauth("https://issuer.example.org", "https://museum.example.org/mcp")
        .with_jwks_uri("https://issuer.example.org/jwks.json");
    let served = serve(museum_server().auth(config)).await;
    let card: Value =
        served.get("/.well-known/mcp.json", &[]).await.text().await.map(|t| serde_json::from_str(&t).unwrap()).unwrap();
    assert_eq!(
        card["authentication"],
        json!({
            "required": true, "type": "oauth",
            "authorization_servers": ["https://issuer.example.org"],
            "audience": "https://museum.example.org/mcp",
            "jwks_uri": "https://issuer.example.org/jwks.json",
        })
    );
}

#[tokio::test]
async fn a_disabled_page_leaves_the_card() {
    let served = serve(Server::new("museum", "1.2.0").tool(Lookup).landing(Landing::disabled())).await;
    assert_eq!(served.get("/", &[]).await.status(), 404);
    assert_eq!(served.get("/robots.txt", &[]).await.status(), 404);
    assert_eq!(served.get("/.well-known/mcp.json", &[]).await.status(), 200);
}

#[test]
fn a_bad_landing_config_fails_the_build_with_its_rule() {
    let err = Server::new("museum", "1.0.0")
        .landing(Landing::new().accent("red;}</style>").connect_snippet(ConnectTab::Curl, ""))
        .build()
        .expect_err("an unsafe accent is an error");
    let text = err.to_string();
    assert!(text.contains("landing-theme-accent-format"), "{text}");
    assert!(text.contains("landing-connect-snippets-empty"), "the warning is in the report too: {text}");
    let report = Server::new("museum", "1.0.0").landing(Landing::new().link("javascript:alert(1)", "x")).lint(None);
    assert_eq!(report.diagnostics.iter().map(|d| d.rule).collect::<Vec<_>>(), ["landing-link-href"]);
}

// ------------------------------------------------------------------ the browser

fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    exe.parent().and_then(Path::parent).expect("the test binary lies in target/<profile>/deps").to_path_buf()
}

/// Kills the museum when the test ends, however it ends.
struct Museum(Child);

impl Drop for Museum {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The museum example on a loopback port, and its base URL.
fn start_museum() -> (Museum, String) {
    let binary = profile_dir().join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.exists(),
        "{} is missing: `cargo test --workspace` builds the examples; after `cargo test --test landing` alone, run \
         `cargo build --example museum` first",
        binary.display()
    );
    let mut child = Command::new(binary)
        .args(["--http", "127.0.0.1:0"])
        .env("MCP_AUTH_MODE", "none")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the museum starts");
    let stderr = child.stderr.take().expect("piped stderr");
    let museum = Museum(child);
    let (found, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.split("serving Streamable HTTP at ").nth(1) {
                let _ = found.send(url.trim_end_matches("/mcp").to_owned());
            }
        }
    });
    let base = lines.recv_timeout(Duration::from_secs(30)).expect("the museum says where it listens within 30 s");
    (museum, base)
}

fn headless(browser: &Path, profile: &Path, extra: &[&str], url: &str) -> std::process::Output {
    let mut command = Command::new(browser);
    command
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null());
    let started = Instant::now();
    let output = command.output().expect("chromium runs");
    assert!(started.elapsed() < Duration::from_secs(120), "chromium took {:?}", started.elapsed());
    output
}

/// The museum's landing page as headless Chromium renders it: the DOM has
/// every tool, a contract reason and the connect snippet of this very
/// endpoint; the screenshot lands in `target/landing/museum.png`.
#[test]
fn the_museum_page_in_headless_chromium() {
    let Some(browser) = needs::find(needs::CHROMIUM) else { return };
    let (_museum, base) = start_museum();
    let out = profile_dir().parent().expect("target/").join("landing");
    std::fs::create_dir_all(&out).unwrap();
    let profile = out.join(format!("chromium-profile-{}", std::process::id()));

    let dom = headless(&browser, &profile, &["--dump-dom"], &format!("{base}/"));
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.status.success(), "chromium failed: {}", String::from_utf8_lossy(&dom.stderr));
    for tool in ["search_objects", "get_object", "get_object_image", "collection_stats"] {
        assert!(dom_text.contains(&format!("<code>{tool}</code>")), "the DOM lacks the tool {tool}: {dom_text}");
    }
    assert!(dom_text.contains("<code>not_in_collection</code>"), "the DOM lacks a contract reason");
    // get_object's MCP App links the object viewer's card; export_department may run as a task.
    assert!(
        dom_text.contains("<a href=\"#resource-object_viewer\"><code>ui://museum/object-viewer</code></a>"),
        "the DOM lacks get_object's app"
    );
    assert!(dom_text.contains("task: optional"), "the DOM lacks export_department's task support");
    assert!(
        dom_text.contains(&format!("claude mcp add --transport http museum {base}/mcp")),
        "the DOM lacks the connect snippet of {base}/mcp"
    );
    assert!(dom_text.contains("Museum collection (offline example)"));

    let screenshot = out.join("museum.png");
    let _ = std::fs::remove_file(&screenshot);
    let shot = headless(
        &browser,
        &profile,
        &[&format!("--screenshot={}", screenshot.display()), "--window-size=1200,1600", "--hide-scrollbars"],
        &format!("{base}/"),
    );
    assert!(shot.status.success(), "chromium failed: {}", String::from_utf8_lossy(&shot.stderr));
    let png = std::fs::read(&screenshot).expect("the screenshot is written");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} is not a real screenshot", screenshot.display());
    let _ = std::fs::remove_dir_all(&profile);
}

/// The server card answers any origin, since browsers and registries read it
/// cross-origin (CORS `*`, as SEP-1649 and SEP-2127 ask); the page and the
/// MCP endpoint still refuse an origin the server does not allow.
#[tokio::test]
async fn the_card_answers_every_origin_and_the_rest_keeps_the_origin_check() {
    let served = serve(museum_server().auth(AuthConfig::none())).await;
    let foreign = [("origin", "https://registry.example")];

    let card = served.get("/.well-known/mcp.json", &foreign).await;
    assert_eq!(card.status(), 200);
    assert_eq!(header(&card, "access-control-allow-origin"), "*");
    let card: Value = serde_json::from_str(&card.text().await.unwrap()).unwrap();
    assert_eq!(card["server_name"], "museum");

    let preflight = served
        .http
        .request(reqwest::Method::OPTIONS, format!("{}/.well-known/mcp.json", served.base))
        .header("origin", "https://registry.example")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    assert_eq!(header(&preflight, "access-control-allow-origin"), "*");
    assert_eq!(header(&preflight, "access-control-allow-methods"), "GET");

    assert_eq!(served.get("/", &foreign).await.status(), 403, "the page keeps the Origin check");
    assert_eq!(served.get("/robots.txt", &foreign).await.status(), 403);
    let call = served
        .http
        .post(format!("{}/mcp", served.base))
        .header("origin", "https://registry.example")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(call.status(), 403, "the MCP endpoint keeps the Origin check");
}

/// With the endpoint at the card's own path there is no card, and that path is
/// the MCP endpoint, behind the Origin check like any endpoint.
#[tokio::test]
async fn an_endpoint_at_the_card_path_keeps_the_origin_check() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let options =
        HttpOptions::default().path("/.well-known/mcp.json").shutdown_token(stop.clone()).without_signal_handling();
    tokio::spawn(museum_server().auth(AuthConfig::none()).build().unwrap().serve_http_on(listener, options));
    let answer = reqwest::Client::new()
        .get(format!("{base}/.well-known/mcp.json"))
        .header("origin", "https://registry.example")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 403);
    stop.cancel();
}

/// The extensions the server advertises reach the status document (as the
/// reference's `extensions` booleans), and the page shows the tool's app and
/// task support.
#[tokio::test]
async fn the_status_names_the_extensions_and_the_page_the_app_and_the_task() {
    let server = museum_server().tool(ShowObject).resource(ObjectViewer).auth(AuthConfig::none());
    let served = serve(server).await;
    let status: Value =
        serde_json::from_str(&served.get("/mcp", &[("accept", "application/json")]).await.text().await.unwrap())
            .unwrap();
    assert_eq!(
        status["extensions"],
        json!({"io.modelcontextprotocol/ui": true, "io.modelcontextprotocol/tasks": true}),
        "{status}"
    );
    let html = served.get("/", &[]).await.text().await.unwrap();
    assert!(html.contains("<a href=\"#resource-object_viewer\"><code>ui://museum/object-viewer</code></a>"), "{html}");
    assert!(html.contains("task: optional"), "{html}");
}
