//! The confinement of stdio upstreams (toolwright-std's `Sandbox`, feature `confine`):
//! resolving the granted paths, what a confined server can read, the prepare step that
//! confines it, and the hint when one did not start. Without the feature a stdio upstream
//! must be `unconfined = true`.

use std::path::{Path, PathBuf};

use crate::upstream::StdioUpstream;

use super::file::{LimitsConfig, NetworkConfig, SandboxConfig, UpstreamConfig};

/// The confinement of a stdio upstream, or `None` for an HTTP or unconfined one.
#[cfg(feature = "confine")]
fn sandbox_of(config: &UpstreamConfig) -> Option<toolwright_std::sandbox::Sandbox> {
    if config.command.is_none() || config.unconfined {
        return None;
    }
    sandbox_from(config)
}

/// A `Sandbox` with the grants, network and limits of `config` (`None` without a
/// `sandbox`).
#[cfg(feature = "confine")]
fn sandbox_from(config: &UpstreamConfig) -> Option<toolwright_std::sandbox::Sandbox> {
    use toolwright_std::egress::{AllowList, Egress};
    let settings = config.sandbox.as_ref()?;
    let mut sandbox = toolwright_std::sandbox::Sandbox::new();
    match &settings.network {
        NetworkConfig::Whole(allowed) => sandbox = sandbox.network(*allowed),
        NetworkConfig::Hosts(hosts) => {
            // Checked at load; should it fail here, nothing is reached (fail closed).
            let allowed = AllowList::parse(hosts).unwrap_or_default();
            let mut egress = Egress::new(allowed).label(format!("upstream {}", config.namespace()));
            if let Some(sink) = &settings.egress_sink {
                let sink = sink.0.clone();
                egress = egress.on_refusal(move |refusal| sink(refusal));
            }
            sandbox = sandbox.network_hosts(egress);
        }
    }
    // Checked when the file was loaded.
    if let Some(Ok(limits)) = config.limits.as_ref().map(|l| limits_of(l.get_ref())) {
        sandbox = sandbox.limits(limits);
    }
    for path in &settings.read {
        sandbox = sandbox.read(path.clone());
    }
    for path in &settings.write {
        sandbox = sandbox.write(path.clone());
    }
    Some(sandbox)
}

/// Through which directory the confined upstream `config` could read `file`, if it could
/// (its `sandbox` grants a directory that holds it, or it is in a directory every confined
/// program sees).
pub(crate) fn readable_through(config: &UpstreamConfig, file: &Path) -> Option<PathBuf> {
    #[cfg(feature = "confine")]
    {
        sandbox_of(config)?.readable_through(file)
    }
    #[cfg(not(feature = "confine"))]
    {
        // Without confinement `load` keeps only unconfined stdio upstreams.
        let _ = (config, file);
        None
    }
}

/// `upstream` with `config`'s confinement applied when it starts (none for an unconfined
/// one).
pub(crate) fn confine(upstream: StdioUpstream, config: &UpstreamConfig) -> StdioUpstream {
    #[cfg(feature = "confine")]
    if let Some(sandbox) = sandbox_from(config) {
        return upstream
            .prepare(move |command| sandbox.confine(command).map_err(std::io::Error::other));
    }
    #[cfg(not(feature = "confine"))]
    let _ = config;
    upstream
}

/// Checks a stdio upstream's confinement and makes its paths absolute (relative ones are
/// taken from `base`, the configuration's directory): every path exists and is not `/`.
pub(crate) fn resolve_sandbox(config: &mut UpstreamConfig, base: &Path) -> Result<(), String> {
    if config.unconfined {
        if config.sandbox.is_some() {
            return Err(
                "an upstream has a `sandbox` or is `unconfined = true`, not both".to_owned(),
            );
        }
        return Ok(());
    }
    if cfg!(not(feature = "confine")) {
        return Err(
            "a stdio upstream runs confined, which needs toolwright-gateway's feature \
             `confine`; turn it on, or set `unconfined = true`"
                .to_owned(),
        );
    }
    let sandbox = config.sandbox.get_or_insert_with(SandboxConfig::default);
    #[cfg(feature = "confine")]
    if let NetworkConfig::Hosts(hosts) = &sandbox.network {
        toolwright_std::egress::AllowList::parse(hosts)
            .map_err(|error| format!("`sandbox.network`: {error}"))?;
    }
    for (key, paths) in [("read", &mut sandbox.read), ("write", &mut sandbox.write)] {
        for path in paths.iter_mut() {
            let resolved = base.join(&*path);
            let canonical = std::fs::canonicalize(&resolved).map_err(|error| {
                format!(
                    "`sandbox.{key}` names `{}`, which cannot be granted: {error}",
                    resolved.display()
                )
            })?;
            if canonical.parent().is_none() {
                return Err(format!(
                    "`sandbox.{key}` names `{}`, the whole file system; name the directories \
                     the server needs",
                    path.display()
                ));
            }
            *path = canonical;
        }
    }
    Ok(())
}

