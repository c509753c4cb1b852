//! Kernel confinement of `run_command`, and a stop that ends everything a command started.
//!
//! The principle: a confined command may read what a build needs and write the workspace; it
//! cannot act on the person, the host, or anything that runs later outside the box. The
//! kernel enforces it with four walls, each of which holds without the others for what it
//! covers:
//!
//! 1. **Namespaces and a private view of the file system** (`view`). The command runs in new
//!    user, mount, PID, IPC, UTS and cgroup namespaces (and network, without the network),
//!    always, also when the tool runs as root. Its root is a read-only `tmpfs` that holds only
//!    the system's programs and libraries, an allow-list of `/etc` (only its world-readable
//!    part), the Rust toolchain, a few devices (no terminal), its own `/proc`, an empty `/run`
//!    and `/tmp`, the workspace and its private temporary directory, each bound at its host
//!    path (`pivot_root`, the host's root detached). Every repository of the workspace (a
//!    `.git`, or a directory that is one by content) is bound read-only.
//! 2. **No capabilities.** Before exec the command empties its bounding, ambient, effective,
//!    permitted and inheritable sets and locks the secure bits, so even as root it can do
//!    nothing a capability allows, in any namespace.
//! 3. **Landlock**: the same list as rules (read and execute the system and the toolchain,
//!    read the listed `/etc` files, `/proc` and `/sys`, read and write the workspace and the
//!    temporary directory), with TCP denied without the network, and signals and abstract
//!    sockets scoped to the sandbox. Where the kernel allows no namespaces this is the wall
//!    that remains.
//! 4. **A system-call policy** (`syscalls`, seccomp).
//!
//! The structure:
//!
//! ```text
//! tool ──spawn──▶ supervisor ──fork──▶ command (PID 1 of a new PID namespace) ──▶ its children
//! ```
//!
//! Everything that allocates is prepared before the fork ([`Confinement::prepare`]): the
//! Landlock rulesets, the seccomp programs, the view's paths and the user-namespace maps.
//! After the fork, in `pre_exec`, only async-signal-safe system calls run:
//!
//! 1. The supervisor (the process `spawn` forked) enters the namespaces, makes every mount
//!    private and builds the view on an empty stage directory. Where the kernel gives
//!    namespaces, a failure here fails the command: there is no silent weaker mode.
//! 2. It forks the command, which sets `PR_SET_PDEATHSIG(SIGKILL)`, checks that the
//!    supervisor is still there, starts a session of its own (no controlling terminal),
//!    mounts its PID namespace's `/proc` in the view, makes the view its root, drops every
//!    capability, marks every inherited descriptor above 2 close-on-exec, sets
//!    `PR_SET_NO_NEW_PRIVS`, enters the Landlock domain and installs the seccomp filters,
//!    then returns so that `std` executes the program: as PID 1 of the new namespace.
//! 3. The supervisor closes every file descriptor it has (so it holds neither the output
//!    pipes nor `std`'s exec-error pipe, which would keep `spawn` waiting), then waits with
//!    `sigwaitinfo` for the command to exit or for `SIGTERM`. On `SIGTERM` ([`stop`]) it
//!    kills the command and its process group. When the command has exited it kills what is
//!    left in its process group, reaps it and exits the same way (same code, or the same
//!    signal). When PID 1 of a PID namespace dies the kernel kills and reaps every process in
//!    the namespace, `setsid` or not, so nothing the command started outlives the call and
//!    nothing holds the output pipes. If the supervisor itself is killed with `SIGKILL`
//!    ([`kill`]), the death signal kills the command, and with it the namespace.
//! 4. The supervisor also holds the read end of a lifeline, a pipe whose write end only the
//!    [`Confinement`] in the tool's process holds, with `O_ASYNC`: when that end closes (the
//!    confinement dropped, or the tool's process ending in any way, `SIGKILL` included), the
//!    kernel sends the supervisor `SIGTERM`. So nothing of a confined program outlives the
//!    process that started it, whatever the program does with its input.
//!
//! Without namespaces (a kernel or policy that forbids user namespaces, and no privilege),
//! Landlock and seccomp remain: the workspace root is then granted read-only and every
//! top-level entry but `.git` read-write (new top-level entries cannot be created); only the
//! root's `.git` is protected; a timeout kills the command's process group (a descendant
//! that called `setsid` can survive); the system's `/proc` stays readable; and UNIX sockets
//! with a path under `/run` can be connected to unless the kernel's Landlock has
//! `ResolveUnix`.
//!
//! The user's `~/.gitconfig` is not in the view; `run_command` sets `GIT_CONFIG_GLOBAL` to
//! `/dev/null` (unless the workspace keeps that variable) so that git works without it.

