//! A tool calling its upstream through a `Pacer` (feature `pacer`): a shed
//! reaches the agent as the tool's declared `pacer_shed`, its recovery hint
//! filled in by the server although the handler never names the reason.

use std::time::Duration;

use mcp_contract::errors::{Pacer, PacerOptions};
use mcp_contract::prelude::*;
use mcp_contract::testing::Client;
use serde_json::json;

/// Look a title up in the catalogue.
#[mcp_tool(errors(pacer_shed(code = RateLimited, retryable, raised_by = service,
    when = "Too many lookups wait for the catalogue API",
    recovery = "Wait for retryAfter seconds, then call lookup again.")))]
async fn lookup(catalogue: State<Pacer>) -> Result<String, McpError> {
    catalogue.run(|| async { Ok("The Night Watch".to_owned()) }).await
}

#[tokio::test]
async fn a_shed_reaches_the_agent_as_the_declared_reason_with_its_hint() {
    // One start a minute, and no call waits more than a second: the second is shed at once.
    let catalogue = Pacer::new("catalogue", PacerOptions::per_minute(1).max_wait(Duration::from_secs(1)));
    let server = Server::new("museum", "1.0.0").pacer(catalogue.clone()).state(catalogue.clone()).tool(Lookup);
    let client = Client::connect(server).await.expect("the server builds");
    assert_eq!(client.call(Lookup, json!({})).await.expect("the first starts"), "The Night Watch");

    let err = client.call(Lookup, json!({})).await.expect_err("the second is shed");
    assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::RateLimited, Some("pacer_shed")));
    assert_eq!(err.recovery_hint(), Some("Wait for retryAfter seconds, then call lookup again."));
    let data = err.data().expect("data");
    assert_eq!(data["shedKind"], "wait_projected");
    assert_eq!(data["retryable"], true);
    assert!(data["retryAfter"].as_f64().is_some_and(|seconds| seconds >= 1.0), "{data:?}");
    assert!(err.request_id().is_some());
    assert_eq!(catalogue.stats().shed, [0, 1, 0]);
}
