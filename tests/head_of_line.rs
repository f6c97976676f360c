//! The museum example as a child process, over real pipes and a real socket:
//! a call that computes for seconds delays no cheap call sent after it.
//!
//! In-process tests cannot show this: the stall came from tokio's IO driver,
//! which a worker busy in a handler stops polling while the other workers
//! sleep, and an in-process client wakes the server without the driver.

#![cfg(feature = "rmcp")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

#[path = "support/stdio.rs"]
mod stdio;
use stdio::{INITIALIZED, Killed, StdioMuseum, call, initialize, museum};

/// How long the slow call computes; the cheap one must come back well before.
const SLOW_MILLIS: u64 = 3000;
const CHEAP_WITHIN: Duration = Duration::from_millis(1500);

#[test]
fn over_stdio_a_computing_call_delays_no_cheap_one() {
    for slow in ["debug_busy", "debug_spin"] {
        let mut museum = StdioMuseum::initialized("hol");

        let started = Instant::now();
        museum.send(&call("slow", slow, json!({"millis": SLOW_MILLIS})));
        std::thread::sleep(Duration::from_millis(200));
        museum.send(&call("cheap", "get_object", json!({"object_id": 100019})));
        let first = museum.answers.recv_timeout(Duration::from_secs(20)).expect("an answer");
        assert_eq!(first["id"], "cheap", "{slow}: the cheap call came second: {first}");
        assert!(started.elapsed() < CHEAP_WITHIN, "{slow}: the cheap call took {:?}", started.elapsed());
        let second = museum.answers.recv_timeout(Duration::from_secs(20)).expect("the slow answer");
        assert_eq!(second["id"], "slow", "{second}");
    }
}

fn post(addr: &str, session: Option<&str>, body: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(20))).expect("a timeout");
    let session =
        session.map(|id| format!("mcp-session-id: {id}\r\nmcp-protocol-version: 2025-06-18\r\n")).unwrap_or_default();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n{session}\r\n{body}",
        body.len()
    )
    .expect("the server reads");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("the server answers");
    let session = answer
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .map(|id| id.trim().to_owned())
        .unwrap_or_default();
    (answer, session)
}

#[test]
fn over_http_a_computing_call_delays_no_cheap_one() {
    let mut child = Command::new(museum())
        .args(["--http", "127.0.0.1:0"])
        .env("MUSEUM_TEST_TOOLS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the museum starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("piped"));
    let _museum = Killed(child);
    let mut line = String::new();
    let addr = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("readable") > 0, "the museum exited");
        if let Some(at) = line.find("http://") {
            break line[at + 7..].trim().trim_end_matches("/mcp").to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let (_, session) = post(&addr, None, &initialize("hol"));
    assert!(!session.is_empty(), "a session");
    post(&addr, Some(&session), INITIALIZED);

    let started = Instant::now();
    let slow = {
        let (addr, session) = (addr.clone(), session.clone());
        std::thread::spawn(move || {
            post(&addr, Some(&session), &call("slow", "debug_busy", json!({"millis": SLOW_MILLIS})))
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    let (cheap, _) = post(&addr, Some(&session), &call("cheap", "get_object", json!({"object_id": 100019})));
    assert!(cheap.contains("\"id\":\"cheap\""), "{cheap}");
    assert!(started.elapsed() < CHEAP_WITHIN, "the cheap call took {:?}", started.elapsed());
    let (slow, _) = slow.join().expect("the slow call returns");
    assert!(slow.contains("computed"), "{slow}");
}
