//! What operators and load balancers see: `/healthz`, `/readyz`, `/metrics` (Prometheus), and
//! the gate that drains the server (new requests refused, requests in flight counted).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CONNECTION, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use tokio::sync::watch;
use toolwright_runtime::executor::{HookEvent, ToolHook, UNKNOWN_TOOL_METRIC};
use toolwright_runtime::{Executor, ToolResult};

use crate::jsonrpc::Incoming;
use crate::sessions::LimitedSessionManager;

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
pub struct PrometheusMetrics {
    latency: Family<Labels, Histogram, fn() -> Histogram>,
    result_bytes: Family<Labels, Histogram, fn() -> Histogram>,
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
        }
    }

    fn observe(&self, event: &HookEvent, result: &ToolResult) {
        // A tool that exists has a safety level; any other name is counted as unknown.
        let tool = if event.safety.is_some() {
            event.tool.as_str()
        } else {
            UNKNOWN_TOOL_METRIC
        };
        let labels = vec![("tool".to_owned(), tool.to_owned())];
        self.latency
            .get_or_create(&labels)
            .observe(result.metadata.execution_time_ms / 1000.0);
        self.result_bytes
            .get_or_create(&labels)
            .observe(result.content.len() as f64);
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
        self.render_with(executor, None)
    }

    pub(crate) fn render_with(&self, executor: &Executor, server: Option<ServerGauges>) -> String {
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
            for (reason, count) in server.refusals {
                refusals
                    .get_or_create(&vec![("reason".to_owned(), reason.to_owned())])
                    .inc_by(count);
            }
            registry.register(
                "refusals",
                "Connections, sessions and tool calls refused by a limit: reason=\"connections\" (max connections), \"sessions\" (max sessions), \"principal_sessions\" and \"principal_calls\" (one caller's share)",
                refusals,
            );
        }
        let mut text = String::new();
        if let Err(error) = encode(&mut text, &registry) {
            tracing::error!(%error, "could not encode the metrics");
        }
        text
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
    sessions: usize,
    requests: usize,
    draining: bool,
    /// `(reason, count)` of refusals by a limit.
    refusals: [(&'static str, u64); 4],
}

/// A count of things in progress that can be waited on until it is zero. Clones share it.
#[derive(Clone, Debug)]
pub(crate) struct InFlight(Arc<watch::Sender<usize>>);

impl Default for InFlight {
    fn default() -> Self {
        InFlight(Arc::new(watch::Sender::new(0)))
    }
}

impl InFlight {
    pub(crate) fn enter(&self) -> InFlightGuard {
        self.0.send_modify(|count| *count += 1);
        InFlightGuard(Arc::clone(&self.0))
    }

    pub(crate) fn count(&self) -> usize {
        *self.0.borrow()
    }

    /// Returns once nothing is in progress.
    pub(crate) async fn idle(&self) {
        let mut receiver = self.0.subscribe();
        // The sender lives in `self`: `wait_for` cannot fail while we hold it.
        let _ = receiver.wait_for(|count| *count == 0).await;
    }
}

/// One thing in progress, until dropped.
#[derive(Debug)]
pub(crate) struct InFlightGuard(Arc<watch::Sender<usize>>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.send_modify(|count| *count = count.saturating_sub(1));
    }
}

/// What the ops endpoints and the drain gate share.
pub(crate) struct Ops {
    pub(crate) draining: AtomicBool,
    /// POST requests to `/mcp` whose answer is not fully sent.
    pub(crate) requests: InFlight,
    /// Tool calls running in [`McpServer`](crate::McpServer).
    pub(crate) calls: InFlight,
    pub(crate) sessions: Arc<LimitedSessionManager>,
    pub(crate) metrics: Arc<PrometheusMetrics>,
    pub(crate) executor: Executor,
    pub(crate) max_body: usize,
    /// Requests and connections refused by a limit.
    pub(crate) refusals: Arc<crate::owners::Refusals>,
}

impl Ops {
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Returns once no request and no tool call is in progress.
    pub(crate) async fn idle(&self) {
        loop {
            self.requests.idle().await;
            self.calls.idle().await;
            if self.requests.count() == 0 {
                return;
            }
        }
    }
}

/// `GET /healthz`: the process serves.
pub(crate) async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /readyz`: whether new requests are accepted.
pub(crate) async fn readyz(State(ops): State<Arc<Ops>>) -> Response {
    if ops.is_draining() {
        (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response()
    } else {
        "ready\n".into_response()
    }
}

/// `GET /metrics`: Prometheus text.
pub(crate) async fn metrics(State(ops): State<Arc<Ops>>) -> Response {
    let text = ops.metrics.render_with(
        &ops.executor,
        Some(ServerGauges {
            sessions: ops.sessions.open_sessions(),
            requests: ops.requests.count(),
            draining: ops.is_draining(),
            refusals: ops.refusals.snapshot(),
        }),
    );
    let mut response = text.into_response();
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}

/// The middleware in front of `/mcp` (outermost): counts POST requests until their answer is
/// sent, and while draining refuses new work with `503`. What an existing session still needs
/// to finish its calls passes: answers to the server's own requests (an approval through
/// elicitation), notifications (a cancellation), and closing the session.
pub(crate) async fn gate(State(ops): State<Arc<Ops>>, request: Request, next: Next) -> Response {
    // Counted before the draining check, so a drain that starts in between waits for it.
    let guard = (request.method() == Method::POST).then(|| ops.requests.enter());
    let request = if ops.is_draining() {
        match finishing_work(request, ops.max_body).await {
            Ok(request) => request,
            Err(refusal) => return refusal,
        }
    } else {
        request
    };
    let response = next.run(request).await;
    match guard {
        None => response,
        Some(guard) => response.map(|body| {
            Body::new(Guarded {
                body,
                _guard: guard,
            })
        }),
    }
}

/// `request` back when it only helps work already under way finish, else the refusal.
async fn finishing_work(request: Request, max_body: usize) -> Result<Request, Response> {
    let refusal = || {
        let mut response = (
            StatusCode::SERVICE_UNAVAILABLE,
            "this MCP server is shutting down and takes no new requests; retry on another \
             instance or after it restarts\n",
        )
            .into_response();
        let headers = response.headers_mut();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("5"));
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
        response
    };
    if request.method() == Method::DELETE {
        return Ok(request);
    }
    if request.method() != Method::POST || !request.headers().contains_key("mcp-session-id") {
        return Err(refusal());
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, max_body).await else {
        return Err(refusal());
    };
    // A request starts work; answers and notifications (a cancellation) help finish it.
    // What is not a valid message is refused here too.
    let starts_work = !matches!(
        crate::jsonrpc::check(&bytes),
        Ok(Incoming::Other | Incoming::Cancelled { .. })
    );
    if starts_work {
        return Err(refusal());
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// A response body that holds a guard until it is sent (or dropped).
struct Guarded {
    body: Body,
    _guard: InFlightGuard,
}

impl http_body::Body for Guarded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn in_flight_counts_until_the_guards_drop() {
        let in_flight = InFlight::default();
        let first = in_flight.enter();
        let second = in_flight.clone().enter();
        assert_eq!(in_flight.count(), 2);
        drop(first);
        let waiter = tokio::spawn({
            let in_flight = in_flight.clone();
            async move { in_flight.idle().await }
        });
        drop(second);
        waiter.await.unwrap();
        assert_eq!(in_flight.count(), 0);
    }
}
