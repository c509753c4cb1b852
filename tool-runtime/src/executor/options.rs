//! Options for one call.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::approval::ApprovalHandler;
use crate::context::{Progress, ProgressReporter};
use crate::safety::SafetyLevel;

/// Options for one call: its own timeout and a cancellation token.
///
/// ```
/// use std::time::Duration;
/// use tool_runtime::{CallOptions, CancellationToken};
///
/// let token = CancellationToken::new();
/// let options = CallOptions::new().timeout(Duration::from_secs(5)).cancellation(token.clone());
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(super) timeout: Option<Duration>,
    pub(super) cancellation: Option<CancellationToken>,
    pub(super) approval: Option<Arc<dyn ApprovalHandler>>,
    pub(super) progress: Option<ProgressReporter>,
    pub(super) max_safety: Option<SafetyLevel>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("cancellation", &self.cancellation)
            .field("approval", &self.approval.is_some())
            .field("progress", &self.progress.is_some())
            .field("max_safety", &self.max_safety)
            .finish()
    }
}

impl CallOptions {
    /// No options: the executor's timeout, no cancellation.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// This call's timeout, instead of the executor's.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Cancels the call when `token` is cancelled: the tool is told through its
    /// [`ToolContext`](crate::ToolContext), an async tool is stopped, and the result is a failure.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Who approves this call if it is dangerous, instead of the executor's handler (an MCP
    /// server asks the user of the client that made the call).
    pub fn approval(mut self, handler: impl ApprovalHandler) -> Self {
        self.approval = Some(Arc::new(handler));
        self
    }

    /// The highest safety level this call may run, for a caller allowed less than the
    /// executor's [`max_safety`](crate::ExecutorBuilder::max_safety) (an MCP client whose
    /// token grants only `tools:safe`, say). The lower of the two applies: a tool above it is
    /// refused as denied without running, and the tool's context lists only the tools under
    /// it. It never raises the executor's ceiling.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use serde_json::json;
    /// use tool_runtime::executor::Outcome;
    /// use tool_runtime::{tool, register_all_tools, CallOptions, Executor, SafetyLevel, ToolCall};
    ///
    /// /// Rename a file.
    /// #[tool(safety = "cautious")]
    /// fn rename_file(from: String, to: String) -> String { format!("{from} -> {to}") }
    ///
    /// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    /// let call = ToolCall::new("1", "rename_file", json!({"from": "a", "to": "b"}));
    /// let report = executor
    ///     .execute_report(call, CallOptions::new().max_safety(SafetyLevel::Safe))
    ///     .await;
    /// assert_eq!(report.outcome, Outcome::Denied);
    /// assert_eq!(
    ///     report.result.error.as_deref(),
    ///     Some("tool `rename_file` is cautious, above this caller's limit of safe; it was not run")
    /// );
    /// # }
    /// ```
    pub fn max_safety(mut self, level: SafetyLevel) -> Self {
        self.max_safety = Some(level);
        self
    }

    /// Where the tool's [`ToolContext::report_progress`](crate::ToolContext::report_progress) reports go for this call.
    pub fn progress(mut self, reporter: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(reporter));
        self
    }
}
