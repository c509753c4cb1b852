//! The pre-start refusals of a configuration's own paths: one an upstream could replace
//! (beneath a directory a confined upstream may write), a file of secrets or the audit log
//! a confined upstream could read. Each is a [`ConfigError`] naming the file and what to do.

use std::path::{Path, PathBuf};

use super::confine::readable_through;
use super::error::ConfigError;
use super::file::{GatewayConfig, line_of};

impl GatewayConfig {
    /// Refuses when a confined upstream could read `file` (its `sandbox` grants a directory
    /// that holds it, or it is in a directory every confined program sees); `what` names
    /// the file in the message ("token file (--auth-token-file)").
    ///
    /// # Errors
    ///
    /// [`ConfigError::ExposedToUpstream`] naming the upstream and the directory.
    pub fn refuse_exposed_to_upstreams(&self, what: &str, file: &Path) -> Result<(), ConfigError> {
        for upstream in self.upstreams() {
            if let Some(through) = readable_through(upstream, file) {
                return Err(ConfigError::ExposedToUpstream {
                    what: what.to_owned(),
                    file: file.to_path_buf(),
                    upstream: upstream.namespace.clone(),
                    through,
                });
            }
        }
        Ok(())
    }

    /// Refuses when a confined upstream could see the audit log at `path` or the directory
    /// it is in: it would read every call's arguments (other servers' included), and could
    /// rewrite the log, or put a link where the log is written for us to append to the
    /// link's target.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ExposedToUpstream`].
    pub fn refuse_audit_log_exposed(&self, path: &Path) -> Result<(), ConfigError> {
        self.refuse_exposed_to_upstreams("audit log", path)?;
        let dir = path
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        self.refuse_exposed_to_upstreams("audit log's directory", dir)
    }

    /// The files whose contents are secrets (tokens, OAuth client secrets), each with what
    /// it is; `flag` (the CLI's `--config`) is named in it when given.
    pub fn secret_files(&self, flag: Option<&str>) -> Vec<(String, PathBuf)> {
        let named = |what: &str| match flag {
            Some(flag) => format!("{what} (in {flag})"),
            None => what.to_owned(),
        };
        let mut files = Vec::new();
        for upstream in self.upstreams() {
            if let Some(file) = &upstream.token_file {
                files.push((named("upstream token file"), file.clone()));
            }
            if let Some(file) = upstream
                .oauth
                .as_ref()
                .and_then(|oauth| oauth.get_ref().client_secret_file.clone())
            {
                files.push((named("upstream OAuth client secret file"), file));
            }
            if let Some(callers) = upstream.callers.as_ref().map(toml::Spanned::get_ref) {
                if let Some(file) = &callers.principal_tokens {
                    files.push((named("upstream file of tokens by principal"), file.clone()));
                }
                if let Some(file) = callers
                    .token_exchange
                    .as_ref()
                    .and_then(|exchange| exchange.client_secret_file.clone())
                {
                    files.push((named("upstream token exchange client secret file"), file));
                }
            }
        }
        files
    }

    /// Refuses a path of one upstream (a granted path, or the program or an argument that is
    /// a path of an unconfined one) that lies beneath a directory a confined upstream may
    /// write: that server could replace it, or a directory on its way, by a link to anything
    /// of ours (between two runs, or while the upstreams start one after the other), and the
    /// path checked here would lead there when the next server starts: to our secrets, or to
    /// a program of its own run unconfined. `text` is the file at `path`, for line numbers.
    pub(crate) fn refuse_replaceable_paths(
        &self,
        path: &Path,
        text: &str,
    ) -> Result<(), ConfigError> {
        let writable: Vec<(&str, &Path)> = self
            .upstreams()
            .filter(|upstream| upstream.command.is_some() && !upstream.unconfined)
            .filter_map(|upstream| Some((upstream, upstream.sandbox.as_ref()?)))
            .flat_map(|(upstream, sandbox)| {
                sandbox
                    .write
                    .iter()
                    .map(move |dir| (upstream.namespace.as_str(), dir.as_path()))
            })
            .collect();
        for upstream in &self.upstream {
            let line = line_of(text, upstream.span().start);
            let refused = |message: String| ConfigError::Invalid {
                path: path.to_path_buf(),
                line: Some(line),
                message,
            };
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
                        return Err(refused(format!(
                            "`command` is looked up in PATH, whose `{}` the upstream \
                             `{writer}` may write: it could put a program of that name there; \
                             name the program with its directory, or take that directory out \
                             of PATH",
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
                return Err(refused(format!(
                    "`{key}` names `{}`, inside `{}`, which the upstream `{writer}` may \
                     write: it could replace it by a link to anything of ours before the \
                     server starts; grant directories side by side, not one inside another \
                     that a server may write",
                    granted.display(),
                    dir.display()
                )));
            }
        }
        Ok(())
    }
}
