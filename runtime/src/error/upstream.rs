//! HTTP statuses and responses of upstream services as [`McpError`]s.
//!
//! A tool that calls an HTTP API turns a failed response into an error the model
//! can act on: [`http_status_to_error_code`] picks the JSON-RPC code,
//! [`http_error_from_response`] builds the whole error — a message naming the
//! service and status, the status, a bounded excerpt of the body and the
//! upstream's `Retry-After` wait in `data`.
//!
//! ```
//! use mcp_contract::errors::{HttpErrorOptions, http_error_from_response};
//! use mcp_contract::JsonRpcErrorCode;
//!
//! let response = mcp_contract::http::Response::builder()
//!     .status(429)
//!     .header("retry-after", "30")
//!     .body(r#"{"error":"slow down"}"#)
//!     .unwrap();
//! let options = HttpErrorOptions::new().request_uri("https://api.example.com/v1/objects/7".parse().unwrap());
//! let err = http_error_from_response(&response, &options);
//! assert_eq!(err.code(), JsonRpcErrorCode::RateLimited);
//! assert_eq!(err.message(), "api.example.com returned HTTP 429 Too Many Requests.");
//! let data = err.data().unwrap();
//! assert_eq!(data["status"], 429);
//! assert_eq!(data["retryAfter"], 30);
//! assert_eq!(data["body"], r#"{"error":"slow down"}"#);
//! ```

use std::time::SystemTime;

use http::header::RETRY_AFTER;
use http::{HeaderMap, Response, StatusCode, Uri};
use serde_json::Value;

use super::{JsonObject, JsonRpcErrorCode, McpError, http_status_to_error_code};

/// How many bytes of a response body [`HttpErrorOptions`] captures by default.
pub const DEFAULT_BODY_LIMIT: usize = 500;

/// What the message calls the upstream when neither a service name nor a request
/// URI with a host is known.
pub const DEFAULT_SERVICE: &str = "Upstream service";

/// Appended to a captured body that was cut at the limit.
pub const TRUNCATION_MARKER: &str = "…";

/// How [`http_error_from_response`] and its siblings build an error.
///
/// Fields are public so a struct literal with `..Default::default()` works; the
/// builder methods read better in a chain.
///
/// ```
/// use mcp_contract::errors::HttpErrorOptions;
/// let options = HttpErrorOptions::new().service("NCBI").body_limit(200);
/// assert_eq!(options.service.as_deref(), Some("NCBI"));
/// assert!(options.capture_body);
/// ```
#[derive(Clone, Debug)]
pub struct HttpErrorOptions {
    /// The name the message gives the upstream (`"NCBI returned HTTP 429 ..."`).
    /// Default: the host (and non-default port) of [`request_uri`](Self::request_uri),
    /// else [`DEFAULT_SERVICE`].
    pub service: Option<String>,
    /// The URI that was requested: its host names the service when `service` is
    /// unset, and it becomes `data.url` with [`include_url`](Self::include_url).
    pub request_uri: Option<Uri>,
    /// Put an excerpt of the body into `data.body`. Default `true`; turn it off for
    /// binary bodies or ones that may echo secrets.
    pub capture_body: bool,
    /// The most bytes of the body kept, cut back to a UTF-8 boundary. Default
    /// [`DEFAULT_BODY_LIMIT`] (500).
    pub body_limit: usize,
    /// Put the whole request URI (path and query included) into `data.url`.
    /// Default `false`: `data` reaches the client, and a query string routinely
    /// carries user input or an API key. The message names the host either way.
    pub include_url: bool,
    /// Choose the code for some statuses yourself; `None` from it falls back to
    /// [`http_status_to_error_code`].
    pub code_override: Option<fn(u16) -> Option<JsonRpcErrorCode>>,
    /// Response headers copied into `data.headers` under their lowercase names
    /// (the reference's `errorHeaders`, since 0.13.5), for an upstream's
    /// request id or quota headers the model or an operator may need. Default
    /// none. Every value named here reaches the client, so name no header that
    /// carries a credential; `set-cookie` is never copied.
    pub error_headers: Vec<http::HeaderName>,
    /// Extra fields merged into `data` last, so they win over the defaults.
    pub data: Option<JsonObject>,
}

