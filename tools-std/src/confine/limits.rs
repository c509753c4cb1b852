//! The resource limits of one confined program, as system calls on data prepared before
//! the fork: join its cgroups (the supervisor, before it forks the command), mount its sized
//! private temporary directory (the supervisor, in the view), bound its PID namespace and
//! set its rlimits (the command, before exec).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use landlock::{ABI, Access as _, AccessFs};

use super::cgroup::{self, Cgroups};
use crate::limits::{Limits, Mechanism, Mechanisms};

/// The kernel release from which `pid_max` belongs to each PID namespace (before, the
/// file is the host's, which a process mapped to root could change).
const PID_MAX_PER_NAMESPACE: (u32, u32) = (6, 14);
/// The least `pid_max` the kernel accepts.
const PID_MAX_FLOOR: u64 = 301;

/// What the supervisor and the command do about the limits.
pub(super) struct Apply {
    /// The `cgroup.procs` files the supervisor joins.
    procs: Vec<CString>,
    /// `pid_max` for the command's PID namespace, when no cgroup bounds its processes.
    pid_max: Option<Vec<u8>>,
    /// The private temporary directory in the view and its `tmpfs` options.
    tmpfs: Option<(CString, CString, CString)>,
    /// Landlock rights for that `tmpfs` (from the newest ABI down: the first the kernel
    /// takes).
    temp_rights: [u64; 9],
    /// `setrlimit` calls of the command.
    rlimits: Vec<(libc::__rlimit_resource_t, libc::rlimit)>,
}

/// Prepares the limits of one program: its cgroups (kept by the confinement, removed when
/// it is dropped) and what the supervisor and the command do. `temp`: its private
/// temporary directory, `staged_temp` the same in the view's stage.
pub(super) fn prepare(
    limits: &Limits,
    temp: &Path,
    staged_temp: &Path,
) -> io::Result<(Cgroups, Apply)> {
    let cgroups = Cgroups::create(limits)?;
    let c = |bytes: &[u8]| {
        CString::new(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    };
    let mut rlimits = Vec::new();
    let mut limit = |resource, value: u64, hard: u64| {
        rlimits.push((
            resource,
            libc::rlimit {
                rlim_cur: value,
                rlim_max: hard,
            },
        ));
    };
    if let (Some(bytes), None) = (limits.memory_bytes(), cgroups.memory) {
        // Per process: the data segment and private writable mappings (not the address
        // space, which runtimes reserve far beyond what they use).
        limit(libc::RLIMIT_DATA, bytes, bytes);
    }
    if let Some(seconds) = limits.cpu_seconds() {
        // `SIGXCPU` at the limit, `SIGKILL` a second of CPU later.
        limit(libc::RLIMIT_CPU, seconds, seconds.saturating_add(1));
    }
    if let Some(bytes) = limits.write_bytes() {
        limit(libc::RLIMIT_FSIZE, bytes, bytes);
    }
    let pid_max = match (limits.processes_max(), cgroups.processes) {
        (Some(count), None) if pid_max_per_namespace() => {
            // Process ids 1 to pid_max - 1: `count` processes and threads at once.
            Some(
                count
                    .saturating_add(1)
                    .max(PID_MAX_FLOOR)
                    .to_string()
                    .into_bytes(),
            )
        }
        _ => None,
    };
    let tmpfs = match limits.write_bytes() {
        Some(bytes) => Some((
            c(staged_temp.as_os_str().as_bytes())?,
            c(temp.as_os_str().as_bytes())?,
            c(format!("size={bytes},mode=0700").as_bytes())?,
        )),
        None => None,
    };
    let abis = [
        ABI::V9,
        ABI::V8,
        ABI::V7,
        ABI::V6,
        ABI::V5,
        ABI::V4,
        ABI::V3,
        ABI::V2,
        ABI::V1,
    ];
    let temp_rights = abis.map(|abi| AccessFs::from_all(abi).bits());
    let apply = Apply {
        procs: cgroups.procs.clone(),
        pid_max,
        tmpfs,
        temp_rights,
        rlimits,
    };
    Ok((cgroups, apply))
}

/// Whether this kernel gives each PID namespace its own `pid_max` (Linux 6.14).
fn pid_max_per_namespace() -> bool {
    let mut name = std::mem::MaybeUninit::<libc::utsname>::zeroed();
    // SAFETY: `name` is a valid place for a `utsname`, zeroed, so initialised either way.
    let name = unsafe {
        libc::uname(name.as_mut_ptr());
        name.assume_init()
    };
    let release: String = name
        .release
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8 as char)
        .collect();
    let mut numbers = release
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|part| part.parse::<u32>().ok());
    match (numbers.next(), numbers.next()) {
        (Some(major), Some(minor)) => (major, minor) >= PID_MAX_PER_NAMESPACE,
        _ => false,
    }
}

/// Who enforces each limit on this host.
pub(crate) fn mechanisms() -> Mechanisms {
    let (memory, processes, cpu) = cgroup::probe();
    let namespaces = pid_max_per_namespace();
    Mechanisms {
        memory: memory.unwrap_or(Mechanism::Rlimit),
        processes: processes.unwrap_or(if namespaces {
            Mechanism::PidNamespace
        } else if rustix::process::getuid().is_root() {
            Mechanism::Unenforced
        } else {
            Mechanism::Rlimit
        }),
        cpu: cpu.unwrap_or(Mechanism::Unenforced),
    }
}

