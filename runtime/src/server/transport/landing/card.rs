//! The machine views of the manifest: the server card at
//! `/.well-known/mcp.json`, the status document at `GET <endpoint>`, and the
//! MCP registry's `server.json`.
//!
//! The card has the fields the reference framework serves, its reading of
//! SEP-1649 (snake_case, at `/.well-known/mcp.json`). SEP-2127, which
//! supersedes SEP-1649, is still a Draft whose shape keeps changing (no
//! capabilities or auth, a card under the endpoint); it is not served yet.

use std::time::SystemTime;

use serde_json::{Map, Value, json};

use super::model::Manifest;
use crate::auth::AuthMode;
use crate::lint::GITHUB_REPO_ROOT;
use rmcp::model::Implementation;

/// `$schema` of the `server.json` this crate writes, the registry's schema the
/// `server-json-*` rules follow.
pub(crate) const SERVER_JSON_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The most characters of a `server.json` description (rule `server-json-description-length`).
const MAX_DESCRIPTION: usize = 100;

pub(super) fn card(manifest: &Manifest, origin: &str, generated_at: &str) -> Value {
    let mut card = Map::new();
    card.insert("mcp_version".into(), manifest.protocol_version.clone().into());
    card.insert("server_name".into(), manifest.name.clone().into());
    card.insert("server_version".into(), manifest.version.clone().into());
    if let Some(description) = &manifest.description {
        card.insert("server_description".into(), description.clone().into());
    }
    card.insert(
        "endpoints".into(),
        json!({ "streamable_http": format!("{}{}", origin.trim_end_matches('/'), manifest.endpoint_path) }),
    );
    card.insert("capabilities".into(), capabilities(manifest));
    if !manifest.skills.is_empty() {
        // What skills/list gives in full, named so a reader of the card knows to ask.
        let skills: Vec<Value> = manifest
            .skills
            .iter()
            .map(|skill| json!({ "uri": skill.uri, "name": skill.name, "description": skill.description }))
            .collect();
        card.insert("skills".into(), skills.into());
    }
    let auth = &manifest.auth;
    let mut authentication = Map::new();
    authentication.insert("required".into(), (auth.mode != AuthMode::None).into());
    authentication.insert("type".into(), auth.mode.as_str().into());
    if let Some(resource) = &auth.resource {
        authentication.insert("resource_identifier".into(), resource.clone().into());
    }
    if auth.mode == AuthMode::Oauth {
        if let Some(issuer) = &auth.issuer {
            authentication.insert("authorization_servers".into(), json!([issuer]));
        }
        if let Some(audience) = &auth.audience {
            authentication.insert("audience".into(), audience.clone().into());
        }
        if let Some(jwks) = &auth.jwks_uri {
            authentication.insert("jwks_uri".into(), jwks.clone().into());
        }
    }
    card.insert("authentication".into(), Value::Object(authentication));
    if let Some(documentation) = &manifest.website_url {
        card.insert("documentation".into(), documentation.clone().into());
    }
    card.insert("generated_at".into(), generated_at.into());
    Value::Object(card)
}

fn capabilities(manifest: &Manifest) -> Value {
    let mut capabilities = json!({
        "tools": !manifest.tools.is_empty(),
        "resources": !manifest.resources.is_empty(),
        "prompts": !manifest.prompts.is_empty(),
        "logging": true,
    });
    // Only on a server with skills: the card's readers know the other four.
    if !manifest.skills.is_empty() {
        capabilities["skills"] = true.into();
    }
    capabilities
}

/// The status document: everything with auth off, only `ok` with auth on
/// (it answers before the bearer check, so it names nothing).
pub(super) fn status(manifest: &Manifest) -> Value {
    if manifest.auth.mode != AuthMode::None {
        return json!({ "status": "ok" });
    }
    let mut server = Map::new();
    server.insert("name".into(), manifest.name.clone().into());
    server.insert("version".into(), manifest.version.clone().into());
    if let Some(description) = &manifest.description {
        server.insert("description".into(), description.clone().into());
    }
    if let Some(homepage) = &manifest.website_url {
        server.insert("homepage".into(), homepage.clone().into());
    }
    server.insert("transport".into(), "streamable-http".into());
    server.insert("sessionMode".into(), if manifest.stateless { "stateless" } else { "stateful" }.into());
    let versions: Vec<String> =
        rmcp::model::ProtocolVersion::KNOWN_VERSIONS.iter().rev().map(ToString::to_string).collect();
    json!({
        "status": "ok",
        "server": server,
        "protocolVersions": versions,
        "capabilities": capabilities(manifest),
        "extensions": manifest.extensions.iter().map(|id| (id.clone(), Value::Bool(true))).collect::<Map<String, Value>>(),
        "framework": { "name": "mcp-contract", "version": env!("CARGO_PKG_VERSION"), "homepage": "https://docs.rs/mcp-contract" },
        "auth": { "mode": "none" },
    })
}

