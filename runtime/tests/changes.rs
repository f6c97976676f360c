//! Run-time changes ([`Changes`]): `resources/subscribe` and `unsubscribe`,
//! `notifications/resources/updated` to the subscribed sessions only, and the
//! `list_changed` notifications of enabling and disabling a tool, resource or
//! prompt, against rmcp's own client (in process) and over Streamable HTTP.
#![allow(deprecated, reason = "resources/subscribe is the 2025-x method under test; rmcp marks it legacy")]

use std::sync::LazyLock;
use std::time::Duration;

use mcp_contract_runtime::define::{NoArguments, ReadResourceResult, Resource, ResourceDefinition};
use mcp_contract_runtime::define::{Prompt, PromptDefinition, PromptMessage};
use mcp_contract_runtime::server::{Changes, HttpOptions, PrimitiveKind, Server};
use mcp_contract_runtime::{Context, McpError};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, GetPromptRequestParams, ReadResourceRequestParams,
    ResourceUpdatedNotificationParam, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

mod support;
use support::{Echo, HttpClient};

static WATCHED: ResourceDefinition = ResourceDefinition::new("museum://exhibitions/current", "current_exhibition")
    .with_description("The exhibition on show now; announces updates.")
    .with_mime_type("text/plain");

struct Watched;

impl Resource for Watched {
    type Params = NoArguments;

    fn definition(&self) -> &'static ResourceDefinition {
        &WATCHED
    }

    async fn read(&self, _uri: &str, _params: NoArguments, _ctx: Context) -> Result<ReadResourceResult, McpError> {
        Ok(ReadResourceResult::text("Ancient Egypt, until March."))
    }
}

static TOUR: LazyLock<PromptDefinition> =
    LazyLock::new(|| PromptDefinition::new("plan_tour", Vec::new()).with_description("Plan a tour of the museum."));

struct Tour;

impl Prompt for Tour {
    type Arguments = NoArguments;

    fn definition(&self) -> &'static PromptDefinition {
        &TOUR
    }

    async fn get(&self, _arguments: NoArguments, _ctx: Context) -> Result<Vec<PromptMessage>, McpError> {
        Ok(vec![PromptMessage::user("Plan a one-hour tour.")])
    }
}

/// How long a test waits for a notification that must come.
const COMES: Duration = Duration::from_secs(5);
/// How long a test waits to be sure a notification does not come.
const NEVER: Duration = Duration::from_millis(300);

/// A client that records the notifications it receives.
#[derive(Clone)]
struct Recorder(mpsc::UnboundedSender<Value>);

impl ClientHandler for Recorder {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(json!({"updated": params.uri}));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(json!("tools"));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(json!("resources"));
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(json!("prompts"));
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

type Client = RunningService<RoleClient, Recorder>;

fn server(changes: &Changes) -> Server {
    Server::new("museum", "1.0.0").tool(Echo).resource(Watched).prompt(Tour).changes(changes.clone())
}

/// One session: a server built from the shared `changes`, served to a client over a pipe.
async fn session(changes: &Changes) -> (Client, mpsc::UnboundedReceiver<Value>) {
    let built = server(changes).build().expect("the server builds");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = built.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, rx) = mpsc::unbounded_channel();
    let client = Recorder(tx).serve(client_io).await.expect("the client connects");
    (client, rx)
}

async fn next(rx: &mut mpsc::UnboundedReceiver<Value>, within: Duration) -> Option<Value> {
    tokio::time::timeout(within, rx.recv()).await.ok().flatten()
}

/// Wait (bounded) until `done` holds.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + COMES;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "{what} did not happen within {COMES:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn capabilities_advertise_subscribe_and_list_changed_only_with_changes() {
    let with = server(&Changes::new()).build().unwrap();
    let capabilities = &with.config().capabilities;
    assert_eq!(capabilities.resources.as_ref().and_then(|r| r.subscribe), Some(true));
    assert_eq!(capabilities.resources.as_ref().and_then(|r| r.list_changed), Some(true));
    assert_eq!(capabilities.tools.as_ref().and_then(|t| t.list_changed), Some(true));
    assert_eq!(capabilities.prompts.as_ref().and_then(|p| p.list_changed), Some(true));

    let without = Server::new("museum", "1.0.0").resource(Watched).build().unwrap();
    let capabilities = &without.config().capabilities;
    assert_eq!(capabilities.resources.as_ref().and_then(|r| r.subscribe), None);
    assert_eq!(capabilities.tools.as_ref().and_then(|t| t.list_changed), None);
}

