//! Deferred approvals: calls an approval handler answered "later" with
//! [`ApprovalDecision::Defer`](super::ApprovalDecision::Defer), kept until a person decides
//! and the application calls [`Executor::resume`](super::Executor::resume).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::approval::ApprovalRequest;
use crate::call::{PendingApproval, ToolCall};
use crate::safety::SafetyLevel;

/// How long a deferred call waits for a decision unless the executor says otherwise
/// ([`ExecutorBuilder::pending_approval_ttl`](crate::ExecutorBuilder::pending_approval_ttl)):
/// one hour.
pub const DEFAULT_PENDING_APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// How many deferred calls one executor keeps at most unless it says otherwise
/// ([`ExecutorBuilder::max_pending_approvals`](crate::ExecutorBuilder::max_pending_approvals));
/// beyond it, a deferral is refused, so a model cannot fill the memory with calls nobody
/// will approve.
pub const DEFAULT_MAX_PENDING_APPROVALS: usize = 1024;

/// A call waiting for a person's decision: what to show them (`request`, secrets redacted,
/// with the tool's preview), and what to run once they decide (`call`, as the model sent it).
///
/// It serializes to JSON, so an application can keep it somewhere else (a database, a job
/// queue) with [`Executor::take_pending`](super::Executor::take_pending) and run it later,
/// even in another process, with [`Executor::resume_call`](super::Executor::resume_call).
/// **`call.arguments` holds the model's arguments unredacted** (secrets included): store it
/// as you would store those secrets.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::executor::PendingCall;
///
/// let text = r#"{"token":"t","call":{"id":"c1","name":"wipe","arguments":{}},
///   "request":{"call_id":"c1","tool":"wipe","description":"Wipe.","safety":"dangerous","arguments":{}},
///   "expires_at":"2030-01-01T00:00:00Z"}"#;
/// let pending: PendingCall = serde_json::from_str(text).unwrap();
/// assert_eq!(pending.call.id, "c1");
/// assert_eq!(pending.max_safety, None);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// The token that names this call in [`Executor::resume`](super::Executor::resume): 128
    /// random bits, hex. Whoever holds it can have the call run: show it only to whoever may
    /// approve.
    pub token: String,
    /// The call as the model sent it (its id is kept: the result carries it).
    pub call: ToolCall,
    /// What the approval handler was asked (arguments after guardrails, secrets redacted).
    pub request: ApprovalRequest,
    /// The caller's safety ceiling ([`CallOptions::max_safety`](super::CallOptions::max_safety)),
    /// applied again when the call is resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_safety: Option<SafetyLevel>,
    /// When the call stops waiting: after it, resuming fails with
    /// [`ResumeError::Expired`].
    pub expires_at: jiff::Timestamp,
}

/// Why a deferred call could not be resumed.
///
/// ```
/// use tool_runtime::executor::ResumeError;
///
/// let err = ResumeError::UnknownToken;
/// assert!(err.to_string().contains("no call is waiting"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// No call waits under this token: it was never issued by this executor, was already
    /// resumed or taken, or expired and was dropped.
    #[error(
        "no call is waiting for approval under this token (already decided, taken, expired, or \
         never issued by this executor)"
    )]
    UnknownToken,
    /// The call waited past its expiry; it was dropped without running.
    #[error("the call `{call_id}` stopped waiting for approval at {expired_at}; it was not run")]
    Expired {
        /// The call's id.
        call_id: String,
        /// When it expired.
        expired_at: jiff::Timestamp,
    },
    /// `resume` was given [`ApprovalDecision::Defer`](super::ApprovalDecision::Defer): a
    /// decision must approve, modify or deny.
    #[error(
        "`Defer` is not a decision for a waiting call: resume it with `Approved`, `Modified` or \
         `Denied`, or leave it waiting"
    )]
    DeferredAgain,
}

/// The calls waiting for approval, by token.
#[derive(Debug)]
pub(super) struct PendingCalls {
    calls: Mutex<HashMap<String, PendingCall>>,
    pub(super) ttl: Duration,
    pub(super) max: usize,
}

impl PendingCalls {
    pub(super) fn new(ttl: Duration, max: usize) -> Self {
        PendingCalls {
            calls: Mutex::default(),
            ttl,
            max,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, PendingCall>> {
        // Nothing panics while the lock is held; the map is valid between operations.
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `call` waiting, after dropping the expired ones; `None` when the store is full
    /// or the system has no randomness for a token.
    pub(super) fn insert(
        &self,
        call: ToolCall,
        request: ApprovalRequest,
        max_safety: Option<SafetyLevel>,
    ) -> Option<PendingApproval> {
        let now = jiff::Timestamp::now();
        let expires_at = jiff::SignedDuration::try_from(self.ttl)
            .ok()
            .and_then(|ttl| now.checked_add(ttl).ok())
            .unwrap_or(jiff::Timestamp::MAX);
        let token = new_token()?;
        let mut calls = self.lock();
        calls.retain(|_, pending| pending.expires_at > now);
        if calls.len() >= self.max {
            return None;
        }
        calls.insert(
            token.clone(),
            PendingCall {
                token: token.clone(),
                call,
                request,
                max_safety,
                expires_at,
            },
        );
        Some(PendingApproval { token, expires_at })
    }

    /// The waiting calls that have not expired, oldest expiry first.
    pub(super) fn list(&self) -> Vec<PendingCall> {
        let now = jiff::Timestamp::now();
        let mut calls: Vec<PendingCall> = self
            .lock()
            .values()
            .filter(|pending| pending.expires_at > now)
            .cloned()
            .collect();
        calls.sort_by(|a, b| a.expires_at.cmp(&b.expires_at).then(a.token.cmp(&b.token)));
        calls
    }

    /// Removes and returns the call waiting under `token` (expired or not).
    pub(super) fn take(&self, token: &str) -> Option<PendingCall> {
        self.lock().remove(token)
    }
}

/// 128 random bits from the operating system, as 32 hex digits.
fn new_token() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> ApprovalRequest {
        serde_json::from_value(json!({"call_id": "c", "tool": "t", "description": "T.",
            "safety": "dangerous", "arguments": {}}))
        .unwrap()
    }

    #[test]
    fn tokens_are_unique_and_the_store_is_bounded() {
        let store = PendingCalls::new(DEFAULT_PENDING_APPROVAL_TTL, 3);
        let call = || ToolCall::new("c", "t", json!({}));
        let tokens: Vec<String> = (0..3)
            .map(|_| store.insert(call(), request(), None).unwrap().token)
            .collect();
        assert!(tokens.iter().all(|t| t.len() == 32));
        assert_ne!(tokens[0], tokens[1]);
        assert!(store.insert(call(), request(), None).is_none(), "full");
        assert!(store.take(&tokens[0]).is_some());
        assert!(store.take(&tokens[0]).is_none(), "taken once");
        assert!(store.insert(call(), request(), None).is_some());
        assert_eq!(store.list().len(), 3);
    }

    #[test]
    fn expired_calls_make_room_and_are_not_listed() {
        let store = PendingCalls::new(Duration::ZERO, 1);
        let call = || ToolCall::new("c", "t", json!({}));
        let first = store.insert(call(), request(), None).unwrap();
        assert!(store.list().is_empty(), "expired at once");
        // The expired call is dropped to make room.
        let second = store.insert(call(), request(), None).unwrap();
        assert!(store.take(&first.token).is_none());
        assert!(store.take(&second.token).is_some());
    }
}
