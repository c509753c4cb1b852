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
use toolwright_core::encoding::{canonical_json, from_hex, hex};

/// How long a deferred call waits for a decision unless the executor says otherwise
/// ([`ExecutorBuilder::pending_approval_ttl`](crate::executor::ExecutorBuilder::pending_approval_ttl)):
/// one hour.
pub const DEFAULT_PENDING_APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// How many deferred calls one executor keeps at most unless it says otherwise
/// ([`ExecutorBuilder::max_pending_approvals`](crate::executor::ExecutorBuilder::max_pending_approvals));
/// beyond it, a deferral is refused, so a model cannot fill the memory with calls nobody
/// will approve.
pub const DEFAULT_MAX_PENDING_APPROVALS: usize = 1024;

/// How many deferred calls one owner ([`CallOptions::owner`](super::CallOptions::owner))
/// keeps waiting at once unless the executor says otherwise
/// ([`ExecutorBuilder::max_pending_approvals_per_owner`](crate::executor::ExecutorBuilder::max_pending_approvals_per_owner)):
/// 64 (as many as one MCP caller's tasks), so one caller cannot take every slot of
/// [`DEFAULT_MAX_PENDING_APPROVALS`].
pub const DEFAULT_MAX_PENDING_APPROVALS_PER_OWNER: usize = 64;

/// How many bytes of deferred calls (their JSON: arguments and what the person is shown) one
/// owner keeps waiting at once unless the executor says otherwise
/// ([`ExecutorBuilder::max_pending_bytes_per_owner`](crate::executor::ExecutorBuilder::max_pending_bytes_per_owner)):
/// 4 MiB, so large arguments cannot make one caller's calls fill the memory.
pub const DEFAULT_MAX_PENDING_BYTES_PER_OWNER: usize = 4 * 1024 * 1024;

/// How many bytes of deferred calls one executor keeps waiting at once, over every owner,
/// unless it says otherwise
/// ([`ExecutorBuilder::max_pending_bytes`](crate::executor::ExecutorBuilder::max_pending_bytes)): 64 MiB.
pub const DEFAULT_MAX_PENDING_BYTES: usize = 64 * 1024 * 1024;

/// The shortest key [`ExecutorBuilder::pending_key`](crate::executor::ExecutorBuilder::pending_key)
/// takes: 32 bytes (256 bits, the size of HMAC-SHA256's output).
pub const MIN_PENDING_KEY_LEN: usize = 32;

/// A call waiting for a person's decision: what to show them (`request`, secrets redacted,
/// with the tool's preview), and what to run once they decide (`call`, as the model sent it).
///
/// It serializes to JSON, so an application can keep it somewhere else (a database, a job
/// queue) with [`Executor::take_pending`](super::Executor::take_pending) and run it later
/// with [`Executor::resume_call`](super::Executor::resume_call): in the same process, or in
/// another one whose executor has the same
/// [`pending_key`](crate::executor::ExecutorBuilder::pending_key).
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
/// use toolwright_core::serde_json::json;
/// use toolwright_runtime::executor::PendingCall;
///
/// let text = r#"{"token":"t","call":{"id":"c1","name":"wipe","arguments":{}},
///   "request":{"call_id":"c1","tool":"wipe","description":"Wipe.","safety":"dangerous","arguments":{}},
///   "expires_at":"2030-01-01T00:00:00Z","mac":"00"}"#;
/// // It reads, but no executor would run it: the MAC is not one of an executor's.
/// let pending: PendingCall = toolwright_core::serde_json::from_str(text).unwrap();
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

/// Why a call could not be deferred: a limit of the waiting calls was reached (the call is
/// then denied at once, with this as its reason), or the system had no randomness.
///
/// ```
/// use toolwright_runtime::executor::DeferError;
///
/// let err = DeferError::OwnerFull { limit: 16 };
/// assert!(err.to_string().contains("16"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeferError {
    /// The executor keeps its most waiting calls.
    #[error(
        "{limit} calls are already waiting for approval on this executor, the most it keeps \
         (`max_pending_approvals`); try again once some are decided or expired"
    )]
    Full {
        /// The limit ([`ExecutorBuilder::max_pending_approvals`](crate::executor::ExecutorBuilder::max_pending_approvals)).
        limit: usize,
    },
    /// The caller keeps its most waiting calls.
    #[error(
        "you already have {limit} calls waiting for approval, the most one caller may have \
         (`max_pending_approvals_per_owner`); have them decided, or wait until they expire, \
         then call again"
    )]
    OwnerFull {
        /// The limit ([`ExecutorBuilder::max_pending_approvals_per_owner`](crate::executor::ExecutorBuilder::max_pending_approvals_per_owner)).
        limit: usize,
    },
    /// The caller's waiting calls would take more bytes than its share.
    #[error(
        "this call ({size} bytes) would take your calls waiting for approval past {limit} \
         bytes, the most one caller may keep (`max_pending_bytes_per_owner`); send smaller \
         arguments, or have your waiting calls decided first"
    )]
    OwnerBytes {
        /// The call's size, in bytes of its JSON.
        size: usize,
        /// The limit ([`ExecutorBuilder::max_pending_bytes_per_owner`](crate::executor::ExecutorBuilder::max_pending_bytes_per_owner)).
        limit: usize,
    },
    /// The waiting calls of every caller would take more bytes than the executor keeps.
    #[error(
        "the calls waiting for approval on this executor would take more than {limit} bytes, \
         the most it keeps (`max_pending_bytes`); try again once some are decided or expired"
    )]
    Bytes {
        /// The limit ([`ExecutorBuilder::max_pending_bytes`](crate::executor::ExecutorBuilder::max_pending_bytes)).
        limit: usize,
    },
    /// The system had no randomness for a token, or the call could not be signed.
    #[error(
        "the call could not be kept waiting: the system's random source or the signing key failed"
    )]
    Unsigned,
}