#[tokio::test]
async fn resources_subscribe_and_unsubscribe_without_changes_are_method_not_found() {
    let built = Server::new("museum", "1.0.0").resource(Watched).build().unwrap();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = built.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, _rx) = mpsc::unbounded_channel();
    let client = Recorder(tx).serve(client_io).await.unwrap();
    let err = client.subscribe(SubscribeRequestParams::new(WATCHED.uri)).await.unwrap_err();
    assert!(format!("{err:?}").contains("-32601"), "{err:?}");
    let err = client.unsubscribe(UnsubscribeRequestParams::new(WATCHED.uri)).await.unwrap_err();
    assert!(format!("{err:?}").contains("-32601"), "{err:?}");
}

#[tokio::test]
async fn an_update_reaches_the_subscribed_sessions_only_until_they_unsubscribe() {
    let changes = Changes::new();
    let (subscribed, mut subscribed_rx) = session(&changes).await;
    let (bystander, mut bystander_rx) = session(&changes).await;
    eventually("both sessions initialized", || changes.sessions() == 2).await;

    subscribed.subscribe(SubscribeRequestParams::new(WATCHED.uri)).await.expect("subscribe answers {}");
    // Subscribing twice is one subscription.
    subscribed.subscribe(SubscribeRequestParams::new(WATCHED.uri)).await.expect("subscribe answers {}");
    assert_eq!(changes.subscriptions(), 1);

    assert_eq!(changes.resource_updated(WATCHED.uri).await, 1, "one session is subscribed");
    assert_eq!(next(&mut subscribed_rx, COMES).await, Some(json!({"updated": WATCHED.uri})));
    assert_eq!(next(&mut bystander_rx, NEVER).await, None, "the other session did not subscribe");
    // Another URI reaches nobody.
    assert_eq!(changes.resource_updated("museum://exhibitions/next").await, 0);

    subscribed.unsubscribe(UnsubscribeRequestParams::new(WATCHED.uri)).await.expect("unsubscribe answers {}");
    // Unsubscribing from what it never subscribed to is no error.
    bystander.unsubscribe(UnsubscribeRequestParams::new(WATCHED.uri)).await.expect("unsubscribe answers {}");
    assert_eq!(changes.resource_updated(WATCHED.uri).await, 0);
    assert_eq!(next(&mut subscribed_rx, NEVER).await, None);
}

#[tokio::test]
async fn subscribing_to_a_uri_no_resource_serves_is_refused_as_a_read_is() {
    let changes = Changes::new();
    let (client, _rx) = session(&changes).await;
    let err = client.subscribe(SubscribeRequestParams::new("museum://nowhere")).await.unwrap_err();
    let text = format!("{err:?}");
    assert!(text.contains("-32002") && text.contains("museum://nowhere"), "{text}");
    assert_eq!(changes.subscriptions(), 0);
}

