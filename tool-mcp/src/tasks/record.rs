//! One task as a store keeps it ([`TaskRecord`]), and as the protocol shows it.

use std::collections::BTreeMap;
use std::time::Duration;

use jiff::Timestamp;
use rmcp::model::{DetailedTask, InputRequests, JsonObject, Task, TaskPayload, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::caller::ANONYMOUS_OWNER;

/// One task: whose it is, where it stands, and what it produced, as a [`TaskStore`]
/// keeps it (it serializes to JSON).
///
/// The server writes it; a store only keeps it, expires it at
/// [`expires_at`](Self::expires_at), and replaces it only over the
/// [`revision`](Self::revision) the writer read (see [`TaskStore::replace`]).
///
/// ```
/// use serde_json::json;
/// use toolwright_mcp::tasks::TaskRecord;
///
/// let record: TaskRecord = serde_json::from_value(json!({
///     "id": "5f1d0c2e9a7b4c3d8e6f5a4b3c2d1e0f", "owner": "anonymous", "tool": "export_all",
///     "status": "working", "created_at": "2026-07-28T10:00:00Z",
///     "updated_at": "2026-07-28T10:00:00Z", "expires_at": "2026-07-28T11:00:00Z",
///     "ttl_ms": 3600000, "poll_interval_ms": 1000, "revision": 0
/// }))
/// .unwrap();
/// assert!(!record.status.is_terminal());
/// assert!(record.input_requests.is_empty());
/// ```
///
/// [`TaskStore`]: super::TaskStore
/// [`TaskStore::replace`]: super::TaskStore::replace
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: 128 random bits, hex. Unguessable, and never shown to anyone but its
    /// owner.
    pub id: String,
    /// Who may read, answer and cancel it: [`Principal::owner`](crate::Principal::owner) of
    /// the caller that created it, or [`ANONYMOUS_OWNER`]. A task is not found by anyone
    /// else.
    pub owner: String,
    /// The tool the task runs.
    pub tool: String,
    /// Where the task stands.
    pub status: TaskStatus,
    /// What the client is told about it, when the server has something to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// When it is no longer kept: [`created_at`](Self::created_at) plus its time to live.
    pub expires_at: Timestamp,
    /// Its time to live from creation, in milliseconds (what clients see as `ttlMs`).
    pub ttl_ms: u64,
    /// How often clients should poll it, in milliseconds.
    pub poll_interval_ms: u64,
    /// For a `completed` task: the `CallToolResult`, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// For a `failed` task: the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JsonObject>,
    /// The requests the client must answer (with `tasks/update`) before the task goes on,
    /// by key: `{"method": "elicitation/create", "params": ...}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_requests: BTreeMap<String, Value>,
    /// Answers the client gave that the replica running the task has not taken yet.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_responses: BTreeMap<String, Value>,
    /// Whether the client asked to cancel it (`tasks/cancel`): the replica running it stops
    /// it when it sees this.
    #[serde(default)]
    pub cancel_requested: bool,
    /// How many times it was written: a write replaces the record only over the revision
    /// it read.
    pub revision: u64,
}

impl TaskRecord {
    /// A new `working` task of `tool` for `owner`, kept `ttl` from now.
    pub(crate) fn new(
        id: String,
        owner: String,
        tool: String,
        ttl: Duration,
        poll_interval: Duration,
    ) -> TaskRecord {
        let now = Timestamp::now();
        let ttl_ms = millis(ttl);
        TaskRecord {
            id,
            owner,
            tool,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            updated_at: now,
            expires_at: expiry(now, ttl_ms),
            ttl_ms,
            poll_interval_ms: millis(poll_interval).max(1),
            result: None,
            error: None,
            input_requests: BTreeMap::new(),
            input_responses: BTreeMap::new(),
            cancel_requested: false,
            revision: 0,
        }
    }

    /// Whether the task is no longer kept at `now`.
    ///
    /// ```
    /// # use serde_json::json;
    /// # let record: toolwright_mcp::tasks::TaskRecord = serde_json::from_value(json!({
    /// #     "id": "a", "owner": "anonymous", "tool": "t", "status": "completed",
    /// #     "created_at": "2026-07-28T10:00:00Z", "updated_at": "2026-07-28T10:00:00Z",
    /// #     "expires_at": "2026-07-28T11:00:00Z", "ttl_ms": 3600000, "poll_interval_ms": 1000,
    /// #     "revision": 3
    /// # })).unwrap();
    /// assert!(record.is_expired("2026-07-28T11:00:00Z".parse().unwrap()));
    /// assert!(!record.is_expired("2026-07-28T10:59:59Z".parse().unwrap()));
    /// ```
    pub fn is_expired(&self, now: Timestamp) -> bool {
        self.expires_at <= now
    }

