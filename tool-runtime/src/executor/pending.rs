//! Deferred approvals: calls an approval handler answered "later" with
//! [`ApprovalDecision::Defer`](super::ApprovalDecision::Defer), kept until a person decides
//! and the application calls [`Executor::resume`](super::Executor::resume).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

use super::approval::ApprovalRequest;
use toolwright_core::PendingApproval;
use toolwright_core::SafetyLevel;
use toolwright_core::ToolCall;

/// How long a deferred call waits for a decision unless the executor says otherwise
/// ([`ExecutorBuilder::pending_approval_ttl`](crate::ExecutorBuilder::pending_approval_ttl)):
/// one hour.
pub const DEFAULT_PENDING_APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// How many deferred calls one executor keeps at most unless it says otherwise
/// ([`ExecutorBuilder::max_pending_approvals`](crate::ExecutorBuilder::max_pending_approvals));
/// beyond it, a deferral is refused, so a model cannot fill the memory with calls nobody
/// will approve.
pub const DEFAULT_MAX_PENDING_APPROVALS: usize = 1024;

/// The shortest key [`ExecutorBuilder::pending_key`](crate::ExecutorBuilder::pending_key)
/// takes: 32 bytes (256 bits, the size of HMAC-SHA256's output).
pub const MIN_PENDING_KEY_LEN: usize = 32;

/// A call waiting for a person's decision: what to show them (`request`, secrets redacted,
/// with the tool's preview), and what to run once they decide (`call`, as the model sent it).
///
/// It serializes to JSON, so an application can keep it somewhere else (a database, a job
/// queue) with [`Executor::take_pending`](super::Executor::take_pending) and run it later
/// with [`Executor::resume_call`](super::Executor::resume_call): in the same process, or in
/// another one whose executor has the same
/// [`pending_key`](crate::ExecutorBuilder::pending_key).
/// **`call.arguments` holds the model's arguments unredacted** (secrets included): store it
/// as you would store those secrets.
///
/// It cannot be forged: `mac` is an HMAC-SHA256, under the executor's pending key, of every
/// other field (the tool, its arguments, the call's id, what the person was shown, the token,
/// the ceiling, the expiry). `resume_call` refuses a call whose `mac` does not verify
/// ([`ResumeError::Unverified`]: edited, made up, or signed with another key) and a token it
/// has already resumed ([`ResumeError::AlreadyResumed`]). Any change to a field, even one that
/// seems harmless, makes the call unresumable; keep it as the executor gave it (its JSON may
/// be reformatted: keys are compared in a canonical order).
///
/// ```
/// use serde_json::json;
/// use toolwright_runtime::executor::PendingCall;
///
/// let text = r#"{"token":"t","call":{"id":"c1","name":"wipe","arguments":{}},
///   "request":{"call_id":"c1","tool":"wipe","description":"Wipe.","safety":"dangerous","arguments":{}},
///   "expires_at":"2030-01-01T00:00:00Z","mac":"00"}"#;
/// // It reads, but no executor would run it: the MAC is not one of an executor's.
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
    /// HMAC-SHA256 of every other field (in a canonical JSON form) under the executor's
    /// pending key, hex. Empty in JSON stored before pending calls were signed: such a call
    /// is refused as [`ResumeError::Unverified`].
    #[serde(default)]
    pub mac: String,
}

/// Why a deferred call could not be resumed.
///
/// ```
/// use toolwright_runtime::executor::ResumeError;
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
        "`Defer` and `InputRequired` are not decisions for a waiting call: resume it with \
         `Approved`, `Modified` or `Denied`, or leave it waiting"
    )]
    DeferredAgain,
    /// The call's `mac` does not verify under this executor's pending key: a field was
    /// changed after the executor signed it, the call was made up, or it was signed by an
    /// executor with another key (by default each process has a random key of its own).
    /// Nothing ran.
    #[error(
        "the waiting call `{}` was not run: its MAC does not verify under this executor's \
         pending key (it was changed after it was taken, was not made by an executor, or was \
         signed with another key); resume a call only as the executor gave it, and give every \
         executor that resumes another's calls the same `ExecutorBuilder::pending_key`",
        toolwright_names::escape::escape(.call_id)
    )]
    Unverified {
        /// The call's id, as the refused call says (not to be trusted).
        call_id: String,
    },
    /// The call's token was already resumed (by this process, or by this executor's store):
    /// a decided call runs at most once. Nothing ran.
    #[error(
        "the waiting call `{}` was not run: it was already resumed once, and a decided call \
         does not run again; call the tool again for a new approval",
        toolwright_names::escape::escape(.call_id)
    )]
    AlreadyResumed {
        /// The call's id.
        call_id: String,
    },
}

