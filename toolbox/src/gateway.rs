//! `--config FILE`: other MCP servers whose tools `toolwright` lists, calls and serves under
//! its own policy, each mounted into the registry under a namespace. The file, its checks
//! and the mounting are `toolwright_gateway`'s (`config`: the file's keys are documented
//! there); here the CLI names the file by its flag and says on stderr what a mount did
//! not do. Every mistake is reported before anything starts, with the file and line.

use std::path::Path;
use std::sync::Arc;

use toolwright_gateway::{Checks, Gateway, GatewayConfig, Mount, MountReport};
use toolwright_runtime::ToolRegistry;

use crate::ending::UsageError;

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

/// Connects to every upstream of `config` and mounts its tools into `registry`; what could
/// not be mounted is said on stderr as each mount ends (for one command; `serve`
/// [`supervise`]s them instead).
pub(crate) async fn mount_all(
    config: &GatewayConfig,
    registry: &Arc<ToolRegistry>,
) -> Result<Vec<Arc<Mount>>, UsageError> {
    // The file's own resources and prompts first: an upstream's cannot take their places.
    config
        .register_declared(registry)
        .map_err(|error| UsageError(error.to_string()))?;
    let mut mounts = Vec::new();
    for upstream in config.upstreams() {
        let mount = upstream
            .mount(registry)
            .await
            .map_err(|error| UsageError(error.to_string()))?;
        tell(upstream.namespace(), mount.report());
        mounts.push(Arc::new(mount));
    }
    Ok(mounts)
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

/// The standard tools (`run_code` with `code_mode`), and with `config` every upstream it
/// names mounted beside them (the configuration is read and checked before anything
/// connects). The mounts are returned so a command can keep them.
pub(crate) async fn registry(
    config: Option<&Path>,
    code_mode: bool,
) -> Result<(Arc<ToolRegistry>, Vec<Arc<Mount>>), UsageError> {
    let config = config
        .map(|path| load(Checks::new(), path, None))
        .transpose()?;
    registry_of(config.as_ref(), code_mode).await
}

/// The standard tools (`run_code` with `code_mode`), and with `config` (loaded) every
/// upstream it names mounted beside them.
pub(crate) async fn registry_of(
    config: Option<&GatewayConfig>,
    code_mode: bool,
) -> Result<(Arc<ToolRegistry>, Vec<Arc<Mount>>), UsageError> {
    let registry = Arc::new(crate::ending::registry(code_mode)?);
    let mounts = match config {
        Some(config) => mount_all(config, &registry).await?,
        None => Vec::new(),
    };
    Ok((registry, mounts))
}