#[tokio::test]
async fn subscriptions_per_session_are_bounded() {
    static TEMPLATE: ResourceDefinition = ResourceDefinition::new("museum://rooms/{room}", "room");
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Room {
        #[allow(dead_code, reason = "read by the URI template match")]
        room: String,
    }
    struct Rooms;
    impl Resource for Rooms {
        type Params = Room;
        fn definition(&self) -> &'static ResourceDefinition {
            &TEMPLATE
        }
        async fn read(&self, _uri: &str, _params: Room, _ctx: Context) -> Result<ReadResourceResult, McpError> {
            Ok(ReadResourceResult::text("a room"))
        }
    }
    let changes = Changes::with_limits(2, Duration::from_secs(1));
    let built = Server::new("museum", "1.0.0").resource(Rooms).changes(changes.clone()).build().unwrap();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = built.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, _rx) = mpsc::unbounded_channel();
    let client = Recorder(tx).serve(client_io).await.unwrap();
    client.subscribe(SubscribeRequestParams::new("museum://rooms/a")).await.unwrap();
    client.subscribe(SubscribeRequestParams::new("museum://rooms/b")).await.unwrap();
    let err = client.subscribe(SubscribeRequestParams::new("museum://rooms/c")).await.unwrap_err();
    let text = format!("{err:?}");
    assert!(text.contains("-32602") && text.contains("resources/unsubscribe"), "{text}");
    // One already held is no new subscription.
    client.subscribe(SubscribeRequestParams::new("museum://rooms/b")).await.unwrap();
    client.unsubscribe(UnsubscribeRequestParams::new("museum://rooms/a")).await.unwrap();
    client.subscribe(SubscribeRequestParams::new("museum://rooms/c")).await.unwrap();
    assert_eq!(changes.subscriptions(), 2);
}

#[tokio::test]
async fn a_closed_session_is_forgotten_with_its_subscriptions() {
    let changes = Changes::new();
    let (client, _rx) = session(&changes).await;
    client.subscribe(SubscribeRequestParams::new(WATCHED.uri)).await.unwrap();
    assert_eq!((changes.sessions(), changes.subscriptions()), (1, 1));
    client.cancel().await.expect("the client closes");
    eventually("the closed session forgotten", || changes.sessions() == 0).await;
    assert_eq!(changes.subscriptions(), 0);
    assert_eq!(changes.resource_updated(WATCHED.uri).await, 0);
}

#[tokio::test]
async fn disabling_hides_and_refuses_and_announces_once_per_change() {
    let changes = Changes::new();
    let (client, mut rx) = session(&changes).await;
    eventually("the session initialized", || changes.sessions() == 1).await;

    changes.disable_prompt(TOUR.name).await;
    assert_eq!(next(&mut rx, COMES).await, Some(json!("prompts")));
    assert!(client.list_prompts(None).await.unwrap().prompts.is_empty(), "a disabled prompt is not listed");
    let err = client.get_prompt(GetPromptRequestParams::new(TOUR.name)).await.unwrap_err();
    assert!(format!("{err:?}").contains("Unknown prompt"), "{err:?}");
    // Disabling what is disabled changes nothing and announces nothing.
    changes.disable_prompt(TOUR.name).await;
    assert_eq!(next(&mut rx, NEVER).await, None);

    changes.disable_resource(WATCHED.name).await;
    assert_eq!(next(&mut rx, COMES).await, Some(json!("resources")));
    assert!(client.list_resources(None).await.unwrap().resources.is_empty());
    let err = client.read_resource(ReadResourceRequestParams::new(WATCHED.uri)).await.unwrap_err();
    assert!(format!("{err:?}").contains("No resource matches"), "{err:?}");
    let err = client.subscribe(SubscribeRequestParams::new(WATCHED.uri)).await.unwrap_err();
    assert!(format!("{err:?}").contains("-32002"), "{err:?}");

    changes.enable_resource(WATCHED.name).await;
    changes.enable_prompt(TOUR.name).await;
    assert_eq!(next(&mut rx, COMES).await, Some(json!("resources")));
    assert_eq!(next(&mut rx, COMES).await, Some(json!("prompts")));
    assert_eq!(client.list_prompts(None).await.unwrap().prompts.len(), 1);
    client.read_resource(ReadResourceRequestParams::new(WATCHED.uri)).await.expect("enabled again");

    changes.disable_tool("echo").await;
    assert_eq!(next(&mut rx, COMES).await, Some(json!("tools")));
    assert!(client.list_tools(None).await.unwrap().tools.is_empty(), "a disabled tool is not listed");
    let call = CallToolRequestParams::new("echo").with_arguments(json!({"text": "hi"}).as_object().unwrap().clone());
    let err = client.call_tool(call.clone()).await.unwrap_err();
    assert!(format!("{err:?}").contains("Unknown tool `echo`"), "{err:?}");
    changes.enable_tool("echo").await;
    assert_eq!(next(&mut rx, COMES).await, Some(json!("tools")));
    assert!(client.call_tool(call).await.is_ok(), "enabled again, the tool runs");

    // An announcement of the application's own.
    assert_eq!(changes.list_changed(PrimitiveKind::Tool).await, 1);
    assert_eq!(next(&mut rx, COMES).await, Some(json!("tools")));
}

