//! The soak with faults: two museum replicas behind haproxy on one
//! `redis-server`, mixed Streamable HTTP traffic from concurrent clients, and
//! faults on a schedule, for `MCP_CONTRACT_SOAK_SECS` seconds (40 by default,
//! what `cargo test` and CI run; the long run is 1800):
//!
//! ```sh
//! cargo build --example museum --features redis
//! MCP_CONTRACT_SOAK_SECS=1800 cargo test --features redis --test soak -- --nocapture
//! ```
//!
//! Traffic, each kind from its own client, looping:
//! - `call`: tool calls on a session, through the round robin;
//! - `task`: `export_department` as a task, polled to its end through the round robin;
//! - `round`: `take_off_view` by 2026-07-28 input-required rounds (no session), round robin;
//! - `elicit`: `take_off_view` on a session through the sticky front, the
//!   elicitation answered by a `POST` of the client's own;
//! - `subscription`: `museum://guestbook` subscribed through the sticky front,
//!   each `sign_guestbook` followed by its update on the session's GET stream;
//! - `slow`: a progress-reporting export read an event every 250 ms;
//! - `vanish`: an export abandoned, before its first event or after it, then a ping on the session;
//! - `cut`: an export's stream dropped in the middle of its second event, resumed
//!   with `Last-Event-ID` (the first) through the round robin.
//!
//! Both replicas let sessions idle a second hibernate
//! (`MCP_SESSION_HIBERNATE_AFTER=1`), so sessions sleep and wake throughout.
//! Replica 0 writes a call's events to Redis behind their sending
//! (`MCP_REDIS_WRITE_BEHIND=1`), replica 1 stores them before it sends them.
//!
//! Faults: `redis-server` stopped and started again on its port (without
//! persistence: every key is lost), and replica 0 killed (SIGKILL) and started
//! again, in turn. Replica 1 is never killed, so one process lives the whole run.
//!
//! Checks, printed in a summary at the end:
//! - every call is answered, or lost only as `guide/src/replicas.md` says it
//!   may be, within a fault's window (its start to 12 s after its end);
//! - each replica's RSS and open file descriptors, sampled every 2 s, stay
//!   within a bound after warm-up (see [`MEMORY_BOUND_MIB`]);
//! - every `WARN` or `ERROR` line the replicas log falls in a fault's window
//!   and names what the fault broke, and no replica panics.

#![cfg(feature = "redis")]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;
use support::cluster::{Lines, Process, free_port, haproxy, museum_logged, redis};
use support::needs::{self, HAPROXY, REDIS_SERVER};

/// How long a fault's effects are allowed after it ended: a killed replica's
/// calls are taken over 3–4 s after it stopped (its key lives 3 s), haproxy
/// sees a replica back after two checks (0.5 s), a resumed call runs again
/// (an export takes up to 1.8 s), and a client's own retries wait.
const GRACE: f64 = 12.0;

/// The bound on a replica's RSS: its highest sample in the last third of its
/// life after warm-up against the highest in the first third. The replicas
/// hold at most a few dozen sessions and streams at once (the clients are
/// eight); what they allocate for them is reached within the warm-up, so
/// growth beyond a few allocator arenas' worth is a leak.
const MEMORY_BOUND_MIB: f64 = 16.0;
/// The bound on a replica's open file descriptors, the same way: each client
/// holds one or two connections, the pub/sub and command connections to Redis
/// are two more.
const FD_BOUND: i64 = 16;
/// What a replica's start (the collection loaded, first connections) takes before sampling counts.
const WARM_UP: f64 = 8.0;

const PROTOCOL: &str = "2025-06-18";

/// How long a client resumes a stream for its answer.
const RESUME_BOUND: f64 = 30.0;
/// What a replica logs for a resumption after an event it sent while Redis was down.
const UNREPLAYABLE: &str = "sent while the store was down";

/// The key both replicas sign the `requestState` of input-required rounds with.
const REQUEST_STATE_KEY: &str = "the soak's replicas share this key, 32 bytes or more";

/// Set, the run's directory is kept, with haproxy's log and the replicas' (`replicas.log`).
const KEEP: &str = "MCP_CONTRACT_SOAK_KEEP";

/// The one warning a replica logs as it starts, about its configuration: the
/// soak serves without auth, as the museum does by default.
const STARTUP_WARNING: &str = "auth mode is `none` on Streamable HTTP";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FaultKind {
    Redis,
    Replica,
}

#[derive(Debug)]
struct Fault {
    kind: FaultKind,
    what: String,
    start: f64,
    /// Infinity while it lasts.
    end: f64,
}

/// One sample of a replica process.
struct Sample {
    replica: usize,
    incarnation: usize,
    at: f64,
    rss_kib: u64,
    fds: i64,
}

/// What the clients, the fault driver and the sampler share.
struct Soak {
    start: Instant,
    running: AtomicBool,
    faults: Mutex<Vec<Fault>>,
    outcomes: Mutex<BTreeMap<(&'static str, String), u64>>,
    violations: Mutex<Vec<String>>,
    round_robin: String,
    sticky: String,
    ids: Vec<u64>,
    next_id: AtomicU64,
}

impl Soak {
    fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn at(&self, instant: Instant) -> f64 {
        instant.saturating_duration_since(self.start).as_secs_f64()
    }

    fn running(&self) -> bool {
        self.running.load(Ordering::Relaxed)
    }

    fn id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether a fault of `kind` overlapped `[since, now]`, its window stretched by [`GRACE`].
    fn within(&self, kind: FaultKind, since: f64) -> bool {
        let now = self.now();
        self.faults.lock().unwrap().iter().any(|f| f.kind == kind && f.start <= now && f.end + GRACE >= since)
    }

    /// Whether Redis was restarted (losing every key) since `since`.
    fn redis_restarted_since(&self, since: f64) -> bool {
        let now = self.now();
        self.faults
            .lock()
            .unwrap()
            .iter()
            .any(|f| f.kind == FaultKind::Redis && f.start + 1.0 >= since && f.start <= now)
    }

    fn count(&self, kind: &'static str, outcome: impl Into<String>) {
        *self.outcomes.lock().unwrap().entry((kind, outcome.into())).or_default() += 1;
    }

