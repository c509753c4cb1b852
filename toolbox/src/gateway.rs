//! `--config FILE`: other MCP servers whose tools `toolwright` lists, calls and serves under
//! its own policy, each mounted into the registry under a namespace
//! (`toolwright_mcp::upstream`). The file is TOML:
//!
//! ```toml
//! [[upstream]]
//! namespace = "everything"          # tools are named everything_<tool>
//! command = "npx"                   # a stdio server, started by toolwright ...
//! args = ["-y", "@modelcontextprotocol/server-everything"]
//! env = { NODE_ENV = "production" }
//! # url = "https://mcp.example.com/mcp"   # ... or a streamable HTTP one
//! # token_file = "/etc/toolwright/example.token"   (or token_env = "VAR"), or OAuth 2.0
//! # client credentials (the token endpoint found from the server's metadata):
//! # oauth = { client_id = "toolwright", client_secret_file = "/etc/toolwright/client.secret",
//! #           scopes = ["tools:read"] }   (or client_secret_env = "VAR"; resource, token_url)
//! # The secret goes only to a token endpoint on the server's own origin, or on that of an
//! # authorization server named here: authorization_servers = ["https://login.example.com"]
//! safety = "dangerous"              # its tools' level unless `tools` says (the default)
//! trusted = false                   # only a trusted server's readOnlyHint lowers a level
//! tools = { "echo" = "safe", "get*" = "cautious" }
//! pins = { "echo" = "<64 hex digits of the fingerprint>" }
//! # max_message_bytes = 16777216   # an HTTP upstream's largest message, before decoding
//! # max_tool_bytes = 65536          # the most bytes of one tool's definition (default 64 KiB)
//! # max_mount_bytes = 16777216      # ... of all of this upstream's (default 16 MiB)
//! # `tools` and `pins` match the name a client sees (`getWeather` and `get_weather` are
//! # one tool), so an upstream cannot rename a tool out of its pin or its override.
//! # A stdio server runs confined, as run_command's commands do (toolwright-std's
//! # `Sandbox`): it sees the system's programs and libraries and only these paths
//! # (relative ones are taken from the file's directory), and no network unless allowed.
//! sandbox = { read = ["/opt/servers/everything"], write = ["/srv/shared"], network = false }
//! # unconfined = true               # ... or runs as we do, seeing all we see
//!
//! [serve]                           # serve's own options (`serve_config`)
//! max_safety = "cautious"
//! ```
//!
//! Every mistake is reported before anything starts, with the file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use toolwright_core::SafetyLevel;
use toolwright_mcp::upstream::{
    ClientCredentials, Fingerprint, Mount, MountOptions, MountReport, MountUpstream, Upstream,
};
use toolwright_runtime::ToolRegistry;
use toolwright_std::sandbox::Sandbox;

use crate::ending::UsageError;

/// The configuration file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GatewayConfig {
    #[serde(default)]
    upstream: Vec<toml::Spanned<UpstreamConfig>>,
    /// `serve`'s own options, read by `serve_config` (ignored by `list` and `call`).
    #[serde(default, rename = "serve")]
    _serve: Option<toml::Table>,
}

/// What a confined stdio upstream may reach.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SandboxConfig {
    /// Paths it may read (and execute).
    #[serde(default)]
    read: Vec<PathBuf>,
    /// Paths it may read and write.
    #[serde(default)]
    write: Vec<PathBuf>,
    /// Whether it may use the network.
    #[serde(default)]
    network: bool,
}

/// OAuth 2.0 client credentials of an HTTP upstream.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuthConfig {
    client_id: String,
    client_secret_file: Option<PathBuf>,
    client_secret_env: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    resource: Option<String>,
    token_url: Option<String>,
    /// Authorization servers (issuer URLs) trusted with the secret besides the upstream's
    /// own origin.
    #[serde(default)]
    authorization_servers: Vec<String>,
}

/// One upstream server.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpstreamConfig {
    namespace: String,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    token_file: Option<PathBuf>,
    token_env: Option<String>,
    oauth: Option<toml::Spanned<OAuthConfig>>,
    safety: Option<SafetyLevel>,
    #[serde(default)]
    trusted: bool,
    #[serde(default)]
    tools: BTreeMap<String, SafetyLevel>,
    #[serde(default)]
    pins: BTreeMap<String, String>,
    /// The most bytes of one message of an HTTP upstream (`HttpUpstream::max_message_bytes`).
    max_message_bytes: Option<usize>,
    /// The most bytes of one tool's definition (`MountOptions::max_tool_bytes`).
    max_tool_bytes: Option<usize>,
    /// The most bytes of all the upstream's definitions (`MountOptions::max_mount_bytes`).
    max_mount_bytes: Option<usize>,
    sandbox: Option<SandboxConfig>,
    #[serde(default)]
    unconfined: bool,
}