/// What `server.json` is written from: the server's identity, as its builder holds it.
pub(crate) struct Published<'a> {
    /// Name, title, version, description and website.
    pub(crate) info: &'a Implementation,
    /// The instructions, the description's stand-in.
    pub(crate) instructions: Option<&'a str>,
    /// The repository's URL (`Server::repository`, or the landing page's repository link).
    pub(crate) repository: Option<&'a str>,
}

/// The MCP registry's `server.json` of `server`: named `io.github.{owner}/{repo}`
/// after its GitHub repository (or `name`), described by its description (cut
/// to 100 characters), at its version, as a cargo package served over stdio,
/// and with `remote` as a Streamable HTTP remote.
///
/// # Errors
///
/// What is missing to write a manifest the registry accepts: a name, a
/// description, an `http(s)` remote URL.
pub(crate) fn server_json(server: &Published<'_>, name: Option<&str>, remote: Option<&str>) -> Result<Value, String> {
    let repository = server
        .repository
        .and_then(|url| GITHUB_REPO_ROOT.captures(url.trim()).map(|c| (c[1].to_owned(), c[2].to_owned())));
    let name = match (name, &repository) {
        (Some(name), _) => name.to_owned(),
        (None, Some((owner, repo))) => format!("io.github.{owner}/{repo}"),
        (None, None) => {
            return Err("cannot name the server in reverse DNS: set a GitHub repository (`Server::repository`, the \
                        crate's `repository` with `server_from_crate!`) or pass `--name io.github.owner/server`"
                .into());
        }
    };
    let description = server
        .info
        .description
        .as_deref()
        .or(server.instructions)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .ok_or("the server has no description: set `Server::description` (or the crate's `description`)")?;
    let mut manifest = Map::new();
    manifest.insert("$schema".into(), SERVER_JSON_SCHEMA.into());
    manifest.insert("name".into(), name.into());
    manifest.insert("description".into(), cut(description, MAX_DESCRIPTION).into());
    if let Some(title) = &server.info.title {
        manifest.insert("title".into(), title.clone().into());
    }
    manifest.insert("version".into(), server.info.version.clone().into());
    if let Some((owner, repo)) = &repository {
        manifest.insert(
            "repository".into(),
            json!({ "url": format!("https://github.com/{owner}/{repo}"), "source": "github" }),
        );
    }
    if let Some(website) = &server.info.website_url {
        manifest.insert("websiteUrl".into(), website.clone().into());
    }
    manifest.insert(
        "packages".into(),
        json!([{
            "registryType": "cargo",
            "identifier": server.info.name,
            "version": server.info.version,
            "transport": { "type": "stdio" },
        }]),
    );
    if let Some(remote) = remote {
        if !(remote.starts_with("https://") || remote.starts_with("http://")) {
            return Err(format!("the remote `{remote}` is not an `https://` URL of the MCP endpoint"));
        }
        manifest.insert("remotes".into(), json!([{ "type": "streamable-http", "url": remote }]));
    }
    Ok(Value::Object(manifest))
}

/// `text` cut to at most `max` characters at a word, with an ellipsis.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let head: String = text.chars().take(max - 1).collect();
    let head = head.rsplit_once(' ').map_or(head.as_str(), |(words, _)| words).trim_end_matches([',', ';', ':', ' ']);
    format!("{head}…")
}

/// `time` as an RFC 3339 UTC timestamp, `2026-12-01T12:00:00Z`.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(time).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(1_796_126_399)), "2026-12-01T11:59:59Z");
    }

    #[test]
    fn descriptions_are_cut_at_a_word() {
        assert_eq!(cut("short", 100), "short");
        let long = "word ".repeat(40);
        let cut = cut(&long, 100);
        assert!(cut.chars().count() <= 100 && cut.ends_with("word…"), "{cut}");
    }
}
