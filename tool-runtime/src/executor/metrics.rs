//! Per-tool counts, latencies and result sizes.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::outcome::Outcome;

/// Latencies kept per tool for percentiles: the most recent calls.
const LATENCY_WINDOW: usize = 1024;

#[derive(Default)]
struct ToolCounters {
    calls: u64,
    successes: u64,
    failures: u64,
    denials: u64,
    timeouts: u64,
    total_ms: f64,
    recent_ms: VecDeque<f64>,
    result_bytes: u64,
    max_result_bytes: u64,
}

/// Counters for every tool an executor ran or refused.
#[derive(Default)]
pub(crate) struct Metrics {
    tools: Mutex<HashMap<String, ToolCounters>>,
}

impl Metrics {
    /// Counts one call of `tool` that ended with `outcome` after `elapsed_ms`, whose result's
    /// content (see [`ResultSizeStats`]) is `result_bytes` long.
    pub(crate) fn record(
        &self,
        tool: &str,
        outcome: Outcome,
        elapsed_ms: f64,
        result_bytes: usize,
    ) {
        let mut tools = self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The name is copied only the first time the tool is counted.
        let counters = match tools.get_mut(tool) {
            Some(counters) => counters,
            None => tools.entry(tool.to_owned()).or_default(),
        };
        counters.calls += 1;
        match outcome {
            Outcome::Success => counters.successes += 1,
            // A deferred call has not run: for the counters it did not succeed.
            Outcome::Failure
            | Outcome::Cancelled
            | Outcome::UnknownTool
            | Outcome::Pending
            | Outcome::InputRequired => {
                counters.failures += 1;
            }
            Outcome::Denied => {
                counters.failures += 1;
                counters.denials += 1;
            }
            Outcome::TimedOut => {
                counters.failures += 1;
                counters.timeouts += 1;
            }
        }
        counters.total_ms += elapsed_ms;
        if counters.recent_ms.len() == LATENCY_WINDOW {
            counters.recent_ms.pop_front();
        }
        counters.recent_ms.push_back(elapsed_ms);
        let result_bytes = u64::try_from(result_bytes).unwrap_or(u64::MAX);
        counters.result_bytes = counters.result_bytes.saturating_add(result_bytes);
        counters.max_result_bytes = counters.max_result_bytes.max(result_bytes);
    }

    pub(crate) fn snapshot(&self) -> MetricsSnapshot {
        let tools = self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        MetricsSnapshot {
            tools: tools
                .iter()
                .map(|(name, c)| {
                    let mut sorted: Vec<f64> = c.recent_ms.iter().copied().collect();
                    sorted.sort_by(f64::total_cmp);
                    let percentile = |p: f64| -> f64 {
                        if sorted.is_empty() {
                            return 0.0;
                        }
                        let rank =
                            ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
                        sorted[rank - 1]
                    };
                    (
                        name.clone(),
                        ToolMetrics {
                            calls: c.calls,
                            successes: c.successes,
                            failures: c.failures,
                            denials: c.denials,
                            timeouts: c.timeouts,
                            latency: LatencyStats {
                                count: c.calls,
                                mean_ms: if c.calls == 0 {
                                    0.0
                                } else {
                                    c.total_ms / c.calls as f64
                                },
                                p50_ms: percentile(0.50),
                                p99_ms: percentile(0.99),
                            },
                            result_size: ResultSizeStats {
                                count: c.calls,
                                total_bytes: c.result_bytes,
                                mean_bytes: if c.calls == 0 {
                                    0.0
                                } else {
                                    c.result_bytes as f64 / c.calls as f64
                                },
                                max_bytes: c.max_result_bytes,
                            },
                        },
                    )
                })
                .collect(),
            // Filled in by the executor, which owns the pool.
            sync_threads: super::pool::SyncThreadStats::default(),
        }
    }
}

/// Latency of a tool's calls, in milliseconds. The mean covers every call; the percentiles
/// cover the most recent 1,024.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    /// How many calls were timed.
    pub count: u64,
    /// Mean latency.
    pub mean_ms: f64,
    /// Median latency.
    pub p50_ms: f64,
    /// 99th-percentile latency.
    pub p99_ms: f64,
}

/// The size of a tool's results: the bytes of [`ToolResult::content`](toolwright_core::ToolResult::content)
/// (its UTF-8 length), the text the model receives whatever the provider's format, over
/// every call: a failure's content is its error message, which the model reads too. The
/// payload of a binary block (an image, an embedded resource) is not counted, only the text
/// that stands for it in `content`; nor is `structured_content`, which duplicates the text.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use toolwright_core::serde_json::json;
/// use toolwright_core::{tool, ToolCall};
/// use toolwright_runtime::{register_all_tools, Executor};
///
/// /// Repeat a word.
/// #[tool]
/// fn repeat_word(word: String, times: usize) -> String { word.repeat(times) }
///
/// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
/// executor.execute(ToolCall::new("1", "repeat_word", json!({"word": "ab", "times": 1}))).await;
/// executor.execute(ToolCall::new("2", "repeat_word", json!({"word": "ab", "times": 4}))).await;
/// let size = &executor.metrics().tools["repeat_word"].result_size;
/// assert_eq!((size.count, size.total_bytes, size.max_bytes), (2, 10, 8));
/// assert_eq!(size.mean_bytes, 5.0);
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultSizeStats {
    /// How many results were measured (every call).
    pub count: u64,
    /// Their bytes, added up.
    pub total_bytes: u64,
    /// The mean: `total_bytes / count` (0 without calls).
    pub mean_bytes: f64,
    /// The largest.
    pub max_bytes: u64,
}

/// One tool's counters. `failures` counts every call that did not succeed, denials and
/// timeouts included.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolMetrics {
    /// Calls received.
    pub calls: u64,
    /// Calls that succeeded.
    pub successes: u64,
    /// Calls that failed, for any reason.
    pub failures: u64,
    /// Calls refused by the policy or an approval handler.
    pub denials: u64,
    /// Calls that ran out of time.
    pub timeouts: u64,
    /// How long calls took.
    pub latency: LatencyStats,
    /// How large their results were.
    #[serde(default)]
    pub result_size: ResultSizeStats,
}

/// Every tool's counters, by name.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::Arc;
/// use toolwright_core::serde_json::json;
/// use toolwright_core::{tool, ToolCall};
/// use toolwright_runtime::{register_all_tools, Executor};
///
/// /// Double a number.
/// #[tool]
/// fn double(n: i64) -> i64 { n * 2 }
///
/// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
/// executor.execute(ToolCall::new("1", "double", json!({"n": 2}))).await;
/// let metrics = executor.metrics();
/// assert_eq!(metrics.tools["double"].successes, 1);
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricsSnapshot {
    /// Counters by tool name (unknown names included, so a model's mistakes show).
    pub tools: BTreeMap<String, ToolMetrics>,
    /// The threads sync tools run on: the limit, alive, busy, abandoned.
    #[serde(default)]
    pub sync_threads: super::pool::SyncThreadStats,
}
