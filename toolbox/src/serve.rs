//! `toolwright serve`: the tools over MCP, on stdio or streamable HTTP.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use toolwright_core::SafetyLevel;
use toolwright_gateway::Checks;
use toolwright_mcp::secret::SecretSource;
use toolwright_mcp::{AuthConfig, HttpOptions, JwtConfig, McpServer, PrometheusMetrics};
use toolwright_runtime::Executor;

use crate::cli::{HttpArgs, ServeArgs};
use crate::ending::{Outcome, UsageError, registry};
use crate::workspace::workspace;

/// The skills of `dir` (`--skills`), registered with their files: what was left out is
/// printed, one line each; a directory that cannot be read, or a skill whose URI another
/// resource holds, stops the server before it starts.
fn load_skills(registry: &toolwright_runtime::ToolRegistry, dir: &Path) -> Result<(), UsageError> {
    let set = toolwright_std::skills::load_dir(dir).map_err(|error| {
        UsageError(format!(
            "cannot serve the skills of `{}` (--skills): {error}",
            dir.display()
        ))
    })?;
    for problem in set.problems() {
        eprintln!("toolwright: --skills {}: {problem}", dir.display());
    }
    set.register(registry).map_err(|error| {
        UsageError(format!(
            "cannot serve the skills of `{}` (--skills): {error}",
            dir.display()
        ))
    })?;
    tracing::info!(skills = set.skills().len(), dir = %dir.display(), "serving skills");
    Ok(())
}

