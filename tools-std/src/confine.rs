//! Kernel confinement of `run_command`, and a stop that ends everything a command started.
//!
//! On Linux every command runs under a small supervisor:
//!
//! ```text
//! tool ──spawn──▶ supervisor ──fork──▶ command (PID 1 of a new PID namespace) ──▶ its children
//! ```
//!
//! Everything that allocates is prepared before the fork ([`Confinement::prepare`]): the
//! Landlock rulesets, the seccomp program, the paths and the user-namespace maps. After the
//! fork, in `pre_exec`, only async-signal-safe system calls run:
//!
//! 1. The supervisor (the process `spawn` forked) leaves the tool's PID and mount namespaces
//!    (`unshare(CLONE_NEWPID | CLONE_NEWNS)`; without the privilege, inside a new user
//!    namespace that maps the caller's ids to themselves). Where `.git` is to be read-only it
//!    bind-mounts the workspace's `.git` on itself read-only in that private mount namespace.
//! 2. It forks the command, which sets `PR_SET_PDEATHSIG(SIGKILL)`, checks that the
//!    supervisor is still there, starts its own process group, mounts a `/proc` of its own
//!    PID namespace (so other processes, their environments included, are out of sight),
//!    sets `PR_SET_NO_NEW_PRIVS`, enters the Landlock domain and installs the seccomp
//!    filter, then returns so that `std` executes the program: as PID 1 of the new
//!    namespace.
//! 3. The supervisor closes every file descriptor it has (so it holds neither the output
//!    pipes nor `std`'s exec-error pipe, which would keep `spawn` waiting), then waits with
//!    `sigwaitinfo` for the command to exit or for `SIGTERM`. On `SIGTERM` ([`stop`]) it
//!    kills the command and its process group. When the command has exited it kills what is
//!    left in its process group, reaps it and exits the same way (same code, or the same
//!    signal). When PID 1 of a PID namespace dies the kernel kills and reaps every process in
//!    the namespace, `setsid` or not, so nothing the command started outlives the call and
//!    nothing holds the output pipes. If the supervisor itself is killed with `SIGKILL`
//!    ([`kill`]), the death signal kills the command, and with it the namespace.
//!
//! Landlock (best effort, so an older kernel enforces what it can): read and execute the
//! system directories and the Rust toolchain, read `/proc` and `/sys`, read and write a few
//! devices, read and write the workspace and a private temporary directory (`TMPDIR`);
//! nothing else. Without `allow_network`, TCP bind and connect are denied (ABI 4) and a
//! seccomp filter makes `socket()` for `AF_INET`, `AF_INET6`, `AF_NETLINK` and `AF_PACKET`
//! (and `io_uring`, which would bypass seccomp) fail with `EPERM`. The command cannot signal
//! processes outside its domain nor reach abstract UNIX sockets created outside it (ABI 6).
//!
//! `.git` read-only: Landlock only grants, so with a mount namespace the workspace's `.git`
//! is a read-only bind mount (writes fail with `EROFS`; it cannot be moved or removed, being
//! a mount point; the command cannot unmount it under Landlock). Without a mount namespace,
//! the workspace root is granted read-only and every top-level entry but `.git` read-write;
//! then new top-level entries cannot be created. Only the root's `.git` is protected: a
//! submodule's repository lives in the root's `.git/modules` and is covered, but an
//! independent repository nested deeper in the workspace is not.
//!
//! Without a PID namespace (no privilege and no user namespaces), a timeout kills the
//! command's process group: a descendant that called `setsid` can then survive; and the
//! system's `/proc` stays readable (Landlock does not hide other processes' environments).
//!
//! The user's `~/.gitconfig` is not readable; `run_command` sets `GIT_CONFIG_GLOBAL` to
//! `/dev/null` (unless the workspace keeps that variable) so that git works without it.

#![allow(unsafe_code)]

