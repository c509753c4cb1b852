//! Calls a running tool makes of other tools on its caller's behalf (code mode): each one is
//! a whole call of the executor, with the outer call's options.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;
use toolwright_core::{NestedCalls, ToolCall, ToolResult};

use super::handle::Executor;
use super::options::CallOptions;

/// The nested calls of one outer call: the executor, and the options every nested call
/// inherits (who approves, the offered set, the ceiling, the owner, the call counts, the
/// client), cancelled with the outer call.
pub(super) struct NestedCaller {
    executor: Executor,
    options: CallOptions,
    /// The outer call's id: nested calls are `<outer>.<n>`, so an audit log ties them to it.
    outer_id: Arc<str>,
    made: AtomicU64,
}

impl NestedCaller {
    /// The nested calls of the call `outer_id` made with `options`, cancelled by `token`.
    pub(super) fn shared(
        executor: &Executor,
        outer_id: &str,
        options: &CallOptions,
        token: CancellationToken,
    ) -> Arc<dyn NestedCalls> {
        let mut options = options.clone();
        // Cancelling the outer call cancels its nested ones; a nested call may not stop the
        // outer one.
        options.cancellation = Some(token.child_token());
        // The outer call's preview was about the outer call.
        options.previewed = None;
        Arc::new(NestedCaller {
            executor: executor.clone(),
            options,
            outer_id: Arc::from(outer_id),
            made: AtomicU64::new(0),
        })
    }
}

impl NestedCalls for NestedCaller {
    fn call(&self, mut call: ToolCall) -> Pin<Box<dyn Future<Output = ToolResult> + Send + '_>> {
        // The id is ours, not the tool's caller's: no nested call can pose as another call.
        let n = self.made.fetch_add(1, Ordering::Relaxed) + 1;
        call.id = format!("{}.{n}", self.outer_id);
        Box::pin(async move {
            self.executor
                .execute_with(call, self.options.clone())
                .await
                .result
        })
    }
}
