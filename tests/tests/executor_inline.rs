//! `#[tool(inline)]`: a quick sync tool runs on the runtime's worker, and one that breaks its
//! word (it blocks, it hangs) cannot take the executor with it: other calls are answered, its
//! own call still times out, inline runs never hold every worker, and the tool loses the
//! right to run inline.
//!
//! A test binary of its own: inline runs are counted process-wide, and these tests hold
//! workers on purpose, so they run one at a time (`SERIAL`) with no other tests beside them.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::json;
use toolwright::runtime::CallOptions;
use toolwright::runtime::executor::Outcome;
use toolwright::{Executor, ToolCall, register_all_tools, tool};

/// Every wait of these tests: long enough for any busy machine, short enough to fail
/// rather than hang CI.
const DEADLINE: Duration = Duration::from_secs(60);

/// The timeout of a call that hangs: long enough that its run has surely started on any
/// machine (a run that never started would never arrive at its gate).
const HANG_TIMEOUT: Duration = Duration::from_secs(2);

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A door a tool waits at: the test sees it arrive, and opens it.
struct Gate {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Gate {
    const fn new() -> Self {
        Gate {
            state: Mutex::new((0, false)),
            changed: Condvar::new(),
        }
    }

    /// Called by the tool: says it arrived, and waits until the door opens (at most the
    /// deadline, so a failing test cannot leave a thread behind forever).
    fn arrive_and_wait(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0 += 1;
        self.changed.notify_all();
        let _ = self
            .changed
            .wait_timeout_while(state, DEADLINE, |state| !state.1)
            .unwrap_or_else(PoisonError::into_inner);
    }

    /// Waits until `count` runs have arrived.
    fn wait_for_arrivals(&self, count: usize) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (state, timeout) = self
            .changed
            .wait_timeout_while(state, DEADLINE, |state| state.0 < count)
            .unwrap_or_else(PoisonError::into_inner);
        assert!(
            !timeout.timed_out(),
            "{} of {count} runs arrived at the gate",
            state.0
        );
    }

    fn open(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.changed.notify_all();
    }
}

static HANG: Gate = Gate::new();
static SECOND_HANG: Gate = Gate::new();
static HANG_THREADS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn thread_name() -> String {
    std::thread::current().name().unwrap_or("").to_owned()
}

/// Say which thread runs the call.
#[tool(inline)]
fn where_quick() -> String {
    thread_name()
}

/// Say which thread runs the call (a tool no test has run before its own).
#[tool(inline)]
fn where_first() -> String {
    thread_name()
}

/// Say which thread runs the call, without declaring itself quick.
#[tool]
fn where_plain() -> String {
    thread_name()
}

/// Claim to be quick, then wait at the gate.
#[tool(inline)]
fn hang_inline() -> String {
    HANG_THREADS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(thread_name());
    HANG.arrive_and_wait();
    thread_name()
}

/// Claim to be quick too, then wait at another gate.
#[tool(inline)]
fn hang_inline_too() -> String {
    let thread = thread_name();
    SECOND_HANG.arrive_and_wait();
    thread
}

static CANCELLED_GATE: Gate = Gate::new();
static ALONE: Gate = Gate::new();

/// Claim to be quick, then wait at a gate (on a runtime of one worker).
#[tool(inline)]
fn hang_alone() -> String {
    ALONE.arrive_and_wait();
    thread_name()
}
static LIMITED_GATE: Gate = Gate::new();
static LIMITED_THREADS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Claim to be quick, then wait at the gate (under an executor's call limit).
#[tool(inline)]
fn hang_limited() -> String {
    LIMITED_THREADS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(thread_name());
    LIMITED_GATE.arrive_and_wait();
    thread_name()
}

/// Claim to be quick, wait at a gate the first time, then say which thread runs the call.
#[tool(inline)]
fn wait_once() -> String {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
        CANCELLED_GATE.arrive_and_wait();
    }
    thread_name()
}

fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("test-worker")
        .enable_all()
        .build()
        .expect("a runtime")
}

fn executor() -> Executor {
    Executor::builder(Arc::new(register_all_tools().expect("the tools"))).build()
}

/// Which thread ran a call of `tool`, made from a task as a server makes it.
async fn thread_of(executor: &Executor, tool: &str) -> String {
    let call = tokio::spawn({
        let executor = executor.clone();
        let call = ToolCall::new("1", tool, json!({}));
        async move { executor.execute(call).await }
    });
    let result = tokio::time::timeout(DEADLINE, call)
        .await
        .expect("the call is answered")
        .expect("its task");
    assert!(result.success, "{result:?}");
    result.content
}

#[test]
fn a_quick_tool_runs_on_the_worker_and_a_plain_one_on_a_thread_of_its_own() {
    let _serial = serial();
    let executor = executor();
    runtime(2).block_on(async {
        assert_eq!(thread_of(&executor, "where_first").await, "test-worker");
        assert!(
            thread_of(&executor, "where_plain")
                .await
                .starts_with("tool-sync-")
        );
    });
}

#[test]
fn with_one_worker_a_quick_tool_hands_the_worker_over_and_current_thread_uses_the_pool() {
    let _serial = serial();
    let executor = executor();
    // One worker: a run that blocked it would block everything, so it hands the worker's
    // duties to another thread first, and runs on this one.
    runtime(1).block_on(async {
        assert_eq!(thread_of(&executor, "where_quick").await, "test-worker");
        // The runtime still answers while another quick tool hangs on its old worker.
        let hung = tokio::spawn({
            let executor = executor.clone();
            async move {
                executor
                    .execute_with(
                        ToolCall::new("hung", "hang_alone", json!({})),
                        CallOptions::new().timeout(HANG_TIMEOUT),
                    )
                    .await
            }
        });
        tokio::task::spawn_blocking(|| ALONE.wait_for_arrivals(1))
            .await
            .expect("the gate");
        assert!(
            thread_of(&executor, "where_plain")
                .await
                .starts_with("tool-sync-")
        );
        let report = tokio::time::timeout(DEADLINE, hung)
            .await
            .expect("the hung call is answered")
            .expect("its task");
        assert_eq!(report.outcome, Outcome::TimedOut, "{report:?}");
        ALONE.open();
    });
    // A current-thread runtime has no worker to spare at all: the pool.
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    current.block_on(async {
        assert!(
            thread_of(&executor, "where_quick")
                .await
                .starts_with("tool-sync-")
        );
    });
}

