//! `Executor` and what it holds: the settings every call reads, fixed when it is built.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::registry::ToolRegistry;
use toolwright_core::SafetyLevel;
use toolwright_core::Tool;
use toolwright_core::ToolResult;
use toolwright_core::ToolState;

use super::approval::ApprovalHandler;
use super::hooks::{HookEvent, ToolHook};
use super::metrics::Metrics;
use super::{guardrail, limits, pending, pool};
/// What secret argument values are replaced with in approval requests, hooks and logs.
pub const REDACTED: &str = "[redacted]";

/// The most bytes of text and data one result carries unless
/// [`ExecutorBuilder::max_output_bytes`](super::ExecutorBuilder::max_output_bytes) says otherwise: 16 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// The key metrics use for calls of tools that do not exist (so a model inventing names
/// cannot grow the metrics without bound).
pub const UNKNOWN_TOOL_METRIC: &str = "(unknown tool)";

/// Runs tool calls against a registry with a safety policy. Cheap to clone; clones share
/// metrics.
///
#[doc = include_str!("../../docs/executor.md")]
#[derive(Clone)]
pub struct Executor {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) registry: Arc<ToolRegistry>,
    /// The registry's tools under `max_safety`, for the contexts of calls with no narrower
    /// view (a view, not a listing: read only when a tool asks).
    pub(super) catalog: toolwright_core::Catalog,
    pub(super) max_safety: SafetyLevel,
    pub(super) approval: Option<Arc<dyn ApprovalHandler>>,
    pub(super) hooks: Vec<Arc<dyn ToolHook>>,
    pub(super) timeout: Option<Duration>,
    pub(super) concurrency: usize,
    pub(super) state: Arc<ToolState>,
    pub(super) lenient: bool,
    pub(super) metrics: Metrics,
    pub(super) pool: Arc<pool::Pool>,
    /// At most this many calls run at once, when set.
    pub(super) call_limit: Option<Arc<tokio::sync::Semaphore>>,
    pub(super) max_concurrent_calls: usize,
    /// Check structured output against the tool's output schema.
    pub(super) validate_output: bool,
    /// The most bytes one output may carry.
    pub(super) max_output_bytes: usize,
    /// Elicitation and sampling requests one call may make of its client.
    pub(super) max_client_requests: u32,
    /// Policy code around every call, in order.
    pub(super) guardrails: Vec<Arc<dyn guardrail::Guardrail>>,
    /// Calls deferred by the approval handler, waiting for `resume`.
    pub(super) pending: pending::PendingCalls,
    /// Per-tool call limits set on the builder (over the tools' own).
    pub(super) max_calls: std::collections::HashMap<String, u32>,
    /// The tools that may call other tools on their caller's behalf.
    pub(super) nested_calls_for: std::collections::HashSet<String>,
    /// The executor's own call counts (calls without `CallOptions::call_counts`).
    pub(super) call_counts: Arc<limits::CallCounts>,
    /// How the tools are listed: all, or search-first.
    pub(super) discovery: super::discovery::Discovery,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = &self.inner;
        f.debug_struct("Executor")
            .field("tools", &inner.registry.len())
            .field("max_safety", &inner.max_safety)
            .field("approval", &inner.approval.is_some())
            .field("hooks", &inner.hooks.len())
            .field("timeout", &inner.timeout)
            .field("concurrency", &inner.concurrency)
            .field("state", &inner.state)
            .field("lenient", &inner.lenient)
            .field("validate_output", &inner.validate_output)
            .field("max_output_bytes", &inner.max_output_bytes)
            .finish_non_exhaustive()
    }
}

/// What is known about a call as it goes through the executor.
pub(super) struct CallRecord {
    pub(super) id: String,
    pub(super) name: String,
    /// The tool, once the registry has been read.
    pub(super) tool: Option<Tool>,
    /// What hooks see; filled in as the call is admitted.
    pub(super) event: HookEvent,
    /// The argument repairs made in lenient mode.
    pub(super) coerced: Vec<String>,
}

impl CallRecord {
    /// A record of the call `id` of `name`, before the registry is read.
    pub(super) fn new(id: String, name: String) -> Self {
        CallRecord {
            // Named when hooks are about to see it: most executors have none.
            event: HookEvent {
                call_id: String::new(),
                tool: String::new(),
                safety: None,
                arguments: Value::Null,
                approved: None,
                hunks: None,
                caller: None,
            },
            id,
            name,
            tool: None,
            coerced: Vec::new(),
        }
    }

    /// What hooks see, with the call's id and tool name.
    pub(super) fn named_event(&mut self) -> &HookEvent {
        if self.event.call_id != self.id {
            self.event.call_id.clone_from(&self.id);
        }
        if self.event.tool != self.name {
            self.event.tool.clone_from(&self.name);
        }
        &self.event
    }
}

pub(super) fn no_runtime(id: &str) -> ToolResult {
    ToolResult::failure(
        id,
        "internal error: the executor was used outside a Tokio runtime; use `BlockingExecutor` \
         in programs without one",
    )
}
