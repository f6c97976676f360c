//! Tasks in Redis: one JSON value per task, beside the replica that runs it.

use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::model::DetailedTask;

use crate::call::BoxFuture;
use crate::error::McpError;
use crate::server::store::tasks::TaskStore;

use super::{RedisStore, millis, now_millis, records};

/// A task and whether it may still finish: 0 when the replica that last
/// stored it stopped, 1 otherwise; nil when there is no such task.
/// KEYS: the task, its runner; ARGV: the prefix of replica keys.
const TASK_GET: &str = r"
local task = redis.call('GET', KEYS[1])
if not task then return false end
local runner = redis.call('GET', KEYS[2])
if runner and redis.call('EXISTS', ARGV[1] .. runner) == 0 then return {task, 0} end
return {task, 1}
";

/// A task is one JSON value that expires at its `ttlMs`, beside the replica
/// that runs it: a task still working whose replica stopped reads back as
/// failed, so its client learns it will never finish.
impl TaskStore for RedisStore {
    fn put(&self, task: DetailedTask, expires_at: SystemTime) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(async move {
            let key = self.key("task", &task.task.task_id);
            let runner = self.key("task-runner", &task.task.task_id);
            let expires = millis(expires_at.duration_since(UNIX_EPOCH).unwrap_or_default());
            let mut pipe = redis::pipe();
            if expires <= now_millis() {
                pipe.cmd("DEL").arg(&key).arg(&runner).ignore();
            } else {
                let json =
                    serde_json::to_string(&task).map_err(|err| McpError::serialization_error(err.to_string()))?;
                pipe.atomic().cmd("SET").arg(&key).arg(json).arg("PXAT").arg(expires).ignore();
                pipe.cmd("SET").arg(&runner).arg(&self.inner.nonce).arg("PXAT").arg(expires).ignore();
                self.alive(&mut pipe);
            }
            self.query::<()>(&pipe).await.map_err(|_| Self::unavailable())
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, McpError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("EVAL")
                .arg(TASK_GET)
                .arg(2)
                .arg(self.key("task", task_id))
                .arg(self.key("task-runner", task_id))
                .arg(self.key("replica", ""));
            let (task,): (Option<(String, i64)>,) = self.query(&pipe).await.map_err(|_| Self::unavailable())?;
            let Some((task, runs)) = task else { return Ok(None) };
            records::task(&task, runs).map(Some)
        })
    }

    /// Beside the task, as long as it: another replica's `tasks/get` links to the call too.
    fn put_trace_link<'a>(
        &'a self,
        task_id: &'a str,
        traceparent: String,
        expires_at: SystemTime,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        Box::pin(async move {
            let expires = millis(expires_at.duration_since(UNIX_EPOCH).unwrap_or_default());
            if expires <= now_millis() {
                return Ok(());
            }
            let mut pipe = redis::pipe();
            pipe.cmd("SET").arg(self.key("task-trace", task_id)).arg(traceparent).arg("PXAT").arg(expires).ignore();
            self.query::<()>(&pipe).await.map_err(|_| Self::unavailable())
        })
    }

    fn trace_link<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<String>, McpError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("GET").arg(self.key("task-trace", task_id));
            let (link,): (Option<String>,) = self.query(&pipe).await.map_err(|_| Self::unavailable())?;
            Ok(link)
        })
    }
}