impl Default for HttpErrorOptions {
    fn default() -> Self {
        Self {
            service: None,
            request_uri: None,
            capture_body: true,
            body_limit: DEFAULT_BODY_LIMIT,
            include_url: false,
            code_override: None,
            error_headers: Vec::new(),
            data: None,
        }
    }
}

impl HttpErrorOptions {
    /// The defaults: body captured up to 500 bytes, service named by the request's host.
    pub fn new() -> Self {
        Self::default()
    }

    /// Name the upstream in the message.
    pub fn service(mut self, service: impl Into<String>) -> Self {
        self.service = Some(service.into());
        self
    }

    /// The URI that was requested.
    pub fn request_uri(mut self, uri: Uri) -> Self {
        self.request_uri = Some(uri);
        self
    }

    /// Capture the body into `data.body`, or not.
    pub fn capture_body(mut self, capture: bool) -> Self {
        self.capture_body = capture;
        self
    }

    /// The most bytes of the body kept.
    pub fn body_limit(mut self, limit: usize) -> Self {
        self.body_limit = limit;
        self
    }

    /// Put the whole request URI into `data.url`.
    pub fn include_url(mut self, include: bool) -> Self {
        self.include_url = include;
        self
    }

    /// Choose the code for some statuses yourself.
    pub fn code_override(mut self, code_override: fn(u16) -> Option<JsonRpcErrorCode>) -> Self {
        self.code_override = Some(code_override);
        self
    }

    /// Copy these response headers into `data.headers` (see
    /// [`error_headers`](Self::error_headers)).
    ///
    /// ```
    /// use mcp_contract::errors::{HttpErrorOptions, http_error_from_response};
    /// use mcp_contract::http::{HeaderName, Response};
    ///
    /// let response = Response::builder()
    ///     .status(503)
    ///     .header("X-Request-Id", "up-7731")
    ///     .header("X-Api-Key", "secret")
    ///     .body(Vec::new())
    ///     .unwrap();
    /// let options = HttpErrorOptions::new().error_headers([HeaderName::from_static("x-request-id")]);
    /// let err = http_error_from_response(&response, &options);
    /// assert_eq!(err.data().unwrap()["headers"], serde_json::json!({"x-request-id": "up-7731"}));
    /// ```
    pub fn error_headers(mut self, names: impl IntoIterator<Item = http::HeaderName>) -> Self {
        self.error_headers = names.into_iter().collect();
        self
    }

    /// Merge extra fields into `data`. A non-object value is kept under `data.value`.
    pub fn data(mut self, data: impl Into<Value>) -> Self {
        self.data = match data.into() {
            Value::Object(object) => Some(object),
            Value::Null => None,
            other => Some(JsonObject::from_iter([("value".to_owned(), other)])),
        };
        self
    }
}

