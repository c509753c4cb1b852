//! The executor: runs the calls a model asked for, enforcing the safety policy, and turns
//! every outcome (success, error, panic, timeout, denial) into a [`ToolResult`].

mod approval;
mod blocking;
mod hooks;
mod lenient;
mod metrics;
mod pool;

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

pub use approval::{ApprovalDecision, ApprovalHandler, ApprovalRequest};
pub use blocking::BlockingExecutor;
pub use hooks::{AuditLog, HookEvent, ToolHook};
pub use metrics::{LatencyStats, MetricsSnapshot, ToolMetrics};
pub use pool::SyncThreadStats;

use crate::args::describe_value;
use crate::context::{Progress, ProgressReporter};
use crate::suggest::did_you_mean;
use crate::{
    BoxFuture, SafetyLevel, Tool, ToolCall, ToolContext, ToolError, ToolFilter, ToolOutput,
    ToolRegistry, ToolResult, ToolState,
};
use metrics::{Metrics, Outcome};

/// What secret argument values are replaced with in approval requests, hooks and logs.
pub const REDACTED: &str = "[redacted]";

/// The key metrics use for calls of tools that do not exist (so a model inventing names
/// cannot grow the metrics without bound).
pub const UNKNOWN_TOOL_METRIC: &str = "(unknown tool)";

const DEFAULT_CONCURRENCY: usize = 16;

/// Runs tool calls against a registry with a safety policy.
///
/// - **safe** tools run at once; **cautious** ones are logged (a `tracing` event at `INFO`
///   with the tool, call id and redacted arguments), then run; **dangerous** ones run only
///   when the approval handler approves (or modifies the arguments, which are validated
///   again). No handler means dangerous tools are refused.
/// - Tools above [`max_safety`](ExecutorBuilder::max_safety) are refused without running.
/// - Nothing escapes: a handler's error, a panic, a timeout, a cancellation, an unknown or
///   disabled tool, malformed arguments: each is a failed [`ToolResult`] with a message the
///   model can act on.
/// - Async tools run on the Tokio runtime; sync tools on its blocking pool.
///
/// Cheap to clone; clones share metrics.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::{sync::Arc, time::Duration};
/// use serde_json::json;
/// use tool_runtime::{tool, register_all_tools, ApprovalDecision, ApprovalRequest, Executor, SafetyLevel, ToolCall};
///
/// /// Remove a file.
/// #[tool(safety = "dangerous")]
/// fn remove_file(path: String) -> String { format!("removed {path}") }
///
/// let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
///     .max_safety(SafetyLevel::Dangerous)
///     .approval(|request: ApprovalRequest| async move {
///         if request.arguments["path"].as_str().is_some_and(|p| p.starts_with("tmp/")) {
///             ApprovalDecision::Approved
///         } else {
///             ApprovalDecision::Denied { reason: "only files under tmp/ may be removed".into() }
///         }
///     })
///     .timeout(Duration::from_secs(30))
///     .build();
///
/// let ok = executor.execute(ToolCall::new("1", "remove_file", json!({"path": "tmp/a"}))).await;
/// assert_eq!(ok.content, "removed tmp/a");
/// let denied = executor.execute(ToolCall::new("2", "remove_file", json!({"path": "src/main.rs"}))).await;
/// assert!(!denied.success);
/// assert_eq!(denied.metadata.approved, Some(false));
/// # }
/// ```
#[derive(Clone)]
pub struct Executor {
    inner: Arc<Inner>,
}

/// Where a call is, for the message of a timeout (see `Executor::run_tool`).
const STAGE_RUNNING: u8 = 0;
const STAGE_WAITING_FOR_CALL: u8 = 1;
const STAGE_WAITING_FOR_THREAD: u8 = 2;

