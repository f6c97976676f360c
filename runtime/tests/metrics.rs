//! The Prometheus metrics endpoint (feature `metrics`): scraped over HTTP
//! after real calls, and read with an exposition-format parser.

mod support;

use mcp_contract_runtime::McpError;
use mcp_contract_runtime::server::{HttpOptions, Server, ToolServer};
use prometheus_parse::{LineInfo, Scrape, Value};
use serde_json::json;
use support::{HttpClient, HttpServer, asking, call, stateless, text_tool};

text_tool!(Fine, "fine", |_ctx| Ok("fine".to_owned()));
text_tool!(Offline, "offline", |_ctx| Err(
    McpError::database_error("The catalogue is offline.").with_reason("catalog_offline")
));
text_tool!(Slow, "slow", |_ctx| {
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    Ok("slow".to_owned())
});

/// A tool whose input is a closed object with a number: `{"object_id": "7", "_trace": ..}` is repaired.
struct Lookup;

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct LookupInput {
    object_id: u32,
}

impl mcp_contract_runtime::Tool for Lookup {
    type Input = LookupInput;
    type Output = String;
    fn definition(&self) -> &'static mcp_contract_runtime::define::ToolDefinition {
        static DEFINITION: std::sync::LazyLock<mcp_contract_runtime::define::ToolDefinition> =
            std::sync::LazyLock::new(|| support::definition::<LookupInput>("lookup"));
        &DEFINITION
    }
    async fn call(&self, input: LookupInput, _ctx: mcp_contract_runtime::Context) -> Result<String, McpError> {
        Ok(format!("object {}", input.object_id))
    }
    fn render(&self, output: String) -> Result<mcp_contract_runtime::define::ToolOutput, McpError> {
        Ok(mcp_contract_runtime::define::ToolOutput::text(output))
    }
}

fn server() -> ToolServer {
    Server::new("metrics", "1.0.0").tool(Fine).tool(Offline).tool(Slow).build().expect("the server builds")
}

/// `GET /metrics`, checked line by line and parsed.
async fn scrape(addr: std::net::SocketAddr) -> Scrape {
    let mut client = HttpClient::connect(addr).await;
    client.path = "/metrics".to_owned();
    let answer = client.request("GET", &[], b"").await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert!(answer.header("content-type").is_some_and(|kind| kind.starts_with("application/openmetrics-text")));
    let text = answer.text();
    assert!(text.ends_with("# EOF\n"), "an OpenMetrics exposition ends with `# EOF`: {text}");
    // The parser skips what it cannot read: every line must be one it reads.
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        assert!(matches!(LineInfo::parse(line), LineInfo::Sample { .. }), "not a sample line: {line:?}");
    }
    Scrape::parse(text.lines().map(|line| Ok(line.to_owned()))).expect("the exposition parses")
}