/// The error for a failed HTTP response.
///
/// - code: [`HttpErrorOptions::code_override`], else [`http_status_to_error_code`],
///   else `InternalError` — a status below 400 reaching here means our own code
///   took a success for a failure, and `InternalError` is not transient, so no
///   retry loop spins on it (the reference framework falls back the same way);
/// - message: `"<service> returned HTTP <status> <reason>."`, the reason phrase
///   omitted for a status that has none;
/// - `data`: `status`, `statusText` (when the status has a reason phrase), `body`
///   (when captured and not empty; lossy UTF-8, cut at the limit and marked with
///   [`TRUNCATION_MARKER`] and `bodyTruncated: true`), `retryAfter` (whole seconds
///   to wait, from a `Retry-After` header in either form: seconds or an HTTP
///   date), `retryable: false` for a 501 (the upstream does not implement the
///   method, which no retry changes, though its code is the transient
///   `ServiceUnavailable`), `headers` (the
///   [`error_headers`](HttpErrorOptions::error_headers) present), `url` (only
///   with `include_url`), then the caller's [`data`](HttpErrorOptions::data).
///
/// Unlike the reference, `retryAfter` is a number of seconds rather than the raw
/// header, so [`with_retry`](crate::error::with_retry) and the model read one
/// form; and the legacy aliases `statusCode` / `responseBody` are left out.
///
/// ```
/// use mcp_contract::errors::{HttpErrorOptions, http_error_from_response};
/// use mcp_contract::JsonRpcErrorCode;
///
/// let response = mcp_contract::http::Response::builder().status(404).body(Vec::new()).unwrap();
/// let err = http_error_from_response(&response, &HttpErrorOptions::new().service("The Met"));
/// assert_eq!(err.code(), JsonRpcErrorCode::NotFound);
/// assert_eq!(err.message(), "The Met returned HTTP 404 Not Found.");
/// ```
pub fn http_error_from_response<B: AsRef<[u8]>>(response: &Response<B>, options: &HttpErrorOptions) -> McpError {
    http_error_from_status(response.status(), response.headers(), response.body().as_ref(), options)
}

/// [`http_error_from_response`] for a response already split into its parts and body.
///
/// ```
/// use mcp_contract::errors::{HttpErrorOptions, http_error_from_parts};
/// let (parts, body) = mcp_contract::http::Response::builder().status(503).body(b"down".to_vec()).unwrap().into_parts();
/// let err = http_error_from_parts(&parts, &body, &HttpErrorOptions::default());
/// assert_eq!(err.message(), "Upstream service returned HTTP 503 Service Unavailable.");
/// ```
pub fn http_error_from_parts(parts: &http::response::Parts, body: &[u8], options: &HttpErrorOptions) -> McpError {
    http_error_from_status(parts.status, &parts.headers, body, options)
}

/// [`http_error_from_response`] from a status, its headers and the body bytes read
/// so far (pass `&[]` when the body was not read).
///
/// ```
/// use mcp_contract::errors::{HttpErrorOptions, http_error_from_status};
/// use mcp_contract::http::{HeaderMap, StatusCode};
/// let err = http_error_from_status(StatusCode::UNAUTHORIZED, &HeaderMap::new(), b"", &HttpErrorOptions::new());
/// assert_eq!(err.code(), mcp_contract::JsonRpcErrorCode::Unauthorized);
/// ```
pub fn http_error_from_status(
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    options: &HttpErrorOptions,
) -> McpError {
    let uri = options.request_uri.as_ref();
    let host = uri.and_then(uri_host);
    let url = uri.map(ToString::to_string);
    build_error(status, headers, body, host, url, options)
}

/// An error from a failed `reqwest` response, reading at most
/// [`body_limit`](HttpErrorOptions::body_limit) bytes of its body (plus one, to
/// know whether it was cut). The service defaults to the response URL's host.
///
/// ```no_run
/// # async fn fetch() -> Result<(), mcp_contract::McpError> {
/// use mcp_contract::errors::{HttpErrorOptions, http_error_from_reqwest};
/// let response = reqwest::Client::new().get("https://api.example.com/v1/objects/7").send().await
///     .map_err(mcp_contract::McpError::from_error)?;
/// if !response.status().is_success() {
///     return Err(http_error_from_reqwest(response, &HttpErrorOptions::new()).await);
/// }
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "reqwest")]
pub async fn http_error_from_reqwest(mut response: reqwest::Response, options: &HttpErrorOptions) -> McpError {
    let status = response.status();
    let headers = response.headers().clone();
    let (host, url) = match &options.request_uri {
        Some(uri) => (uri_host(uri), Some(uri.to_string())),
        None => {
            let url = response.url();
            let host = url.host_str().map(|host| match url.port() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_owned(),
            });
            (host, Some(url.to_string()))
        }
    };
    let mut body = Vec::new();
    if options.capture_body {
        // Stop one byte past the limit: enough to know the body was cut, without
        // pulling a large error page off the wire. A read error mid-body keeps what
        // arrived, which is still the best description of the failure we have.
        while body.len() <= options.body_limit {
            match response.chunk().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
    }
    build_error(status, &headers, &body, host, url, options)
}

