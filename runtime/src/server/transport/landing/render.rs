//! The landing page's HTML: one self-contained document (no external fetch,
//! inline CSS that follows `prefers-color-scheme`, a small inline script for
//! the copy buttons that the page does not need to be read). Every value that
//! reaches it goes through [`esc`] (text and attributes) or [`json_in_script`]
//! (the JSON-LD block); every URL through [`safe_url`], which refuses script
//! and data schemes; the accent only when it is a safe CSS colour.

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::model::{ContractView, FieldView, Manifest, ResourceView, ToolView};
use crate::auth::AuthMode;
use crate::define::{ConnectTab, TaskSupport, is_safe_link, is_safe_logo};
use crate::error::JsonRpcErrorCode;
use crate::lint::{MAX_ENV_EXAMPLE, MAX_LINKS};

/// The page and the CSP that lets exactly its own style and script run.
pub(crate) struct Rendered {
    pub(crate) html: String,
    pub(crate) csp: String,
}

/// Escape `text` for an HTML text node or a quoted attribute value.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `value` as JSON that cannot end a `<script>` element or a line of JavaScript.
fn json_in_script(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// `url` when it may be put in an `href`; `None` for `javascript:` and its kin.
fn safe_url(url: &str) -> Option<&str> {
    is_safe_link(url).then_some(url.trim())
}

/// The fragment id of a name: letters, digits, `-` and `_` kept, the rest as `-`.
fn slug(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect()
}

const SCRIPT: &str = r#"(function(){"use strict";
document.querySelectorAll("[data-copy]").forEach(function(button){
button.hidden=false;
button.addEventListener("click",function(){
var target=document.querySelector(button.getAttribute("data-copy"));
if(!target||!navigator.clipboard){return;}
navigator.clipboard.writeText(target.textContent).then(function(){
var label=button.textContent;button.textContent="Copied";
setTimeout(function(){button.textContent=label;},1500);});});});})();"#;

