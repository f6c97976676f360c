//! Every request gets exactly one answer, or none where the protocol says
//! none, across random interleavings of calls, cancellations, a client that
//! goes away and a server that shuts down: a property over the stdio
//! transport (a duplex pipe into `serve_io_with`, the transport a stdio
//! server runs), bounded in cases (`ANSWERS_CASES`, 24 by default) and time
//! (each scenario a few hundred milliseconds of calls).
//!
//! What is owed, by MCP and JSON-RPC: a notification gets nothing; a request
//! gets one answer; a cancelled request gets at most one (the server may have
//! answered before the cancellation reached it, and sends nothing after it);
//! at shutdown every request the client wrote before it began is answered (a
//! result within the grace period, else the -32000 "shutting down", which is
//! also the answer of the requests still unread in the pipe: the server reads
//! what was written before it closes its output); after the client closes its
//! side, whatever comes out is still at most one answer per request. Never an
//! answer to an id nobody sent, and the server always ends and closes its
//! output.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use mcp_contract_runtime::server::StdioOptions;
use proptest::prelude::*;
use serde_json::{Value, json};
use support::{INITIALIZED, call, initialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

#[derive(Clone, Debug)]
enum Step {
    /// A call that answers at once.
    Echo,
    /// A call that runs `millis` on the blocking pool, watching for cancellation.
    Grind(u64),
    /// A call that computes `millis` without yielding.
    Spin(u64),
    Ping,
    /// Cancel the `n`-th request sent so far (modulo how many there are).
    Cancel(usize),
    /// A notification no one answers.
    Notify,
    /// Let the server work a little.
    Pause(u64),
}

#[derive(Clone, Copy, Debug)]
enum End {
    /// Read every answer owed, then close the input.
    Drain,
    /// Close the input with requests in flight.
    Disconnect,
    /// Shut the server down with requests in flight.
    Shutdown,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Echo),
        3 => (0u64..120).prop_map(Step::Grind),
        1 => (0u64..30).prop_map(Step::Spin),
        1 => Just(Step::Ping),
        3 => any::<usize>().prop_map(Step::Cancel),
        1 => Just(Step::Notify),
        2 => (0u64..40).prop_map(Step::Pause),
    ]
}

fn end() -> impl Strategy<Value = End> {
    prop_oneof![Just(End::Drain), Just(End::Disconnect), Just(End::Shutdown)]
}