    /// Count `outcome`; unless `allowed`, it is a violation, kept with `detail`.
    fn outcome(&self, kind: &'static str, outcome: impl Into<String>, allowed: bool, detail: impl Display) {
        let outcome = outcome.into();
        if !allowed {
            let line = format!("{:7.1}s {kind}: {outcome}: {detail}", self.now());
            eprintln!("soak violation: {line}");
            self.violations.lock().unwrap().push(line);
        }
        self.count(kind, outcome);
    }

    fn object(&self, n: u64) -> u64 {
        self.ids[(n as usize * 7) % self.ids.len()]
    }
}

// ---------------------------------------------------------------- the wire

/// An SSE event: its id and its data, parsed.
#[derive(Debug)]
struct Event {
    id: Option<String>,
    data: Option<Value>,
}

/// A response's SSE stream, read event by event.
struct Stream {
    response: reqwest::Response,
    buffer: String,
    /// The replica that answered (haproxy's `X-Replica`), for what is printed of a broken stream.
    replica: String,
}

impl Stream {
    /// The next event, `None` at the end of the stream; an error when the
    /// connection broke, or no byte came for 40 s (a keep-alive comes every 15 s).
    async fn next(&mut self) -> Result<Option<Event>, String> {
        loop {
            if let Some(at) = self.buffer.find("\n\n") {
                let raw: String = self.buffer.drain(..at + 2).collect();
                let field = |name: &str| raw.lines().find_map(|line| line.strip_prefix(name)).map(str::trim);
                let id = field("id:").map(str::to_owned);
                let data =
                    field("data:").filter(|data| !data.is_empty()).and_then(|data| serde_json::from_str(data).ok());
                if id.is_none() && data.is_none() {
                    continue; // a keep-alive comment
                }
                return Ok(Some(Event { id, data }));
            }
            match tokio::time::timeout(Duration::from_secs(40), self.response.chunk()).await {
                Err(_) => return Err("no byte within 40 s".to_owned()),
                Ok(Err(err)) => {
                    // reqwest says "error decoding response body"; its sources say why.
                    let mut why = err.to_string();
                    let mut source = std::error::Error::source(&err);
                    while let Some(cause) = source {
                        why.push_str(&format!(": {cause}"));
                        source = cause.source();
                    }
                    return Err(format!("the stream broke: {why}"));
                }
                Ok(Ok(None)) => return Ok(None),
                Ok(Ok(Some(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n")),
            }
        }
    }
}

/// What a POST or GET got back.
enum Sent {
    Json(u16, Value),
    Stream(Stream),
    /// Any other status, with its body.
    Status(u16, String),
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap()
}

async fn send(request: reqwest::RequestBuilder) -> Result<Sent, String> {
    let response = request.send().await.map_err(|err| format!("transport: {err}"))?;
    let status = response.status().as_u16();
    let kind = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    if status == 200 && kind.starts_with("text/event-stream") {
        let replica = response.headers().get("x-replica").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        return Ok(Sent::Stream(Stream { response, buffer: String::new(), replica }));
    }
    let text = response.text().await.map_err(|err| format!("transport (body): {err}"))?;
    match serde_json::from_str(&text) {
        Ok(message) if kind.starts_with("application/json") => Ok(Sent::Json(status, message)),
        _ => Ok(Sent::Status(status, text)),
    }
}

fn post(http: &reqwest::Client, url: &str, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", PROTOCOL)
        .body(body.to_string());
    match session {
        Some(session) => request.header("mcp-session-id", session),
        None => request,
    }
}

fn tool_call(id: u64, tool: &str, arguments: Value, progress: bool) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments});
    if progress {
        params["_meta"] = json!({"progressToken": format!("p{id}")});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// How a client reads a call's stream.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    Whole,
    /// An event, then this pause.
    Slowly(Duration),
    /// Drop the connection in the middle of the second event, and resume after the first.
    Cut,
    /// Drop the response as soon as its headers came.
    VanishAtOnce,
    /// Drop the connection after the first event.
    VanishAfterFirst,
}

/// What a call on a session came to.
#[derive(Debug)]
enum Reply {
    /// The answer (a result or a JSON-RPC error), whether it came by a resumption,
    /// and the progress values read on the way.
    Answer { message: Value, resumed: bool, progress: Vec<u64> },
    /// A status with a JSON-RPC error, or haproxy's own page.
    Refused(u16, String),
    /// 404: the session is unknown.
    UnknownSession,
    /// No answer, and nothing to resume from.
    Lost(String),
    /// The client went away, as told.
    Vanished,
}

fn progress_of(message: &Value) -> Option<u64> {
    (message["method"] == "notifications/progress")
        .then(|| message["params"]["progress"].as_f64().unwrap_or(0.0) as u64)
}

/// POST `body` on `session` through `url`, read its stream as `reading`
/// says, and resume it with `Last-Event-ID` (through the round robin) when it
/// ends without the answer.
async fn call(soak: &Soak, http: &reqwest::Client, url: &str, session: &str, body: &Value, reading: Reading) -> Reply {
    let id = &body["id"];
    let sent = match send(post(http, url, Some(session), body)).await {
        Ok(sent) => sent,
        Err(err) => return Reply::Lost(err),
    };
    let mut stream = match sent {
        Sent::Json(200, message) => return Reply::Answer { message, resumed: false, progress: vec![] },
        Sent::Json(404, _) | Sent::Status(404, _) => return Reply::UnknownSession,
        Sent::Json(status, message) => return Reply::Refused(status, message.to_string()),
        Sent::Status(status, text) => return Reply::Refused(status, text),
        Sent::Stream(stream) => stream,
    };
    if reading == Reading::VanishAtOnce {
        return Reply::Vanished;
    }
    let mut last_id = None;
    let mut progress = Vec::new();
    let mut events = 0;
    let mut seen = BTreeSet::new();
    loop {
        match stream.next().await {
            Ok(Some(event)) => {
                events += 1;
                if reading == Reading::Cut && events == 2 {
                    // Cut in the middle of this event: the client never read it whole.
                    break;
                }
                if let Some(event_id) = &event.id {
                    seen.insert(event_id.clone());
                    last_id = Some(event_id.clone());
                }
                if let Some(message) = event.data {
                    if let Some(value) = progress_of(&message) {
                        progress.push(value);
                    }
                    if &message["id"] == id && (message.get("result").is_some() || message.get("error").is_some()) {
                        return Reply::Answer { message, resumed: false, progress };
                    }
                }
                if reading == Reading::VanishAfterFirst {
                    return Reply::Vanished;
                }
                if let Reading::Slowly(pause) = reading {
                    tokio::time::sleep(pause).await;
                }
            }
            Ok(None) => {
                if reading != Reading::Cut {
                    soak.count("stream", format!("closed before its answer, after {events} events"));
                }
                break;
            }
            Err(err) => {
                eprintln!(
                    "soak: {:7.3}s the stream of {} {id} from {} broke after {events} events (last {last_id:?}): {err}",
                    soak.now(),
                    body["method"],
                    stream.replica
                );
                soak.count("stream", format!("broke before its answer: {}", err.chars().take(120).collect::<String>()));
                break;
            }
        }
    }
    drop(stream);
    let Some(last_id) = last_id else { return Reply::Lost("the stream ended before its first event".to_owned()) };
    resume(soak, http, session, id, last_id, progress, seen).await
}

/// Resume a call's stream after `last_id` through the round robin until its
/// answer, for at most 30 s; an event read twice is a violation.
async fn resume(
    soak: &Soak,
    http: &reqwest::Client,
    session: &str,
    id: &Value,
    mut last_id: String,
    mut progress: Vec<u64>,
    mut seen: BTreeSet<String>,
) -> Reply {
    let deadline = Instant::now() + Duration::from_secs_f64(RESUME_BOUND);
    while Instant::now() < deadline {
        let request = http
            .get(&soak.round_robin)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", PROTOCOL)
            .header("last-event-id", &last_id);
        let mut stream = match send(request).await {
            Ok(Sent::Stream(stream)) => stream,
            Ok(Sent::Json(404, _) | Sent::Status(404, _)) => return Reply::UnknownSession,
            Ok(_) | Err(_) => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                continue;
            }
        };
        while let Ok(Some(event)) = stream.next().await {
            if let Some(event_id) = &event.id {
                if !seen.insert(event_id.clone()) {
                    soak.outcome("resume", "an event replayed twice", false, event_id);
                }
                last_id = event_id.clone();
            }
            if let Some(message) = event.data {
                if let Some(value) = progress_of(&message) {
                    progress.push(value);
                }
                if &message["id"] == id && (message.get("result").is_some() || message.get("error").is_some()) {
                    return Reply::Answer { message, resumed: true, progress };
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!("soak: {:7.3}s no answer to {id} within 30 s of resuming, last {last_id}", soak.now());
    Reply::Lost("no answer within 30 s of resuming".to_owned())
}

/// A session opened through `url` with `capabilities`: its id and when it was opened.
/// `None` once the soak ends.
async fn open_session(soak: &Soak, http: &reqwest::Client, url: &str, capabilities: Value) -> Option<(String, f64)> {
    while soak.running() {
        let since = soak.now();
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": capabilities,
            "clientInfo": {"name": "soak", "version": "1.0.0"}}});
        let response = post(http, url, None, &body).send().await;
        let outcome = match response {
            Ok(response) if response.status() == 200 => {
                let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
                let _ = response.text().await;
                match session {
                    Some(session) => {
                        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                        match post(http, url, Some(&session), &initialized).send().await {
                            Ok(answer) if answer.status() == 202 => {
                                soak.count("initialize", "answered");
                                return Some((session, since));
                            }
                            Ok(answer) => format!("notifications/initialized: {}", answer.status()),
                            Err(err) => format!("notifications/initialized: {err}"),
                        }
                    }
                    None => "200 without a session id".to_owned(),
                }
            }
            Ok(response) => {
                let status = response.status().as_u16();
                let text = response.text().await.unwrap_or_default();
                if status == 503 && text.contains("does not answer") {
                    soak.outcome(
                        "initialize",
                        "refused: store unavailable (503)",
                        soak.within(FaultKind::Redis, since),
                        &text,
                    );
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
                format!("{status} {text}")
            }
            Err(err) => format!("transport: {err}"),
        };
        soak.outcome("initialize", "lost", soak.within(FaultKind::Replica, since), &outcome);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    None
}

/// Classify `reply` to a call of `kind` sent at `since` on a session opened at
/// `born`: whether it was answered with `expected` (a check of the result);
/// whether the session must be opened again.
fn judge(
    soak: &Soak,
    kind: &'static str,
    tool: &str,
    since: f64,
    born: f64,
    reply: Reply,
    expected: impl Fn(&Value) -> bool,
) -> (bool, bool) {
    let in_kill = soak.within(FaultKind::Replica, since);
    let in_redis = soak.within(FaultKind::Redis, since);
    match reply {
        Reply::Answer { message, resumed, .. } => {
            if message.get("result").is_some() && expected(&message["result"]) {
                soak.count(kind, if resumed { "answered after a resumption" } else { "answered" });
                return (true, false);
            }
            let error = message["error"]["message"].as_str().unwrap_or_default();
            if message["error"]["code"] == -32000 && error.contains("stopped before it answered") {
                // Only a call not safe to run again is answered so (guide/src/replicas.md).
                soak.outcome(
                    kind,
                    "lost as declared: replica stopped (-32000)",
                    in_kill && tool == "sign_guestbook",
                    &message,
                );
            } else if message["error"]["code"] == -32000 && error.contains("does not answer") {
                soak.outcome(kind, "refused: store unavailable (-32000)", in_redis, &message);
            } else {
                soak.outcome(kind, "wrong answer", false, &message);
            }
            (false, false)
        }
        Reply::Refused(status, text) if status == 503 && text.contains("does not answer") => {
            soak.outcome(kind, "refused: store unavailable (503)", in_redis, &text);
            (false, false)
        }
        Reply::Refused(status @ 502..=504, text) => {
            // haproxy's own answer: the replica died with the request, or none was up.
            soak.outcome(kind, format!("refused by the proxy ({status})"), in_kill, &text);
            (false, false)
        }
        Reply::Refused(status, text) => {
            soak.outcome(kind, format!("refused ({status})"), false, &text);
            (false, false)
        }
        Reply::UnknownSession => {
            soak.outcome(kind, "session gone with Redis's keys (404)", soak.redis_restarted_since(born), "404");
            (false, true)
        }
        Reply::Lost(why) if why.starts_with("no answer") => {
            // A call whose replica stopped before it reached Redis is not known to
            // be lost; events from before a restart without persistence are gone.
            let allowed = in_kill || soak.redis_restarted_since(since);
            soak.outcome(kind, "no answer after resuming (not known to be lost)", allowed, &why);
            (false, false)
        }
        Reply::Lost(why) => {
            soak.outcome(kind, "lost with its replica: cut before its first event", in_kill, &why);
            (false, false)
        }
        Reply::Vanished => (false, false),
    }
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

// ---------------------------------------------------------------- the clients

/// Tool calls on a session, through the round robin.
async fn caller(soak: Arc<Soak>) {
    let http = client();
    let mut n = 0u64;
    'session: while let Some((session, born)) = open_session(&soak, &http, &soak.round_robin, json!({})).await {
        while soak.running() {
            n += 1;
            let (tool, arguments) = match n % 3 {
                0 => ("get_object", json!({"object_id": soak.object(n)})),
                1 => ("search_objects", json!({"query": "portrait"})),
                _ => ("collection_stats", json!({})),
            };
            let since = soak.now();
            let body = tool_call(soak.id(), tool, arguments, false);
            let reply = call(&soak, &http, &soak.round_robin, &session, &body, Reading::Whole).await;
            let (_, reopen) = judge(&soak, "call", tool, since, born, reply, |result| {
                result["isError"] != true && !text_of(result).is_empty()
            });
            if reopen {
                continue 'session;
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        break;
    }
}

const DEPARTMENT: &str = "Paintings";

/// `export_department` as a task, polled to its end through the round robin.
async fn tasker(soak: Arc<Soak>, records: usize) {
    let http = client();
    let capabilities = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    'session: while let Some((session, born)) =
        open_session(&soak, &http, &soak.round_robin, capabilities.clone()).await
    {
        while soak.running() {
            let since = soak.now();
            let body = tool_call(soak.id(), "export_department", json!({"department": DEPARTMENT}), false);
            let reply = call(&soak, &http, &soak.round_robin, &session, &body, Reading::Whole).await;
            let task_id = match reply {
                Reply::Answer { message, .. } if message["result"]["taskId"].is_string() => {
                    message["result"]["taskId"].as_str().unwrap().to_owned()
                }
                reply => {
                    let (_, reopen) = judge(&soak, "task", "export_department", since, born, reply, |_| false);
                    if reopen {
                        continue 'session;
                    }
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    continue;
                }
            };
            let deadline = Instant::now() + Duration::from_secs(40);
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                let get =
                    json!({"jsonrpc": "2.0", "id": soak.id(), "method": "tasks/get", "params": {"taskId": task_id}});
                // A poll is judged by when it was sent: one its replica's kill
                // broke is found lost only after the resumption's 30 s.
                let sent = soak.now();
                let reply = call(&soak, &http, &soak.round_robin, &session, &get, Reading::Whole).await;
                let in_kill = soak.within(FaultKind::Replica, since);
                match reply {
                    Reply::Answer { message, .. } if message["result"]["status"] == "working" => {
                        if Instant::now() > deadline {
                            soak.outcome("task", "still working after 40 s", false, &message);
                            break;
                        }
                    }
                    Reply::Answer { message, .. } if message["result"]["status"] == "completed" => {
                        let csv = text_of(&message["result"]["result"]);
                        let whole = csv.lines().count() == records + 1;
                        soak.outcome(
                            "task",
                            if whole { "completed" } else { "completed, result not whole" },
                            whole,
                            &message,
                        );
                        break;
                    }
                    Reply::Answer { message, .. }
                        if message["result"]["status"] == "failed"
                            && message.to_string().contains("stopped before it finished") =>
                    {
                        let redis_lost = soak.redis_restarted_since(since);
                        soak.outcome("task", "failed as declared: replica stopped", in_kill || redis_lost, &message);
                        break;
                    }
                    Reply::Answer { message, .. }
                        if message.get("error").is_some() && soak.redis_restarted_since(since) =>
                    {
                        soak.count("task", "task gone with Redis's keys");
                        let _ = message;
                        break;
                    }
                    Reply::UnknownSession if soak.redis_restarted_since(born) => {
                        soak.count("task", "session gone with Redis's keys (404)");
                        continue 'session;
                    }
                    Reply::Refused(503, text)
                        if text.contains("does not answer") && soak.within(FaultKind::Redis, sent) =>
                    {
                        soak.count("task", "a poll refused: store unavailable (503)");
                    }
                    Reply::Refused(502..=504, _) | Reply::Lost(_) if soak.within(FaultKind::Replica, sent) => {
                        soak.count("task", "a poll lost with its replica");
                    }
                    reply => {
                        soak.outcome("task", "a poll answered wrongly", false, format!("{reply:?}"));
                        break;
                    }
                }
            }
        }
        break;
    }
}

/// `take_off_view` by 2026-07-28 input-required rounds through the round robin.
async fn rounds(soak: Arc<Soak>) {
    let http = client();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let mut n = 0u64;
    while soak.running() {
        n += 1;
        let since = soak.now();
        let object = soak.object(n);
        let mut params = json!({"name": "take_off_view", "arguments": {"object_id": object}, "_meta": meta});
        let mut answer = None;
        for round in 0..2 {
            let body = json!({"jsonrpc": "2.0", "id": soak.id(), "method": "tools/call", "params": params});
            let request = http
                .post(&soak.round_robin)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "take_off_view")
                .body(body.to_string());
            let message = match send(request).await {
                Ok(Sent::Json(_, message)) => Some(message),
                Ok(Sent::Stream(mut stream)) => {
                    let mut found = None;
                    while let Ok(Some(event)) = stream.next().await {
                        if let Some(message) = event.data.filter(|m| m["id"] == body["id"]) {
                            found = Some(message);
                            break;
                        }
                    }
                    found
                }
                Ok(Sent::Status(status, text)) => {
                    let allowed = matches!(status, 502..=504) && soak.within(FaultKind::Replica, since);
                    soak.outcome("round", format!("refused by the proxy ({status})"), allowed, text);
                    break;
                }
                Err(err) => {
                    soak.outcome("round", "lost with its replica", soak.within(FaultKind::Replica, since), err);
                    break;
                }
            };
            let Some(message) = message else {
                // A stateless stream ends without an answer when its replica stopped (guide/src/replicas.md).
                soak.outcome("round", "lost with its replica", soak.within(FaultKind::Replica, since), "no answer");
                break;
            };
            let result = &message["result"];
            if round == 0 && result["resultType"] == "input_required" {
                let Some((key, _)) = result["inputRequests"].as_object().and_then(|r| r.iter().next()) else {
                    soak.outcome("round", "input_required without a request", false, &message);
                    break;
                };
                params["inputResponses"] = json!({key.clone(): {"action": "accept", "content": {"confirm": true}}});
                params["requestState"] = result["requestState"].clone();
                continue;
            }
            answer = Some(message);
            break;
        }
        if let Some(message) = answer {
            if text_of(&message["result"]).contains("is off view") {
                soak.count("round", "answered");
            } else {
                soak.outcome("round", "wrong answer", false, &message);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `take_off_view` on a session through the sticky front: the elicitation it
/// sends on the call's stream is answered by a POST of the client's own.
async fn elicitor(soak: Arc<Soak>) {
    let http = client();
    let mut n = 0u64;
    'session: while let Some((session, born)) =
        open_session(&soak, &http, &soak.sticky, json!({"elicitation": {}})).await
    {
        while soak.running() {
            n += 1;
            let since = soak.now();
            let body = tool_call(soak.id(), "take_off_view", json!({"object_id": soak.object(n)}), false);
            let reply = match send(post(&http, &soak.sticky, Some(&session), &body)).await {
                Ok(Sent::Stream(mut stream)) => {
                    let mut reply = Reply::Lost("the stream ended without the answer".to_owned());
                    loop {
                        match stream.next().await {
                            Ok(Some(Event { data: Some(message), .. })) => {
                                if message["method"] == "elicitation/create" {
                                    let answer = json!({"jsonrpc": "2.0", "id": message["id"],
                                        "result": {"action": "accept", "content": {"confirm": true}}});
                                    match post(&http, &soak.sticky, Some(&session), &answer).send().await {
                                        Ok(response) if response.status() == 202 => {}
                                        // The session's replica restarted, and the other one
                                        // had it only in memory: Redis lost its keys since the
                                        // session opened (seen at 71.5 s of a 300 s run, the
                                        // session opened at 0.1 s, Redis restarted at 8 s).
                                        Ok(response) if response.status() == 404 => {
                                            reply = Reply::UnknownSession;
                                            break;
                                        }
                                        Ok(response) => {
                                            let status = response.status().as_u16();
                                            let text = response.text().await.unwrap_or_default();
                                            reply = Reply::Refused(status, format!("the elicitation's answer: {text}"));
                                            break;
                                        }
                                        Err(err) => {
                                            reply = Reply::Lost(format!("the elicitation's answer: {err}"));
                                            break;
                                        }
                                    }
                                } else if message["id"] == body["id"] {
                                    reply = Reply::Answer { message, resumed: false, progress: vec![] };
                                    break;
                                }
                            }
                            Ok(Some(_)) => {}
                            Ok(None) | Err(_) => break,
                        }
                    }
                    reply
                }
                Ok(Sent::Json(404, _) | Sent::Status(404, _)) => Reply::UnknownSession,
                Ok(Sent::Json(status, message)) => Reply::Refused(status, message.to_string()),
                Ok(Sent::Status(status, text)) => Reply::Refused(status, text),
                Err(err) => Reply::Lost(err),
            };
            let (_, reopen) = judge(&soak, "elicit", "take_off_view", since, born, reply, |result| {
                text_of(result).contains("is off view")
            });
            if reopen {
                continue 'session;
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        break;
    }
}

/// The session's GET stream, its messages sent on `tx` until it ends.
async fn listen(http: reqwest::Client, url: String, session: String, tx: tokio::sync::mpsc::UnboundedSender<Value>) {
    let request = http
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", PROTOCOL);
    if let Ok(Ok(Sent::Stream(mut stream))) = tokio::time::timeout(Duration::from_secs(10), send(request)).await {
        while let Ok(Some(event)) = stream.next().await {
            if let Some(message) = event.data
                && tx.send(message).is_err()
            {
                return;
            }
        }
    }
}

/// `museum://guestbook` subscribed through the sticky front; each signature
/// is followed by its update on the session's GET stream within 3 s.
async fn subscriber(soak: Arc<Soak>) {
    let http = client();
    // The GET stream lasts as long as the subscription: no overall timeout, a bound on each read.
    let listener = reqwest::Client::new();
    let mut n = 0u64;
    'session: while let Some((session, born)) = open_session(&soak, &http, &soak.sticky, json!({})).await {
        'subscribe: while soak.running() {
            let since = soak.now();
            let subscribe = json!({"jsonrpc": "2.0", "id": soak.id(), "method": "resources/subscribe",
                "params": {"uri": "museum://guestbook"}});
            let reply = call(&soak, &http, &soak.sticky, &session, &subscribe, Reading::Whole).await;
            let (subscribed, reopen) = judge(&soak, "subscription", "subscribe", since, born, reply, |_| true);
            if reopen {
                continue 'session;
            }
            if !subscribed {
                tokio::time::sleep(Duration::from_millis(300)).await;
                continue;
            }
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let listening = tokio::spawn(listen(listener.clone(), soak.sticky.clone(), session.clone(), tx));
            // The GET stream is open once the replica took it; a signature before would go unheard.
            tokio::time::sleep(Duration::from_millis(300)).await;
            while soak.running() {
                n += 1;
                while rx.try_recv().is_ok() {}
                let since = soak.now();
                let body = tool_call(soak.id(), "sign_guestbook", json!({"name": format!("soak {n}")}), false);
                let reply = call(&soak, &http, &soak.sticky, &session, &body, Reading::Whole).await;
                let (signed, reopen) = judge(&soak, "subscription", "sign_guestbook", since, born, reply, |r| {
                    text_of(r).contains("Thank you")
                });
                if reopen {
                    listening.abort();
                    continue 'session;
                }
                if !signed {
                    listening.abort();
                    continue 'subscribe;
                }
                let heard = tokio::time::timeout(Duration::from_secs(3), async {
                    while let Some(message) = rx.recv().await {
                        if message["method"] == "notifications/resources/updated" {
                            return true;
                        }
                    }
                    false
                })
                .await
                .unwrap_or(false);
                if heard {
                    soak.count("subscription", "update received");
                } else {
                    // The subscription lives on the replica that took it: a replica
                    // killed, or back and given its sessions again, holds none.
                    let allowed = soak.within(FaultKind::Replica, since) || soak.within(FaultKind::Redis, since);
                    soak.outcome("subscription", "update missed; subscribed again", allowed, format!("at {since:.1}s"));
                    listening.abort();
                    continue 'subscribe;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            listening.abort();
            break 'session;
        }
    }
}

/// Exports read as `reading` says: slowly, cut and resumed, or abandoned.
async fn exporter(soak: Arc<Soak>, kind: &'static str, records: usize) {
    let http = client();
    let mut n = 0u64;
    'session: while let Some((session, born)) = open_session(&soak, &http, &soak.round_robin, json!({})).await {
        while soak.running() {
            n += 1;
            let reading = match kind {
                "slow" => Reading::Slowly(Duration::from_millis(250)),
                "cut" => Reading::Cut,
                _ if n.is_multiple_of(2) => Reading::VanishAtOnce,
                _ => Reading::VanishAfterFirst,
            };
            let since = soak.now();
            let body = tool_call(soak.id(), "export_department", json!({"department": DEPARTMENT}), true);
            let reply = call(&soak, &http, &soak.round_robin, &session, &body, reading).await;
            if let Reply::Vanished = reply {
                soak.count(kind, "abandoned");
                tokio::time::sleep(Duration::from_millis(100)).await;
                // The server goes on serving the session.
                let ping = json!({"jsonrpc": "2.0", "id": soak.id(), "method": "ping"});
                // Judged by when it was sent: a ping its replica's kill broke
                // is found lost only after the resumption's 30 s.
                let sent = soak.now();
                let reply = call(&soak, &http, &soak.round_robin, &session, &ping, Reading::Whole).await;
                let (_, reopen) = judge(&soak, kind, "ping", sent, born, reply, |_| true);
                if reopen {
                    continue 'session;
                }
                continue;
            }
            if let Reply::Answer { message, progress, resumed } = &reply {
                // Read whole, or resumed without the replica running it again: every
                // progress once, in order (a call run again reports from 1 again).
                let once = progress.iter().copied().eq(1..=records as u64);
                if message.get("result").is_some() && !once && !soak.within(FaultKind::Replica, since) {
                    soak.outcome(kind, "progress repeated or lost", false, format!("{progress:?} resumed: {resumed}"));
                }
            }
            let (_, reopen) = judge(&soak, kind, "export_department", since, born, reply, |result| {
                text_of(result).lines().count() == records + 1
            });
            if reopen {
                continue 'session;
            }
        }
        break;
    }
}

// ---------------------------------------------------------------- the cluster

struct Cluster {
    dir: std::path::PathBuf,
    redis_port: u16,
    redis: Mutex<Option<Process>>,
    ports: [u16; 2],
    redis_url: String,
    /// Each replica and its incarnation (0 at the start, +1 each restart).
    replicas: Mutex<Vec<(Option<Process>, usize)>>,
    logs: Lines,
    proxy: Mutex<Option<Process>>,
}

impl Cluster {
    fn replica(&self, n: usize) -> Process {
        // Sessions idle a second hibernate, so the traffic's pauses put them
        // to sleep and wake them all along, through every fault. Replica 0,
        // the one killed, writes a call's events behind their sending; replica
        // 1 stores them first: both ways in one run, and side by side.
        let write_behind = if n == 0 { "1" } else { "0" };
        let env = [
            ("REQUEST_STATE_KEY", REQUEST_STATE_KEY),
            ("MCP_SESSION_HIBERNATE_AFTER", "1"),
            ("MCP_REDIS_WRITE_BEHIND", write_behind),
        ];
        museum_logged(self.ports[n], &self.redis_url, &env, &self.logs)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.replicas.lock().unwrap().clear();
        drop(self.proxy.lock().unwrap().take());
        if std::env::var_os(KEEP).is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn sample(pid: u32) -> Option<(u64, i64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as i64;
    Some((rss, fds))
}

/// A WARN or ERROR line of the replicas that an injected fault explains: in
/// its window, and about what it broke.
fn explained(line: &str, kind: FaultKind) -> bool {
    let line = line.to_ascii_lowercase();
    match kind {
        // A task lost with Redis's keys is unknown to `tasks/get`.
        FaultKind::Redis => ["redis", "store", "connection refused", "broken pipe", "reset by peer", "no task"]
            .iter()
            .any(|w| line.contains(w)),
        FaultKind::Replica => ["replica", "stopped before", "took over", "run again"].iter().any(|w| line.contains(w)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_behind_haproxy_on_redis_hold_their_promises_through_faults() {
    if !needs::all(&[REDIS_SERVER, HAPROXY]) {
        return;
    }
    let secs: u64 = std::env::var("MCP_CONTRACT_SOAK_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let collection: Value =
        serde_json::from_str(&std::fs::read_to_string(support::root().join("examples/data/collection.json")).unwrap())
            .unwrap();
    let records = collection.as_array().unwrap();
    let ids: Vec<u64> = records.iter().filter_map(|record| record["id"].as_u64()).collect();
    let department = records.iter().filter(|record| record["department"] == DEPARTMENT).count();

    let dir = std::env::temp_dir().join(format!("mcp-contract-soak-{}-{}", std::process::id(), free_port()));
    std::fs::create_dir_all(&dir).unwrap();
    let redis_port = free_port();
    let redis_process = redis(redis_port);
    let ports = [free_port(), free_port()];
    let (proxy_port, sticky_port) = (free_port(), free_port());
    let cluster = Arc::new(Cluster {
        dir: dir.clone(),
        redis_port,
        redis: Mutex::new(Some(redis_process)),
        ports,
        redis_url: format!("redis://127.0.0.1:{redis_port}/"),
        replicas: Mutex::new(Vec::new()),
        logs: Lines::default(),
        proxy: Mutex::new(None),
    });
    for n in 0..2 {
        let replica = cluster.replica(n);
        cluster.replicas.lock().unwrap().push((Some(replica), 0));
    }
    let (proxy, _log) = haproxy(proxy_port, &ports, &dir, Some(sticky_port));
    *cluster.proxy.lock().unwrap() = Some(proxy);
    let start = Instant::now();
    let soak = Arc::new(Soak {
        start,
        running: AtomicBool::new(true),
        faults: Mutex::new(Vec::new()),
        outcomes: Mutex::new(BTreeMap::new()),
        violations: Mutex::new(Vec::new()),
        round_robin: format!("http://127.0.0.1:{proxy_port}/mcp"),
        sticky: format!("http://127.0.0.1:{sticky_port}/mcp"),
        ids,
        next_id: AtomicU64::new(1),
    });

    // The sampler: every replica's RSS and fds every 2 s.
    let samples = Arc::new(Mutex::new(Vec::<Sample>::new()));
    let sampler = {
        let (soak, cluster, samples) = (soak.clone(), cluster.clone(), samples.clone());
        std::thread::spawn(move || {
            while soak.running() {
                let at = soak.now();
                let pids: Vec<(usize, usize, u32)> = cluster
                    .replicas
                    .lock()
                    .unwrap()
                    .iter()
                    .enumerate()
                    .filter_map(|(n, (process, incarnation))| process.as_ref().map(|p| (n, *incarnation, p.pid())))
                    .collect();
                for (replica, incarnation, pid) in pids {
                    if let Some((rss_kib, fds)) = sample(pid) {
                        samples.lock().unwrap().push(Sample { replica, incarnation, at, rss_kib, fds });
                    }
                }
                std::thread::sleep(Duration::from_secs(2));
            }
        })
    };

    // The faults: Redis restarted and replica 0 killed, in turn, from 8 s on,
    // every quarter of the run (at most every 60 s), none in the last 15 s.
    let period = (secs as f64 / 4.0).clamp(10.0, 60.0);
    let driver = {
        let (soak, cluster) = (soak.clone(), cluster.clone());
        std::thread::spawn(move || {
            let mut next = 8.0;
            let mut turn = 0;
            while next + 15.0 < secs as f64 {
                while soak.now() < next {
                    std::thread::sleep(Duration::from_millis(50));
                }
                let kind = if turn % 2 == 0 { FaultKind::Redis } else { FaultKind::Replica };
                let what = match kind {
                    FaultKind::Redis => "redis-server stopped 2 s, started again empty".to_owned(),
                    FaultKind::Replica => "replica 0 killed (SIGKILL), started again 3 s later".to_owned(),
                };
                soak.faults.lock().unwrap().push(Fault { kind, what, start: soak.now(), end: f64::INFINITY });
                match kind {
                    FaultKind::Redis => {
                        drop(cluster.redis.lock().unwrap().take());
                        std::thread::sleep(Duration::from_secs(2));
                        *cluster.redis.lock().unwrap() = Some(redis(cluster.redis_port));
                    }
                    FaultKind::Replica => {
                        let incarnation = {
                            let mut replicas = cluster.replicas.lock().unwrap();
                            drop(replicas[0].0.take());
                            replicas[0].1
                        };
                        std::thread::sleep(Duration::from_secs(3));
                        let replica = cluster.replica(0);
                        cluster.replicas.lock().unwrap()[0] = (Some(replica), incarnation + 1);
                    }
                }
                soak.faults.lock().unwrap().last_mut().unwrap().end = soak.now();
                turn += 1;
                next += period;
            }
        })
    };

    let mut clients = Vec::new();
    for _ in 0..2 {
        clients.push(tokio::spawn(caller(soak.clone())));
    }
    clients.push(tokio::spawn(tasker(soak.clone(), department)));
    clients.push(tokio::spawn(rounds(soak.clone())));
    clients.push(tokio::spawn(elicitor(soak.clone())));
    clients.push(tokio::spawn(subscriber(soak.clone())));
    for kind in ["slow", "cut", "vanish"] {
        clients.push(tokio::spawn(exporter(soak.clone(), kind, department)));
    }

    tokio::time::sleep(Duration::from_secs(secs)).await;
    soak.running.store(false, Ordering::Relaxed);
    // Every client ends its call in progress: each wait is bounded (60 s a request, 30 s a resumption).
    for client in clients {
        tokio::time::timeout(Duration::from_secs(120), client).await.expect("a client ended within 120 s").unwrap();
    }
    let elapsed = soak.now();
    driver.join().unwrap();
    sampler.join().unwrap();
    // What the replicas logged before they stop.
    std::thread::sleep(Duration::from_millis(300));

    // ------------------------------------------------------------ the summary
    let outcomes = soak.outcomes.lock().unwrap().clone();
    let faults = std::mem::take(&mut *soak.faults.lock().unwrap());
    let mut summary = format!("soak: {elapsed:.0} s, two museum replicas behind haproxy on one redis-server\n");
    let total: u64 = outcomes.values().sum();
    summary.push_str(&format!("outcomes ({total}, {:.1}/s):\n", total as f64 / elapsed));
    for ((kind, outcome), count) in &outcomes {
        summary.push_str(&format!("  {kind:<13} {outcome:<52} {count:>7}\n"));
    }
    summary.push_str(&format!("faults ({}):\n", faults.len()));
    for fault in &faults {
        summary.push_str(&format!("  {:7.1}s–{:7.1}s  {}\n", fault.start, fault.end, fault.what));
    }

    // Memory and fds: each incarnation against its own start.
    let samples = std::mem::take(&mut *samples.lock().unwrap());
    let mut bound_failures = Vec::new();
    summary.push_str(&format!(
        "replicas (RSS MiB min/max, first/last third max; fds min/max, first/last third max), bound +{MEMORY_BOUND_MIB} MiB, +{FD_BOUND} fds:\n"
    ));
    let mut lives: BTreeMap<(usize, usize), Vec<&Sample>> = BTreeMap::new();
    for sample in &samples {
        lives.entry((sample.replica, sample.incarnation)).or_default().push(sample);
    }
    for ((replica, incarnation), life) in &lives {
        let born = life[0].at;
        let warm: Vec<&&Sample> = life.iter().filter(|s| s.at >= born + WARM_UP).collect();
        let mib = |s: &Sample| s.rss_kib as f64 / 1024.0;
        let min_rss = life.iter().map(|s| mib(s)).fold(f64::MAX, f64::min);
        let max_rss = life.iter().map(|s| mib(s)).fold(0.0, f64::max);
        let (min_fds, max_fds) = (life.iter().map(|s| s.fds).min().unwrap(), life.iter().map(|s| s.fds).max().unwrap());
        let line = if warm.len() >= 6 {
            let third = warm.len() / 3;
            let (first, last) = (&warm[..third], &warm[warm.len() - third..]);
            let first_rss = first.iter().map(|s| mib(s)).fold(0.0, f64::max);
            let last_rss = last.iter().map(|s| mib(s)).fold(0.0, f64::max);
            let first_fds = first.iter().map(|s| s.fds).max().unwrap();
            let last_fds = last.iter().map(|s| s.fds).max().unwrap();
            if last_rss - first_rss > MEMORY_BOUND_MIB || last_fds - first_fds > FD_BOUND {
                bound_failures.push(format!("replica {replica} (start {incarnation}) grew: RSS {first_rss:.1} → {last_rss:.1} MiB, fds {first_fds} → {last_fds}"));
            }
            format!("{first_rss:.1}/{last_rss:.1}; fds {min_fds}/{max_fds}, {first_fds}/{last_fds}")
        } else {
            format!("too short a life after warm-up to judge; fds {min_fds}/{max_fds}")
        };
        summary.push_str(&format!(
            "  replica {replica} start {incarnation}: {:.0} s, {} samples; RSS {min_rss:.1}/{max_rss:.1}, {line}\n",
            life.last().unwrap().at - born,
            life.len()
        ));
    }

    // The replicas' WARN and ERROR lines.
    let logs = cluster.logs.lock().unwrap().clone();
    let mut unexplained = Vec::new();
    let (mut explained_lines, mut startup_lines) = (0, 0);
    let mut gists: BTreeMap<String, usize> = BTreeMap::new();
    for (at, line) in &logs {
        // A panic outside a handler ends its connection's task: the client's
        // stream breaks mid-answer (haproxy logs `SD--`), and the default hook
        // prints neither WARN nor ERROR. No fault explains one.
        if line.contains(" panicked at ") {
            unexplained.push(format!("{:7.1}s {line}", soak.at(*at)));
            continue;
        }
        if !(line.contains(" WARN ") || line.contains(" ERROR ")) {
            continue;
        }
        if line.contains(STARTUP_WARNING) {
            startup_lines += 1;
            continue;
        }
        let t = soak.at(*at);
        let ok = faults.iter().any(|f| {
            // A client resumes an event sent while Redis was down for up to 30 s,
            // and each resumption is refused with this line.
            let after = if line.contains(UNREPLAYABLE) { GRACE + RESUME_BOUND } else { GRACE };
            f.start - 0.5 <= t && t <= f.end + after && explained(line, f.kind)
        });
        if ok {
            explained_lines += 1;
            // The line's gist, its numbers and ids left out, for the summary.
            let gist: String = line
                .split_once(if line.contains(" WARN ") { " WARN " } else { " ERROR " })
                .map_or(line.as_str(), |(_, rest)| rest)
                .chars()
                .filter(|c| !c.is_ascii_digit())
                .take(110)
                .collect();
            *gists.entry(gist).or_insert(0) += 1;
        } else {
            unexplained.push(format!("{t:7.1}s {line}"));
        }
    }
    summary.push_str(&format!(
        "log: {} lines; WARN/ERROR: {startup_lines} the start's auth warning, {explained_lines} explained by a fault, {} not\n",
        logs.len(),
        unexplained.len()
    ));
    for (gist, count) in &gists {
        summary.push_str(&format!("  {count:>5} × {gist}\n"));
    }
    eprintln!("{summary}");
    if std::env::var_os(KEEP).is_some() {
        let lines: String = logs.iter().map(|(at, line)| format!("{:8.3} {line}\n", soak.at(*at))).collect();
        std::fs::write(cluster.dir.join("replicas.log"), lines).unwrap();
        eprintln!("soak: haproxy.log and replicas.log kept in {}", cluster.dir.display());
    }
    drop(cluster);

    // Each failure is said at once, the first 40 lines of each kind.
    let violations = soak.violations.lock().unwrap().clone();
    let mut failures = String::new();
    for (what, lines) in [
        ("outcomes the guide does not allow", &violations),
        ("log lines no injected fault explains", &unexplained),
        ("replicas that grew past the bound", &bound_failures),
    ] {
        if !lines.is_empty() {
            let shown: Vec<&str> = lines.iter().take(40).map(String::as_str).collect();
            failures.push_str(&format!("{what} ({}):\n{}\n", lines.len(), shown.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{failures}");
    let answered = |kind: &str, outcome: &str| outcomes.get(&(kind, outcome.to_owned())).copied().unwrap_or(0);
    for (kind, outcome) in [
        ("call", "answered"),
        ("task", "completed"),
        ("round", "answered"),
        ("elicit", "answered"),
        ("subscription", "update received"),
        ("slow", "answered"),
        ("cut", "answered after a resumption"),
        ("vanish", "abandoned"),
    ] {
        assert!(answered(kind, outcome) > 0, "no {kind} was {outcome}:\n{summary}");
    }
    assert!(faults.iter().any(|f| f.kind == FaultKind::Redis) && faults.iter().any(|f| f.kind == FaultKind::Replica));
    // Each start of replica 0 says it writes behind; replica 1's never does.
    let behind = logs.iter().filter(|(_, line)| line.contains("written to Redis (MCP_REDIS_WRITE_BEHIND)")).count();
    let starts_of_replica_0 = 1 + faults.iter().filter(|f| f.kind == FaultKind::Replica).count();
    assert_eq!(behind, starts_of_replica_0, "replica 0 writes behind, replica 1 does not");
}
