//! How a call ended: the typed outcome front ends read instead of guessing it from the
//! result's text, and the stop that ends a call early.

use serde::{Deserialize, Serialize};

use toolwright_core::Tool;
use toolwright_core::ToolResult;

/// How a call ended. The executor decides it once; metrics count it, and front ends (an MCP
/// server, a command line) answer by it instead of reading the error text.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use toolwright_core::serde_json::json;
/// use toolwright_runtime::{CallOptions, Executor, ToolRegistry};
/// use toolwright_core::ToolCall;
/// use toolwright_runtime::executor::Outcome;
///
/// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
/// let report = executor.execute_with(ToolCall::new("1", "nothing", json!({})), CallOptions::new()).await;
/// assert_eq!(report.outcome, Outcome::UnknownTool);
/// assert!(report.tool.is_none());
/// assert!(!report.result.success);
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The tool ran and returned output.
    Success,
    /// The tool ran and failed (its error, a panic, arguments that do not fit;
    /// [`CallReport::crashed`] tells a panic).
    Failure,
    /// The call was refused: above the safety ceiling, disabled, or not approved.
    Denied,
    /// The call ran out of time (running, or waiting for a slot or a thread).
    TimedOut,
    /// The caller cancelled the call.
    Cancelled,
    /// No tool has the name the call gave (or the name is not a tool name at all), or the
    /// tool was not offered for this request ([`CallOptions::allowed_tools`](super::CallOptions::allowed_tools)).
    UnknownTool,
    /// The approval handler deferred the decision: the call has not run and waits for
    /// [`Executor::resume`](super::Executor::resume) (its token is in the result's
    /// `metadata.pending`).
    Pending,
    /// The call stopped to ask its caller: its approval (an MCP client of the 2026-07-28
    /// revision approves through a multi round-trip request), or a question the tool asked
    /// with [`ToolContext::elicit`](toolwright_core::ToolContext::elicit) or
    /// [`ToolContext::sample`](toolwright_core::ToolContext::sample) that only the caller's next
    /// request can answer. Nothing after the question ran; the front end returns the
    /// questions, and the caller repeats the call with the answers.
    InputRequired,
}

/// One call's result with what the executor knows about it: how it ended and which tool
/// it named. Made by [`Executor::execute_with`](super::Executor::execute_with).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallReport {
    /// The result, in the execution contract's shape.
    pub result: ToolResult,
    /// How the call ended.
    pub outcome: Outcome,
    /// The tool the call named, when the registry has it (enabled or not).
    pub tool: Option<Tool>,
    /// Whether the tool's run crashed (it panicked, or its thread ended without a result):
    /// a bug, not an error the tool reported. The outcome is [`Outcome::Failure`] and the
    /// result says so like any failure; a front end that tells internal failures apart
    /// (an MCP task ends `failed`, not `completed`) reads it here.
    pub crashed: bool,
}

/// Why a call ended without output: the message for the model, and what the metrics and
/// the result's metadata record.
pub(super) struct Stopped {
    pub(super) message: String,
    pub(super) outcome: Outcome,
    /// `Some(false)` when the call was refused by the policy or the approver.
    pub(super) approved: Option<bool>,
    /// The token and expiry of a deferred call.
    pub(super) pending: Option<toolwright_core::PendingApproval>,
    /// The tool's run crashed ([`CallReport::crashed`]).
    pub(super) crashed: bool,
}

impl Stopped {
    pub(super) fn new(outcome: Outcome, message: String) -> Self {
        Stopped {
            message,
            outcome,
            approved: None,
            pending: None,
            crashed: false,
        }
    }

    pub(super) fn failed(message: String) -> Self {
        Stopped::new(Outcome::Failure, message)
    }

    /// A failure because the tool's run crashed.
    pub(super) fn crashed(message: String) -> Self {
        Stopped {
            crashed: true,
            ..Stopped::failed(message)
        }
    }

    pub(super) fn denied(message: String) -> Self {
        Stopped {
            message,
            outcome: Outcome::Denied,
            approved: Some(false),
            pending: None,
            crashed: false,
        }
    }
}