/// The key that signs pending calls: the one given to the builder, or the process's own.
#[derive(Clone)]
pub(super) struct PendingKey(Option<Arc<[u8]>>);

impl std::fmt::Debug for PendingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key's bytes.
        f.write_str("PendingKey(..)")
    }
}

impl PendingKey {
    /// `key`, as given to [`ExecutorBuilder::pending_key`](crate::ExecutorBuilder::pending_key).
    pub(super) fn given(key: &[u8]) -> Self {
        PendingKey(Some(Arc::from(key)))
    }

    /// The process's random key, made once; `None` inside when the system has no randomness
    /// (then no call can be deferred, as without a token).
    pub(super) fn process() -> Self {
        static KEY: OnceLock<Option<Arc<[u8]>>> = OnceLock::new();
        PendingKey(
            KEY.get_or_init(|| {
                let mut bytes = [0u8; MIN_PENDING_KEY_LEN];
                getrandom::fill(&mut bytes).ok()?;
                Some(Arc::from(&bytes[..]))
            })
            .clone(),
        )
    }

    /// The MAC of `pending`'s fields but `mac`, ready to be finished or verified; `None`
    /// without a key or when the call does not serialize.
    fn mac_of(&self, pending: &PendingCall) -> Option<Hmac<Sha256>> {
        let key = self.0.as_deref()?;
        let mut value = serde_json::to_value(pending).ok()?;
        if let Value::Object(fields) = &mut value {
            fields.remove("mac");
        }
        let mut text = String::from("toolwright-runtime pending call v1\n");
        canonical(&value, &mut text);
        let mut mac = Hmac::<Sha256>::new_from_slice(key).ok()?;
        mac.update(text.as_bytes());
        Some(mac)
    }

