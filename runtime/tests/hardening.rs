//! Bad input over stdio-style lines and Streamable HTTP (loopback only): every
//! request gets a JSON-RPC answer, nothing internal reaches the client, limits
//! hold, a slow call delays no cheap one, and the server keeps serving.

mod support;

use std::time::{Duration, Instant};

use mcp_contract_runtime::server::{HttpOptions, StdioOptions};
use serde_json::{Value, json};
use support::{Answer, HttpClient, HttpServer, LineClient, call};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;
const SHUTTING_DOWN: i64 = -32000;

fn nested(depth: usize) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}1{}}}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
    .into_bytes()
}

/// Each bad line, and the error code and id of its answer.
fn bad_lines() -> Vec<(&'static str, Vec<u8>, i64, Value)> {
    let mut trailing = call(1, "echo", json!({"text": "a"}));
    trailing.extend_from_slice(b" }garbage");
    let mut invalid_utf8 =
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":""#.to_vec();
    invalid_utf8.extend_from_slice(b"\xff\xfe\"}}}");
    vec![
        ("malformed JSON", b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec(), PARSE_ERROR, Value::Null),
        ("trailing garbage", trailing, PARSE_ERROR, json!(1)),
        ("invalid UTF-8", invalid_utf8, PARSE_ERROR, json!(2)),
        (
            "a lone surrogate",
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\ud800"}}}"#
                .to_vec(),
            PARSE_ERROR,
            json!(3),
        ),
        ("nesting 127 deep", nested(127), INVALID_REQUEST, json!("deep")),
        ("nesting 1000 deep", nested(1000), INVALID_REQUEST, json!("deep")),
        ("a batch", br#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#.to_vec(), INVALID_REQUEST, Value::Null),
        ("a null id", br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#.to_vec(), INVALID_REQUEST, Value::Null),
        ("no jsonrpc", br#"{"id":5,"method":"ping"}"#.to_vec(), INVALID_REQUEST, json!(5)),
        ("a number", b"42".to_vec(), INVALID_REQUEST, Value::Null),
        ("array arguments", call(6, "echo", json!([1, 2])), INVALID_PARAMS, json!(6)),
        ("string arguments", call(7, "echo", json!("text")), INVALID_PARAMS, json!(7)),
        (
            "params not an object",
            br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":[1]}"#.to_vec(),
            INVALID_PARAMS,
            json!(8),
        ),
    ]
}

fn assert_error(answer: &Value, what: &str, code: i64, id: &Value) {
    assert_eq!(answer["error"]["code"], code, "{what}: {answer}");
    assert_eq!(&answer["id"], id, "{what}: {answer}");
    assert_eq!(answer["jsonrpc"], "2.0", "{what}: {answer}");
}

async fn assert_still_serves(client: &mut LineClient, id: i64) {
    client.send(&call(id, "echo", json!({"text": "ok"}))).await;
    let answer = client.next().await;
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "ok", "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_answers_every_bad_line_and_keeps_serving() {
    let mut client = LineClient::start().await;
    for (index, (what, line, code, id)) in bad_lines().into_iter().enumerate() {
        client.send(&line).await;
        let answer = client.next().await;
        assert_error(&answer, what, code, &id);
        assert_still_serves(&mut client, 100 + index as i64).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_answers_a_line_over_16_mib() {
    let mut client = LineClient::start().await;
    let mut line =
        br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"echo","arguments":{"text":""#.to_vec();
    line.resize(line.len() + 17 * 1024 * 1024, b'a');
    line.extend_from_slice(b"\"}}}");
    client.send(&line).await;
    let answer = client.next().await;
    assert_error(&answer, "a 17 MiB line", INVALID_REQUEST, &json!("big"));
    assert_still_serves(&mut client, 1).await;
}

/// Regression: refusals were each written by a task of their own, so a client
/// sending bad lines without reading the answers grew the server without bound
/// (200,000 lines, 147 MB); valid requests already waited in a 64-slot queue.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_refusals_wait_for_a_client_that_does_not_read() {
    let (mut to_server, server_in) = tokio::io::duplex(4 * 1024);
    let (server_out, _unread) = tokio::io::duplex(4 * 1024);
    tokio::spawn(support::server().serve_io(server_in, server_out));
    // Lines go in batches until the server stops taking them for a second.
    let batch = b"{\n".repeat(1000);
    let mut sent = 0;
    while sent < 200_000 {
        match tokio::time::timeout(Duration::from_secs(1), to_server.write_all(&batch)).await {
            Ok(written) => written.expect("the server's input is open"),
            Err(_) => break,
        }
        sent += 1000;
    }
    // What the pipes, the reader's 64 KiB buffer and the queue hold: about 35,000 lines.
    assert!(sent < 50_000, "the server read {sent} bad lines nobody read the answers of");
}

/// Regression: a server whose stdout was closed kept executing every request
/// (logging a broken pipe for each) until stdin ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_ends_when_its_output_is_closed() {
    let (mut to_server, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, from_server) = tokio::io::duplex(64 * 1024);
    let served = tokio::spawn(support::server().serve_io(server_in, server_out));
    let mut answers = tokio::io::BufReader::new(from_server);
    to_server.write_all(&[support::initialize(0), b"\n".to_vec()].concat()).await.unwrap();
    let mut line = String::new();
    tokio::io::AsyncBufReadExt::read_line(&mut answers, &mut line).await.unwrap();
    assert!(line.contains("\"id\":0"), "{line}");
    to_server.write_all(&[support::INITIALIZED, b"\n"].concat()).await.unwrap();
    drop(answers);
    to_server.write_all(&[call(1, "echo", json!({"text": "a"})), b"\n".to_vec()].concat()).await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(5), served).await;
    assert!(ended.is_ok(), "the server stops once nothing it writes can reach the client");
    drop(to_server);
}

/// Regression: on SIGTERM the server ended at once, dropping the calls in flight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_shutdown_lets_calls_in_flight_finish_then_cuts_them_with_a_retryable_error() {
    let stop = CancellationToken::new();
    let options = StdioOptions::default().without_signal_handling().shutdown_token(stop.clone());
    let (mut client, served) = LineClient::start_with(options.shutdown_grace(Duration::from_secs(5))).await;
    client.send(&call(1, "grind", json!({"millis": 400}))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.cancel();
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.send(&call(2, "echo", json!({"text": "late"}))).await;
    let refused = client.next().await;
    assert_error(&refused, "a request after shutdown began", SHUTTING_DOWN, &json!(2));
    let finished = client.next().await;
    assert_eq!(finished["id"], 1, "{finished}");
    assert_eq!(finished["result"]["content"][0]["text"], "ground", "finished within the grace period: {finished}");
    let ended = tokio::time::timeout(Duration::from_secs(3), served).await.expect("the server ends once idle");
    assert!(ended.expect("the serving task").is_ok());

    let stop = CancellationToken::new();
    let options = StdioOptions::default().without_signal_handling().shutdown_token(stop.clone());
    let (mut client, served) = LineClient::start_with(options.shutdown_grace(Duration::from_millis(300))).await;
    client.send(&call("slow", "grind", json!({"millis": 5000}))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    stop.cancel();
    let cut = client.next().await;
    assert_error(&cut, "a call past the grace period", SHUTTING_DOWN, &json!("slow"));
    assert!(started.elapsed() < Duration::from_secs(2), "cut at the end of the grace period");
    let ended = tokio::time::timeout(Duration::from_secs(3), served).await.expect("the server ends");
    assert!(ended.expect("the serving task").is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_notifications_get_no_answer() {
    let mut client = LineClient::start().await;
    for notification in [
        &br#"{"jsonrpc":"2.0","method":"notifications/bogus"}"#[..],
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}"#,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
        br#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
        br#"{"jsonrpc":"2.0","id":77,"result":{}}"#,
    ] {
        client.send(notification).await;
    }
    // The next answer is the ping's: nothing was answered before it.
    client.send(br#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#).await;
    assert_eq!(client.next().await["id"], "after");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_refuses_a_duplicate_in_flight_id_and_answers_the_first() {
    let mut client = LineClient::start().await;
    client.send(&call("dup", "grind", json!({"millis": 300}))).await;
    client.send(&call("dup", "echo", json!({"text": "second"}))).await;
    let refused = client.next().await;
    assert_error(&refused, "a duplicate id", INVALID_REQUEST, &json!("dup"));
    let first = client.next().await;
    assert_eq!(first["id"], "dup");
    assert_eq!(first["result"]["content"][0]["text"], "ground", "{first}");
    // Once answered, the id may be used again.
    client.send(&call("dup", "echo", json!({"text": "again"}))).await;
    assert_eq!(client.next().await["result"]["content"][0]["text"], "again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_errors_quote_client_input_at_most_200_characters() {
    let mut client = LineClient::start().await;
    let huge = "x".repeat(10 * 1024 * 1024);
    client.send(&call(1, &huge, json!({}))).await;
    let unknown = client.next().await;
    let message = unknown["error"]["message"].as_str().expect("a message");
    assert!(message.len() < 600, "{} bytes", message.len());
    assert!(message.contains("xxx…`"), "{message}");

    client.send(&call(2, "echo", json!({"text": "a", "times": huge}))).await;
    let answer = client.next().await;
    let text = answer.to_string();
    assert!(text.len() < 2000, "a {} byte answer", text.len());
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(text.contains("expected an integer"), "the schema's terms, not serde's: {text}");
    assert!(!text.contains("u32"), "no Rust type name: {text}");

    client.send(&call(3, "echo", json!({huge.clone(): 1, "text": "a"}))).await;
    let text = client.next().await.to_string();
    assert!(text.len() < 2000, "a {} byte answer", text.len());

    client.send(json!({"jsonrpc": "2.0", "id": 4, "method": huge}).to_string().as_bytes()).await;
    let answer = client.next().await;
    assert_eq!(answer["error"]["code"], -32601, "{}", support::cut(&answer.to_string()));
    assert!(answer.to_string().len() < 600, "a {} byte answer to a long method name", answer.to_string().len());
}

/// Regression: a handler that formats a 10 MB argument into its error message
/// answered 20 MB (the text and the structured error).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_a_handler_message_quoting_huge_input_is_bounded() {
    let mut client = LineClient::start().await;
    client.send(&call(1, "refuse", json!({"text": "y".repeat(10 * 1024 * 1024)}))).await;
    let answer = client.next().await;
    assert_bounded_refusal(&answer);
}

fn assert_bounded_refusal(answer: &Value) {
    assert_eq!(answer["result"]["isError"], true, "{}", support::cut(&answer.to_string()));
    let text = answer.to_string();
    assert!(text.len() < 4000, "a {} byte answer", text.len());
    let message = answer["result"]["structuredContent"]["error"]["message"].as_str().expect("a message");
    assert!(message.starts_with("`yyy") && message.ends_with('…'), "{}", support::cut(message));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_a_panic_stays_in_the_server() {
    let mut client = LineClient::start().await;
    client.send(&call(1, "explode", json!({}))).await;
    let answer = client.next().await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_still_serves(&mut client, 2).await;
}

/// The cheap call is answered while the slow one still runs, for an `async`
/// handler that never yields and for a plain `fn` one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_a_slow_call_delays_no_cheap_one() {
    for slow in ["spin", "grind"] {
        let mut client = LineClient::start().await;
        let started = Instant::now();
        client.send(&call("slow", slow, json!({"millis": 3000}))).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        client.send(&call("cheap", "echo", json!({"text": "quick"}))).await;
        let first = client.next().await;
        assert_eq!(first["id"], "cheap", "{slow}: {first}");
        assert!(started.elapsed() < Duration::from_millis(2500), "{slow}: the cheap call waited");
        assert_eq!(client.next().await["id"], "slow");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_cancelling_a_blocking_call_lets_it_stop() {
    let mut client = LineClient::start().await;
    client.send(&call("long", "grind", json!({"millis": 20_000}))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    client.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long"}}"#).await;
    // The cancelled call gets no answer, and its id is free at once.
    client.send(&call("long", "echo", json!({"text": "reused"}))).await;
    let answer = client.next().await;
    assert_eq!(answer["result"]["content"][0]["text"], "reused", "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_load_8_clients_by_250_calls_without_an_error() {
    let mut clients = Vec::new();
    for worker in 0..8 {
        clients.push(tokio::spawn(async move {
            let mut client = LineClient::start().await;
            for n in 0..250 {
                let text = format!("{worker}-{n}");
                client.send(&call(n, "echo", json!({"text": text}))).await;
                let answer = client.next().await;
                assert_eq!(answer["id"], n);
                assert_eq!(answer["result"]["content"][0]["text"], text, "{answer}");
            }
        }));
    }
    for client in clients {
        tokio::time::timeout(Duration::from_secs(60), client).await.expect("in time").expect("no error");
    }
}

// ---------------------------------------------------------------- HTTP

fn assert_http_error(answer: &Answer, what: &str, status: u16, code: i64, id: &Value) {
    assert_eq!(answer.status, status, "{what}: {}", answer.text());
    assert!(answer.header("content-type").is_some_and(|kind| kind.starts_with("application/json")), "{what}");
    assert_error(&answer.message(), what, code, id);
}

async fn assert_http_still_serves(client: &mut HttpClient, id: i64) {
    let answer = client.post(&call(id, "echo", json!({"text": "ok"}))).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    let message = answer.message();
    assert_eq!(message["id"], id, "{message}");
    assert_eq!(message["result"]["content"][0]["text"], "ok", "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_every_bad_body_and_keeps_serving() {
    for stateless in [false, true] {
        let server = HttpServer::start(HttpOptions::default().stateless(stateless)).await;
        let mut client =
            if stateless { HttpClient::connect(server.addr).await } else { HttpClient::session(server.addr).await };
        for (index, (what, body, code, id)) in bad_lines().into_iter().enumerate() {
            let answer = client.post(&body).await;
            let status = if code == INVALID_PARAMS { 200 } else { 400 };
            assert_http_error(&answer, what, status, code, &id);
            assert_http_still_serves(&mut client, 100 + index as i64).await;
        }
        let huge = "x".repeat(3 * 1024 * 1024);
        let answer = client.post(&call(1, &huge, json!({}))).await;
        assert!(answer.body.len() < 1000, "a {} byte answer to a long tool name", answer.body.len());
        let answer = client.post(json!({"jsonrpc": "2.0", "id": 2, "method": huge}).to_string().as_bytes()).await;
        assert!(answer.body.len() < 1000, "a {} byte answer to a long method name", answer.body.len());
        assert_eq!(answer.message()["error"]["code"], -32601);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_accepts_and_drops_a_client_response_in_either_mode() {
    for stateless in [false, true] {
        let server = HttpServer::start(HttpOptions::default().stateless(stateless)).await;
        let mut client =
            if stateless { HttpClient::connect(server.addr).await } else { HttpClient::session(server.addr).await };
        for response in [
            json!({"jsonrpc": "2.0", "id": "stale", "result": {}}),
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "client side"}}),
        ] {
            let answer = client.post(response.to_string().as_bytes()).await;
            assert_eq!(answer.status, 202, "stateless {stateless}: {} for {response}", answer.text());
            assert!(answer.body.is_empty(), "stateless {stateless}: {}", answer.text());
        }
        assert_http_still_serves(&mut client, 1).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_checks_origin_and_answers_cors_preflight() {
    let server = HttpServer::start(HttpOptions::default().allowed_origins(["https://app.example"])).await;
    let mut client = HttpClient::connect(server.addr).await;
    let evil = client
        .request(
            "POST",
            &[("content-type", "application/json"), ("origin", "https://evil.example")],
            &support::initialize(1),
        )
        .await;
    assert_http_error(&evil, "a foreign origin", 403, INVALID_REQUEST, &Value::Null);
    assert_eq!(evil.header("mcp-session-id"), None, "no session for a foreign origin");

    let preflight = client
        .request(
            "OPTIONS",
            &[
                ("origin", "https://app.example"),
                ("access-control-request-method", "POST"),
                ("access-control-request-headers", "content-type, mcp-session-id"),
            ],
            b"",
        )
        .await;
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.header("access-control-allow-origin"), Some("https://app.example"));
    assert!(preflight.header("access-control-allow-methods").is_some_and(|methods| methods.contains("POST")));

    let allowed = client
        .request(
            "POST",
            &[("content-type", "application/json"), ("origin", "https://app.example")],
            &support::initialize(2),
        )
        .await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    assert_eq!(allowed.header("access-control-allow-origin"), Some("https://app.example"));
    assert!(allowed.header("access-control-expose-headers").is_some_and(|exposed| exposed.contains("mcp-session-id")));

    let own = client
        .request(
            "POST",
            &[("content-type", "application/json"), ("origin", "http://127.0.0.1")],
            &support::initialize(3),
        )
        .await;
    assert_eq!(own.status, 200, "the server's own origin passes: {}", own.text());
}

// Regression: both were accepted once trusted proxies landed. `http`'s parser
// takes `user@host` as an authority and rmcp's `Host` check compares only its
// host; the `Origin` check let the Origin's scheme stand for the request's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refuses_a_host_with_userinfo_and_an_origin_of_another_scheme() {
    for stateless in [false, true] {
        let server = HttpServer::start(HttpOptions::default().stateless(stateless)).await;
        let port = server.addr.port();
        let mut client = HttpClient::connect(server.addr).await;
        let json = ("content-type", "application/json");
        let userinfo = format!("evil@127.0.0.1:{port}");
        let answer = client.request("POST", &[json, ("host", &userinfo)], &support::initialize(1)).await;
        assert_http_error(&answer, "a Host with userinfo", 400, INVALID_REQUEST, &Value::Null);
        assert_eq!(answer.header("mcp-session-id"), None, "stateless {stateless}");

        let mut client = HttpClient::connect(server.addr).await;
        let host = format!("127.0.0.1:{port}");
        for (origin, status) in [
            (format!("https://127.0.0.1:{port}"), 403),
            (format!("http://evil@127.0.0.1:{port}"), 403),
            (format!("http://127.0.0.1:{port}"), 200),
        ] {
            let answer =
                client.request("POST", &[json, ("host", &host), ("origin", &origin)], &support::initialize(2)).await;
            assert_eq!(answer.status, status, "stateless {stateless}, Origin {origin}: {}", answer.text());
            if status == 403 {
                assert_http_error(&answer, &origin, 403, INVALID_REQUEST, &Value::Null);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refusals_of_a_request_are_json_rpc_errors_under_its_id() {
    let server = HttpServer::start(HttpOptions::default()).await;
    let mut client = HttpClient::session(server.addr).await;
    client.session = Some("no-such-session".to_owned());
    let answer = client.post(&call(5, "echo", json!({"text": "a"}))).await;
    assert_http_error(&answer, "an unknown session", 404, INVALID_REQUEST, &json!(5));
    // Regression: a wrong or missing Content-Type got rmcp's 415 as plain text.
    let answer =
        client.request("POST", &[("content-type", "text/plain")], &call(6, "echo", json!({"text": "a"}))).await;
    assert_http_error(&answer, "a text/plain body", 415, INVALID_REQUEST, &json!(6));
    let answer = client.request("POST", &[], b"not json at all").await;
    assert_http_error(&answer, "no Content-Type", 415, INVALID_REQUEST, &Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_415_refusals_are_json_rpc_errors_in_stateless_mode_too() {
    let server = HttpServer::start(HttpOptions::default().stateless(true)).await;
    let mut client = HttpClient::connect(server.addr).await;
    let answer =
        client.request("POST", &[("content-type", "text/plain")], &call(7, "echo", json!({"text": "a"}))).await;
    assert_http_error(&answer, "a text/plain body", 415, INVALID_REQUEST, &json!(7));
}

/// Regression (slow-body hold): a head with `Content-Length: 1000` and no
/// body, or a body trickled a byte at a time, held its connection forever:
/// the header timeout ends with the head, and the idle watchdog waits while a
/// request is in progress.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_bounds_the_time_to_read_a_whole_request() {
    for stateless in [false, true] {
        let options = HttpOptions::default().stateless(stateless).request_read_timeout(Duration::from_millis(500));
        let server = HttpServer::start(options).await;
        let head = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
                    accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n";

        let mut silent = HttpClient::connect(server.addr).await;
        silent.write_raw(head.as_bytes()).await;
        let started = Instant::now();
        let answer = String::from_utf8_lossy(&silent.read_to_end_within(Duration::from_secs(5)).await).into_owned();
        assert!(started.elapsed() < Duration::from_secs(3), "stateless={stateless}: answered by the deadline");
        assert_timed_out(&answer, stateless);

        let (mut read, mut write) = tokio::net::TcpStream::connect(server.addr).await.expect("connects").into_split();
        tokio::io::AsyncWriteExt::write_all(&mut write, head.as_bytes()).await.expect("writable");
        let started = Instant::now();
        // A byte every 100 ms: the connection is never idle, the request still has its deadline.
        let trickle = tokio::spawn(async move {
            for _ in 0..50 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if tokio::io::AsyncWriteExt::write_all(&mut write, b" ").await.is_err() {
                    break;
                }
            }
        });
        let mut answer = Vec::new();
        let _ =
            tokio::time::timeout(Duration::from_secs(5), tokio::io::AsyncReadExt::read_to_end(&mut read, &mut answer))
                .await;
        trickle.abort();
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert!(started.elapsed() < Duration::from_secs(5), "stateless={stateless}");
        assert_timed_out(&answer, stateless);

        let mut fresh = HttpClient::connect(server.addr).await;
        assert_eq!(fresh.post(&support::initialize(2)).await.status, 200, "the server still serves");
    }
}

/// A body cut before its `Content-Length` (the client went away mid-request):
/// 499 and RequestCancelled, as the reference answers it (0.12.4), for the log
/// and a proxy's metrics; the server serves on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_a_body_cut_mid_request_is_request_cancelled_499() {
    for stateless in [false, true] {
        let server = HttpServer::start(HttpOptions::default().stateless(stateless)).await;
        let head = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
                    accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{\"jsonrpc\"";
        let (mut read, mut write) = tokio::net::TcpStream::connect(server.addr).await.expect("connects").into_split();
        tokio::io::AsyncWriteExt::write_all(&mut write, head.as_bytes()).await.expect("writable");
        tokio::io::AsyncWriteExt::shutdown(&mut write).await.expect("half-closed");
        let mut answer = Vec::new();
        let _ =
            tokio::time::timeout(Duration::from_secs(5), tokio::io::AsyncReadExt::read_to_end(&mut read, &mut answer))
                .await;
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert!(answer.starts_with("HTTP/1.1 499"), "stateless={stateless}: {answer:?}");
        let body = answer.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
        let error: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("a JSON-RPC body: {answer:?}"));
        assert_eq!(error["error"]["code"], -32011, "{error}");
        assert!(error["error"]["data"]["requestId"].is_string(), "{error}");

        let mut fresh = HttpClient::connect(server.addr).await;
        assert_eq!(fresh.post(&support::initialize(2)).await.status, 200, "the server still serves");
    }
}

fn assert_timed_out(answer: &str, stateless: bool) {
    assert!(answer.starts_with("HTTP/1.1 408"), "stateless={stateless}: {answer:?}");
    let body = answer.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
    let error: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("a JSON-RPC body: {answer:?}"));
    assert_eq!(error["error"]["code"], INVALID_REQUEST, "{error}");
    assert_eq!(error["jsonrpc"], "2.0");
}

/// Regression: over HTTP a handler's huge message went out whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_a_handler_message_quoting_huge_input_is_bounded() {
    for stateless in [false, true] {
        let server = HttpServer::start(HttpOptions::default().stateless(stateless)).await;
        let mut client =
            if stateless { HttpClient::connect(server.addr).await } else { HttpClient::session(server.addr).await };
        let answer = client.post(&call(1, "refuse", json!({"text": "y".repeat(3 * 1024 * 1024)}))).await;
        assert_eq!(answer.status, 200);
        assert_bounded_refusal(&answer.message());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_delete_of_an_unknown_session_is_404() {
    let server = HttpServer::start(HttpOptions::default()).await;
    let mut client = HttpClient::session(server.addr).await;
    let known = client.session.clone();
    client.session = Some("no-such-session".to_owned());
    let answer = client.request("DELETE", &[], b"").await;
    assert_http_error(&answer, "DELETE of an unknown session", 404, INVALID_REQUEST, &Value::Null);
    client.session = known;
    assert_eq!(client.request("DELETE", &[], b"").await.status, 204, "an ended session: 204 No Content");
    assert_eq!(client.request("DELETE", &[], b"").await.status, 404, "deleted sessions are gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refuses_a_duplicate_in_flight_id_and_answers_the_first() {
    let server = HttpServer::start(HttpOptions::default()).await;
    let mut slow = HttpClient::session(server.addr).await;
    let mut second = HttpClient::connect(server.addr).await;
    second.session = slow.session.clone();
    let first = tokio::spawn(async move { slow.post(&call("dup", "grind", json!({"millis": 500}))).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let refused = second.post(&call("dup", "echo", json!({"text": "b"}))).await;
    assert_http_error(&refused, "a duplicate id", 409, INVALID_REQUEST, &json!("dup"));
    let first = first.await.expect("the first call ends").message();
    assert_eq!(first["result"]["content"][0]["text"], "ground", "{first}");
    assert_http_still_serves(&mut second, 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_caps_sessions_by_closing_the_one_idle_longest_or_with_503() {
    let server = HttpServer::start(HttpOptions::default().max_sessions(2)).await;
    let mut oldest = HttpClient::session(server.addr).await;
    let mut newer = HttpClient::session(server.addr).await;
    assert_http_still_serves(&mut newer, 1).await;
    let mut third = HttpClient::session(server.addr).await;
    assert_eq!(oldest.post(&call(1, "echo", json!({"text": "a"}))).await.status, 404, "the oldest idle session closed");
    assert_http_still_serves(&mut newer, 2).await;
    assert_http_still_serves(&mut third, 3).await;

    // Both sessions busy: the next one waits its turn.
    let busy = [newer, third].map(|mut client| {
        tokio::spawn(async move { client.post(&call("busy", "grind", json!({"millis": 1000}))).await })
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut late = HttpClient::connect(server.addr).await;
    let refused = late.post(&support::initialize(9)).await;
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert!(refused.header("retry-after").is_some());
    for call in busy {
        assert_eq!(call.await.expect("answered").status, 200);
    }
}

/// Sessions that hibernate between any two requests, and wake on the next,
/// at every interval around the sweep's: each request waits for a session
/// falling asleep, and is answered on its own stream, never lost or crossed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_a_session_that_hibernates_between_requests_answers_every_one() {
    let options = HttpOptions::default().session_hibernate_after(Duration::from_millis(5));
    let server = HttpServer::start(options).await;
    let clients = (0..3).map(|n| {
        let addr = server.addr;
        tokio::spawn(async move {
            let mut client = HttpClient::session(addr).await;
            for i in 0..40_u64 {
                // 0 to 120 ms apart: before, around and after the 50 ms sweep.
                tokio::time::sleep(Duration::from_millis((i * 7 + n * 13) % 121)).await;
                let text = format!("{n}-{i}");
                let answer = client.post(&call(i, "echo", json!({"text": text}))).await;
                assert_eq!(answer.status, 200, "{}", answer.text());
                let message = answer.message();
                assert_eq!(message["id"], i, "{message}");
                assert_eq!(message["result"]["content"][0]["text"], text.as_str(), "{message}");
            }
            assert!(client.request("DELETE", &[], b"").await.status < 300);
            assert_eq!(client.post(&call(99, "echo", json!({"text": "x"}))).await.status, 404);
        })
    });
    for client in clients.collect::<Vec<_>>() {
        client.await.expect("every request answered");
    }
}

/// Regression: on SIGTERM, calls in flight were answered 200 with an SSE
/// stream holding only the priming event (sessions) or an empty body
/// (stateless), 0.4 s after the signal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_shutdown_lets_calls_in_flight_finish_then_cuts_them_with_a_retryable_error() {
    for (stateless, json_response) in [(false, false), (true, false), (true, true)] {
        let what = format!("stateless={stateless} json={json_response}");
        let options = HttpOptions::default().stateless(stateless).json_response(json_response);
        let mut server = HttpServer::start(options.shutdown_grace(Duration::from_millis(800))).await;
        let connect = || async {
            if stateless { HttpClient::connect(server.addr).await } else { HttpClient::session(server.addr).await }
        };
        let (mut quick, mut slow, mut late) = (connect().await, connect().await, connect().await);
        let finishes = tokio::spawn(async move { quick.post(&call(1, "grind", json!({"millis": 300}))).await });
        let cut = tokio::spawn(async move { slow.post(&call(2, "grind", json!({"millis": 5000}))).await });
        // A request whose head is in when shutdown begins, and its body after.
        let body = call(3, "echo", json!({"text": "late"}));
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
            body.len()
        );
        if let Some(session) = &late.session {
            head.push_str(&format!("mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n"));
        }
        late.write_raw(format!("{head}\r\n").as_bytes()).await;
        // And a readiness probe whose head is half in.
        let mut readiness_probe = Some(HttpClient::connect(server.addr).await);
        if let Some(probe) = &mut readiness_probe {
            probe.write_raw(b"GET /readyz HTTP/1.1\r\nhost: 127.0.0.1\r\n").await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = Instant::now();
        server.stop.cancel();
        tokio::time::sleep(Duration::from_millis(50)).await;
        late.write_raw(&body).await;
        if let Some(probe) = &mut readiness_probe {
            probe.write_raw(b"connection: close\r\n\r\n").await;
        }
        let refused = String::from_utf8_lossy(&late.read_to_end_within(Duration::from_secs(3)).await).into_owned();
        assert!(refused.starts_with("HTTP/1.1 503"), "{what}: {refused:?}");
        if let Some(mut probe) = readiness_probe.take() {
            let answer = String::from_utf8_lossy(&probe.read_to_end_within(Duration::from_secs(3)).await).into_owned();
            assert!(answer.starts_with("HTTP/1.1 503") && answer.contains("shutting_down"), "{answer}");
        }
        assert!(refused.to_ascii_lowercase().contains("retry-after: 1"), "{what}: {refused}");
        let error: Value = serde_json::from_str(refused.split_once("\r\n\r\n").expect("a body").1).expect("JSON");
        assert_error(&error, &what, SHUTTING_DOWN, &json!(3));
        let finished = finishes.await.expect("answered").message();
        assert_eq!(finished["result"]["content"][0]["text"], "ground", "{what}: {finished}");
        let cut = cut.await.expect("answered");
        let answer = cut.messages().into_iter().find(|message| message.get("id").is_some()).expect("an answer");
        assert_error(&answer, &what, SHUTTING_DOWN, &json!(2));
        assert!(started.elapsed() < Duration::from_secs(3), "{what}: cut at the end of the grace period");
        let served = server.served.take().expect("serving");
        let ended = tokio::time::timeout(Duration::from_secs(4), served).await;
        assert!(ended.is_ok_and(|served| served.is_ok_and(|served| served.is_ok())), "{what}: the server returns");
        assert!(tokio::net::TcpStream::connect(server.addr).await.is_err(), "{what}: no connection accepted");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_serves_liveness_and_a_readiness_check_the_server_extends() {
    let ready = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let check = std::sync::Arc::clone(&ready);
    let options = HttpOptions::default().readiness_check(move || {
        let ready = check.load(std::sync::atomic::Ordering::SeqCst);
        async move { if ready { Ok(()) } else { Err("the database at db.internal:5432 does not answer".to_owned()) } }
    });
    let server = HttpServer::start(options).await;
    let mut client = HttpClient::connect(server.addr).await;
    client.path = "/healthz".to_owned();
    let live = client.request("GET", &[], b"").await;
    assert_eq!((live.status, live.text()), (200, r#"{"status":"ok"}"#.to_owned()));
    client.path = "/readyz".to_owned();
    let answer = client.request("GET", &[], b"").await;
    assert_eq!((answer.status, answer.text()), (200, r#"{"status":"ready"}"#.to_owned()));
    ready.store(false, std::sync::atomic::Ordering::SeqCst);
    let answer = client.request("GET", &[], b"").await;
    assert_eq!(answer.status, 503);
    assert_eq!(answer.text(), r#"{"status":"not_ready"}"#, "why stays in the log");
    client.path = "/healthz".to_owned();
    assert_eq!(client.request("GET", &[], b"").await.status, 200, "alive, though not ready");
}

/// Regression: at the session cap, an `initialize` that rmcp then refuses for
/// its `Host` (403) closed the session idle the longest first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_a_refused_initialize_evicts_no_session() {
    let server = HttpServer::start(HttpOptions::default().max_sessions(1)).await;
    let mut live = HttpClient::session(server.addr).await;
    let mut stranger = HttpClient::connect(server.addr).await;
    let body = support::initialize(1);
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: evil.example\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stranger.write_raw(request.as_bytes()).await;
    stranger.write_raw(&body).await;
    let answer = String::from_utf8_lossy(&stranger.read_to_end_within(Duration::from_secs(5)).await).into_owned();
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer:?}");
    assert_http_still_serves(&mut live, 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_closes_connections_slow_to_send_headers_or_idle() {
    let options =
        HttpOptions::default().header_read_timeout(Duration::from_millis(300)).idle_timeout(Duration::from_millis(800));
    let server = HttpServer::start(options).await;

    let mut silent = HttpClient::connect(server.addr).await;
    assert!(silent.closed_within(Duration::from_secs(3)).await, "a client that sends nothing is cut off");

    let mut trickle = HttpClient::connect(server.addr).await;
    let started = Instant::now();
    for header in ["POST /mcp HTTP/1.1\r\n", "host: 127.0.0.1\r\n", "x-a: 1\r\n", "x-b: 1\r\n"] {
        trickle.write_raw(header.as_bytes()).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(trickle.closed_within(Duration::from_secs(3)).await, "a client trickling headers is cut off");
    assert!(started.elapsed() < Duration::from_secs(2));

    let mut idle = HttpClient::connect(server.addr).await;
    assert_eq!(idle.post(&support::initialize(1)).await.status, 200);
    let idle_since = Instant::now();
    assert!(idle.closed_within(Duration::from_secs(3)).await, "an idle keep-alive connection is closed");
    assert!(idle_since.elapsed() >= Duration::from_millis(600), "by the idle timeout, not the header one");

    let mut fresh = HttpClient::connect(server.addr).await;
    assert_eq!(fresh.post(&support::initialize(2)).await.status, 200, "the server still serves");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refuses_connections_past_the_cap_with_503() {
    let server = HttpServer::start(HttpOptions::default().max_connections(2)).await;
    let held = [HttpClient::connect(server.addr).await, HttpClient::connect(server.addr).await];
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut refused = HttpClient::connect(server.addr).await;
    let head = String::from_utf8_lossy(&refused.read_to_end_within(Duration::from_secs(3)).await).into_owned();
    assert!(head.starts_with("HTTP/1.1 503"), "past the cap: {head:?}");
    assert!(head.contains("retry-after") || head.contains("Retry-After"), "{head}");
    let (headers, body) = head.split_once("\r\n\r\n").expect("a head and a body");
    let length = headers.lines().find_map(|line| line.strip_prefix("Content-Length: ")).expect("a length");
    assert_eq!(length.parse::<usize>().expect("a number"), body.len(), "{head}");
    let answer: Value = serde_json::from_str(body).expect("a JSON-RPC body");
    assert_eq!(answer["error"]["code"], -32000);
    drop(held);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut after = HttpClient::connect(server.addr).await;
    assert_eq!(after.post(&support::initialize(2)).await.status, 200, "a freed slot serves again");
}

/// A request's head with a `Content-Length` and none of its body: what holds
/// a connection until `request_read_timeout`.
async fn hang_on_body(client: &mut HttpClient, headers: &str) {
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\n{headers}content-length: 100\r\n\r\n"
    );
    client.write_raw(head.as_bytes()).await;
}

/// The 503 a client past a cap reads (JSON-RPC body, `Retry-After`), then the close.
async fn assert_refused_busy(client: &mut HttpClient, what: &str) {
    let answer = String::from_utf8_lossy(&client.read_to_end_within(Duration::from_secs(3)).await).into_owned();
    assert!(answer.starts_with("HTTP/1.1 503"), "{what}: {answer:?}");
    assert!(answer.to_ascii_lowercase().contains("retry-after: 1"), "{what}: {answer}");
    let (_, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    let refusal: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("{what}: a JSON-RPC body: {body}"));
    assert_eq!(refusal["error"]["code"], -32000, "{what}: {refusal}");
    assert!(refusal["error"]["message"].as_str().is_some_and(|m| m.contains("from this address")), "{refusal}");
}

// Regression: 512 connections that sent a head and never the body held every
// connection slot, and everyone got 503 for as long as they were reopened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_one_client_cannot_hold_every_connection() {
    let server = HttpServer::start(HttpOptions::default()).await;
    let mut hanging = Vec::new();
    for _ in 0..64 {
        let mut client = HttpClient::connect(server.addr).await;
        hang_on_body(&mut client, "").await;
        hanging.push(client);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut one_more = HttpClient::connect(server.addr).await;
    assert_refused_busy(&mut one_more, "the 65th connection of 127.0.0.1").await;
    let mut other = HttpClient::connect_from(server.addr, "127.0.0.2".parse().expect("an address")).await;
    assert_eq!(other.post(&support::initialize(1)).await.status, 200, "another client is served");
    drop(hanging);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut again = HttpClient::connect(server.addr).await;
    assert_eq!(again.post(&support::initialize(2)).await.status, 200, "freed slots serve again");
}

/// An `initialize` a trusted proxy forwards for `client`.
async fn initialize_for(connection: &mut HttpClient, client: &str, id: i64) -> Answer {
    let headers = [("content-type", "application/json"), ("x-forwarded-for", client)];
    connection.request("POST", &headers, &support::initialize(id)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_behind_a_trusted_proxy_the_cap_counts_each_forwarded_client() {
    let options = HttpOptions::default().trusted_proxies(["127.0.0.1"]).max_connections_per_client(1);
    let server = HttpServer::start(options).await;
    let mut slow = HttpClient::connect(server.addr).await;
    hang_on_body(&mut slow, "x-forwarded-for: 203.0.113.9\r\n").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The proxy's own connections are many, and not counted.
    let mut same = HttpClient::connect(server.addr).await;
    let answer = initialize_for(&mut same, "203.0.113.9", 1).await;
    assert_eq!(answer.status, 503, "the forwarded client's second request in progress: {}", answer.text());
    assert_eq!(answer.header("retry-after"), Some("1"));
    assert_eq!(answer.message()["error"]["code"], -32000);
    let mut other = HttpClient::connect(server.addr).await;
    let answer = initialize_for(&mut other, "198.51.100.1", 2).await;
    assert_eq!(answer.status, 200, "another forwarded client: {}", answer.text());
    drop(slow);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let answer = initialize_for(&mut same, "203.0.113.9", 3).await;
    assert_eq!(answer.status, 200, "its slot is free again: {}", answer.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_a_slow_call_delays_no_cheap_one() {
    let server = HttpServer::start(HttpOptions::default()).await;
    for slow in ["spin", "grind"] {
        let mut slow_client = HttpClient::session(server.addr).await;
        let mut cheap_client = HttpClient::connect(server.addr).await;
        cheap_client.session = slow_client.session.clone();
        let started = Instant::now();
        let slow_call =
            tokio::spawn(async move { slow_client.post(&call("slow", slow, json!({"millis": 3000}))).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_http_still_serves(&mut cheap_client, 1).await;
        assert!(started.elapsed() < Duration::from_millis(2500), "{slow}: the cheap call waited");
        assert_eq!(slow_call.await.expect("answered").message()["id"], "slow");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_load_8_sessions_by_250_calls_without_an_error() {
    let server = HttpServer::start(HttpOptions::default()).await;
    let mut clients = Vec::new();
    for worker in 0..8 {
        let addr = server.addr;
        clients.push(tokio::spawn(async move {
            let mut client = HttpClient::session(addr).await;
            for n in 0..250 {
                let text = format!("{worker}-{n}");
                let answer = client.post(&call(n, "echo", json!({"text": text}))).await;
                assert_eq!(answer.status, 200, "{}", answer.text());
                assert_eq!(answer.message()["result"]["content"][0]["text"], text);
            }
        }));
    }
    for client in clients {
        tokio::time::timeout(Duration::from_secs(60), client).await.expect("in time").expect("no error");
    }
}

/// The `_meta` of a 2026-07-28 request without a session.
fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "hardening", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_methods_removed_at_2026_07_28_are_404_there() {
    let server = HttpServer::start(HttpOptions::default().stateless(true)).await;
    let mut client = HttpClient::connect(server.addr).await;
    let meta = stateless_meta();
    for method in ["initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"] {
        let body = json!({"jsonrpc": "2.0", "id": 500, "method": method, "params": {"_meta": meta}}).to_string();
        let headers =
            [("content-type", "application/json"), ("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
        let answer = client.request("POST", &headers, body.as_bytes()).await;
        assert_http_error(&answer, method, 404, -32601, &json!(500));
    }
}

/// rmcp refuses a 2026-07-28 request whose `Mcp-Name` disagrees with its body
/// before the server sees it; the refusal still carries `data.requestId`, as
/// every error the server answers does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_a_refusal_of_rmcp_s_own_carries_a_request_id() {
    let server = HttpServer::start(HttpOptions::default().stateless(true)).await;
    let mut client = HttpClient::connect(server.addr).await;
    let meta = stateless_meta();
    let body = json!({"jsonrpc": "2.0", "id": 501, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "x"}, "_meta": meta,
    }})
    .to_string();
    let headers = [
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "not-echo"),
    ];
    let answer = client.request("POST", &headers, body.as_bytes()).await;
    assert_eq!(answer.status, 400, "{}", answer.text());
    let message = answer.message();
    assert_eq!(message["error"]["code"], -32020, "{message}");
    let id = message["error"]["data"]["requestId"].as_str().expect("a request id");
    assert!(id.len() == 11 && id.as_bytes()[5] == b'-', "{message}");
}
