//! Reading a configuration: TOML with the line of every mistake, each upstream checked (one
//! way to reach it, a namespace of its own, credentials only where they apply, valid OAuth
//! settings, pins that are fingerprints), relative paths taken from the file's directory,
//! and the refusals of its own paths (`refusals`).

use std::collections::BTreeMap;
use std::path::Path;

use toolwright_core::SafetyLevel;

use crate::upstream::{Fingerprint, MountOptions};

use super::confine::resolve_sandbox;
use super::declared::build;
use super::error::ConfigError;
use super::file::{GatewayConfig, OAuthConfig, UpstreamConfig, line_of};
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
                {
                    return Err(at("`token_file`, `token_env` and `oauth` are for an HTTP \
                                   upstream (`url`); a stdio upstream (`command`) gets its \
                                   secrets through `env`"
                        .to_owned()));
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
                    check_oauth(oauth.get_ref()).map_err(|message| invalid(Some(line), message))?;
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
        config.supervision = resolve(defaults.as_ref(), config.supervise.as_ref()).map_err(at)?;
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

/// What is wrong with an upstream's `oauth`, if anything.
fn check_oauth(oauth: &OAuthConfig) -> Result<(), String> {
    let shown = |text: &str| toolwright_names::escape::escape(text).into_owned();
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
            shown(scope)
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
