//! Running calls: `Executor::execute`, `execute_with`, `execute_batch` and what they share.

use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;

use crate::registry::{ToolFilter, ToolRegistry};
use toolwright_core::SafetyLevel;
use toolwright_core::Tool;
use toolwright_core::ToolCall;
use toolwright_core::ToolOutput;
use toolwright_core::ToolResult;

use super::handle::{CallRecord, Executor, UNKNOWN_TOOL_METRIC, no_runtime};
use super::hooks;
use super::metrics::MetricsSnapshot;
use super::options::CallOptions;
use super::outcome::{CallReport, Outcome, Stopped};
impl Executor {
    /// The registry the executor runs tools from.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.inner.registry
    }

    /// How many elicitation and sampling requests one call may make of its client
    /// ([`ExecutorBuilder::max_client_requests`](super::ExecutorBuilder::max_client_requests)).
    pub fn max_client_requests(&self) -> u32 {
        self.inner.max_client_requests
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

    /// How the tools are listed ([`ExecutorBuilder::discovery`](super::ExecutorBuilder::discovery)).
    pub fn discovery(&self) -> &super::discovery::Discovery {
        &self.inner.discovery
    }

    /// The tools to list for a caller whose ceiling is `ceiling` (under the executor's):
    /// every available tool, or in a search-first list the core then `search_tools`,
    /// `describe_tool` and `call_tool`. Every available tool stays callable either way.
    pub fn listed_tools(&self, ceiling: SafetyLevel) -> Vec<Tool> {
        let available = self
            .inner
            .registry
            .list(&ToolFilter::new().max_safety(ceiling.min(self.inner.max_safety)));
        self.inner.discovery.listed(available)
    }

    /// Whether structured output is checked against the tool's output schema
    /// ([`ExecutorBuilder::validate_output`](super::ExecutorBuilder::validate_output)).
    pub fn validates_output(&self) -> bool {
        self.inner.validate_output
    }

    /// The most bytes of text and data one result may carry
    /// ([`ExecutorBuilder::max_output_bytes`](super::ExecutorBuilder::max_output_bytes)).
    pub fn max_output_bytes(&self) -> usize {
        self.inner.max_output_bytes
    }

    /// Every tool's counters so far.
    pub fn metrics(&self) -> MetricsSnapshot {
        let mut snapshot = self.inner.metrics.snapshot();
        snapshot.sync_threads = self.inner.pool.stats();
        snapshot
    }

    /// Runs one call. Never panics and never fails: every outcome is a [`ToolResult`] with the
    /// call's id. Needs a Tokio runtime (without one, use [`BlockingExecutor`](super::BlockingExecutor)).
    pub async fn execute(&self, call: ToolCall) -> ToolResult {
        let running = self.execute_with(call, CallOptions::new());
        running.await.result
    }

    /// Runs one call with its options (a timeout, a cancellation token, the tools offered
    /// for this turn, a caller's ceiling, the client's powers) and reports how it ended
    /// ([`Outcome`]) and which tool it named, beside the [`ToolResult`]. Front ends answer
    /// by outcome: an MCP server turns an unknown tool into a protocol error and attaches
    /// structured content only for tools that declare an output schema.
    pub async fn execute_with(&self, call: ToolCall, options: CallOptions) -> CallReport {
        // Named and attributed per the OpenTelemetry semantic conventions for generative AI
        // (`execute_tool`, `gen_ai.tool.*`); `otel.name` is the span name exporters show.
        let span = tracing::info_span!(
            "execute_tool",
            otel.name = %format_args!("execute_tool {}", call.name),
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = %call.name,
            gen_ai.tool.call.id = %call.id,
            gen_ai.tool.type = "function",
            safety = tracing::field::Empty,
        );
        let running = self.run(call, options).instrument(span);
        running.await
    }

    /// Runs every call of a turn, independent ones concurrently (up to
    /// [`concurrency`](super::ExecutorBuilder::concurrency)), every call with `options` (the tools
    /// offered for this turn ([`CallOptions::allowed_tools`]), a timeout, one cancellation
    /// token for the whole turn, a caller's ceiling), and returns exactly one result per
    /// call, in the calls' order, each with its call's id.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_core::serde_json::json;
    /// use toolwright_core::{tool, ToolCall};
    /// use toolwright_runtime::{register_all_tools, CallOptions, Executor, ToolFilter};
    ///
    /// /// Add two numbers.
    /// #[tool]
    /// fn add_numbers(a: i64, b: i64) -> i64 { a + b }
    ///
    /// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    /// let turn = CallOptions::new().allowed_tools(ToolFilter::new().names(["add_numbers"]));
    /// let results = executor
    ///     .execute_batch(vec![ToolCall::new("1", "add_numbers", json!({"a": 1, "b": 2}))], turn)
    ///     .await;
    /// assert_eq!(results[0].content, "3");
    /// # }
    /// ```
    pub async fn execute_batch(
        &self,
        calls: Vec<ToolCall>,
        options: CallOptions,
    ) -> Vec<ToolResult> {
        if tokio::runtime::Handle::try_current().is_err() {
            return calls.into_iter().map(|call| no_runtime(&call.id)).collect();
        }
        let ids: Vec<String> = calls.iter().map(|call| call.id.clone()).collect();
        let permits = Arc::new(tokio::sync::Semaphore::new(self.inner.concurrency));
        let mut tasks = tokio::task::JoinSet::new();
        for (index, call) in calls.into_iter().enumerate() {
            let executor = self.clone();
            let permits = Arc::clone(&permits);
            let options = options.clone();
            tasks.spawn(
                async move {
                    let _permit = permits.acquire_owned().await.ok();
                    (index, executor.execute_with(call, options).await.result)
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

    async fn run(&self, call: ToolCall, options: CallOptions) -> CallReport {
        let started = Instant::now();
        let ToolCall {
            id,
            name,
            arguments,
        } = call;
        // A search-first list's `call_tool` is the real call in a wrapper: unwrapped before
        // the policy, so approval, limits, hooks and metrics see (and count once) the real
        // tool, and a tool the caller may not see is unknown, as it is to `search_tools`.
        if self.unwraps(&name) {
            let (name, arguments) = match super::discovery::unwrap_call(arguments) {
                Ok(inner) => inner,
                Err(message) => {
                    let record = CallRecord::new(id, name);
                    return self.finish(record, Err(Stopped::failed(message)), started);
                }
            };
            let mut record = CallRecord::new(id, name);
            let output = match self.hidden_from(&record.name, &options) {
                true => Err(self.unknown_tool(&record.name, &options)),
                false => self.admit_and_run(&mut record, arguments, &options).await,
            };
            // An unknown name inside the wrapper is the model's mistake in a call that was
            // listed: a tool error it can read, not a protocol error.
            let output = output.map_err(|mut stopped| {
                if stopped.outcome == Outcome::UnknownTool {
                    stopped.outcome = Outcome::Failure;
                    stopped
                        .message
                        .push_str("; `search_tools` finds the tools you may call");
                }
                stopped
            });
            return self.finish(record, output, started);
        }
        let mut record = CallRecord::new(id, name);
        let output = self.admit_and_run(&mut record, arguments, &options).await;
        self.finish(record, output, started)
    }

    /// Whether a call of `name` is a search-first list's `call_tool`.
    fn unwraps(&self, name: &str) -> bool {
        name == super::discovery::CALL_TOOL && self.inner.discovery.is_search_first()
    }

    /// Whether `name` names a registered tool above the call's ceiling: through
    /// `call_tool`, as unknown as it is to the search.
    fn hidden_from(&self, name: &str, options: &CallOptions) -> bool {
        self.inner
            .registry
            .get(name)
            .is_some_and(|tool| tool.safety() > self.ceiling(options))
    }

    /// The result of a call that ended with `output`: metadata, metrics, hooks.
    fn finish(
        &self,
        mut record: CallRecord,
        output: Result<ToolOutput, Stopped>,
        started: Instant,
    ) -> CallReport {
        if !self.inner.hooks.is_empty() {
            record.named_event();
        }
        let CallRecord {
            id,
            name,
            tool,
            mut event,
            coerced,
        } = record;
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut pending = None;
        let mut crashed = false;
        let (mut result, outcome) = match output {
            Ok(output) => (ToolResult::from_output(id, output), Outcome::Success),
            Err(stopped) => {
                if stopped.approved.is_some() {
                    event.approved = stopped.approved;
                }
                pending = stopped.pending;
                crashed = stopped.crashed;
                (ToolResult::failure(id, stopped.message), stopped.outcome)
            }
        };
        result.metadata.pending = pending;
        result.metadata.execution_time_ms = elapsed_ms;
        result.metadata.safety_level = event.safety;
        result.metadata.approved = event.approved;
        if result.success {
            result.metadata.hunks.clone_from(&event.hunks);
        }
        result.metadata.coerced = coerced;

        let metric_name = if tool.is_some() {
            name.as_str()
        } else {
            UNKNOWN_TOOL_METRIC
        };
        self.inner
            .metrics
            .record(metric_name, outcome, elapsed_ms, result.content.len());
        if result.success {
            hooks::run_all(&self.inner.hooks, "after", |hook| {
                hook.after(&event, &result)
            });
        } else {
            tracing::debug!(error = result.error.as_deref(), "tool call failed");
            hooks::run_all(&self.inner.hooks, "error", |hook| {
                hook.error(&event, &result)
            });
        }
        CallReport {
            result,
            outcome,
            tool,
            crashed,
        }
    }
}
