//! Tools that run as tasks (the MCP tasks extension, SEP-2663): a call answers
//! at once with a task, the handler runs on, and the client polls `tasks/get`
//! for its status and result, or stops it with `tasks/cancel`.
//!
//! Where a task's state lives is a [`TaskStore`] (`store/tasks.rs`); what
//! cannot be shared, the running handler and its cancellation, stays here,
//! with the process that runs it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::model::{
    CallToolResult, DetailedTask, ErrorCode, ErrorData, NumberOrString, ProgressNotificationParam, ServerNotification,
    Task, TaskPayload, TaskStatus, TaskStatusNotification, TaskStatusNotificationParams,
};
use rmcp::{Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use super::hibernation::Working;
use super::invoke::{Cancelled, Finished, ToolCall, run_tool_call};
use super::observe::Observe;
use super::rounds::wire_requests;
use crate::call::{BoxFuture, ClientChannel, Context, InputRequest, InputRound, LogLevel, ProgressToken};
use crate::define::DynTool;
use crate::error::{JsonObject, McpError};
use crate::server::store::tasks::{DEFAULT_MAX_TASKS, TaskStore};

/// The tasks of one server: its store, its retention, and the handlers it runs.
#[derive(Clone)]
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    ttl: Duration,
    poll_interval: Duration,
    /// Each task this process runs, until it finishes.
    running: Arc<Mutex<HashMap<String, Running>>>,
    /// The session a task started from here tells of its status changes
    /// ([`Tasks::notifying`]); none for a stateless request.
    listener: Option<Peer<RoleServer>>,
}