fn value(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
    scrape
        .samples
        .iter()
        .filter(|sample| sample.metric == metric)
        .find(|sample| labels.iter().all(|(name, value)| sample.labels.get(name) == Some(value)))
        .map(|sample| match &sample.value {
            Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => *v,
            other => panic!("{metric} is no single value: {other:?}"),
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_endpoint_counts_calls_errors_latency_sessions_and_calls_in_flight() {
    let served = HttpServer::serving(server(), HttpOptions::default().metrics_path("/metrics")).await;
    let mut first = HttpClient::session(served.addr).await;
    let _second = HttpClient::session(served.addr).await;
    for id in 0..3 {
        first.post(&call(id, "fine", json!({}))).await;
    }
    first.post(&call(10, "offline", json!({}))).await;

    // A slow call in flight while the endpoint is scraped.
    let mut slow = HttpClient::connect(served.addr).await;
    slow.session = first.session.clone();
    let in_flight = tokio::spawn(async move { slow.post(&call(20, "slow", json!({}))).await });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let during = scrape(served.addr).await;
    assert_eq!(value(&during, "mcp_server_operations_in_flight", &[]), Some(1.0), "{:?}", during.samples);
    assert_eq!(value(&during, "mcp_server_sessions", &[]), Some(2.0));
    in_flight.await.expect("the slow call is answered");

    let after = scrape(served.addr).await;
    let ok = [("kind", "tool"), ("name", "fine"), ("outcome", "ok")];
    assert_eq!(value(&after, "mcp_server_operations_total", &ok), Some(3.0), "{:?}", after.samples);
    let failed = [("kind", "tool"), ("name", "offline"), ("outcome", "error")];
    assert_eq!(value(&after, "mcp_server_operations_total", &failed), Some(1.0));
    // The error's code and reason, its `error.type` as the conventions name a
    // tool's error result, and its category; no severity was declared.
    let by_reason = [
        ("name", "offline"),
        ("code", "-32010"),
        ("reason", "catalog_offline"),
        ("error_type", "tool_error"),
        ("category", "server"),
    ];
    assert_eq!(value(&after, "mcp_server_operation_errors_total", &by_reason), Some(1.0), "{:?}", after.samples);
    assert_eq!(value(&after, "mcp_server_operations_in_flight", &[]), Some(0.0));

    let slow = after
        .samples
        .iter()
        .find(|sample| {
            sample.metric == "mcp_server_operation_duration_seconds" && sample.labels.get("name") == Some("slow")
        })
        .expect("the slow call's histogram");
    let Value::Histogram(buckets) = &slow.value else { panic!("not a histogram: {slow:?}") };
    let count_below = |bound: f64| buckets.iter().find(|b| b.less_than == bound).map(|b| b.count);
    assert_eq!(count_below(0.25), Some(0.0), "the 300 ms call is above 250 ms: {buckets:?}");
    assert_eq!(count_below(0.5), Some(1.0), "and below 500 ms: {buckets:?}");
    assert_eq!(value(&after, "mcp_server_operation_duration_seconds_count", &[("name", "fine")]), Some(3.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_events_dropped_to_hold_the_event_store_s_byte_budget_are_counted() {
    // A budget of one byte keeps only the newest event: each call's events
    // (its stream's priming event and its answer) push the older ones out.
    let options = HttpOptions::default().metrics_path("/metrics").event_store_max_bytes(1);
    let served = HttpServer::serving(server(), options).await;
    let mut client = HttpClient::session(served.addr).await;
    let before = scrape(served.addr).await;
    assert_eq!(value(&before, "mcp_server_sse_events_evicted_total", &[]), Some(0.0), "{:?}", before.samples);
    for id in 0..3 {
        client.post(&call(id, "fine", json!({}))).await;
    }
    let after = scrape(served.addr).await;
    let evicted = value(&after, "mcp_server_sse_events_evicted_total", &[]).expect("the eviction counter");
    assert!(evicted >= 5.0, "six events stored, one kept: {evicted}");
    let bytes = value(&after, "mcp_server_sse_event_store_bytes", &[]).expect("the bytes gauge");
    assert!(bytes > 0.0 && bytes < 2048.0, "one stream and one event: {bytes}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_ends_is_counted_in_the_session_duration_histogram() {
    let served = HttpServer::serving(server(), HttpOptions::default().metrics_path("/metrics")).await;
    let histogram = |scrape: &Scrape| {
        let sample = scrape.samples.iter().find(|sample| sample.metric == "mcp_server_session_duration_seconds");
        match sample.map(|sample| &sample.value) {
            Some(Value::Histogram(buckets)) => buckets.clone(),
            other => panic!("no mcp_server_session_duration_seconds histogram: {other:?}"),
        }
    };
    let mut ended = HttpClient::session(served.addr).await;
    let _open = HttpClient::session(served.addr).await;
    let before = scrape(served.addr).await;
    assert!(histogram(&before).iter().all(|bucket| bucket.count == 0.0), "no session ended yet: {:?}", before.samples);
    tokio::time::sleep(std::time::Duration::from_millis(30)).await;
    let deleted = ended.request("DELETE", &[], b"").await;
    assert!(deleted.status < 300, "{}", deleted.text());
    // The session's handler goes as the transport closes it: bounded wait.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let buckets = loop {
        let buckets = histogram(&scrape(served.addr).await);
        if buckets.iter().any(|bucket| bucket.count > 0.0) {
            break buckets;
        }
        assert!(std::time::Instant::now() < deadline, "the deleted session was not counted: {buckets:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    // One session, of at least the 30 ms slept; the open one is not counted.
    let count_below = |bound: f64| buckets.iter().find(|b| b.less_than == bound).map(|b| b.count);
    assert_eq!(count_below(0.02), Some(0.0), "{buckets:?}");
    assert_eq!(count_below(f64::INFINITY), Some(1.0), "{buckets:?}");
}

/// The session duration histogram's buckets, from a scrape.
fn session_durations(scrape: &Scrape) -> Vec<prometheus_parse::HistogramCount> {
    let sample = scrape.samples.iter().find(|sample| sample.metric == "mcp_server_session_duration_seconds");
    match sample.map(|sample| &sample.value) {
        Some(Value::Histogram(buckets)) => buckets.clone(),
        other => panic!("no mcp_server_session_duration_seconds histogram: {other:?}"),
    }
}

fn ended_sessions(scrape: &Scrape) -> f64 {
    session_durations(scrape).iter().find(|bucket| bucket.less_than == f64::INFINITY).map_or(0.0, |b| b.count)
}

/// Scrape until `done` holds, for at most 10 s.
async fn scrape_until(addr: std::net::SocketAddr, what: &str, done: impl Fn(&Scrape) -> bool) -> Scrape {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let scraped = scrape(addr).await;
        if done(&scraped) {
            return scraped;
        }
        assert!(std::time::Instant::now() < deadline, "{what}: {:?}", scraped.samples);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_hibernate_wake_unchanged_on_their_next_request_and_count_their_time_once() {
    let options =
        HttpOptions::default().metrics_path("/metrics").session_hibernate_after(std::time::Duration::from_millis(150));
    let served = HttpServer::serving(server(), options).await;
    let opened = std::time::Instant::now();
    let mut woken = HttpClient::session(served.addr).await;
    let mut deleted = HttpClient::session(served.addr).await;
    // A session with a log level of its own keeps its worker.
    let mut pinned = HttpClient::session(served.addr).await;
    let level = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}});
    assert_eq!(pinned.post(level.to_string().as_bytes()).await.status, 200);

    let hibernating = |scrape: &Scrape| value(scrape, "mcp_server_sessions_hibernating", &[]);
    let asleep = scrape_until(served.addr, "two idle sessions hibernate", |s| hibernating(s) == Some(2.0)).await;
    assert_eq!(value(&asleep, "mcp_server_sessions", &[]), Some(3.0), "hibernating sessions are open sessions");
    assert_eq!(ended_sessions(&asleep), 0.0, "hibernating ends no session");

    // Its next request restores the session: answered as any call.
    let answer = woken.post(&call(2, "fine", json!({}))).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.message()["result"]["content"][0]["text"], "fine");
    assert_eq!(hibernating(&scrape(served.addr).await), Some(1.0));
    let answer = pinned.post(&call(3, "fine", json!({}))).await;
    assert_eq!(answer.message()["result"]["content"][0]["text"], "fine");

    // Deleted while asleep: its time is counted from its start, once.
    let answer = deleted.request("DELETE", &[], b"").await;
    assert!(answer.status < 300, "{} {}", answer.status, answer.text());
    let since_opened = opened.elapsed().as_secs_f64();
    let once = scrape_until(served.addr, "the deleted session is counted", |s| ended_sessions(s) == 1.0).await;
    let below = |bound: f64| session_durations(&once).iter().find(|b| b.less_than == bound).map(|b| b.count);
    assert!(since_opened >= 0.2, "{since_opened}");
    assert_eq!(below(0.2), Some(0.0), "the session's time runs from its start, asleep too: {:?}", once.samples);
    assert_eq!(deleted.post(&call(4, "fine", json!({}))).await.status, 404, "a deleted session is gone");

    // The woken session ends once: its hibernation recorded nothing.
    assert!(woken.request("DELETE", &[], b"").await.status < 300);
    scrape_until(served.addr, "the woken session is counted", |s| ended_sessions(s) == 2.0).await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(ended_sessions(&scrape(served.addr).await), 2.0, "each session counted once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hibernating_session_ends_at_the_idle_timeout_and_counts_against_the_session_cap() {
    let options = HttpOptions::default()
        .metrics_path("/metrics")
        .max_sessions(2)
        .session_idle_timeout(std::time::Duration::from_millis(900))
        .session_hibernate_after(std::time::Duration::from_millis(100));
    let served = HttpServer::serving(server(), options).await;
    let mut oldest = HttpClient::session(served.addr).await;
    let mut expiring = HttpClient::session(served.addr).await;
    let hibernating = |scrape: &Scrape| value(scrape, "mcp_server_sessions_hibernating", &[]);
    scrape_until(served.addr, "both sessions hibernate", |s| hibernating(s) == Some(2.0)).await;
    // Two sessions held, asleep: a third closes the idlest.
    let mut third = HttpClient::session(served.addr).await;
    assert_eq!(oldest.post(&call(1, "fine", json!({}))).await.status, 404, "the idlest session made room");
    assert_eq!(third.post(&call(2, "fine", json!({}))).await.status, 200);
    // Idle past the timeout while asleep: gone, and counted as ended.
    let gone =
        scrape_until(served.addr, "the idle session ends", |s| value(s, "mcp_server_sessions", &[]) == Some(1.0));
    let gone = gone.await;
    assert_eq!(ended_sessions(&gone), 2.0, "the closed and the expired session: {:?}", gone.samples);
    assert_eq!(expiring.post(&call(3, "fine", json!({}))).await.status, 404, "an expired session is gone");
}

/// Past the cap of awake sessions, the idlest hibernate whatever their idle
/// time (no `session_hibernate_after`), each wakes on its next request, and a
/// session that keeps something in its worker stays awake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_cap_of_awake_sessions_the_idlest_hibernate_and_each_wakes_on_its_next_request() {
    let options = HttpOptions::default().metrics_path("/metrics").max_awake_sessions(2);
    let served = HttpServer::serving(server(), options).await;
    let mut pinned = HttpClient::session(served.addr).await;
    let level = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}});
    assert_eq!(pinned.post(level.to_string().as_bytes()).await.status, 200);
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(HttpClient::session(served.addr).await);
    }
    let hibernating = |scrape: &Scrape| value(scrape, "mcp_server_sessions_hibernating", &[]);
    let asleep = scrape_until(served.addr, "three of five sessions hibernate", |s| hibernating(s) == Some(3.0)).await;
    assert_eq!(value(&asleep, "mcp_server_sessions", &[]), Some(5.0));
    // Two awake (the pinned one among them) is what the cap asks: no more sleep.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(hibernating(&scrape(served.addr).await), Some(3.0), "only the sessions past the cap sleep");

    for (id, client) in idle.iter_mut().enumerate() {
        let answer = client.post(&call(id + 2, "fine", json!({}))).await;
        assert_eq!(answer.status, 200, "{}", answer.text());
        assert_eq!(answer.message()["result"]["content"][0]["text"], "fine");
    }
    let answer = pinned.post(&call(9, "fine", json!({}))).await;
    assert_eq!(answer.message()["result"]["content"][0]["text"], "fine");
    // Woken past the cap, the idlest sleep again once idle.
    let again = scrape_until(served.addr, "past the cap again", |s| hibernating(s) == Some(3.0)).await;
    assert_eq!(value(&again, "mcp_server_sessions", &[]), Some(5.0));
    assert_eq!(ended_sessions(&again), 0.0, "hibernating ends no session");
}

/// Below the cap of awake sessions, and without `session_hibernate_after`, no
/// session hibernates, however long it idles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn below_the_cap_of_awake_sessions_no_session_hibernates() {
    let options = HttpOptions::default().metrics_path("/metrics").max_awake_sessions(3);
    let served = HttpServer::serving(server(), options).await;
    let mut clients = Vec::new();
    for _ in 0..3 {
        clients.push(HttpClient::session(served.addr).await);
    }
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let scraped = scrape(served.addr).await;
    assert_eq!(value(&scraped, "mcp_server_sessions", &[]), Some(3.0));
    assert_eq!(value(&scraped, "mcp_server_sessions_hibernating", &[]), Some(0.0));
    for (id, client) in clients.iter_mut().enumerate() {
        assert_eq!(client.post(&call(id, "fine", json!({}))).await.status, 200);
    }
}

