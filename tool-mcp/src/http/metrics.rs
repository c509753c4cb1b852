//! Prometheus metrics (feature `metrics`): [`PrometheusMetrics`], the per-tool histograms
//! a hook records, and the HTTP server's `/metrics`, which shows them with the executor's
//! counters and the server's gauges.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use toolwright_core::ToolResult;
use toolwright_runtime::Executor;
use toolwright_runtime::executor::{HookEvent, ToolHook, UNKNOWN_TOOL_METRIC};

/// Label sets: `[("tool", name)]` or `[("state", ...)]`.
type Labels = Vec<(String, String)>;

/// Reads one counter of a tool's metrics.
type ReadCounter = fn(&toolwright_runtime::executor::ToolMetrics) -> u64;

/// Upper bounds of the latency histogram's buckets, in seconds.
const LATENCY_BUCKETS: [f64; 16] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0,
];

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// Upper bounds of the result-size histogram's buckets, in bytes (64 B to 4 MiB, by 4).
const RESULT_BYTES_BUCKETS: [f64; 9] = [
    64.0,
    256.0,
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
];

fn result_bytes_histogram() -> Histogram {
    Histogram::new(RESULT_BYTES_BUCKETS)
}

/// A latency histogram and a result-size histogram per tool for Prometheus, recorded by a
/// [`ToolHook`]; the HTTP server's `/metrics` shows them with the executor's counters.
///
/// A result's size is the bytes of its `content`, the text the model receives (as
/// [`ResultSizeStats`](toolwright_runtime::executor::ResultSizeStats) counts it).
///
/// Add it to the executor with
/// [`ExecutorBuilder::shared_hook`](toolwright_runtime::ExecutorBuilder::shared_hook) and give the
/// same value to [`HttpOptions::metrics`](crate::HttpOptions::metrics):
///
/// ```
/// use std::sync::Arc;
/// use toolwright_mcp::{HttpOptions, PrometheusMetrics};
/// use toolwright_runtime::{Executor, ToolRegistry};
///
/// let metrics = Arc::new(PrometheusMetrics::new());
/// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
///     .shared_hook(metrics.clone())
///     .build();
/// let options = HttpOptions::new().metrics(metrics);
/// # let _ = (executor, options);
/// ```
///
/// Calls of tools that do not exist are recorded under
/// [`UNKNOWN_TOOL_METRIC`](toolwright_runtime::executor::UNKNOWN_TOOL_METRIC), so a model inventing
/// names cannot grow the metrics without bound.
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub struct PrometheusMetrics {
    latency: Family<Labels, Histogram, fn() -> Histogram>,
    result_bytes: Family<Labels, Histogram, fn() -> Histogram>,
    /// Each tool's two histograms (the families' own, shared), found by name without
    /// building a label set per call.
    handles: RwLock<HashMap<String, (Histogram, Histogram)>>,
}

impl Default for PrometheusMetrics {
    fn default() -> Self {
        PrometheusMetrics::new()
    }
}

impl std::fmt::Debug for PrometheusMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrometheusMetrics").finish_non_exhaustive()
    }
}

impl PrometheusMetrics {
    /// Empty histograms.
    ///
    /// ```
    /// let metrics = toolwright_mcp::PrometheusMetrics::new();
    /// # let _ = metrics;
    /// ```
    pub fn new() -> Self {
        PrometheusMetrics {
            latency: Family::new_with_constructor(latency_histogram),
            result_bytes: Family::new_with_constructor(result_bytes_histogram),
            handles: RwLock::default(),
        }
    }

    fn observe(&self, event: &HookEvent, result: &ToolResult) {
        // A tool that exists has a safety level; any other name is counted as unknown.
        let tool = if event.safety.is_some() {
            event.tool.as_str()
        } else {
            UNKNOWN_TOOL_METRIC
        };
        let observe = |(latency, bytes): &(Histogram, Histogram)| {
            latency.observe(result.metadata.execution_time_ms / 1000.0);
            bytes.observe(result.content.len() as f64);
        };
        if let Some(handles) = self
            .handles
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
        {
            observe(handles);
            return;
        }
        // The tool's first call: its label set, once.
        let labels = vec![("tool".to_owned(), tool.to_owned())];
        let handles = (
            self.latency.get_or_create(&labels).clone(),
            self.result_bytes.get_or_create(&labels).clone(),
        );
        observe(&handles);
        self.handles
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(tool.to_owned(), handles);
    }

    /// The Prometheus text for `executor`'s counters, this histogram, and the server's state.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::PrometheusMetrics;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let text = PrometheusMetrics::new().render(&executor);
    /// assert!(text.contains("mcp_sync_threads{state=\"limit\"}"));
    /// assert!(text.ends_with("# EOF\n"));
    /// ```
    pub fn render(&self, executor: &Executor) -> String {
        self.render_with(executor, None, &[])
    }