struct Inner {
    registry: Arc<ToolRegistry>,
    max_safety: SafetyLevel,
    approval: Option<Arc<dyn ApprovalHandler>>,
    hooks: Vec<Arc<dyn ToolHook>>,
    timeout: Option<Duration>,
    concurrency: usize,
    state: Arc<ToolState>,
    lenient: bool,
    metrics: Metrics,
    pool: Arc<pool::Pool>,
    /// At most this many calls run at once, when set.
    call_limit: Option<Arc<tokio::sync::Semaphore>>,
    max_concurrent_calls: usize,
}

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
    /// # use tool_runtime::{AuditLog, Executor, ToolRegistry};
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
    /// [`CallOptions::timeout`] wins.
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
    /// this limit as *abandoned* ([`SyncThreadStats`] in [`Executor::metrics`]); tools that
    /// check [`ToolContext::is_cancelled`] give their thread back at once. When every thread
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

    /// A value tools can read through [`ToolContext::state`]; one per type.
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
                registry: self.registry,
                max_safety: self.max_safety,
                approval: self.approval,
                hooks: self.hooks,
                timeout: self.timeout,
                concurrency: self.concurrency,
                state: Arc::new(self.state),
                lenient: self.lenient,
                metrics: Metrics::default(),
                pool: pool::Pool::new(self.max_sync_threads),
                call_limit: self
                    .max_concurrent_calls
                    .map(|limit| Arc::new(tokio::sync::Semaphore::new(limit))),
                max_concurrent_calls: self.max_concurrent_calls.unwrap_or(0),
            }),
        }
    }
}

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
    timeout: Option<Duration>,
    cancellation: Option<CancellationToken>,
    approval: Option<Arc<dyn ApprovalHandler>>,
    progress: Option<ProgressReporter>,
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
    /// [`ToolContext`], an async tool is stopped, and the result is a failure.
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

    /// Where the tool's [`ToolContext::report_progress`] reports go for this call.
    pub fn progress(mut self, reporter: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(reporter));
        self
    }
}

/// The reason a call did not run, with what the metrics and result need.
struct Refusal {
    message: String,
    outcome: Outcome,
    approved: Option<bool>,
}

impl Refusal {
    fn failed(message: String) -> Self {
        Refusal {
            message,
            outcome: Outcome::Failure,
            approved: None,
        }
    }

    fn denied(message: String) -> Self {
        Refusal {
            message,
            outcome: Outcome::Denied,
            approved: Some(false),
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
            max_sync_threads: pool::DEFAULT_SYNC_THREADS,
            max_concurrent_calls: None,
        }
    }