/// What this process holds of a task it runs.
#[derive(Clone)]
struct Running {
    cancellation: CancellationToken,
    /// Where the handler's asks wait for `tasks/update`.
    round: Arc<InputRound>,
    /// Held while the task's state is written, so an update's state and the
    /// handler's final one land in the order they happened.
    writing: Arc<tokio::sync::Mutex<()>>,
    /// The task as it was created, and when the store forgets it.
    seed: Task,
    expires_at: SystemTime,
    /// The session that started the task, told of each change of its status.
    listener: Option<Peer<RoleServer>>,
    /// The asks the task's state shows now (none: working, as it was
    /// created); the handler's loop and `tasks/update` both write the
    /// state, and each change once.
    shown: Arc<Mutex<BTreeMap<String, InputRequest>>>,
    /// The handler's last progress, as the working state's `statusMessage`.
    progress: Arc<Mutex<Option<String>>>,
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, ttl: Duration, poll_interval: Duration) -> Self {
        Self { store, ttl, poll_interval, running: Arc::default(), listener: None }
    }

    /// These tasks, with the tasks started through them telling `session`
    /// of each change of their status (`notifications/tasks`, the state
    /// `tasks/get` would give at that moment). Only a session is told: a
    /// stateless request has no stream left once answered, and a
    /// `subscriptions/listen` stream carries nothing that ties it to the
    /// task's creator, so telling it would show one client's tasks to another.
    pub(crate) fn notifying(&self, session: Peer<RoleServer>) -> Self {
        Self { listener: Some(session), ..self.clone() }
    }

    /// Start `tool` on `arguments` as a task and return its first state,
    /// which the store holds before the call is answered (a `tasks/get` right
    /// after finds it). The handler's asks find `answers` (those its request
    /// gathered before it became a task) and wait for the others. `working`,
    /// held until the task ends, keeps its session from hibernating under it.
    #[allow(clippy::too_many_arguments, reason = "one call, in call_tool, which names every part")]
    pub(crate) async fn start(
        &self,
        tool: Arc<dyn DynTool>,
        arguments: JsonObject,
        answers: JsonObject,
        ctx: Context,
        cancellation: CancellationToken,
        observe: Arc<Observe>,
        working: Option<Working>,
    ) -> Result<Task, ErrorData> {
        if lock(&self.running).len() >= DEFAULT_MAX_TASKS {
            // A store that keeps more (or forgets a task past its time to live
            // while it still runs) does not let this process run more.
            return Err(ErrorData::new(
                ErrorCode(crate::error::JsonRpcErrorCode::ServiceUnavailable.as_i32()),
                format!("This server runs {DEFAULT_MAX_TASKS} tasks already. Call again once one has finished."),
                None,
            ));
        }
        let (mut task, expires_at) = self.created(TaskPayload::Working).await?;
        let id = task.task_id.clone();
        // The call's span starts now, so that the task's record names it
        // before the call is answered.
        let call = ToolCall::new(tool.as_ref(), &ctx, &observe);
        #[cfg(feature = "otel")]
        self.keep_trace_link(&id, call.span(), expires_at).await;
        let round = Arc::new(InputRound::live_with(answers));
        let writing = Arc::new(tokio::sync::Mutex::new(()));
        let running = Running {
            cancellation: cancellation.clone(),
            round: Arc::clone(&round),
            writing,
            seed: task.clone(),
            expires_at,
            listener: self.listener.clone(),
            shown: Arc::default(),
            progress: Arc::default(),
        };
        lock(&self.running).insert(id.clone(), running.clone());
        let channel =
            TaskChannel { tasks: self.clone(), running: running.clone(), token: ctx.progress_token().cloned() };
        let ctx = ctx.with_input_round(Arc::clone(&round)).with_channel(Arc::new(channel));
        let tasks = self.clone();
        let seed = task.clone();
        tokio::spawn(async move {
            // Held until the task ends: its session's work.
            let _working = working;
            // The handler's asks wait in the task's live round; while one
            // waits, tasks/get shows the task `input_required` with it.
            let run = run_tool_call(call, tool, arguments, ctx, &cancellation, &observe, None);
            let mut run = std::pin::pin!(run);
            let outcome = loop {
                let changed = round.changed();
                let mut changed = std::pin::pin!(changed);
                changed.as_mut().enable();
                if *lock(&running.shown) != round.pending() {
                    let _writing = running.writing.lock().await;
                    tasks.show_pending(&running, round.pending()).await;
                }
                tokio::select! {
                    outcome = &mut run => break outcome,
                    () = changed => {}
                }
            };
            let mut finished = seed;
            finished.last_updated_at = timestamp(SystemTime::now());
            let _writing = running.writing.lock().await;
            let last = DetailedTask::new(finished, payload(outcome));
            match tasks.store.put(last.clone(), expires_at).await {
                Ok(()) => tell(running.listener.as_ref(), last).await,
                Err(err) => {
                    tracing::error!(task = id, code = %err.code(), "the task's final state could not be stored: {err}");
                }
            }
            lock(&tasks.running).remove(&id);
        });
        task.status = TaskStatus::Working;
        Ok(task)
    }

    /// A task that finished before it was made: the handler of a call that
    /// gathers input first finished in the request's round without asking.
    pub(crate) async fn settled(&self, outcome: Finished) -> Result<Task, ErrorData> {
        let payload = payload(Ok(outcome));
        let status = payload.status();
        let (mut task, _) = self.created(payload).await?;
        task.status = status;
        Ok(task)
    }

    /// A new task in the state `payload`, kept in the store; and when the store forgets it.
    async fn created(&self, payload: TaskPayload) -> Result<(Task, SystemTime), ErrorData> {
        let created = SystemTime::now();
        let expires_at = created + self.ttl;
        let stamp = timestamp(created);
        let task = Task::new(uuid::Uuid::new_v4().to_string(), TaskStatus::Working, stamp.clone(), stamp)
            .with_ttl_ms(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX))
            .with_poll_interval_ms(u64::try_from(self.poll_interval.as_millis()).unwrap_or(u64::MAX).max(1));
        self.store.put(DetailedTask::new(task.clone(), payload), expires_at).await.map_err(store_error)?;
        Ok((task, expires_at))
    }

    /// The state of a running task whose handler waits for `pending` (none:
    /// working), written and told unless the state shows it already. The
    /// caller holds `running.writing`.
    async fn show_pending(&self, running: &Running, pending: BTreeMap<String, InputRequest>) {
        let seed = &running.seed;
        if *lock(&running.shown) == pending {
            return;
        }
        lock(&running.shown).clone_from(&pending);
        let payload = if pending.is_empty() {
            TaskPayload::Working
        } else {
            match wire_requests(pending.clone()) {
                Ok(input_requests) => TaskPayload::InputRequired { input_requests },
                Err(err) => {
                    tracing::error!(task = seed.task_id, "an input request of the task is not MCP's: {}", err.message);
                    return;
                }
            }
        };
        let state = running.state(payload);
        match self.store.put(state.clone(), running.expires_at).await {
            Ok(()) => tell(running.listener.as_ref(), state).await,
            Err(err) => {
                tracing::error!(task = seed.task_id, code = %err.code(), "the task's state could not be stored: {err}");
            }
        }
    }

    /// The handler reported progress: the working state shows it as its
    /// `statusMessage` (what `tasks/get` gives), written unless the task
    /// waits for input or has finished. The status did not change, so no
    /// `notifications/tasks` is sent for it.
    async fn show_progress(&self, running: &Running, message: String) {
        let _writing = running.writing.lock().await;
        if lock(&running.progress).as_deref() == Some(message.as_str()) {
            return;
        }
        *lock(&running.progress) = Some(message);
        // The handler may have finished while this progress waited to write,
        // and a state that asks shows its asks, not the progress.
        if !lock(&self.running).contains_key(&running.seed.task_id) || !lock(&running.shown).is_empty() {
            return;
        }
        let state = running.state(TaskPayload::Working);
        if let Err(err) = self.store.put(state, running.expires_at).await {
            tracing::debug!(task = running.seed.task_id, code = %err.code(), "the task's progress could not be stored: {err}");
        }
    }

    /// `tasks/update`: the answers reach the handler's waiting asks, and the
    /// task's state shows what still waits before the update is acknowledged
    /// (a `tasks/get` right after sees it). Answers to keys nobody asked, and
    /// updates of a finished task, are acknowledged and dropped.
    pub(crate) async fn update(&self, task_id: &str, responses: JsonObject) -> Result<(), ErrorData> {
        self.get(task_id).await?;
        let Some(running) = lock(&self.running).get(task_id).cloned() else { return Ok(()) };
        let _writing = running.writing.lock().await;
        // The handler may have finished while this update waited to write.
        if !lock(&self.running).contains_key(task_id) {
            return Ok(());
        }
        let pending = running.round.deliver(responses);
        self.show_pending(&running, pending).await;
        Ok(())
    }

    /// Keep the `traceparent` of `span`, the call that created the task
    /// `task_id`, for the spans of its later rounds to link to; a store that
    /// cannot keep it costs them the link, not the task.
    #[cfg(feature = "otel")]
    async fn keep_trace_link(&self, task_id: &str, span: &tracing::Span, expires_at: SystemTime) {
        let Some(traceparent) = crate::telemetry::traceparent(span) else { return };
        if let Err(err) = self.store.put_trace_link(task_id, traceparent, expires_at).await {
            tracing::debug!(task = task_id, code = %err.code(), "the task's trace link could not be stored: {err}");
        }
    }

    /// Link `span`, a later round of the task `task_id`, to the call that created it.
    #[cfg(feature = "otel")]
    pub(crate) async fn link_round(&self, task_id: &str, span: &tracing::Span) {
        if span.is_disabled() {
            return;
        }
        match self.store.trace_link(task_id).await {
            Ok(Some(traceparent)) => crate::telemetry::link(span, &traceparent),
            Ok(None) => {}
            Err(err) => {
                tracing::debug!(task = task_id, code = %err.code(), "the task's trace link could not be read: {err}")
            }
        }
    }

    /// `tasks/get`.
    pub(crate) async fn get(&self, task_id: &str) -> Result<DetailedTask, ErrorData> {
        self.store.get(task_id).await.map_err(store_error)?.ok_or_else(|| unknown_task(task_id))
    }

    /// `tasks/cancel`: stop the handler if it still runs here; a finished task
    /// stays as it is. The task reads `cancelled` once the handler stopped.
    pub(crate) async fn cancel(&self, task_id: &str) -> Result<(), ErrorData> {
        let task = self.get(task_id).await?;
        if !task.status().is_terminal()
            && let Some(running) = lock(&self.running).get(task_id)
        {
            running.cancellation.cancel();
        }
        Ok(())
    }
}