pub(crate) async fn serve(args: ServeArgs) -> Result<Outcome, UsageError> {
    // Options first: a deployment mistake is reported before anything starts.
    let workspace = workspace(&args.workspace, args.audit_log.as_deref())?;
    let code_mode = args
        .code_mode
        .bounds(Some(Duration::from_secs(args.timeout)), args.max_safety)
        .map_err(UsageError)?;
    // The files that decide who may call: out of the tools' reach, and out of every
    // confined upstream's.
    // A copy the SIGHUP reloads check against for as long as the program serves (one
    // workspace value, leaked once).
    let checked: &'static toolwright_std::Workspace = Box::leak(Box::new(workspace.clone()));
    let mut checks = Checks::new().workspace(checked);
    let secrets = [
        (
            "token file (--auth-token-file)",
            &args.http_options.auth_token_file,
        ),
        ("JWKS file (--jwks-file)", &args.http_options.jwks_file),
        (
            "session store URL file (--session-store-file)",
            &args.http_options.session_store_file,
        ),
        (
            "request state key file (--request-state-key-file)",
            &args.http_options.request_state_key_file,
        ),
    ];
    for (what, path) in secrets {
        if let Some(path) = path {
            checks = checks.secret(what, path);
        }
    }
    if let Some(audit) = &args.audit_log {
        checks = checks.audit_log(audit);
    }
    checks
        .refuse_secrets_readable_by_tools()
        .map_err(|error| UsageError(error.to_string()))?;
    // The gateway configuration names commands, their environments (API keys) and token
    // files: it and its secret files are checked as the secrets are.
    let gateway = args
        .config
        .as_deref()
        .map(|path| crate::gateway::load(checks.clone(), path, args.audit_log.as_deref()))
        .transpose()?;
    let (options, claims, task_store) = match args.http {
        Some(addr) => {
            let (options, claims, tasks) = http_options(&args.http_options, addr).await?;
            (Some(options), claims, tasks)
        }
        None => (None, None, None),
    };
    let state_key = request_state_key(&args.http_options)?;
    if state_key.is_some() && claims.is_none() {
        // A key given for replicas without a shared record of used states: each replica
        // would accept the same approval once, silently.
        return Err(UsageError(
            "refusing a shared request state key (--request-state-key-file or \
             --request-state-key-env) without a shared record of used states: replicas that \
             share the key would each accept the same approval once, and a restarted server \
             would accept it again. Give the session store too (--session-store, \
             --session-store-file or --session-store-env: Redis records each state's use for \
             every replica), or drop the key for a single server (it then makes a random key \
             of its own)"
                .to_owned(),
        ));
    }
    // Opened before any upstream starts.
    let audit = crate::audit::open(args.audit_log.as_deref())?;
    let registry = Arc::new(registry(code_mode.is_some())?);
    // The workspace's files as resources, their paths completed from this workspace.
    toolwright_std::register_resources(&registry, Some(&workspace))
        .map_err(|error| UsageError(error.to_string()))?;
    if let Some(dir) = &args.skills {
        load_skills(&registry, dir)?;
    }
    // Each upstream supervised on its own: serving starts now, whatever their handshakes
    // do; SIGHUP reloads the file with the same checks.
    let supervisor = match (gateway, &args.config) {
        (Some(config), Some(path)) => Some(
            crate::gateway::supervise(
                config,
                &registry,
                checks.clone(),
                path,
                args.audit_log.as_deref(),
            )
            .await?,
        ),
        _ => None,
    };
    let root = workspace.root().display().to_string();
    let metrics = Arc::new(PrometheusMetrics::new());
    let discovery =
        crate::serve_discovery::discovery(args.discovery, &args.core).map_err(UsageError)?;
    // Told in the instructions: a model that sees `run_code` among many tools learns when
    // to reach for it.
    let offers_code = code_mode.is_some();
    let mut executor = crate::code_mode::enable(
        Executor::builder(Arc::clone(&registry)).discovery(discovery),
        code_mode,
    );
    if let Some(audit) = audit {
        executor = executor.hook(audit);
    }
    if let Some(supervisor) = &supervisor {
        executor = executor.shared_hook(supervisor.hook());
    }
    let executor = executor
        .max_safety(args.max_safety.unwrap_or(SafetyLevel::Dangerous))
        .state(workspace)
        .timeout(Duration::from_secs(args.timeout))
        .max_concurrent_calls(usize::try_from(args.max_concurrent_calls).unwrap_or(usize::MAX))
        .max_sync_threads(usize::try_from(args.max_sync_threads).unwrap_or(usize::MAX))
        .shared_hook(metrics.clone())
        // A tool linked into the binary that needs state toolwright does not have is a usage
        // error naming it, not a panic.
        .try_build()
        .map_err(|e| UsageError(e.to_string()))?;
    let server = McpServer::new(executor)
        .name("toolwright", env!("CARGO_PKG_VERSION"))
        .instructions(format!(
            "Tools for working in the project directory {root}: files (read, search, edit), \
             commands, maths, time. Paths are relative to that directory.{}",
            if offers_code {
                " run_code runs a short Python program in which each of your tools is a \
                 function: for a task of many tool calls, write one program that makes them \
                 and returns only what matters."
            } else {
                ""
            }
        ))
        .allow_dangerous(args.allow_dangerous)
        // Refusals name the flag, not the library option, to whoever started the CLI.
        .allow_dangerous_hint("`--allow-dangerous`")
        .task_ttl(Duration::from_secs(args.task_ttl));
    // Tasks in Redis with the sessions, so any replica answers for any task; else in memory.
    let server = match task_store {
        Some(store) => server.task_store(Arc::new(store)),
        None => server,
    };
    let server = match state_key {
        Some(key) => server
            .request_state_key(key)
            .map_err(|e| UsageError(e.to_string()))?,
        None => server,
    };
    let server = match claims {
        Some(claims) => server.request_state_claims(claims),
        None => server,
    };
    let (Some(addr), Some(options)) = (args.http, options) else {
        // A stdio client may list the tools once: it is answered when every upstream's
        // first start ended (a mute one within its handshake_timeout; it no longer stops
        // the server).
        if let Some(supervisor) = &supervisor {
            supervisor.first_starts().await;
        }
        tracing::info!(%root, "serving MCP over stdio");
        server
            .serve_stdio()
            .await
            .map_err(|e| UsageError(e.to_string()))?;
        return Ok(Outcome::Success);
    };
    let drain_timeout = Duration::from_secs(args.http_options.drain_timeout);
    let http = server
        .serve_http_with(
            addr,
            match &supervisor {
                Some(supervisor) => options.status_source(supervisor.status_source()),
                None => options,
            }
            .metrics(metrics),
        )
        .await
        .map_err(|e| UsageError(format!("cannot serve on {addr}: {e}")))?;
    // Served from now on (the tools of upstreams already up, `/readyz` 503 until each
    // first start ended); announced once they all ended, so a script that waits for this
    // line finds every tool that could start.
    if let Some(supervisor) = &supervisor {
        supervisor.first_starts().await;
    }
    eprintln!(
        "toolwright: MCP server listening on {} (Ctrl-C or SIGTERM to stop)",
        http.url()
    );
    let signal = stop_signal().await;
    eprintln!(
        "toolwright: {signal}: draining (new requests get 503; calls in flight have up to {}s)",
        drain_timeout.as_secs()
    );
    let report = http
        .drain(drain_timeout)
        .await
        .map_err(|e| UsageError(e.to_string()))?;
    if report.is_clean() {
        eprintln!("toolwright: stopped");
    } else {
        eprintln!(
            "toolwright: stopped; {} calls were still running at the deadline and were cancelled",
            report.unfinished_calls
        );
    }
    Ok(Outcome::Success)
}