impl Apply {
    /// In the supervisor, before it enters the namespaces: moves itself into the program's
    /// cgroups, so that the command and all it starts are counted there.
    pub(super) fn join_cgroups(&self) -> io::Result<()> {
        for procs in &self.procs {
            write_file(procs, b"0")?;
        }
        Ok(())
    }

    /// In the supervisor, once the view is built: the private temporary directory becomes
    /// a `tmpfs` of the write limit's size.
    pub(super) fn mount_temp(&self) -> io::Result<()> {
        let Some((target, _, options)) = &self.tmpfs else {
            return Ok(());
        };
        // SAFETY: NUL-terminated strings; the data is tmpfs's option string.
        check(unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                target.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                options.as_ptr().cast(),
            )
        })
    }

    /// In the command, PID 1 of its namespace, while the host's `/proc` is still its
    /// `/proc`: bounds how many processes the namespace may hold. The file belongs to the
    /// PID namespace of the writer (checked before the fork: only on kernels where it does).
    /// Where `/proc/sys` is read-only (a container's) the program runs as it did before
    /// limits existed, bounded by `RLIMIT_NPROC` alone; the book says so.
    pub(super) fn bound_pid_namespace(&self) {
        if let Some(value) = &self.pid_max {
            let _ = write_file(c"/proc/sys/kernel/pid_max", value);
        }
    }

    /// In the command, after it entered the view: lets the Landlock ruleset write the
    /// `tmpfs` temporary directory (a new mount, unknown to the rules made before the fork).
    pub(super) fn allow_temp(&self, ruleset: &OwnedFd) {
        let Some((_, temp, _)) = &self.tmpfs else {
            return;
        };
        // SAFETY: a NUL-terminated path; these flags take no mode.
        let fd = unsafe {
            libc::open(
                temp.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return;
        }
        for rights in self.temp_rights {
            let rule = PathBeneathAttr {
                allowed_access: rights,
                parent_fd: fd,
            };
            // SAFETY: landlock_add_rule reads a `landlock_path_beneath_attr`, which `rule`
            // is, from a valid pointer; the ruleset descriptor is owned by the hook.
            let added = unsafe {
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset.as_raw_fd(),
                    RULE_PATH_BENEATH,
                    &rule as *const PathBeneathAttr,
                    0,
                )
            } == 0;
            if added {
                break;
            }
        }
        // SAFETY: the descriptor just opened.
        unsafe { libc::close(fd) };
    }

    /// In the command, before exec: its resource limits.
    pub(super) fn set_rlimits(&self) -> io::Result<()> {
        for (resource, limit) in &self.rlimits {
            // SAFETY: a valid `rlimit`.
            check(unsafe { libc::setrlimit(*resource, limit) })?;
        }
        Ok(())
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

/// Writes `data` to the file at `path` in one write.
fn write_file(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated; these flags take no mode.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    check(fd)?;
    // SAFETY: `data` is valid for `data.len()` bytes.
    let written = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
    let error = io::Error::last_os_error();
    // SAFETY: the descriptor just opened.
    unsafe { libc::close(fd) };
    if written == data.len() as isize {
        Ok(())
    } else {
        Err(error)
    }
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::cgroup::NO_CGROUPS;
    use super::*;
    use crate::sandbox::Sandbox;

    /// Runs `script` under `limits` where no cgroup may be made (the fallbacks alone).
    fn without_cgroups(limits: Limits, script: &str) -> std::process::Output {
        NO_CGROUPS.with(|off| off.set(true));
        let mut command = Command::new("python3");
        command.arg("-c").arg(script);
        let confined = Sandbox::new().limits(limits).confine(&mut command).unwrap();
        NO_CGROUPS.with(|off| off.set(false));
        assert!(confined.is_confined());
        let output = command.output().unwrap();
        drop(confined);
        output
    }

    fn host_pid_max() -> String {
        std::fs::read_to_string("/proc/sys/kernel/pid_max").unwrap()
    }

    #[test]
    fn without_a_cgroup_the_pid_namespace_bounds_a_fork_bomb_and_the_host_is_untouched() {
        if !pid_max_per_namespace() {
            // Older kernels: only `RLIMIT_NPROC` (see the book's table); nothing to check
            // here but that the host's `pid_max` is never written.
            let before = host_pid_max();
            let _ = without_cgroups(Limits::none().processes(400), "pass");
            assert_eq!(host_pid_max(), before);
            return;
        }
        let before = host_pid_max();
        let script = r#"
import errno, os
started = 0
try:
    while started < 800:
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "1000"])
        started += 1
    print("none", started)
except OSError as error:
    print(errno.errorcode.get(error.errno), started)
"#;
        let out = without_cgroups(Limits::none().processes(400), script);
        assert!(out.status.success(), "{out:?}");
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        let (error, started) = said.trim().split_once(' ').unwrap();
        assert_eq!(error, "EAGAIN", "{said}");
        assert!(started.parse::<u64>().unwrap() < 400, "{said}");
        assert_eq!(host_pid_max(), before, "the host's pid_max was written");
    }

    #[test]
    fn without_a_cgroup_a_memory_bomb_is_refused_per_process() {
        let script = r#"
held = []
try:
    for _ in range(256):
        held.append(bytearray(8 << 20))
    print("survived", len(held))
except MemoryError:
    print("refused", len(held))
"#;
        let out = without_cgroups(Limits::none().memory(128 << 20), script);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(said.starts_with("refused"), "{out:?}");
    }
}