#[test]
fn a_quick_tool_that_hangs_times_out_others_are_answered_and_it_loses_inline() {
    let _serial = serial();
    let executor = executor();
    let runtime = runtime(2);
    runtime.block_on(async {
        // The hanging call holds one of the two workers, inline.
        let hung = tokio::spawn({
            let executor = executor.clone();
            async move {
                executor
                    .execute_with(
                        ToolCall::new("hung", "hang_inline", json!({})),
                        CallOptions::new().timeout(HANG_TIMEOUT),
                    )
                    .await
            }
        });
        tokio::task::spawn_blocking(|| HANG.wait_for_arrivals(1))
            .await
            .expect("the gate");
        assert_eq!(
            HANG_THREADS.lock().unwrap_or_else(PoisonError::into_inner)[0],
            "test-worker",
            "the first run is inline"
        );

        // Other calls are answered meanwhile, and so is a second quick tool that hangs: inline
        // runs never hold every worker (past one, a run hands its worker's duties over).
        assert_eq!(thread_of(&executor, "where_quick").await, "test-worker");
        let second = tokio::spawn({
            let executor = executor.clone();
            async move {
                executor
                    .execute_with(
                        ToolCall::new("second", "hang_inline_too", json!({})),
                        CallOptions::new().timeout(HANG_TIMEOUT),
                    )
                    .await
            }
        });
        tokio::task::spawn_blocking(|| SECOND_HANG.wait_for_arrivals(1))
            .await
            .expect("the gate");
        assert!(
            thread_of(&executor, "where_plain")
                .await
                .starts_with("tool-sync-")
        );
        assert_eq!(thread_of(&executor, "where_quick").await, "test-worker");

        // Both hanging calls' own timeouts still answer.
        for (call, what) in [(hung, "the first"), (second, "the second")] {
            let report = tokio::time::timeout(DEADLINE, call)
                .await
                .unwrap_or_else(|_| panic!("{what} hung call is answered"))
                .expect("its task");
            assert_eq!(report.outcome, Outcome::TimedOut, "{what}: {report:?}");
            assert!(
                report
                    .result
                    .error
                    .as_deref()
                    .is_some_and(|error| error.contains("timed out after 2.0 s")),
                "{what}: {report:?}"
            );
        }
        HANG.open();
        SECOND_HANG.open();

        // A tool still running when its call timed out runs on threads of its own from then on.
        let again = tokio::time::timeout(
            DEADLINE,
            executor.execute(ToolCall::new("again", "hang_inline", json!({}))),
        )
        .await
        .expect("the call is answered");
        assert!(again.success, "{again:?}");
        let threads = HANG_THREADS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        assert_eq!(threads.len(), 2, "{threads:?}");
        assert!(threads[1].starts_with("tool-sync-"), "{threads:?}");
    });
    // The worker the hung run held is free again: the runtime shuts down.
    drop(runtime);
}

#[test]
fn a_caller_that_cancels_cannot_take_inline_from_the_others() {
    let _serial = serial();
    let executor = executor();
    runtime(2).block_on(async {
        let cancel = toolwright::model::CancellationToken::new();
        let call = tokio::spawn({
            let executor = executor.clone();
            let options = CallOptions::new().cancellation(cancel.clone());
            async move {
                executor
                    .execute_with(ToolCall::new("1", "wait_once", json!({})), options)
                    .await
            }
        });
        tokio::task::spawn_blocking(|| CANCELLED_GATE.wait_for_arrivals(1))
            .await
            .expect("the gate");
        cancel.cancel();
        let report = tokio::time::timeout(DEADLINE, call)
            .await
            .expect("the cancelled call is answered")
            .expect("its task");
        assert_eq!(report.outcome, Outcome::Cancelled, "{report:?}");
        CANCELLED_GATE.open();
        // Other callers' calls still run inline, once the cancelled run has returned (it
        // holds the one worker inline runs may have until then).
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            let thread = thread_of(&executor, "wait_once").await;
            if thread == "test-worker" {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the tool never ran inline again: {thread}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
}

#[test]
fn under_a_call_limit_quick_tools_run_inline_and_a_hang_still_times_out() {
    let _serial = serial();
    let executor = Executor::builder(Arc::new(register_all_tools().expect("the tools")))
        .max_concurrent_calls(1)
        .build();
    runtime(2).block_on(async {
        assert_eq!(thread_of(&executor, "where_quick").await, "test-worker");
        let hung = tokio::spawn({
            let executor = executor.clone();
            async move {
                executor
                    .execute_with(
                        ToolCall::new("hung", "hang_limited", json!({})),
                        CallOptions::new().timeout(HANG_TIMEOUT),
                    )
                    .await
            }
        });
        let report = tokio::time::timeout(DEADLINE, hung)
            .await
            .expect("the hung call is answered")
            .expect("its task");
        assert_eq!(report.outcome, Outcome::TimedOut, "{report:?}");
        LIMITED_GATE.wait_for_arrivals(1);
        LIMITED_GATE.open();
        let again = thread_of(&executor, "hang_limited").await;
        let threads = LIMITED_THREADS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        assert_eq!(threads[0], "test-worker", "{threads:?}");
        assert!(again.starts_with("tool-sync-"), "{again}: {threads:?}");
    });
}