/// Over Streamable HTTP: a session subscribes, then ends with `DELETE`; the
/// server forgets it, and its subscription with it.
#[tokio::test]
async fn an_http_session_that_ends_is_forgotten() {
    let changes = Changes::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(stop.clone()).without_signal_handling();
    tokio::spawn(server(&changes).build().unwrap().serve_http_on(listener, options));
    let _stop = stop.drop_guard();

    let mut client = HttpClient::session(addr).await;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "resources/subscribe", "params": {"uri": WATCHED.uri}});
    let answer = client.post(body.to_string().as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.message()["result"], json!({}), "{}", answer.text());
    assert_eq!((changes.sessions(), changes.subscriptions()), (1, 1));

    let answer = client.request("DELETE", &[], b"").await;
    assert_eq!(answer.status, 204, "an ended session is answered 204 No Content: {}", answer.text());
    eventually("the deleted session forgotten", || changes.sessions() == 0).await;
    assert_eq!(changes.resource_updated(WATCHED.uri).await, 0);
}

/// Regression (issue 34): over stdio, a 2026-07-28 `subscriptions/listen`
/// was acknowledged under the transport's own counter (`0`, `1`) instead of
/// the request's id, so no client matched it. The acknowledgement and each
/// notification of the stream carry the id as the client sent it, a string
/// or a number, as over HTTP.
#[tokio::test]
async fn over_stdio_a_listen_stream_is_named_by_the_id_of_its_request() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let changes = Changes::new();
    let built = server(&changes).build().expect("the server builds");
    let (client, server_side) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_side);
    tokio::spawn(built.serve_io(read, write));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "listener", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut read_line = async || -> Value {
        let line = tokio::time::timeout(COMES, lines.next_line()).await.expect("an answer in time");
        serde_json::from_str(&line.expect("readable").expect("a line")).expect("JSON")
    };
    for id in [json!("zzz"), json!(77)] {
        let request = json!({
            "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"resourceSubscriptions": ["museum://exhibitions/current"]}},
        });
        write.write_all(format!("{request}\n").as_bytes()).await.unwrap();
        let ack = read_line().await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
        assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id, "{ack}");
    }
    changes.resource_updated("museum://exhibitions/current").await;
    let mut named = Vec::new();
    for _ in 0..2 {
        let update = read_line().await;
        assert_eq!(update["method"], "notifications/resources/updated", "{update}");
        named.push(update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone());
    }
    named.sort_by_key(Value::to_string);
    assert_eq!(named, [json!("zzz"), json!(77)], "one update per stream, each under its id: {named:?}");
}

/// Regression (issue 34): a clean shutdown of a server with a
/// `subscriptions/listen` stream logged rmcp's "failed to send pending
/// response during drain", and an open stream held the drain for its whole
/// grace period before it was cut. Shutdown now ends each stream with its
/// final result while its client reads, and the server stops at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_a_listen_stream_with_its_final_result_at_once() {
    let changes = Changes::new();
    let (addr, stop, served) = serve_stateless(&changes).await;

    let mut stream = open_listen(addr, "s-1").await;
    let mut read = Vec::new();
    read_until(&mut stream, &mut read, "notifications/subscriptions/acknowledged").await;
    // rmcp acknowledges a stream before it hands it to the server, which
    // then lists it: on a busy machine the client can read the acknowledgement first.
    eventually("the stream listed", || changes.listen_streams() == 1).await;

    let stopping = tokio::time::Instant::now();
    stop.cancel();
    read_until(&mut stream, &mut read, "\"result\"").await;
    let text = String::from_utf8_lossy(&read).into_owned();
    let last = text.lines().filter_map(|line| line.strip_prefix("data:")).next_back().expect("an event");
    let last: Value = serde_json::from_str(last.trim()).expect("JSON");
    assert_eq!(last["id"], "s-1", "{text}");
    assert_eq!(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "s-1", "the final result: {text}");
    assert!(!text.contains("-32000"), "not cut as shutting down: {text}");
    tokio::time::timeout(Duration::from_secs(3), served).await.expect("the server stops at once").unwrap().unwrap();
    assert!(stopping.elapsed() < Duration::from_secs(3), "far within the 10 s grace: {:?}", stopping.elapsed());
    eventually("the stream forgotten", || changes.listen_streams() == 0).await;
}

