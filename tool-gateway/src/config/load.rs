//! Reading a configuration: TOML with the line of every mistake, each upstream checked (one
//! way to reach it, a namespace of its own, credentials only where they apply, valid OAuth
//! settings, pins that are fingerprints), relative paths taken from the file's directory,
//! and the refusals of its own paths (`refusals`).

use std::collections::BTreeMap;
use std::path::Path;

use toolwright_core::SafetyLevel;

use crate::upstream::{Fingerprint, MountOptions};

use super::confine::{check_limits, resolve_sandbox};
use super::declared::build;
use super::error::ConfigError;
use super::file::{CallersConfig, GatewayConfig, OAuthConfig, UpstreamConfig, line_of};
use super::supervision::resolve;

/// The configuration at `path`, checked; `flag` (the CLI's `--config`) is named in the
/// messages about its secret files when given.
pub(crate) fn load(path: &Path, flag: Option<&str>) -> Result<GatewayConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let invalid = |line: Option<usize>, message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut config: GatewayConfig = toml::from_str(&text).map_err(|error| {
        let line = error.span().map(|span| line_of(&text, span.start));
        invalid(line, error.message().trim_end().to_owned())
    })?;
    // Supervision (lifecycle): the file as TOML for reloads to compare, and the
    // file-wide `[supervise]`, checked even without upstreams.
    config.raw = toml::from_str(&text).unwrap_or_default();
    let defaults = config.supervise.clone();
    let supervise_line = text.find("[supervise]").map(|at| line_of(&text, at));
    resolve(defaults.as_ref(), None).map_err(|message| invalid(supervise_line, message))?;
    let base = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut namespaces = BTreeMap::new();
    for upstream in &mut config.upstream {
        let line = line_of(&text, upstream.span().start);
        let at = |message: String| invalid(Some(line), message);
        let config = upstream.get_mut();
        if let Some(first) = namespaces.insert(config.namespace.clone(), line) {
            return Err(at(format!(
                "the namespace `{}` is already used at {}:{first}; give each upstream its own",
                config.namespace,
                path.display()
            )));
        }
        match (&config.command, &config.url) {
            (Some(_), None) => {
                if config.token_file.is_some()
                    || config.token_env.is_some()
                    || config.oauth.is_some()
                    || config.callers.is_some()
                {
                    return Err(at(
                        "`token_file`, `token_env`, `oauth` and `callers` are for \
                                   an HTTP upstream (`url`); a stdio upstream (`command`) \
                                   gets its secrets through `env`"
                            .to_owned(),
                    ));
                }
                if config.max_message_bytes.is_some() {
                    return Err(at(
                        "`max_message_bytes` is for an HTTP upstream (`url`); a \
                                   stdio upstream's messages are bounded at 16 MiB"
                            .to_owned(),
                    ));
                }
            }
            (None, Some(_)) => {
                if !config.args.is_empty()
                    || !config.env.is_empty()
                    || config.cwd.is_some()
                    || config.sandbox.is_some()
                    || config.unconfined
                {
                    return Err(at(
                        "`args`, `env`, `cwd`, `sandbox` and `unconfined` are for \
                                   a stdio upstream (`command`), not an HTTP one (`url`)"
                            .to_owned(),
                    ));
                }
                let ways = [
                    config.token_file.is_some(),
                    config.token_env.is_some(),
                    config.oauth.is_some(),
                ];
                if ways.into_iter().filter(|given| *given).count() > 1 {
                    return Err(at(
                        "give the upstream's credentials in one of `token_file`, \
                                   `token_env` or `oauth`, not several"
                            .to_owned(),
                    ));
                }
                if let Some(oauth) = &config.oauth {
                    let line = line_of(&text, oauth.span().start);
                    check_oauth(oauth.get_ref(), "oauth")
                        .map_err(|message| invalid(Some(line), message))?;
                }
                if let Some(callers) = &config.callers {
                    let line = line_of(&text, callers.span().start);
                    check_callers(callers.get_ref(), config.oauth.is_some())
                        .map_err(|message| invalid(Some(line), message))?;
                }
            }
            (Some(_), Some(_)) => {
                return Err(at(
                    "an upstream is a `command` (stdio) or a `url` (HTTP), not both".to_owned(),
                ));
            }
            (None, None) => {
                return Err(at(format!(
                    "the upstream `{}` needs a `command` (a stdio server) or a `url` (a \
                     streamable HTTP server)",
                    config.namespace
                )));
            }
        }
        if config.command.is_some() {
            resolve_sandbox(config, base).map_err(at)?;
        }
        if let Some(limits) = &config.limits {
            let line = line_of(&text, limits.span().start);
            check_limits(config, limits.get_ref()).map_err(|m| invalid(Some(line), m))?;
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
        if let Some(callers) = config.callers.as_mut().map(toml::Spanned::get_mut) {
            if let Some(file) = &mut callers.principal_tokens {
                *file = base.join(&*file);
            }
            if let Some(file) = callers
                .token_exchange
                .as_mut()
                .and_then(|exchange| exchange.client_secret_file.as_mut())
            {
                *file = base.join(&*file);
            }
        }
        config.supervision = resolve(defaults.as_ref(), config.supervise.as_ref()).map_err(at)?;
        if let Some(protocol) = &config.protocol {
            config.era = protocol
                .parse()
                .map_err(|error| at(format!("`protocol`: {error}")))?;
        }
        options(config).map_err(at)?;
    }
    config.declared = build(&config, path, &text, base)?;
    config.refuse_replaceable_paths(path, &text)?;
    // A confined server must not see the file that holds the others' environments and
    // tokens, nor a token file.
    config.refuse_exposed_to_upstreams("gateway configuration", path)?;
    for (what, file) in config.secret_files(flag) {
        config.refuse_exposed_to_upstreams(&what, &file)?;
    }
    Ok(config)
}

