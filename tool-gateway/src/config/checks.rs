//! The pre-start checks a serving program runs, as the CLI's `serve` does: the files that
//! decide who may call (and the configuration and its secret files) out of the tools'
//! reach and out of every confined upstream's, the audit log out of the upstreams' reach.

use std::path::{Path, PathBuf};

use super::error::ConfigError;
use super::file::GatewayConfig;
use super::load::load;

/// What to check a configuration against before anything starts; [`Checks::load`] loads
/// the configuration and runs them all.
///
/// ```no_run
/// use toolwright_gateway::Checks;
///
/// # fn run() -> Result<(), toolwright_gateway::ConfigError> {
/// let checks = Checks::new()
///     .secret("token file", "/etc/toolwright/tokens")
///     .audit_log("/var/log/toolwright/audit.jsonl");
/// checks.refuse_secrets_readable_by_tools()?;
/// let config = checks.load("gateway.toml".as_ref())?;
/// # let _ = config;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default, Clone)]
pub struct Checks<'a> {
    flag: Option<String>,
    #[cfg(feature = "confine")]
    workspace: Option<&'a toolwright_std::Workspace>,
    /// The lifetime of the workspace, also without `confine`.
    _workspace: std::marker::PhantomData<&'a ()>,
    secrets: Vec<(String, PathBuf)>,
    audit_log: Option<PathBuf>,
}

impl<'a> Checks<'a> {
    /// No checks beyond the configuration's own (what [`GatewayConfig::load`] runs).
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the configuration by the flag that gave it (the CLI's `--config`) in messages:
    /// "gateway configuration (--config)", "upstream token file (in --config)".
    pub fn flag(mut self, flag: impl Into<String>) -> Self {
        self.flag = Some(flag.into());
        self
    }

    /// The workspace whose tools are served (toolwright-std's): the configuration, its
    /// secret files and every [`secret`](Self::secret) must be out of its tools' reach
    /// (feature `confine`).
    #[cfg(feature = "confine")]
    #[cfg_attr(docsrs, doc(cfg(feature = "confine")))]
    pub fn workspace(mut self, workspace: &'a toolwright_std::Workspace) -> Self {
        self.workspace = Some(workspace);
        self
    }

    /// A file that decides who may call (a token file, a JWKS, a key), named by `what` in
    /// messages: no tool and no confined upstream may read it.
    pub fn secret(mut self, what: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        self.secrets.push((what.into(), path.into()));
        self
    }

    /// The audit log: no confined upstream may see it or its directory.
    pub fn audit_log(mut self, path: impl Into<PathBuf>) -> Self {
        self.audit_log = Some(path.into());
        self
    }

    /// Refuses when a tool of the [`workspace`](Self::workspace) could read a
    /// [`secret`](Self::secret): run before anything else, with a configuration or without.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ReadableByTools`].
    pub fn refuse_secrets_readable_by_tools(&self) -> Result<(), ConfigError> {
        for (what, path) in &self.secrets {
            self.refuse_readable_by_tools(what, path)?;
        }
        Ok(())
    }

    /// Loads the configuration at `path` and runs every check: the configuration out of
    /// the tools' reach, its own checks ([`GatewayConfig::load`]), its secret files out of
    /// the tools' reach, the [`secret`](Self::secret)s and the audit log out of every
    /// confined upstream's.
    ///
    /// # Errors
    ///
    /// The first [`ConfigError`] found.
    pub fn load(&self, path: &Path) -> Result<GatewayConfig, ConfigError> {
        // It names commands, their environments (API keys) and token files: a tool that
        // could read it could read them.
        let named = match &self.flag {
            Some(flag) => format!("gateway configuration ({flag})"),
            None => "gateway configuration".to_owned(),
        };
        self.refuse_readable_by_tools(&named, path)?;
        let config = load(path, self.flag.as_deref())?;
        for (what, file) in config.secret_files(self.flag.as_deref()) {
            self.refuse_readable_by_tools(&what, &file)?;
        }
        // Nor may a confined upstream read what decides who may call.
        for (what, path) in &self.secrets {
            config.refuse_exposed_to_upstreams(what, path)?;
        }
        if let Some(audit) = &self.audit_log {
            config.refuse_audit_log_exposed(audit)?;
        }
        Ok(config)
    }

    /// Refuses when the tools served could read (or, in the workspace, rewrite) `path`: a
    /// stolen `tools:approve` token approves its holder's own dangerous calls, and a
    /// rewritten JWKS accepts the writer's tokens.
    fn refuse_readable_by_tools(&self, what: &str, path: &Path) -> Result<(), ConfigError> {
        #[cfg(feature = "confine")]
        if let Some(workspace) = self.workspace
            && let Some(through) = workspace.readable_by_commands(path)
        {
            return Err(ConfigError::ReadableByTools {
                what: what.to_owned(),
                file: path.to_path_buf(),
                in_workspace: through == workspace.root(),
                through,
            });
        }
        let _ = (what, path);
        Ok(())
    }
}

impl GatewayConfig {
    /// The configuration at `path`, checked before anything starts, every mistake with the
    /// file and line: each upstream has one way to reach it and a namespace of its own,
    /// credentials only where they apply, pins that are fingerprints; relative paths are
    /// taken from the file's directory; a confined upstream's grants exist, no path of one
    /// upstream lies where a confined one may write, and no confined one can read the file
    /// or its token files. For the serving program's own checks, see [`Checks::load`].
    ///
    /// ```
    /// use toolwright_gateway::{ConfigError, GatewayConfig};
    ///
    /// let dir = std::env::temp_dir().join(format!("gateway-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("gateway.toml");
    /// std::fs::write(&path, "[[upstream]]\nnamespace = \"time\"\n").unwrap();
    /// match GatewayConfig::load(&path) {
    ///     Err(ConfigError::Invalid { line, message, .. }) => {
    ///         assert_eq!(line, Some(1));
    ///         assert!(message.contains("needs a `command`"));
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// [`ConfigError::Read`], [`ConfigError::Invalid`] (with the line) or
    /// [`ConfigError::ExposedToUpstream`].
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Checks::new().load(path)
    }
}
