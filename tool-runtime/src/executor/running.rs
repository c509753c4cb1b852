//! Running a tool once it is admitted: on the caller's task (async tools), on a task of the
//! caller's worker (quick sync tools, see `inline`) or a thread of the executor's pool (other
//! sync tools), under the call's timeout, cancellation and the
//! executor's limits, with panics caught.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::handle::Executor;
use super::hooks::panic_message;
use super::inline;
use super::options::CallOptions;
use super::outcome::{Outcome, Stopped};
use super::pool::{JobHandle, Pool};
use toolwright_core::BoxFuture;
use toolwright_core::Tool;
use toolwright_core::ToolContext;
use toolwright_core::ToolError;
use toolwright_core::ToolOutput;
use toolwright_core::file_change::ApprovedChange;

/// Where a call is, for the message of a timeout.
const STAGE_RUNNING: u8 = 0;
const STAGE_WAITING_FOR_CALL: u8 = 1;
const STAGE_WAITING_FOR_THREAD: u8 = 2;
const STAGE_RUNNING_INLINE: u8 = 3;

impl Executor {
    /// Runs the tool on the caller's task (async), a task of the caller's worker (inline
    /// sync) or a thread of the pool (other sync), with the timeout and cancellation applied.
    pub(super) async fn run_tool(
        &self,
        tool: &Tool,
        id: &str,
        arguments: Map<String, Value>,
        approved_change: Option<ApprovedChange>,
        options: &CallOptions,
    ) -> Result<ToolOutput, Stopped> {
        let name = tool.name();
        let token = CancellationToken::new();
        // Cancelled by the context when the run stops at a question only the caller's next
        // request can answer: there is such a question only with a client to ask.
        let asked = options.client.is_some().then(CancellationToken::new);
        let mut context = self.context(tool, id, token.clone(), options);
        if let Some(asked) = &asked {
            context = context.with_question_signal(asked.clone());
        }
        if let Some(change) = approved_change {
            context = context.with_approved_change(change);
        }
        // The smallest of the call's, the tool's and the executor's.
        let timeout = [options.timeout, tool.timeout(), self.inner.timeout]
            .into_iter()
            .flatten()
            .min();
        let task = match &self.inner.call_limit {
            None => {
                // Nothing can end the call before the run does (no timeout, no cancellation,
                // no question): a quick tool runs right here, on this thread.
                let nothing_stops_it =
                    timeout.is_none() && options.cancellation.is_none() && asked.is_none();
                let inline = if tool.is_async() {
                    None
                } else {
                    inline::enter(tool)
                };
                let stage = (!tool.is_async() && inline.is_none())
                    .then(|| Arc::new(AtomicU8::new(STAGE_RUNNING)));
                let task = self.start(tool, context, arguments, inline, nothing_stops_it, &stage);
                (task, stage)
            }
            // Under the executor's limit of concurrent calls, a call first waits for a slot,
            // and only then is it decided where the run goes.
            Some(limit) => {
                let stage = Arc::new(AtomicU8::new(STAGE_WAITING_FOR_CALL));
                let limit = Arc::clone(limit);
                let executor = self.clone();
                let tool = tool.clone();
                let waiting = Some(Arc::clone(&stage));
                let task = Task::Boxed(Box::pin(async move {
                    let _slot = limit.acquire_owned().await.ok();
                    set(waiting.as_deref(), STAGE_RUNNING);
                    let inline = if tool.is_async() {
                        None
                    } else {
                        inline::enter(&tool)
                    };
                    executor
                        .start(&tool, context, arguments, inline, false, &waiting)
                        .await
                }));
                (task, Some(stage))
            }
        };
        let (mut task, stage) = task;
        // Whatever happens below, the tool is told to stop when the call ends early.
        let mut stop = StopOnDrop(Some(&token));
        let timed_out = async {
            match timeout {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let at = |wanted: u8| {
            stage
                .as_deref()
                .is_some_and(|stage| stage.load(Ordering::SeqCst) == wanted)
        };
        let joined = tokio::select! {
            joined = &mut task => joined,
            () = timed_out => {
                let limit = timeout.unwrap_or_default();
                // A quick tool still running at its timeout broke its word.
                let inline_running = match &task {
                    Task::Inline(running) => !running.0.is_finished(),
                    _ => at(STAGE_RUNNING_INLINE),
                };
                if inline_running {
                    inline::demote(tool, &format!(
                        "a call was still running when it timed out after {}",
                        format_duration(limit)
                    ));
                }
                if at(STAGE_WAITING_FOR_CALL) {
                    let limit_calls = self.inner.max_concurrent_calls;
                    return Err(Stopped::new(Outcome::TimedOut, format!(
                            "tool `{name}` could not start within {}: the executor is already \
                             running its limit of {limit_calls} concurrent calls; try again \
                             later (the application can raise \
                             `ExecutorBuilder::max_concurrent_calls`)",
                            format_duration(limit)
                        )));
                }
                if at(STAGE_WAITING_FOR_THREAD) {
                    let stats = self.inner.pool.stats();
                    return Err(Stopped::new(Outcome::TimedOut, format!(
                            "tool `{name}` could not start within {}: all {} threads for sync \
                             tools are busy ({} of them still running calls that timed out or \
                             were cancelled); try again later (the application can raise \
                             `ExecutorBuilder::max_sync_threads`)",
                            format_duration(limit),
                            stats.limit,
                            stats.abandoned
                        )));
                }
                return Err(Stopped::new(Outcome::TimedOut, format!(
                    "tool `{name}` timed out after {} and was stopped; try a smaller request",
                    format_duration(limit)
                )));
            }
            () = cancelled(options.cancellation.as_ref()) => {
                return Err(Stopped::new(Outcome::Cancelled, format!("the call of `{name}` was cancelled")));
            }
            // The run stopped at a question: the call ends here (the drop guard above stops
            // the run), and the front end returns the question to the caller.
            () = cancelled(asked.as_ref()) => {
                return Err(Stopped::new(Outcome::InputRequired, format!(
                    "tool `{name}` stopped at a question for its caller; the call runs again \
                     with the answer"
                )));
            }
        };
        // The run is over: nothing is left to stop.
        stop.0 = None;
        match joined {
            Returned::Value(Ok(output)) => Ok(output),
            Returned::Value(Err(error)) => Err(failed(name, &tool.describe_error(error))),
            Returned::Panicked(panic) => {
                tracing::error!(tool = name, call_id = id, "tool panicked: {panic}");
                Err(Stopped::crashed(format!(
                    "tool `{name}` crashed ({panic}); this is a bug in the tool, not in the arguments"
                )))
            }
        }
    }
}

impl Executor {
    /// The run of an admitted call, started where it belongs: an async tool's future, an
    /// inline sync tool (here when `right_here`, else a task of this worker), or a thread of
    /// the pool. `stage` follows a call that may wait.
    fn start(
        &self,
        tool: &Tool,
        context: ToolContext,
        arguments: Map<String, Value>,
        inline: Option<inline::InlineRun>,
        right_here: bool,
        stage: &Option<Arc<AtomicU8>>,
    ) -> Task {
        if tool.is_async() {
            // Polled right here rather than spawned: no hop to another worker thread, and
            // dropping the call drops the tool's future. A panic is caught as it unwinds.
            return Task::Async(CatchUnwind(tool.start_async(context, arguments)));
        }
        if let Some(run) = inline {
            if right_here && run.may_run_anywhere() {
                return Task::Ready(Some(run.run(|| call_sync(tool, &context, arguments))));
            }
            // A quick sync tool: a task on this worker (no other thread woken), which the
            // call waits on rather than runs in, so its timeout and cancellation still
            // answer if the tool breaks its word and blocks the worker.
            set(stage.as_deref(), STAGE_RUNNING_INLINE);
            let tool = tool.clone();
            let span = tracing::Span::current();
            return Task::Inline(AbortOnDrop(tokio::spawn(async move {
                let _entered = span.enter();
                run.run(|| call_sync(&tool, &context, arguments))
            })));
        }
        // A thread of our pool rather than Tokio's blocking pool: a sync tool that never
        // returns would otherwise hold up the runtime's shutdown (and the program's exit)
        // forever. On timeout or cancellation the thread is left to finish on its own; its
        // context is cancelled, so a cooperative tool stops early.
        let pool = Arc::clone(&self.inner.pool);
        let tool = tool.clone();
        let stage = stage.clone();
        Task::Boxed(Box::pin(async move {
            set(stage.as_deref(), STAGE_WAITING_FOR_THREAD);
            let slot = pool.slot().await;
            set(stage.as_deref(), STAGE_RUNNING);
            match run_on_thread(&pool, slot, &tool, context, arguments) {
                Ok((handle, receiver)) => {
                    let returned = receiver.await.unwrap_or_else(|_| {
                        Returned::Panicked("its thread ended without a result".to_owned())
                    });
                    handle.completed();
                    returned
                }
                Err(error) => Returned::Value(Err(ToolError::new(format!(
                    "no thread could be started for it ({error}); try again"
                )))),
            }
        }))
    }
}

/// Where a call's run is, without an allocation for calls that cannot wait.
fn set(stage: Option<&AtomicU8>, value: u8) {
    if let Some(stage) = stage {
        stage.store(value, Ordering::SeqCst);
    }
}

/// Cancels the run's token when the call stops waiting for it before the run is over,
/// whatever the reason.
struct StopOnDrop<'a>(Option<&'a CancellationToken>);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(token) = self.0 {
            token.cancel();
        }
    }
}

