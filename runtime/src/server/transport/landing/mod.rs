//! What a person or a registry sees of a deployed server, on the Streamable
//! HTTP transport beside the MCP endpoint:
//!
//! - `GET /`: the landing page ([`render`]), `Cache-Control: public,
//!   max-age=60`; when auth is required, `private` with `Vary: Authorization`,
//!   and a reduced page without the inventory for a caller without a valid token;
//! - `GET /robots.txt`: everything but the endpoint may be crawled;
//! - `GET /.well-known/mcp.json`: the server card ([`card`]);
//! - `GET <endpoint>` without `text/event-stream` in `Accept`: a small JSON
//!   status document instead of rmcp's 406.
//!
//! [`Landing::disabled`](crate::define::Landing::disabled) removes the first two.

mod card;
mod model;
mod render;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use axum::routing::get;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HOST, VARY};
use http::{HeaderMap, HeaderValue, Method, StatusCode};

pub(crate) use self::card::{Published, server_json};
use self::model::{AuthSummary, Manifest, PromptView, ResourceView, SkillView, ToolView};
use crate::auth::{AuthConfig, AuthMode};
use crate::server::dispatch::handler::ToolServer;

/// The server card's path.
pub(crate) const CARD_PATH: &str = "/.well-known/mcp.json";

/// What the routes answer from: the manifest, read once when serving starts.
struct Views {
    manifest: Manifest,
    #[cfg(feature = "auth")]
    verifier: Option<crate::auth::TokenVerifier>,
    /// When the server started, as the card's `generated_at`.
    started: String,
}

/// Read `server`'s manifest for the routes.
pub(crate) fn manifest(server: &ToolServer, config: &AuthConfig, path: &str, stateless: bool) -> Manifest {
    let info = &server.config().server_info;
    let catalog = server.catalog();
    let resources = catalog
        .listed_resources()
        .iter()
        .map(|resource| ResourceView {
            name: resource.name.clone(),
            title: resource.title.clone(),
            description: resource.description.clone(),
            uri: resource.uri.clone(),
            template: false,
            mime_type: resource.mime_type.clone(),
            errors: model::contract_of(resource.meta.as_ref().map(|meta| &meta.0)),
        })
        .chain(catalog.listed_templates().iter().map(|template| ResourceView {
            name: template.name.clone(),
            title: template.title.clone(),
            description: template.description.clone(),
            uri: template.uri_template.clone(),
            template: true,
            mime_type: template.mime_type.clone(),
            errors: model::contract_of(template.meta.as_ref().map(|meta| &meta.0)),
        }))
        .collect();
    let prompts = catalog
        .listed_prompts()
        .iter()
        .map(|prompt| PromptView {
            name: prompt.name.clone(),
            title: prompt.title.clone(),
            description: prompt.description.clone(),
            arguments: prompt
                .arguments
                .iter()
                .flatten()
                .map(|argument| model::FieldView {
                    name: argument.name.clone(),
                    kind: "string".to_owned(),
                    required: argument.required.unwrap_or(false),
                    description: argument.description.clone(),
                })
                .collect(),
        })
        .collect();
    Manifest {
        name: info.name.clone(),
        title: info.title.clone(),
        version: info.version.clone(),
        description: info.description.clone().or_else(|| server.config().instructions.clone()),
        website_url: info.website_url.clone(),
        landing: server.landing().cloned().unwrap_or_default(),
        auth: AuthSummary {
            mode: config.mode(),
            issuer: config.issuer().map(str::to_owned),
            audience: config.audience().map(str::to_owned),
            // Only a JWKS URI set on purpose: the derived one is the issuer's business.
            jwks_uri: config.jwks_uri().filter(|_| config.mode() == AuthMode::Oauth),
            resource: config.resource().map(str::to_owned),
        },
        endpoint_path: path.to_owned(),
        stateless,
        protocol_version: server.config().protocol_version.to_string(),
        tools: server
            .listed_tools()
            .iter()
            .map(|tool| ToolView::from_listed(tool, server.task_support(&tool.name)))
            .collect(),
        resources,
        prompts,
        extensions: server
            .config()
            .capabilities
            .extensions
            .iter()
            .flat_map(|extensions| extensions.keys())
            .cloned()
            .collect(),
        skills: server
            .listed_skills()
            .iter()
            .map(|skill| SkillView {
                uri: skill.uri.clone(),
                name: skill.name.clone(),
                description: skill.description.clone(),
            })
            .collect(),
    }
}