fn cases() -> u32 {
    std::env::var("ANSWERS_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(24)
}

/// The grace period at shutdown: shorter than the longest call, so that
/// both endings of a call in flight (its result, the shutdown's error) occur.
const GRACE: Duration = Duration::from_millis(60);
/// The longest wait for anything here; past it the property fails.
const BOUND: Duration = Duration::from_secs(10);

async fn scenario(steps: Vec<Step>, end: End) -> Result<(), TestCaseError> {
    let shutdown = CancellationToken::new();
    let options =
        StdioOptions::default().without_signal_handling().shutdown_grace(GRACE).shutdown_token(shutdown.clone());
    let (client, server_side) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_side);
    let served = tokio::spawn(support::server().serve_io_with(read, write, options));
    let (read, mut write) = tokio::io::split(client);
    // Every line the server writes, in order, read as it comes.
    let (lines_tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let reader = tokio::spawn(async move {
        let mut read = BufReader::new(read);
        let mut line = String::new();
        loop {
            line.clear();
            match read.read_line(&mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    let value = serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"));
                    if lines_tx.send(value).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let send = |line: Vec<u8>| {
        let mut line = line;
        line.push(b'\n');
        line
    };
    write.write_all(&send(initialize("init"))).await.expect("the server reads");
    let first = tokio::time::timeout(BOUND, lines.recv()).await.expect("initialize answered").expect("a line");
    prop_assert_eq!(&first["id"], "init");
    write.write_all(&send(INITIALIZED.to_vec())).await.expect("the server reads");

    let mut sent: Vec<Value> = Vec::new();
    let mut cancelled: BTreeSet<String> = BTreeSet::new();
    let mut answers: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen = Vec::new();
    let mut note = |answer: Value, answers: &mut BTreeMap<String, usize>| {
        // Notifications (progress, logs) are no answers.
        if answer.get("id").is_some() && answer.get("method").is_none() {
            *answers.entry(answer["id"].to_string()).or_default() += 1;
        }
        seen.push(answer);
    };
    for (n, step) in steps.iter().enumerate() {
        let id = json!(format!("r{n}"));
        let line = match step {
            Step::Echo => call(id.clone(), "echo", json!({"text": "hi"})),
            Step::Grind(millis) => call(id.clone(), "grind", json!({"millis": millis})),
            Step::Spin(millis) => call(id.clone(), "spin", json!({"millis": millis})),
            Step::Ping => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string().into_bytes(),
            Step::Cancel(which) => {
                let Some(target) = (!sent.is_empty()).then(|| sent[which % sent.len()].clone()) else { continue };
                cancelled.insert(target.to_string());
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": target}})
                    .to_string()
                    .into_bytes()
            }
            Step::Notify => {
                json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string().into_bytes()
            }
            Step::Pause(millis) => {
                tokio::time::sleep(Duration::from_millis(*millis)).await;
                continue;
            }
        };
        if !matches!(step, Step::Cancel(_) | Step::Notify) {
            sent.push(id);
        }
        write.write_all(&send(line)).await.expect("the server reads");
        while let Ok(answer) = lines.try_recv() {
            note(answer, &mut answers);
        }
    }
    let owed: BTreeSet<String> = sent.iter().map(Value::to_string).filter(|id| !cancelled.contains(id)).collect();
    // Closing the input ends the session; at shutdown the client keeps its
    // side open, and the server ends on its own.
    let _open = match end {
        End::Drain => {
            let deadline = tokio::time::Instant::now() + BOUND;
            while !owed.iter().all(|id| answers.contains_key(id)) {
                let Ok(Some(answer)) = tokio::time::timeout_at(deadline, lines.recv()).await else { break };
                note(answer, &mut answers);
            }
            // The pipe's halves close together: shut the write side down.
            let _ = write.shutdown().await;
            None
        }
        End::Disconnect => {
            let _ = write.shutdown().await;
            None
        }
        End::Shutdown => {
            shutdown.cancel();
            Some(write)
        }
    };
    let ended = tokio::time::timeout(BOUND, served).await;
    prop_assert!(ended.is_ok(), "the server did not end within {BOUND:?} after {end:?}");
    // Its output closes: a client learns that what it was not answered is lost.
    prop_assert!(tokio::time::timeout(BOUND, reader).await.is_ok(), "the server's output stayed open after {end:?}");
    while let Ok(answer) = lines.try_recv() {
        note(answer, &mut answers);
    }
    let sent_ids: BTreeSet<String> = sent.iter().map(Value::to_string).collect();
    for (id, count) in &answers {
        prop_assert!(sent_ids.contains(id), "an answer to {id}, which nobody sent: {seen:?}");
        prop_assert_eq!(*count, 1, "{} answered {} times: {:?}", id, count, seen);
    }
    match end {
        // Every write of the client completed (into the pipe) before the
        // shutdown began: what the server had not read yet, it reads before
        // it closes its output, and answers with the shutdown's error.
        End::Drain | End::Shutdown => {
            for id in &owed {
                prop_assert!(answers.contains_key(id), "{id} not answered after {end:?}: {seen:?}");
            }
        }
        End::Disconnect => {}
    }
    if let End::Shutdown = end {
        // Nothing but a result or the shutdown's error.
        for answer in &seen {
            if let Some(code) = answer.get("error").and_then(|error| error.get("code")) {
                prop_assert_eq!(code, -32000, "an error other than the shutdown's: {}", answer);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_shrink_iters: 64,
        // A failure prints its minimal case; replay it as a test of its own.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_request_gets_exactly_one_answer_over_stdio(steps in prop::collection::vec(step(), 1..14), end in end()) {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
        runtime.block_on(scenario(steps, end))?;
    }
}

/// A burst of requests written at once, then a shutdown at once: the server
/// has read few of them when it stops serving. It reads the rest (300 short
/// lines, about 30 KB, far within the sweep's byte and time caps) and answers each: a
/// result, or the -32000 of shutdown. Before the sweep, the lines still in
/// the pipe were lost with the output.
#[test]
fn a_burst_written_before_a_shutdown_is_answered_in_full() {
    const BURST: usize = 300;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let shutdown = CancellationToken::new();
        let options =
            StdioOptions::default().without_signal_handling().shutdown_grace(GRACE).shutdown_token(shutdown.clone());
        let (mut client, served) = support::LineClient::serving(support::server(), options).await;
        let mut burst = Vec::new();
        for n in 0..BURST {
            burst.extend(call(json!(n), "echo", json!({"text": "hi"})));
            burst.push(b'\n');
        }
        // One write, whole in the pipe before the shutdown begins.
        client.send_raw(&burst).await;
        shutdown.cancel();
        let mut answers: BTreeMap<String, usize> = BTreeMap::new();
        let mut shut = 0;
        while let Some(answer) = client.next_or_end().await {
            if answer["error"]["code"] == -32000 {
                shut += 1;
            } else {
                assert_eq!(answer["result"]["content"][0]["text"], "hi", "{answer}");
            }
            *answers.entry(answer["id"].to_string()).or_default() += 1;
        }
        assert!(tokio::time::timeout(BOUND, served).await.is_ok(), "the server ended");
        let missing: Vec<usize> = (0..BURST).filter(|n| !answers.contains_key(&n.to_string())).collect();
        assert!(missing.is_empty(), "{} of {BURST} not answered ({shut} with -32000): {missing:?}", missing.len());
        assert!(answers.values().all(|count| *count == 1), "an id answered twice: {answers:?}");
        assert_eq!(answers.len(), BURST);
    });
}

// ---------------------------------------------------------------- Streamable HTTP

#[derive(Clone, Copy, Debug)]
enum Mode {
    /// A session, its calls answered on SSE streams (events kept, resumable).
    Sse,
    /// A session, its calls answered with plain JSON bodies.
    Json,
    /// No session: each POST stands alone.
    Stateless,
}

#[derive(Clone, Debug)]
enum Post {
    Echo,
    Grind(u64),
    /// Cancel the `n`-th call sent so far (a session's `notifications/cancelled`).
    Cancel(usize),
    /// A `grind` whose response the client drops once it began (on SSE,
    /// after its first event, whose id it keeps to resume from).
    Dropped(u64),
    Pause(u64),
}

#[derive(Clone, Copy, Debug)]
enum HttpEnd {
    /// Read every answer (and resume every dropped stream that can be).
    Drain,
    /// DELETE the session with calls in flight.
    Delete,
    /// Shut the server down with calls in flight.
    Shutdown,
}

fn post() -> impl Strategy<Value = Post> {
    prop_oneof![
        3 => Just(Post::Echo),
        3 => (0u64..120).prop_map(Post::Grind),
        2 => any::<usize>().prop_map(Post::Cancel),
        2 => (0u64..120).prop_map(Post::Dropped),
        2 => (0u64..40).prop_map(Post::Pause),
    ]
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![Just(Mode::Sse), Just(Mode::Json), Just(Mode::Stateless)]
}

fn http_end() -> impl Strategy<Value = HttpEnd> {
    prop_oneof![Just(HttpEnd::Drain), Just(HttpEnd::Delete), Just(HttpEnd::Shutdown)]
}

/// The answers (messages with an id and no method) of `messages`, by id.
fn answers_of(messages: &[Value]) -> BTreeMap<String, usize> {
    let mut answers = BTreeMap::new();
    for message in messages {
        if message.get("id").is_some() && message.get("method").is_none() {
            *answers.entry(message["id"].to_string()).or_default() += 1;
        }
    }
    answers
}

/// A POST written on a connection of its own (`connection: close`), its
/// response not read yet.
async fn write_post(
    addr: std::net::SocketAddr,
    session: Option<&str>,
    body: &[u8],
) -> std::io::Result<tokio::net::TcpStream> {
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\n\
         content-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!("mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    Ok(stream)
}

/// What came back on a POST's connection until the server closed it: the
/// status and the JSON-RPC messages (the JSON body, or the SSE data events);
/// `None` when the connection closed (or was reset) before a status line.
async fn read_post(stream: tokio::net::TcpStream) -> Option<(u16, Vec<Value>)> {
    read_post_with_head(stream).await.map(|(status, _, messages)| (status, messages))
}

/// [`read_post`], with the response's head (lowercased) too.
async fn read_post_with_head(mut stream: tokio::net::TcpStream) -> Option<(u16, String, Vec<Value>)> {
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::new();
    let read = tokio::time::timeout(BOUND, stream.read_to_end(&mut bytes)).await;
    assert!(read.is_ok(), "the server neither answered nor closed within {BOUND:?}");
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let head = head.to_ascii_lowercase();
    let body = if head.contains("transfer-encoding: chunked") {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).ok()?;
            if size == 0 || after.len() < size {
                break;
            }
            out.push_str(&after[..size]);
            rest = after[size..].strip_prefix("\r\n").unwrap_or(&after[size..]);
        }
        out
    } else {
        body.to_owned()
    };
    let messages = if head.contains("content-type: text/event-stream") {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .map(|data| serde_json::from_str(data).expect("an SSE data event is JSON"))
            .collect()
    } else if body.trim().is_empty() {
        Vec::new()
    } else {
        vec![serde_json::from_str(&body).unwrap_or_else(|err| panic!("not JSON ({err}): {body}"))]
    };
    Some((status, head, messages))
}

/// POST `body` on a connection of its own, read the response's head and,
/// on SSE, its first event, then drop the connection: the id of that event.
async fn post_and_drop(addr: std::net::SocketAddr, session: Option<&str>, body: &[u8]) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("the server accepts");
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!("mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("the server reads");
    stream.write_all(body).await.expect("the server reads");
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    // The head, and the first event when it is a stream; bounded.
    let deadline = tokio::time::Instant::now() + BOUND;
    loop {
        let text = String::from_utf8_lossy(&seen).into_owned();
        if let Some((_, rest)) = text.split_once("\r\n\r\n") {
            if !text.to_ascii_lowercase().contains("text/event-stream") {
                return None;
            }
            if let Some(id) = rest.lines().find_map(|line| line.strip_prefix("id:")) {
                return Some(id.trim().to_owned());
            }
        }
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => seen.extend_from_slice(&buf[..n]),
            _ => return None,
        }
    }
}

async fn http_scenario(mode: Mode, posts: Vec<Post>, end: HttpEnd) -> Result<(), TestCaseError> {
    use support::{HttpClient, HttpServer};
    let mut options = mcp_contract_runtime::server::HttpOptions::default().shutdown_grace(GRACE);
    options = match mode {
        Mode::Sse => options,
        Mode::Json => options.json_response(true),
        Mode::Stateless => options.stateless(true),
    };
    let mut server = HttpServer::serving(support::server(), options).await;
    let addr = server.addr;
    let session = match mode {
        Mode::Stateless => None,
        Mode::Sse | Mode::Json => HttpClient::session(addr).await.session,
    };
    let connect = |session: Option<String>| async move {
        let mut client = HttpClient::connect(addr).await;
        client.session = session;
        client
    };
    let mut sent: Vec<Value> = Vec::new();
    let mut calls = Vec::new();
    let mut cancelled: BTreeSet<String> = BTreeSet::new();
    let mut dropped: Vec<(String, Option<String>)> = Vec::new();
    for (n, step) in posts.iter().enumerate() {
        let id = json!(format!("h{n}"));
        let body = match step {
            Post::Echo => call(id.clone(), "echo", json!({"text": "hi"})),
            Post::Grind(millis) | Post::Dropped(millis) => call(id.clone(), "grind", json!({"millis": millis})),
            Post::Cancel(which) => {
                // A stateless POST has no session to send a cancellation in.
                if matches!(mode, Mode::Stateless) || sent.is_empty() {
                    continue;
                }
                let target = sent[which % sent.len()].clone();
                cancelled.insert(target.to_string());
                let body =
                    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": target}});
                let answer = connect(session.clone()).await.post(body.to_string().as_bytes()).await;
                prop_assert_eq!(answer.status, 202, "a cancellation: {}", answer.text());
                continue;
            }
            Post::Pause(millis) => {
                tokio::time::sleep(Duration::from_millis(*millis)).await;
                continue;
            }
        };
        sent.push(id.clone());
        if let Post::Dropped(_) = step {
            dropped.push((id.to_string(), post_and_drop(addr, session.as_deref(), &body).await));
            continue;
        }
        // Written before the next step: a request the client sent before the shutdown.
        let written = write_post(addr, session.as_deref(), &body).await;
        prop_assert!(written.is_ok(), "the POST of {id} was not written: {written:?}");
        let Ok(stream) = written else { continue };
        calls.push((id.to_string(), tokio::spawn(read_post(stream))));
    }
    match end {
        HttpEnd::Drain => {}
        HttpEnd::Delete => {
            if session.is_some() {
                let answer = connect(session.clone()).await.request("DELETE", &[], b"").await;
                prop_assert!(matches!(answer.status, 200 | 204), "DELETE: {} {}", answer.status, answer.text());
            }
        }
        HttpEnd::Shutdown => server.stop.cancel(),
    }
    // Each POST's own stream: one answer, its own, when it got one.
    for (id, task) in calls {
        let answer = task.await;
        prop_assert!(answer.is_ok(), "reading the POST of {id} failed: {answer:?}");
        let Ok(answer) = answer else { continue };
        // Every POST was written whole before the ending began: even at a
        // shutdown it gets a status line (its result, or the 503), never a
        // connection closed under it.
        let Some((status, messages)) = answer else {
            prop_assert!(false, "the connection of {id} closed with no status line after {end:?}");
            continue;
        };
        let answers = answers_of(&messages);
        prop_assert!(answers.keys().all(|other| *other == id), "{id}'s stream answers another: {messages:?}");
        let count = answers.get(&id).copied().unwrap_or(0);
        prop_assert!(count <= 1, "{id} answered {count} times: {messages:?}");
        let owed = !cancelled.contains(&id);
        prop_assert!(!owed || count == 1, "{id} ({status}) not answered after {end:?}: {messages:?}");
        // Over a DELETE: the result, the -32000 that the session ended, or (a
        // POST read after the DELETE) the 404 of an unknown session.
        if let HttpEnd::Delete = end {
            for answer in
                messages.iter().filter(|message| message.get("id").is_some() && message.get("method").is_none())
            {
                if let Some(code) = answer.get("error").map(|error| &error["code"]) {
                    prop_assert!(code == -32000 || status == 404, "an error other than the session's end: {answer}");
                }
            }
        }
        // Over a shutdown: the result, or the -32000 (the stream carries no other answer).
        if let HttpEnd::Shutdown = end {
            for answer in
                messages.iter().filter(|message| message.get("id").is_some() && message.get("method").is_none())
            {
                if let Some(code) = answer.get("error").map(|error| &error["code"]) {
                    prop_assert_eq!(code, -32000, "an error other than the shutdown's: {}", answer);
                }
            }
        }
    }
    // A dropped stream is no cancellation: its events were kept, and a
    // resumption from the first brings the answer (the result, or the
    // -32011 of a call whose caller went away), once. The resumption of a
    // call cancelled too ends, with at most its answer (it may have been
    // answered before the cancellation reached it).
    if let (HttpEnd::Drain, Mode::Sse) = (end, mode) {
        for (id, last) in &dropped {
            let Some(last) = last else {
                prop_assert!(false, "the dropped stream of {id} had no event id");
                continue;
            };
            let mut client = connect(session.clone()).await;
            let resumed = tokio::time::timeout(BOUND, client.request("GET", &[("last-event-id", last)], b"")).await;
            prop_assert!(resumed.is_ok(), "the resumption of {id} did not end within {BOUND:?}");
            let Ok(resumed) = resumed else { continue };
            let answers = answers_of(&resumed.messages());
            let count = answers.get(id).copied().unwrap_or(0);
            let owed = if cancelled.contains(id) { 0..=1 } else { 1..=1 };
            prop_assert!(owed.contains(&count), "{id} resumed, answered {count} times: {}", resumed.text());
            prop_assert!(
                answers.keys().all(|other| other == id),
                "{id}'s resumption answers another: {}",
                resumed.text()
            );
        }
    }
    if let HttpEnd::Delete = end
        && session.is_some()
    {
        let answer = connect(session.clone()).await.post(&call(json!("late"), "echo", json!({"text": "hi"}))).await;
        prop_assert_eq!(answer.status, 404, "a deleted session serves nothing: {}", answer.text());
    }
    if let HttpEnd::Shutdown = end {
        let served = server.served.take().expect("the serving task");
        prop_assert!(tokio::time::timeout(BOUND, served).await.is_ok(), "the server did not end within {BOUND:?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_shrink_iters: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_request_gets_exactly_one_answer_over_streamable_http(
        mode in mode(),
        posts in prop::collection::vec(post(), 1..10),
        end in http_end(),
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
        runtime.block_on(http_scenario(mode, posts, end))?;
    }
}

/// A call whose client dropped its stream after the first event, then
/// cancelled it: the call will never have an answer, so its resumption
/// replays what was stored and ends, rather than following a stream nothing
/// will be written to again (it stayed open until the client gave up).
#[test]
fn the_resumed_stream_of_a_cancelled_call_ends() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        use support::{HttpClient, HttpServer};
        let options = mcp_contract_runtime::server::HttpOptions::default().shutdown_grace(GRACE);
        let server = HttpServer::serving(support::server(), options).await;
        let session = HttpClient::session(server.addr).await.session;
        let body = call(json!("long"), "grind", json!({"millis": 3000}));
        let last = post_and_drop(server.addr, session.as_deref(), &body).await.expect("the stream's first event id");
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "long"}});
        let mut client = HttpClient::connect(server.addr).await;
        client.session.clone_from(&session);
        assert_eq!(client.post(cancel.to_string().as_bytes()).await.status, 202);
        // Well before the grind would end on its own (3 s).
        let resumed =
            tokio::time::timeout(Duration::from_secs(1), client.request("GET", &[("last-event-id", &last)], b""))
                .await
                .expect("the resumption of a cancelled call ends");
        assert_eq!(resumed.status, 200, "{}", resumed.text());
        let answers = answers_of(&resumed.messages());
        assert!(answers.keys().all(|id| id == "\"long\""), "{}", resumed.text());
        assert!(answers.values().all(|count| *count == 1), "{}", resumed.text());
    });
}