#[cfg(target_os = "linux")]
pub(crate) use linux::{Confinement, kill, stop};
#[cfg(not(target_os = "linux"))]
pub(crate) use other::{Confinement, kill, stop};

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::BTreeMap;
    use std::ffi::{CStr, CString, OsStr};
    use std::fs::File;
    use std::io;
    use std::mem::MaybeUninit;
    use std::os::fd::{FromRawFd, OwnedFd, RawFd};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};

    use landlock::{
        ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
        RulesetCreated, RulesetCreatedAttr, RulesetError, Scope,
    };
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    use tempfile::TempDir;
    use tool_runtime::ToolError;

    use crate::Workspace;

    /// The file-system rights this code knows and asks for (newer kernels add
    /// `ResolveUnix`, connecting to pathname UNIX sockets, which then are confined too).
    const FS_ABI: ABI = ABI::V9;

    /// Directories every command may read and execute, where they exist.
    const SYSTEM_DIRS: &[&str] = &[
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt",
    ];
    /// Devices every command may read and write.
    const DEVICES: &[&str] = &[
        "/dev/null",
        "/dev/zero",
        "/dev/urandom",
        "/dev/random",
        "/dev/tty",
    ];
    /// Pseudo-file systems every command may read.
    const READ_ONLY_DIRS: &[&str] = &["/proc", "/sys"];
    /// Reading, as granted on those.
    const PROC_ACCESS: BitFlags<AccessFs> =
        landlock::make_bitflags!(AccessFs::{ReadFile | ReadDir});

    const NOT_CONFINED: &str = "this kernel cannot confine commands (Landlock is not available \
        or not enabled), so `run_command` refuses to run them; to run them unconfined anyway, \
        the application allows it with `Workspace::allow_unconfined_commands(true)` (or \
        `toolbox --allow-unconfined`)";

    /// The confinement of one command, prepared before it is spawned: the kernel rules, and
    /// the command's private temporary directory (removed when this is dropped).
    pub(crate) struct Confinement {
        temp: TempDir,
        confined: bool,
        hook: Option<Hook>,
    }

    impl Confinement {
        /// Builds everything the child needs (which allocates, so must happen before the
        /// fork).
        ///
        /// # Errors
        ///
        /// When the kernel has no Landlock and the workspace does not allow unconfined
        /// commands, or when a rule cannot be built.
        pub(crate) fn prepare(ws: &Workspace, cwd: &Path) -> Result<Confinement, ToolError> {
            let failed = |what: &str, error: &dyn std::fmt::Display| {
                ToolError::new(format!("cannot confine the command: {what}: {error}"))
            };
            let temp = tempfile::Builder::new()
                .prefix("run_command-")
                .tempdir()
                .map_err(|e| failed("cannot create its temporary directory", &e))?;
            let git = protected_git(ws);
            let ruleset = landlock_ruleset(ws, temp.path(), Writable::Root)
                .map_err(|e| failed("Landlock", &e))?;
            let confined = ruleset.is_some();
            if !confined && !ws.unconfined_allowed() {
                return Err(ToolError::new(NOT_CONFINED));
            }
            let fallback = match git {
                Some(_) if confined => {
                    landlock_ruleset(ws, temp.path(), Writable::TopLevelExceptGit)
                        .map_err(|e| failed("Landlock", &e))?
                }
                _ => None,
            };
            let seccomp = if ws.network_allowed() {
                None
            } else {
                match network_filter() {
                    Ok(program) => Some(program),
                    Err(_) if ws.unconfined_allowed() => None,
                    Err(e) => return Err(failed("seccomp", &e)),
                }
            };
            let c_path = |path: &Path| {
                CString::new(path.as_os_str().as_bytes())
                    .map_err(|e| failed("a path holds a NUL byte", &e))
            };
            let git = match git {
                Some(path) => {
                    let path = c_path(&path)?;
                    let flags = remount_flags(&path);
                    Some(GitMount { path, flags })
                }
                None => None,
            };
            let uid = rustix::process::getuid().as_raw();
            let gid = rustix::process::getgid().as_raw();
            Ok(Confinement {
                temp,
                confined,
                hook: Some(Hook {
                    ruleset,
                    fallback,
                    git,
                    proc_access: PROC_ACCESS.bits(),
                    cwd: c_path(cwd)?,
                    seccomp,
                    uid_map: format!("{uid} {uid} 1\n").into_bytes(),
                    gid_map: format!("{gid} {gid} 1\n").into_bytes(),
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

    /// The workspace's `.git` (directory, or file of a worktree or submodule), when commands
    /// may not write it.
    fn protected_git(ws: &Workspace) -> Option<PathBuf> {
        if ws.git_writes_allowed() {
            return None;
        }
        let git = ws.root().join(".git");
        let kind = std::fs::symlink_metadata(&git).ok()?.file_type();
        (kind.is_dir() || kind.is_file()).then_some(git)
    }

    /// Where the workspace may be written.
    #[derive(Clone, Copy, PartialEq)]
    enum Writable {
        /// All of it.
        Root,
        /// Every top-level entry but `.git`, as they are now (the root itself read-only).
        TopLevelExceptGit,
    }

    /// The Landlock ruleset for a command, or `None` when the kernel has no Landlock.
    ///
    /// `landlock`'s best-effort mode enforces what the kernel supports. The status it would
    /// report from `restrict_self` is `NotEnforced` exactly when it created no kernel
    /// ruleset, which is known here, before the fork: no file descriptor.
    fn landlock_ruleset(
        ws: &Workspace,
        temp: &Path,
        writable: Writable,
    ) -> Result<Option<OwnedFd>, RulesetError> {
        let all = AccessFs::from_all(FS_ABI);
        let read_exec = AccessFs::from_read(FS_ABI);
        let device =
            AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
        let mut ruleset = Ruleset::default().handle_access(all)?;
        if !ws.network_allowed() {
            // Handled with no rule: every TCP bind and connect is denied.
            ruleset = ruleset.handle_access(AccessNet::from_all(ABI::V4))?;
        }
        let mut ruleset = ruleset.scope(Scope::from_all(ABI::V6))?.create()?;

        for dir in SYSTEM_DIRS {
            ruleset = grant(ruleset, Path::new(dir), read_exec)?;
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        for (variable, default) in [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")] {
            let dir = std::env::var_os(variable)
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|home| home.join(default)));
            if let Some(dir) = dir {
                ruleset = grant(ruleset, &dir, read_exec)?;
            }
        }
        if ws.network_allowed() {
            // Name resolution, when /etc/resolv.conf points elsewhere (systemd-resolved).
            if let Ok(resolv) = std::fs::canonicalize("/etc/resolv.conf") {
                ruleset = grant(ruleset, &resolv, AccessFs::ReadFile.into())?;
            }
        }
        for device_path in DEVICES {
            ruleset = grant(ruleset, Path::new(device_path), device)?;
        }
        for dir in READ_ONLY_DIRS {
            ruleset = grant(ruleset, Path::new(dir), PROC_ACCESS)?;
        }
        ruleset = grant(ruleset, temp, all)?;
        match writable {
            Writable::Root => ruleset = grant(ruleset, ws.root(), all)?,
            Writable::TopLevelExceptGit => {
                ruleset = grant(ruleset, ws.root(), read_exec)?;
                let entries = std::fs::read_dir(ws.root()).into_iter().flatten().flatten();
                for entry in entries {
                    if entry.file_name() == OsStr::new(".git") {
                        continue;
                    }
                    // Not followed: a symbolic link's target keeps its own rules.
                    let Some(file) = open_no_follow(&entry.path()) else {
                        continue;
                    };
                    let Ok(kind) = file.metadata().map(|m| m.file_type()) else {
                        continue;
                    };
                    if kind.is_symlink() {
                        continue;
                    }
                    let access = if kind.is_dir() {
                        all
                    } else {
                        AccessFs::from_file(FS_ABI)
                    };
                    ruleset = ruleset.add_rule(PathBeneath::new(file, access))?;
                }
            }
        }
        Ok(ruleset.into())
    }

    /// Adds a rule for `path`, when it exists (a grant that cannot be made is no grant).
    fn grant(
        ruleset: RulesetCreated,
        path: &Path,
        access: BitFlags<AccessFs>,
    ) -> Result<RulesetCreated, RulesetError> {
        match PathFd::new(path) {
            Ok(fd) => {
                let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
                let access = if is_dir {
                    access
                } else {
                    access & AccessFs::from_file(FS_ABI)
                };
                ruleset.add_rule(PathBeneath::new(fd, access))
            }
            Err(_) => Ok(ruleset),
        }
    }

    /// An `O_PATH` descriptor of `path` itself, not following a symbolic link.
    fn open_no_follow(path: &Path) -> Option<File> {
        let path = CString::new(path.as_os_str().as_bytes()).ok()?;
        // SAFETY: `path` is NUL-terminated and outlives the call; these flags take no mode.
        let fd = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` was just opened, is valid, and nothing else owns it.
        Some(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// The seccomp program of a command without network: `socket()` for IP, netlink and
    /// packet sockets fails with `EPERM`, and so does `io_uring` (whose operations would
    /// bypass the filter). Every other system call is allowed; a system call of another
    /// architecture (32-bit `int 0x80`) kills the process, as seccompiler's filters do.
    fn network_filter() -> Result<BpfProgram, seccompiler::Error> {
        let arch = TargetArch::try_from(std::env::consts::ARCH)?;
        let socket_rules = [
            libc::AF_INET,
            libc::AF_INET6,
            libc::AF_NETLINK,
            libc::AF_PACKET,
        ]
        .into_iter()
        .map(|domain| {
            SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                domain as u64,
            )?])
        })
        .collect::<Result<Vec<_>, _>>()?;
        let mut rules = BTreeMap::new();
        let denied = [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ];
        // On x86_64 the x32 ABI reaches the same calls with bit 30 set.
        #[cfg(target_arch = "x86_64")]
        let abis: &[i64] = &[0, 0x4000_0000];
        #[cfg(not(target_arch = "x86_64"))]
        let abis: &[i64] = &[0];
        for abi in abis {
            rules.insert(libc::SYS_socket | abi, socket_rules.clone());
            for call in denied {
                rules.insert(call | abi, Vec::new());
            }
        }
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )?;
        Ok(BpfProgram::try_from(filter)?)
    }

    /// The flags to remount `path`'s mount read-only with, keeping the others (a user
    /// namespace may not change them).
    fn remount_flags(path: &CStr) -> libc::c_ulong {
        let mut stat = MaybeUninit::<libc::statvfs>::zeroed();
        // SAFETY: `path` is NUL-terminated and `stat` is a valid place for a `statvfs`.
        if unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } != 0 {
            return 0;
        }
        // SAFETY: `statvfs` succeeded, so it filled `stat`.
        let flags = unsafe { stat.assume_init() }.f_flag;
        let mut mount_flags = 0;
        for (statvfs_flag, mount_flag) in [
            (libc::ST_NOSUID, libc::MS_NOSUID),
            (libc::ST_NODEV, libc::MS_NODEV),
            (libc::ST_NOEXEC, libc::MS_NOEXEC),
            (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        ] {
            if flags & statvfs_flag != 0 {
                mount_flags |= mount_flag;
            }
        }
        mount_flags
            | if flags & libc::ST_NOATIME != 0 {
                libc::MS_NOATIME
            } else if flags & libc::ST_RELATIME != 0 {
                libc::MS_RELATIME
            } else {
                libc::MS_STRICTATIME
            }
    }

    /// The `.git` to bind-mount read-only.
    struct GitMount {
        path: CString,
        flags: libc::c_ulong,
    }

    /// What the forked child does, on data prepared before the fork.
    struct Hook {
        /// The Landlock ruleset (the whole workspace writable).
        ruleset: Option<OwnedFd>,
        /// The ruleset for when `.git` could not be mounted read-only.
        fallback: Option<OwnedFd>,
        git: Option<GitMount>,
        /// The Landlock rights on `/proc` (reading), as the kernel's bits.
        proc_access: u64,
        cwd: CString,
        seccomp: Option<BpfProgram>,
        uid_map: Vec<u8>,
        gid_map: Vec<u8>,
    }

    impl Hook {
        /// In the process `spawn` forked: becomes the supervisor, and returns in its child,
        /// the command, for `std` to execute the program.
        fn run(&self) -> io::Result<()> {
            // Mounts are made only in a private mount namespace, never seen outside.
            let private_mounts = self.enter_namespaces()? && make_mounts_private();
            let git_read_only = private_mounts
                && self
                    .git
                    .as_ref()
                    .is_some_and(|git| self.mount_read_only(git));
            let ruleset = match &self.git {
                Some(_) if !git_read_only => self.fallback.as_ref(),
                _ => self.ruleset.as_ref(),
            };

            let mut lifeline: [RawFd; 2] = [-1; 2];
            // SAFETY: `lifeline` has room for the two descriptors.
            check(unsafe { libc::pipe2(lifeline.as_mut_ptr(), libc::O_CLOEXEC) })?;
            let [lifeline_read, lifeline_write] = lifeline;
            let all = signal_set(None);
            let mut previous = signal_set(Some(&[]));
            // SAFETY: both sets are initialised. Blocking every signal makes the supervisor
            // deaf to all but `sigwaitinfo`; the command gets the previous mask back.
            check(unsafe { libc::sigprocmask(libc::SIG_BLOCK, &all, &mut previous) })?;
            // SAFETY: setting a default disposition; children must not be reaped
            // automatically (an inherited `SIG_IGN` would do that).
            unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
            // SAFETY: fork in a single-threaded child; both sides only make system calls.
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                return Err(io::Error::last_os_error());
            }
            if pid == 0 {
                return self.become_command(
                    &previous,
                    [lifeline_read, lifeline_write],
                    private_mounts,
                    ruleset,
                );
            }
            close(lifeline_read);
            close_all_except(lifeline_write);
            supervise(pid)
        }

        /// Leaves the tool's PID and mount namespaces, if the kernel lets us. `Ok(false)`
        /// when it does not.
        fn enter_namespaces(&self) -> io::Result<bool> {
            // SAFETY: unshare takes flags only.
            if unsafe { libc::unshare(libc::CLONE_NEWPID | libc::CLONE_NEWNS) } == 0 {
                return Ok(true);
            }
            let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS;
            // SAFETY: as above.
            if unsafe { libc::unshare(flags) } != 0 {
                return Ok(false);
            }
            // Our ids map to themselves, so files keep their owners. Older kernels have no
            // `setgroups` file, and need none.
            let _ = write_file(c"/proc/self/setgroups", b"deny");
            write_file(c"/proc/self/uid_map", &self.uid_map)?;
            write_file(c"/proc/self/gid_map", &self.gid_map)?;
            Ok(true)
        }

        /// Makes `.git` a read-only bind mount in our private mount namespace, and moves
        /// into the working directory again through the new mounts (a working directory
        /// inside `.git` would otherwise stay on the writable mount below).
        fn mount_read_only(&self, git: &GitMount) -> bool {
            let null = std::ptr::null::<libc::c_char>();
            let none = std::ptr::null::<libc::c_void>();
            // SAFETY: every pointer is NUL-terminated or null, as mount(2) allows.
            unsafe {
                libc::mount(
                    git.path.as_ptr(),
                    git.path.as_ptr(),
                    null,
                    libc::MS_BIND,
                    none,
                ) == 0
                    && libc::mount(
                        null,
                        git.path.as_ptr(),
                        null,
                        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | git.flags,
                        none,
                    ) == 0
                    && libc::chdir(self.cwd.as_ptr()) == 0
            }
        }

        /// In the command, PID 1 of its namespace: mounts a `/proc` of that namespace over
        /// the system's, so that other processes (their command lines, environments, open
        /// files) are out of sight, and lets the ruleset read it (a new mount, unknown to the
        /// rules made before the fork). Where that fails the system's `/proc` stays, readable.
        fn mount_private_proc(&self, ruleset: Option<&OwnedFd>) {
            // SAFETY: every pointer is NUL-terminated or null, as mount(2) allows.
            let mounted = unsafe {
                libc::mount(
                    c"proc".as_ptr(),
                    c"/proc".as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                )
            } == 0;
            let Some(ruleset) = ruleset.filter(|_| mounted) else {
                return;
            };
            // SAFETY: a NUL-terminated path; these flags take no mode.
            let proc = unsafe {
                libc::open(
                    c"/proc".as_ptr(),
                    libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
                )
            };
            if proc < 0 {
                return;
            }
            let rule = PathBeneathAttr {
                allowed_access: self.proc_access,
                parent_fd: proc,
            };
            // SAFETY: landlock_add_rule reads a `landlock_path_beneath_attr`, which `rule`
            // is, from a valid pointer; the ruleset descriptor is owned by the hook.
            unsafe {
                use std::os::fd::AsRawFd;
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset.as_raw_fd(),
                    RULE_PATH_BENEATH,
                    &rule as *const PathBeneathAttr,
                    0,
                );
            }
            close(proc);
        }

        /// In the supervisor's child: confines itself and returns, to be executed.
        fn become_command(
            &self,
            previous: &libc::sigset_t,
            [lifeline_read, lifeline_write]: [RawFd; 2],
            private_mounts: bool,
            ruleset: Option<&OwnedFd>,
        ) -> io::Result<()> {
            // SAFETY: `previous` is the mask the process had, initialised by sigprocmask.
            check(unsafe { libc::sigprocmask(libc::SIG_SETMASK, previous, std::ptr::null_mut()) })?;
            close(lifeline_write);
            // SAFETY: prctl with integer arguments.
            check(unsafe {
                libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                )
            })?;
            // If the supervisor died before the death signal was armed, its end of the
            // lifeline is closed: stop here. Nothing is ever written to it.
            let mut poll = libc::pollfd {
                fd: lifeline_read,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid `pollfd`, no waiting.
            if unsafe { libc::poll(&mut poll, 1, 0) } != 0 {
                // SAFETY: `_exit` is async-signal-safe and does not return.
                unsafe { libc::_exit(127) };
            }
            close(lifeline_read);
            // Its own process group, which the supervisor kills.
            // SAFETY: setpgid with integer arguments.
            check(unsafe { libc::setpgid(0, 0) })?;
            if private_mounts {
                self.mount_private_proc(ruleset);
            }
            // SAFETY: prctl with integer arguments.
            check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
            if let Some(ruleset) = ruleset {
                use std::os::fd::AsRawFd;
                // SAFETY: landlock_restrict_self takes a ruleset descriptor (valid: owned by
                // the hook) and flags.
                let done = unsafe {
                    libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0)
                };
                if done != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(program) = &self.seccomp {
                seccompiler::apply_filter(program).map_err(|_| io::Error::last_os_error())?;
            }
            Ok(())
        }
    }

    /// Makes every mount of our new mount namespace private, so that nothing mounted in it
    /// propagates to the rest of the system.
    fn make_mounts_private() -> bool {
        let null = std::ptr::null::<libc::c_char>();
        // SAFETY: every pointer is NUL-terminated or null, as mount(2) allows.
        unsafe {
            libc::mount(
                null,
                c"/".as_ptr(),
                null,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) == 0
        }
    }

    /// Landlock's `struct landlock_path_beneath_attr`.
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }

    /// `LANDLOCK_RULE_PATH_BENEATH`.
    const RULE_PATH_BENEATH: libc::c_int = 1;

    /// The supervisor's loop: waits for the command to exit, or for `SIGTERM`, which kills
    /// it. Then exits like the command did. Never returns.
    fn supervise(command: libc::pid_t) -> ! {
        let mut wanted = signal_set(Some(&[]));
        for signal in [libc::SIGTERM, libc::SIGCHLD] {
            // SAFETY: `wanted` is initialised and the signals are valid.
            unsafe { libc::sigaddset(&mut wanted, signal) };
        }
        loop {
            // SAFETY: `wanted` is initialised (and blocked); the information is not needed.
            let signal = unsafe { libc::sigwaitinfo(&wanted, std::ptr::null_mut()) };
            if signal == libc::SIGTERM {
                // SAFETY: kill with integer arguments; the command is not reaped yet, so
                // its id (and its group's) cannot have been reused.
                unsafe {
                    libc::kill(-command, libc::SIGKILL);
                    libc::kill(command, libc::SIGKILL);
                }
            } else if signal == libc::SIGCHLD && has_exited(command) {
                break;
            }
        }
        // It has exited but is not reaped, so its process group id is still its own: kill
        // what it left in its group (with a PID namespace the kernel already killed all).
        // SAFETY: kill with integer arguments.
        unsafe { libc::kill(-command, libc::SIGKILL) };
        let mut status = 0;
        loop {
            // SAFETY: `status` is a valid place for the status.
            let reaped = unsafe { libc::waitpid(command, &mut status, 0) };
            if reaped == command || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted
            {
                break;
            }
        }
        exit_like(status)
    }

    /// Whether `pid` has exited, without reaping it.
    fn has_exited(pid: libc::pid_t) -> bool {
        let mut info = MaybeUninit::<libc::siginfo_t>::zeroed();
        // SAFETY: `info` is a valid, zeroed place for the information.
        let done = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                info.as_mut_ptr(),
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        // SAFETY: zeroed, then possibly filled by waitid: initialised either way; `si_pid`
        // stays 0 when no child is waitable.
        done == 0 && unsafe { info.assume_init().si_pid() } == pid
    }

    /// Exits with the command's code, or dies of the signal that killed it (without a core
    /// dump).
    fn exit_like(status: libc::c_int) -> ! {
        if libc::WIFEXITED(status) {
            // SAFETY: `_exit` is async-signal-safe and does not return.
            unsafe { libc::_exit(libc::WEXITSTATUS(status)) }
        }
        let signal = if libc::WIFSIGNALED(status) {
            libc::WTERMSIG(status)
        } else {
            libc::SIGKILL
        };
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let mut only = signal_set(Some(&[]));
        // SAFETY: system calls on valid, initialised arguments; the signal is delivered when
        // it is unblocked, and `_exit` follows if it did not end the process.
        unsafe {
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            libc::signal(signal, libc::SIG_DFL);
            libc::sigaddset(&mut only, signal);
            libc::kill(libc::getpid(), signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
            libc::_exit(128 + signal)
        }
    }

    /// A signal set: every signal (`None`), or those given.
    fn signal_set(signals: Option<&[libc::c_int]>) -> libc::sigset_t {
        let mut set = MaybeUninit::<libc::sigset_t>::zeroed();
        // SAFETY: `set` is a valid place for a set, initialised by sigfillset/sigemptyset
        // before it is read.
        unsafe {
            match signals {
                None => libc::sigfillset(set.as_mut_ptr()),
                Some(signals) => {
                    libc::sigemptyset(set.as_mut_ptr());
                    for signal in signals {
                        libc::sigaddset(set.as_mut_ptr(), *signal);
                    }
                    0
                }
            };
            set.assume_init()
        }
    }

    /// Writes `data` to the file at `path` (a `/proc` file: one write).
    fn write_file(path: &CStr, data: &[u8]) -> io::Result<()> {
        // SAFETY: `path` is NUL-terminated; these flags take no mode.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
        check(fd)?;
        // SAFETY: `data` is valid for `data.len()` bytes.
        let written = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
        let error = io::Error::last_os_error();
        close(fd);
        if written == data.len() as isize {
            Ok(())
        } else {
            Err(error)
        }
    }

    /// Closes every descriptor but `keep`.
    fn close_all_except(keep: RawFd) {
        let keep = keep as libc::c_uint;
        // SAFETY: close_range with integer arguments.
        let done = unsafe {
            (keep == 0 || libc::syscall(libc::SYS_close_range, 0, keep - 1, 0) == 0)
                && libc::syscall(libc::SYS_close_range, keep + 1, libc::c_uint::MAX, 0) == 0
        };
        if !done {
            // Kernels before 5.9: one by one, up to a generous bound.
            for fd in 0..65_536 {
                if fd != keep as RawFd {
                    close(fd);
                }
            }
        }
    }

    fn close(fd: RawFd) {
        // SAFETY: closing a descriptor this process owns (or an invalid one: EBADF).
        unsafe { libc::close(fd) };
    }

    fn check(result: libc::c_int) -> io::Result<()> {
        if result < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use std::path::Path;

    use tempfile::TempDir;
    use tool_runtime::ToolError;

    use crate::Workspace;

    /// No kernel confinement outside Linux: commands run only if the workspace allows
    /// unconfined commands, and a timeout kills the command's process group.
    pub(crate) struct Confinement {
        temp: TempDir,
    }

    impl Confinement {
        pub(crate) fn prepare(ws: &Workspace, _cwd: &Path) -> Result<Confinement, ToolError> {
            if !ws.unconfined_allowed() {
                return Err(ToolError::new(
                    "commands can only be confined by the kernel on Linux (Landlock), so \
                     `run_command` refuses to run them here; to run them unconfined anyway, the \
                     application allows it with `Workspace::allow_unconfined_commands(true)` \
                     (or `toolbox --allow-unconfined`)",
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
}