/// Works `millis` milliseconds, as a task when the client can poll.
struct Working;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct WorkingInput {
    millis: u64,
}

impl mcp_contract_runtime::Tool for Working {
    type Input = WorkingInput;
    type Output = String;
    fn definition(&self) -> &'static mcp_contract_runtime::define::ToolDefinition {
        static DEFINITION: std::sync::LazyLock<mcp_contract_runtime::define::ToolDefinition> =
            std::sync::LazyLock::new(|| {
                support::definition::<WorkingInput>("working")
                    .with_task_support(mcp_contract_runtime::define::TaskSupport::Optional)
            });
        &DEFINITION
    }
    async fn call(&self, input: WorkingInput, _ctx: mcp_contract_runtime::Context) -> Result<String, McpError> {
        tokio::time::sleep(std::time::Duration::from_millis(input.millis)).await;
        Ok(format!("worked {} ms", input.millis))
    }
    fn render(&self, output: String) -> Result<mcp_contract_runtime::define::ToolOutput, McpError> {
        Ok(mcp_contract_runtime::define::ToolOutput::text(output))
    }
}

/// A task works on after the request that started it was answered: its
/// session does not hibernate under it (which would close the session's
/// handler), only once it has ended; then its result is there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_stays_awake_while_its_task_works_and_hibernates_after() {
    let options =
        HttpOptions::default().metrics_path("/metrics").session_hibernate_after(std::time::Duration::from_millis(50));
    let server = Server::new("metrics", "1.0.0").tool(Working).build().expect("the server builds");
    let served = HttpServer::serving(server, options).await;
    let mut client = HttpClient::connect(served.addr).await;
    let capabilities = rmcp::model::ClientCapabilities::builder().enable_tasks().build();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": capabilities, "clientInfo": {"name": "tasks", "version": "1"}
    }});
    let answer = client.post(initialize.to_string().as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    client.session = Some(answer.header("mcp-session-id").expect("a session id").to_owned());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(client.post(initialized.to_string().as_bytes()).await.status, 202);

    let started = std::time::Instant::now();
    let created = client.post(&call(1, "working", json!({"millis": 700}))).await.message();
    let task_id = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {created}")).to_owned();
    let hibernating = |scrape: &Scrape| value(scrape, "mcp_server_sessions_hibernating", &[]);
    // Idle for the transport from its first answer on, for ten times the 50 ms
    // after which a session hibernates, the task still working.
    while started.elapsed() < std::time::Duration::from_millis(550) {
        assert_eq!(hibernating(&scrape(served.addr).await), Some(0.0), "asleep at {:?}", started.elapsed());
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    scrape_until(served.addr, "the session hibernates once its task ended", |s| hibernating(s) == Some(1.0)).await;
    assert!(started.elapsed() >= std::time::Duration::from_millis(700), "{:?}", started.elapsed());

    // Its next request wakes it, and the task's result is there.
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": task_id}});
    let got = client.post(get.to_string().as_bytes()).await.message();
    assert_eq!(got["result"]["status"], "completed", "{got}");
}

/// A call whose client went away runs on, for a client that resumes, and
/// rmcp sends its answer on the session's worker after the handler returned:
/// the session is idle from the call's end, not from when its client left,
/// so its worker is not closed under the answer on its way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_whose_client_left_a_call_is_idle_from_the_call_s_end() {
    let after = std::time::Duration::from_millis(600);
    let options = HttpOptions::default().metrics_path("/metrics").session_hibernate_after(after);
    let server = Server::new("metrics", "1.0.0").tool(Working).build().expect("the server builds");
    let served = HttpServer::serving(server, options).await;
    let session = HttpClient::session(served.addr).await;
    let mut leaving = HttpClient::connect(served.addr).await;
    leaving.session = session.session.clone();
    let started = std::time::Instant::now();
    let slow = call(1, "working", json!({"millis": 900}));
    let answer = tokio::time::timeout(std::time::Duration::from_millis(100), leaving.post(&slow)).await;
    assert!(answer.is_err(), "answered early");
    drop(leaving);

    let hibernating = |scrape: &Scrape| value(scrape, "mcp_server_sessions_hibernating", &[]);
    let ok = [("kind", "tool"), ("name", "working"), ("outcome", "ok")];
    let ended =
        scrape_until(served.addr, "the call ends", |s| value(s, "mcp_server_operations_total", &ok) == Some(1.0)).await;
    assert_eq!(hibernating(&ended), Some(0.0), "asleep under its call, at {:?}", started.elapsed());
    let call_ended = std::time::Instant::now();
    // Idle since its client left for longer than `after`, but not since its
    // call ended: awake (the sweep looks every 300 ms).
    while call_ended.elapsed() < after / 2 + std::time::Duration::from_millis(50) {
        assert_eq!(
            hibernating(&scrape(served.addr).await),
            Some(0.0),
            "asleep {:?} after its call",
            call_ended.elapsed()
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    scrape_until(served.addr, "the session hibernates once idle after its call", |s| hibernating(s) == Some(1.0)).await;
    // Not before `after` from the call's end (seen here up to a poll late).
    assert!(call_ended.elapsed() >= after * 2 / 3, "asleep {:?} after its call", call_ended.elapsed());
}

#[tokio::test]
async fn without_a_metrics_path_there_is_no_endpoint() {
    let served = HttpServer::serving(server(), HttpOptions::default()).await;
    let mut client = HttpClient::connect(served.addr).await;
    client.path = "/metrics".to_owned();
    assert_eq!(client.request("GET", &[], b"").await.status, 404);
}

#[tokio::test]
async fn a_metrics_path_that_is_taken_is_refused_with_the_fix() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let options = HttpOptions::default().metrics_path("/healthz").without_signal_handling();
    let err = server().serve_http_on(listener, options).await.expect_err("a taken path");
    assert!(err.to_string().contains("use `/metrics`"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_that_ends_input_required_is_no_finished_call_and_the_retry_that_finishes_is_one() {
    let served = HttpServer::serving(
        asking::server(Server::new("metrics", "1.0.0")),
        HttpOptions::default().metrics_path("/metrics"),
    )
    .await;
    for ask in asking::asks() {
        let first = stateless(served.addr, "1", ask.method, ask.header, ask.params.clone()).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{}: {first}", ask.kind);
        let labels = [("kind", ask.kind), ("name", ask.name)];
        let during = scrape(served.addr).await;
        assert_eq!(value(&during, "mcp_server_operations_total", &labels), None, "{}: {:?}", ask.kind, during.samples);
        assert_eq!(value(&during, "mcp_server_operation_duration_seconds_count", &labels), None, "{}", ask.kind);
        assert_eq!(value(&during, "mcp_server_operations_in_flight", &[]), Some(0.0), "{}", ask.kind);

        let done = stateless(served.addr, "2", ask.method, ask.header, ask.confirmed(&first)).await;
        assert_eq!(done["result"]["resultType"], "complete", "{}: {done}", ask.kind);
        let after = scrape(served.addr).await;
        let ok = [("kind", ask.kind), ("name", ask.name), ("outcome", "ok")];
        assert_eq!(value(&after, "mcp_server_operations_total", &ok), Some(1.0), "{}: {:?}", ask.kind, after.samples);
        let counted = after.samples.iter().filter(|sample| {
            sample.metric == "mcp_server_operations_total"
                && labels.iter().all(|(label, v)| sample.labels.get(label) == Some(v))
        });
        assert_eq!(counted.count(), 1, "{}: no outcome but `ok`", ask.kind);
        assert_eq!(value(&after, "mcp_server_operation_duration_seconds_count", &labels), Some(1.0), "{}", ask.kind);
    }
}

#[tokio::test]
async fn each_repair_of_a_call_s_arguments_is_counted_by_tool_and_kind() {
    let server = Server::new("metrics", "1.0.0").tool(Lookup).build().expect("the server builds");
    let served = HttpServer::serving(server, HttpOptions::default().metrics_path("/metrics")).await;
    let mut client = HttpClient::session(served.addr).await;
    // Keys the closed input does not take are dropped, the number sent as a string is read: the call answers.
    let answer = client.post(&call(1, "lookup", json!({"object_id": "7", "_trace": "abc", "_client": 1}))).await;
    let result = &answer.message()["result"];
    assert_eq!(result["isError"], json!(false), "{}", answer.text());
    assert_eq!(result["content"][0]["text"], "object 7");
    let after = scrape(served.addr).await;
    let dropped = [("tool", "lookup"), ("kind", "dropped")];
    assert_eq!(value(&after, "mcp_server_argument_repairs_total", &dropped), Some(2.0), "{:?}", after.samples);
    let number = [("tool", "lookup"), ("kind", "string_as_number")];
    assert_eq!(value(&after, "mcp_server_argument_repairs_total", &number), Some(1.0));
    // The client's keys never label a series.
    assert!(after.samples.iter().all(|sample| !sample.labels.values().any(|label| label.starts_with('_'))));
}

#[tokio::test]
async fn a_server_that_turns_repair_off_refuses_the_call_as_sent_and_counts_nothing() {
    let server =
        Server::new("metrics", "1.0.0").tool(Lookup).repair_arguments(false).build().expect("the server builds");
    let served = HttpServer::serving(server, HttpOptions::default().metrics_path("/metrics")).await;
    let mut client = HttpClient::session(served.addr).await;
    let answer = client.post(&call(1, "lookup", json!({"object_id": "7"}))).await;
    let result = &answer.message()["result"];
    assert_eq!(result["isError"], json!(true), "{}", answer.text());
    assert_eq!(result["structuredContent"]["error"]["code"], -32602);
    assert_eq!(result["structuredContent"]["error"]["data"]["reason"], "invalid_arguments");
    let after = scrape(served.addr).await;
    assert_eq!(value(&after, "mcp_server_argument_repairs_total", &[("tool", "lookup")]), None);
    // The refusal is counted as an argument rejection of its tool.
    assert_eq!(value(&after, "mcp_server_argument_rejections_total", &[("tool", "lookup")]), Some(1.0));
}

/// Feature `pacer`: a pacer given to `Server::pacer` is scraped with the
/// server's metrics, and its shed reaches the call's error metrics with its reason.
#[cfg(feature = "pacer")]
mod pacer {
    use std::time::Duration;

    use mcp_contract_runtime::error::pacer::{Pacer, PacerOptions};

    use super::*;

    text_tool!(Paced, "paced", |ctx| {
        let pacer = ctx.state::<Pacer>().expect("the pacer is state");
        pacer.run(|| async { Ok("fetched".to_owned()) }).await
    });

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pacer_is_scraped_with_the_server_and_its_sheds_are_counted() {
        let pacer = Pacer::new("catalogue", PacerOptions::per_minute(1).max_wait(Duration::from_secs(5)));
        let server = Server::new("metrics", "1.0.0")
            .tool(Paced)
            .pacer(pacer.clone())
            .state(pacer)
            .build()
            .expect("the server builds");
        let served = HttpServer::serving(server, HttpOptions::default().metrics_path("/metrics")).await;
        let mut client = HttpClient::session(served.addr).await;
        client.post(&call(1, "paced", json!({}))).await;
        let shed = client.post(&call(2, "paced", json!({}))).await.text();
        assert!(shed.contains("pacer_shed") && shed.contains("wait_projected"), "{shed}");

        let scraped = scrape(served.addr).await;
        let catalogue = [("pacer", "catalogue")];
        assert_eq!(value(&scraped, "mcp_pacer_started_total", &catalogue), Some(1.0), "{:?}", scraped.samples);
        assert_eq!(value(&scraped, "mcp_pacer_queue_depth", &catalogue), Some(0.0));
        let projected = [("pacer", "catalogue"), ("kind", "wait_projected")];
        assert_eq!(value(&scraped, "mcp_pacer_sheds_total", &projected), Some(1.0));
        let by_reason = [("name", "paced"), ("code", "-32003"), ("reason", "pacer_shed")];
        assert_eq!(
            value(&scraped, "mcp_server_operation_errors_total", &by_reason),
            Some(1.0),
            "{:?}",
            scraped.samples
        );
    }
}