/// The configuration at `path`, checked: every upstream has one way to reach it and a
/// usable namespace, pins are fingerprints.
pub(crate) fn load(path: &Path) -> Result<GatewayConfig, UsageError> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        UsageError(format!(
            "cannot read the configuration `{}`: {error}",
            path.display()
        ))
    })?;
    let mut config: GatewayConfig = toml::from_str(&text).map_err(|error| {
        let place = error
            .span()
            .map(|span| format!(":{}", line_of(&text, span.start)))
            .unwrap_or_default();
        UsageError(format!(
            "{}{place}: {}",
            path.display(),
            error.message().trim_end()
        ))
    })?;
    let base = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut namespaces = BTreeMap::new();
    for upstream in &mut config.upstream {
        let at = format!(
            "{}:{}",
            path.display(),
            line_of(&text, upstream.span().start)
        );
        let config = upstream.get_mut();
        if let Some(first) = namespaces.insert(config.namespace.clone(), at.clone()) {
            return Err(UsageError(format!(
                "{at}: the namespace `{}` is already used at {first}; give each upstream its own",
                config.namespace
            )));
        }
        match (&config.command, &config.url) {
            (Some(_), None) => {
                if config.token_file.is_some()
                    || config.token_env.is_some()
                    || config.oauth.is_some()
                {
                    return Err(UsageError(format!(
                        "{at}: `token_file`, `token_env` and `oauth` are for an HTTP upstream \
                         (`url`); a stdio upstream (`command`) gets its secrets through `env`"
                    )));
                }
                if config.max_message_bytes.is_some() {
                    return Err(UsageError(format!(
                        "{at}: `max_message_bytes` is for an HTTP upstream (`url`); a stdio \
                         upstream's messages are bounded at 16 MiB"
                    )));
                }
            }
            (None, Some(_)) => {
                if !config.args.is_empty()
                    || !config.env.is_empty()
                    || config.cwd.is_some()
                    || config.sandbox.is_some()
                    || config.unconfined
                {
                    return Err(UsageError(format!(
                        "{at}: `args`, `env`, `cwd`, `sandbox` and `unconfined` are for a stdio \
                         upstream (`command`), not an HTTP one (`url`)"
                    )));
                }
                let ways = [
                    config.token_file.is_some(),
                    config.token_env.is_some(),
                    config.oauth.is_some(),
                ];
                if ways.into_iter().filter(|given| *given).count() > 1 {
                    return Err(UsageError(format!(
                        "{at}: give the upstream's credentials in one of `token_file`, \
                         `token_env` or `oauth`, not several"
                    )));
                }
                if let Some(oauth) = &config.oauth {
                    let at = format!("{}:{}", path.display(), line_of(&text, oauth.span().start));
                    check_oauth(oauth.get_ref())
                        .map_err(|message| UsageError(format!("{at}: {message}")))?;
                }
            }
            (Some(_), Some(_)) => {
                return Err(UsageError(format!(
                    "{at}: an upstream is a `command` (stdio) or a `url` (HTTP), not both"
                )));
            }
            (None, None) => {
                return Err(UsageError(format!(
                    "{at}: the upstream `{}` needs a `command` (a stdio server) or a `url` (a \
                     streamable HTTP server)",
                    config.namespace
                )));
            }
        }
        if config.command.is_some() {
            resolve_sandbox(config, base)
                .map_err(|message| UsageError(format!("{at}: {message}")))?;
        }
        // Every path of the file is taken from the file's directory.
        if let Some(dir) = &mut config.cwd {
            *dir = base.join(&*dir);
        }
        if let Some(file) = &mut config.token_file {
            *file = base.join(&*file);
        }
        if let Some(file) = config
            .oauth
            .as_mut()
            .and_then(|oauth| oauth.get_mut().client_secret_file.as_mut())
        {
            *file = base.join(&*file);
        }
        options(config).map_err(|message| UsageError(format!("{at}: {message}")))?;
    }
    refuse_replaceable_paths(&config, path, &text)?;
    // A confined server must not see the file that holds the others' environments and
    // tokens, nor a token file.
    let mut secrets = vec![("gateway configuration".to_owned(), path.to_path_buf())];
    secrets.extend(
        secret_files(&config)
            .into_iter()
            .map(|(what, file)| (what.to_owned(), file)),
    );
    for (what, file) in &secrets {
        refuse_exposed_to_upstreams(&config, what, file)?;
    }
    Ok(config)
}