/// A run in progress, without a box for the common kinds.
enum Task {
    /// An async tool's future, polled on the caller's task.
    Async(CatchUnwind),
    /// An inline sync tool's task on this worker.
    Inline(AbortOnDrop<Returned>),
    /// A pooled sync tool, or a run behind the call limit.
    Boxed(BoxFuture<Returned>),
    /// An inline sync tool that already ran.
    Ready(Option<Returned>),
}

impl std::future::Future for Task {
    type Output = Returned;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Returned> {
        match self.get_mut() {
            Task::Async(future) => std::pin::Pin::new(future).poll(cx),
            Task::Boxed(future) => future.as_mut().poll(cx),
            Task::Ready(returned) => match returned.take() {
                Some(returned) => std::task::Poll::Ready(returned),
                None => std::task::Poll::Pending,
            },
            Task::Inline(running) => {
                let joined = std::task::ready!(std::pin::Pin::new(&mut running.0).poll(cx));
                std::task::Poll::Ready(match joined {
                    Ok(returned) => returned,
                    Err(error) if error.is_panic() => Returned::Panicked(format!(
                        "panicked: {}",
                        panic_message(&*error.into_panic())
                    )),
                    Err(error) => Returned::Panicked(error.to_string()),
                })
            }
        }
    }
}

