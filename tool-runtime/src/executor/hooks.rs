//! Observability hooks: code that runs before and after every call.

use std::any::Any;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;

use toolwright_core::SafetyLevel;
use toolwright_core::ToolResult;
use toolwright_core::file_change::HunkSelection;

/// Runs `call` on every hook in order; a hook that panics is logged and the others still run.
pub(super) fn run_all(
    hooks: &[Arc<dyn ToolHook>],
    phase: &'static str,
    call: impl Fn(&dyn ToolHook),
) {
    for hook in hooks {
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| call(hook.as_ref())));
        if let Err(payload) = outcome {
            tracing::error!(phase, "a tool hook panicked: {}", panic_message(&*payload));
        }
    }
}

/// What a hook is told about a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HookEvent {
    /// The id of the call.
    pub call_id: String,
    /// The tool's name, as the model sent it.
    pub tool: String,
    /// The tool's safety level, when the tool exists.
    pub safety: Option<SafetyLevel>,
    /// The arguments the tool runs with, secrets redacted.
    pub arguments: Value,
    /// Whether the policy let the call run, when it got that far.
    pub approved: Option<bool>,
    /// For a file edit approved hunk by hunk: the hunks approved and rejected.
    pub hunks: Option<HunkSelection>,
    /// Who made the call, when the front end said (the subject of
    /// [`CallOptions::caller`](crate::CallOptions::caller)); never its token.
    pub caller: Option<String>,
}

/// Code that observes calls, in three phases (the execution contract's observability hooks):
/// `before` the tool runs, `after` it succeeded, `error` for every call that failed, including
/// calls refused before running. Hooks run in the order they were added; a hook that panics
/// is logged and skipped, and the call goes on.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use toolwright_core::ToolResult;
/// use toolwright_runtime::executor::{HookEvent, ToolHook};
///
/// #[derive(Default)]
/// struct CountFailures(AtomicUsize);
///
/// impl ToolHook for CountFailures {
///     fn error(&self, _event: &HookEvent, _result: &ToolResult) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
/// ```
pub trait ToolHook: Send + Sync + 'static {
    /// Right before the tool runs.
    fn before(&self, event: &HookEvent) {
        let _ = event;
    }

    /// After the tool succeeded.
    fn after(&self, event: &HookEvent, result: &ToolResult) {
        let _ = (event, result);
    }

    /// After the call failed, whatever the reason.
    fn error(&self, event: &HookEvent, result: &ToolResult) {
        let _ = (event, result);
    }
}

/// A hook that appends one JSON line per cautious or dangerous call to a writer, flushed per
/// line: `{"time","tool","call_id","arguments","decision","outcome","duration_ms"}`, with
/// secret arguments redacted.
///
/// ```
/// use toolwright_runtime::executor::AuditLog;
///
/// let log = AuditLog::new(std::io::stderr());
/// # let _ = log;
/// ```
pub struct AuditLog {
    writer: Mutex<Box<dyn Write + Send>>,
}

#[derive(Serialize)]
struct AuditLine<'a> {
    time: String,
    tool: &'a str,
    call_id: &'a str,
    /// Who made the call (the authenticated subject), when the front end said.
    #[serde(skip_serializing_if = "Option::is_none")]
    caller: Option<&'a str>,
    safety: Option<SafetyLevel>,
    arguments: &'a Value,
    decision: &'a str,
    outcome: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// The hunks approved and rejected, for a file edit approved hunk by hunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    hunks: Option<&'a HunkSelection>,
    /// What the call left behind that was moved aside (the `quarantined` list of a
    /// structured result, as toolwright-std's `run_command` reports a `.git` a command planted).
    #[serde(skip_serializing_if = "Option::is_none")]
    quarantined: Option<&'a Value>,
    duration_ms: f64,
}

impl AuditLog {
    /// An audit log writing to `writer` (a file, stderr, a buffer).
    pub fn new(writer: impl Write + Send + 'static) -> Self {
        AuditLog {
            writer: Mutex::new(Box::new(writer)),
        }
    }

    fn record(&self, event: &HookEvent, result: &ToolResult) {
        if !matches!(
            event.safety,
            Some(SafetyLevel::Cautious | SafetyLevel::Dangerous)
        ) {
            return;
        }
        let line = AuditLine {
            time: jiff::Timestamp::now().to_string(),
            tool: &event.tool,
            call_id: &event.call_id,
            caller: event.caller.as_deref(),
            safety: event.safety,
            arguments: &event.arguments,
            decision: match result.metadata.approved {
                Some(true) => "approved",
                Some(false) => "denied",
                None => "none",
            },
            outcome: if result.success { "success" } else { "failure" },
            error: result.error.as_deref(),
            hunks: event.hunks.as_ref(),
            quarantined: result
                .structured_content
                .as_ref()
                .and_then(|structured| structured.get("quarantined"))
                .filter(|list| list.as_array().is_some_and(|list| !list.is_empty())),
            duration_ms: result.metadata.execution_time_ms,
        };
        let Ok(mut text) = serde_json::to_string(&line) else {
            return;
        };
        text.push('\n');
        let mut writer = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(error) = writer
            .write_all(text.as_bytes())
            .and_then(|()| writer.flush())
        {
            tracing::warn!(%error, "could not write the audit log");
        }
    }
}

impl ToolHook for AuditLog {
    fn after(&self, event: &HookEvent, result: &ToolResult) {
        self.record(event, result);
    }

    fn error(&self, event: &HookEvent, result: &ToolResult) {
        self.record(event, result);
    }
}

/// The text of a panic's payload (`&str` or `String`), or a placeholder.
pub(super) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
