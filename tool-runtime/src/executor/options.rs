//! Options for one call.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::approval::ApprovalHandler;
use crate::context::{Progress, ProgressReporter};

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
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("cancellation", &self.cancellation)
            .field("approval", &self.approval.is_some())
            .field("progress", &self.progress.is_some())
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

    /// Where the tool's [`ToolContext::report_progress`](crate::ToolContext::report_progress) reports go for this call.
    pub fn progress(mut self, reporter: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(reporter));
        self
    }
}