/// How a tool's function came back: with its result, or with a panic (its message).
pub(super) enum Returned {
    Value(Result<ToolOutput, ToolError>),
    Panicked(String),
}

/// The failure for a tool's error: argument errors speak for themselves (they name the tool).
pub(super) fn failed(name: &str, error: &ToolError) -> Stopped {
    Stopped::failed(match error {
        ToolError::InvalidArguments(_) => error.to_string(),
        _ => format!("tool `{name}` failed: {error}"),
    })
}

/// Runs a sync tool on a worker thread of `pool`; the receiver gets its result or its panic
/// message, and dropping the handle before that marks the call abandoned.
fn run_on_thread(
    pool: &Arc<Pool>,
    slot: tokio::sync::OwnedSemaphorePermit,
    tool: &Tool,
    context: ToolContext,
    arguments: Map<String, Value>,
) -> std::io::Result<(JobHandle, tokio::sync::oneshot::Receiver<Returned>)> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let tool = tool.clone();
    let span = tracing::Span::current();
    let handle = pool.run(slot, move || {
        let _entered = span.enter();
        let returned = call_sync(&tool, &context, arguments);
        // The caller may have stopped waiting (timeout, cancellation); that is fine.
        let _ = sender.send(returned);
    })?;
    Ok((handle, receiver))
}

/// Calls a sync tool's function here, its panic caught.
fn call_sync(tool: &Tool, context: &ToolContext, arguments: Map<String, Value>) -> Returned {
    match std::panic::catch_unwind(AssertUnwindSafe(|| {
        tool.call_sync_raw(context, arguments).unwrap_or_else(|| {
            Err(ToolError::new(
                "internal error: an async tool was run as sync",
            ))
        })
    })) {
        Ok(value) => Returned::Value(value),
        Err(payload) => Returned::Panicked(format!("panicked: {}", panic_message(&*payload))),
    }
}

/// An async tool's future, whose panics become [`Returned::Panicked`] instead of unwinding
/// into the executor.
struct CatchUnwind(BoxFuture<Result<ToolOutput, ToolError>>);

impl std::future::Future for CatchUnwind {
    type Output = Returned;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let future = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Ok(std::task::Poll::Ready(value)) => std::task::Poll::Ready(Returned::Value(value)),
            Err(payload) => std::task::Poll::Ready(Returned::Panicked(format!(
                "panicked: {}",
                panic_message(&*payload)
            ))),
        }
    }
}

/// A spawned task that is aborted if the call stops waiting for it.
pub(super) struct AbortOnDrop<T>(pub(super) JoinHandle<T>);

impl<T> AbortOnDrop<T> {
    /// The task's value, or its panic message.
    pub(super) async fn join(mut self) -> Result<T, String> {
        match (&mut self.0).await {
            Ok(value) => Ok(value),
            Err(error) if error.is_panic() => {
                Err(format!("panicked: {}", panic_message(&*error.into_panic())))
            }
            Err(error) => Err(error.to_string()),
        }
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub(super) async fn cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds >= 1.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{} ms", duration.as_millis())
    }
}