/// What `serve --http` runs with, from its flags, and what replicas share on the session
/// store's Redis: which request states were used, and the tasks. A usage error for an
/// unsafe or incomplete configuration.
type Http = (
    HttpOptions,
    Option<Arc<dyn toolwright_mcp::StateClaims>>,
    Option<toolwright_mcp::RedisTaskStore>,
);

async fn http_options(args: &HttpArgs, addr: SocketAddr) -> Result<Http, UsageError> {
    let mut auth = AuthConfig::new();
    if let Some(path) = &args.auth_token_file {
        auth = auth
            .tokens_from_file(path)
            .map_err(|e| UsageError(e.to_string()))?;
    }
    if let Some(var) = &args.auth_token_env {
        auth = auth
            .token_from_env(var)
            .map_err(|e| UsageError(e.to_string()))?;
    }
    if args.jwks_file.is_some() || args.jwks_url.is_some() {
        let issuer = args.jwt_issuer.clone().unwrap_or_default();
        let Some(audience) = args.jwt_audience.clone().or(args.resource_url.clone()) else {
            return Err(UsageError(
                "JWTs need an audience to check: give --jwt-audience, or --resource-url (used \
                 as the audience)"
                    .to_owned(),
            ));
        };
        let jwt = match (&args.jwks_file, &args.jwks_url) {
            (Some(path), _) => JwtConfig::from_jwks_file(path, issuer, audience),
            (None, Some(url)) => JwtConfig::from_jwks_url(url, issuer, audience).await,
            (None, None) => unreachable!("one of them is set"),
        }
        .map_err(|e| UsageError(e.to_string()))?;
        auth = auth.jwt(jwt);
    }

    let loopback = addr.ip().is_loopback();
    let mut options = HttpOptions::new()
        .max_request_body_bytes(args.max_body_bytes)
        .max_sessions(usize::try_from(args.max_sessions).unwrap_or(usize::MAX))
        .session_idle_timeout(Duration::from_secs(args.session_idle_secs))
        .stateless(args.stateless)
        .max_connections(usize::try_from(args.max_connections).unwrap_or(usize::MAX))
        .header_read_timeout(Duration::from_secs(args.header_read_timeout))
        .connection_idle_timeout(Duration::from_secs(args.connection_idle_secs))
        .max_sessions_per_principal(
            usize::try_from(args.max_sessions_per_principal).unwrap_or(usize::MAX),
        )
        .max_calls_per_principal(
            usize::try_from(args.max_calls_per_principal).unwrap_or(usize::MAX),
        )
        .max_connections_per_principal(
            usize::try_from(args.max_connections_per_principal).unwrap_or(usize::MAX),
        )
        .max_connections_per_address(
            usize::try_from(args.max_connections_per_address).unwrap_or(usize::MAX),
        )
        .max_listen_streams_per_principal(
            usize::try_from(args.max_listen_streams_per_principal).unwrap_or(usize::MAX),
        )
        .body_read_timeout(Duration::from_secs(args.body_read_timeout))
        .max_sessions_per_address(
            usize::try_from(args.max_sessions_per_address).unwrap_or(usize::MAX),
        );
    for host in &args.allow_hosts {
        options = options.allow_host(host);
    }
    for origin in &args.allow_origins {
        options = options.allow_origin(origin);
    }
    if let Some(url) = &args.resource_url {
        options = options.resource_url(url);
        if let Some(host) = authority(url) {
            options = options.allow_host(host);
        }
    }
    let mut claims = None;
    let mut task_store = None;
    if let Some(url) = session_store_url(args)? {
        // Entries live as long as an idle session would, and a replica that restores one
        // restarts the clock.
        let store = toolwright_mcp::RedisSessionStore::connect(&url)
            .await
            .map_err(|e| UsageError(e.to_string()))?
            .ttl(Duration::from_secs(args.session_idle_secs.max(1)));
        tracing::info!(
            store = store.url(),
            "MCP sessions, tasks and used request states are shared through Redis"
        );
        task_store = Some(toolwright_mcp::RedisTaskStore::from_session_store(&store));
        let store = Arc::new(store);
        claims = Some(store.clone() as Arc<dyn toolwright_mcp::StateClaims>);
        if !args.stateless {
            options = options.session_store(store);
        }
    }
    if auth.is_empty() {
        if !loopback && !args.insecure_no_auth {
            return Err(UsageError(format!(
                "refusing to serve {addr} without authentication: anyone who can reach it could \
                 call the tools. Give --auth-token-file PATH or --auth-token-env VAR (static \
                 tokens), or --jwks-file PATH / --jwks-url URL with --jwt-issuer (JWTs); or, on a \
                 network you trust, --insecure-no-auth"
            )));
        }
        options = options.insecure_no_auth(args.insecure_no_auth);
    } else {
        if !loopback && args.resource_url.is_none() {
            tracing::warn!(
                %addr,
                "no --resource-url: the OAuth metadata names http://{addr}, which clients on \
                 other hosts may not reach; give the public URL of this server"
            );
        }
        options = options.auth(auth);
    }
    Ok((options, claims, task_store))
}

