//! What runs between fork and exec: the process `spawn` forks becomes the supervisor (the
//! namespaces, the view, the lifeline, the wait), and its child the command (no capabilities,
//! Landlock, seccomp), on data prepared before the fork.

use std::ffi::{CStr, CString};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use seccompiler::BpfProgram;

use super::limits::Apply;
use super::mount::Plan;
use super::relay::Relay;

/// What the forked child does, on data prepared before the fork.
pub(super) struct Hook {
    /// The Landlock ruleset (the whole workspace writable).
    pub(super) ruleset: Option<OwnedFd>,
    /// The ruleset for when there is no view to keep `.git` read-only.
    pub(super) fallback: Option<OwnedFd>,
    /// The command's view of the file system.
    pub(super) plan: Plan,
    /// The namespaces the supervisor enters (`CLONE_NEW*`).
    pub(super) namespaces: libc::c_int,
    /// The Landlock rights on `/proc` (reading), as the kernel's bits.
    pub(super) proc_access: u64,
    pub(super) cwd: CString,
    pub(super) seccomp: Vec<BpfProgram>,
    pub(super) uid_map: Vec<u8>,
    pub(super) gid_map: Vec<u8>,
    pub(super) max_tasks: Option<u64>,
    /// The program's cgroups, sized temporary directory, PID bound and rlimits.
    pub(super) limits: Apply,
    /// The relay to the egress proxy, for a program that may reach named hosts.
    pub(super) relay: Option<Relay>,
    /// The read end of the lifeline whose write end the `Confinement` holds in our
    /// process: when that closes (our process killed with `SIGKILL` included), the kernel
    /// sends the supervisor `SIGTERM`, and it kills the command.
    pub(super) lifeline: OwnedFd,
}

impl Hook {
    /// In the process `spawn` forked: becomes the supervisor, and returns in its child,
    /// the command, for `std` to execute the program.
    pub(super) fn run(&self) -> io::Result<()> {
        // In its cgroups before anything else, so that all it starts is counted there.
        self.limits.join_cgroups()?;
        // Where the kernel gives us namespaces, the view is not optional: a failure to build
        // it fails the command.
        let (view, own_users) = self.enter_namespaces()?;
        // Named hosts only needs a network namespace of its own: without one, no program.
        if self.relay.is_some() && !view {
            return Err(io::Error::from_raw_os_error(libc::ENETUNREACH));
        }
        if view {
            if !make_mounts_private() {
                return Err(io::Error::last_os_error());
            }
            self.plan.build()?;
            self.limits.mount_temp()?;
        }
        let ruleset = if view {
            self.ruleset.as_ref()
        } else {
            self.fallback.as_ref().or(self.ruleset.as_ref())
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
        let parent_lifeline = {
            use std::os::fd::AsRawFd;
            self.lifeline.as_raw_fd()
        };
        watch_lifeline(parent_lifeline)?;
        // SAFETY: fork in a single-threaded child; both sides only make system calls.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            return self.become_command(
                &previous,
                [lifeline_read, lifeline_write],
                view,
                own_users,
                ruleset,
            );
        }
        close(lifeline_read);
        close_all_except(lifeline_write, parent_lifeline);
        supervise(pid)
    }

    /// Leaves the tool's namespaces: always into a new user namespace (also as root, so the
    /// command holds no capability over anything of the host), where our ids map to
    /// themselves. `Ok((false, _))` when the kernel allows no namespaces at all; the second
    /// is whether the user namespace is our own.
    fn enter_namespaces(&self) -> io::Result<(bool, bool)> {
        // SAFETY: unshare takes flags only.
        if unsafe { libc::unshare(self.namespaces) } == 0 {
            // Older kernels have no `setgroups` file, and need none.
            let _ = write_file(c"/proc/self/setgroups", b"deny");
            write_file(c"/proc/self/uid_map", &self.uid_map)?;
            write_file(c"/proc/self/gid_map", &self.gid_map)?;
            return Ok((true, true));
        }
        // No user namespaces (a kernel or policy that forbids them): with the privilege,
        // the same namespaces without one; the command drops every capability anyway.
        // SAFETY: as above.
        if unsafe { libc::unshare(self.namespaces & !libc::CLONE_NEWUSER) } == 0 {
            return Ok((true, false));
        }
        Ok((false, false))
    }

    /// In the command, PID 1 of its namespace, after the view is mounted: lets the ruleset
    /// read the `/proc` of its namespace (a new mount, unknown to the rules made before the
    /// fork).
    fn allow_private_proc(&self, ruleset: &OwnedFd) {
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
        view: bool,
        own_users: bool,
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
        // Beyond its limits (`limits`): should the command take all memory left, the
        // kernel's OOM killer ends it (and what it started, which inherits this) before
        // anything of the host. Raising one's own score needs no privilege; where it fails,
        // nothing else depends on it.
        let _ = write_file(c"/proc/self/oom_score_adj", b"1000");
        // A session of its own, with no controlling terminal: `/dev/tty` is nobody's, and
        // its process group is the one the supervisor kills.
        // SAFETY: setsid takes no argument.
        check(unsafe { libc::setsid() })?;
        if view {
            self.limits.bound_pid_namespace();
            self.plan.mount_proc()?;
            self.plan.enter(&self.cwd)?;
            if let Some(ruleset) = ruleset {
                self.allow_private_proc(ruleset);
                self.limits.allow_temp(ruleset);
            }
        }
        self.limits.set_rlimits()?;
        // The limit counts the tasks of our user in its user namespace: only the
        // command's, and only there (in the host's, it would count all of the user's).
        if let (Some(max), true) = (self.max_tasks, own_users) {
            let limit = libc::rlimit {
                rlim_cur: max,
                rlim_max: max,
            };
            // SAFETY: a valid `rlimit`.
            check(unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &limit) })?;
        }
        // The egress relay's listener, while the command may still bring its loopback up.
        let relay = match &self.relay {
            Some(relay) => Some((relay, relay.listen()?)),
            None => None,
        };
        drop_capabilities()?;
        // Descriptors the tool's process inherited (`exec 7<secret`) end at exec.
        close_on_exec_from(3);
        // SAFETY: prctl with integer arguments.
        check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
        if let Some(ruleset) = ruleset {
            use std::os::fd::AsRawFd;
            // SAFETY: landlock_restrict_self takes a ruleset descriptor (valid: owned by
            // the hook) and flags.
            let done =
                unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0) };
            if done != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        for program in &self.seccomp {
            seccompiler::apply_filter(program).map_err(|_| io::Error::last_os_error())?;
        }
        // Forked confined, like the program: it can do nothing the program cannot.
        if let Some((relay, listener)) = relay {
            relay.spawn(listener)?;
        }
        Ok(())
    }
}

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// `SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
/// SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED`: running a program as
/// root gives no capability, for good.
const SECURE_BITS: libc::c_ulong = 0x01 | 0x02 | 0x20 | 0x40 | 0x80;

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Gives up every capability, for good: the bounding and ambient sets are emptied, the
/// secure bits keep root from getting any back at exec, and the effective, permitted and
/// inheritable sets are cleared. The last must succeed; the others need a capability the
/// process may not have (then it has none to lose, and `no_new_privs` keeps it so).
fn drop_capabilities() -> io::Result<()> {
    // SAFETY: prctl with integer arguments; failures are expected without CAP_SETPCAP.
    unsafe {
        libc::prctl(libc::PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0);
        for capability in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        );
    }
    let header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let none = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: a valid header and two data structures, as version 3 wants.
    let done =
        unsafe { libc::syscall(libc::SYS_capset, &header as *const CapHeader, none.as_ptr()) };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `CLOSE_RANGE_CLOEXEC`.
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 4;