fn build_error(
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    host: Option<String>,
    url: Option<String>,
    options: &HttpErrorOptions,
) -> McpError {
    let number = status.as_u16();
    let code = options
        .code_override
        .and_then(|code_override| code_override(number))
        .or_else(|| http_status_to_error_code(number))
        .unwrap_or(JsonRpcErrorCode::InternalError);
    let subject = options.service.as_deref().or(host.as_deref()).unwrap_or(DEFAULT_SERVICE);
    let reason = status.canonical_reason();
    let message = match reason {
        Some(reason) => format!("{subject} returned HTTP {number} {reason}."),
        None => format!("{subject} returned HTTP {number}."),
    };

    let mut data = JsonObject::new();
    if options.include_url
        && let Some(url) = url
    {
        data.insert("url".to_owned(), Value::String(url));
    }
    data.insert("status".to_owned(), Value::from(number));
    if let Some(reason) = reason {
        data.insert("statusText".to_owned(), Value::from(reason));
    }
    if options.capture_body && !body.is_empty() {
        // An upstream echoes what it was sent, and its errors name keys and
        // tokens: none of that goes on to the client or the log. Redacted
        // before the cut, so a secret the limit splits is not half shown.
        let whole = String::from_utf8_lossy(body);
        let redacted = super::sanitize::redact_text(&whole);
        let (text, truncated) = body_excerpt(redacted.as_bytes(), options.body_limit);
        data.insert("body".to_owned(), Value::String(text));
        if truncated {
            data.insert("bodyTruncated".to_owned(), Value::Bool(true));
        }
    }
    if let Some(seconds) = retry_after_seconds(headers, SystemTime::now()) {
        data.insert("retryAfter".to_owned(), Value::from(seconds));
    }
    if status == StatusCode::NOT_IMPLEMENTED {
        data.insert("retryable".to_owned(), Value::Bool(false));
    }
    let copied = copied_headers(headers, &options.error_headers);
    if !copied.is_empty() {
        data.insert("headers".to_owned(), Value::Object(copied));
    }
    if let Some(extra) = &options.data {
        data.extend(extra.iter().map(|(key, value)| (key.clone(), value.clone())));
    }
    McpError::new(code, message).with_data(data)
}

/// The allow-listed headers of a response, by lowercase name (`HeaderName`s
/// are), several values of one name joined by `, ` as HTTP folds them.
/// `set-cookie` is skipped whatever the list says: a session cookie is a
/// credential of this server's, never the model's business.
fn copied_headers(headers: &HeaderMap, names: &[http::HeaderName]) -> JsonObject {
    let mut copied = JsonObject::new();
    for name in names.iter().filter(|name| **name != http::header::SET_COOKIE) {
        let values: Vec<_> =
            headers.get_all(name).iter().map(|value| String::from_utf8_lossy(value.as_bytes())).collect();
        if !values.is_empty() {
            copied.insert(name.as_str().to_owned(), Value::String(values.join(", ")));
        }
    }
    copied
}

/// The first `limit` bytes of `body` as text, cut back to a UTF-8 boundary and
/// marked when cut; whether it was cut.
fn body_excerpt(body: &[u8], limit: usize) -> (String, bool) {
    if body.len() <= limit {
        return (String::from_utf8_lossy(body).into_owned(), false);
    }
    // Back off at most three continuation bytes so a character split by the limit
    // is dropped whole rather than shown as a replacement character.
    let mut cut = limit;
    while cut > 0 && limit - cut < 3 && body[cut] & 0xC0 == 0x80 {
        cut -= 1;
    }
    let mut text = String::from_utf8_lossy(&body[..cut]).into_owned();
    text.push_str(TRUNCATION_MARKER);
    (text, true)
}