    /// The registry the executor runs tools from.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.inner.registry
    }

    /// Whether the executor has an approval handler (without one, dangerous tools are refused).
    pub fn has_approval_handler(&self) -> bool {
        self.inner.approval.is_some()
    }

    /// The highest safety level the executor runs.
    pub fn max_safety(&self) -> SafetyLevel {
        self.inner.max_safety
    }

    /// The tools a model may call through this executor: enabled, at or under the safety
    /// ceiling, by priority then name.
    pub fn available_tools(&self) -> Vec<Tool> {
        self.inner
            .registry
            .list(&ToolFilter::new().max_safety(self.inner.max_safety))
    }

    /// Every tool's counters so far.
    pub fn metrics(&self) -> MetricsSnapshot {
        let mut snapshot = self.inner.metrics.snapshot();
        snapshot.sync_threads = self.inner.pool.stats();
        snapshot
    }

    /// Runs one call. Never panics and never fails: every outcome is a [`ToolResult`] with the
    /// call's id. Needs a Tokio runtime (without one, use [`BlockingExecutor`]).
    pub async fn execute(&self, call: ToolCall) -> ToolResult {
        self.execute_with(call, CallOptions::new()).await
    }

    /// Runs one call with its own timeout or cancellation token.
    pub async fn execute_with(&self, call: ToolCall, options: CallOptions) -> ToolResult {
        let span = tracing::info_span!(
            "tool_call",
            tool = %call.name,
            call_id = %call.id,
            safety = tracing::field::Empty,
        );
        self.run(call, options).instrument(span).await
    }

    /// Runs every call, independent ones concurrently (up to
    /// [`concurrency`](ExecutorBuilder::concurrency)), and returns exactly one result per
    /// call, in the calls' order, each with its call's id.
    pub async fn execute_tool_calls(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        if tokio::runtime::Handle::try_current().is_err() {
            return calls.into_iter().map(|call| no_runtime(&call.id)).collect();
        }
        let ids: Vec<String> = calls.iter().map(|call| call.id.clone()).collect();
        let permits = Arc::new(tokio::sync::Semaphore::new(self.inner.concurrency));
        let mut tasks = tokio::task::JoinSet::new();
        for (index, call) in calls.into_iter().enumerate() {
            let executor = self.clone();
            let permits = Arc::clone(&permits);
            tasks.spawn(
                async move {
                    let _permit = permits.acquire_owned().await.ok();
                    (index, executor.execute(call).await)
                }
                .in_current_span(),
            );
        }
        let mut results: Vec<Option<ToolResult>> = vec![None; ids.len()];
        while let Some(joined) = tasks.join_next().await {
            if let Ok((index, result)) = joined {
                results[index] = Some(result);
            }
        }
        results
            .into_iter()
            .zip(ids)
            .map(|(result, id)| {
                result.unwrap_or_else(|| {
                    ToolResult::failure(
                        id,
                        "internal error: the call's task ended without a result",
                    )
                })
            })
            .collect()
    }

    async fn run(&self, call: ToolCall, options: CallOptions) -> ToolResult {
        let started = Instant::now();
        let ToolCall {
            id,
            name,
            arguments,
        } = call;
        let mut event = HookEvent {
            call_id: id.clone(),
            tool: name.clone(),
            safety: None,
            arguments: Value::Null,
            approved: None,
        };
        let mut coerced = Vec::new();
        let outcome = self
            .policy_and_run(&id, &name, arguments, &options, &mut event, &mut coerced)
            .await;
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        let (mut result, metric) = match outcome {
            Ok(output) => {
                let mut result = ToolResult::success(id, output.content);
                result.structured_content = output.structured;
                (result, Outcome::Success)
            }
            Err(refusal) => {
                if refusal.approved.is_some() {
                    event.approved = refusal.approved;
                }
                (ToolResult::failure(id, refusal.message), refusal.outcome)
            }
        };
        result.metadata.execution_time_ms = elapsed_ms;
        result.metadata.safety_level = event.safety;
        result.metadata.approved = event.approved;
        result.metadata.coerced = coerced;

        let metric_name = if event.safety.is_some() {
            name.as_str()
        } else {
            UNKNOWN_TOOL_METRIC
        };
        self.inner.metrics.record(metric_name, metric, elapsed_ms);
        if result.success {
            self.run_hooks("after", |hook| hook.after(&event, &result));
        } else {
            tracing::debug!(error = result.error.as_deref(), "tool call failed");
            self.run_hooks("error", |hook| hook.error(&event, &result));
        }
        result
    }

    /// Everything between receiving a call and having its output: lookup, policy, approval,
    /// the run itself.
    async fn policy_and_run(
        &self,
        id: &str,
        name: &str,
        arguments: Value,
        options: &CallOptions,
        event: &mut HookEvent,
        coerced: &mut Vec<String>,
    ) -> Result<ToolOutput, Refusal> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(Refusal::failed(no_runtime(id).content));
        }
        let tool = self.lookup(name)?;
        event.safety = Some(tool.safety());
        tracing::Span::current().record("safety", tool.safety().as_str());

        let mut arguments = match arguments {
            Value::Object(map) => map,
            // Providers send arguments as JSON text; a provider parser passes text that is not
            // JSON through unchanged, so the model learns what was wrong with it.
            Value::String(text) => match serde_json::from_str::<Value>(&text) {
                Err(error) => {
                    return Err(Refusal::failed(format!(
                        "the arguments for tool `{name}` are not valid JSON ({error}); send a JSON \
                         object of named parameters"
                    )));
                }
                Ok(Value::Object(map)) if self.inner.lenient => {
                    coerced.push("arguments: a JSON string -> the object it contains".to_owned());
                    map
                }
                Ok(_) => return Err(not_an_object(name, &Value::String(text))),
            },
            Value::Null if self.inner.lenient => {
                coerced.push("arguments: null -> {}".to_owned());
                Map::new()
            }
            other => return Err(not_an_object(name, &other)),
        };
        if self.inner.lenient {
            coerced.extend(lenient::coerce(&tool, &mut arguments));
        }
        event.arguments = redact(&tool, &arguments);

        if !self.inner.registry.is_enabled(name) {
            return Err(Refusal::denied(format!(
                "tool `{name}` is disabled and cannot be called now"
            )));
        }
        if tool.safety() > self.inner.max_safety {
            return Err(Refusal::denied(format!(
                "tool `{name}` is {}, above this executor's limit of {}; it was not run",
                tool.safety(),
                self.inner.max_safety
            )));
        }
        match tool.safety() {
            SafetyLevel::Safe => {}
            SafetyLevel::Cautious => {
                tracing::info!(
                    tool = name,
                    call_id = id,
                    arguments = %event.arguments,
                    "running a cautious tool"
                );
            }
            SafetyLevel::Dangerous => {
                arguments = self.approve(&tool, id, arguments, event, options).await?;
            }
        }
        event.approved = Some(true);

        self.run_hooks("before", |hook| hook.before(event));
        self.run_tool(&tool, id, arguments, options).await
    }

    fn lookup(&self, name: &str) -> Result<Tool, Refusal> {
        if let Some(tool) = self.inner.registry.get(name) {
            return Ok(tool);
        }
        let visible: Vec<String> = self
            .available_tools()
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect();
        let normalized = name.trim().to_lowercase().replace(['-', ' ', '.'], "_");
        let suggestion = if visible.contains(&normalized) {
            Some(normalized.as_str())
        } else {
            did_you_mean(&normalized, visible.iter().map(String::as_str))
        };
        let valid_name = crate::builder::check_name(name).is_ok();
        let mut message = if valid_name {
            format!("unknown tool `{name}`")
        } else {
            format!(
                "invalid tool name `{}`: tool names are lowercase letters, digits and `_`, \
                 starting with a letter",
                shorten(name)
            )
        };
        match suggestion {
            Some(close) => message.push_str(&format!("; did you mean `{close}`?")),
            None if visible.is_empty() => message.push_str("; no tools are available"),
            None if visible.len() <= 20 => message.push_str(&format!(
                "; available tools: {}",
                visible
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => message.push_str(&format!(
                "; none of the {} available tools has a similar name",
                visible.len()
            )),
        }
        Err(Refusal::failed(message))
    }

    /// Asks the approval handler; the arguments to run with, or why not.
    async fn approve(
        &self,
        tool: &Tool,
        id: &str,
        arguments: Map<String, Value>,
        event: &mut HookEvent,
        options: &CallOptions,
    ) -> Result<Map<String, Value>, Refusal> {
        let name = tool.name();
        let Some(handler) = options
            .approval
            .clone()
            .or_else(|| self.inner.approval.clone())
        else {
            return Err(Refusal::denied(format!(
                "tool `{name}` is dangerous and needs approval, but no approval handler is \
                 configured; it was not run"
            )));
        };
        let preview = self.preview(tool, id, &arguments, options).await?;
        let request = ApprovalRequest {
            call_id: id.to_owned(),
            tool: name.to_owned(),
            description: tool.description().to_owned(),
            safety: tool.safety(),
            arguments: event.arguments.clone(),
            preview,
        };
        // On a task of its own, so a panicking handler is caught and a dropped call stops it.
        let decision = AbortOnDrop(tokio::spawn(
            async move { handler.approve(request).await }.in_current_span(),
        ));
        let cancelled = cancelled(options.cancellation.as_ref());
        let decision = tokio::select! {
            joined = decision.join() => joined,
            () = cancelled => return Err(Refusal::failed(format!("the call of `{name}` was cancelled while waiting for approval"))),
        };
        match decision {
            Err(panic) => {
                tracing::error!(
                    tool = name,
                    call_id = id,
                    "approval handler panicked: {panic}"
                );
                Err(Refusal::denied(format!(
                    "tool `{name}` was not run: the approval handler failed"
                )))
            }
            Ok(ApprovalDecision::Approved) => Ok(arguments),
            Ok(ApprovalDecision::Denied { reason }) => Err(Refusal::denied(format!(
                "tool `{name}` was not run: approval denied ({reason})"
            ))),
            Ok(ApprovalDecision::Modified {
                arguments: modified,
            }) => {
                let Value::Object(mut modified) = modified else {
                    return Err(Refusal::denied(format!(
                        "tool `{name}` was not run: the approver's modified arguments are not a JSON object"
                    )));
                };
                // A secret the approver saw redacted and left alone keeps its value.
                for param in tool.params().iter().filter(|p| p.is_secret()) {
                    if modified.get(param.name()).and_then(Value::as_str) == Some(REDACTED)
                        && let Some(original) = arguments.get(param.name())
                    {
                        modified.insert(param.name().to_owned(), original.clone());
                    }
                }
                event.arguments = redact(tool, &modified);
                Ok(modified)
            }
        }
    }

    /// The tool's preview of the call, computed off the async workers (it may read files). A
    /// preview that fails fails the call: there is nothing sensible to approve.
    async fn preview(
        &self,
        tool: &Tool,
        id: &str,
        arguments: &Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Option<String>, Refusal> {
        if !tool.has_preview() {
            return Ok(None);
        }
        let (tool_for_task, context, arguments) = (
            tool.clone(),
            self.context(id, CancellationToken::new(), options),
            arguments.clone(),
        );
        let joined =
            tokio::task::spawn_blocking(move || tool_for_task.preview(&context, &arguments)).await;
        let name = tool.name();
        match joined {
            Ok(Some(Ok(preview))) => Ok(Some(preview)),
            Ok(None) => Ok(None),
            Ok(Some(Err(error))) => Err(Refusal::failed(match &error {
                ToolError::InvalidArguments(_) => error.to_string(),
                _ => format!("tool `{name}` failed: {error}"),
            })),
            Err(_) => Err(Refusal::failed(format!(
                "tool `{name}` was not run: its preview crashed"
            ))),
        }
    }

    /// The context a call of this executor runs with.
    fn context(&self, id: &str, token: CancellationToken, options: &CallOptions) -> ToolContext {
        let context = ToolContext::new()
            .with_call_id(id)
            .with_state(Arc::clone(&self.inner.state))
            .with_registry(Arc::clone(&self.inner.registry), self.inner.max_safety)
            .with_cancellation(token);
        match &options.progress {
            Some(reporter) => context.with_progress(Arc::clone(reporter)),
            None => context,
        }
    }

    /// Runs the tool on the runtime (async) or its blocking pool (sync), with the timeout
    /// and cancellation applied.
    async fn run_tool(
        &self,
        tool: &Tool,
        id: &str,
        arguments: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<ToolOutput, Refusal> {
        let name = tool.name();
        let token = CancellationToken::new();
        let context = self.context(id, token.clone(), options);
        // Where the call is: waiting for a call slot, for a thread (sync tools), or running;
        // a timeout while waiting says which limit was full.
        let stage = Arc::new(AtomicU8::new(STAGE_RUNNING));
        let task: BoxFuture<SyncOutcome> = if tool.is_async() {
            // Polled right here rather than spawned: no hop to another worker thread, and
            // dropping the call drops the tool's future. A panic is caught as it unwinds.
            let tool = tool.clone();
            Box::pin(CatchUnwind(Box::pin(
                async move { tool.call_with(context, arguments).await }.in_current_span(),
            )))
        } else {
            // A thread of our pool rather than Tokio's blocking pool: a sync tool that never
            // returns would otherwise hold up the runtime's shutdown (and the program's exit)
            // forever. On timeout or cancellation the thread is left to finish on its own;
            // its context is cancelled, so a cooperative tool stops early.
            let pool = Arc::clone(&self.inner.pool);
            let tool = tool.clone();
            let stage = Arc::clone(&stage);
            Box::pin(async move {
                stage.store(STAGE_WAITING_FOR_THREAD, Ordering::SeqCst);
                let slot = pool.slot().await;
                stage.store(STAGE_RUNNING, Ordering::SeqCst);
                match run_on_thread(&pool, slot, &tool, context, arguments) {
                    Ok((handle, receiver)) => {
                        let outcome = receiver.await.unwrap_or_else(|_| {
                            Err("its thread ended without a result".to_owned())
                        });
                        handle.completed();
                        outcome
                    }
                    Err(error) => Ok(Err(ToolError::new(format!(
                        "no thread could be started for it ({error}); try again"
                    )))),
                }
            })
        };
        // Under the executor's limit of concurrent calls, a call first waits for a slot.
        let task: BoxFuture<SyncOutcome> = match &self.inner.call_limit {
            Some(limit) => {
                let limit = Arc::clone(limit);
                let stage = Arc::clone(&stage);
                stage.store(STAGE_WAITING_FOR_CALL, Ordering::SeqCst);
                Box::pin(async move {
                    let _slot = limit.acquire_owned().await.ok();
                    stage.store(STAGE_RUNNING, Ordering::SeqCst);
                    task.await
                })
            }
            None => task,
        };
        // Whatever happens below, the tool is told to stop when the call ends early.
        let _stop = token.clone().drop_guard();
        let timeout = options.timeout.or(self.inner.timeout);
        let timed_out = async {
            match timeout {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let cancelled = cancelled(options.cancellation.as_ref());
        let joined = tokio::select! {
            joined = task => joined,
            () = timed_out => {
                let limit = timeout.unwrap_or_default();
                if stage.load(Ordering::SeqCst) == STAGE_WAITING_FOR_CALL {
                    let limit_calls = self.inner.max_concurrent_calls;
                    return Err(Refusal {
                        message: format!(
                            "tool `{name}` could not start within {}: the executor is already \
                             running its limit of {limit_calls} concurrent calls; try again \
                             later (the application can raise \
                             `ExecutorBuilder::max_concurrent_calls`)",
                            format_duration(limit)
                        ),
                        outcome: Outcome::TimedOut,
                        approved: None,
                    });
                }
                if stage.load(Ordering::SeqCst) == STAGE_WAITING_FOR_THREAD {
                    let stats = self.inner.pool.stats();
                    return Err(Refusal {
                        message: format!(
                            "tool `{name}` could not start within {}: all {} threads for sync \
                             tools are busy ({} of them still running calls that timed out or \
                             were cancelled); try again later (the application can raise \
                             `ExecutorBuilder::max_sync_threads`)",
                            format_duration(limit),
                            stats.limit,
                            stats.abandoned
                        ),
                        outcome: Outcome::TimedOut,
                        approved: None,
                    });
                }
                return Err(Refusal {
                    message: format!(
                        "tool `{name}` timed out after {} and was stopped; try a smaller request",
                        format_duration(limit)
                    ),
                    outcome: Outcome::TimedOut,
                    approved: None,
                });
            }
            () = cancelled => {
                return Err(Refusal::failed(format!("the call of `{name}` was cancelled")));
            }
        };
        match joined {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(error)) => Err(Refusal::failed(match &error {
                ToolError::InvalidArguments(_) => error.to_string(),
                _ => format!("tool `{name}` failed: {error}"),
            })),
            Err(panic) => {
                tracing::error!(tool = name, call_id = id, "tool panicked: {panic}");
                Err(Refusal::failed(format!(
                    "tool `{name}` crashed ({panic}); this is a bug in the tool, not in the arguments"
                )))
            }
        }
    }

    fn run_hooks(&self, phase: &'static str, call: impl Fn(&dyn ToolHook)) {
        for hook in &self.inner.hooks {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| call(hook.as_ref())));
            if let Err(payload) = outcome {
                tracing::error!(phase, "a tool hook panicked: {}", panic_message(&*payload));
            }
        }
    }
}

/// The result of a tool, or its panic message.
type SyncOutcome = Result<Result<ToolOutput, ToolError>, String>;

/// Runs a sync tool on a worker thread of `pool`; the receiver gets its result or its panic
/// message, and dropping the handle before that marks the call abandoned.
fn run_on_thread(
    pool: &Arc<pool::Pool>,
    slot: tokio::sync::OwnedSemaphorePermit,
    tool: &Tool,
    context: ToolContext,
    arguments: Map<String, Value>,
) -> std::io::Result<(pool::JobHandle, tokio::sync::oneshot::Receiver<SyncOutcome>)> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let tool = tool.clone();
    let span = tracing::Span::current();
    let handle = pool.run(slot, move || {
        let _entered = span.enter();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            tool.call_blocking(&context, arguments).unwrap_or_else(|| {
                Err(ToolError::new(
                    "internal error: an async tool was run as sync",
                ))
            })
        }))
        .map_err(|payload| format!("panicked: {}", panic_message(&*payload)));
        // The caller may have stopped waiting (timeout, cancellation); that is fine.
        let _ = sender.send(outcome);
    })?;
    Ok((handle, receiver))
}

