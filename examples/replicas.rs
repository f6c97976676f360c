//! Replicas behind a load balancer (feature `redis`): the Streamable HTTP
//! sessions, the SSE events a client resumes with `Last-Event-ID` and the
//! tasks live in one Redis, so any replica serves any request, and a session
//! or task one replica opened goes on through another.
//!
//! ```text
//! redis-server --port 6379 &
//! export MCP_REDIS_URL=redis://127.0.0.1:6379/
//! cargo run --example replicas --features redis -- --http 127.0.0.1:8080 &
//! cargo run --example replicas --features redis -- --http 127.0.0.1:8081
//! ```

use std::process::ExitCode;
use std::time::Duration;

use mcp_contract::prelude::*;
use mcp_contract::server::{REDIS_URL_ENV, RedisStore};

/// Which replica this process is, for the answers.
pub struct Replica(String);

/// Tell which replica answered this call.
#[mcp_tool(annotations(read_only, open_world = false))]
async fn served_by(replica: State<Replica>) -> Result<String, McpError> {
    Ok(format!("Served by {}.", replica.0))
}

#[derive(Deserialize, JsonSchema)]
pub struct ExportInput {
    /// The department to export, e.g. "Asian Art".
    pub department: String,
}

/// Export a department's records; as a task, polled through any replica.
#[mcp_tool(task(optional), annotations(read_only, open_world = false))]
async fn export_department(input: ExportInput, replica: State<Replica>) -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_millis(50)).await; // the long part
    Ok(format!("Exported {} on {}.", input.department, replica.0))
}

fn server(store: RedisStore, replica: impl Into<String>) -> Server {
    // Replicas share one name: it namespaces their keys in Redis.
    mcp_contract::server_from_crate!()
        .tool(ServedBy)
        .tool(ExportDepartment)
        .state(Replica(replica.into()))
        .redis_store(store)
}

#[tokio::main]
async fn main() -> ExitCode {
    let url = std::env::var(REDIS_URL_ENV).unwrap_or_else(|_| "redis://127.0.0.1:6379/".to_owned());
    let store = match RedisStore::new(&url) {
        // Events kept ten minutes for a client that comes back late.
        Ok(store) => store.event_age(Duration::from_secs(10 * 60)),
        Err(err) => {
            eprintln!("{REDIS_URL_ENV}: {err}");
            return ExitCode::from(2);
        }
    };
    server(store, format!("replica {}", std::process::id())).run_cli().await
}

#[cfg(test)]
mod tests {
    use std::process::{Child, Command, Stdio};
    use std::time::Instant;

    use serde_json::json;

    use super::*;
    use crate::loopback;

    /// A `redis-server` of this test on a free loopback port; killed when dropped.
    struct Redis(Child, u16);

    impl Drop for Redis {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// A fresh `redis-server`, or `None` after a skip line on a machine
    /// without one (under CI, a failure naming how to install it).
    fn redis() -> Option<Redis> {
        let program = crate::needs::find(crate::needs::REDIS_SERVER)?;
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(program)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("`redis-server` could not be started: {err}"));
        let redis = Redis(child, port);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(redis)
    }

    fn replica(redis: &Redis, name: &str) -> Server {
        server(RedisStore::new(&format!("redis://127.0.0.1:{}/", redis.1)).unwrap(), name)
    }

    fn text(answer: &loopback::Answer) -> &str {
        answer.message["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {}", answer.message))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_session_opened_on_one_replica_goes_on_through_the_other() {
        let Some(redis) = redis() else { return };
        let (a, b) = (loopback::serve(replica(&redis, "a")).await, loopback::serve(replica(&redis, "b")).await);
        let session = a.session().await;
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "served_by", "arguments": {}}});
        assert_eq!(text(&a.on(&session, &call).await), "Served by a.");
        assert_eq!(text(&b.on(&session, &call).await), "Served by b.", "b restores the session from Redis");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_started_on_one_replica_is_polled_on_the_other() {
        let Some(redis) = redis() else { return };
        let (a, b) = (loopback::serve(replica(&redis, "a")).await, loopback::serve(replica(&redis, "b")).await);
        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let call = json!({"name": "export_department", "arguments": {"department": "Asian Art"}});
        let started = a.stateless("tools/call", call, tasks.clone(), None).await;
        assert_eq!(started.message["result"]["resultType"], "task", "{}", started.message);
        let task_id = started.message["result"]["taskId"].clone();

        let deadline = Instant::now() + Duration::from_secs(10);
        let polled = loop {
            let polled = b.stateless("tasks/get", json!({"taskId": task_id}), tasks.clone(), None).await;
            if polled.message["result"]["status"] != "working" {
                break polled;
            }
            assert!(Instant::now() < deadline, "the task did not finish within 10 s: {}", polled.message);
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let result = &polled.message["result"];
        assert_eq!(result["status"], "completed", "{}", polled.message);
        assert_eq!(result["result"]["content"][0]["text"], "Exported Asian Art on a.", "it ran where it started");
    }
}