/// What is wrong with an upstream's `callers`, if anything; `oauth` is whether the
/// gateway's own session has OAuth client credentials.
fn check_callers(callers: &CallersConfig, oauth: bool) -> Result<(), String> {
    if callers.token_exchange.is_some() && callers.principal_tokens.is_some() {
        return Err(
            "give each caller's credentials by `callers.token_exchange` or \
                    `callers.principal_tokens`, not both"
                .to_owned(),
        );
    }
    let own_token = callers.token_exchange.is_some() || callers.principal_tokens.is_some();
    if !own_token && callers.identity_header.is_none() {
        return Err("`callers` needs `token_exchange`, `principal_tokens` or \
                    `identity_header`"
            .to_owned());
    }
    if !own_token && oauth {
        return Err(
            "`callers.identity_header` alone sends the gateway's static token \
                    (`token_file`, `token_env`) with each caller's name; with `oauth`, give \
                    each caller its own token (`callers.token_exchange` or \
                    `callers.principal_tokens`)"
                .to_owned(),
        );
    }
    if let Some(name) = &callers.identity_header
        && (name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b)))
    {
        return Err(format!(
            "`callers.identity_header` is `{}`, not an HTTP header name",
            toolwright_names::escape::escape(name)
        ));
    }
    if callers.max_sessions == Some(0) {
        return Err("`callers.max_sessions` is 0: no caller could call".to_owned());
    }
    if let Some(exchange) = &callers.token_exchange {
        if exchange
            .audience
            .as_deref()
            .is_some_and(|a| a.trim().is_empty())
        {
            return Err("`callers.token_exchange.audience` is empty".to_owned());
        }
        if exchange.max_cached_tokens == Some(0) {
            return Err(
                "`callers.token_exchange.max_cached_tokens` is 0; give at least 1".to_owned(),
            );
        }
        check_oauth(
            &OAuthConfig {
                client_id: exchange.client_id.clone(),
                client_secret_file: exchange.client_secret_file.clone(),
                client_secret_env: exchange.client_secret_env.clone(),
                scopes: exchange.scopes.clone(),
                resource: exchange.resource.clone(),
                token_url: exchange.token_url.clone(),
                authorization_servers: exchange.authorization_servers.clone(),
            },
            "callers.token_exchange",
        )?;
    }
    Ok(())
}

/// What is wrong with an upstream's `oauth` (or a table of the same keys at `key`), if
/// anything.
fn check_oauth(oauth: &OAuthConfig, key: &str) -> Result<(), String> {
    let shown = |text: &str| toolwright_names::escape::escape(text).into_owned();
    if oauth.client_id.trim().is_empty() {
        return Err(format!("`{key}.client_id` is empty"));
    }
    match (&oauth.client_secret_file, &oauth.client_secret_env) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "give the client secret in `{key}.client_secret_file` or \
                 `{key}.client_secret_env`, not both"
            ));
        }
        (None, None) => {
            return Err(format!(
                "`{key}` needs the client secret's file (`client_secret_file`) or \
                 environment variable (`client_secret_env`)"
            ));
        }
        _ => {}
    }
    if let Some(scope) = oauth
        .scopes
        .iter()
        .find(|scope| scope.is_empty() || scope.chars().any(char::is_whitespace))
    {
        return Err(format!(
            "`{key}.scopes` has `{}`, which is not one scope (no spaces, not empty)",
            shown(scope)
        ));
    }
    let listed = oauth.authorization_servers.iter().map(Some);
    for (name, value) in [
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
                "`{key}.{name}` is `{}`, not an http:// or https:// URL",
                shown(value)
            ));
        }
    }
    Ok(())
}

/// How to mount one upstream, or what is wrong with its settings.
pub(crate) fn options(config: &UpstreamConfig) -> Result<MountOptions, String> {
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
    // The upstream's calls at once and per period, each with a caller's share.
    if let Some(max) = config.max_concurrent {
        options = options.max_concurrent(max);
    }
    if let Some(max) = config.max_concurrent_per_caller {
        options = options.max_concurrent_per_caller(max);
    }
    if let Some(rate) = &config.rate {
        options = options.rate(rate.parse().map_err(|error| format!("`rate`: {error}"))?);
    }
    if let Some(rate) = &config.rate_per_caller {
        let rate = rate
            .parse()
            .map_err(|error| format!("`rate_per_caller`: {error}"))?;
        options = options.rate_per_caller(rate);
    }
    if let Some(timeout) = config.supervision.call_timeout {
        options = options.call_timeout(timeout);
    }
    options.check().map_err(|error| error.to_string())?;
    for (name, fingerprint) in &config.pins {
        let fingerprint: Fingerprint = fingerprint
            .parse()
            .map_err(|error| format!("the pin of `{name}`: {error}"))?;
        options = options.pin(name.clone(), fingerprint);
    }
    if let Some(mount) = config.primitives {
        options = options.primitives(mount);
    }
    if let Some(level) = config.read_safety {
        options = options.read_safety(level);
    }
    for (name, fingerprint) in &config.prompt_pins {
        let fingerprint: Fingerprint = fingerprint
            .parse()
            .map_err(|error| format!("the pin of the prompt `{name}`: {error}"))?;
        options = options.pin_prompt(name.clone(), fingerprint);
    }
    for (uri, fingerprint) in &config.resource_pins {
        let fingerprint: Fingerprint = fingerprint
            .parse()
            .map_err(|error| format!("the pin of the resource `{uri}`: {error}"))?;
        options = options.pin_resource(uri.clone(), fingerprint);
    }
    Ok(options)
}
