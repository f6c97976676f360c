//! End-to-end: the museum example driven by the official MCP clients.
//!
//! - FastMCP 4's Skills client (pinned in tests/e2e/fastmcp/requirements.txt), over
//!   Streamable HTTP: the museum's skill listed, got and every file verified;
//! - Python (`mcp`, pinned in tests/e2e/python/requirements.txt), over stdio and
//!   over Streamable HTTP with sessions and stateless; the virtualenv is created
//!   under `target/e2e/` on first use.
//! - TypeScript (`@modelcontextprotocol/sdk`, pinned in tests/e2e/ts/package-lock.json),
//!   the strict client that validates error results against output schemas;
//!   `npm ci` installs it under `target/e2e/ts/` on first use, so the source
//!   tree never holds a `node_modules`.
//! - TypeScript SDK v2 (`@modelcontextprotocol/client`, pinned in
//!   tests/e2e/ts2/package-lock.json with `@modelcontextprotocol/ext-apps`,
//!   installed under `target/e2e/ts2/`): enrichment, elicitation and sampling.
//! - The museum's MCP App in headless Chromium (Debian's `chromium`, which
//!   `.ci/run` installs), its messages checked against the ext-apps schema.
//!
//! Without `python3`, `node`/`npm` or `chromium` a test that needs one is
//! skipped with how to install it, and fails under CI (`support::needs`).

#![cfg(feature = "rmcp")]

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::needs::{self, CHROMIUM, NODE, NPM, PYTHON3};
use support::{fastmcp_python, profile_dir, root, run, ts2_dir, venv_python};

