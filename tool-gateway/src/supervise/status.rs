//! What the supervisor knows of each upstream ([`UpstreamStatus`]), the shared cell its
//! runner and the call hook update, and what a reload did ([`ReloadReport`]).

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::config::Supervision;
use crate::upstream::Mount;

/// The most characters of an error kept as an upstream's last error.
const MAX_ERROR: usize = 500;

/// Where an upstream is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpstreamState {
    /// Being started: spawned or connected, in its handshake, or being listed.
    Starting,
    /// Started: its tools are mounted.
    Up,
    /// Down (it did not start, or its connection ended): its tools are withdrawn, and it
    /// is started again after its backoff.
    Restarting,
    /// Removed or replaced by a reload: its tools are withdrawn and its calls in flight
    /// finishing.
    Stopping,
    /// Stopped for good (with [`Gateway::once`](super::Gateway::once), also an upstream
    /// whose start failed or whose connection ended: its last error says why).
    Stopped,
}

impl UpstreamState {
    /// The state as `/readyz` and the logs say it.
    pub fn as_str(self) -> &'static str {
        match self {
            UpstreamState::Starting => "starting",
            UpstreamState::Up => "up",
            UpstreamState::Restarting => "restarting",
            UpstreamState::Stopping => "stopping",
            UpstreamState::Stopped => "stopped",
        }
    }
}

/// One upstream as the supervisor sees it now ([`Gateway::upstreams`](super::Gateway::upstreams)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UpstreamStatus {
    /// Its namespace.
    pub namespace: String,
    /// Where it is in its life.
    pub state: UpstreamState,
    /// How many times it was started (1 after its first start, successful or not).
    pub starts: u64,
    /// How many times it was started again after a failure or an ended connection.
    pub restarts: u64,
    /// Why it last failed, if it ever did.
    pub last_error: Option<String>,
    /// Calls of its tools that ran (counted when they end; with the gateway's
    /// [hook](super::Gateway::hook) installed).
    pub calls: u64,
    /// Of those, the calls that failed.
    pub errors: u64,
    /// The time those calls took, all together.
    pub latency: Duration,
    /// Calls of its tools running now.
    pub in_flight: usize,
    /// Its tools mounted now.
    pub tools: usize,
    /// Whether `/readyz` waits for it.
    pub required: bool,
}

impl UpstreamStatus {
    /// Whether its first start has ended, up or not (it is not in that first handshake).
    pub fn tried(&self) -> bool {
        self.state != UpstreamState::Starting || self.restarts > 0
    }
}

/// What changes in a cell under its lock.
pub(crate) struct Life {
    pub(crate) state: UpstreamState,
    pub(crate) starts: u64,
    pub(crate) restarts: u64,
    pub(crate) last_error: Option<String>,
    pub(crate) mount: Option<Arc<Mount>>,
}

/// One supervised upstream: what its runner, the call hook and the status readers share.
pub(crate) struct Cell {
    pub(crate) namespace: String,
    pub(crate) supervision: Supervision,
    pub(crate) life: Mutex<Life>,
    pub(crate) calls: AtomicU64,
    pub(crate) errors: AtomicU64,
    pub(crate) latency_micros: AtomicU64,
    pub(crate) in_flight: AtomicUsize,
    /// Told when `in_flight` drops to 0 (a drain waits on it).
    pub(crate) idle: Notify,
    /// Told when one of its calls failed: the runner then asks whether it still answers.
    pub(crate) suspect: Notify,
    /// Cancelled to stop it (a reload removed or replaced it, or the gateway stops).
    pub(crate) stop: CancellationToken,
    /// Bumped at every change of any upstream's life (the gateway's, shared).
    pub(crate) events: Arc<watch::Sender<u64>>,
}

impl Cell {
    pub(crate) fn new(
        namespace: String,
        supervision: Supervision,
        events: Arc<watch::Sender<u64>>,
    ) -> Self {
        Cell {
            namespace,
            supervision,
            life: Mutex::new(Life {
                state: UpstreamState::Starting,
                starts: 0,
                restarts: 0,
                last_error: None,
                mount: None,
            }),
            calls: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            latency_micros: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            idle: Notify::new(),
            suspect: Notify::new(),
            stop: CancellationToken::new(),
            events,
        }
    }