fn style(accent: &str) -> String {
    format!(
        r#":root{{color-scheme:light dark;--accent:{accent};--bg:#ffffff;--fg:#1f2328;--muted:#57606a;--card:#f6f8fa;--line:#d0d7de;--code:#eef1f4;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e}}
@media (prefers-color-scheme:dark){{:root{{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--card:#161b22;--line:#30363d;--code:#1f2630;--ok:#3fb950;--warn:#d29922;--bad:#ff7b72}}}}
*{{box-sizing:border-box}}
body{{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}}
a{{color:var(--fg);text-decoration-color:var(--accent);text-underline-offset:2px}}
a:focus-visible,button:focus-visible,summary:focus-visible,input:focus-visible+label{{outline:3px solid var(--accent);outline-offset:2px}}
.skip{{position:absolute;left:-999px}}.skip:focus{{left:1rem;top:1rem;background:var(--bg);padding:.5rem}}
main,header,footer{{max-width:64rem;margin:0 auto;padding:1rem 1.25rem}}
header{{border-bottom:4px solid var(--accent)}}
.eyebrow{{text-transform:uppercase;letter-spacing:.08em;font-size:.75rem;color:var(--muted);margin:0}}
.title-row{{display:flex;align-items:center;gap:.75rem;flex-wrap:wrap}}
.title-row h1{{margin:.25rem 0;font-size:2rem;word-break:break-word}}
.logo{{width:48px;height:48px;object-fit:contain}}
.badge{{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:0 .6rem;font-size:.85rem;color:var(--fg);background:var(--card)}}
.tagline{{font-size:1.15rem;color:var(--muted);margin:.25rem 0 1rem}}
.status{{display:flex;gap:1rem;flex-wrap:wrap;list-style:none;padding:0;margin:0 0 1rem;font-size:.9rem;color:var(--muted)}}
code,pre{{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}}
code{{background:var(--code);padding:.05rem .3rem;border-radius:4px;word-break:break-word}}
pre{{background:var(--code);padding:.75rem;border-radius:6px;overflow-x:auto;margin:.25rem 0}}
pre code{{background:none;padding:0}}
.connect{{border:1px solid var(--line);border-radius:8px;padding:.75rem;background:var(--card)}}
.connect h2{{font-size:1.1rem;margin:0 0 .25rem}}
.connect details{{border-top:1px solid var(--line);padding:.35rem 0}}
.connect summary{{cursor:pointer;font-weight:600}}
.connect details[open] summary{{color:var(--accent)}}
.copy{{font:inherit;font-size:.8rem;border:1px solid var(--line);background:var(--bg);color:var(--fg);border-radius:4px;padding:.1rem .5rem;cursor:pointer}}
h2{{font-size:1.4rem;margin:1.75rem 0 .5rem}}
.card{{border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:6px;padding:.75rem 1rem;margin:0 0 1rem;background:var(--card)}}
.card h3{{margin:0;font-size:1.1rem;word-break:break-word}}
.card h3 a{{text-decoration:none}}
.pills{{display:flex;flex-wrap:wrap;gap:.35rem;margin:.35rem 0;padding:0;list-style:none}}
.pill{{font-size:.75rem;border:1px solid var(--line);border-radius:999px;padding:0 .5rem;background:var(--bg)}}
.pill-read{{color:var(--ok)}}.pill-write{{color:var(--warn)}}.pill-destructive{{color:var(--bad);font-weight:600}}.pill-app,.pill-task{{border-color:var(--accent)}}
table{{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:.9rem}}
caption{{text-align:left;font-weight:600;padding:.25rem 0}}
th,td{{border-top:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}}
th{{color:var(--muted);font-weight:600}}
.contract caption{{color:var(--fg)}}
.contract td:first-child code{{white-space:nowrap;word-break:normal}}
.id{{margin:0;color:var(--muted);font-size:.9rem}}
.retry-yes{{color:var(--ok);font-weight:600}}.retry-no{{color:var(--muted)}}
.empty{{color:var(--muted);font-style:italic}}
footer{{border-top:1px solid var(--line);color:var(--muted);font-size:.9rem}}
footer ul{{list-style:none;padding:0;display:flex;gap:1rem;flex-wrap:wrap}}
@media (max-width:40rem){{.contract thead{{display:none}}.contract td{{display:block;border:0}}.contract tr{{display:block;border-top:1px solid var(--line);padding:.25rem 0}}}}"#
    )
}

/// Render the page: the full inventory, or (`full == false`) the reduced page
/// an anonymous caller of a server that requires auth gets. `origin` is the
/// scheme and authority the page was reached at.
pub(crate) fn render(manifest: &Manifest, origin: &str, full: bool) -> Rendered {
    let accent = manifest.landing.accent_or_default();
    let css = style(accent);
    let endpoint = format!("{}{}", origin.trim_end_matches('/'), manifest.endpoint_path);
    let page_url = format!("{}/", origin.trim_end_matches('/'));
    let display_name = manifest.title.as_deref().unwrap_or(&manifest.name);
    let description = manifest.tagline().map_or_else(|| format!("MCP server: {}", manifest.name), str::to_owned);

    let mut html = String::with_capacity(16 * 1024);
    html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(html, "<title>{} · MCP server</title>", esc(display_name));
    let _ = writeln!(html, "<meta name=\"description\" content=\"{}\">", esc(&description));
    let _ = writeln!(html, "<meta name=\"generator\" content=\"mcp-contract {}\">", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(html, "<link rel=\"canonical\" href=\"{}\">", esc(&page_url));
    let _ = writeln!(html, "<meta name=\"theme-color\" content=\"{}\">", esc(accent));
    for (property, content) in [
        ("og:title", display_name),
        ("og:description", &description),
        ("og:type", "website"),
        ("og:site_name", &manifest.name),
        ("og:locale", "en_US"),
        ("og:url", &page_url),
    ] {
        let _ = writeln!(html, "<meta property=\"{property}\" content=\"{}\">", esc(content));
    }
    let logo = manifest.landing.logo.as_deref().map(str::trim).filter(|logo| is_safe_logo(logo));
    if let Some(logo) = logo.filter(|logo| logo.to_ascii_lowercase().starts_with("http")) {
        let _ = writeln!(html, "<meta property=\"og:image\" content=\"{}\">", esc(logo));
    }
    let _ = writeln!(html, "<meta name=\"twitter:card\" content=\"summary\">");
    let _ = writeln!(html, "<meta name=\"twitter:title\" content=\"{}\">", esc(display_name));
    let _ = writeln!(html, "<meta name=\"twitter:description\" content=\"{}\">", esc(&description));
    if let Some(logo) = logo.filter(|logo| logo.to_ascii_lowercase().starts_with("data:image/")) {
        let _ = writeln!(html, "<link rel=\"icon\" href=\"{}\">", esc(logo));
    }
    let _ = writeln!(html, "<link rel=\"mcp-endpoint\" href=\"{}\">", esc(&manifest.endpoint_path));
    html.push_str(
        "<link rel=\"alternate\" type=\"application/json\" href=\"/.well-known/mcp.json\" title=\"MCP server card\">\n",
    );
    let mut ld = json!({
        "@context": "https://schema.org",
        "@type": "SoftwareApplication",
        "name": manifest.name,
        "description": description,
        "applicationCategory": "DeveloperApplication",
        "softwareVersion": manifest.version,
    });
    if let Some(url) = manifest.website_url.as_deref().and_then(safe_url) {
        ld["url"] = url.into();
    }
    let _ = writeln!(html, "<script type=\"application/ld+json\">{}</script>", json_in_script(&ld));
    let _ = writeln!(html, "<style>{css}</style>\n</head>\n<body>");
    html.push_str("<a class=\"skip\" href=\"#main\">Skip to content</a>\n");

    hero(&mut html, manifest, logo, &endpoint, full);
    html.push_str("<main id=\"main\">\n");
    if full {
        tools(&mut html, &manifest.tools, &manifest.resources);
        resources(&mut html, manifest);
        prompts(&mut html, manifest);
        if manifest.tools.is_empty() && manifest.resources.is_empty() && manifest.prompts.is_empty() {
            html.push_str("<p class=\"empty\">This server offers no tools, resources or prompts yet.</p>\n");
        }
    } else {
        html.push_str(
            "<section aria-label=\"Inventory\"><p class=\"empty\">The full server inventory (tools, resources, \
             prompts and how to connect) is shown to authenticated callers: send this page's request with \
             <code>Authorization: Bearer &lt;token&gt;</code>.</p></section>\n",
        );
    }
    html.push_str("</main>\n");
    footer(&mut html, manifest);
    let _ = writeln!(html, "<script>{SCRIPT}</script>\n</body>\n</html>");

    let csp = format!(
        "default-src 'none'; style-src '{}'; script-src '{}'; img-src 'self' data: https:; form-action 'none'; \
         frame-ancestors 'none'; base-uri 'none'",
        sha256_source(&css),
        sha256_source(SCRIPT)
    );
    Rendered { html, csp }
}

/// A CSP hash source: `sha256-<base64>`.
fn sha256_source(text: &str) -> String {
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes())))
}

fn hero(html: &mut String, manifest: &Manifest, logo: Option<&str>, endpoint: &str, full: bool) {
    html.push_str("<header>\n<p class=\"eyebrow\">MCP server</p>\n<div class=\"title-row\">");
    if let Some(logo) = logo {
        let _ = write!(html, "<img class=\"logo\" src=\"{}\" alt=\"\">", esc(logo));
    }
    let _ = write!(html, "<h1>{}</h1>", esc(manifest.title.as_deref().unwrap_or(&manifest.name)));
    let version = esc(&manifest.version);
    match manifest.repo() {
        Some((repo, _)) => {
            let _ = write!(
                html,
                "<a class=\"badge\" href=\"{}/releases/tag/v{version}\" aria-label=\"v{version} release notes\">v{version}</a>",
                esc(&repo)
            );
        }
        None => {
            let _ = write!(html, "<span class=\"badge\">v{version}</span>");
        }
    }
    if let Some(label) = pre_release(&manifest.version) {
        let _ = write!(html, " <span class=\"badge\">{label}</span>");
    }
    html.push_str("</div>\n");
    if manifest.title.is_some() {
        let _ = writeln!(html, "<p class=\"id\">name <code>{}</code></p>", esc(&manifest.name));
    }
    if let Some(tagline) = manifest.tagline() {
        let _ = writeln!(html, "<p class=\"tagline\">{}</p>", esc(tagline));
    }
    html.push_str("<ul class=\"status\" aria-label=\"Status\">");
    let auth = match manifest.auth.mode {
        AuthMode::None => "public: no authentication required",
        AuthMode::Jwt => "bearer token required",
        AuthMode::Oauth => "OAuth required",
    };
    let _ = write!(html, "<li>{auth}</li>");
    if full {
        for (count, singular, plural, anchor) in [
            (manifest.tools.len(), "tool", "tools", "tools"),
            (manifest.resources.len(), "resource", "resources", "resources"),
            (manifest.prompts.len(), "prompt", "prompts", "prompts"),
        ] {
            if count > 0 {
                let noun = if count == 1 { singular } else { plural };
                let _ = write!(html, "<li><a href=\"#section-{anchor}\">{count} {noun}</a></li>");
            }
        }
        // Skills have no section of their own: agents read them with skills/list.
        match manifest.skills.len() {
            0 => {}
            1 => html.push_str("<li>1 agent skill (skills/list)</li>"),
            count => {
                let _ = write!(html, "<li>{count} agent skills (skills/list)</li>");
            }
        }
    }
    let _ = write!(html, "<li>protocol {}</li>", rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE);
    if let Some((repo, short)) = manifest.repo() {
        let _ = write!(html, "<li><a href=\"{}\">github {}</a></li>", esc(&repo), esc(&short));
    }
    html.push_str("</ul>\n");
    if full {
        connect(html, manifest, endpoint);
    } else {
        let _ = writeln!(html, "<p>Endpoint: <code>{}</code></p>", esc(endpoint));
    }
    html.push_str("</header>\n");
}

/// `alpha`, `beta`, `rc` or `pre-1.0` for a version that is not a stable release.
fn pre_release(version: &str) -> Option<&'static str> {
    let lower = version.to_ascii_lowercase();
    if lower.contains("-alpha") {
        Some("alpha")
    } else if lower.contains("-beta") {
        Some("beta")
    } else if lower.contains("-rc") {
        Some("rc")
    } else if lower.starts_with("0.") {
        Some("pre-1.0")
    } else {
        None
    }
}

/// The connect card: one `<details>` per client, the first open, so every
/// snippet can be read and selected without script.
fn connect(html: &mut String, manifest: &Manifest, endpoint: &str) {
    html.push_str(
        "<section class=\"connect\" aria-labelledby=\"connect-heading\">\n<h2 id=\"connect-heading\">Connect</h2>\n",
    );
    let _ = writeln!(html, "<p>Endpoint (Streamable HTTP): <code id=\"endpoint\">{}</code></p>", esc(endpoint));
    for (index, tab) in ConnectTab::ALL.into_iter().enumerate() {
        let snippet = snippet(manifest, endpoint, tab);
        let id = tab.id();
        let open = if index == 0 { " open" } else { "" };
        let _ = writeln!(
            html,
            "<details{open} id=\"connect-{id}\"><summary>{label}</summary><pre id=\"connect-snippet-{id}\"><code>{code}</code></pre>\
             <button type=\"button\" class=\"copy\" data-copy=\"#connect-snippet-{id}\" aria-label=\"Copy the {label} snippet\" hidden>Copy</button></details>",
            label = esc(tab.label()),
            code = esc(&snippet),
        );
    }
    html.push_str("</section>\n");
}

/// The snippet of `tab`: the override when it is not blank, else derived from
/// the endpoint and the auth mode. With `jwt` every client needs the token
/// in a header; with `oauth` the clients discover the authorization server
/// themselves (RFC 9728), so only curl shows the header.
pub(crate) fn snippet(manifest: &Manifest, endpoint: &str, tab: ConnectTab) -> String {
    if let Some((_, text)) =
        manifest.landing.connect_snippets.iter().find(|(known, text)| *known == tab && !text.trim().is_empty())
    {
        return text.clone();
    }
    let name = manifest.short_name();
    let jwt = manifest.auth.mode == AuthMode::Jwt;
    let bearer = "Bearer ${MCP_TOKEN}";
    let pretty = |value: Value| serde_json::to_string_pretty(&value).unwrap_or_default();
    let quoted = shell_quote(endpoint);
    match tab {
        ConnectTab::Claude | ConnectTab::Gemini => {
            let client = if tab == ConnectTab::Claude { "claude" } else { "gemini" };
            let header = if jwt { format!(" \\\n  --header \"Authorization: {bearer}\"") } else { String::new() };
            format!("{client} mcp add --transport http {} {quoted}{header}", shell_quote(name))
        }
        ConnectTab::Codex => {
            let token = if jwt { " \\\n  --bearer-token-env-var MCP_TOKEN" } else { "" };
            format!("codex mcp add {} --url {quoted}{token}", shell_quote(name))
        }
        ConnectTab::Cursor | ConnectTab::Http => {
            let mut server = serde_json::Map::new();
            if tab == ConnectTab::Http {
                server.insert("type".into(), "http".into());
            }
            server.insert("url".into(), endpoint.into());
            if jwt {
                server.insert("headers".into(), json!({ "Authorization": bearer }));
            }
            pretty(json!({ "mcpServers": { name: server } }))
        }
        ConnectTab::Stdio => {
            let mut args = vec![json!("-y"), json!("mcp-remote"), json!(endpoint)];
            let mut env = serde_json::Map::new();
            if jwt {
                args.extend([json!("--header"), json!("Authorization:${MCP_TOKEN_HEADER}")]);
                env.insert("MCP_TOKEN_HEADER".into(), "Bearer <token>".into());
            }
            for (key, value) in manifest.landing.env_example.iter().take(MAX_ENV_EXAMPLE) {
                env.insert(key.clone(), value.clone().into());
            }
            let mut server = json!({ "command": "npx", "args": args });
            if !env.is_empty() {
                server["env"] = Value::Object(env);
            }
            pretty(json!({ "mcpServers": { name: server } }))
        }
        ConnectTab::Curl => {
            let version = rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE;
            let auth = if manifest.auth.mode == AuthMode::None {
                String::new()
            } else {
                "  -H \"Authorization: Bearer $MCP_TOKEN\" \\\n".to_owned()
            };
            let body = json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": { "protocolVersion": version.to_string(), "capabilities": {},
                            "clientInfo": { "name": "curl", "version": "1.0.0" } }
            });
            format!(
                "curl -X POST {quoted} \\\n  -H \"Content-Type: application/json\" \\\n  -H \"Accept: application/json, text/event-stream\" \\\n  -H \"MCP-Protocol-Version: {version}\" \\\n{auth}  -d {}",
                shell_quote(&body.to_string())
            )
        }
    }
}

