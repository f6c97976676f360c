//! Bearer tokens on the Streamable HTTP transport: the MCP endpoint answers a
//! request without a valid token with 401 and a `WWW-Authenticate: Bearer`
//! header pointing at the OAuth 2.0 Protected Resource Metadata (RFC 9728),
//! which the server publishes at `/.well-known/oauth-protected-resource`, as
//! the MCP authorization spec asks. The caller of a verified token travels to
//! the handler in the request's extensions (rmcp hands the request's
//! `http::request::Parts` to `call_tool`).

use std::sync::Arc;

use crate::auth::{AuthConfig, AuthMode, ScopePolicy};
use crate::server::dispatch::handler::ToolServer;
use crate::server::error::ServerError;

#[cfg(feature = "auth")]
pub(crate) use enabled::HttpAuth;

/// Without the `auth` feature there is nothing to protect the endpoint with.
#[cfg(not(feature = "auth"))]
pub(crate) enum HttpAuth {}

/// The auth of an HTTP transport about to start: the config set in code, else
/// the environment's. Mode `none` gives no layer and open scopes; a mode that
/// cannot be honoured is an error, never an open door.
pub(crate) fn prepare(server: ToolServer, path: &str) -> Result<(ToolServer, Option<Arc<HttpAuth>>), ServerError> {
    let config = match server.auth_config() {
        Some(config) => config.clone(),
        None => AuthConfig::from_env().map_err(ServerError::Auth)?,
    };
    if config.mode() == AuthMode::None {
        // The author believes these tools are protected; say loudly that they are not.
        let scoped: Vec<&str> = server.scoped_tools().collect();
        if !scoped.is_empty() {
            tracing::warn!(
                tools = %scoped.join(", "),
                "auth mode is `none` on Streamable HTTP: the scopes these tools declare are NOT checked and anyone \
                 who reaches the endpoint can call them; set MCP_AUTH_MODE (or Server::auth) to `jwt` or `oauth`"
            );
        }
        return Ok((server.with_scope_policy(ScopePolicy::Open), None));
    }
    let policy = if config.scope_checks_disabled() {
        tracing::warn!(
            mode = %config.mode(),
            "MCP_AUTH_DISABLE_SCOPE_CHECKS is set: callers are authenticated, but the scopes tools declare are \
             NOT checked; any valid token can call every tool"
        );
        ScopePolicy::Bypassed
    } else {
        ScopePolicy::Enforced
    };
    let auth = new_http_auth(&config, &server, path)?;
    tracing::info!(mode = %config.mode(), "bearer tokens required on the MCP endpoint");
    Ok((server.with_scope_policy(policy), Some(Arc::new(auth))))
}

#[cfg(not(feature = "auth"))]
fn new_http_auth(config: &AuthConfig, _server: &ToolServer, _path: &str) -> Result<HttpAuth, ServerError> {
    Err(ServerError::Auth(crate::auth::AuthConfigError::FeatureDisabled { mode: config.mode() }))
}

#[cfg(feature = "auth")]
fn new_http_auth(config: &AuthConfig, server: &ToolServer, path: &str) -> Result<HttpAuth, ServerError> {
    HttpAuth::new(config, server, path).map_err(ServerError::Auth)
}

/// Put the bearer check on the routes `router` has so far (the MCP endpoint)
/// and add the open metadata routes.
pub(crate) fn protect(router: axum::Router, auth: Option<Arc<HttpAuth>>) -> axum::Router {
    match auth {
        None => router,
        #[cfg(feature = "auth")]
        Some(auth) => enabled::protect(router, auth),
        #[cfg(not(feature = "auth"))]
        Some(auth) => match *auth {},
    }
}

#[cfg(feature = "auth")]
mod enabled {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use axum::body::Body;
    use axum::extract::{Request, State};
    use axum::middleware::{self, Next};
    use axum::response::Response;
    use axum::routing::get;
    use http::header::{AUTHORIZATION, CACHE_CONTROL, CONNECTION, CONTENT_TYPE, HOST, WWW_AUTHENTICATE};
    use http::{HeaderMap, HeaderValue, Method, StatusCode};
    use serde_json::{Value, json};

    use crate::auth::{AuthConfig, AuthConfigError, AuthMode, TokenError, TokenVerifier};
    use crate::server::dispatch::handler::ToolServer;

