//! Configuring an executor: its policy, limits, hooks and state.

use std::sync::Arc;
use std::time::Duration;

use super::approval::ApprovalHandler;
use super::hooks::ToolHook;
use super::metrics::Metrics;
use super::pool::{DEFAULT_SYNC_THREADS, Pool};
use super::{Executor, Inner};
use crate::context::ToolState;
use crate::registry::{ToolRegistry, registry_handle};
use crate::safety::SafetyLevel;

/// How many calls of one `execute_tool_calls` run at once unless configured.
const DEFAULT_CONCURRENCY: usize = 16;

/// Configures an [`Executor`]; made by [`Executor::builder`].
#[must_use = "a builder does nothing until `.build()`"]
pub struct ExecutorBuilder {
    registry: Arc<ToolRegistry>,
    max_safety: SafetyLevel,
    approval: Option<Arc<dyn ApprovalHandler>>,
    hooks: Vec<Arc<dyn ToolHook>>,
    timeout: Option<Duration>,
    concurrency: usize,
    state: ToolState,
    lenient: bool,
    max_sync_threads: usize,
    max_concurrent_calls: Option<usize>,
}

impl ExecutorBuilder {
    /// Refuse tools above `level` without running them (default: none refused).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use tool_runtime::{Executor, SafetyLevel, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_safety(SafetyLevel::Cautious).build();
    /// assert_eq!(executor.max_safety(), SafetyLevel::Cautious);
    /// ```
    pub fn max_safety(mut self, level: SafetyLevel) -> Self {
        self.max_safety = level;
        self
    }

    /// Who approves dangerous calls: any `Fn(ApprovalRequest) -> impl Future<Output =
    /// ApprovalDecision>` or [`ApprovalHandler`]. Without one, dangerous calls are refused.
    pub fn approval(mut self, handler: impl ApprovalHandler) -> Self {
        self.approval = Some(Arc::new(handler));
        self
    }

    /// Adds a hook; hooks run in the order they are added.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use tool_runtime::{Executor, ToolRegistry};
    /// # use tool_runtime::executor::AuditLog;
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .hook(AuditLog::new(std::io::sink()))
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn hook(mut self, hook: impl ToolHook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Adds a hook that is shared with other code (to read what it collected).
    pub fn shared_hook(mut self, hook: Arc<dyn ToolHook>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// How long a call may run before it fails as timed out (default: no limit). A call's own
    /// [`CallOptions::timeout`](super::CallOptions::timeout) wins.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How many calls of one [`Executor::execute_tool_calls`] run at once (default 16, at
    /// least 1).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use tool_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).concurrency(4).build();
    /// # let _ = executor;
    /// ```
    pub fn concurrency(mut self, limit: usize) -> Self {
        self.concurrency = limit.max(1);
        self
    }

    /// The most threads sync tools run on at once (default 64, at least 1).
    ///
    /// A sync tool runs on a thread of its own, so it can block without stalling the async
    /// runtime, and a tool that never returns loses only its thread; the price is a thread
    /// hop per call (a few microseconds; async tools run on the caller's task). A call whose
    /// caller stopped waiting keeps its thread until the tool returns and counts against
    /// this limit as *abandoned* ([`SyncThreadStats`](super::SyncThreadStats) in [`Executor::metrics`]); tools that
    /// check [`ToolContext::is_cancelled`](crate::ToolContext::is_cancelled) give their thread back at once. When every thread
    /// is busy, a call waits for one within its timeout, then fails saying so.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use tool_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_sync_threads(8).build();
    /// assert_eq!(executor.metrics().sync_threads.limit, 8);
    /// ```
    pub fn max_sync_threads(mut self, limit: usize) -> Self {
        self.max_sync_threads = limit.max(1);
        self
    }

    /// The most calls that run at once, across every caller of this executor (default: no
    /// limit; at least 1). A call over the limit waits for a slot within its timeout, then
    /// fails saying the executor is at its limit. For a server shared by many clients.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use tool_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_concurrent_calls(32).build();
    /// # let _ = executor;
    /// ```
    pub fn max_concurrent_calls(mut self, limit: usize) -> Self {
        self.max_concurrent_calls = Some(limit.max(1));
        self
    }

    /// A value tools can read through [`ToolContext::state`](crate::ToolContext::state); one per type.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use tool_runtime::{Executor, ToolRegistry};
    /// struct ApiKey(String);
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .state(ApiKey("secret".into()))
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Accept the argument mistakes models make most (a number or boolean sent as a string,
    /// one value where an array was expected, an object sent as a JSON string) and record
    /// what was changed in the result's `metadata.coerced`. Off by default.
    pub fn lenient_arguments(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }

    /// The executor.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use tool_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// assert!(!executor.has_approval_handler());
    /// ```
    pub fn build(self) -> Executor {
        Executor {
            inner: Arc::new(Inner {
                registry_handle: registry_handle(Arc::clone(&self.registry)),
                registry: self.registry,
                max_safety: self.max_safety,
                approval: self.approval,
                hooks: self.hooks,
                timeout: self.timeout,
                concurrency: self.concurrency,
                state: Arc::new(self.state),
                lenient: self.lenient,
                metrics: Metrics::default(),
                pool: Pool::new(self.max_sync_threads),
                call_limit: self
                    .max_concurrent_calls
                    .map(|limit| Arc::new(tokio::sync::Semaphore::new(limit))),
                max_concurrent_calls: self.max_concurrent_calls.unwrap_or(0),
            }),
        }
    }
}

impl Executor {
    /// Starts configuring an executor over `registry`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).concurrency(4).build();
    /// # let _ = executor;
    /// ```
    pub fn builder(registry: Arc<ToolRegistry>) -> ExecutorBuilder {
        ExecutorBuilder {
            registry,
            max_safety: SafetyLevel::Dangerous,
            approval: None,
            hooks: Vec::new(),
            timeout: None,
            concurrency: DEFAULT_CONCURRENCY,
            state: ToolState::new(),
            lenient: false,
            max_sync_threads: DEFAULT_SYNC_THREADS,
            max_concurrent_calls: None,
        }
    }
}