/// A POST in flight when its session is deleted gets a well-formed answer:
/// the -32000 that the session ended (the call has no result to give any
/// more), on a session answering with JSON as on one answering on SSE.
/// Before, the JSON-answering session's POST ended with 200 and no body.
#[test]
fn a_post_in_flight_at_delete_is_answered_that_the_session_ended() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        use support::{HttpClient, HttpServer};
        for json_response in [false, true] {
            let options =
                mcp_contract_runtime::server::HttpOptions::default().shutdown_grace(GRACE).json_response(json_response);
            let server = HttpServer::serving(support::server(), options).await;
            let session = HttpClient::session(server.addr).await.session;
            let body = call(json!("long"), "grind", json!({"millis": 2000}));
            let stream = write_post(server.addr, session.as_deref(), &body).await.expect("the POST is written");
            let answer = tokio::spawn(read_post(stream));
            // The call runs (a grind is on the blocking pool) when the session goes.
            tokio::time::sleep(Duration::from_millis(200)).await;
            let mut client = HttpClient::connect(server.addr).await;
            client.session.clone_from(&session);
            let deleted = client.request("DELETE", &[], b"").await;
            assert!(matches!(deleted.status, 200 | 204), "DELETE: {} {}", deleted.status, deleted.text());
            let (status, messages) = answer.await.expect("read").expect("a status line");
            let answers = answers_of(&messages);
            assert_eq!(
                answers.get("\"long\"").copied(),
                Some(1),
                "json_response {json_response}: {status} {messages:?}"
            );
            let answer = messages.iter().find(|message| message["id"] == "long").expect("the answer");
            assert_eq!(answer["error"]["code"], -32000, "json_response {json_response}: {answer}");
        }
    });
}