/// Marks every descriptor from `first` on close-on-exec (closing them now would also close
/// `std`'s pipe that reports a failed exec).
fn close_on_exec_from(first: RawFd) {
    let first = first as libc::c_uint;
    // SAFETY: close_range with integer arguments.
    let done = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            first,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        )
    } == 0;
    if !done {
        // Kernels before 5.11: one by one, up to a generous bound.
        for fd in first as RawFd..65_536 {
            // SAFETY: fcntl on a descriptor number; EBADF for those not open.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
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
        if reaped == command || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
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

/// `F_SETSIG` (the same number on every architecture Linux's generic `fcntl.h` serves).
const F_SETSIG: libc::c_int = 10;

/// A pipe, both ends close-on-exec: (read, write).
pub(super) fn lifeline() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds: [RawFd; 2] = [-1; 2];
    // SAFETY: `fds` has room for the two descriptors.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both were just opened, are valid, and nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Makes the kernel send us `SIGTERM` when the last write end of the pipe whose read end is
/// `lifeline` is closed (`O_ASYNC`, the signal `F_SETSIG` names). Our own copy, from the
/// fork, goes with the other descriptors once the command is started: if the process that
/// spawned us has died already, that close is the last, and the signal comes then.
fn watch_lifeline(lifeline: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor this process holds, with integer arguments.
    unsafe {
        check(libc::fcntl(lifeline, libc::F_SETOWN, libc::getpid()))?;
        check(libc::fcntl(lifeline, F_SETSIG, libc::SIGTERM))?;
        let flags = libc::fcntl(lifeline, libc::F_GETFL);
        check(flags)?;
        check(libc::fcntl(lifeline, libc::F_SETFL, flags | libc::O_ASYNC))?;
    }
    Ok(())
}

/// Closes every descriptor but `a` and `b`.
fn close_all_except(a: RawFd, b: RawFd) {
    let (low, high) = (a.min(b) as libc::c_uint, a.max(b) as libc::c_uint);
    let range = |first: libc::c_uint, last: libc::c_uint| {
        // SAFETY: close_range with integer arguments.
        first > last || unsafe { libc::syscall(libc::SYS_close_range, first, last, 0) } == 0
    };
    let done = (low == 0 || range(0, low - 1))
        && (high == low || range(low + 1, high - 1))
        && range(high + 1, libc::c_uint::MAX);
    if !done {
        // Kernels before 5.9: one by one, up to a generous bound.
        for fd in 0..65_536 {
            if fd != a && fd != b {
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