    pub(crate) fn render_with(
        &self,
        executor: &Executor,
        server: Option<ServerGauges>,
        sources: &[std::sync::Arc<dyn crate::status::StatusSource>],
    ) -> String {
        let snapshot = executor.metrics();
        let mut registry = Registry::with_prefix("mcp");
        let counters: [(&str, &str, ReadCounter); 4] = [
            ("tool_calls", "Tool calls received", |m| m.calls),
            (
                "tool_failures",
                "Tool calls that did not succeed, denials and timeouts included",
                |m| m.failures,
            ),
            (
                "tool_denials",
                "Tool calls refused by the policy or an approval",
                |m| m.denials,
            ),
            ("tool_timeouts", "Tool calls that ran out of time", |m| {
                m.timeouts
            }),
        ];
        for (name, help, read) in counters {
            let family = Family::<Labels, Counter>::default();
            for (tool, metrics) in &snapshot.tools {
                family
                    .get_or_create(&vec![("tool".to_owned(), tool.clone())])
                    .inc_by(read(metrics));
            }
            registry.register(name, help, family);
        }
        registry.register(
            "tool_call_duration_seconds",
            "How long tool calls took, from receipt to result",
            self.latency.clone(),
        );
        registry.register(
            "tool_result_bytes",
            "Bytes of the content of tool results, the text the model receives",
            self.result_bytes.clone(),
        );
        let largest = Family::<Labels, Gauge>::default();
        for (tool, metrics) in &snapshot.tools {
            largest
                .get_or_create(&vec![("tool".to_owned(), tool.clone())])
                .set(i64::try_from(metrics.result_size.max_bytes).unwrap_or(i64::MAX));
        }
        registry.register(
            "tool_result_bytes_max",
            "Bytes of the content of the largest tool result",
            largest,
        );
        let threads = Family::<Labels, Gauge>::default();
        let stats = &snapshot.sync_threads;
        for (state, value) in [
            ("limit", stats.limit),
            ("alive", stats.threads),
            ("busy", stats.busy),
            ("abandoned", stats.abandoned),
        ] {
            threads
                .get_or_create(&vec![("state".to_owned(), state.to_owned())])
                .set(gauge_value(value));
        }
        registry.register(
            "sync_threads",
            "Threads of the sync-tool pool: the limit, alive, busy, and abandoned (busy with a call whose caller stopped waiting)",
            threads,
        );
        if let Some(server) = server {
            for (name, help, value) in [
                (
                    "sessions_open",
                    "Open MCP sessions",
                    gauge_value(server.sessions),
                ),
                (
                    "requests_in_flight",
                    "POST requests to /mcp being answered",
                    gauge_value(server.requests),
                ),
                (
                    "connections_open",
                    "Open HTTP connections",
                    gauge_value(server.connections),
                ),
                (
                    "listen_streams_open",
                    "Open subscriptions/listen streams",
                    gauge_value(server.listen_streams),
                ),
                (
                    "draining",
                    "1 while the server drains",
                    i64::from(server.draining),
                ),
            ] {
                let gauge = Gauge::<i64>::default();
                gauge.set(value);
                registry.register(name, help, gauge);
            }
            let refusals = Family::<Labels, Counter>::default();
            for (reason, count) in server.refusals.into_iter().chain(server.limit_refusals) {
                refusals
                    .get_or_create(&vec![("reason".to_owned(), reason.to_owned())])
                    .inc_by(count);
            }
            registry.register(
                "refusals",
                "Connections, sessions, streams and tool calls refused by a limit: reason=\"connections\" (max connections), \"sessions\" (max sessions), \"principal_sessions\" and \"principal_calls\" (one caller's share), \"address_connections\" and \"principal_connections\" (one address's or caller's share of the connections), \"evicted_connections\" (a connection of the caller holding the most closed to make room), \"listen_streams\" (one caller's share of subscriptions/listen streams), \"body_timeout\" (a request body slower than the body read timeout), \"address_sessions\" (one address's share of sessions, without authentication), \"pending_approvals\", \"tasks\" and \"request_states\" (one caller's share or the server's limit of waiting approvals, tasks and used request states)",
                refusals,
            );
        }
        for source in sources {
            register_source(&mut registry, source.metrics());
        }
        let mut text = String::new();
        if let Err(error) = encode(&mut text, &registry) {
            tracing::error!(%error, "could not encode the metrics");
        }
        text
    }
}

/// A status source's metrics, registered under the server's prefix.
fn register_source(registry: &mut Registry, metrics: Vec<crate::status::StatusMetric>) {
    use crate::status::MetricKind;
    use std::sync::atomic::AtomicU64;
    for metric in metrics {
        match metric.kind {
            MetricKind::Counter => {
                let family = Family::<Labels, Counter<f64, AtomicU64>>::default();
                for sample in metric.samples {
                    family
                        .get_or_create(&sample.labels)
                        .inc_by(sample.value.max(0.0));
                }
                registry.register(metric.name, metric.help, family);
            }
            MetricKind::Gauge => {
                let family = Family::<Labels, Gauge<f64, AtomicU64>>::default();
                for sample in metric.samples {
                    family.get_or_create(&sample.labels).set(sample.value);
                }
                registry.register(metric.name, metric.help, family);
            }
        }
    }
}

fn gauge_value(value: usize) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl ToolHook for PrometheusMetrics {
    fn after(&self, event: &HookEvent, result: &ToolResult) {
        self.observe(event, result);
    }

    fn error(&self, event: &HookEvent, result: &ToolResult) {
        self.observe(event, result);
    }
}

/// The server's own numbers for `/metrics`.
pub(crate) struct ServerGauges {
    pub(crate) sessions: usize,
    pub(crate) requests: usize,
    pub(crate) draining: bool,
    /// Connections open.
    pub(crate) connections: usize,
    /// `subscriptions/listen` streams open.
    pub(crate) listen_streams: usize,
    /// `(reason, count)` of refusals by a limit.
    pub(crate) refusals: Vec<(&'static str, u64)>,
    /// `(reason, count)` of approvals, tasks and request states refused by a limit.
    pub(crate) limit_refusals: [(&'static str, u64); 3],
}
