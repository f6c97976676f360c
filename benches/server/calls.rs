//! The server that `benches/calls_callgrind.py` runs under callgrind (and
//! `stdio_load.py`, `http_load.py`, `sessions_memory.py` and
//! `stateless_memory.py` run side by side): one tool
//! (input `{id, limit?}`, output `{name, count}`), written with this crate (in
//! its default configuration: argument repair on, telemetry off, a two-reason
//! error contract) or with rmcp's `#[tool]`, the same body, served over stdio
//! or Streamable HTTP. `CALLS_STATELESS=1` makes either HTTP server stateless
//! (no sessions: this crate's `HttpOptions::stateless`, rmcp's
//! `legacy_session_mode` off), for `benches/stateless_memory.py`.
//!
//! `CALLS_SERVER=ours|rmcp CALLS_TRANSPORT=stdio|http`: stdio serves stdin
//! until it ends; http serves on a loopback port, which it prints to stderr
//! as `listening on <port>`, until its stdin ends (`CALLS_MAX_SESSIONS` raises
//! this crate's session cap, `CALLS_MAX_AWAKE_SESSIONS` its cap of awake
//! sessions and `CALLS_HIBERNATE_AFTER_MS` lets its idle sessions hibernate,
//! for `benches/sessions_memory.py`;
//! `CALLS_NO_EVENT_STORE=1` serves this crate's sessions without the event
//! store kept for resumption, as rmcp's `LocalSessionManager` serves by
//! default, for `benches/http_load.py`'s `ours-no-store`). Run without them,
//! it says where it is used and returns.
//!
//! The binary `calls` of the package `mcp-contract-bench-server`, which the
//! scripts build with `cargo build --release -p mcp-contract-bench-server`:
//! this crate with its default features, as a user builds it.

use std::sync::Arc;

use axum::serve::ListenerExt;
use mcp_contract::prelude::*;
use mcp_contract::server::{HttpOptions, StdioOptions};
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServiceExt, tool, tool_router};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

#[derive(Deserialize, JsonSchema)]
pub struct LookupInput {
    /// The item's id.
    pub id: String,
    /// How many to count at most.
    pub limit: Option<u32>,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct LookupOutput {
    /// The item's name.
    pub name: String,
    /// How many there are.
    pub count: u32,
}

/// Why the body fails: the two reasons of the contract.
enum Failure {
    NoSuchItem,
    CatalogBusy,
}

/// The body both servers share.
fn body(input: LookupInput) -> Result<LookupOutput, Failure> {
    match (input.id.as_str(), input.limit) {
        ("", _) => Err(Failure::NoSuchItem),
        (_, Some(0)) => Err(Failure::CatalogBusy),
        (id, limit) => Ok(LookupOutput { name: format!("item {id}"), count: limit.unwrap_or(10).min(100) }),
    }
}

/// Look an item up.
#[mcp_tool(
    annotations(read_only, open_world = false),
    errors(
        no_such_item(code = NotFound, when = "No item has this id",
            recovery = "List the items to find a valid id."),
        catalog_busy(code = RateLimited, retryable, when = "The catalog throttles us",
            recovery = "Wait a second, then call lookup again."),
    ),
)]
async fn lookup(input: LookupInput, ctx: Ctx) -> Result<LookupOutput, McpError> {
    body(input).map_err(|failure| match failure {
        Failure::NoSuchItem => ctx.fail(no_such_item, "No item has an empty id."),
        Failure::CatalogBusy => ctx.fail(catalog_busy, "The catalog is busy."),
    })
}

/// The same tool, written directly with rmcp's macros.
#[derive(Clone)]
struct PlainRmcp;

#[tool_router(server_handler)]
impl PlainRmcp {
    #[tool(description = "Look an item up.")]
    async fn lookup(&self, Parameters(input): Parameters<LookupInput>) -> Result<Json<LookupOutput>, rmcp::ErrorData> {
        body(input).map(Json).map_err(|failure| match failure {
            Failure::NoSuchItem => rmcp::ErrorData::resource_not_found("No item has an empty id.", None),
            Failure::CatalogBusy => rmcp::ErrorData::internal_error("The catalog is busy.", None),
        })
    }
}

fn ours() -> mcp_contract::server::ToolServer {
    Server::new("bench", "0").tool(Lookup).build().expect("the server builds")
}

/// Cancelled once stdin ends: how the script stops an HTTP server.
fn stdin_closed() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        cancel.cancel();
    });
    token
}

/// `CALLS_STATELESS=1`: serve HTTP without sessions.
fn stateless() -> bool {
    std::env::var("CALLS_STATELESS").is_ok_and(|value| value == "1")
}

async fn listen() -> TcpListener {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    eprintln!("listening on {}", listener.local_addr().expect("bound").port());
    listener
}

async fn serve(server: &str, transport: &str) {
    match (server, transport) {
        ("ours", "stdio") => {
            ours().serve_stdio_with(StdioOptions::default().without_signal_handling()).await.expect("served");
        }
        ("rmcp", "stdio") => {
            let running = PlainRmcp.serve(rmcp::transport::stdio()).await.expect("initialized");
            let _ = running.waiting().await;
        }
        ("ours", "http") if stateless() => {
            let options = HttpOptions::default().without_signal_handling().shutdown_token(stdin_closed());
            ours().serve_http_on(listen().await, options.stateless(true)).await.expect("served");
        }
        ("ours", "http") => {
            let mut options = HttpOptions::default().without_signal_handling().shutdown_token(stdin_closed());
            // benches/sessions_memory.py holds more sessions than the default cap of 1,024.
            if let Some(max) = std::env::var("CALLS_MAX_SESSIONS").ok().and_then(|max| max.parse().ok()) {
                options = options.max_sessions(max).session_idle_timeout(std::time::Duration::from_secs(3600));
            }
            if let Some(max) = std::env::var("CALLS_MAX_AWAKE_SESSIONS").ok().and_then(|max| max.parse().ok()) {
                options = options.max_awake_sessions(max);
            }
            if let Some(after) = std::env::var("CALLS_HIBERNATE_AFTER_MS").ok().and_then(|ms| ms.parse().ok()) {
                options = options.session_hibernate_after(std::time::Duration::from_millis(after));
            }
            if std::env::var("CALLS_NO_EVENT_STORE").is_ok_and(|value| value == "1") {
                options = options.without_event_store();
            }
            ours().serve_http_on(listen().await, options).await.expect("served");
        }
        ("rmcp", "http") => {
            let stop = stdin_closed();
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(!stateless())
                .with_cancellation_token(stop.clone());
            let service =
                StreamableHttpService::new(|| Ok(PlainRmcp), Arc::new(LocalSessionManager::default()), config);
            let router = axum::Router::new().nest_service("/mcp", service);
            // As this crate serves its sockets: without it, Nagle's algorithm
            // holds each SSE answer for the client's delayed ACK (about 40 ms).
            let listener = listen().await.tap_io(|socket| {
                let _ = socket.set_nodelay(true);
            });
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await
                .expect("served");
        }
        _ => panic!("CALLS_SERVER is ours or rmcp, CALLS_TRANSPORT stdio or http"),
    }
}

fn main() {
    let (Ok(server), Ok(transport)) = (std::env::var("CALLS_SERVER"), std::env::var("CALLS_TRANSPORT")) else {
        eprintln!("calls: a server for benches/calls_callgrind.py, which runs it under callgrind");
        return;
    };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(serve(&server, &transport));
}
