//! Every request gets exactly one answer, or none where the protocol says
//! none, driven through the in-process [`Client`] of the `testing` feature, as
//! a user's test drives a server: random interleavings of calls (at once, on
//! the blocking pool, computing without yielding), pings and cancellations
//! (`notifications/cancelled`, from [`PendingCall::cancel`]), ended by waiting
//! for every answer, by the client going away ([`Client::disconnect`]) or by
//! a shutdown ([`ClientBuilder::over_stdio`]'s token). The client keeps the
//! messages as they travelled ([`ClientBuilder::keep_messages`]): the
//! property is checked on the wire, where a second answer would show, not on
//! the results rmcp hands over. Bounded in cases (`ANSWERS_CASES`, 24 by
//! default) and time, as `answers.rs` over the stdio transport.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use mcp_contract_runtime::JsonRpcErrorCode;
use mcp_contract_runtime::server::StdioOptions;
use mcp_contract_runtime::testing::{Client, PendingCall};
use proptest::prelude::*;
use serde_json::{Value, json};
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
    /// Cancel the `n`-th call still in flight (modulo how many there are).
    Cancel(usize),
    /// Let the server work a little.
    Pause(u64),
}

#[derive(Clone, Copy, Debug)]
enum End {
    /// Wait for every answer owed, then go away.
    Drain,
    /// Go away with calls in flight.
    Disconnect,
    /// Shut the server down with calls in flight (over the stdio transport).
    Shutdown,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Echo),
        3 => (0u64..120).prop_map(Step::Grind),
        1 => (0u64..30).prop_map(Step::Spin),
        1 => Just(Step::Ping),
        3 => any::<usize>().prop_map(Step::Cancel),
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

async fn scenario(steps: Vec<Step>, end: End, stdio: bool) -> Result<(), TestCaseError> {
    let shutdown = CancellationToken::new();
    let mut builder = Client::builder().keep_messages().call_timeout(BOUND);
    // A shutdown is the stdio transport's; the other endings run on either.
    if stdio || matches!(end, End::Shutdown) {
        builder = builder.over_stdio(StdioOptions::default().shutdown_grace(GRACE).shutdown_token(shutdown.clone()));
    }
    let client = Arc::new(builder.connect_built(support::server()).await);
    let mut in_flight: Vec<PendingCall> = Vec::new();
    let mut pings = Vec::new();
    let mut cancelled: BTreeSet<String> = BTreeSet::new();
    for step in &steps {
        let (tool, arguments) = match step {
            Step::Echo => ("echo", json!({"text": "hi"})),
            Step::Grind(millis) => ("grind", json!({"millis": millis})),
            Step::Spin(millis) => ("spin", json!({"millis": millis})),
            Step::Ping => {
                let client = Arc::clone(&client);
                pings.push(tokio::spawn(async move { client.ping().await }));
                continue;
            }
            Step::Cancel(which) => {
                if !in_flight.is_empty() {
                    let call = in_flight.remove(which % in_flight.len());
                    cancelled.insert(call.id().to_string());
                    prop_assert!(call.cancel().await.is_ok(), "the cancellation was not sent");
                }
                continue;
            }
            Step::Pause(millis) => {
                tokio::time::sleep(Duration::from_millis(*millis)).await;
                continue;
            }
        };
        let call = client.start_call(tool, arguments).await;
        prop_assert!(call.is_ok(), "the call was not sent: {call:?}");
        in_flight.extend(call.ok());
    }
    match end {
        End::Drain | End::Shutdown => {
            if let End::Shutdown = end {
                shutdown.cancel();
            }
            for call in in_flight {
                let id = call.id();
                let result = call.result().await;
                // Over a shutdown: its result, or the retryable -32000.
                let shut = result.as_ref().is_err_and(|err| err.code() == JsonRpcErrorCode::ServiceUnavailable);
                prop_assert!(
                    result.is_ok() || (matches!(end, End::Shutdown) && shut),
                    "{id} got no answer after {end:?}: {result:?}"
                );
            }
            for ping in pings {
                let answered = ping.await.expect("the ping's task");
                let shut = answered.as_ref().is_err_and(|err| err.code() == JsonRpcErrorCode::ServiceUnavailable);
                prop_assert!(answered.is_ok() || (matches!(end, End::Shutdown) && shut), "a ping: {answered:?}");
            }
            if let End::Drain = end {
                client.disconnect();
            }
        }
        End::Disconnect => client.disconnect(),
    }
    prop_assert!(client.server_ended(BOUND).await, "the server did not end within {BOUND:?} after {end:?}");
    // The client reads to the end of what the server wrote before it closed.
    let deadline = tokio::time::Instant::now() + BOUND;
    while client.is_connected() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    prop_assert!(!client.is_connected(), "the connection stayed open after {end:?}");

    let sent: Vec<Value> = client.messages_sent();
    let received: Vec<Value> = client.messages_received();
    let requests: BTreeSet<String> = sent
        .iter()
        .filter(|message| message.get("method").is_some() && message.get("id").is_some())
        .map(|message| message["id"].to_string())
        .collect();
    let mut answers: BTreeMap<String, usize> = BTreeMap::new();
    for message in &received {
        // Notifications and the server's requests are no answers.
        if message.get("id").is_some() && message.get("method").is_none() {
            *answers.entry(message["id"].to_string()).or_default() += 1;
        }
    }
    for (id, count) in &answers {
        prop_assert!(requests.contains(id), "an answer to {id}, which nobody sent: {received:?}");
        prop_assert_eq!(*count, 1, "{} answered {} times: {:?}", id, count, received);
    }
    if !matches!(end, End::Disconnect) {
        for id in requests.iter().filter(|id| !cancelled.contains(*id)) {
            prop_assert!(answers.contains_key(id), "{id} not answered after {end:?}: {received:?}");
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
    fn every_request_gets_exactly_one_answer_through_the_in_process_client(
        steps in prop::collection::vec(step(), 1..14),
        end in end(),
        stdio in any::<bool>(),
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
        runtime.block_on(scenario(steps, end, stdio))?;
    }
}

/// rmcp writes each message from a task of its own: a `notifications/cancelled`
/// sent right after its call could reach the server first, for an id it had
/// not seen, and the call ran on. The client writes in order, so the call
/// cancelled at once stops, and a shutdown with a long grace period ends at
/// once rather than waiting for it.
#[test]
fn a_call_cancelled_at_once_is_cancelled_on_the_server() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        for round in 0..50 {
            let shutdown = CancellationToken::new();
            let options =
                StdioOptions::default().shutdown_grace(Duration::from_secs(120)).shutdown_token(shutdown.clone());
            let client = Client::builder().over_stdio(options).connect_built(support::server()).await;
            let call = client.start_call("grind", json!({"millis": 120_000})).await.expect("sent");
            call.cancel().await.expect("the cancellation was sent");
            // Answered after the cancellation was read.
            client.ping().await.expect("a ping");
            shutdown.cancel();
            // Far under the grace period: only a call left running would hold it.
            assert!(client.server_ended(Duration::from_secs(30)).await, "round {round}: the call was not cancelled");
        }
    });
}
