//! The executor for programs without an async runtime.

use super::handle::Executor;
use super::metrics::MetricsSnapshot;
use super::options::CallOptions;
use toolwright_core::ToolCall;
use toolwright_core::ToolResult;

/// An [`Executor`] with a Tokio runtime of its own, for programs that are not async.
///
/// ```
/// use std::sync::Arc;
/// use toolwright_core::serde_json::json;
/// use toolwright_core::{tool, ToolCall};
/// use toolwright_runtime::{register_all_tools, Executor};
/// use toolwright_runtime::executor::BlockingExecutor;
///
/// /// Say hi.
/// #[tool]
/// fn say_hi(name: String) -> String { format!("hi {name}") }
///
/// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
/// let blocking = BlockingExecutor::new(executor).unwrap();
/// let result = blocking.execute(ToolCall::new("1", "say_hi", json!({"name": "Ada"})));
/// assert_eq!(result.content, "hi Ada");
/// ```
pub struct BlockingExecutor {
    executor: Executor,
    runtime: tokio::runtime::Runtime,
}

impl BlockingExecutor {
    /// Wraps `executor` with a multi-threaded runtime of its own.
    ///
    /// # Errors
    ///
    /// When the operating system refuses the runtime's threads.
    pub fn new(executor: Executor) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("tool-executor")
            .build()?;
        Ok(BlockingExecutor { executor, runtime })
    }

    /// The wrapped executor.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// Runs one call and waits for its result. Called from inside an async runtime (where
    /// blocking would stall it) it returns a failure saying to use [`Executor::execute`].
    pub fn execute(&self, call: ToolCall) -> ToolResult {
        if tokio::runtime::Handle::try_current().is_ok() {
            return inside_runtime(&call.id);
        }
        self.runtime.block_on(self.executor.execute(call))
    }

    /// Runs a turn's calls concurrently with `options` and waits for every result, in the
    /// calls' order ([`Executor::execute_batch`]).
    pub fn execute_batch(&self, calls: Vec<ToolCall>, options: CallOptions) -> Vec<ToolResult> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return calls.iter().map(|call| inside_runtime(&call.id)).collect();
        }
        self.runtime
            .block_on(self.executor.execute_batch(calls, options))
    }

    /// Every tool's counters so far.
    pub fn metrics(&self) -> MetricsSnapshot {
        self.executor.metrics()
    }
}

fn inside_runtime(id: &str) -> ToolResult {
    ToolResult::failure(
        id,
        "internal error: BlockingExecutor was called inside an async runtime, where blocking \
         would stall it; use `Executor::execute(..).await` there",
    )
}