/// The limits of the waiting calls.
#[derive(Debug, Clone, Copy)]
pub(super) struct PendingLimits {
    pub(super) max: usize,
    pub(super) per_owner: usize,
    pub(super) bytes_per_owner: usize,
    pub(super) bytes: usize,
}

impl Default for PendingLimits {
    fn default() -> Self {
        PendingLimits {
            max: DEFAULT_MAX_PENDING_APPROVALS,
            per_owner: DEFAULT_MAX_PENDING_APPROVALS_PER_OWNER,
            bytes_per_owner: DEFAULT_MAX_PENDING_BYTES_PER_OWNER,
            bytes: DEFAULT_MAX_PENDING_BYTES,
        }
    }
}

/// A waiting call, with whose it is and its size (kept beside the signed call, not in it).
#[derive(Debug)]
struct Waiting {
    call: PendingCall,
    owner: String,
    bytes: usize,
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
    /// `key`, as given to [`ExecutorBuilder::pending_key`](crate::executor::ExecutorBuilder::pending_key).
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
        text.push_str(&canonical_json(&value));
        let mut mac = Hmac::<Sha256>::new_from_slice(key).ok()?;
        mac.update(text.as_bytes());
        Some(mac)
    }

    /// `pending`'s MAC, hex; `None` without a key.
    fn sign(&self, pending: &PendingCall) -> Option<String> {
        let bytes = self.mac_of(pending)?.finalize().into_bytes();
        Some(hex(&bytes))
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
    calls: Mutex<HashMap<String, Waiting>>,
    pub(super) key: PendingKey,
    pub(super) ttl: Duration,
    pub(super) limits: PendingLimits,
}

impl PendingCalls {
    #[cfg(test)]
    fn new(ttl: Duration, max: usize, key: PendingKey) -> Self {
        Self::with_limits(
            ttl,
            PendingLimits {
                max,
                ..PendingLimits::default()
            },
            key,
        )
    }

