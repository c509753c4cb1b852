//! Outside Linux: no kernel confinement.

use std::path::{Path, PathBuf};

use tempfile::TempDir;
use toolwright_runtime::ToolError;

use crate::Workspace;

/// No kernel confinement outside Linux: commands run only if the workspace allows
/// unconfined commands, and a timeout kills the command's process group.
pub(crate) struct Confinement {
    temp: TempDir,
}

impl Confinement {
    pub(crate) fn prepare(
        ws: &Workspace,
        _cwd: &Path,
        _git: &[PathBuf],
    ) -> Result<Confinement, ToolError> {
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

    pub(crate) fn confined(&self) -> bool {
        false
    }

    pub(crate) fn temp_dir(&self) -> &Path {
        self.temp.path()
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