impl Running {
    /// The task's state now, in `payload`: a working one with the
    /// handler's last progress as its `statusMessage`.
    fn state(&self, payload: TaskPayload) -> DetailedTask {
        let mut task = self.seed.clone();
        task.last_updated_at = timestamp(SystemTime::now());
        if matches!(payload, TaskPayload::Working) {
            task.status_message.clone_from(&lock(&self.progress));
        }
        DetailedTask::new(task, payload)
    }
}

/// The client channel of a handler that runs as a task. The tasks extension
/// (SEP-2663) carries a task's progress in its state, as the working state's
/// `statusMessage` ("progress descriptions for working"), and supports no
/// `notifications/progress` on tasks; so each progress is written there,
/// for `tasks/get`. A session whose request carried a progress token also
/// gets `notifications/progress` under it for the task's lifetime, as the
/// 2025-11-25 revision's tasks did ("the progressToken provided in the
/// initial request remains valid throughout the task lifetime"): a stateless
/// request has no stream left to send them on. Log messages and requests to
/// the client have no stream either: asks go through the task's input round.
struct TaskChannel {
    tasks: Tasks,
    running: Running,
    token: Option<ProgressToken>,
}

impl ClientChannel for TaskChannel {
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let described = progress_message(progress, total, message.as_deref());
            self.tasks.show_progress(&self.running, described).await;
            let (Some(session), Some(token)) = (&self.running.listener, &self.token) else { return };
            let token = rmcp::model::ProgressToken(match token {
                ProgressToken::Number(number) => NumberOrString::Number(*number),
                ProgressToken::String(text) => NumberOrString::String(text.as_str().into()),
            });
            let mut param = ProgressNotificationParam::new(token, progress);
            param.total = total;
            param.message = message;
            let sent = tokio::time::timeout(
                crate::server::dispatch::changes::DEFAULT_SEND_TIMEOUT,
                session.notify_progress(param),
            );
            if !matches!(sent.await, Ok(Ok(()))) {
                tracing::debug!(task = self.running.seed.task_id, "the task's progress notification was not sent");
            }
        })
    }

    fn log(&self, level: LogLevel, data: serde_json::Value) -> BoxFuture<'_, ()> {
        let _ = (level, data);
        Box::pin(std::future::ready(()))
    }
}

