//! `--config FILE`: other MCP servers whose tools `toolwright` lists, calls and serves under
//! its own policy, each mounted into the registry under a namespace. The file, its checks
//! and the mounting are `toolwright_gateway`'s (`config`: the file's keys are documented
//! there); here the CLI names the file by its flag and says on stderr what a mount did
//! not do. Every mistake is reported before anything starts, with the file and line. Every
//! command starts the upstreams through one [`Gateway`]: concurrently, so one that never
//! answers delays no other.

use std::path::Path;
use std::sync::Arc;

use toolwright_gateway::{
    Checks, Gateway, GatewayConfig, MountReport, UpstreamState, UpstreamStatus,
};
use toolwright_runtime::ToolRegistry;

use crate::ending::{Outcome, Stop, UsageError};

/// How the messages name the configuration: by its flag.
pub(crate) const FLAG: &str = "--config";

/// The configuration at `path` loaded with `checks` (named by [`FLAG`]).
/// Refusals of confined upstreams' egress proxies go to the audit log at `audit`.
pub(crate) fn load(
    checks: Checks<'_>,
    path: &Path,
    audit: Option<&Path>,
) -> Result<GatewayConfig, UsageError> {
    let mut config = checks
        .flag(FLAG)
        .load(path)
        .map_err(|error| UsageError(error.to_string()))?;
    if let Some(sink) = crate::audit::egress_sink(audit)? {
        config.on_egress_refusal(sink);
    }
    Ok(config)
}

/// Starts every upstream of `config` under a [`Gateway`] (each on its own, restarted with
/// backoff; reports on stderr) and reloads `path` on SIGHUP with `checks`: a file that does
/// not load is refused with its reason and the running configuration kept. A reloaded
/// configuration's egress refusals go to the audit log at `audit`, as the first one's.
pub(crate) async fn supervise(
    config: GatewayConfig,
    registry: &Arc<ToolRegistry>,
    checks: Checks<'static>,
    path: &Path,
    audit: Option<&Path>,
) -> Result<Gateway, UsageError> {
    let gateway = Gateway::new(Arc::clone(registry)).on_report(tell);
    gateway
        .start(config)
        .await
        .map_err(|error| UsageError(error.to_string()))?;
    spawn_reloads(
        gateway.clone(),
        checks,
        path.to_path_buf(),
        audit.map(Path::to_path_buf),
    );
    Ok(gateway)
}

/// Reloads `path` at each SIGHUP (Unix).
#[cfg(unix)]
fn spawn_reloads(
    gateway: Gateway,
    checks: Checks<'static>,
    path: std::path::PathBuf,
    audit: Option<std::path::PathBuf>,
) {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hangups = match signal(SignalKind::hangup()) {
        Ok(hangups) => hangups,
        Err(error) => {
            tracing::warn!(%error, "cannot listen for SIGHUP: the configuration cannot be reloaded");
            return;
        }
    };
    tokio::spawn(async move {
        while hangups.recv().await.is_some() {
            match load(checks.clone(), &path, audit.as_deref()) {
                Ok(config) => {
                    let report = gateway.reload(config).await;
                    eprintln!("toolwright: SIGHUP: reloaded {}: {report}", path.display());
                }
                Err(error) => eprintln!(
                    "toolwright: SIGHUP: refused the new configuration, the running one is kept: {}",
                    error.0
                ),
            }
        }
    });
}

/// Without Unix signals there is no reload.
#[cfg(not(unix))]
fn spawn_reloads(
    _gateway: Gateway,
    _checks: Checks<'static>,
    _path: std::path::PathBuf,
    _audit: Option<std::path::PathBuf>,
) {
}

/// What a mount did not do, on stderr (a clean mount says nothing).
fn tell(namespace: &str, report: &MountReport) {
    if !report.is_clean() {
        eprintln!("upstream `{namespace}`: {report}");
    }
}

/// The upstreams of a one-shot command (`list`, `schema`, `call`), started concurrently
/// by the same [`Gateway`] as `serve`'s, each once, within its own `handshake_timeout`.
pub(crate) struct Mounted(Option<Gateway>);

impl Mounted {
    /// The upstreams not up now: namespace and why.
    fn down(&self) -> Vec<(String, String)> {
        let Some(gateway) = &self.0 else {
            return Vec::new();
        };
        gateway
            .upstreams()
            .into_iter()
            .filter(|upstream| upstream.state != UpstreamState::Up)
            .map(|upstream| {
                let why = upstream.last_error.unwrap_or_else(|| {
                    "it is still starting (connecting, or in its handshake)".to_owned()
                });
                (upstream.namespace, why)
            })
            .collect()
    }

    /// Says on stderr, one line each, the upstreams whose tools are missing and why.
    pub(crate) fn tell_down(&self) {
        for (namespace, why) in self.down() {
            eprintln!("upstream `{namespace}` is not mounted: {why}");
        }
    }

    /// `outcome`, unless an upstream did not come up: then a usage error (status 2) that
    /// says so, after the output of the others' tools (said on stderr by `tell_down`).
    pub(crate) fn finish(&self, outcome: Result<Outcome, Stop>) -> Result<Outcome, Stop> {
        let outcome = outcome?;
        let down = self.down().len();
        if down == 0 {
            return Ok(outcome);
        }
        Err(Stop::Usage(format!(
            "{down} upstream(s) of {FLAG} did not start (named above): their tools are not \
             shown; fix them or remove them from the configuration"
        )))
    }
}

/// The standard tools (`run_code` with `code_mode`), and with `config` every upstream it
/// names mounted beside them (the configuration is read and checked before anything
/// connects); returns once every upstream's first start ended, up or not, each said on
/// stderr if not.
pub(crate) async fn registry(
    config: Option<&Path>,
    code_mode: bool,
) -> Result<(Arc<ToolRegistry>, Mounted), UsageError> {
    let config = config
        .map(|path| load(Checks::new(), path, None))
        .transpose()?;
    let (registry, mounted) = registry_of(config, code_mode, None).await?;
    mounted.tell_down();
    Ok((registry, mounted))
}

/// The standard tools (`run_code` with `code_mode`), and with `config` (loaded) every
/// upstream it names started beside them; returns once the tool `wanted` is in the
/// registry (its upstream is up), or else once every upstream's first start ended. With no
/// `wanted`, it waits for all.
pub(crate) async fn registry_of(
    config: Option<GatewayConfig>,
    code_mode: bool,
    wanted: Option<&str>,
) -> Result<(Arc<ToolRegistry>, Mounted), UsageError> {
    let registry = Arc::new(crate::ending::registry(code_mode)?);
    let Some(config) = config else {
        return Ok((registry, Mounted(None)));
    };
    let gateway = Gateway::new(Arc::clone(&registry)).once().on_report(tell);
    gateway
        .start(config)
        .await
        .map_err(|error| UsageError(error.to_string()))?;
    // Each change of an upstream's life wakes this: an upstream is up (its tools mounted
    // before its state says so) or its start ended.
    gateway
        .wait_for(|upstreams| {
            wanted.is_some_and(|name| registry.get(name).is_some())
                || upstreams.iter().all(UpstreamStatus::tried)
        })
        .await;
    Ok((registry, Mounted(Some(gateway))))
}