/// The key that seals request states, from --request-state-key-file or
/// --request-state-key-env (surrounding whitespace dropped); `None` for a random one.
fn request_state_key(args: &HttpArgs) -> Result<Option<Vec<u8>>, UsageError> {
    let (source, flag) = if let Some(path) = &args.request_state_key_file {
        (SecretSource::File(path.clone()), "--request-state-key-file")
    } else if let Some(var) = &args.request_state_key_env {
        (SecretSource::Env(var.clone()), "--request-state-key-env")
    } else {
        return Ok(None);
    };
    let from = format!("{} ({flag})", source.describe());
    let key = source
        .read()
        .map_err(|error| UsageError(format!("{error} ({flag})")))?;
    if key.len() < 32 {
        return Err(UsageError(format!(
            "the request state key in {from} has {} bytes; it needs 32 or more (make one with \
             `openssl rand -hex 32`)",
            key.len()
        )));
    }
    Ok(Some(key.as_bytes().to_vec()))
}

/// The Redis URL of the session store, from --session-store (only without a password: the
/// arguments of a process are visible to every user of the machine), --session-store-file
/// or --session-store-env.
fn session_store_url(args: &HttpArgs) -> Result<Option<String>, UsageError> {
    if let Some(url) = &args.session_store {
        if toolwright_mcp::redis_url_has_password(url) {
            return Err(UsageError(
                "refusing a Redis URL with a password on the command line (--session-store): \
                 every user of this machine can read a process's arguments. Put the URL in a \
                 file only you can read and give --session-store-file PATH, or in an \
                 environment variable and give --session-store-env VAR"
                    .to_owned(),
            ));
        }
        return Ok(Some(url.clone()));
    }
    let (source, flag) = if let Some(path) = &args.session_store_file {
        (SecretSource::File(path.clone()), "--session-store-file")
    } else if let Some(var) = &args.session_store_env {
        (SecretSource::Env(var.clone()), "--session-store-env")
    } else {
        return Ok(None);
    };
    source.read().map(Some).map_err(|error| {
        UsageError(format!(
            "{error} ({flag}); it holds the Redis URL, such as redis://:PASSWORD@HOST:6379/0"
        ))
    })
}

/// The `host[:port]` of a URL (`https://tools.example.com/mcp` -> `tools.example.com`).
fn authority(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    (!authority.is_empty()).then_some(authority)
}

/// Waits for Ctrl-C or SIGTERM; which one came.
async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => tokio::select! {
                _ = tokio::signal::ctrl_c() => "Ctrl-C",
                _ = terminate.recv() => "SIGTERM",
            },
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM; stop with Ctrl-C");
                let _ = tokio::signal::ctrl_c().await;
                "Ctrl-C"
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "Ctrl-C"
    }
}
