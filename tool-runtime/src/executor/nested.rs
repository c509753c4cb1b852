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
use super::outcome::Outcome;

/// Why a nested call stopped at something only a later request can answer (`what`), and
/// what the caller can do instead.
pub(super) fn cannot_wait(name: &str, what: &str) -> String {
    format!(
        "tool `{name}` was not run: it waits for {what}, which a call made from inside a \
         program cannot: the program would have to stop until a later request (a client of \
         MCP 2026-07-28 answers between requests; a deferred approval comes later still). \
         Call `{name}` directly, or use a client that answers during the call (MCP \
         elicitation in a session)"
    )
}

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
        options.nested = true;
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
            let name = call.name.clone();
            let mut report = self.executor.execute_with(call, self.options.clone()).await;
            // A nested tool that stopped at a question for its caller: the program cannot be
            // paused until the caller's next request brings the answer.
            if report.outcome == Outcome::InputRequired {
                let message = cannot_wait(&name, "a question for its caller");
                report.result.content.clone_from(&message);
                report.result.error = Some(message);
            }
            report.result
        })
    }
}
