//! `Origin` and `Host`: the origins that may call the server (its own, as the
//! `Host` it was sent to says, and the allowed ones), CORS preflight and
//! headers, and rmcp's `Host` check done here too.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::middleware::Next;
use http::header::{self, HeaderValue};
use http::{Extensions, HeaderMap, Method, Request, Response, StatusCode};

use crate::server::transport::jsonrpc::{self, Rejection};

use super::{Guard, error_response};

/// What a request's `Origin` header allows.
pub(super) enum Origin {
    /// No `Origin` (not a browser), or the server's own.
    SameOrNone,
    /// An allowed other origin: its answers get CORS headers.
    Allowed(HeaderValue),
    Forbidden,
}

/// The outer middleware, over every route but the server card: `Origin` first, then CORS
/// preflight, the endpoint's status document, and CORS headers on the answers of allowed origins.
pub(crate) async fn check_origin(
    State((guard, status)): State<(Arc<Guard>, Arc<crate::server::transport::landing::Status>)>,
    mut request: Request<Body>,
    next: Next,
) -> Response<Body> {
    if let Some(host) = request.headers().get(header::HOST) {
        let Some(parsed) = RequestHost::parse(host) else {
            // RFC 9112 §3.2: a `Host` that is not `host[:port]` (`evil@127.0.0.1`,
            // whose userinfo rmcp's check would skip) gets 400.
            tracing::warn!(host = ?host, "refused a request whose `Host` header is not `host[:port]`");
            return error_response(
                StatusCode::BAD_REQUEST,
                &Rejection::new(None, jsonrpc::INVALID_REQUEST, "Bad Request: the Host header is not a host and port."),
            );
        };
        request.extensions_mut().insert(parsed);
    }
    let proto =
        request.extensions().get::<crate::server::transport::proxy::ForwardedProto>().map(|proto| proto.0.as_str());
    let cors_origin = match guard.check_origin(request.headers(), proto) {
        Origin::SameOrNone => None,
        Origin::Allowed(origin) => Some(origin),
        Origin::Forbidden => {
            return error_response(
                StatusCode::FORBIDDEN,
                &Rejection::new(
                    None,
                    jsonrpc::INVALID_REQUEST,
                    "Forbidden: requests from this Origin are not allowed; the server lists the origins it allows.",
                ),
            );
        }
    };
    if request.method() == Method::OPTIONS
        && let Some(origin) = &cors_origin
    {
        return preflight(origin, request.headers());
    }
    let mut response = match status.answer(&request) {
        Some(status) => status,
        None => next.run(request).await,
    };
    if let Some(origin) = cors_origin {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED_HEADERS));
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
}

impl Guard {
    /// Whether the request's `Origin` may call the server. Its own origin is
    /// the scheme, host and port it was sent to: the `Host` (as a trusted
    /// proxy forwarded it), and `http` (the server speaks plain HTTP) unless a
    /// trusted proxy forwarded `https`; a port left out is the scheme's default.
    pub(super) fn check_origin(&self, headers: &HeaderMap, forwarded_proto: Option<&str>) -> Origin {
        let Some(origin) = headers.get(header::ORIGIN) else { return Origin::SameOrNone };
        let normalized = origin.to_str().map(normalize_origin).unwrap_or_default();
        let own = normalized.split_once("://").is_some_and(|(scheme, authority)| {
            let host = headers.get(header::HOST).and_then(|host| host.to_str().ok()).and_then(Authority::parse);
            let (Some(origin), Some(host)) = (Authority::parse(authority), host) else { return false };
            let request_scheme = forwarded_proto.unwrap_or("http");
            scheme == request_scheme
                && origin.host == host.host
                && origin.port.or(default_port(scheme)) == host.port.or(default_port(request_scheme))
        });
        if own {
            return Origin::SameOrNone;
        }
        if !normalized.is_empty() && self.allowed_origins.contains(&normalized) {
            return Origin::Allowed(origin.clone());
        }
        tracing::warn!(
            origin = ?origin,
            "refused a request whose `Origin` header is not allowed; allow it with `--allowed-origins`, `MCP_ALLOWED_ORIGINS` or `HttpOptions::allowed_origins`"
        );
        Origin::Forbidden
    }
}

const EXPOSED_HEADERS: &str = "mcp-session-id, mcp-protocol-version, WWW-Authenticate";

fn preflight(origin: &HeaderValue, headers: &HeaderMap) -> Response<Body> {
    let requested = headers
        .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .cloned()
        .unwrap_or_else(|| HeaderValue::from_static("content-type, accept, mcp-session-id, mcp-protocol-version"));
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin)
        .header(header::ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, DELETE, OPTIONS")
        .header(header::ACCESS_CONTROL_ALLOW_HEADERS, requested)
        .header(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED_HEADERS)
        .header(header::ACCESS_CONTROL_MAX_AGE, "600")
        .header(header::VARY, "Origin")
        .body(Body::empty())
        .unwrap_or_default()
}

/// rmcp's `allowed_hosts`, read once: `None` for an empty list, which
/// allows every host (each request's `Host` was checked against every entry
/// read again, three readings a request).
pub(super) struct AllowedHosts(Option<Vec<Authority>>);

impl AllowedHosts {
    pub(super) fn new(allowed: &[String]) -> Self {
        Self((!allowed.is_empty()).then(|| allowed.iter().filter_map(|entry| Authority::parse(entry)).collect()))
    }
}