    pub(super) fn with_limits(ttl: Duration, limits: PendingLimits, key: PendingKey) -> Self {
        PendingCalls {
            calls: Mutex::default(),
            key,
            ttl,
            limits,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        // Nothing panics while the lock is held; the map is valid between operations.
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `call` of `owner` (`""` for a call without one) waiting, signed, after
    /// dropping the expired ones.
    ///
    /// # Errors
    ///
    /// [`DeferError`]: a limit in all or of the owner (count or bytes) was reached, or the
    /// system has no randomness for a token or a key.
    pub(super) fn insert(
        &self,
        owner: &str,
        call: ToolCall,
        request: ApprovalRequest,
        max_safety: Option<SafetyLevel>,
    ) -> Result<PendingApproval, DeferError> {
        let now = jiff::Timestamp::now();
        let expires_at = jiff::SignedDuration::try_from(self.ttl)
            .ok()
            .and_then(|ttl| now.checked_add(ttl).ok())
            .unwrap_or(jiff::Timestamp::MAX);
        let token = new_token().ok_or(DeferError::Unsigned)?;
        let mut pending = PendingCall {
            token: token.clone(),
            call,
            request,
            max_safety,
            expires_at,
            mac: String::new(),
        };
        pending.mac = self.key.sign(&pending).ok_or(DeferError::Unsigned)?;
        // What the call holds in memory, near enough: its JSON.
        let bytes = serde_json::to_vec(&pending).map_or(usize::MAX, |json| json.len());
        let limits = self.limits;
        let mut calls = self.lock();
        calls.retain(|_, waiting| waiting.call.expires_at > now);
        if calls.len() >= limits.max {
            return Err(DeferError::Full { limit: limits.max });
        }
        let (mine, my_bytes, all_bytes) = calls.values().fold(
            (0usize, 0usize, 0usize),
            |(mine, my_bytes, all_bytes), waiting| {
                let own = waiting.owner == owner;
                (
                    mine + usize::from(own),
                    my_bytes.saturating_add(if own { waiting.bytes } else { 0 }),
                    all_bytes.saturating_add(waiting.bytes),
                )
            },
        );
        if mine >= limits.per_owner {
            return Err(DeferError::OwnerFull {
                limit: limits.per_owner,
            });
        }
        if my_bytes.saturating_add(bytes) > limits.bytes_per_owner {
            return Err(DeferError::OwnerBytes {
                size: bytes,
                limit: limits.bytes_per_owner,
            });
        }
        if all_bytes.saturating_add(bytes) > limits.bytes {
            return Err(DeferError::Bytes {
                limit: limits.bytes,
            });
        }
        calls.insert(
            token.clone(),
            Waiting {
                call: pending,
                owner: owner.to_owned(),
                bytes,
            },
        );
        Ok(PendingApproval::new(token, expires_at))
    }

    /// The waiting calls that have not expired, oldest expiry first.
    pub(super) fn list(&self) -> Vec<PendingCall> {
        let now = jiff::Timestamp::now();
        let mut calls: Vec<PendingCall> = self
            .lock()
            .values()
            .filter(|waiting| waiting.call.expires_at > now)
            .map(|waiting| waiting.call.clone())
            .collect();
        calls.sort_by(|a, b| a.expires_at.cmp(&b.expires_at).then(a.token.cmp(&b.token)));
        calls
    }

    /// Removes and returns the call waiting under `token` (expired or not).
    pub(super) fn take(&self, token: &str) -> Option<PendingCall> {
        self.lock().remove(token).map(|waiting| waiting.call)
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
    Some(hex(&bytes))
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
            .map(|_| store.insert("", call(), request(), None).unwrap().token)
            .collect();
        assert!(tokens.iter().all(|t| t.len() == 32));
        assert_ne!(tokens[0], tokens[1]);
        assert!(store.insert("", call(), request(), None).is_err(), "full");
        assert!(store.take(&tokens[0]).is_some());
        assert!(store.take(&tokens[0]).is_none(), "taken once");
        assert!(store.insert("", call(), request(), None).is_ok());
        assert_eq!(store.list().len(), 3);
    }

    #[test]
    fn one_owner_fills_only_its_own_share_in_count_and_bytes() {
        let limits = PendingLimits {
            max: 100,
            per_owner: 3,
            bytes_per_owner: 4096,
            bytes: 1 << 20,
        };
        let store =
            PendingCalls::with_limits(DEFAULT_PENDING_APPROVAL_TTL, limits, PendingKey::process());
        let small = || ToolCall::new("c", "t", json!({}));
        for _ in 0..3 {
            store.insert("mallory", small(), request(), None).unwrap();
        }
        assert_eq!(
            store.insert("mallory", small(), request(), None),
            Err(DeferError::OwnerFull { limit: 3 })
        );
        // A large argument is refused by bytes, however few calls its owner has waiting.
        let big = ToolCall::new("c", "t", json!({"blob": "x".repeat(8192)}));
        assert!(matches!(
            store.insert("eve", big, request(), None),
            Err(DeferError::OwnerBytes { limit: 4096, .. })
        ));
        // Another caller's deferral still goes through.
        assert!(store.insert("alice", small(), request(), None).is_ok());
        // Over every owner, the bytes are bounded too.
        let tight = PendingCalls::with_limits(
            DEFAULT_PENDING_APPROVAL_TTL,
            PendingLimits {
                bytes: 1000,
                bytes_per_owner: 1000,
                ..limits
            },
            PendingKey::process(),
        );
        // About 700 bytes each: one fits, two do not.
        let medium = || ToolCall::new("c", "t", json!({"blob": "x".repeat(400)}));
        tight.insert("a", medium(), request(), None).unwrap();
        assert_eq!(
            tight.insert("b", medium(), request(), None),
            Err(DeferError::Bytes { limit: 1000 })
        );
    }

    #[test]
    fn expired_calls_make_room_and_are_not_listed() {
        let store = PendingCalls::new(Duration::ZERO, 1, PendingKey::process());
        let call = || ToolCall::new("c", "t", json!({}));
        let first = store.insert("", call(), request(), None).unwrap();
        assert!(store.list().is_empty(), "expired at once");
        // The expired call is dropped to make room.
        let second = store.insert("", call(), request(), None).unwrap();
        assert!(store.take(&first.token).is_none());
        assert!(store.take(&second.token).is_some());
    }

    #[test]
    fn calls_are_signed_over_every_field_and_verify_in_any_key_order() {
        let key = PendingKey::given(&[7; 32]);
        let store = PendingCalls::new(DEFAULT_PENDING_APPROVAL_TTL, 8, key.clone());
        let call = ToolCall::new("c", "t", json!({"b": 1, "a": [1, {"y": 2, "x": 3}]}));
        let token = store.insert("", call, request(), None).unwrap().token;
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
            .insert("", ToolCall::new("c", "t", json!({})), request(), None)
            .unwrap()
            .token;
        let listed = store.list().remove(0);
        assert!(store.claim(&listed));
        assert!(store.take(&token).is_none(), "the waiting copy is dropped");
        assert!(!store.claim(&listed));
    }
}
