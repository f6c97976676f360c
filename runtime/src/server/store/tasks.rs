//! Where tasks' states are kept: the [`TaskStore`] seam and [`MemoryTaskStore`]
//! (this process, bounded), unless [`Server::task_store`](crate::server::builder::Server::task_store)
//! gives another, e.g. the Redis store replicas share.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::model::DetailedTask;

use crate::call::BoxFuture;
use crate::error::McpError;

/// How long a task is kept from its creation, by default: its `ttlMs`.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(15 * 60);

/// How often a client is asked to poll a task, by default: its `pollIntervalMs`.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How many tasks [`MemoryTaskStore::default`] keeps at once, and how many
/// handlers of tasks one server runs at once (whatever its store).
pub const DEFAULT_MAX_TASKS: usize = 1024;

/// Where tasks' states are kept, so `tasks/get` finds them for as long as
/// their `ttlMs` says. The seam for a store shared across replicas: the
/// server only puts and gets whole tasks.
pub trait TaskStore: Send + Sync + 'static {
    /// Keep `task` (replacing the state of the same `taskId`) until `expires_at`.
    ///
    /// # Errors
    ///
    /// When the store cannot keep it (full, unreachable): the call that made
    /// the task is answered with this error.
    fn put(&self, task: DetailedTask, expires_at: SystemTime) -> BoxFuture<'_, Result<(), McpError>>;

    /// The task `task_id`, unless there is none or it expired.
    ///
    /// # Errors
    ///
    /// When the store cannot be read.
    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, McpError>>;

    /// Keep `traceparent`, the W3C trace context of the call that created the
    /// task `task_id`, until `expires_at`: the spans of the task's later
    /// rounds (`tasks/get`, `tasks/update`, `tasks/cancel`) link to that
    /// call's, on whichever replica serves them. Only the feature `otel`
    /// writes it. The default keeps nothing, which costs those spans their
    /// link and nothing else.
    ///
    /// # Errors
    ///
    /// When the store cannot keep it: the task goes on, its rounds unlinked.
    fn put_trace_link<'a>(
        &'a self,
        task_id: &'a str,
        traceparent: String,
        expires_at: SystemTime,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        let _ = (task_id, traceparent, expires_at);
        Box::pin(std::future::ready(Ok(())))
    }

    /// The `traceparent` [`put_trace_link`](Self::put_trace_link) kept for
    /// the task `task_id`, if any.
    ///
    /// # Errors
    ///
    /// When the store cannot be read.
    fn trace_link<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<String>, McpError>> {
        let _ = task_id;
        Box::pin(std::future::ready(Ok(None)))
    }
}

/// Tasks in this process's memory, at most a number of them: past it, the
/// expired ones go first, then the oldest finished one; when every task kept
/// is still running, a new one is refused (-32000, try later).
///
/// ```
/// use mcp_contract::server::MemoryTaskStore;
/// let store = MemoryTaskStore::new(64);
/// # let _ = store;
/// ```
pub struct MemoryTaskStore {
    max_tasks: usize,
    tasks: Mutex<HashMap<String, (DetailedTask, SystemTime)>>,
    /// The `traceparent` of the call that created each task, while the task is kept.
    trace_links: Mutex<HashMap<String, String>>,
}

impl MemoryTaskStore {
    /// A store that keeps at most `max_tasks` tasks (at least one).
    #[must_use]
    pub fn new(max_tasks: usize) -> Self {
        Self { max_tasks: max_tasks.max(1), tasks: Mutex::default(), trace_links: Mutex::default() }
    }

    /// How many tasks are kept now, expired ones included until they are swept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether no task is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn put_now(&self, task: DetailedTask, expires_at: SystemTime, now: SystemTime) -> Result<(), McpError> {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let id = task.task.task_id.clone();
        if !tasks.contains_key(&id) && tasks.len() >= self.max_tasks {
            tasks.retain(|_, (_, expires)| *expires > now);
            if tasks.len() >= self.max_tasks {
                let oldest_finished = tasks
                    .iter()
                    .filter(|(_, (task, _))| task.status().is_terminal())
                    .min_by(|(_, (a, _)), (_, (b, _))| a.task.last_updated_at.cmp(&b.task.last_updated_at))
                    .map(|(id, _)| id.clone());
                match oldest_finished {
                    Some(oldest) => {
                        tasks.remove(&oldest);
                    }
                    None => {
                        return Err(McpError::service_unavailable(format!(
                            "This server runs {} tasks already, the most it keeps. Call again once one of them \
                             has finished.",
                            self.max_tasks
                        )));
                    }
                }
            }
        }
        if expires_at > now {
            tasks.insert(id, (task, expires_at));
        } else {
            tasks.remove(&id);
        }
        Ok(())
    }
}

impl Default for MemoryTaskStore {
    /// [`DEFAULT_MAX_TASKS`] tasks.
    fn default() -> Self {
        Self::new(DEFAULT_MAX_TASKS)
    }
}

