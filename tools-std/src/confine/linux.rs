//! Kernel confinement on Linux: the supervisor, the command's namespaces, its private view of
//! the file system, no capabilities, Landlock and the system-call policy.

use std::ffi::CString;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use toolwright_core::ToolError;

use super::cgroup::Cgroups;
use super::limits;
use super::mount::Plan;
use super::relay::{self, Relay};
use super::rules::{PROC_ACCESS, Writable, landlock_ruleset};
use super::supervisor::{Hook, lifeline};
use super::syscalls;
use super::view::{self, Access};
use crate::egress::{Egress, Proxy};
use crate::workspace::Workspace;

const NOT_CONFINED: &str = "this kernel cannot confine commands (Landlock is not available \
    or not enabled), so `run_command` refuses to run them; to run them unconfined anyway, \
    the application allows it with `Workspace::allow_unconfined_commands(true)` (or \
    `toolwright --allow-unconfined`)";

/// The confinement of one command, prepared before it is spawned: the kernel rules, the
/// command's view of the file system, and its private temporary directory (removed, with
/// the view's empty stage, when this is dropped).
pub(crate) struct Confinement {
    /// The write end of the supervisor's lifeline: closed when this is dropped or when our
    /// process ends, however it ends, which makes the kernel signal the supervisor.
    _lifeline: Option<OwnedFd>,
    temp: TempDir,
    _stage: TempDir,
    confined: bool,
    hook: Option<Hook>,
    /// The program's own cgroups (removed after the stage and temporary directory).
    _cgroups: Cgroups,
    /// The egress proxy of a program that may reach named hosts (stopped when dropped).
    proxy: Option<Proxy>,
}

/// Why a confinement could not be prepared.
#[derive(Debug)]
pub(crate) enum PrepareError {
    /// The kernel has no Landlock and running unconfined was not allowed.
    NotConfinable,
    /// A part of it could not be built.
    Failed(String),
}

/// What a confined program may reach, beyond the system's programs and libraries.
pub(crate) struct Spec {
    /// The directories and files it sees, each with what it may do there.
    pub(crate) binds: Vec<(PathBuf, Access)>,
    /// Whether the Rust toolchain is in its view.
    pub(crate) toolchain: bool,
    /// Whether it may use the network.
    pub(crate) network: bool,
    /// Whether it runs where the kernel cannot confine it (no Landlock).
    pub(crate) unconfined_allowed: bool,
    /// Without a mount namespace, this root is writable only in its top-level entries but
    /// `.git` (a workspace whose `.git` is protected).
    pub(crate) protect_root_git: Option<PathBuf>,
    /// The prefix of its temporary directories' names.
    pub(crate) prefix: &'static str,
    /// Its memory, CPU, processes and writes (see `crate::limits`).
    pub(crate) limits: crate::limits::Limits,
    /// Without the network, the named hosts it may reach through an egress proxy.
    pub(crate) egress: Option<Egress>,
}

impl Confinement {
    /// Builds everything the child needs (which allocates, so must happen before the fork).
    /// `git`: the workspace's `.git` entries, bound read-only in the command's view.
    ///
    /// # Errors
    ///
    /// When the kernel has no Landlock and the workspace does not allow unconfined
    /// commands, or when a rule cannot be built.
    pub(crate) fn prepare(
        ws: &Workspace,
        cwd: &Path,
        git: &[PathBuf],
    ) -> Result<Confinement, ToolError> {
        let git = if ws.git_writes_allowed() {
            &[][..]
        } else {
            git
        };
        let root_git = ws.root().join(".git");
        let spec = Spec {
            binds: Vec::new(),
            toolchain: true,
            network: ws.network_allowed(),
            unconfined_allowed: ws.unconfined_allowed(),
            protect_root_git: git.contains(&root_git).then(|| ws.root().to_path_buf()),
            prefix: "run_command-",
            limits: ws.command_limits(),
            egress: ws.egress().cloned(),
        };
        Confinement::prepare_spec(spec, cwd, |temp| view::workspace_binds(ws, Some(temp), git))
            .map_err(|error| match error {
                PrepareError::NotConfinable => ToolError::new(NOT_CONFINED),
                PrepareError::Failed(message) => {
                    ToolError::new(format!("cannot confine the command: {message}"))
                }
            })
    }