    /// Where RFC 9728 puts the metadata of a resource.
    pub(crate) const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

    pub(crate) struct HttpAuth {
        verifier: TokenVerifier,
        mode: AuthMode,
        issuer: Option<String>,
        resource: Option<String>,
        resource_name: String,
        scopes_supported: Vec<String>,
        mcp_path: String,
    }

    impl HttpAuth {
        pub(crate) fn new(config: &AuthConfig, server: &ToolServer, path: &str) -> Result<Self, AuthConfigError> {
            let verifier =
                TokenVerifier::new(config)?.ok_or(AuthConfigError::FeatureDisabled { mode: config.mode() })?;
            let scopes: BTreeSet<&str> = server.declared_scopes().collect();
            let info = &server.config().server_info;
            Ok(Self {
                verifier,
                mode: config.mode(),
                issuer: config.issuer().map(str::to_owned),
                resource: config.resource().map(str::to_owned),
                resource_name: info.title.clone().unwrap_or_else(|| info.name.clone()),
                scopes_supported: scopes.into_iter().map(str::to_owned).collect(),
                mcp_path: path.to_owned(),
            })
        }

        /// This server as a resource: the configured identifier, else the URL
        /// of the MCP endpoint as the request reached it.
        fn resource(&self, headers: &HeaderMap) -> String {
            match &self.resource {
                Some(resource) => resource.clone(),
                None => format!("{}{}", origin(headers), self.mcp_path),
            }
        }

        /// The metadata URL for `WWW-Authenticate`: RFC 9728 §3.1 inserts the
        /// well-known path between the resource's origin and its path.
        fn metadata_url(&self, headers: &HeaderMap) -> String {
            let resource = self.resource(headers);
            let (origin, path) = split_origin(&resource);
            format!("{origin}{METADATA_PATH}{}", path.trim_end_matches('/'))
        }

        fn metadata(&self, headers: &HeaderMap) -> Value {
            let mut document = json!({
                "resource": self.resource(headers),
                "bearer_methods_supported": ["header"],
                "resource_name": self.resource_name,
            });
            if self.mode == AuthMode::Oauth
                && let Some(issuer) = &self.issuer
            {
                document["authorization_servers"] = json!([issuer]);
            }
            if !self.scopes_supported.is_empty() {
                document["scopes_supported"] = json!(self.scopes_supported);
            }
            document
        }
    }

    pub(crate) fn protect(router: axum::Router, auth: Arc<HttpAuth>) -> axum::Router {
        let metadata = {
            let auth = Arc::clone(&auth);
            get(move |headers: HeaderMap| {
                let document = auth.metadata(&headers);
                async move { metadata_response(&document) }
            })
        };
        let mut router = router
            .route_layer(middleware::from_fn_with_state(Arc::clone(&auth), require_bearer))
            .route(METADATA_PATH, metadata.clone());
        // The path-specific location of RFC 9728 §3.1, which clients try first.
        let specific = format!("{METADATA_PATH}{}", auth.mcp_path.trim_end_matches('/'));
        if specific != METADATA_PATH {
            router = router.route(&specific, metadata);
        }
        router
    }

    fn metadata_response(document: &Value) -> Response {
        let mut response = Response::new(Body::from(document.to_string()));
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
        response
    }

    /// The bearer check in front of the MCP endpoint.
    async fn require_bearer(State(auth): State<Arc<HttpAuth>>, mut request: Request, next: Next) -> Response {
        // A CORS preflight carries no credentials by design, and runs no tool.
        if request.method() == Method::OPTIONS {
            return next.run(request).await;
        }
        // A refusal leaves the body unread, so the connection cannot carry
        // another request: say so, or a client reusing it finds it closed.
        let unread_body = !http_body::Body::is_end_stream(request.body());
        match refuse_bearer(&auth, &mut request).await {
            None => next.run(request).await,
            Some(mut response) => {
                if unread_body {
                    response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
                }
                response
            }
        }
    }

