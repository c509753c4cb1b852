//! Sync tools that run on the async runtime's worker instead of a thread of their own:
//! those that declare they are quick (`#[tool(inline)]`), while the tool has kept its word.
//!
//! Handing a sync call to a pool thread and back costs a thread wake and two context
//! switches (tens of microseconds on a small VM), more than a quick tool's own work. An
//! inline call is spawned as a task instead: from a worker thread, Tokio runs it on the same
//! thread as soon as the caller waits, with no wake of another thread. The caller waits on
//! the task, not in it, so its timeout and its cancellation still answer from another
//! worker while the tool runs.
//!
//! What a tool that breaks its word can cost, and no more:
//! - Inline runs never hold every worker: at most one fewer than the runtime has, process
//!   wide. A run past that hands its worker's duties to another thread first
//!   (`tokio::task::block_in_place`), so the runtime keeps all its workers even if every
//!   one of those runs hangs. (That hand-off wakes a thread, off the call's path; most runs
//!   never need it.)
//! - A run that takes longer than [`INLINE_BUDGET`], or that is still running when its call
//!   times out, moves the tool to the pool for good: its later calls run on threads of their
//!   own, and a warning says so once. (A cancellation does not: a caller could otherwise
//!   slow a tool down for every other caller.)
//! - On a runtime with one thread (current-thread), nothing runs inline.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use toolwright_core::Tool;

/// The longest an inline run may take before its tool loses the right to run inline.
pub(crate) const INLINE_BUDGET: Duration = Duration::from_secs(1);

/// Inline runs in progress, over every executor of the process.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Kept with the tool: set when one of its inline runs broke its word.
#[derive(Default)]
struct Demoted(AtomicBool);

/// The right to run one call inline: held by the run, released when it returns.
pub(crate) struct InlineRun {
    tool: Tool,
    /// Whether the run counts against the workers inline runs may hold; one that does not
    /// hands its worker's duties to another thread first.
    counted: bool,
    /// When the tool began to run (not when the run was allowed: a task may wait).
    started: Option<Instant>,
}

/// The right to run `tool` inline, when the tool asks for it, has kept its word so far and
/// the current runtime is multi-threaded.
pub(crate) fn enter(tool: &Tool) -> Option<InlineRun> {
    if !tool.is_inline() || tool.cache::<Demoted>().0.load(Ordering::Relaxed) {
        return None;
    }
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    if runtime.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return None;
    }
    let spare = runtime.metrics().num_workers().saturating_sub(1);
    let counted = RUNNING.fetch_add(1, Ordering::SeqCst) < spare;
    if !counted {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
    Some(InlineRun {
        tool: tool.clone(),
        counted,
        started: None,
    })
}

impl InlineRun {
    /// Whether the run may block the thread it is on: one past the workers inline runs may
    /// hold must run on a worker of the runtime, whose duties it hands over first (a task
    /// spawned for it), not on a caller's thread where that cannot be done.
    pub(crate) fn may_run_anywhere(&self) -> bool {
        self.counted
    }

    /// Runs `call` as the tool's inline run, timed against the budget; past the workers
    /// inline runs may hold, after handing this worker's duties to another thread.
    pub(crate) fn run<T>(mut self, call: impl FnOnce() -> T) -> T {
        self.started = Some(Instant::now());
        if self.counted {
            call()
        } else {
            tokio::task::block_in_place(call)
        }
    }

    /// The run is over: one longer than the budget moves the tool to the pool.
    fn finish(&self) {
        let Some(started) = self.started else {
            return;
        };
        let took = started.elapsed();
        if took > INLINE_BUDGET {
            demote(
                &self.tool,
                &format!("a call ran for {} ms", took.as_millis()),
            );
        }
    }
}

impl Drop for InlineRun {
    fn drop(&mut self) {
        self.finish();
        if self.counted {
            RUNNING.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Moves `tool` to the pool for good, saying why once.
pub(crate) fn demote(tool: &Tool, why: &str) {
    if !tool.cache::<Demoted>().0.swap(true, Ordering::SeqCst) {
        let tool = tool.name();
        tracing::warn!(
            tool,
            "tool `{tool}` is declared `inline` (quick, never blocking), but {why}; its later \
             calls run on threads of their own. Remove `inline` from a tool that can block."
        );
    }
}
