//! `Server::on_serve` and `Server::on_shutdown`: they run when the server
//! serves, and only then; the shutdown hooks after the transport stopped,
//! within the teardown timeout.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_contract_runtime::server::{HttpOptions, Server, ServerError, Serving};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

type Events = Arc<Mutex<Vec<String>>>;

/// A server whose hooks write what they saw into `events`.
fn recording(events: &Events) -> Server {
    let (started, stopped, last) = (Arc::clone(events), Arc::clone(events), Arc::clone(events));
    Server::new("lifecycle", "1.0.0")
        .on_serve(move |serving: Serving| async move {
            let addr = serving.addr.map_or_else(|| "stdio".to_owned(), |addr| addr.to_string());
            started.lock().unwrap().push(format!("serve {addr}"));
            // A background task that ends when shutdown begins.
            let background = Arc::clone(&started);
            tokio::spawn(async move {
                serving.stopping.cancelled().await;
                background.lock().unwrap().push("stopping".to_owned());
            });
            Ok::<_, std::io::Error>(())
        })
        .on_shutdown(move || async move { stopped.lock().unwrap().push("first registered".to_owned()) })
        .on_shutdown(move || async move { last.lock().unwrap().push("last registered".to_owned()) })
}

fn taken(events: &Events) -> Vec<String> {
    events.lock().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_hooks_run_around_serving_with_the_bound_address() {
    let events = Events::default();
    let server = recording(&events).build().expect("the server builds");
    assert!(taken(&events).is_empty(), "building runs no hook");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let shutdown = CancellationToken::new();
    let options = HttpOptions::default().shutdown_token(shutdown.clone()).without_signal_handling();
    let serving = tokio::spawn(server.serve_http_on(listener, options));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(taken(&events), [format!("serve {addr}")]);
    shutdown.cancel();
    tokio::time::timeout(Duration::from_secs(10), serving).await.expect("serving ends").expect("joined").expect("ok");
    // The background task woke when shutdown began; when it ran is the scheduler's.
    for _ in 0..100 {
        if taken(&events).contains(&"stopping".to_owned()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut seen = taken(&events);
    seen.retain(|event| event != "stopping");
    assert_eq!(seen, [format!("serve {addr}"), "last registered".into(), "first registered".into()]);
    assert!(taken(&events).contains(&"stopping".to_owned()), "the token the hook got was cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_runs_no_hook_for_lint_server_json_or_help() {
    let events = Events::default();
    for args in [vec!["lint"], vec!["server-json"], vec!["--help"]] {
        let _ = recording(&events).run_cli_with(args.into_iter().map(String::from)).await;
    }
    assert!(taken(&events).is_empty(), "{:?}", taken(&events));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_start_hook_stops_the_server_from_serving() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let server = Server::new("lifecycle", "1.0.0")
        .on_serve(|_serving: Serving| async { Err("the registry refused us") })
        .build()
        .expect("the server builds");
    let options = HttpOptions::default().without_signal_handling();
    let err = tokio::time::timeout(Duration::from_secs(10), server.serve_http_on(listener, options))
        .await
        .expect("it does not serve")
        .expect_err("the hook failed");
    assert!(matches!(err, ServerError::OnServe(_)), "{err:?}");
    assert!(err.to_string().contains("the registry refused us"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_shutdown_hook_is_cut_at_the_teardown_timeout() {
    let events = Events::default();
    let after = Arc::clone(&events);
    let server = Server::new("lifecycle", "1.0.0")
        .on_shutdown(move || async move { after.lock().unwrap().push("never reached".to_owned()) })
        .on_shutdown(std::future::pending::<()>)
        .teardown_timeout(Duration::from_millis(300))
        .build()
        .expect("the server builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let shutdown = CancellationToken::new();
    shutdown.cancel();
    let options = HttpOptions::default().shutdown_token(shutdown).without_signal_handling();
    tokio::time::timeout(Duration::from_secs(10), server.serve_http_on(listener, options))
        .await
        .expect("the teardown timeout bounds the shutdown")
        .expect("ok");
    assert!(taken(&events).is_empty(), "the hooks after the stuck one were dropped: {:?}", taken(&events));
}