/// POSTs written (whole) before a shutdown begins, on connections the server
/// has not accepted yet or not read from yet: each gets a status line, its
/// result or the 503 of shutdown (with `Retry-After` and the -32000), never a
/// connection closed under it. The server runs on the test's one thread, so
/// nothing of it runs between the blocking writes and the shutdown: every
/// connection is still in the system's accept queue when the shutdown begins.
/// Before, the server closed the queue with the listener, and a connection it
/// had accepted but not read from yet with the graceful shutdown, both without
/// a status line.
#[test]
fn posts_written_before_a_shutdown_get_a_status_line() {
    const POSTS: usize = 20;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        use std::io::Write;
        let options = mcp_contract_runtime::server::HttpOptions::default().shutdown_grace(GRACE).stateless(true);
        let server = support::HttpServer::serving(support::server(), options).await;
        let mut written = Vec::new();
        for n in 0..POSTS {
            let body = call(json!(n), "echo", json!({"text": "hi"}));
            // Blocking: the server's tasks do not run meanwhile.
            let mut stream = std::net::TcpStream::connect(server.addr).expect("the system accepts");
            let head = format!(
                "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\n\
                 content-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).expect("written");
            stream.write_all(&body).expect("written");
            stream.set_nonblocking(true).expect("non-blocking");
            written.push(tokio::net::TcpStream::from_std(stream).expect("a tokio stream"));
        }
        server.stop.cancel();
        let mut statuses = Vec::new();
        for stream in written {
            statuses.push(read_post_with_head(stream).await);
        }
        let unanswered = statuses.iter().filter(|status| status.is_none()).count();
        assert_eq!(unanswered, 0, "{unanswered} of {POSTS} POSTs closed with no status line: {statuses:?}");
        for (status, head, messages) in statuses.into_iter().flatten() {
            assert_eq!(messages.len(), 1, "{status}: {messages:?}");
            match status {
                200 => assert_eq!(messages[0]["result"]["content"][0]["text"], "hi", "{messages:?}"),
                503 => {
                    assert_eq!(messages[0]["error"]["code"], -32000, "{messages:?}");
                    // The client is told when to come back (a restarted
                    // server, or another replica behind the balancer).
                    assert!(
                        head.lines().any(|line| line.starts_with("retry-after: ")),
                        "503 without Retry-After: {head}"
                    );
                }
                other => panic!("{other}: {messages:?}"),
            }
        }
    });
}