/// Refuses a path of one upstream (a granted path, or the program or an argument that is a
/// path of an unconfined one)
/// that lies beneath a directory a confined upstream may write: that server could replace
/// it, or a directory on its way, by a link to anything of ours (between two runs, or while
/// the upstreams start one after the other), and the path checked here would lead there
/// when the next server starts: to our secrets, or to a program of its own run unconfined.
fn refuse_replaceable_paths(
    config: &GatewayConfig,
    path: &Path,
    text: &str,
) -> Result<(), UsageError> {
    let writable: Vec<(&str, &Path)> = config
        .upstream
        .iter()
        .map(toml::Spanned::get_ref)
        .filter(|upstream| upstream.command.is_some() && !upstream.unconfined)
        .filter_map(|upstream| Some((upstream, upstream.sandbox.as_ref()?)))
        .flat_map(|(upstream, sandbox)| {
            sandbox
                .write
                .iter()
                .map(move |dir| (upstream.namespace.as_str(), dir.as_path()))
        })
        .collect();
    for upstream in &config.upstream {
        let at = format!(
            "{}:{}",
            path.display(),
            line_of(text, upstream.span().start)
        );
        let upstream = upstream.get_ref();
        // Each with whether the writable directory itself counts (where a server may add
        // files), not only what lies inside it.
        let mut paths: Vec<(&str, PathBuf, bool)> = Vec::new();
        if let Some(sandbox) = upstream.sandbox.as_ref().filter(|_| !upstream.unconfined) {
            paths.extend(
                sandbox
                    .read
                    .iter()
                    .map(|p| ("sandbox.read", p.clone(), false)),
            );
            paths.extend(
                sandbox
                    .write
                    .iter()
                    .map(|p| ("sandbox.write", p.clone(), false)),
            );
        }
        if upstream.unconfined {
            let program = upstream
                .command
                .as_deref()
                .filter(|command| command.contains('/'))
                .and_then(|command| std::fs::canonicalize(command).ok());
            paths.extend(program.map(|program| ("command", program, false)));
            // Its script, or anything else it is given that is a path.
            let given = upstream
                .args
                .iter()
                .filter(|arg| arg.contains('/'))
                .filter_map(|arg| std::fs::canonicalize(arg).ok());
            paths.extend(given.map(|path| ("args", path, false)));
            // Where it starts: an interpreter loads modules from there (a confined server
            // starts only where its grants let it see).
            let cwd = upstream
                .cwd
                .as_ref()
                .and_then(|cwd| std::fs::canonicalize(cwd).ok());
            paths.extend(cwd.map(|cwd| ("cwd", cwd, true)));
        }
        // A program named without a directory is looked up in `PATH`: none of its
        // directories may be one a confined server writes, or lie in one.
        let looked_up = upstream.unconfined
            && upstream
                .command
                .as_deref()
                .is_some_and(|command| !command.contains('/'));
        if looked_up {
            let path = std::env::var_os("PATH").unwrap_or_default();
            for dir in std::env::split_paths(&path) {
                let Ok(dir) = std::fs::canonicalize(&dir) else {
                    continue;
                };
                if let Some((writer, _)) = writable.iter().find(|(_, w)| dir.starts_with(w)) {
                    return Err(UsageError(format!(
                        "{at}: `command` is looked up in PATH, whose `{}` the upstream \
                         `{writer}` may write: it could put a program of that name there; \
                         name the program with its directory, or take that directory out of \
                         PATH",
                        dir.display()
                    )));
                }
            }
        }
        for (key, granted, itself) in &paths {
            let Some((writer, dir)) = writable
                .iter()
                .find(|(_, dir)| granted.starts_with(dir) && (*itself || granted != dir))
            else {
                continue;
            };
            return Err(UsageError(format!(
                "{at}: `{key}` names `{}`, inside `{}`, which the upstream `{writer}` may \
                 write: it could replace it by a link to anything of ours before the server \
                 starts; grant directories side by side, not one inside another that a \
                 server may write",
                granted.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Refuses when a confined upstream of `config` could read `file` (its `sandbox` grants a
/// directory that holds it, or it is in a directory every confined program sees).
pub(crate) fn refuse_exposed_to_upstreams(
    config: &GatewayConfig,
    what: &str,
    file: &Path,
) -> Result<(), UsageError> {
    for upstream in &config.upstream {
        let upstream = upstream.get_ref();
        let Some(sandbox) = sandbox_of(upstream) else {
            continue;
        };
        if let Some(through) = sandbox.readable_through(file) {
            return Err(UsageError(format!(
                "the {what} {} is readable by the upstream `{}` (through {}, which its \
                 confinement shows it); move the file out of the directories it is granted, \
                 and out of /usr, /opt and /etc (for example to ~/.config/toolwright/, mode \
                 600)",
                file.display(),
                upstream.namespace,
                through.display()
            )));
        }
    }
    Ok(())
}

/// What is wrong with an upstream's `oauth`, if anything.
fn check_oauth(oauth: &OAuthConfig) -> Result<(), String> {
    if oauth.client_id.trim().is_empty() {
        return Err("`oauth.client_id` is empty".to_owned());
    }
    match (&oauth.client_secret_file, &oauth.client_secret_env) {
        (Some(_), Some(_)) => {
            return Err("give the client secret in `oauth.client_secret_file` or \
                 `oauth.client_secret_env`, not both"
                .to_owned());
        }
        (None, None) => {
            return Err(
                "`oauth` needs the client secret's file (`client_secret_file`) or \
                 environment variable (`client_secret_env`)"
                    .to_owned(),
            );
        }
        _ => {}
    }
    if let Some(scope) = oauth
        .scopes
        .iter()
        .find(|scope| scope.is_empty() || scope.chars().any(char::is_whitespace))
    {
        return Err(format!(
            "`oauth.scopes` has `{}`, which is not one scope (no spaces, not empty)",
            crate::shown::visible(scope)
        ));
    }
    let listed = oauth.authorization_servers.iter().map(Some);
    for (key, value) in [
        ("resource", oauth.resource.as_ref()),
        ("token_url", oauth.token_url.as_ref()),
    ]
    .into_iter()
    .chain(listed.map(|value| ("authorization_servers", value)))
    {
        if let Some(value) = value
            && !(value.starts_with("https://") || value.starts_with("http://"))
        {
            return Err(format!(
                "`oauth.{key}` is `{}`, not an http:// or https:// URL",
                crate::shown::visible(value)
            ));
        }
    }
    Ok(())
}

/// For a confined upstream that did not start: what it could see, and how to give it more.
fn confinement_hint(config: &UpstreamConfig) -> String {
    let Some(settings) = config
        .sandbox
        .as_ref()
        .filter(|_| sandbox_of(config).is_some())
    else {
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
    let network = if settings.network { "with" } else { "without" };
    format!(
        "\n  it ran confined: it could read {read}, write {write}, {network} the network; if it \
         needs more (its installation, a cache, a download: `npx` fetches packages), grant it \
         in its `sandbox` (read, write, network) or set `unconfined = true` (see the book, \
         \"Confined stdio servers\")"
    )
}

/// Refuses when a confined upstream of `config` could see the audit log at `path` or the
/// directory it is in: it would read every call's arguments (other servers' included), and
/// could rewrite the log, or put a link where the log is written for us to append to the
/// link's target.
pub(crate) fn refuse_audit_log_exposed(
    config: &GatewayConfig,
    path: &Path,
) -> Result<(), UsageError> {
    refuse_exposed_to_upstreams(config, "audit log", path)?;
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    refuse_exposed_to_upstreams(config, "audit log's directory", dir)
}

/// The confinement of a stdio upstream, or `None` for an HTTP or unconfined one.
fn sandbox_of(config: &UpstreamConfig) -> Option<Sandbox> {
    if config.command.is_none() || config.unconfined {
        return None;
    }
    let settings = config.sandbox.as_ref()?;
    let mut sandbox = Sandbox::new().network(settings.network);
    for path in &settings.read {
        sandbox = sandbox.read(path.clone());
    }
    for path in &settings.write {
        sandbox = sandbox.write(path.clone());
    }
    Some(sandbox)
}

/// Checks a stdio upstream's confinement and makes its paths absolute (relative ones are
/// taken from `base`, the configuration's directory): every path exists and is not `/`.
fn resolve_sandbox(config: &mut UpstreamConfig, base: &Path) -> Result<(), String> {
    if config.unconfined {
        if config.sandbox.is_some() {
            return Err(
                "an upstream has a `sandbox` or is `unconfined = true`, not both".to_owned(),
            );
        }
        return Ok(());
    }
    let sandbox = config.sandbox.get_or_insert_with(SandboxConfig::default);
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

/// The line (from 1) of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(1, |before| {
        before.bytes().filter(|b| *b == b'\n').count() + 1
    })
}

/// How to mount one upstream, or what is wrong with its settings.
fn options(config: &UpstreamConfig) -> Result<MountOptions, String> {
    let mut options = MountOptions::new(config.namespace.clone())
        .default_safety(config.safety.unwrap_or(SafetyLevel::Dangerous))
        .trusted(config.trusted);
    for (pattern, level) in &config.tools {
        options = options.safety(pattern.clone(), *level);
    }
    if let Some(max) = config.max_tool_bytes {
        options = options.max_tool_bytes(max);
    }
    if let Some(max) = config.max_mount_bytes {
        options = options.max_mount_bytes(max);
    }
    options.check().map_err(|error| error.to_string())?;
    for (name, fingerprint) in &config.pins {
        let fingerprint: Fingerprint = fingerprint
            .parse()
            .map_err(|error| format!("the pin of `{name}`: {error}"))?;
        options = options.pin(name.clone(), fingerprint);
    }
    Ok(options)
}

/// Connects to every upstream of `config` and mounts its tools into `registry`; what could
/// not be mounted is said on stderr. The mounts must be kept: dropping one closes nothing,
/// but [`follow`] needs them.
pub(crate) async fn mount_all(
    config: &GatewayConfig,
    registry: &Arc<ToolRegistry>,
) -> Result<Vec<Arc<Mount>>, UsageError> {
    let mut mounts = Vec::new();
    for upstream in &config.upstream {
        let config = upstream.get_ref();
        let connected = connect(config).await.map_err(|error| {
            UsageError(format!(
                "the upstream `{}` did not start: {error}{}",
                config.namespace,
                confinement_hint(config)
            ))
        })?;
        let options = options(config).map_err(UsageError)?;
        let mount = registry.mount(&connected, options).await.map_err(|error| {
            UsageError(format!(
                "the upstream `{}` could not be mounted: {error}",
                config.namespace
            ))
        })?;
        tell(&config.namespace, mount.report());
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

async fn connect(config: &UpstreamConfig) -> Result<Upstream, toolwright_mcp::UpstreamError> {
    if let Some(url) = &config.url {
        let mut upstream = Upstream::http(url.clone());
        if let Some(max) = config.max_message_bytes {
            upstream = upstream.max_message_bytes(max);
        }
        if let Some(file) = &config.token_file {
            upstream = upstream.bearer_token_file(file.clone());
        }
        if let Some(var) = &config.token_env {
            upstream = upstream.bearer_token_env(var.clone());
        }
        if let Some(oauth) = &config.oauth {
            let oauth = oauth.get_ref();
            let mut credentials = match (&oauth.client_secret_file, &oauth.client_secret_env) {
                (Some(file), _) => ClientCredentials::secret_file(&oauth.client_id, file),
                (None, Some(var)) => ClientCredentials::secret_env(&oauth.client_id, var),
                // `load` refuses an `oauth` without its secret.
                (None, None) => ClientCredentials::secret_env(&oauth.client_id, ""),
            }
            .scopes(oauth.scopes.iter().cloned());
            if let Some(resource) = &oauth.resource {
                credentials = credentials.resource(resource);
            }
            if let Some(token_url) = &oauth.token_url {
                credentials = credentials.token_url(token_url);
            }
            for issuer in &oauth.authorization_servers {
                credentials = credentials.authorization_server(issuer);
            }
            upstream = upstream.client_credentials(credentials);
        }
        return upstream.connect().await;
    }
    let command = config.command.clone().unwrap_or_default();
    let mut upstream = Upstream::stdio(command, config.args.clone());
    for (key, value) in &config.env {
        upstream = upstream.env(key, value);
    }
    if let Some(cwd) = &config.cwd {
        upstream = upstream.cwd(cwd.clone());
    }
    if let Some(settings) = &config.sandbox {
        let mut sandbox = Sandbox::new().network(settings.network);
        for path in &settings.read {
            sandbox = sandbox.read(path.clone());
        }
        for path in &settings.write {
            sandbox = sandbox.write(path.clone());
        }
        upstream = upstream
            .prepare(move |command| sandbox.confine(command).map_err(std::io::Error::other));
    }
    upstream.connect().await
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
    let config = config.map(load).transpose()?;
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

/// The files of `config` whose contents are secrets (tokens, OAuth client secrets), each
/// with what it is, for `serve` to refuse when the tools could read them.
pub(crate) fn secret_files(config: &GatewayConfig) -> Vec<(&'static str, PathBuf)> {
    let mut files = Vec::new();
    for upstream in &config.upstream {
        let upstream = upstream.get_ref();
        if let Some(file) = &upstream.token_file {
            files.push(("upstream token file (in --config)", file.clone()));
        }
        if let Some(file) = upstream
            .oauth
            .as_ref()
            .and_then(|oauth| oauth.get_ref().client_secret_file.clone())
        {
            files.push(("upstream OAuth client secret file (in --config)", file));
        }
    }
    files
}
