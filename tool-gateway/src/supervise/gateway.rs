//! [`Gateway`]: a configuration's upstreams supervised in a registry, reloaded in place, and
//! reported to `/readyz` and `/metrics`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use toolwright_core::ToolResult;
use toolwright_mcp::status::{MetricKind, Readiness, Sample, StatusMetric, StatusSource};
use toolwright_runtime::ToolRegistry;
use toolwright_runtime::executor::{HookEvent, ToolHook};

use crate::config::{GatewayConfig, Supervision, UpstreamConfig};
use crate::upstream::MountReport;

use super::runner::{Reporter, run};
use super::status::{Cell, ReloadReport, UpstreamState, UpstreamStatus};

/// The upstreams of a configuration, each started, watched and restarted on its own in a
/// registry, and the configuration reloaded in place ([`reload`](Self::reload)).
///
/// [`start`](Self::start) returns at once: each upstream is mounted when its handshake
/// ends, so one that never answers delays no other. An upstream that is down has its
/// tools, prompts and resources withdrawn (clients get `list_changed`) until it is back.
/// Install [`hook`](Self::hook) in the executor for each upstream's calls, errors and
/// latency (and for reloads to wait for the calls of a removed upstream), and give
/// [`status_source`](Self::status_source) to the HTTP server for `/readyz` and `/metrics`.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use toolwright_gateway::{Gateway, GatewayConfig};
/// use toolwright_runtime::{Executor, ToolRegistry};
///
/// let registry = Arc::new(ToolRegistry::new());
/// let gateway = Gateway::new(Arc::clone(&registry));
/// gateway.start(GatewayConfig::load("gateway.toml".as_ref())?).await?;
/// let executor = Executor::builder(registry).shared_hook(gateway.hook()).build();
/// // ... later, on SIGHUP:
/// let report = gateway.reload(GatewayConfig::load("gateway.toml".as_ref())?).await;
/// eprintln!("reloaded: {report}");
/// # let _ = executor;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Gateway {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("upstreams", &self.upstreams())
            .finish_non_exhaustive()
    }
}

struct Shared {
    registry: Arc<ToolRegistry>,
    reporter: Mutex<Reporter>,
    /// Whether a failed or ended upstream is started again ([`Gateway::once`] says no).
    restart: std::sync::atomic::AtomicBool,
    /// Bumped at every change of an upstream's life.
    events: Arc<watch::Sender<u64>>,
    /// The running configuration; held across a reload, so two do not interleave.
    current: tokio::sync::Mutex<Current>,
    /// The cells running now, by namespace (a copy of `current`'s, read without waiting).
    cells: Mutex<BTreeMap<String, Arc<Cell>>>,
    /// Calls in flight by call id and tool (two sessions may use the same request id):
    /// the upstream they went to, and since when.
    calls: Mutex<HashMap<(String, String), Vec<Started>>>,
}

/// A call in flight: the upstream it went to, and since when.
type Started = (Arc<Cell>, Instant);

/// What runs now.
#[derive(Default)]
struct Current {
    /// Whether `start` ran (the declared resources and prompts registered).
    started: bool,
    /// The file's `[serve]`, `[[resources]]` and `[[prompts]]`, as TOML.
    fixed: BTreeMap<&'static str, Option<toml::Value>>,
    upstreams: BTreeMap<String, Running>,
}

/// One upstream running: what it was started from, and its runner.
struct Running {
    table: Option<toml::Value>,
    supervision: Supervision,
    cell: Arc<Cell>,
    task: JoinHandle<bool>,
}

/// The parts of the file that only a restart changes.
const FIXED: [&str; 3] = ["serve", "resources", "prompts"];

