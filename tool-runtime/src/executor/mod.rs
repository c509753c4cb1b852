//! The executor: runs the calls a model asked for, enforcing the safety policy, and turns
//! every outcome (success, error, panic, timeout, denial) into a [`ToolResult`](toolwright_core::ToolResult).
//!
//! The rooms: `builder` (configuration), `options` (per call), `policy` (which tool, which
//! arguments, ceiling, guardrails, approval rule, approval, call limits), `running` (threads,
//! panics, timeouts), `checks` (the output's size and its structured output against the
//! output schema), `outcome` (how a call ended), `hooks`, `metrics`, `pool` (threads of
//! sync tools), `inline` (quick sync tools on the runtime's worker), `approval` (the handler trait), `guardrail` (the guardrail trait),
//! `pending` (deferred approvals) and `resume` (running them), `limits` (per-tool call
//! counts), `lenient` (argument repair), `blocking` (an executor for non-async programs),
//! `primitives` (prompts, resources and completions under the same policy), `discovery`
//! (search-first lists: a core plus `search_tools`, `describe_tool`, `call_tool`).

// The layers, lowest first (no module imports one listed after it): outcome, discovery,
// lenient, limits, approval, guardrail, pool, inline, metrics, options, pending, hooks,
// handle, nested, running, builder,
// offer, checks, resume, blocking, policy, execute, primitives. This file only declares and
// re-exports.
mod approval;
mod blocking;
mod builder;
mod checks;
mod discovery;
mod execute;
mod guardrail;
mod handle;
mod hooks;
mod inline;
mod lenient;
mod limits;
mod metrics;
mod nested;
mod offer;
mod options;
mod outcome;
mod pending;
mod policy;
mod pool;
mod primitives;
mod resume;
mod running;

pub use approval::{ApprovalDecision, ApprovalHandler, ApprovalRequest};
pub use blocking::BlockingExecutor;
pub use builder::{ExecutorBuildError, ExecutorBuilder, MissingState};
pub use discovery::{
    CALL_TOOL, DESCRIBE_TOOL, Discovery, SEARCH_FIRST_INSTRUCTIONS, SEARCH_TOOLS, SearchFirst,
};
pub use guardrail::{CallVerdict, GuardedCall, Guardrail, OutputVerdict};
pub use handle::{DEFAULT_MAX_OUTPUT_BYTES, Executor, REDACTED, UNKNOWN_TOOL_METRIC};
pub use hooks::{AuditLog, HookEvent, ToolHook};
pub use limits::CallCounts;
pub use metrics::{LatencyStats, MetricsSnapshot, ResultSizeStats, ToolMetrics};
pub use offer::Offer;
pub use options::CallOptions;
pub use outcome::{CallReport, Outcome};
pub use pending::{
    DEFAULT_MAX_PENDING_APPROVALS, DEFAULT_MAX_PENDING_APPROVALS_PER_OWNER,
    DEFAULT_MAX_PENDING_BYTES, DEFAULT_MAX_PENDING_BYTES_PER_OWNER, DEFAULT_PENDING_APPROVAL_TTL,
    DeferError, MIN_PENDING_KEY_LEN, PendingCall, ResumeError,
};
pub use pool::SyncThreadStats;
pub use primitives::{CompletionReference, PrimitiveError};
pub use toolwright_core::PendingApproval;
pub use toolwright_core::Progress;