/// The host of a URI as the message names it: with the port when it is not the
/// scheme's default, like a browser's `URL.host`.
fn uri_host(uri: &Uri) -> Option<String> {
    let host = uri.host().filter(|host| !host.is_empty())?;
    let default_port = match uri.scheme_str() {
        Some("http") => Some(80),
        Some("https") => Some(443),
        _ => None,
    };
    Some(match uri.port_u16() {
        Some(port) if Some(port) != default_port => format!("{host}:{port}"),
        _ => host.to_owned(),
    })
}

/// The wait a response's `Retry-After` header asks for, in whole seconds from
/// `now`; `None` when there is no such header or it is neither form.
fn retry_after_seconds(headers: &HeaderMap, now: SystemTime) -> Option<u64> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, now)
}

/// A `Retry-After` value (RFC 9110 §10.2.3) as whole seconds to wait from `now`.
///
/// - delta-seconds (`"120"`): taken as it is; a number too large for `u64`
///   saturates rather than being dropped, since it still means "not soon";
/// - HTTP-date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, or the obsolete RFC 850 and
///   asctime forms): the time until then, rounded up so a retry never comes
///   early, and 0 for a date already past.
///
/// Anything else (negative, fractional, garbage) is `None`.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<u64> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    // Digits first, so "120" is never read as a year.
    if value.bytes().all(|byte| byte.is_ascii_digit()) {
        return Some(value.parse::<u64>().unwrap_or(u64::MAX));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(match at.duration_since(now) {
        Ok(wait) => wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
        Err(_) => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn response(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Response<Vec<u8>> {
        let mut builder = Response::builder().status(status);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(body.to_vec()).unwrap()
    }

    #[test]
    fn no_code_below_400_and_one_for_every_error_status() {
        for status in 0..400 {
            assert_eq!(http_status_to_error_code(status), None, "status {status}");
        }
        for status in 400..=999 {
            assert!(http_status_to_error_code(status).is_some(), "status {status}");
        }
    }

    #[test]
    fn specific_statuses_win_over_their_class() {
        use JsonRpcErrorCode::*;
        let table = [
            (400, InvalidParams),
            (401, Unauthorized),
            (402, Forbidden),
            (403, Forbidden),
            (404, NotFound),
            (405, InvalidRequest),
            (408, Timeout),
            (409, Conflict),
            (410, InvalidRequest),
            (422, ValidationError),
            (423, Conflict),
            (424, Conflict),
            (425, Timeout),
            (429, RateLimited),
            (451, InvalidRequest),
            (499, InvalidRequest),
            (500, ServiceUnavailable),
            (501, ServiceUnavailable),
            (502, ServiceUnavailable),
            (503, ServiceUnavailable),
            (504, Timeout),
            (505, ServiceUnavailable),
            (599, ServiceUnavailable),
        ];
        for (status, code) in table {
            assert_eq!(http_status_to_error_code(status), Some(code), "status {status}");
        }
    }

    #[test]
    fn message_names_service_status_and_reason() {
        let options = HttpErrorOptions::new().request_uri("https://api.example.com/v1/x?key=s3cret".parse().unwrap());
        let err = http_error_from_response(&response(429, &[], b""), &options);
        assert_eq!(err.message(), "api.example.com returned HTTP 429 Too Many Requests.");
        let named = http_error_from_response(&response(429, &[], b""), &options.clone().service("NCBI"));
        assert_eq!(named.message(), "NCBI returned HTTP 429 Too Many Requests.");
        let anonymous = http_error_from_response(&response(502, &[], b""), &HttpErrorOptions::new());
        assert_eq!(anonymous.message(), "Upstream service returned HTTP 502 Bad Gateway.");
        let unknown_reason = http_error_from_response(&response(599, &[], b""), &HttpErrorOptions::new());
        assert_eq!(unknown_reason.message(), "Upstream service returned HTTP 599.");
        assert!(unknown_reason.data().unwrap().get("statusText").is_none());
    }

    #[test]
    fn a_501_is_unavailable_and_not_retryable_and_no_status_says_this_server_failed() {
        let err = http_error_from_response(&response(501, &[], b""), &HttpErrorOptions::new());
        assert_eq!(err.code(), JsonRpcErrorCode::ServiceUnavailable);
        assert_eq!(err.data().unwrap()["retryable"], false);
        let other = http_error_from_response(&response(500, &[], b""), &HttpErrorOptions::new());
        assert!(other.data().unwrap().get("retryable").is_none(), "an upstream 500 is retried (0.12.4)");
        assert!((100..=999).all(|status| http_status_to_error_code(status) != Some(JsonRpcErrorCode::InternalError)));
    }

    #[test]
    fn only_allow_listed_headers_reach_data_and_never_set_cookie() {
        let headers =
            [("X-Request-Id", "up-1"), ("x-ratelimit-remaining", "0"), ("set-cookie", "sid=1"), ("x-key", "k")];
        let names =
            ["x-request-id", "x-ratelimit-remaining", "set-cookie", "x-absent"].map(http::HeaderName::from_static);
        let options = HttpErrorOptions::new().error_headers(names);
        let err = http_error_from_response(&response(429, &headers, b""), &options);
        assert_eq!(err.data().unwrap()["headers"], json!({"x-request-id": "up-1", "x-ratelimit-remaining": "0"}));
        let none = http_error_from_response(&response(429, &headers, b""), &HttpErrorOptions::new());
        assert!(none.data().unwrap().get("headers").is_none(), "no header is copied unless named");
        let mut twice = response(429, &[], b"");
        twice.headers_mut().append("x-trace", "a".parse().unwrap());
        twice.headers_mut().append("x-trace", "b".parse().unwrap());
        let options = HttpErrorOptions::new().error_headers([http::HeaderName::from_static("x-trace")]);
        assert_eq!(http_error_from_response(&twice, &options).data().unwrap()["headers"]["x-trace"], "a, b");
    }

    #[test]
    fn host_keeps_a_non_default_port_only() {
        let host = |uri: &str| uri_host(&uri.parse().unwrap());
        assert_eq!(host("https://api.example.com:443/x").as_deref(), Some("api.example.com"));
        assert_eq!(host("http://localhost:8080/x").as_deref(), Some("localhost:8080"));
        assert_eq!(host("/relative/only"), None);
    }

    #[test]
    fn url_reaches_data_only_on_request() {
        let uri: Uri = "https://api.example.com/v1/x?key=s3cret".parse().unwrap();
        let quiet =
            http_error_from_response(&response(500, &[], b""), &HttpErrorOptions::new().request_uri(uri.clone()));
        assert!(quiet.data().unwrap().get("url").is_none());
        let loud = http_error_from_response(
            &response(500, &[], b""),
            &HttpErrorOptions::new().request_uri(uri).include_url(true),
        );
        assert_eq!(loud.data().unwrap()["url"], "https://api.example.com/v1/x?key=s3cret");
    }

    /// Regression: an upstream's body went into `data.body` (and the log) as it
    /// came, secrets included, though `try_catch` redacts logged input.
    #[test]
    fn captured_bodies_are_redacted_like_logged_input() {
        let body = br#"{"error":"invalid credentials","password":"hunter2","echo":{"api_key":"k-123"}}"#;
        let err = http_error_from_response(&response(401, &[], body), &HttpErrorOptions::new());
        let captured = err.data().unwrap()["body"].as_str().unwrap().to_owned();
        assert!(!captured.contains("hunter2") && !captured.contains("k-123"), "{captured}");
        assert!(captured.contains("invalid credentials"), "{captured}");
        let form = b"grant_type=client_credentials&client_secret=s3cr3t&scope=read";
        let err = http_error_from_response(&response(400, &[], form), &HttpErrorOptions::new());
        assert_eq!(err.data().unwrap()["body"], "grant_type=client_credentials&client_secret=[REDACTED]&scope=read");
        // A secret the limit cuts is not half shown.
        let long = format!("{}token=abcdefghijklmnopqrstuvwxyz", "x ".repeat(240));
        let err = http_error_from_response(&response(500, &[], long.as_bytes()), &HttpErrorOptions::new());
        assert!(!err.data().unwrap()["body"].as_str().unwrap().contains("abcdef"));
    }

    #[test]
    fn data_has_status_text_and_body() {
        let err = http_error_from_response(&response(409, &[], b"{\"e\":\"exists\"}"), &HttpErrorOptions::new());
        assert_eq!(err.code(), JsonRpcErrorCode::Conflict);
        assert_eq!(
            serde_json::to_value(err.data().unwrap()).unwrap(),
            json!({"status": 409, "statusText": "Conflict", "body": "{\"e\":\"exists\"}"})
        );
    }

    #[test]
    fn body_capture_can_be_turned_off() {
        let err =
            http_error_from_response(&response(500, &[], b"stack trace"), &HttpErrorOptions::new().capture_body(false));
        assert!(err.data().unwrap().get("body").is_none());
    }

    #[test]
    fn long_body_is_cut_at_the_limit_and_marked() {
        let body = "x".repeat(600);
        let err = http_error_from_response(&response(500, &[], body.as_bytes()), &HttpErrorOptions::new());
        let data = err.data().unwrap();
        assert_eq!(data["body"].as_str().unwrap(), format!("{}{TRUNCATION_MARKER}", "x".repeat(500)));
        assert_eq!(data["bodyTruncated"], true);
        let exact = http_error_from_response(&response(500, &[], &body.as_bytes()[..500]), &HttpErrorOptions::new());
        assert_eq!(exact.data().unwrap()["body"].as_str().unwrap().len(), 500);
        assert!(exact.data().unwrap().get("bodyTruncated").is_none());
    }

    #[test]
    fn cut_never_splits_a_character() {
        // "é" is two bytes, "€" three, "𝄞" four: put each across the limit.
        for (ch, width) in [('é', 2), ('€', 3), ('𝄞', 4)] {
            for offset in 1..width {
                let mut body = "a".repeat(10 - offset);
                body.push(ch);
                body.push_str("tail");
                let (text, truncated) = body_excerpt(body.as_bytes(), 10);
                assert!(truncated);
                assert_eq!(text, format!("{}{TRUNCATION_MARKER}", "a".repeat(10 - offset)), "{ch} at {offset}");
            }
        }
        let (text, truncated) = body_excerpt("aé".as_bytes(), 3);
        assert_eq!((text.as_str(), truncated), ("aé", false));
    }

    #[test]
    fn binary_body_is_lossy_text() {
        let (text, truncated) = body_excerpt(&[0x66, 0xFF, 0x6F], 10);
        assert_eq!((text.as_str(), truncated), ("f\u{FFFD}o", false));
        let (text, _) = body_excerpt(&[0xFF; 5], 0);
        assert_eq!(text, TRUNCATION_MARKER);
    }

    #[test]
    fn retry_after_as_delta_seconds() {
        let err = http_error_from_response(&response(503, &[("Retry-After", "120")], b""), &HttpErrorOptions::new());
        assert_eq!(err.data().unwrap()["retryAfter"], 120);
    }

    #[test]
    fn retry_after_as_http_date() {
        let in_a_minute = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(61));
        let err =
            http_error_from_response(&response(429, &[("retry-after", &in_a_minute)], b""), &HttpErrorOptions::new());
        let seconds = err.data().unwrap()["retryAfter"].as_u64().unwrap();
        // The date has whole-second precision and the clock moves on; never early, never long.
        assert!((59..=61).contains(&seconds), "{seconds}");
    }

    #[test]
    fn retry_after_parsing() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_450);
        assert_eq!(parse_retry_after("0", now), Some(0));
        assert_eq!(parse_retry_after("99999999999999999999999", now), Some(u64::MAX));
        assert_eq!(parse_retry_after("Wednesday, 21-Oct-15 07:28:00 GMT", now), Some(30));
        assert_eq!(parse_retry_after("Wed Oct 21 07:28:00 2015", now), Some(30));
        let half_second_before = now + Duration::from_millis(500);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", half_second_before), Some(30));
        for bad in ["", "  ", "1.5", "-1", "+3", "soon", "Wed, 32 Oct 2015 07:28:00 GMT"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad:?}");
        }
        let err = http_error_from_response(&response(503, &[("retry-after", "later")], b""), &HttpErrorOptions::new());
        assert!(err.data().unwrap().get("retryAfter").is_none());
    }

    #[test]
    fn override_and_extra_data_win() {
        let options = HttpErrorOptions::new()
            .code_override(|status| (status == 404).then_some(JsonRpcErrorCode::InvalidParams))
            .data(json!({"endpoint": "esearch", "status": "overridden"}));
        let overridden = http_error_from_response(&response(404, &[], b""), &options);
        assert_eq!(overridden.code(), JsonRpcErrorCode::InvalidParams);
        assert_eq!(overridden.data().unwrap()["endpoint"], "esearch");
        assert_eq!(overridden.data().unwrap()["status"], "overridden");
        let fallthrough = http_error_from_response(&response(403, &[], b""), &options);
        assert_eq!(fallthrough.code(), JsonRpcErrorCode::Forbidden);
    }

    #[test]
    fn success_status_passed_in_anyway_is_an_internal_error() {
        let err = http_error_from_response(&response(302, &[], b""), &HttpErrorOptions::new());
        assert_eq!(err.code(), JsonRpcErrorCode::InternalError);
        assert!(!err.is_transient());
        assert_eq!(err.message(), "Upstream service returned HTTP 302 Found.");
    }

    /// One-shot HTTP/1.1 server on loopback: answers the first request with `response`.
    #[cfg(feature = "reqwest")]
    fn serve_once(response: Vec<u8>) -> (std::net::SocketAddr, std::thread::JoinHandle<()>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
            }
            // The client may hang up once it has read enough of the body.
            let _ = stream.write_all(&response);
        });
        (addr, handle)
    }

    #[cfg(feature = "reqwest")]
    #[tokio::test]
    async fn reqwest_response_becomes_the_same_error() {
        let body = "e".repeat(100_000);
        let raw = format!(
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 12\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let (addr, server) = serve_once(raw.into_bytes());
        let response = reqwest::Client::new().get(format!("http://{addr}/v1/objects?key=s3cret")).send().await.unwrap();
        let err = http_error_from_reqwest(response, &HttpErrorOptions::new().body_limit(50)).await;
        server.join().unwrap();
        assert_eq!(err.code(), JsonRpcErrorCode::RateLimited);
        assert_eq!(err.message(), format!("{addr} returned HTTP 429 Too Many Requests."));
        let data = err.data().unwrap();
        assert_eq!(data["retryAfter"], 12);
        assert_eq!(data["body"].as_str().unwrap(), format!("{}{TRUNCATION_MARKER}", "e".repeat(50)));
        assert_eq!(data["bodyTruncated"], true);
        assert!(data.get("url").is_none());
    }

    #[test]
    fn parts_and_status_forms_agree_with_the_response_form() {
        let whole = response(504, &[("retry-after", "7")], b"gateway timeout");
        let options = HttpErrorOptions::new().service("Svc");
        let from_whole = http_error_from_response(&whole, &options);
        let (parts, body) = whole.into_parts();
        assert_eq!(http_error_from_parts(&parts, &body, &options), from_whole);
        assert_eq!(http_error_from_status(parts.status, &parts.headers, &body, &options), from_whole);
        assert_eq!(from_whole.code(), JsonRpcErrorCode::Timeout);
    }

    #[test]
    fn parse_retry_after_reads_seconds_and_dates() {
        use std::time::{Duration, SystemTime};
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_450); // 07:27:30 GMT
        assert_eq!(parse_retry_after(" 120 ", now), Some(120));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(30));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now), Some(0));
        assert_eq!(parse_retry_after("-5", now), None);
    }
}
