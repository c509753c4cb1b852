//! What can go wrong with a gateway configuration: reading it, a mistake in it (with the
//! file and line), a pre-start check that refuses it, and starting its upstreams.

use std::path::{Path, PathBuf};

use crate::upstream::UpstreamError;

/// Why a gateway configuration cannot be used; each says where and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read the configuration `{}`: {source}", path.display())]
    Read {
        /// The configuration's path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A mistake in the file: TOML it does not parse, a key it does not take, an upstream
    /// with no way (or two ways) to reach it, a path that cannot be granted.
    #[error("{}{}: {message}", path.display(), line.map(|line| format!(":{line}")).unwrap_or_default())]
    Invalid {
        /// The configuration's path.
        path: PathBuf,
        /// The line (from 1) of the mistake, or of the upstream it is in; `None` when the
        /// TOML parser gave no place.
        line: Option<usize>,
        /// What is wrong, and what to do.
        message: String,
    },
    /// A confined upstream could read a file of secrets (the configuration itself, a token
    /// file, a file given beside it), or the audit log.
    #[error(
        "the {what} {} is readable by the upstream `{upstream}` (through {}, which its \
         confinement shows it); move the file out of the directories it is granted, and out \
         of /usr, /opt and /etc (for example to ~/.config/toolwright/, mode 600)",
        file.display(),
        through.display()
    )]
    ExposedToUpstream {
        /// What the file is.
        what: String,
        /// The file.
        file: PathBuf,
        /// The namespace of the upstream that could read it.
        upstream: String,
        /// The granted (or always visible) directory through which it could.
        through: PathBuf,
    },
    /// The tools served could read (or, in the workspace, rewrite) a file that decides who
    /// may call them, or that holds an upstream's secrets.
    #[error(
        "refusing to serve: the {what} {} is readable by the tools it protects ({}); move it \
         outside the workspace and outside the directories commands may read (for example to \
         /etc/toolwright/ or ~/.config/toolwright/, mode 600)",
        file.display(),
        place(through, *in_workspace)
    )]
    ReadableByTools {
        /// What the file is.
        what: String,
        /// The file.
        file: PathBuf,
        /// The workspace root, or the directory commands may read, that holds it.
        through: PathBuf,
        /// Whether `through` is the workspace itself.
        in_workspace: bool,
    },
}

/// Where the tools could read a file, for [`ConfigError::ReadableByTools`].
fn place(through: &Path, in_workspace: bool) -> String {
    if in_workspace {
        format!("it is inside the workspace {}", through.display())
    } else {
        format!(
            "it is under {}, which commands run by `run_command` may read",
            through.display()
        )
    }
}

/// Why an upstream of a loaded configuration could not be started or mounted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The upstream did not start (or answer the handshake); for a confined stdio server
    /// the message says what it could see and how to grant it more.
    #[error("the upstream `{namespace}` did not start: {source}{hint}")]
    Connect {
        /// Its namespace.
        namespace: String,
        /// Why (boxed: an upstream's error is large).
        #[source]
        source: Box<UpstreamError>,
        /// For a confined server: what it could read and write, and how to give it more
        /// (empty otherwise).
        hint: String,
    },
    /// Its tools could not be listed.
    #[error("the upstream `{namespace}` could not be mounted: {source}")]
    Mount {
        /// Its namespace.
        namespace: String,
        /// Why (boxed: an upstream's error is large).
        #[source]
        source: Box<UpstreamError>,
    },
    /// Its mount options are refused (a configuration not made by
    /// [`GatewayConfig::load`](super::GatewayConfig::load) is checked there).
    #[error("{message}")]
    Options {
        /// Its namespace.
        namespace: String,
        /// What is wrong.
        message: String,
    },
    /// This build cannot reach it: a feature of `toolwright-gateway` is off.
    #[error("the upstream `{namespace}` needs toolwright-gateway's feature `{feature}`")]
    Feature {
        /// Its namespace.
        namespace: String,
        /// The feature.
        feature: &'static str,
    },
}
