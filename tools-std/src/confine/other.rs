//! Outside Linux: no kernel confinement.

use std::path::{Path, PathBuf};

use tempfile::TempDir;
use toolwright_core::ToolError;

use crate::workspace::Workspace;

/// What a program may do with a granted path (outside Linux, nothing is confined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Execute,
    Read,
    Write,
}

/// No kernel confinement outside Linux: commands run only if the workspace allows
/// unconfined commands, and a timeout kills the command's process group.
pub(crate) struct Confinement {
    temp: TempDir,
}

/// Why a confinement could not be prepared.
#[derive(Debug)]
pub(crate) enum PrepareError {
    /// There is no kernel confinement here and running unconfined was not allowed.
    NotConfinable,
    /// A part of it could not be built.
    Failed(String),
}

/// What a confined program may do where there is no confinement: only whether it may run.
pub(crate) struct Spec {
    pub(crate) binds: Vec<(PathBuf, Access)>,
    pub(crate) toolchain: bool,
    pub(crate) network: bool,
    pub(crate) unconfined_allowed: bool,
    pub(crate) protect_root_git: Option<PathBuf>,
    pub(crate) prefix: &'static str,
    /// Its resource limits (not enforced here).
    #[allow(dead_code)]
    pub(crate) limits: crate::limits::Limits,
    /// Named hosts only: impossible here, so refused.
    pub(crate) egress: Option<crate::egress::Egress>,
}

/// Named hosts only needs a network namespace: fail closed.
const NO_EGRESS: &str = "named hosts only (`network_hosts`) needs Linux's network \
    namespaces; the program is not started";

impl Confinement {
    pub(crate) fn prepare(
        ws: &Workspace,
        _cwd: &Path,
        _git: &[PathBuf],
    ) -> Result<Confinement, ToolError> {
        if ws.egress().is_some() {
            return Err(ToolError::new(NO_EGRESS));
        }
        if !ws.unconfined_allowed() {
            return Err(ToolError::new(
                "commands can only be confined by the kernel on Linux (Landlock), so \
                 `run_command` refuses to run them here; to run them unconfined anyway, the \
                 application allows it with `Workspace::allow_unconfined_commands(true)` \
                 (or `toolwright --allow-unconfined`)",
            ));
        }
        let temp = tempfile::Builder::new()
            .prefix("run_command-")
            .tempdir()
            .map_err(|e| {
                ToolError::new(format!(
                    "cannot create the command's temporary directory: {e}"
                ))
            })?;
        Ok(Confinement { temp })
    }

    /// Without kernel confinement: a private temporary directory, when `spec` allows
    /// running unconfined.
    pub(crate) fn prepare_spec(
        spec: Spec,
        _cwd: &Path,
        _more_binds: impl FnOnce(&Path) -> Vec<(PathBuf, Access)>,
    ) -> Result<Confinement, PrepareError> {
        if spec.egress.is_some() {
            return Err(PrepareError::Failed(NO_EGRESS.to_owned()));
        }
        if !spec.unconfined_allowed {
            return Err(PrepareError::NotConfinable);
        }
        let temp = tempfile::Builder::new()
            .prefix(spec.prefix)
            .tempdir()
            .map_err(|e| {
                PrepareError::Failed(format!("cannot create its temporary directory: {e}"))
            })?;
        Ok(Confinement { temp })
    }

    pub(crate) fn confined(&self) -> bool {
        false
    }

    pub(crate) fn temp_dir(&self) -> &Path {
        self.temp.path()
    }

    pub(crate) fn proxy_env(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    pub(crate) fn install(&mut self, _command: &mut std::process::Command) {}
}

/// Kills the process group led by `pid`.
pub(crate) fn stop(pid: u32) {
    kill(pid);
}

/// Kills the process group led by `pid`.
pub(crate) fn kill(pid: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}