#![allow(unsafe_code)]

// The layers, lowest first (no module imports one listed after it): view, mount, syscalls,
// rules, relay, cgroup, limits, supervisor, linux, other.
//
// `view` is the list of what a confined program sees, `mount` the system calls that build it,
// `syscalls` the seccomp policy, `rules` the Landlock rules from the same list, `relay` the
// process that passes a program's connections to its egress proxy, `supervisor`
// what runs between fork and exec (the supervisor and the command), `linux` the
// `Confinement` prepared before the fork from all of them; `other` stands in for it
// elsewhere. `cgroup` makes a program's own cgroup, `limits` the resource limits the
// supervisor and the command apply.
#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(target_os = "linux")]
mod limits;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod mount;
#[cfg(not(target_os = "linux"))]
mod other;
#[cfg(target_os = "linux")]
mod relay;
#[cfg(target_os = "linux")]
mod rules;
#[cfg(target_os = "linux")]
mod supervisor;
#[cfg(target_os = "linux")]
mod syscalls;
#[cfg(target_os = "linux")]
mod view;

#[cfg(target_os = "linux")]
pub(crate) use limits::mechanisms;
#[cfg(target_os = "linux")]
pub(crate) use linux::{Confinement, PrepareError, Spec, kill, stop};
#[cfg(not(target_os = "linux"))]
pub(crate) use other::{Access, Confinement, PrepareError, Spec, kill, stop};
#[cfg(target_os = "linux")]
pub(crate) use view::Access;

use std::path::{Path, PathBuf};

use crate::workspace::Workspace;

/// Whether a program confined with `binds` could read `path`: the directory or file of its
/// view that lets it, or `None`. Outside Linux (no confinement) everything.
pub(crate) fn readable_through(binds: &[(PathBuf, Access)], path: &Path) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    return view::readable_through(binds, false, path);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (binds, path);
        Some(PathBuf::from("/"))
    }
}

/// Whether a confined command of `ws` could read `path`: the directory or file of its view
/// that lets it, or `None`. Always `None` where commands are not confined.
fn readable_by_commands(ws: &Workspace, path: &Path) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    return view::readable_by_commands(ws, path);
    // Unconfined commands read whatever the process can.
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        ws.unconfined_allowed().then(|| PathBuf::from("/"))
    }
}

// Here rather than in `workspace`: the view's list answers it, and the workspace stays below
// the confinement it configures.
impl Workspace {
    /// Whether a confined command could read `path` (it is in the workspace, or in a
    /// directory or file of the commands' view of the system, such as `/usr` or the
    /// allow-listed files of `/etc`): the directory or file that lets it, or `None`. A
    /// server asks this of its secrets (token files, keys) before it starts.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = toolwright_std::Workspace::new(dir.path()).unwrap();
    /// std::fs::write(dir.path().join("token"), "secret").unwrap();
    /// assert!(workspace.readable_by_commands(dir.path().join("token")).is_some());
    /// # #[cfg(target_os = "linux")]
    /// assert!(workspace.readable_by_commands("/etc/shadow").is_none());
    /// ```
    pub fn readable_by_commands(&self, path: impl AsRef<Path>) -> Option<PathBuf> {
        readable_by_commands(self, path.as_ref())
    }
}