/// Whether the request's `Host` passes rmcp's check against `allowed` (an
/// empty list allows every host), compared as rmcp compares them: host names
/// case-insensitively, a port only when the allowed entry names one.
pub(super) fn host_allowed(headers: &HeaderMap, extensions: &Extensions, allowed: &AllowedHosts) -> bool {
    let Some(allowed) = &allowed.0 else { return true };
    let Some(host) = RequestHost::of(headers, extensions) else { return false };
    let host = &host.authority;
    allowed.iter().any(|allowed| {
        allowed.host == host.host && allowed.port.is_none_or(|allowed_port| host.port == Some(allowed_port))
    })
}

/// The request's `Host`, read as [`Authority`] once, by the outer
/// middleware, which refuses a request whose `Host` it cannot read: the checks
/// after it (rmcp's allowed hosts, twice) take it from the request's
/// extensions rather than read the header again.
#[derive(Clone)]
pub(super) struct RequestHost {
    /// The header as it was read, so that a `Host` changed since is read anew.
    value: HeaderValue,
    authority: Authority,
}

impl RequestHost {
    pub(super) fn parse(value: &HeaderValue) -> Option<Self> {
        let authority = value.to_str().ok().and_then(Authority::parse)?;
        Some(Self { value: value.clone(), authority })
    }

    /// The request's `Host`, read; `None` without one or for one that is not
    /// `host[:port]`.
    pub(super) fn of<'a>(headers: &HeaderMap, extensions: &'a Extensions) -> Option<std::borrow::Cow<'a, Self>> {
        let value = headers.get(header::HOST)?;
        match extensions.get::<Self>() {
            Some(read) if read.value == *value => Some(std::borrow::Cow::Borrowed(read)),
            _ => Self::parse(value).map(std::borrow::Cow::Owned),
        }
    }

    /// The host name, lowercased, without an IPv6 address's brackets.
    pub(super) fn host(&self) -> &str {
        &self.authority.host
    }

    /// The port, if the header names one.
    pub(super) fn port(&self) -> Option<u16> {
        self.authority.port
    }
}

/// A `Host` value or the authority of an `Origin`, as both checks compare
/// them: the host name lowercased and without an IPv6 address's brackets,
/// and the port if one is written.
#[derive(Clone)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    /// `None` unless `text` is `host[:port]`: `http`'s parser also takes a
    /// userinfo (`user@host`), which neither header may carry (RFC 9110
    /// §7.2, RFC 6454 §7).
    pub(super) fn parse(text: &str) -> Option<Self> {
        if text.contains('@') {
            return None;
        }
        let authority = http::uri::Authority::try_from(text.trim()).ok()?;
        // Read once: `http` parses the authority again for each `host()`.
        let host = authority.host();
        // Brackets enclose an IPv6 address, and nothing else (`http` takes `_[']`).
        let host = match host.strip_prefix('[').and_then(|host| host.strip_suffix(']')) {
            Some(literal) => {
                literal.parse::<std::net::Ipv6Addr>().ok()?;
                literal
            }
            None if host.contains(['[', ']']) => return None,
            None => host,
        };
        Some(Self { host: host.to_ascii_lowercase(), port: authority.port_u16() })
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

/// `scheme://host[:port]`, lowercased, without a trailing slash.
pub(super) fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// What a client's `Origin` and `Host` can make of the checks: a `Host` is
/// read only as `host[:port]`, and an `Origin` passes as the server's own only
/// with `http` and the `Host`'s host and port (the fuzz target `http_headers`).
#[cfg(fuzzing)]
pub(crate) fn fuzz_origin_and_host(origin: &str, host: &str) {
    if let Some(authority) = Authority::parse(host) {
        assert!(!host.contains('@'), "a userinfo in {host:?}");
        assert!(!authority.host.contains(['[', ']']), "{host:?}");
    }
    let (Ok(origin_value), Ok(host_value)) = (HeaderValue::from_str(origin), HeaderValue::from_str(host)) else {
        return;
    };
    let mut headers = HeaderMap::new();
    headers.insert(header::ORIGIN, origin_value);
    headers.insert(header::HOST, host_value);
    let guard = Guard::new(&[], 1024, Vec::new(), None, Arc::default(), None, None);
    if let Origin::SameOrNone = guard.check_origin(&headers, None) {
        let normalized = normalize_origin(origin);
        let authority = normalized.strip_prefix("http://").expect("the server's own origin is http");
        let (origin, host) =
            (Authority::parse(authority).expect("an authority"), Authority::parse(host).expect("a host"));
        assert_eq!(origin.host, host.host);
        assert_eq!(origin.port.unwrap_or(80), host.port.unwrap_or(80));
    }
}

#[cfg(test)]
mod tests {
    use super::Authority;

    #[test]
    fn an_authority_is_a_host_and_a_port_and_nothing_else() {
        let parsed = |text| Authority::parse(text).map(|authority| (authority.host, authority.port));
        assert_eq!(parsed("LocalHost:8080"), Some(("localhost".to_owned(), Some(8080))));
        assert_eq!(parsed("[::1]:3000"), Some(("::1".to_owned(), Some(3000))));
        assert_eq!(parsed("127.0.0.1"), Some(("127.0.0.1".to_owned(), None)));
        // Found by the fuzz target `http_headers`: `http` takes brackets around anything.
        for wrong in ["_[']", "[localhost]:80", "a[b]", "evil@127.0.0.1:80", "[::1"] {
            assert!(parsed(wrong).is_none(), "{wrong}");
        }
    }
}