    /// Changes its life under the lock, then tells the watchers.
    pub(crate) fn update<R>(&self, change: impl FnOnce(&mut Life) -> R) -> R {
        let result = change(&mut self.life.lock().unwrap_or_else(PoisonError::into_inner));
        self.events
            .send_modify(|count| *count = count.wrapping_add(1));
        result
    }

    /// Records a failure and its reason (bounded).
    pub(crate) fn failed(&self, state: UpstreamState, error: &str) {
        let error: String = error.chars().take(MAX_ERROR).collect();
        tracing::warn!(upstream = %self.namespace, %error, "upstream down");
        self.update(|life| {
            life.state = state;
            life.mount = None;
            life.last_error = Some(error);
        });
    }

    /// The mount now, when up.
    pub(crate) fn mount(&self) -> Option<Arc<Mount>> {
        self.life
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .mount
            .clone()
    }

    /// Whether the mounted tool `tool` is one of its tools now.
    pub(crate) fn owns(&self, tool: &str) -> bool {
        self.mount()
            .is_some_and(|mount| mount.upstream_name(tool).is_some())
    }

    /// A call of its tools started.
    pub(crate) fn call_started(&self) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.tell();
    }

    /// Tells the watchers something changed.
    fn tell(&self) {
        self.events
            .send_modify(|count| *count = count.wrapping_add(1));
    }

    /// A call of its tools ended after `took`.
    pub(crate) fn call_ended(&self, took: Duration, failed: bool) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if failed {
            self.errors.fetch_add(1, Ordering::Relaxed);
            self.suspect.notify_one();
        }
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.latency_micros.fetch_add(micros, Ordering::Relaxed);
        if self.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.idle.notify_waiters();
        }
        self.tell();
    }

    /// Returns once no call of its tools runs, or after `bound`; whether it got there.
    pub(crate) async fn drained(&self, bound: Duration) -> bool {
        let wait = async {
            loop {
                let notified = self.idle.notified();
                if self.in_flight.load(Ordering::SeqCst) == 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(bound, wait).await.is_ok()
    }

    /// Its status now.
    pub(crate) fn status(&self) -> UpstreamStatus {
        let life = self.life.lock().unwrap_or_else(PoisonError::into_inner);
        UpstreamStatus {
            namespace: self.namespace.clone(),
            state: life.state,
            starts: life.starts,
            restarts: life.restarts,
            last_error: life.last_error.clone(),
            calls: self.calls.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            latency: Duration::from_micros(self.latency_micros.load(Ordering::Relaxed)),
            in_flight: self.in_flight.load(Ordering::SeqCst),
            tools: life.mount.as_ref().map_or(0, |mount| mount.tools().len()),
            required: self.supervision.required,
        }
    }
}

/// What a [`Gateway::reload`](super::Gateway::reload) did, by namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReloadReport {
    /// Upstreams new in the configuration, being started.
    pub started: Vec<String>,
    /// Upstreams gone from it, drained and stopped.
    pub stopped: Vec<String>,
    /// Upstreams whose table (or supervision) changed: stopped as removed ones, then
    /// started as new ones.
    pub restarted: Vec<String>,
    /// Upstreams left running as they were.
    pub unchanged: Vec<String>,
    /// Parts of the file that changed but cannot change while serving (`[serve]`,
    /// `[[resources]]`, `[[prompts]]`): kept as they were until a restart.
    pub needs_restart: Vec<String>,
    /// Upstreams whose calls were still running at the end of their drain (then
    /// cancelled by the close).
    pub undrained: Vec<String>,
}

impl fmt::Display for ReloadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = [
            ("started", &self.started),
            ("stopped", &self.stopped),
            ("restarted", &self.restarted),
            ("unchanged", &self.unchanged),
            ("not drained in time", &self.undrained),
        ];
        let mut first = true;
        for (what, names) in parts {
            if names.is_empty() {
                continue;
            }
            if !first {
                f.write_str("; ")?;
            }
            first = false;
            write!(f, "{what}: {}", names.join(", "))?;
        }
        if first {
            f.write_str("no upstreams")?;
        }
        if !self.needs_restart.is_empty() {
            write!(
                f,
                "; changed but kept until a restart: {}",
                self.needs_restart.join(", ")
            )?;
        }
        Ok(())
    }
}
