//! `--config FILE`: other MCP servers whose tools `toolwright` lists, calls and serves under
//! its own policy, each mounted into the registry under a namespace. The file, its checks
//! and the mounting are `toolwright_gateway`'s (`config`: the file's keys are documented
//! there); here the CLI names the file by its flag and says on stderr what a mount did
//! not do. Every mistake is reported before anything starts, with the file and line.

use std::path::Path;
use std::sync::Arc;

use toolwright_gateway::{Checks, GatewayConfig, Mount, MountReport};
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
/// not be mounted is said on stderr as each mount ends. The mounts must be kept: dropping
/// one closes nothing, but [`follow`] needs them.
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

/// Keeps each mount's tools in step with its upstream's `tools/list_changed`, for as long as
/// the program serves.
pub(crate) fn follow(mounts: &[Arc<Mount>]) {
    for mount in mounts {
        let namespace = mount.options().namespace().to_owned();
        mount.follow(move |report| match report {
            Ok(report) => tell(&namespace, &report),
            Err(error) => tracing::warn!(upstream = %namespace, %error, "re-listing failed"),
        });
    }
}

/// What a mount did not do, on stderr (a clean mount says nothing).
fn tell(namespace: &str, report: &MountReport) {
    if !report.is_clean() {
        eprintln!("upstream `{namespace}`: {report}");
    }
}

/// The standard tools, and with `config` every upstream it names mounted beside them (the
/// configuration is read and checked before anything connects). The mounts are returned so
/// a server can [`follow`] them.
pub(crate) async fn registry(
    config: Option<&Path>,
) -> Result<(Arc<ToolRegistry>, Vec<Arc<Mount>>), UsageError> {
    let config = config
        .map(|path| load(Checks::new(), path, None))
        .transpose()?;
    registry_of(config.as_ref()).await
}

/// The standard tools, and with `config` (loaded) every upstream it names mounted beside
/// them.
pub(crate) async fn registry_of(
    config: Option<&GatewayConfig>,
) -> Result<(Arc<ToolRegistry>, Vec<Arc<Mount>>), UsageError> {
    let registry = Arc::new(crate::ending::registry()?);
    let mounts = match config {
        Some(config) => mount_all(config, &registry).await?,
        None => Vec::new(),
    };
    Ok((registry, mounts))
}