impl std::fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTaskStore").field("max_tasks", &self.max_tasks).field("tasks", &self.len()).finish()
    }
}

impl TaskStore for MemoryTaskStore {
    fn put(&self, task: DetailedTask, expires_at: SystemTime) -> BoxFuture<'_, Result<(), McpError>> {
        Box::pin(std::future::ready(self.put_now(task, expires_at, SystemTime::now())))
    }

    fn get<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<DetailedTask>, McpError>> {
        let now = SystemTime::now();
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let found = match tasks.get(task_id) {
            Some((task, expires_at)) if *expires_at > now => Some(task.clone()),
            Some(_) => {
                tasks.remove(task_id);
                None
            }
            None => None,
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn put_trace_link<'a>(
        &'a self,
        task_id: &'a str,
        traceparent: String,
        _expires_at: SystemTime,
    ) -> BoxFuture<'a, Result<(), McpError>> {
        let tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let mut links = self.trace_links.lock().unwrap_or_else(PoisonError::into_inner);
        // A link lives as long as its task: the links of tasks gone go
        // before a new one, so there are never more than `max_tasks`.
        if links.len() >= self.max_tasks {
            links.retain(|id, _| tasks.contains_key(id));
        }
        if tasks.contains_key(task_id) && links.len() < self.max_tasks {
            links.insert(task_id.to_owned(), traceparent);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn trace_link<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<Option<String>, McpError>> {
        let kept = self.tasks.lock().unwrap_or_else(PoisonError::into_inner).contains_key(task_id);
        let link = kept.then(|| self.trace_links.lock().unwrap_or_else(PoisonError::into_inner).get(task_id).cloned());
        Box::pin(std::future::ready(Ok(link.flatten())))
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{Task, TaskPayload, TaskStatus};

    use super::*;

    fn task(id: &str, payload: TaskPayload, updated: &str) -> DetailedTask {
        DetailedTask::new(Task::new(id, TaskStatus::Working, "2026-01-01T00:00:00.000Z", updated), payload)
    }

    #[test]
    fn the_memory_store_is_bounded_and_forgets_expired_tasks() {
        let store = MemoryTaskStore::new(2);
        let now = SystemTime::now();
        let later = now + Duration::from_secs(60);
        let done = TaskPayload::Cancelled;
        store.put_now(task("a", done.clone(), "2026-01-01T00:00:01.000Z"), later, now).unwrap();
        store.put_now(task("b", TaskPayload::Working, "2026-01-01T00:00:02.000Z"), later, now).unwrap();
        // Full: the oldest finished task makes room.
        store.put_now(task("c", TaskPayload::Working, "2026-01-01T00:00:03.000Z"), later, now).unwrap();
        assert_eq!(store.len(), 2);
        assert!(store.tasks.lock().unwrap().contains_key("b"));
        // Full of running tasks: a new one is refused, an update of one kept is not.
        let err = store.put_now(task("d", TaskPayload::Working, "x"), later, now).unwrap_err();
        assert_eq!(err.code(), crate::error::JsonRpcErrorCode::ServiceUnavailable);
        store.put_now(task("b", done, "2026-01-01T00:00:04.000Z"), later, now).unwrap();
        // Past its expiry a task is gone, and an expired one makes room first.
        let after = later + Duration::from_secs(1);
        store.put_now(task("e", TaskPayload::Working, "y"), after + Duration::from_secs(60), after).unwrap();
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn the_memory_store_keeps_a_tasks_trace_link_while_it_keeps_the_task() {
        fn block<T>(future: BoxFuture<'_, T>) -> T {
            futures::FutureExt::now_or_never(future).expect("the memory store answers at once")
        }
        let store = MemoryTaskStore::new(1);
        let now = SystemTime::now();
        let later = now + Duration::from_secs(60);
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        // No task, no link.
        block(store.put_trace_link("a", parent.to_owned(), later)).unwrap();
        assert_eq!(block(store.trace_link("a")).unwrap(), None);
        store.put_now(task("a", TaskPayload::Cancelled, "2026-01-01T00:00:01.000Z"), later, now).unwrap();
        block(store.put_trace_link("a", parent.to_owned(), later)).unwrap();
        assert_eq!(block(store.trace_link("a")).unwrap().as_deref(), Some(parent));
        // The task makes room for another: its link goes with it, and the new one's is kept.
        store.put_now(task("b", TaskPayload::Working, "2026-01-01T00:00:02.000Z"), later, now).unwrap();
        assert_eq!(block(store.trace_link("a")).unwrap(), None);
        block(store.put_trace_link("b", parent.to_owned(), later)).unwrap();
        assert_eq!(block(store.trace_link("b")).unwrap().as_deref(), Some(parent));
        assert_eq!(store.trace_links.lock().unwrap().len(), 1);
    }
}