/// Egress refusals of confined upstreams (`sandbox.network = ["host:port", ...]`).
#[cfg(feature = "confine")]
impl super::file::GatewayConfig {
    /// Hands every connection the egress proxy of a confined upstream refuses to `sink`
    /// too (the serving program's audit log); each refusal names the upstream as
    /// `upstream NAMESPACE`. Refusals are logged (`tracing`) either way.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("gateway.toml");
    /// # std::fs::write(&path, "")?;
    /// let mut config = toolwright_gateway::GatewayConfig::load(&path)?;
    /// config.on_egress_refusal(|refusal| eprintln!("audit: {refusal}"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn on_egress_refusal(
        &mut self,
        sink: impl Fn(&toolwright_std::egress::Refusal) + Send + Sync + 'static,
    ) {
        let sink = super::file::EgressSink(std::sync::Arc::new(sink));
        for upstream in &mut self.upstream {
            if let Some(sandbox) = upstream.get_mut().sandbox.as_mut() {
                sandbox.egress_sink = Some(sink.clone());
            }
        }
    }
}

/// For a confined upstream that did not start: what it could see, and how to give it more.
pub(crate) fn confinement_hint(config: &UpstreamConfig) -> String {
    let confined = config.command.is_some() && !config.unconfined;
    let Some(settings) = config.sandbox.as_ref().filter(|_| confined) else {
        return String::new();
    };
    let list = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|path| format!("`{}`", path.display()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let read = if settings.read.is_empty() {
        "only the system's programs and libraries".to_owned()
    } else {
        format!(
            "the system's programs and libraries and {}",
            list(&settings.read)
        )
    };
    let write = if settings.write.is_empty() {
        "nothing".to_owned()
    } else {
        list(&settings.write)
    };
    let network = match &settings.network {
        NetworkConfig::Whole(true) => "with the network".to_owned(),
        NetworkConfig::Whole(false) => "without the network".to_owned(),
        NetworkConfig::Hosts(hosts) => format!("reaching only {}", hosts.join(", ")),
    };
    format!(
        "\n  it ran confined: it could read {read}, write {write}, {network}; if it \
         needs more (its installation, a cache, a download: `npx` fetches packages), grant it \
         in its `sandbox` (read, write, network) or set `unconfined = true` (see the book, \
         \"Confined stdio servers\")"
    )
}

/// The `Limits` of `limits = { ... }`: the sandbox's defaults (1024 processes) with each
/// one given instead.
///
/// # Errors
///
/// A limit that is not a size or number, zero or negative: the key, what was written, and
/// what is expected.
#[cfg(feature = "confine")]
pub(crate) fn limits_of(limits: &LimitsConfig) -> Result<toolwright_std::limits::Limits, String> {
    use toolwright_std::limits::Limits;
    let size = |key: &str, value: &toml::Value| match value {
        toml::Value::String(text) => {
            Limits::parse_size(text).map_err(|e| format!("`limits.{key}`: {e}"))
        }
        toml::Value::Integer(n) if *n > 0 => Ok(*n as u64),
        other => Err(format!(
            "`limits.{key}` is {other}; give a size above zero such as \"512MiB\", or a \
             number of bytes"
        )),
    };
    let count = |key: &str, value: &toml::Value| match value {
        toml::Value::Integer(n) if *n > 0 => Ok(*n as u64),
        other => Err(format!(
            "`limits.{key}` is {other}; give a whole number above zero"
        )),
    };
    let mut out = Limits::sandbox_default();
    if let Some(value) = &limits.memory {
        out = out.memory(size("memory", value)?);
    }
    if let Some(value) = &limits.write {
        out = out.write(size("write", value)?);
    }
    if let Some(value) = &limits.processes {
        out = out.processes(count("processes", value)?);
    }
    if let Some(value) = &limits.cpu_time {
        out = out.cpu_time(count("cpu_time", value)?);
    }
    if let Some(value) = &limits.cpu {
        let cores = match value {
            toml::Value::Float(x) if x.is_finite() && *x > 0.0 => *x,
            toml::Value::Integer(n) if *n > 0 => *n as f64,
            other => {
                return Err(format!(
                    "`limits.cpu` is {other}; give a number of CPUs above zero such as 1.5"
                ));
            }
        };
        out = out.cpu(cores);
    }
    Ok(out)
}

/// Checks `limits`: only for a confined stdio upstream, every value one that makes sense.
pub(crate) fn check_limits(config: &UpstreamConfig, limits: &LimitsConfig) -> Result<(), String> {
    if config.command.is_none() || config.unconfined {
        return Err(
            "`limits` are enforced on a confined stdio upstream (`command`, not `url` or \
             `unconfined = true`)"
                .to_owned(),
        );
    }
    #[cfg(feature = "confine")]
    return limits_of(limits).map(|_| ());
    #[cfg(not(feature = "confine"))]
    {
        let _ = limits;
        Err("`limits` need toolwright-gateway's feature `confine`".to_owned())
    }
}