/// Over stdio too, shutdown ends a listen stream with its final result
/// rather than hold the drain for its grace period.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_shutdown_ends_a_listen_stream_with_its_final_result_at_once() {
    use mcp_contract_runtime::server::StdioOptions;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let changes = Changes::new();
    let stop = CancellationToken::new();
    let options = StdioOptions::default().without_signal_handling().shutdown_token(stop.clone());
    let (client, server_side) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_side);
    let served = tokio::spawn(server(&changes).build().unwrap().serve_io_with(read, write, options));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let request = json!({
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "listener", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "notifications": {"resourceSubscriptions": [WATCHED.uri]},
        },
    });
    write.write_all(format!("{request}\n").as_bytes()).await.unwrap();
    let mut next = async || -> Value {
        let line = tokio::time::timeout(COMES, lines.next_line()).await.expect("a line in time");
        serde_json::from_str(&line.expect("readable").expect("a line")).expect("JSON")
    };
    assert_eq!(next().await["method"], "notifications/subscriptions/acknowledged");
    let stopping = tokio::time::Instant::now();
    stop.cancel();
    let last = next().await;
    assert_eq!(last["id"], 9, "{last}");
    assert_eq!(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9, "the final result: {last}");
    tokio::time::timeout(Duration::from_secs(3), served).await.expect("the server stops at once").unwrap().unwrap();
    assert!(stopping.elapsed() < Duration::from_secs(3), "far within the 10 s grace: {:?}", stopping.elapsed());
}

/// A listen stream whose client went away (the connection closed) ends
/// then, instead of waiting for a client that is gone until the server stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_ends_when_its_client_goes_away() {
    let changes = Changes::new();
    let (addr, stop, _served) = serve_stateless(&changes).await;
    let _stop = stop.drop_guard();
    let mut stream = open_listen(addr, "s-2").await;
    read_until(&mut stream, &mut Vec::new(), "notifications/subscriptions/acknowledged").await;
    eventually("the stream listed", || changes.listen_streams() == 1).await;
    drop(stream);
    eventually("the stream of a client gone forgotten", || changes.listen_streams() == 0).await;
}

/// The guestbook served over stateless Streamable HTTP until `stop` is cancelled.
async fn serve_stateless(
    changes: &Changes,
) -> (
    std::net::SocketAddr,
    CancellationToken,
    tokio::task::JoinHandle<Result<(), mcp_contract_runtime::server::ServerError>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let options = HttpOptions::default().stateless(true).shutdown_token(stop.clone()).without_signal_handling();
    let served = tokio::spawn(server(changes).build().unwrap().serve_http_on(listener, options));
    (addr, stop, served)
}

/// A stateless `subscriptions/listen` of the guestbook over a connection of its own, under `id`.
async fn open_listen(addr: std::net::SocketAddr, id: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "listener", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "notifications": {"resourceSubscriptions": [WATCHED.uri]},
        },
    })
    .to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: subscriptions/listen\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Read `stream` into `read` until it holds `wanted` (within [`COMES`]).
async fn read_until(stream: &mut tokio::net::TcpStream, read: &mut Vec<u8>, wanted: &str) {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + COMES;
    while !String::from_utf8_lossy(read).contains(wanted) {
        let n = tokio::time::timeout_at(deadline, stream.read(&mut buffer))
            .await
            .unwrap_or_else(|_| panic!("`{wanted}` did not come in time: {}", String::from_utf8_lossy(read)))
            .unwrap();
        assert!(n > 0, "the stream closed before `{wanted}`: {}", String::from_utf8_lossy(read));
        read.extend_from_slice(&buffer[..n]);
    }
}
