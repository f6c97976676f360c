//! An example's server on a loopback port, and the plain HTTP requests the
//! HTTP examples' tests send it: what a Streamable HTTP client puts on the
//! wire, without a client library between the test and the server.

use std::time::Duration;

use mcp_contract::server::{HttpOptions, Server};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A served server; stops when dropped.
pub(crate) struct Loopback {
    /// `http://127.0.0.1:<port>`.
    pub(crate) base: String,
    stop: CancellationToken,
    http: reqwest::Client,
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Serve `server` (its `state_with` factories first) on a free loopback port.
pub(crate) async fn serve(server: Server) -> Loopback {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("bound"));
    let stop = CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    let server = server.build_state().await.expect("the state builds").build().expect("the server builds");
    tokio::spawn(server.serve_http_on(listener, options));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().expect("a client");
    Loopback { base, stop, http }
}

/// An answer of the MCP endpoint: its status, headers and JSON-RPC message
/// (the last one of an SSE stream), if any.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: reqwest::header::HeaderMap,
    pub(crate) message: Value,
}

impl Answer {
    pub(crate) fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|value| value.to_str().ok()).unwrap_or("")
    }
}

impl Loopback {
    pub(crate) async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(format!("{}{path}", self.base)).send().await.expect("the server answers")
    }

    /// POST `message` to `/mcp` with `headers` beside the content type and `Accept`.
    pub(crate) async fn post(&self, headers: &[(&str, &str)], message: &Value) -> Answer {
        let mut request = self
            .http
            .post(format!("{}/mcp", self.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("the server answers");
        let (status, headers) = (response.status().as_u16(), response.headers().clone());
        let body = response.text().await.expect("a body");
        // A JSON answer, or an SSE stream whose last `data:` line is the answer.
        let message = serde_json::from_str(&body).ok().or_else(|| {
            body.lines()
                .rev()
                .filter_map(|line| line.strip_prefix("data:"))
                .find_map(|data| serde_json::from_str(data.trim()).ok())
        });
        Answer { status, headers, message: message.unwrap_or(Value::Null) }
    }

    /// One request on revision 2026-07-28, which needs no session: the
    /// protocol version, client and its `capabilities` in `_meta`, and the
    /// routing headers; `bearer` is a token for `Authorization`.
    pub(crate) async fn stateless(
        &self,
        method: &str,
        mut params: Value,
        capabilities: Value,
        bearer: Option<&str>,
    ) -> Answer {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "examples", "version": "1.0.0"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        // `Mcp-Name` routes by the tool, resource or prompt, or by the task of a `tasks/*` request.
        let name = params["name"].as_str().or(params["taskId"].as_str()).unwrap_or_default().to_owned();
        let authorization = bearer.map(|token| format!("Bearer {token}"));
        let mut headers = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
        if !name.is_empty() {
            headers.push(("mcp-name", &name));
        }
        if let Some(authorization) = &authorization {
            headers.push(("authorization", authorization));
        }
        self.post(&headers, &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})).await
    }

    /// A 2025-06-18 session: `initialize`, then `notifications/initialized`; its id.
    #[cfg_attr(not(feature = "redis"), allow(dead_code, reason = "the replicas example's tests, feature `redis`"))]
    pub(crate) async fn session(&self) -> String {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "examples", "version": "1.0.0"},
        }});
        let answer = self.post(&[], &initialize).await;
        assert_eq!(answer.status, 200, "{}", answer.message);
        let session = answer.header("mcp-session-id").to_owned();
        assert!(!session.is_empty(), "a session id");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(self.on(&session, &initialized).await.status, 202);
        session
    }

    /// POST `message` on `session`, whichever replica opened it.
    #[cfg_attr(not(feature = "redis"), allow(dead_code, reason = "the replicas example's tests, feature `redis`"))]
    pub(crate) async fn on(&self, session: &str, message: &Value) -> Answer {
        self.post(&[("mcp-session-id", session), ("mcp-protocol-version", "2025-06-18")], message).await
    }
}
