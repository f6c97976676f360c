//! What a replica reads back of the records any replica wrote. Another
//! version of the server, a write cut short or a hand edit in Redis may have
//! left a record that does not read back: each read gives an error, or skips
//! the record, and never panics (the fuzz target `redis_record` holds that).

use std::collections::HashMap;
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, DetailedTask, ServerJsonRpcMessage, TaskPayload};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::{EventStoreError, SessionState, SessionStoreError};

use crate::error::McpError;

/// A session's `state` field: its `initialize`, as rmcp stores it.
pub(crate) fn session_state(state: &str) -> Result<SessionState, SessionStoreError> {
    Ok(serde_json::from_str(state)?)
}

/// A `Last-Event-ID` of this store, `{stream id}#{Redis entry id}`, split.
pub(crate) fn event_id(last_event_id: &str) -> Result<(&str, &str), EventStoreError> {
    let Some((stream_id, entry)) = last_event_id.rsplit_once('#') else {
        return Err("not an event id of this server".into());
    };
    if entry_millis(entry).is_none() {
        return Err("this event was sent while the store was down and cannot be replayed".into());
    }
    Ok((stream_id, entry))
}

/// The id of a priming event, which is not written: the entry `0-{sent}`
/// (`sent` in Unix milliseconds) sorts before every entry Redis makes.
pub(crate) fn priming_id(stream_id: &str, sent: u64) -> String {
    format!("{stream_id}#0-{sent}")
}

/// When the priming event whose entry is `entry` was sent (Unix
/// milliseconds); `None` for an entry Redis made.
pub(crate) fn priming_sent(entry: &str) -> Option<u64> {
    entry.strip_prefix("0-")?.parse().ok()
}

/// The milliseconds of a Redis stream entry id (`{ms}-{seq}`), `None` for
/// anything else.
pub(crate) fn entry_millis(entry: &str) -> Option<u64> {
    let (ms, seq) = entry.split_once('-')?;
    seq.parse::<u64>().ok()?;
    ms.parse().ok()
}

/// The event of the Redis stream entry `entry` of `stream_id`, `None` when it
/// is older than `oldest` (milliseconds) or does not read back: only this
/// server writes the stream, so such an entry is skipped.
pub(crate) fn event(
    stream_id: &str,
    entry: &str,
    fields: &HashMap<String, String>,
    oldest: u64,
) -> Option<ServerSseMessage> {
    if entry_millis(entry).is_none_or(|at| at < oldest) {
        return None;
    }
    let id = format!("{stream_id}#{entry}");
    if let Some(message) = fields.get("message") {
        let message = serde_json::from_str::<ServerJsonRpcMessage>(message).ok()?;
        return Some(ServerSseMessage::new(id, message));
    }
    let retry = fields.get("retry").and_then(|ms| ms.parse().ok()).map(Duration::from_millis);
    let mut event = ServerSseMessage::retry(retry.unwrap_or_default());
    event.retry = retry;
    event.event_id = Some(id);
    Some(event)
}

/// A stored task, and whether it may still finish (`runs`: 0 when the
/// replica that last stored it stopped): a task still working whose replica
/// stopped reads back as failed, so its client learns it will never finish.
pub(crate) fn task(task: &str, runs: i64) -> Result<DetailedTask, McpError> {
    let mut task: DetailedTask = serde_json::from_str(task)
        .map_err(|err| McpError::serialization_error(format!("A stored task does not read back: {err}")))?;
    if runs == 0 && matches!(task.payload, TaskPayload::Working | TaskPayload::InputRequired { .. }) {
        let lost = McpError::service_unavailable(
            "The server replica running this task stopped before it finished; the task will not finish.",
        )
        .with_recovery_hint("Start the task again; check first whether its work took effect.");
        let error = match serde_json::to_value(crate::server::wire::envelope(&lost)) {
            Ok(serde_json::Value::Object(error)) => error,
            _ => serde_json::Map::new(),
        };
        // After Redis lost the replicas' keys (a restart without
        // them), a replica's next renewal, within a second, brings
        // its key back: a task read in that second reads as failed.
        task.task.status_message = Some(lost.message().to_owned());
        task = DetailedTask::new(task.task, TaskPayload::Failed { error });
    }
    Ok(task)
}

/// A running call's request, kept so that another replica can answer it.
pub(crate) fn call_request(request: &str) -> Result<ClientJsonRpcMessage, serde_json::Error> {
    serde_json::from_str(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_are_read_strictly() {
        assert_eq!(entry_millis("1700000000000-3"), Some(1_700_000_000_000));
        assert_eq!(entry_millis("~abc-1"), None);
        assert_eq!(entry_millis("12"), None);
        assert_eq!(entry_millis("12-x"), None);
    }

    #[test]
    fn records_cut_short_are_errors() {
        let working = rmcp::model::Task::new("t", rmcp::model::TaskStatus::Working, "2026-01-01", "2026-01-01");
        let stored = serde_json::to_string(&DetailedTask::new(working, TaskPayload::Working)).expect("serializes");
        let lost = super::task(&stored, 0).expect("reads back");
        assert!(matches!(lost.payload, TaskPayload::Failed { .. }), "its replica stopped: {lost:?}");
        for end in 0..stored.len() {
            assert!(super::task(&stored[..end], 1).is_err(), "{}", &stored[..end]);
        }
        assert!(session_state("{\"initialize\":").is_err());
        assert!(call_request("{\"jsonrpc\":\"2.0\",\"id\":1,").is_err());
        let fields = HashMap::from([("message".to_owned(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"res".to_owned())]);
        assert!(event("s", "1700000000000-3", &fields, 0).is_none());
        let fields = HashMap::from([("retry".to_owned(), "x".to_owned())]);
        let retry = event("s", "1700000000000-3", &fields, 0).expect("a retry with no delay");
        assert_eq!(retry.event_id.as_deref(), Some("s#1700000000000-3"));
        assert!(event_id("a#b#12").is_err());
        assert_eq!(event_id("a#b#12-0").ok(), Some(("a#b", "12-0")));
    }
}