    /// The task as `CreateTaskResult` and `tasks/get` show it, without its payload.
    pub(crate) fn task(&self) -> Task {
        let mut task = Task::new(
            self.id.clone(),
            self.status,
            self.created_at.to_string(),
            self.updated_at.to_string(),
        )
        .with_ttl_ms(self.ttl_ms)
        .with_poll_interval_ms(self.poll_interval_ms);
        task.status_message.clone_from(&self.status_message);
        task
    }

    /// The task as `tasks/get` answers it: the result of a completed task, the error of a
    /// failed one, the requests of one waiting for input.
    pub(crate) fn detailed(&self) -> DetailedTask {
        let payload = match self.status {
            TaskStatus::Completed => TaskPayload::Completed {
                result: self.result.clone().unwrap_or_default(),
            },
            TaskStatus::Failed => TaskPayload::Failed {
                error: self.error.clone().unwrap_or_default(),
            },
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            TaskStatus::InputRequired => TaskPayload::InputRequired {
                input_requests: self.input_requests(),
            },
            _ => TaskPayload::Working,
        };
        DetailedTask::new(self.task(), payload)
    }

    /// The outstanding requests in rmcp's types (one this version cannot read, which only
    /// another version of the server could have written, is left out).
    fn input_requests(&self) -> InputRequests {
        self.input_requests
            .iter()
            .filter_map(|(key, request)| match serde_json::from_value(request.clone()) {
                Ok(request) => Some((key.clone(), request)),
                Err(error) => {
                    tracing::warn!(task = %self.id, key, %error, "an input request of a task is not one this server can send; left out");
                    None
                }
            })
            .collect()
    }
}

/// A duration in whole milliseconds, at most `u64::MAX`.
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `from` plus `ttl_ms`, or the latest time there is.
fn expiry(from: Timestamp, ttl_ms: u64) -> Timestamp {
    i64::try_from(ttl_ms)
        .ok()
        .and_then(|ms| from.checked_add(jiff::SignedDuration::from_millis(ms)).ok())
        .unwrap_or(Timestamp::MAX)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record() -> TaskRecord {
        TaskRecord::new(
            "t1".to_owned(),
            ANONYMOUS_OWNER.to_owned(),
            "export".to_owned(),
            Duration::from_secs(60),
            Duration::from_millis(500),
        )
    }

    #[test]
    fn a_new_task_works_and_expires_after_its_ttl() {
        let record = record();
        assert_eq!(record.status, TaskStatus::Working);
        assert_eq!(record.ttl_ms, 60_000);
        assert_eq!(
            record.expires_at.duration_since(record.created_at),
            jiff::SignedDuration::from_secs(60)
        );
        let shown = serde_json::to_value(record.task()).unwrap();
        assert_eq!(shown["taskId"], "t1");
        assert_eq!(shown["status"], "working");
        assert_eq!(shown["ttlMs"], 60_000);
        assert_eq!(shown["pollIntervalMs"], 500);
    }

    #[test]
    fn a_huge_ttl_expires_at_the_end_of_time() {
        let record = TaskRecord::new(
            "t".into(),
            "o".into(),
            "x".into(),
            Duration::MAX,
            Duration::ZERO,
        );
        assert_eq!(record.expires_at, Timestamp::MAX);
        assert_eq!(record.poll_interval_ms, 1);
    }

    #[test]
    fn the_payload_follows_the_status() {
        let mut record = record();
        record.status = TaskStatus::Completed;
        record.result = Some(
            json!({"content": [{"type": "text", "text": "ok"}], "isError": false})
                .as_object()
                .unwrap()
                .clone(),
        );
        let shown = serde_json::to_value(record.detailed()).unwrap();
        assert_eq!(shown["status"], "completed");
        assert_eq!(shown["result"]["content"][0]["text"], "ok");

        record.status = TaskStatus::InputRequired;
        record.input_requests.insert(
            "approval-1".into(),
            json!({"method": "elicitation/create", "params": {
                "mode": "form", "message": "Approve?",
                "requestedSchema": {"type": "object", "properties": {}}}}),
        );
        record
            .input_requests
            .insert("broken".into(), json!({"method": 7}));
        let shown = serde_json::to_value(record.detailed()).unwrap();
        assert_eq!(shown["status"], "input_required");
        assert_eq!(
            shown["inputRequests"]["approval-1"]["params"]["message"],
            "Approve?"
        );
        assert!(shown["inputRequests"].get("broken").is_none());
    }
}