impl Gateway {
    /// A gateway mounting into `registry`, with no upstream yet.
    pub fn new(registry: Arc<ToolRegistry>) -> Self {
        let (events, _) = watch::channel(0);
        let reporter: Reporter = Arc::new(|namespace: &str, report: &MountReport| {
            if !report.is_clean() {
                tracing::warn!(upstream = %namespace, %report, "mounted with exceptions");
            }
        });
        Gateway {
            shared: Arc::new(Shared {
                registry,
                reporter: Mutex::new(reporter),
                restart: std::sync::atomic::AtomicBool::new(true),
                events: Arc::new(events),
                current: tokio::sync::Mutex::new(Current::default()),
                cells: Mutex::new(BTreeMap::new()),
                calls: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Where each mount's report goes (by default a warning in `tracing` when it is not
    /// clean), at every start and re-listing of an upstream started after this call.
    #[must_use]
    pub fn on_report(self, report: impl Fn(&str, &MountReport) + Send + Sync + 'static) -> Self {
        *self
            .shared
            .reporter
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(report);
        self
    }

    /// Each upstream is started once, not again: one whose start fails (or whose
    /// connection ends) is [`Stopped`](UpstreamState::Stopped) with its last error. For a
    /// command that runs once (`toolwright list`, `call`): its upstreams still start
    /// concurrently, each within its own `handshake_timeout`, so one that never answers
    /// delays no other, and [`first_starts`](Self::first_starts) says when all are tried.
    /// Applies to the upstreams started after this call.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use toolwright_gateway::{Gateway, GatewayConfig, UpstreamState};
    /// use toolwright_runtime::ToolRegistry;
    ///
    /// let gateway = Gateway::new(Arc::new(ToolRegistry::new())).once();
    /// gateway.start(GatewayConfig::load("gateway.toml".as_ref())?).await?;
    /// gateway.first_starts().await;
    /// for down in gateway.upstreams().iter().filter(|u| u.state != UpstreamState::Up) {
    ///     eprintln!("{}: {:?}", down.namespace, down.last_error);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn once(self) -> Self {
        self.shared
            .restart
            .store(false, std::sync::atomic::Ordering::SeqCst);
        self
    }

    /// Registers the file's own resources and prompts, then starts every upstream, each in
    /// a task of its own; returns without waiting for any handshake.
    ///
    /// # Errors
    ///
    /// The registry's refusal of a declared resource or prompt (another holds its URI or
    /// name); nothing is started then.
    pub async fn start(
        &self,
        config: GatewayConfig,
    ) -> Result<ReloadReport, toolwright_runtime::RegistryError> {
        let mut current = self.shared.current.lock().await;
        if !current.started {
            config.register_declared(&self.shared.registry)?;
            current.started = true;
            current.fixed = FIXED
                .into_iter()
                .map(|key| (key, config.raw.get(key).cloned()))
                .collect();
        }
        Ok(self.apply(&mut current, config).await)
    }

    /// Applies a configuration loaded (and checked) again: upstreams new in it start,
    /// those gone from it drain (their tools withdrawn, calls in flight finishing within
    /// their `drain_timeout`) and stop, those whose table or supervision changed are
    /// stopped so and started again, and the others are left running, their sessions and
    /// calls untouched. `[serve]`, `[[resources]]` and `[[prompts]]` changes are reported
    /// in [`ReloadReport::needs_restart`] and not applied. Returns once the removed ones
    /// stopped; the new ones start in their own tasks.
    ///
    /// A configuration that does not load is never given here: the caller keeps the
    /// running one (the CLI logs the reason).
    pub async fn reload(&self, config: GatewayConfig) -> ReloadReport {
        let mut current = self.shared.current.lock().await;
        let mut report = ReloadReport::default();
        for key in FIXED {
            let now = config.raw.get(key).cloned();
            if current.fixed.get(key).is_some_and(|before| *before != now) {
                report.needs_restart.push(format!("[{key}]"));
            }
        }
        let applied = self.apply(&mut current, config).await;
        ReloadReport {
            needs_restart: report.needs_restart,
            ..applied
        }
    }

    /// Stops every upstream (each drained as a removed one is).
    pub async fn shutdown(&self) -> ReloadReport {
        let mut current = self.shared.current.lock().await;
        let mut report = ReloadReport::default();
        let running = std::mem::take(&mut current.upstreams);
        self.stop_all(running, &mut report.stopped, &mut report.undrained)
            .await;
        report
    }

    /// The upstreams now, in namespace order.
    pub fn upstreams(&self) -> Vec<UpstreamStatus> {
        self.cells().iter().map(|cell| cell.status()).collect()
    }

    /// Returns once `ready` holds of [`upstreams`](Self::upstreams), checked now and after
    /// each change of an upstream's life (a test's or an embedder's event, not a poll).
    /// Give it a deadline (`tokio::time::timeout`): it waits as long as it must.
    pub async fn wait_for(&self, mut ready: impl FnMut(&[UpstreamStatus]) -> bool) {
        let mut events = self.shared.events.subscribe();
        loop {
            events.mark_unchanged();
            if ready(&self.upstreams()) {
                return;
            }
            if events.changed().await.is_err() {
                return;
            }
        }
    }

    /// Returns once every upstream's first start has ended, up or not (each within its
    /// `handshake_timeout`): what a stdio server waits for before it answers its client,
    /// which may list the tools only once.
    pub async fn first_starts(&self) {
        self.wait_for(|statuses| statuses.iter().all(UpstreamStatus::tried))
            .await;
    }

    /// The executor hook that counts each upstream's calls, errors and latency, and its
    /// calls in flight (which a reload waits for): `Executor::builder(..).shared_hook(..)`.
    pub fn hook(&self) -> Arc<dyn ToolHook> {
        Arc::new(CallHook(Arc::clone(&self.shared)))
    }

    /// What `/readyz` and `/metrics` show of the upstreams:
    /// `HttpOptions::status_source(gateway.status_source())`. Ready once every upstream's
    /// first start ended, unless an upstream marked `required` is not up; the detail names
    /// each upstream's state, restarts and last error.
    pub fn status_source(&self) -> Arc<dyn StatusSource> {
        Arc::new(self.clone())
    }

    fn cells(&self) -> Vec<Arc<Cell>> {
        self.shared
            .cells
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// Brings `current` to `config`.
    async fn apply(&self, current: &mut Current, mut config: GatewayConfig) -> ReloadReport {
        let mut report = ReloadReport::default();
        let tables: Vec<Option<toml::Value>> = match config.raw.get("upstream") {
            Some(toml::Value::Array(tables)) => tables.iter().cloned().map(Some).collect(),
            _ => Vec::new(),
        };
        let wanted: Vec<(UpstreamConfig, Option<toml::Value>)> =
            std::mem::take(&mut config.upstream)
                .into_iter()
                .map(toml::Spanned::into_inner)
                .enumerate()
                .map(|(at, upstream)| (upstream, tables.get(at).cloned().flatten()))
                .collect();
        let mut stopping = BTreeMap::new();
        let mut keep = BTreeMap::new();
        let mut start = Vec::new();
        for (upstream, table) in wanted {
            let namespace = upstream.namespace().to_owned();
            match current.upstreams.remove(&namespace) {
                Some(running)
                    if running.table == table && running.supervision == *upstream.supervision() =>
                {
                    report.unchanged.push(namespace.clone());
                    keep.insert(namespace, running);
                }
                Some(running) => {
                    report.restarted.push(namespace.clone());
                    stopping.insert(namespace, running);
                    start.push((upstream, table));
                }
                None => {
                    report.started.push(namespace);
                    start.push((upstream, table));
                }
            }
        }
        // What is left was removed.
        report.stopped = current.upstreams.keys().cloned().collect();
        stopping.append(&mut current.upstreams);
        let mut stopped = Vec::new();
        self.stop_all(stopping, &mut stopped, &mut report.undrained)
            .await;
        current.upstreams = keep;
        let reporter = self
            .shared
            .reporter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for (upstream, table) in start {
            let namespace = upstream.namespace().to_owned();
            let supervision = *upstream.supervision();
            let cell = Arc::new(Cell::new(
                namespace.clone(),
                supervision,
                Arc::clone(&self.shared.events),
            ));
            let task = tokio::spawn(run(
                Arc::clone(&cell),
                Arc::new(upstream),
                Arc::clone(&self.shared.registry),
                reporter.clone(),
                self.shared
                    .restart
                    .load(std::sync::atomic::Ordering::SeqCst),
            ));
            current.upstreams.insert(
                namespace,
                Running {
                    table,
                    supervision,
                    cell,
                    task,
                },
            );
        }
        *self
            .shared
            .cells
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = current
            .upstreams
            .iter()
            .map(|(namespace, running)| (namespace.clone(), Arc::clone(&running.cell)))
            .collect();
        self.shared
            .events
            .send_modify(|count| *count = count.wrapping_add(1));
        tracing::info!(%report, "gateway configuration applied");
        report
    }

    /// Stops each of `running` at once and waits for all: their names to `stopped`, those
    /// not drained in time to `undrained`.
    async fn stop_all(
        &self,
        running: BTreeMap<String, Running>,
        stopped: &mut Vec<String>,
        undrained: &mut Vec<String>,
    ) {
        for running in running.values() {
            running.cell.stop.cancel();
        }
        for (namespace, running) in running {
            // A runner that panicked is stopped too; only its drain is unknown.
            if !running.task.await.unwrap_or(false) {
                undrained.push(namespace.clone());
            }
            stopped.push(namespace);
        }
    }
}

/// Counts calls by the upstream that owns their tool.
struct CallHook(Arc<Shared>);

impl CallHook {
    fn ended(&self, event: &HookEvent, result: &ToolResult) {
        let key = (event.call_id.clone(), event.tool.clone());
        let started = {
            let mut calls = self.0.calls.lock().unwrap_or_else(PoisonError::into_inner);
            let started = calls
                .get_mut(&key)
                .and_then(|started| (!started.is_empty()).then(|| started.remove(0)));
            if calls.get(&key).is_some_and(Vec::is_empty) {
                calls.remove(&key);
            }
            started
        };
        if let Some((cell, since)) = started {
            cell.call_ended(since.elapsed(), result.is_error());
        }
    }
}

impl ToolHook for CallHook {
    fn before(&self, event: &HookEvent) {
        let owner = self
            .0
            .cells
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .find(|cell| cell.owns(&event.tool))
            .cloned();
        if let Some(cell) = owner {
            cell.call_started();
            self.0
                .calls
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry((event.call_id.clone(), event.tool.clone()))
                .or_default()
                .push((cell, Instant::now()));
        }
    }

    fn after(&self, event: &HookEvent, result: &ToolResult) {
        self.ended(event, result);
    }

    fn error(&self, event: &HookEvent, result: &ToolResult) {
        self.ended(event, result);
    }
}

impl StatusSource for Gateway {
    fn readiness(&self) -> Readiness {
        let upstreams = self.upstreams();
        // Not before every first start ended (a load balancer then finds the tools), nor
        // while a required upstream is down.
        let ready = upstreams.iter().all(|upstream| {
            upstream.tried() && (!upstream.required || upstream.state == UpstreamState::Up)
        });
        let mut readiness = if ready {
            Readiness::ready()
        } else {
            Readiness::not_ready()
        };
        for upstream in &upstreams {
            let mut line = format!(
                "upstream {}: {}{}, {} tools, {} restarts",
                upstream.namespace,
                upstream.state.as_str(),
                if upstream.required { " (required)" } else { "" },
                upstream.tools,
                upstream.restarts
            );
            if let Some(error) = &upstream.last_error {
                line.push_str(&format!(", last error: {error}"));
            }
            readiness = readiness.detail(line);
        }
        readiness
    }

    fn metrics(&self) -> Vec<StatusMetric> {
        let upstreams = self.upstreams();
        let family = |name: &str, help: &str, kind, value: &dyn Fn(&UpstreamStatus) -> f64| {
            upstreams
                .iter()
                .fold(StatusMetric::new(name, help, kind), |metric, upstream| {
                    metric.sample(
                        Sample::new(value(upstream)).label("upstream", upstream.namespace.clone()),
                    )
                })
        };
        #[allow(clippy::cast_precision_loss)]
        let count = |n: u64| n as f64;
        vec![
            family(
                "gateway_upstream_up",
                "1 while the upstream is up (its tools mounted)",
                MetricKind::Gauge,
                &|u| f64::from(u8::from(u.state == UpstreamState::Up)),
            ),
            family(
                "gateway_upstream_restarts",
                "Times the upstream was started again after a failure",
                MetricKind::Counter,
                &|u| count(u.restarts),
            ),
            family(
                "gateway_upstream_calls",
                "Calls of the upstream's tools that ended",
                MetricKind::Counter,
                &|u| count(u.calls),
            ),
            family(
                "gateway_upstream_errors",
                "Calls of the upstream's tools that failed",
                MetricKind::Counter,
                &|u| count(u.errors),
            ),
            family(
                "gateway_upstream_call_seconds",
                "Time the upstream's calls took, all together (divide by calls for the mean)",
                MetricKind::Counter,
                &|u| u.latency.as_secs_f64(),
            ),
            family(
                "gateway_upstream_calls_in_flight",
                "Calls of the upstream's tools running now",
                MetricKind::Gauge,
                &|u| count(u64::try_from(u.in_flight).unwrap_or(u64::MAX)),
            ),
        ]
    }
}
