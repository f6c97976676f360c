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
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let shutdown = CancellationToken::new();
        let options = StdioOptions::default().without_signal_handling().shutdown_grace(GRACE).shutdown_token(shutdown.clone());
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