fn museum() -> PathBuf {
    let path = profile_dir().join("examples").join(format!("museum{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: `cargo test --workspace` builds the examples; after `cargo test --test e2e` alone, \
         run `cargo build --example museum` first",
        path.display()
    );
    path
}

fn collection() -> PathBuf {
    root().join("examples/data/collection.json")
}

fn python_client() -> Command {
    let mut command = Command::new(venv_python());
    command.arg(root().join("tests/e2e/python/museum_client.py")).arg("--data").arg(collection());
    command
}

fn assert_checks_passed(output: &Output, what: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ok: "), "{what} printed no verdict:\n{stdout}");
    eprintln!("{what}: {}", stdout.trim());
}

#[test]
fn python_client_over_stdio() {
    if !needs::all(&[PYTHON3]) {
        return;
    }
    let output = run(python_client().arg("--stdio").arg(museum()), "the Python client over stdio");
    assert_checks_passed(&output, "python/stdio");
}

/// The museum example serving Streamable HTTP on a port the system chose;
/// killed when dropped, unless [`HttpMuseum::terminate`] stopped it first.
struct HttpMuseum {
    child: Child,
    url: String,
    /// What it said on stderr, filled by a thread until it exits.
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl HttpMuseum {
    fn start(extra: &[&str]) -> Self {
        Self::start_with_env(extra, &[])
    }

    fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Self {
        // The panic test writes a backtrace to stderr, which is kept.
        let (child, url, stderr) = support::serve_http_keeping_stderr(
            Command::new(museum())
                .args(["--http", "127.0.0.1:0"])
                .args(extra)
                .env("MUSEUM_TEST_TOOLS", "1")
                .envs(env.iter().copied()),
        );
        Self { child, url, stderr }
    }

    /// SIGTERM, then expect a clean exit within a few seconds: graceful
    /// shutdown. What the server said on stderr, all of it.
    #[cfg(unix)]
    fn terminate(mut self) -> String {
        run(Command::new("kill").args(["-TERM", &self.child.id().to_string()]), "kill -TERM");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited on") {
                assert!(status.success(), "the server did not exit cleanly on SIGTERM: {status}");
                // The thread reading stderr ends with the pipe: give it its last lines.
                let until = Instant::now() + Duration::from_secs(2);
                while std::sync::Arc::strong_count(&self.stderr) > 1 && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned();
            }
            assert!(Instant::now() < deadline, "the server did not stop within 10 s of SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for HttpMuseum {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// FastMCP 4's Skills client (SEP-2640, `fastmcp.skills`) lists the museum's
/// skill over Streamable HTTP, gets it, and reads every file, each checked
/// against the digest and size the listing gave.
#[test]
fn fastmcp_skills_client_reads_and_verifies_the_museums_skill() {
    if !needs::all(&[PYTHON3]) {
        return;
    }
    let server = HttpMuseum::start(&[]);
    let output = run(
        Command::new(fastmcp_python()).arg(root().join("tests/e2e/fastmcp/skills_client.py")).arg(&server.url),
        "the FastMCP skills client",
    );
    assert_checks_passed(&output, "the FastMCP skills client");
    #[cfg(unix)]
    server.terminate();
}

fn python_client_over_http(extra: &[&str], what: &str) {
    if !needs::all(&[PYTHON3]) {
        return;
    }
    let server = HttpMuseum::start(extra);
    let mut client = python_client();
    client.arg("--url").arg(&server.url);
    if extra.contains(&"--stateless") {
        // No session to remember the client's capabilities, carry an answer back or
        // announce resource updates to: the client skips client requests and subscriptions.
        client.arg("--stateless");
    }
    let output = run(&mut client, what);
    assert_checks_passed(&output, what);
    #[cfg(unix)]
    server.terminate();
}

#[test]
fn python_client_over_streamable_http_with_sessions() {
    python_client_over_http(&[], "python/http (sessions)");
}

#[test]
fn python_client_over_stateless_streamable_http() {
    python_client_over_http(&["--stateless"], "python/http (stateless)");
}

/// The museum in auth mode `jwt`: the client mints its tokens with PyJWT, runs
/// the whole exercise with a bearer token holding the museum's scope, then
/// checks the 401 challenge, the metadata and a refused scope.
#[test]
fn python_client_over_streamable_http_with_bearer_tokens() {
    if !needs::all(&[PYTHON3]) {
        return;
    }
    let secret = "e2e-secret-for-loopback-tests-0123456789";
    let server = HttpMuseum::start_with_env(&[], &[("MCP_AUTH_MODE", "jwt"), ("MCP_AUTH_SECRET_KEY", secret)]);
    let what = "python/http (jwt)";
    let output = run(python_client().arg("--url").arg(&server.url).arg("--jwt-secret").arg(secret), what);
    assert_checks_passed(&output, what);
    #[cfg(unix)]
    server.terminate();
}

fn tasks_recipe() -> Command {
    let mut command = Command::new(venv_python());
    command.arg(root().join("tests/e2e/python/tasks_recipe.py"));
    command
}

/// The guide's recipe for tasks from the Python client (raw requests on its
/// session), run against the museum over stdio on 2026-07-28: a task, its
/// progress in `tasks/get`, its result, a refusal of arguments that make no
/// task, `tasks/cancel`; and a `subscriptions/listen` acknowledged under the
/// client's own id (issue 34: it timed out over stdio).
#[test]
fn python_tasks_recipe_over_stdio() {
    if !needs::all(&[PYTHON3]) {
        return;
    }
    let output = run(tasks_recipe().arg("--stdio").arg(museum()), "the Python tasks recipe over stdio");
    assert_checks_passed(&output, "python tasks recipe/stdio");
}

/// The recipe over stateless Streamable HTTP, then a clean shutdown, which
/// logs no error (issue 34: rmcp's "failed to send pending response during
/// drain", for the listen stream whose client had gone).
#[test]
fn python_tasks_recipe_over_stateless_http_and_a_clean_shutdown() {
    if !needs::all(&[PYTHON3]) {
        return;
    }
    let server = HttpMuseum::start(&["--stateless"]);
    let what = "the Python tasks recipe over stateless HTTP";
    let output = run(tasks_recipe().arg("--url").arg(&server.url), what);
    assert_checks_passed(&output, "python tasks recipe/http");
    #[cfg(unix)]
    {
        let stderr = server.terminate();
        let errors: Vec<&str> = stderr.lines().filter(|line| line.contains(" ERROR ")).collect();
        assert!(errors.is_empty(), "a clean shutdown logs no error:\n{}", errors.join("\n"));
    }
}

/// The guide's recipe for tasks from the TypeScript SDK v2 client, run
/// against the museum over stdio: a task, its progress, its result.
#[test]
fn typescript_v2_tasks_recipe_over_stdio() {
    if !needs::all(&[NODE, NPM]) {
        return;
    }
    let output = run(
        Command::new("node").arg("tasks_recipe.mjs").arg(museum()).current_dir(ts2_dir()),
        "the TypeScript v2 tasks recipe",
    );
    assert_checks_passed(&output, "typescript v2 tasks recipe/stdio");
}

/// The recipes the guide shows are the ones the `*_tasks_recipe_*` tests run.
#[test]
fn the_guide_shows_the_tasks_recipes_that_are_tested() {
    let chapter = std::fs::read_to_string(root().join("guide/src/tasks.md")).unwrap();
    for (file, comment) in [("tests/e2e/python/tasks_recipe.py", "#"), ("tests/e2e/ts2/tasks_recipe.mjs", "//")] {
        let script = std::fs::read_to_string(root().join(file)).unwrap();
        let start = script.find(&format!("{comment} --- recipe: ")).expect("the recipe's start marker");
        let end = script.find(&format!("{comment} --- end recipe\n")).expect("the recipe's end marker");
        let recipe = script[start..end].lines().skip(1).collect::<Vec<_>>().join("\n");
        assert!(chapter.contains(recipe.trim()), "guide/src/tasks.md shows {file}'s recipe word for word");
    }
}

/// Regression (issue 34): the server said "serving MCP over stdio; connect a
/// client" before its state factory failed. A state that cannot be built is
/// reported, and nothing announces a server that does not serve.
#[test]
fn a_state_that_cannot_be_built_is_reported_and_serving_never_announced() {
    let missing = std::env::temp_dir().join("mcp-contract-e2e-no-such-dir").join("collection.json");
    for transport in [&[][..], &["--http", "127.0.0.1:0"]] {
        let output = Command::new(museum())
            .arg("--collection")
            .arg(&missing)
            .args(transport)
            .stdin(Stdio::null())
            .output()
            .expect("the museum example runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{transport:?}: {stderr}");
        assert!(stderr.contains("museum: Building the state"), "{transport:?}: the failure is said: {stderr}");
        assert!(!stderr.contains("serving"), "{transport:?}: no announcement: {stderr}");
    }
    // With a state that builds, serving over stdio is announced (stdin closed at once: it ends cleanly).
    let output = Command::new(museum()).stdin(Stdio::null()).output().expect("the museum example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("museum: serving MCP over stdio; connect a client"), "{stderr}");
}

#[test]
fn typescript_client_accepts_error_results_of_tools_with_output_schemas() {
    if !needs::all(&[NODE, NPM]) {
        return;
    }
    let dir = support::node_clients("ts");
    let output = run(
        Command::new("node").arg("strict_client.mjs").arg(museum()).arg(collection()).current_dir(&dir),
        "the TypeScript client",
    );
    assert_checks_passed(&output, "typescript/stdio");
}

#[test]
fn a_client_that_closes_stdin_before_initialize_ends_the_server_cleanly() {
    let output = Command::new(museum()).stdin(Stdio::null()).output().expect("the museum example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: {stderr}", output.status);
    assert!(!stderr.contains("rror"), "nothing failed, nothing is reported: {stderr}");
    assert!(output.stdout.is_empty(), "stdout carries only the protocol");
}

#[test]
fn a_startup_failure_prints_its_message_not_debug_output() {
    let output = Command::new(museum()).args(["--http", "127.0.0.1:99999"]).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.starts_with("museum: "), "{stderr}");
    assert!(!stderr.contains("Io(") && !stderr.contains("Custom {"), "no Debug form: {stderr}");
}

/// The protocol schema the MCP Apps SDK ships (`McpUi*` definitions), and a
/// check of one value against one of its definitions.
struct AppsSchema(serde_json::Value);

impl AppsSchema {
    fn load() -> Self {
        let path = ts2_dir().join("node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        Self(serde_json::from_str(&text).expect("the SDK's schema is JSON"))
    }

    fn check(&self, definition: &str, value: &serde_json::Value, what: &str) {
        // Each definition is a schema of its own (its `$ref`s point into its own `$defs`).
        let schema =
            self.0["$defs"].get(definition).unwrap_or_else(|| panic!("the ext-apps schema has no {definition}"));
        let validator = jsonschema::draft202012::new(schema).expect("the SDK's schema compiles");
        let errors: Vec<String> =
            validator.iter_errors(value).map(|err| format!("{} at {}", err, err.instance_path())).collect();
        assert!(errors.is_empty(), "{what} is no valid {definition}: {errors:#?}\n{value:#}");
    }
}

/// The ext-apps definition of a message (`{method, params}`, the JSON-RPC
/// envelope aside) by its method, and of the result that answers it.
fn apps_definitions(method: &str) -> (&'static str, Option<&'static str>) {
    match method {
        "ui/initialize" => ("McpUiInitializeRequest", Some("McpUiInitializeResult")),
        "ui/notifications/initialized" => ("McpUiInitializedNotification", None),
        "ui/notifications/tool-input" => ("McpUiToolInputNotification", None),
        "ui/notifications/tool-result" => ("McpUiToolResultNotification", None),
        "ui/notifications/size-changed" => ("McpUiSizeChangedNotification", None),
        other => panic!("a message the test host does not expect: {other}"),
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' && at + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).expect("ascii");
            out.push(u8::from_str_radix(hex, 16).expect("a percent escape"));
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

/// The text of the element `<tag id="id">` in Chromium's dump, unescaped.
fn element_text(dom: &str, tag: &str, id: &str) -> String {
    let open = format!("<{tag} id=\"{id}\">");
    let start = dom.find(&open).unwrap_or_else(|| panic!("no #{id} in the DOM:\n{dom}")) + open.len();
    let end = start + dom[start..].find(&format!("</{tag}>")).expect("the element closes");
    dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// JSON for a `<script type="application/json">` block: `<`, `>` and `&`
/// escaped, so no `</script>` in the app's HTML can end the block.
fn script_json(value: &serde_json::Value) -> String {
    value.to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// The museum's MCP App end to end: the Python client lists get_object with its
/// `_meta.ui.resourceUri`, reads the object viewer's HTML and calls get_object
/// (`--app-fixture`); headless Chromium then renders that HTML inside a test
/// host page that hands it the call's result over the extension's postMessage
/// protocol, and the DOM shows the object's title (and, for a failed call, its
/// error). Every message both ways, and the resource's and the tool's `_meta.ui`,
/// are checked against the protocol schema of `@modelcontextprotocol/ext-apps`.
#[test]
fn the_object_viewer_renders_a_get_object_result_in_headless_chromium() {
    if !needs::all(&[PYTHON3, NODE, NPM]) {
        return;
    }
    let Some(chromium) = needs::find(CHROMIUM) else { return };
    let out = profile_dir().parent().expect("target/").join("e2e/apps");
    std::fs::create_dir_all(&out).expect("target/e2e/apps is writable");
    let fixture_path = out.join("fixture.json");
    let _ = std::fs::remove_file(&fixture_path);
    let what = "the Python client's MCP App checks";
    let output = run(python_client().arg("--stdio").arg(museum()).arg("--app-fixture").arg(&fixture_path), what);
    assert_checks_passed(&output, what);
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fixture_path).expect("the client wrote the fixture")).unwrap();

    let schema = AppsSchema::load();
    schema.check("McpUiResourceMeta", &fixture["resourceMeta"], "the object viewer's _meta.ui");
    schema.check("McpUiToolMeta", &fixture["tool"]["_meta"]["ui"], "get_object's _meta.ui");

    let template = std::fs::read_to_string(root().join("tests/e2e/apps/host.html")).expect("the host page");
    let title = fixture["result"]["structuredContent"]["title"].as_str().expect("a title").to_owned();
    let error = fixture["errorResult"]["content"][0]["text"].as_str().expect("an error text").to_owned();
    for (name, result, shown, state) in
        [("result", &fixture["result"], &title, "rendered"), ("error", &fixture["errorResult"], &error, "error")]
    {
        let mut handed = fixture.clone();
        handed["result"] = result.clone();
        let page = out.join(format!("host-{name}.html"));
        std::fs::write(&page, template.replace("__FIXTURE__", &script_json(&handed))).expect("the host page writes");
        let profile = out.join(format!("chromium-profile-{}-{name}", std::process::id()));
        let started = Instant::now();
        let dom = run(
            Command::new(&chromium)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--no-first-run",
                ])
                .arg(format!("--user-data-dir={}", profile.display()))
                .args(["--virtual-time-budget=5000", "--dump-dom"])
                .arg(format!("file://{}", page.display()))
                .stdin(Stdio::null()),
            "chromium --dump-dom",
        );
        assert!(started.elapsed() < Duration::from_secs(120), "chromium took {:?}", started.elapsed());
        let _ = std::fs::remove_dir_all(&profile);
        let dom = String::from_utf8_lossy(&dom.stdout);
        assert_eq!(element_text(&dom, "output", "host-status"), "rendered", "the app rendered the {name}:\n{dom}");
        assert_eq!(element_text(&dom, "output", "rendered-title"), *shown, "the app shows the {name}");
        assert_eq!(element_text(&dom, "output", "rendered-state"), state);

        let log: serde_json::Value = serde_json::from_str(&percent_decode(&element_text(&dom, "pre", "message-log")))
            .expect("the host's message log is JSON");
        let log = log.as_array().expect("a list");
        let mut asked = std::collections::HashMap::new();
        let mut order = Vec::new();
        for entry in log {
            let from = entry["from"].as_str().unwrap();
            let message = &entry["message"];
            assert_eq!(message["jsonrpc"], "2.0", "{from} sent no JSON-RPC 2.0: {message}");
            if let Some(method) = message["method"].as_str() {
                let (definition, result) = apps_definitions(method);
                let mut body = message.as_object().unwrap().clone();
                body.remove("jsonrpc");
                if let Some(id) = body.remove("id") {
                    asked.insert(id.to_string(), result.expect("a request has a result definition"));
                }
                schema.check(definition, &serde_json::Value::Object(body), &format!("{method} from the {from}"));
                order.push(format!("{from} {method}"));
            } else {
                let definition = asked.get(&message["id"].to_string()).expect("a response to a request");
                assert!(message.get("error").is_none(), "{from} answered with an error: {message}");
                schema.check(definition, &message["result"], &format!("the {from}'s {definition}"));
                order.push(format!("{from} {definition}"));
            }
        }
        let expected_start = [
            "app ui/initialize",
            "host McpUiInitializeResult",
            "app ui/notifications/initialized",
            "host ui/notifications/tool-input",
            "host ui/notifications/tool-result",
        ];
        assert_eq!(order[..5], expected_start, "the handshake in order: {order:?}");
        if state == "rendered" {
            assert!(
                order.contains(&"app ui/notifications/size-changed".to_owned()),
                "the app reports its size: {order:?}"
            );
        }
    }
}

/// The TypeScript SDK v2 client (`@modelcontextprotocol/client`) over stdio:
/// search_objects' enrichment in `structuredContent` and its trailer in
/// `content[]`, and the museum's client requests answered: take_off_view's
/// elicitation (declined, then confirmed) and summarize_object's sampling.
#[test]
fn typescript_v2_client_sees_enrichment_and_answers_elicitation_and_sampling() {
    if !needs::all(&[NODE, NPM]) {
        return;
    }
    let output = run(
        Command::new("node").arg("museum_client.mjs").arg(museum()).arg(collection()).current_dir(ts2_dir()),
        "the TypeScript v2 client",
    );
    assert_checks_passed(&output, "typescript-v2/stdio");
}