/// A task's `statusMessage` for a progress report: `Exporting (3 of 7)`,
/// `3 of 7`, or the bare count when the total is unknown.
fn progress_message(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let count = match total {
        Some(total) => format!("{progress} of {total}"),
        None => format!("{progress}"),
    };
    match message {
        Some(message) if !message.trim().is_empty() => format!("{message} ({count})"),
        _ => count,
    }
}

/// Tell `listener` (the session that started the task) its new `state`,
/// once the store holds it: a client that reads `tasks/get` on the
/// notification finds the same. Bounded: a session that does not read its
/// stream delays the task by at most [`DEFAULT_SEND_TIMEOUT`](crate::server::dispatch::changes::DEFAULT_SEND_TIMEOUT),
/// and a lost notification costs nothing `tasks/get` cannot tell.
async fn tell(listener: Option<&Peer<RoleServer>>, state: DetailedTask) {
    let Some(session) = listener else { return };
    let task = state.task.task_id.clone();
    let notification = ServerNotification::TaskStatusNotification(TaskStatusNotification::new(
        TaskStatusNotificationParams::new(state),
    ));
    match tokio::time::timeout(
        crate::server::dispatch::changes::DEFAULT_SEND_TIMEOUT,
        session.send_notification(notification),
    )
    .await
    {
        Ok(Ok(())) => {}
        Ok(Err(err)) => tracing::debug!(task, "the task's status notification was not sent: {err}"),
        Err(_) => tracing::debug!(task, "the task's status notification timed out: the session does not read"),
    }
}

/// The final state of a task whose handler ended with `outcome`.
fn payload(outcome: Result<Finished, Cancelled>) -> TaskPayload {
    match outcome {
        Ok(Finished::Complete(result)) => TaskPayload::Completed { result: result_object(&result) },
        // A protocol error of the handler: the task failed, where a tool
        // error is a completed task with an error result.
        Ok(Finished::Failed(error)) => TaskPayload::Failed { error: error_object(&error) },
        // No round was driven: a task's asks wait rather than end one.
        Ok(Finished::Ended(_)) => TaskPayload::Completed {
            result: result_object(&crate::server::wire::error_result(&McpError::internal_error(
                "The task ended a round of input, which a task does not have.",
            ))),
        },
        Err(Cancelled(_)) => TaskPayload::Cancelled,
    }
}

/// A tool result as a task's `result`.
fn result_object(result: &CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(mut object)) => {
            // The result stands for the call's own answer, whose shape the
            // transport settles; the tasks/get envelope has its own resultType.
            object.remove("resultType");
            object
        }
        _ => JsonObject::new(),
    }
}

/// A JSON-RPC error as a failed task's `error`: `{code, message, data?}`.
fn error_object(error: &ErrorData) -> JsonObject {
    match serde_json::to_value(error) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => JsonObject::from_iter([
            ("code".to_owned(), error.code.0.into()),
            ("message".to_owned(), error.message.to_string().into()),
        ]),
    }
}

fn unknown_task(task_id: &str) -> ErrorData {
    let task_id = crate::define::cap_quoted(task_id);
    ErrorData::invalid_params(
        format!("No task `{task_id}`: it never existed or its time to live has passed."),
        Some(serde_json::json!({ "taskId": task_id })),
    )
}

fn store_error(err: McpError) -> ErrorData {
    ErrorData::new(ErrorCode(err.code().as_i32()), err.message().to_owned(), None)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `time` as ISO 8601 in UTC to the millisecond, e.g. `2026-12-01T12:25:16.123Z`.
pub(crate) fn timestamp(time: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(time).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_millis(951_782_400_250); // 2000-02-29
        assert_eq!(timestamp(leap), "2000-02-29T00:00:00.250Z");
        let later = UNIX_EPOCH + Duration::from_secs(1_796_127_916); // 2026-12-01T12:25:16Z
        assert_eq!(timestamp(later), "2026-12-01T12:25:16.000Z");
    }

    #[test]
    fn a_progress_report_reads_as_a_status_message() {
        assert_eq!(progress_message(3.0, Some(7.0), Some("Exporting")), "Exporting (3 of 7)");
        assert_eq!(progress_message(0.5, Some(1.0), None), "0.5 of 1");
        assert_eq!(progress_message(12.0, None, Some("  ")), "12");
    }
}