/// `value` as one shell word: bare when it is only safe characters, else in
/// single quotes.
fn shell_quote(value: &str) -> String {
    if !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c)) {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

fn tools(html: &mut String, tools: &[ToolView], resources: &[ResourceView]) {
    if tools.is_empty() {
        return;
    }
    let _ = writeln!(
        html,
        "<section aria-labelledby=\"section-tools\">\n<h2 id=\"section-tools\">Tools ({})</h2>",
        tools.len()
    );
    for tool in tools {
        let id = slug(&tool.name);
        let _ = write!(html, "<article class=\"card\" id=\"tool-{id}\" aria-labelledby=\"tool-{id}-name\">");
        let _ = write!(html, "<h3 id=\"tool-{id}-name\"><a href=\"#tool-{id}\"><code>{}</code></a>", esc(&tool.name));
        if let Some(title) = &tool.title {
            let _ = write!(html, " · {}", esc(title));
        }
        html.push_str("</h3>");
        html.push_str("<ul class=\"pills\" aria-label=\"Annotations\">");
        let (class, mutability) = match (tool.destructive, tool.read_only) {
            (Some(true), _) => ("pill-destructive", "destructive"),
            (_, Some(true)) => ("pill-read", "read-only"),
            (_, Some(false)) => ("pill-write", "writes"),
            _ => ("", "effects unspecified"),
        };
        let _ = write!(html, "<li class=\"pill {class}\">{mutability}</li>");
        if tool.idempotent == Some(true) {
            html.push_str("<li class=\"pill\">idempotent</li>");
        }
        match tool.open_world {
            Some(true) => html.push_str("<li class=\"pill\">open world</li>"),
            Some(false) => html.push_str("<li class=\"pill\">closed world</li>"),
            None => {}
        }
        match tool.task {
            TaskSupport::Optional => html.push_str("<li class=\"pill pill-task\">task: optional</li>"),
            TaskSupport::Required => html.push_str("<li class=\"pill pill-task\">task: required</li>"),
            TaskSupport::Forbidden => {}
        }
        if tool.app.is_some() {
            html.push_str("<li class=\"pill pill-app\">app</li>");
        }
        html.push_str("</ul>");
        if let Some(description) = &tool.description {
            let _ = write!(html, "<p>{}</p>", esc(description));
        }
        if let Some(uri) = &tool.app {
            // The card of the resource serving it, when this page lists it.
            let resource = resources.iter().find(|resource| resource.uri == *uri);
            let target = match resource {
                Some(resource) => {
                    format!("<a href=\"#resource-{}\"><code>{}</code></a>", slug(&resource.name), esc(uri))
                }
                None => format!("<code>{}</code>", esc(uri)),
            };
            let _ =
                write!(html, "<p class=\"app\">MCP App: hosts that render apps show {target} beside the result.</p>");
        }
        match tool.task {
            TaskSupport::Optional => html.push_str(
                "<p class=\"task\">Runs as a task for a client that declares the tasks extension: the call answers at once with a task to poll with <code>tasks/get</code>.</p>",
            ),
            TaskSupport::Required => html.push_str(
                "<p class=\"task\">Always runs as a task: the client must declare the tasks extension, and polls <code>tasks/get</code> for the result.</p>",
            ),
            TaskSupport::Forbidden => {}
        }
        fields_table(html, &tool.fields, "Input");
        contract_table(html, &tool.errors, &tool.name);
        html.push_str("</article>\n");
    }
    html.push_str("</section>\n");
}

fn fields_table(html: &mut String, fields: &[FieldView], caption: &str) {
    if fields.is_empty() {
        let _ = write!(html, "<p class=\"empty\">{caption}: none.</p>");
        return;
    }
    let _ = write!(
        html,
        "<table><caption>{caption}</caption><thead><tr><th scope=\"col\">Field</th><th scope=\"col\">Type</th>\
         <th scope=\"col\">Required</th><th scope=\"col\">Description</th></tr></thead><tbody>"
    );
    for field in fields {
        let _ = write!(
            html,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            esc(&field.name),
            esc(&field.kind),
            if field.required { "required" } else { "optional" },
            esc(field.description.as_deref().unwrap_or("")),
        );
    }
    html.push_str("</tbody></table>");
}

/// The error contract: what can go wrong, when, and what the caller does then.
fn contract_table(html: &mut String, errors: &[ContractView], name: &str) {
    if errors.is_empty() {
        html.push_str("<p class=\"empty\">No declared failure modes.</p>");
        return;
    }
    let _ = write!(
        html,
        "<table class=\"contract\"><caption>Error contract of <code>{}</code>: {} failure mode{}</caption><thead><tr>\
         <th scope=\"col\">Reason</th><th scope=\"col\">Code</th><th scope=\"col\">When</th>\
         <th scope=\"col\">Recovery</th><th scope=\"col\">Retryable</th></tr></thead><tbody>",
        esc(name),
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    for entry in errors {
        let code_name = i32::try_from(entry.code).ok().and_then(JsonRpcErrorCode::from_i32).map(JsonRpcErrorCode::name);
        let code = match code_name {
            Some(code_name) => format!("<code>{}</code> {}", entry.code, esc(code_name)),
            None => format!("<code>{}</code>", entry.code),
        };
        let retry =
            if entry.retryable { "<span class=\"retry-yes\">yes</span>" } else { "<span class=\"retry-no\">no</span>" };
        let _ = write!(
            html,
            "<tr data-reason=\"{reason}\"><td><code>{reason}</code></td><td>{code}</td><td>{}</td><td>{}</td><td>{retry}</td></tr>",
            esc(&entry.when),
            esc(&entry.recovery),
            reason = esc(&entry.reason),
        );
    }
    html.push_str("</tbody></table>");
}

fn resources(html: &mut String, manifest: &Manifest) {
    if manifest.resources.is_empty() {
        return;
    }
    let _ = writeln!(
        html,
        "<section aria-labelledby=\"section-resources\">\n<h2 id=\"section-resources\">Resources ({})</h2>",
        manifest.resources.len()
    );
    for resource in &manifest.resources {
        let id = slug(&resource.name);
        let _ = write!(html, "<article class=\"card\" id=\"resource-{id}\"><h3><code>{}</code>", esc(&resource.name));
        if let Some(title) = &resource.title {
            let _ = write!(html, " · {}", esc(title));
        }
        html.push_str("</h3><ul class=\"pills\">");
        let _ = write!(html, "<li class=\"pill\">{}</li>", if resource.template { "template" } else { "resource" });
        if let Some(mime) = &resource.mime_type {
            let _ = write!(html, "<li class=\"pill\">{}</li>", esc(mime));
        }
        html.push_str("</ul>");
        if let Some(description) = &resource.description {
            let _ = write!(html, "<p>{}</p>", esc(description));
        }
        let _ = write!(
            html,
            "<p>{} <code>{}</code></p>",
            if resource.template { "URI template" } else { "URI" },
            esc(&resource.uri)
        );
        if !resource.errors.is_empty() {
            contract_table(html, &resource.errors, &resource.name);
        }
        html.push_str("</article>\n");
    }
    html.push_str("</section>\n");
}

fn prompts(html: &mut String, manifest: &Manifest) {
    if manifest.prompts.is_empty() {
        return;
    }
    let _ = writeln!(
        html,
        "<section aria-labelledby=\"section-prompts\">\n<h2 id=\"section-prompts\">Prompts ({})</h2>",
        manifest.prompts.len()
    );
    for prompt in &manifest.prompts {
        let id = slug(&prompt.name);
        let _ = write!(html, "<article class=\"card\" id=\"prompt-{id}\"><h3><code>{}</code>", esc(&prompt.name));
        if let Some(title) = &prompt.title {
            let _ = write!(html, " · {}", esc(title));
        }
        html.push_str("</h3>");
        if let Some(description) = &prompt.description {
            let _ = write!(html, "<p>{}</p>", esc(description));
        }
        fields_table(html, &prompt.arguments, "Arguments");
        html.push_str("</article>\n");
    }
    html.push_str("</section>\n");
}

fn footer(html: &mut String, manifest: &Manifest) {
    html.push_str("<footer>\n<ul aria-label=\"Links\">");
    for link in manifest.landing.links.iter().take(MAX_LINKS) {
        if let Some(href) = safe_url(&link.href).filter(|_| !link.label.trim().is_empty()) {
            let _ = write!(html, "<li><a href=\"{}\">{}</a></li>", esc(href), esc(&link.label));
        }
    }
    if let Some((repo, _)) = manifest.repo() {
        let repo = esc(&repo);
        let version = esc(&manifest.version);
        let _ = write!(
            html,
            "<li><a href=\"{repo}/releases/tag/v{version}\">v{version}</a></li><li><a href=\"{repo}/issues\">Issues</a></li>\
             <li><a href=\"{repo}\">Source</a></li>"
        );
    }
    html.push_str("<li><a href=\"/.well-known/mcp.json\">Server card</a></li>");
    let _ = writeln!(
        html,
        "</ul>\n<p>Built on <a href=\"https://docs.rs/mcp-contract\">mcp-contract</a> v{}.</p>\n</footer>",
        env!("CARGO_PKG_VERSION")
    );
}

#[cfg(test)]
mod tests {
    use super::super::model::{AuthSummary, ContractView, FieldView, PromptView, ResourceView, ToolView};
    use super::*;
    use crate::define::Landing;

    const HOSTILE: &str = "<script>alert(\"x\")</script>' onmouseover='alert(1)";

    fn manifest() -> Manifest {
        Manifest {
            name: "museum".into(),
            title: None,
            version: "1.2.0".into(),
            description: Some("A museum".into()),
            website_url: None,
            landing: Landing::new(),
            auth: AuthSummary::default(),
            endpoint_path: "/mcp".into(),
            stateless: false,
            protocol_version: "2025-11-25".into(),
            tools: vec![ToolView {
                name: "get_object".into(),
                description: Some("Fetch one object".into()),
                read_only: Some(true),
                fields: vec![FieldView {
                    name: "id".into(),
                    kind: "string".into(),
                    required: true,
                    description: Some("The object id".into()),
                }],
                errors: vec![ContractView {
                    reason: "no_match".into(),
                    code: -32001,
                    when: "No object has the id".into(),
                    recovery: "Search for the object first, then fetch it by the id the search returns.".into(),
                    retryable: false,
                }],
                ..ToolView::default()
            }],
            resources: Vec::new(),
            prompts: Vec::new(),
            extensions: Vec::new(),
            skills: Vec::new(),
        }
    }

    fn hostile() -> Manifest {
        let mut m = manifest();
        m.name = format!("evil{HOSTILE}");
        m.title = Some(HOSTILE.into());
        m.version = format!("1.0.0{HOSTILE}");
        m.description = Some(HOSTILE.into());
        m.website_url = Some("javascript:alert(1)".into());
        m.endpoint_path = format!("/mcp{HOSTILE}");
        m.landing = Landing::new()
            .link("javascript:alert(document.cookie)", "click")
            .link("JaVaScRiPt:alert(1)", "click")
            .link("data:text/html,<script>alert(1)</script>", "data")
            .link("https://ok.example/?q=\"><script>", HOSTILE)
            .logo("javascript:alert(1)")
            .env_example("KEY", HOSTILE)
            .connect_snippet(ConnectTab::Claude, HOSTILE)
            .accent("red;}</style><script>alert(1)</script>");
        let tool = &mut m.tools[0];
        tool.name = HOSTILE.into();
        tool.title = Some(HOSTILE.into());
        tool.description = Some(HOSTILE.into());
        tool.fields[0].name = HOSTILE.into();
        tool.fields[0].kind = HOSTILE.into();
        tool.fields[0].description = Some(HOSTILE.into());
        tool.errors[0].reason = HOSTILE.into();
        tool.errors[0].when = HOSTILE.into();
        tool.errors[0].recovery = HOSTILE.into();
        tool.app = Some(HOSTILE.into());
        tool.task = TaskSupport::Optional;
        m.resources.push(ResourceView {
            name: HOSTILE.into(),
            title: Some(HOSTILE.into()),
            description: Some(HOSTILE.into()),
            uri: HOSTILE.into(),
            template: true,
            mime_type: Some(HOSTILE.into()),
            errors: Vec::new(),
        });
        m.prompts.push(PromptView {
            name: HOSTILE.into(),
            title: Some(HOSTILE.into()),
            description: Some(HOSTILE.into()),
            arguments: vec![FieldView { name: HOSTILE.into(), ..FieldView::default() }],
        });
        m
    }

    /// The page's own two scripts (JSON-LD and the copy buttons), and nothing else.
    fn scripts(html: &str) -> usize {
        html.matches("<script").count()
    }

    #[test]
    fn hostile_names_descriptions_and_links_are_escaped() {
        let page = render(&hostile(), "https://museum.example.org", true).html;
        assert_eq!(scripts(&page), 2, "{page}");
        let ld = page.split("application/ld+json\">").nth(1).unwrap().split("</script>").next().unwrap();
        assert!(!ld.contains('<') && ld.contains("\\u003cscript"), "{ld}");
        assert!(!ld.contains("\"url\""), "an unsafe homepage is left out: {ld}");
        // Outside the JSON-LD block (where a quote is only JSON), nothing is raw.
        let page = page.replace(ld, "");
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(!page.contains("' onmouseover='"), "{page}");
        assert!(!page.to_ascii_lowercase().contains("javascript:"), "no script link survives: {page}");
        assert!(!page.contains("data:text/html"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;alert(1)"));
        // The escaped link survives, its label too.
        assert!(page.contains("href=\"https://ok.example/?q=&quot;&gt;&lt;script&gt;\""), "{page}");
        // An unsafe accent never reaches the style; the default stands in.
        assert!(page.contains("--accent:#6366f1;"), "{page}");
        assert!(!page.contains("red;}"), "{page}");
    }

    #[test]
    fn every_section_is_present_or_absent_as_the_definitions_say() {
        let mut m = manifest();
        let page = render(&m, "http://127.0.0.1:8080", true).html;
        assert!(page.contains("id=\"section-tools\""));
        assert!(!page.contains("id=\"section-resources\"") && !page.contains("id=\"section-prompts\""));
        assert!(page.contains("<code>no_match</code>") && page.contains("-32001</code> NotFound"), "{page}");
        assert!(page.contains("The object id") && page.contains("read-only"));
        m.resources.push(ResourceView {
            name: "object".into(),
            uri: "museum://objects/{id}".into(),
            template: true,
            ..Default::default()
        });
        m.prompts.push(PromptView { name: "tour".into(), ..Default::default() });
        let page = render(&m, "http://127.0.0.1:8080", true).html;
        assert!(page.contains("id=\"section-resources\"") && page.contains("museum://objects/{id}"));
        assert!(page.contains("id=\"section-prompts\"") && page.contains("<code>tour</code>"));
        m.tools.clear();
        m.resources.clear();
        m.prompts.clear();
        let page = render(&m, "http://127.0.0.1:8080", true).html;
        assert!(!page.contains("id=\"section-tools\"") && page.contains("no tools, resources or prompts"));
    }

    #[test]
    fn a_tool_shows_its_app_and_its_task_support_only_when_it_has_them() {
        let mut m = manifest();
        let page = render(&m, "http://127.0.0.1:8080", true).html;
        assert!(
            !page.contains("pill pill-app") && !page.contains("MCP App") && !page.contains("pill pill-task"),
            "{page}"
        );
        m.tools[0].app = Some("ui://museum/object-viewer".into());
        m.tools[0].task = TaskSupport::Optional;
        let page = render(&m, "http://127.0.0.1:8080", true).html;
        assert!(page.contains("<li class=\"pill pill-app\">app</li>"), "{page}");
        assert!(page.contains("MCP App: hosts that render apps show <code>ui://museum/object-viewer</code>"), "{page}");
        assert!(page.contains("<li class=\"pill pill-task\">task: optional</li>") && page.contains("tasks/get"));
        // With the app's resource on the page, the tool links its card.
        m.resources.push(ResourceView {
            name: "object_viewer".into(),
            uri: "ui://museum/object-viewer".into(),
            mime_type: Some("text/html;profile=mcp-app".into()),
            ..Default::default()
        });
        m.tools[0].task = TaskSupport::Required;
        let page = render(&m, "http://127.0.0.1:8080", true).html;
        assert!(
            page.contains("<a href=\"#resource-object_viewer\"><code>ui://museum/object-viewer</code></a>"),
            "{page}"
        );
        assert!(page.contains("id=\"resource-object_viewer\""), "the link has its target");
        assert!(page.contains("task: required") && page.contains("Always runs as a task"));
        assert!(!render(&m, "http://127.0.0.1:8080", false).html.contains("pill pill-app"), "not on the reduced page");
    }

    #[test]
    fn the_reduced_page_hides_the_inventory() {
        let page = render(&manifest(), "http://127.0.0.1:8080", false).html;
        assert!(!page.contains("get_object") && !page.contains("no_match") && !page.contains("connect-snippet"));
        assert!(page.contains("<h1>museum</h1>") && page.contains("authenticated callers"));
    }

    #[test]
    fn connect_snippets_follow_the_endpoint_and_the_auth_mode() {
        let mut m = manifest();
        let endpoint = "https://museum.example.org/mcp";
        assert_eq!(
            snippet(&m, endpoint, ConnectTab::Claude),
            "claude mcp add --transport http museum https://museum.example.org/mcp"
        );
        let curl = snippet(&m, endpoint, ConnectTab::Curl);
        assert!(
            curl.contains("Accept: application/json, text/event-stream") && !curl.contains("Authorization"),
            "{curl}"
        );
        let http: Value = serde_json::from_str(&snippet(&m, endpoint, ConnectTab::Http)).unwrap();
        assert_eq!(http, json!({"mcpServers": {"museum": {"type": "http", "url": endpoint}}}));
        m.auth.mode = AuthMode::Jwt;
        m.landing = Landing::new().env_example("MUSEUM_API_KEY", "your-api-key");
        assert!(snippet(&m, endpoint, ConnectTab::Claude).contains("--header \"Authorization: Bearer ${MCP_TOKEN}\""));
        assert!(snippet(&m, endpoint, ConnectTab::Codex).contains("--bearer-token-env-var MCP_TOKEN"));
        let stdio: Value = serde_json::from_str(&snippet(&m, endpoint, ConnectTab::Stdio)).unwrap();
        assert_eq!(stdio["mcpServers"]["museum"]["env"]["MUSEUM_API_KEY"], "your-api-key");
        m.auth.mode = AuthMode::Oauth;
        assert!(!snippet(&m, endpoint, ConnectTab::Claude).contains("Authorization"), "OAuth clients discover");
        assert!(snippet(&m, endpoint, ConnectTab::Curl).contains("Authorization: Bearer $MCP_TOKEN"));
        m.landing = Landing::new().connect_snippet(ConnectTab::Cursor, "mine").connect_snippet(ConnectTab::Codex, " ");
        assert_eq!(snippet(&m, endpoint, ConnectTab::Cursor), "mine");
        assert!(snippet(&m, endpoint, ConnectTab::Codex).starts_with("codex mcp add"), "a blank override falls back");
    }

    #[test]
    fn the_csp_pins_exactly_the_inline_style_and_script() {
        let rendered = render(&manifest(), "http://127.0.0.1:8080", true);
        assert!(!rendered.csp.contains("unsafe-inline"), "{}", rendered.csp);
        let style = rendered.html.split("<style>").nth(1).unwrap().split("</style>").next().unwrap();
        assert!(rendered.csp.contains(&format!("style-src '{}'", sha256_source(style))));
        assert!(rendered.csp.contains(&format!("script-src '{}'", sha256_source(SCRIPT))));
        assert!(rendered.html.contains(&format!("<script>{SCRIPT}</script>")));
    }

    #[test]
    fn the_version_badge_links_the_release_when_a_repo_is_set() {
        let mut m = manifest();
        m.landing = Landing::new().repo_root("https://github.com/acme/museum/").accent("#0f766e");
        let page = render(&m, "http://127.0.0.1:8080", true).html;
        assert!(page.contains("href=\"https://github.com/acme/museum/releases/tag/v1.2.0\""), "{page}");
        assert!(page.contains("--accent:#0f766e;") && page.contains("<meta name=\"theme-color\" content=\"#0f766e\">"));
        assert_eq!(pre_release("0.3.0"), Some("pre-1.0"));
        assert_eq!(pre_release("2.0.0-rc.1"), Some("rc"));
        assert_eq!(pre_release("1.2.0"), None);
    }
}