/// A future whose panics become `Err(message)` instead of unwinding into the executor.
struct CatchUnwind<F>(std::pin::Pin<Box<F>>);

impl<F: std::future::Future> std::future::Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let future = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Ok(std::task::Poll::Ready(value)) => std::task::Poll::Ready(Ok(value)),
            Err(payload) => {
                std::task::Poll::Ready(Err(format!("panicked: {}", panic_message(&*payload))))
            }
        }
    }
}

/// A spawned task that is aborted if the call stops waiting for it.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> AbortOnDrop<T> {
    /// The task's value, or its panic message.
    async fn join(mut self) -> Result<T, String> {
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

async fn cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// The arguments with every secret parameter's value replaced by [`REDACTED`].
pub(crate) fn redact(tool: &Tool, arguments: &Map<String, Value>) -> Value {
    let mut redacted = arguments.clone();
    for param in tool.params().iter().filter(|p| p.is_secret()) {
        if let Some(value) = redacted.get_mut(param.name())
            && !value.is_null()
        {
            *value = Value::String(REDACTED.to_owned());
        }
    }
    Value::Object(redacted)
}

fn not_an_object(name: &str, arguments: &Value) -> Refusal {
    Refusal::failed(format!(
        "arguments for tool `{name}` must be a JSON object of named parameters, got {}",
        describe_value(arguments)
    ))
}

fn no_runtime(id: &str) -> ToolResult {
    ToolResult::failure(
        id,
        "internal error: the executor was used outside a Tokio runtime; use `BlockingExecutor` \
         in programs without one",
    )
}

fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        format!("{}...", text.chars().take(MAX).collect::<String>())
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