/// Add the landing routes to `router` (the MCP endpoint, already behind its
/// auth): the status document answers before the bearer check, as the
/// reference does, and says nothing but `ok` when auth is on.
pub(crate) fn mount(router: axum::Router, manifest: Manifest, config: &AuthConfig) -> Mounted {
    let path = manifest.endpoint_path.clone();
    let enabled = manifest.landing.is_enabled();
    if enabled && manifest.requires_auth() && manifest.auth.mode == AuthMode::None {
        tracing::warn!(
            "the landing page requires auth but the auth mode is `none`: every caller gets the reduced page; \
             configure `jwt` or `oauth`, or set `Landing::require_auth(false)`"
        );
    }
    #[cfg(not(feature = "auth"))]
    let _ = config;
    let views = Arc::new(Views {
        #[cfg(feature = "auth")]
        verifier: crate::auth::TokenVerifier::new(config).ok().flatten(),
        started: card::rfc3339(std::time::SystemTime::now()),
        manifest,
    });
    // The status document is answered by the `Origin` check's layer, where
    // a layer of its own stood inside it: one layer less for every request.
    let status = Status { views: Arc::clone(&views), path: path.clone() };
    // The card is public, the same for every caller and carries no
    // credential, so it answers any origin (CORS `*`, as SEP-1649, SEP-2127
    // and the reference say) and is mounted outside the Origin check; see
    // the guide's "Deploying over HTTP" (guide/src/http.md), the landing page and server card.
    let mut card_routes = axum::Router::new();
    if path != CARD_PATH {
        let views = Arc::clone(&views);
        card_routes = card_routes.route(
            CARD_PATH,
            get(move |headers: HeaderMap| {
                let views = Arc::clone(&views);
                async move {
                    let mut response = json_response(
                        &card::card(&views.manifest, &origin(&headers), &views.started),
                        "public, max-age=3600",
                    );
                    response.headers_mut().insert("access-control-allow-origin", HeaderValue::from_static("*"));
                    response
                }
            })
            .options(|| async {
                let mut response = Response::new(Body::empty());
                *response.status_mut() = StatusCode::NO_CONTENT;
                let headers = response.headers_mut();
                headers.insert("access-control-allow-origin", HeaderValue::from_static("*"));
                headers.insert("access-control-allow-methods", HeaderValue::from_static("GET"));
                headers.insert("access-control-allow-headers", HeaderValue::from_static("Content-Type"));
                headers.insert("access-control-max-age", HeaderValue::from_static("600"));
                response
            }),
        );
    }
    let mut routes = axum::Router::new();
    if enabled && path != "/" {
        let views = Arc::clone(&views);
        routes = routes.route(
            "/",
            get(move |headers: HeaderMap| {
                let views = Arc::clone(&views);
                async move { page(&views, &headers).await }
            }),
        );
    }
    if enabled && path != "/robots.txt" {
        let body = format!("User-agent: *\nAllow: /\nDisallow: {path}\n");
        routes = routes.route(
            "/robots.txt",
            get(move || {
                let body = body.clone();
                async move {
                    let mut response = Response::new(Body::from(body));
                    let headers = response.headers_mut();
                    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
                    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
                    headers.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
                    response
                }
            }),
        );
    }
    Mounted { guarded: router.merge(routes), open: card_routes, status }
}

/// The routes of [`mount`]: those behind the Origin check, and the server
/// card, which answers every origin; and the status document of the
/// endpoint, which the Origin check's layer answers.
pub(crate) struct Mounted {
    pub(crate) guarded: axum::Router,
    pub(crate) open: axum::Router,
    pub(crate) status: Status,
}

/// `GET <endpoint>` without `text/event-stream` in `Accept`: the status
/// document, in place of rmcp's 406.
pub(crate) struct Status {
    views: Arc<Views>,
    path: String,
}

impl Status {
    /// The status document, when `request` asks for it.
    pub(crate) fn answer(&self, request: &Request<Body>) -> Option<Response> {
        (request.method() == Method::GET && request.uri().path() == self.path && !wants_event_stream(request.headers()))
            .then(|| json_response(&card::status(&self.views.manifest), "no-store"))
    }
}

async fn page(views: &Views, headers: &HeaderMap) -> Response {
    let gated = views.manifest.requires_auth();
    let full = !gated || authenticated(views, headers).await;
    let rendered = render::render(&views.manifest, &origin(headers), full);
    let mut response = Response::new(Body::from(rendered.html));
    let out = response.headers_mut();
    out.insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    out.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    out.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    if let Ok(csp) = HeaderValue::from_str(&rendered.csp) {
        out.insert("content-security-policy", csp);
    }
    if gated {
        out.insert(CACHE_CONTROL, HeaderValue::from_static("private, max-age=60"));
        out.insert(VARY, HeaderValue::from_static("Authorization"));
    } else {
        out.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=60"));
    }
    response
}

/// Whether the request carries a bearer token the MCP endpoint would accept.
async fn authenticated(views: &Views, headers: &HeaderMap) -> bool {
    #[cfg(feature = "auth")]
    {
        let token = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        if let (Some(verifier), Some(token)) = (&views.verifier, token) {
            return verifier.verify(token.trim()).await.is_ok();
        }
    }
    #[cfg(not(feature = "auth"))]
    let _ = (views, headers);
    false
}

fn wants_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.to_ascii_lowercase().contains("text/event-stream"))
}

fn json_response(value: &serde_json::Value, cache: &'static str) -> Response {
    let mut response = Response::new(Body::from(value.to_string()));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json; charset=utf-8"));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache));
    response
}

/// The origin the request reached: `X-Forwarded-Proto` (behind a TLS proxy)
/// or `http`, and the `Host` header. The `Host` is only ever printed escaped,
/// and the guard has already refused foreign `Origin`s.
fn origin(headers: &HeaderMap) -> String {
    let host = headers.get(HOST).and_then(|value| value.to_str().ok()).unwrap_or("localhost");
    let proto = headers
        .get("x-forwarded-proto")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(',').next())
        .map(str::trim)
        .filter(|proto| *proto == "https" || *proto == "http")
        .unwrap_or("http");
    format!("{proto}://{host}")
}