    /// Builds the confinement `spec` describes, the program starting in `cwd` (a directory
    /// of its view); `more_binds` adds what needs the private temporary directory's path.
    pub(crate) fn prepare_spec(
        mut spec: Spec,
        cwd: &Path,
        more_binds: impl FnOnce(&Path) -> Vec<(PathBuf, Access)>,
    ) -> Result<Confinement, PrepareError> {
        let failed = |what: &str, error: &dyn std::fmt::Display| {
            PrepareError::Failed(format!("{what}: {error}"))
        };
        let temp_dir = |suffix: &str| {
            tempfile::Builder::new()
                .prefix(&format!("{}{suffix}", spec.prefix))
                .tempdir()
                .map_err(|e| failed("cannot create its temporary directory", &e))
        };
        let temp = temp_dir("")?;
        let stage = temp_dir("view-")?;
        spec.binds.extend(more_binds(temp.path()));
        // Named hosts only: a proxy on a socket in its temporary directory (in its view),
        // reached through a relay on the loopback of its own network namespace. Fail closed:
        // no proxy, no program.
        let egress = match spec.egress.take().filter(|_| !spec.network) {
            Some(egress) => {
                let socket = temp.path().join(".egress.sock");
                let relay = Relay::new(&socket).map_err(PrepareError::Failed)?;
                let proxy = Proxy::start(egress, socket).map_err(|e| failed("egress", &e))?;
                Some((relay, proxy))
            }
            None => None,
        };
        let connect_port = egress.as_ref().map(|_| relay::PORT);
        let items = view::items(&spec.binds, spec.toolchain, spec.network);
        let ruleset = landlock_ruleset(&items, spec.network, connect_port, Writable::Items)
            .map_err(|e| failed("Landlock", &e))?;
        let confined = ruleset.is_some();
        if !confined && !spec.unconfined_allowed {
            return Err(PrepareError::NotConfinable);
        }
        // Without a mount namespace (no user namespaces), Landlock alone keeps the root's
        // `.git` read-only: every top-level entry but `.git` is writable, the root is not.
        let fallback = match &spec.protect_root_git {
            Some(root) if confined => landlock_ruleset(
                &items,
                spec.network,
                connect_port,
                Writable::TopLevelExceptGit(root),
            )
            .map_err(|e| failed("Landlock", &e))?,
            _ => None,
        };
        let seccomp = match syscalls::filters(spec.network || egress.is_some()) {
            Ok(programs) => programs,
            Err(_) if spec.unconfined_allowed && !confined => Vec::new(),
            Err(e) => return Err(failed("seccomp", &e)),
        };
        let plan = Plan::new(stage.path(), &items)
            .map_err(|e| failed("its view of the file system", &e))?;
        let staged_temp = stage
            .path()
            .join(temp.path().strip_prefix("/").unwrap_or(temp.path()));
        let (cgroups, limits) = limits::prepare(&spec.limits, temp.path(), &staged_temp)
            .map_err(|e| failed("its resource limits", &e))?;
        let c_path = |path: &Path| {
            CString::new(path.as_os_str().as_bytes())
                .map_err(|e| failed("a path holds a NUL byte", &e))
        };
        let uid = rustix::process::getuid().as_raw();
        let gid = rustix::process::getgid().as_raw();
        let mut namespaces = libc::CLONE_NEWUSER
            | libc::CLONE_NEWNS
            | libc::CLONE_NEWPID
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWCGROUP;
        if !spec.network {
            // Only a loopback, down: no route anywhere, and no abstract UNIX socket of
            // the host (they belong to a network namespace).
            namespaces |= libc::CLONE_NEWNET;
        }
        let (relay, proxy) = egress.unzip();
        let (lifeline_read, lifeline_write) =
            lifeline().map_err(|e| failed("cannot make the supervisor's lifeline", &e))?;
        Ok(Confinement {
            _lifeline: Some(lifeline_write),
            temp,
            _stage: stage,
            confined,
            _cgroups: cgroups,
            proxy,
            hook: Some(Hook {
                ruleset,
                fallback,
                plan,
                namespaces,
                proc_access: PROC_ACCESS.bits(),
                cwd: c_path(cwd)?,
                seccomp,
                uid_map: format!("{uid} {uid} 1\n").into_bytes(),
                gid_map: format!("{gid} {gid} 1\n").into_bytes(),
                lifeline: lifeline_read,
                max_tasks: spec.limits.processes_max(),
                limits,
                relay,
            }),
        })
    }

    /// Whether the kernel confines the command (Landlock is enforced).
    pub(crate) fn confined(&self) -> bool {
        self.confined
    }

    /// The command's private temporary directory (its `TMPDIR`).
    pub(crate) fn temp_dir(&self) -> &Path {
        self.temp.path()
    }

    /// The variables that point the program's HTTP clients at its egress relay (empty
    /// without one). `NO_PROXY` is emptied: nothing is reached around the proxy.
    pub(crate) fn proxy_env(&self) -> Vec<(&'static str, String)> {
        if self.proxy.is_none() {
            return Vec::new();
        }
        let url = format!("http://127.0.0.1:{}", relay::PORT);
        [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "http_proxy",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ]
        .into_iter()
        .map(|name| (name, url.clone()))
        .chain([("NO_PROXY", String::new()), ("no_proxy", String::new())])
        .collect()
    }

    /// Makes `command` start under the supervisor, confined.
    pub(crate) fn install(&mut self, command: &mut std::process::Command) {
        if let Some(hook) = self.hook.take() {
            // SAFETY: the closure runs in the child between fork and exec, where only
            // async-signal-safe functions may be called. `Hook::run` only makes system
            // calls (through libc, and seccompiler's `apply_filter`, which is prctl and
            // seccomp) on data prepared before the fork; it neither allocates nor takes
            // locks, and the supervisor leaves with `_exit`.
            unsafe {
                command.pre_exec(move || hook.run());
            }
        }
    }
}

/// Asks the supervisor `pid` to kill the command and everything in its namespace, then
/// exit.
pub(crate) fn stop(pid: u32) {
    if let Some(pid) = raw_pid(pid) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
}

/// Kills the supervisor `pid` and its process group at once (the command dies with it,
/// by its death signal).
pub(crate) fn kill(pid: u32) {
    if let Some(pid) = raw_pid(pid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

fn raw_pid(pid: u32) -> Option<rustix::process::Pid> {
    i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
}