    /// The refusal of a request without a valid bearer token, or `None` once
    /// its caller is in the request's extensions.
    async fn refuse_bearer(auth: &HttpAuth, request: &mut Request) -> Option<Response> {
        let Some(token) = bearer_token(request.headers()) else {
            return Some(unauthorized(auth, request.headers(), None));
        };
        match auth.verifier.verify(token).await {
            Ok(caller) => {
                request.extensions_mut().insert(Arc::new(caller));
                None
            }
            Err(TokenError::KeysUnavailable) => {
                let body = json!({
                    "error": "temporarily_unavailable",
                    "error_description": TokenError::KeysUnavailable.to_string(),
                });
                let mut response = Response::new(Body::from(body.to_string()));
                *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
                response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                Some(response)
            }
            Err(err) => {
                tracing::debug!(reason = %err, "bearer token refused");
                Some(unauthorized(auth, request.headers(), Some(&err)))
            }
        }
    }

    /// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive).
    fn bearer_token(headers: &HeaderMap) -> Option<&str> {
        let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
        let (scheme, token) = value.trim().split_once(' ')?;
        let token = token.trim();
        (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
    }

    /// 401 with the challenge of RFC 6750 §3 and RFC 9728 §5.1: no `error` when
    /// the request had no token, `invalid_token` with a description when it had a bad one.
    fn unauthorized(auth: &HttpAuth, headers: &HeaderMap, err: Option<&TokenError>) -> Response {
        let metadata_url = auth.metadata_url(headers);
        let challenge = match err {
            None => format!("Bearer resource_metadata=\"{metadata_url}\""),
            Some(err) => format!(
                "Bearer error=\"invalid_token\", error_description=\"{err}\", resource_metadata=\"{metadata_url}\""
            ),
        };
        let body = match err {
            None => json!({
                "error": "unauthorized",
                "error_description": "this MCP endpoint needs an Authorization: Bearer token",
            }),
            Some(err) => json!({"error": "invalid_token", "error_description": err.to_string()}),
        };
        let mut response = Response::new(Body::from(body.to_string()));
        *response.status_mut() = StatusCode::UNAUTHORIZED;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        // Every part of the challenge is ours or a sanitized host; it is always a valid value.
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            headers.insert(WWW_AUTHENTICATE, value);
        }
        response
    }

    /// `scheme://host` of the request, as the client addressed it. The host is
    /// reflected into a response header, so anything but host characters is
    /// replaced.
    fn origin(headers: &HeaderMap) -> String {
        let forwarded = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
        let scheme = match forwarded("x-forwarded-proto").map(str::trim) {
            Some(proto) if proto.eq_ignore_ascii_case("https") => "https",
            _ => "http",
        };
        let host = headers.get(HOST).and_then(|value| value.to_str().ok()).unwrap_or("localhost");
        let safe = !host.is_empty()
            && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
        format!("{scheme}://{}", if safe { host } else { "localhost" })
    }

    /// `("https://host:port", "/path")` of a URL.
    fn split_origin(url: &str) -> (&str, &str) {
        let after_scheme = url.find("://").map_or(0, |at| at + 3);
        match url[after_scheme..].find('/') {
            Some(at) => url.split_at(after_scheme + at),
            None => (url, ""),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn bearer_tokens_are_read_from_the_authorization_header() {
            let mut headers = HeaderMap::new();
            assert_eq!(bearer_token(&headers), None);
            for (value, token) in
                [("Bearer abc", Some("abc")), ("bearer  abc ", Some("abc")), ("Basic abc", None), ("Bearer ", None)]
            {
                headers.insert(AUTHORIZATION, HeaderValue::from_static(value));
                assert_eq!(bearer_token(&headers), token, "{value:?}");
            }
        }

        #[test]
        fn the_origin_never_reflects_unsafe_host_characters() {
            let mut headers = HeaderMap::new();
            headers.insert(HOST, HeaderValue::from_static("127.0.0.1:8080"));
            assert_eq!(origin(&headers), "http://127.0.0.1:8080");
            headers.insert("x-forwarded-proto", HeaderValue::from_static("https"));
            assert_eq!(origin(&headers), "https://127.0.0.1:8080");
            headers.insert(HOST, HeaderValue::from_static("evil\", x=\"y"));
            assert_eq!(origin(&headers), "https://localhost");
        }

        #[test]
        fn metadata_urls_insert_the_well_known_path() {
            assert_eq!(split_origin("https://museum.example.org/mcp"), ("https://museum.example.org", "/mcp"));
            assert_eq!(split_origin("https://museum.example.org"), ("https://museum.example.org", ""));
        }
    }
}