    /// `pending`'s MAC, hex; `None` without a key.
    fn sign(&self, pending: &PendingCall) -> Option<String> {
        let bytes = self.mac_of(pending)?.finalize().into_bytes();
        Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Whether `pending.mac` is its MAC under this key (compared in constant time).
    pub(super) fn verify(&self, pending: &PendingCall) -> bool {
        let Some(tag) = from_hex(&pending.mac) else {
            return false;
        };
        self.mac_of(pending)
            .is_some_and(|mac| mac.verify_slice(&tag).is_ok())
    }
}

/// `value` as JSON with every object's keys in byte order, so a stored call whose JSON was
/// reordered (a database's JSON type) still verifies.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(fields) => {
            let mut keys: Vec<&String> = fields.keys().collect();
            keys.sort();
            out.push('{');
            for (n, key) in keys.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(field) = fields.get(key) {
                    canonical(field, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Bytes from hex digits; `None` for anything else.
fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect()
}

/// The tokens this process resumed, with their calls' expiry: after it, a token is refused
/// as expired anyway, so it is forgotten. Shared by every executor of the process, as the
/// default key is.
fn resumed() -> std::sync::MutexGuard<'static, HashMap<String, jiff::Timestamp>> {
    static RESUMED: OnceLock<Mutex<HashMap<String, jiff::Timestamp>>> = OnceLock::new();
    // Nothing panics while the lock is held; the map is valid between operations.
    RESUMED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The calls waiting for approval, by token, and the key that signs them.
#[derive(Debug)]
pub(super) struct PendingCalls {
    calls: Mutex<HashMap<String, PendingCall>>,
    pub(super) key: PendingKey,
    pub(super) ttl: Duration,
    pub(super) max: usize,
}

impl PendingCalls {
    pub(super) fn new(ttl: Duration, max: usize, key: PendingKey) -> Self {
        PendingCalls {
            calls: Mutex::default(),
            key,
            ttl,
            max,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, PendingCall>> {
        // Nothing panics while the lock is held; the map is valid between operations.
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `call` waiting, signed, after dropping the expired ones; `None` when the store
    /// is full or the system has no randomness for a token or a key.
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
        let mut pending = PendingCall {
            token: token.clone(),
            call,
            request,
            max_safety,
            expires_at,
            mac: String::new(),
        };
        pending.mac = self.key.sign(&pending)?;
        calls.insert(token.clone(), pending);
        Some(PendingApproval::new(token, expires_at))
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

    /// Marks `pending`'s token resumed, once: `false` when it already was. Its copy still
    /// waiting here (a call listed and resumed by value) is dropped.
    pub(super) fn claim(&self, pending: &PendingCall) -> bool {
        let now = jiff::Timestamp::now();
        {
            let mut resumed = resumed();
            resumed.retain(|_, expires_at| *expires_at > now);
            if resumed.contains_key(&pending.token) {
                return false;
            }
            resumed.insert(pending.token.clone(), pending.expires_at);
        }
        self.take(&pending.token);
        true
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
        let store = PendingCalls::new(DEFAULT_PENDING_APPROVAL_TTL, 3, PendingKey::process());
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
        let store = PendingCalls::new(Duration::ZERO, 1, PendingKey::process());
        let call = || ToolCall::new("c", "t", json!({}));
        let first = store.insert(call(), request(), None).unwrap();
        assert!(store.list().is_empty(), "expired at once");
        // The expired call is dropped to make room.
        let second = store.insert(call(), request(), None).unwrap();
        assert!(store.take(&first.token).is_none());
        assert!(store.take(&second.token).is_some());
    }

    #[test]
    fn calls_are_signed_over_every_field_and_verify_in_any_key_order() {
        let key = PendingKey::given(&[7; 32]);
        let store = PendingCalls::new(DEFAULT_PENDING_APPROVAL_TTL, 8, key.clone());
        let call = ToolCall::new("c", "t", json!({"b": 1, "a": [1, {"y": 2, "x": 3}]}));
        let token = store.insert(call, request(), None).unwrap().token;
        let pending = store.take(&token).unwrap();
        assert_eq!(pending.mac.len(), 64);
        assert!(key.verify(&pending));
        // Reordered keys (as a database's JSON type may store them): still the same call.
        let mut value = serde_json::to_value(&pending).unwrap();
        value["call"]["arguments"] = json!({"a": [1, {"x": 3, "y": 2}], "b": 1});
        let reordered: PendingCall = serde_json::from_value(value).unwrap();
        assert!(key.verify(&reordered));
        // Any field changed: refused.
        let mut edits: Vec<PendingCall> = Vec::new();
        let changes: [fn(&mut PendingCall); 9] = [
            |p: &mut PendingCall| p.token.push('0'),
            |p: &mut PendingCall| p.call.id.push('x'),
            |p: &mut PendingCall| p.call.name = "u".into(),
            |p: &mut PendingCall| p.call.arguments["b"] = json!(2),
            |p: &mut PendingCall| p.request.preview = Some("other".into()),
            |p: &mut PendingCall| p.max_safety = Some(SafetyLevel::Dangerous),
            |p: &mut PendingCall| p.expires_at = jiff::Timestamp::MAX,
            |p: &mut PendingCall| p.mac = "zz".repeat(32),
            |p: &mut PendingCall| p.mac.clear(),
        ];
        for edit in changes {
            let mut edited = pending.clone();
            edit(&mut edited);
            edits.push(edited);
        }
        for edited in &edits {
            assert!(!key.verify(edited), "{edited:?}");
        }
        assert!(!PendingKey::given(&[8; 32]).verify(&pending), "another key");
        assert!(!PendingKey(None).verify(&pending), "no key");
    }

    #[test]
    fn a_token_is_claimed_once() {
        let store = PendingCalls::new(DEFAULT_PENDING_APPROVAL_TTL, 8, PendingKey::process());
        let token = store
            .insert(ToolCall::new("c", "t", json!({})), request(), None)
            .unwrap()
            .token;
        let listed = store.list().remove(0);
        assert!(store.claim(&listed));
        assert!(store.take(&token).is_none(), "the waiting copy is dropped");
        assert!(!store.claim(&listed));
    }
}
