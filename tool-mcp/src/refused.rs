//! Counts of what a caller was refused by a limit of the approvals, tasks and request states
//! it can fill (the HTTP server's `/metrics` shows them with the connection and session
//! refusals, as `mcp_refusals_total{reason=...}`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Refusals by a per-caller or server-wide limit, shared by every clone of an `McpServer`.
#[derive(Debug, Default)]
pub(crate) struct LimitRefusals {
    /// Approvals the server could not keep waiting (the executor's pending limits: per
    /// owner in count and bytes, in all).
    pub(crate) pending_approvals: AtomicU64,
    /// Calls refused because the caller's tasks, or the store, were full.
    pub(crate) tasks: AtomicU64,
    /// `requestState`s refused because their use could not be recorded (the caller's used
    /// states, or all of them, at their limit; or the store failing).
    pub(crate) request_states: AtomicU64,
}

impl LimitRefusals {
    pub(crate) fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// `(reason, count)` for each kind of refusal.
    #[cfg(feature = "metrics")]
    pub(crate) fn snapshot(&self) -> [(&'static str, u64); 3] {
        [
            (
                "pending_approvals",
                self.pending_approvals.load(Ordering::Relaxed),
            ),
            ("tasks", self.tasks.load(Ordering::Relaxed)),
            (
                "request_states",
                self.request_states.load(Ordering::Relaxed),
            ),
        ]
    }
}
