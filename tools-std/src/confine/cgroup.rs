//! A cgroup of a confined program's own, through the files of the cgroup file system (no
//! daemon): a cgroup v2 subtree delegated to us, else the cgroup v1 hierarchies we may
//! write. Created before the fork with the limits written in it; the supervisor moves
//! itself in before it forks the command (so everything the command starts is in it), and
//! it is removed when the confinement is dropped.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::limits::{Limits, Mechanism};

/// The controllers this code uses.
const MEMORY: &str = "memory";
const PIDS: &str = "pids";
const CPU: &str = "cpu";

/// The cgroup period for `cpu` limits, in microseconds (the kernel's default).
const CPU_PERIOD: u64 = 100_000;

/// Where this process's cgroups are: the v2 directory whose children may use the
/// controllers, and each v1 controller's directory of ours.
#[derive(Debug, Default)]
struct Hierarchies {
    /// The v2 directory and which of our controllers its children get.
    v2: Option<(PathBuf, Vec<&'static str>)>,
    /// Each v1 controller's directory of ours.
    v1: Vec<(&'static str, PathBuf)>,
}

/// Read once: where the cgroup file systems are mounted does not change under us.
fn hierarchies() -> &'static Hierarchies {
    static FOUND: OnceLock<Hierarchies> = OnceLock::new();
    FOUND.get_or_init(|| {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let membership = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        find(&mountinfo, &membership)
    })
}

/// Our cgroups, from `/proc/self/mountinfo` and `/proc/self/cgroup`.
fn find(mountinfo: &str, membership: &str) -> Hierarchies {
    let mut found = Hierarchies::default();
    for line in mountinfo.lines() {
        let Some((before, after)) = line.split_once(" - ") else {
            continue;
        };
        let fields: Vec<&str> = before.split(' ').collect();
        let rest: Vec<&str> = after.split(' ').collect();
        let (Some(root), Some(point), Some(kind), Some(options)) =
            (fields.get(3), fields.get(4), rest.first(), rest.get(2))
        else {
            continue;
        };
        let ours = |wanted: &dyn Fn(&str) -> bool| {
            membership.lines().find_map(|entry| {
                let mut parts = entry.splitn(3, ':');
                let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
                wanted(names).then(|| path.to_string())
            })
        };
        let dir = |path: String| {
            // Our path is relative to the hierarchy's root; the mount may show a part of it.
            let inside = path.strip_prefix(root).unwrap_or(&path);
            let inside = inside.trim_start_matches('/');
            let dir = PathBuf::from(unescape(point)).join(inside);
            dir.is_dir().then_some(dir)
        };
        if *kind == "cgroup2" {
            let Some(dir) = ours(&|names: &str| names.is_empty()).and_then(dir) else {
                continue;
            };
            if let Some(usable) = delegated(&dir) {
                found.v2 = Some(usable);
            }
        } else if *kind == "cgroup" {
            for controller in [MEMORY, PIDS, CPU] {
                let has = |names: &str| names.split(',').any(|name| name == controller);
                if has(options)
                    && let Some(dir) = ours(&|names: &str| has(names)).and_then(dir)
                {
                    found.v1.push((controller, dir));
                }
            }
        }
    }
    found
}

/// `\040` and the like in a mount point.
fn unescape(field: &str) -> String {
    field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// Where children of ours get controllers in cgroup v2: our cgroup when its
/// `cgroup.subtree_control` enables them (the root of a cgroup namespace), else its parent's
/// (a delegated subtree whose leaf we live in); with which of ours.
fn delegated(dir: &Path) -> Option<(PathBuf, Vec<&'static str>)> {
    for candidate in [Some(dir), dir.parent()].into_iter().flatten() {
        let enabled =
            std::fs::read_to_string(candidate.join("cgroup.subtree_control")).unwrap_or_default();
        let controllers: Vec<&'static str> = [MEMORY, PIDS, CPU]
            .into_iter()
            .filter(|c| enabled.split_whitespace().any(|e| e == *c))
            .collect();
        if controllers.contains(&MEMORY) || controllers.contains(&PIDS) {
            return Some((candidate.to_path_buf(), controllers));
        }
    }
    None
}

#[cfg(test)]
thread_local! {
    /// Set by a test of what holds where no cgroup may be made.
    pub(super) static NO_CGROUPS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A unique name for a program's cgroup.
fn child_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "toolwright-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Removes, once per process and parent, the empty cgroups that processes of ours which
/// have ended left behind (one that ended while a program's last process was being reaped,
/// before its cleanup thread could remove the directory). Only ours by name, only those
/// whose process is gone, and only empty ones: the kernel refuses to remove any other.
fn sweep(parent: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut swept) = SWEPT.lock() else {
        return;
    };
    if swept.iter().any(|done| done == parent) {
        return;
    }
    swept.push(parent.to_path_buf());
    for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(owner) = name
            .to_str()
            .and_then(|name| name.strip_prefix("toolwright-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = Path::new("/proc").join(owner.to_string()).exists();
        if !alive && members(&entry.path()).is_empty() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// The cgroups of one program: removed (with whatever is left in them killed) on drop.
#[derive(Debug, Default)]
pub(crate) struct Cgroups {
    dirs: Vec<PathBuf>,
    /// The files the supervisor writes `0` to, to move itself in.
    pub(super) procs: Vec<CString>,
    /// Who enforces memory, processes and CPU for this program.
    pub(super) memory: Option<Mechanism>,
    pub(super) processes: Option<Mechanism>,
    pub(super) cpu: Option<Mechanism>,
}

impl Cgroups {
    /// Makes the cgroups that enforce `limits`, where this host lets us; what no cgroup
    /// enforces is left to the caller (rlimits).
    ///
    /// # Errors
    ///
    /// When a cgroup was made but a limit could not be written in it.
    pub(super) fn create(limits: &Limits) -> io::Result<Cgroups> {
        let mut cgroups = Cgroups::default();
        #[cfg(test)]
        if NO_CGROUPS.with(std::cell::Cell::get) {
            return Ok(cgroups);
        }
        let wants = |controller: &str| match controller {
            MEMORY => limits.memory_bytes().is_some(),
            PIDS => limits.processes_max().is_some(),
            _ => limits.cpu_cores().is_some(),
        };
        let found = hierarchies();
        if let Some((parent, controllers)) = &found.v2 {
            let wanted: Vec<&str> = controllers.iter().copied().filter(|c| wants(c)).collect();
            if !wanted.is_empty()
                && let Some(dir) = cgroups.make(parent)?
            {
                for controller in wanted {
                    write_limits(&dir, controller, limits, true)?;
                    cgroups.mark(controller, Mechanism::CgroupV2);
                }
            }
        }
        for (controller, parent) in &found.v1 {
            if !wants(controller) || cgroups.marked(controller) {
                continue;
            }
            if let Some(dir) = cgroups.make(parent)? {
                write_limits(&dir, controller, limits, false)?;
                cgroups.mark(controller, Mechanism::CgroupV1);
            }
        }
        Ok(cgroups)
    }

    /// A new child of `parent`, or `None` where we may not make one.
    fn make(&mut self, parent: &Path) -> io::Result<Option<PathBuf>> {
        sweep(parent);
        let dir = parent.join(child_name());
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(error)
                if matches!(
                    error.raw_os_error(),
                    Some(libc::EACCES | libc::EPERM | libc::EROFS | libc::ENOENT)
                ) =>
            {
                return Ok(None);
            }
            Err(error) => return Err(error),
        }
        self.dirs.push(dir.clone());
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        self.procs.push(procs);
        Ok(Some(dir))
    }

    fn mark(&mut self, controller: &str, by: Mechanism) {
        match controller {
            MEMORY => self.memory = Some(by),
            PIDS => self.processes = Some(by),
            _ => self.cpu = Some(by),
        }
    }

    fn marked(&self, controller: &str) -> bool {
        match controller {
            MEMORY => self.memory.is_some(),
            PIDS => self.processes.is_some(),
            _ => self.cpu.is_some(),
        }
    }

    /// How many processes are in this program's cgroups now (the largest count of any).
    #[cfg(test)]
    fn count(&self) -> usize {
        self.dirs
            .iter()
            .map(|dir| members(dir).len())
            .max()
            .unwrap_or(0)
    }
}

/// Writes the limit of `controller` in `dir`.
fn write_limits(dir: &Path, controller: &str, limits: &Limits, v2: bool) -> io::Result<()> {
    let write = |file: &str, value: String| {
        std::fs::write(dir.join(file), value).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot write {}: {e}", dir.join(file).display()),
            )
        })
    };
    match (controller, v2) {
        (MEMORY, true) => {
            if let Some(bytes) = limits.memory_bytes() {
                write("memory.max", bytes.to_string())?;
                // Without swap: the limit is memory, not memory plus disk.
                if dir.join("memory.swap.max").exists() {
                    write("memory.swap.max", "0".into())?;
                }
            }
        }
        (MEMORY, false) => {
            if let Some(bytes) = limits.memory_bytes() {
                write("memory.limit_in_bytes", bytes.to_string())?;
                if dir.join("memory.memsw.limit_in_bytes").exists() {
                    write("memory.memsw.limit_in_bytes", bytes.to_string())?;
                }
            }
        }
        (PIDS, _) => {
            if let Some(count) = limits.processes_max() {
                write("pids.max", count.to_string())?;
            }
        }
        (_, v2) => {
            if let Some(cores) = limits.cpu_cores() {
                // At least 1 ms per period, as the kernel requires.
                let quota = ((cores * CPU_PERIOD as f64) as u64).max(1_000);
                if v2 {
                    write("cpu.max", format!("{quota} {CPU_PERIOD}"))?;
                } else {
                    write("cpu.cfs_period_us", CPU_PERIOD.to_string())?;
                    write("cpu.cfs_quota_us", quota.to_string())?;
                }
            }
        }
    }
    Ok(())
}

/// The processes in the cgroup `dir`.
fn members(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

/// Removes `dir`, killing what is left in it first; `true` once it is gone.
fn remove(dir: &Path) -> bool {
    match std::fs::remove_dir(dir) {
        Ok(()) => return true,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return true,
        Err(_) => {}
    }
    // Only the program's processes are in it: a program whose confinement is dropped is
    // being killed anyway (cgroup v2 has a file for that).
    if std::fs::write(dir.join("cgroup.kill"), "1").is_err() {
        for pid in members(dir) {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
    std::fs::remove_dir(dir).is_ok()
}

impl Drop for Cgroups {
    fn drop(&mut self) {
        let left: Vec<PathBuf> = self.dirs.drain(..).filter(|dir| !remove(dir)).collect();
        if left.is_empty() {
            return;
        }
        // The processes are dying (killed above or by their supervisor): the directories
        // go once they are reaped, without holding up the caller.
        let _ = std::thread::Builder::new()
            .name("toolwright-cgroup-cleanup".into())
            .spawn(move || {
                for _ in 0..3_000 {
                    if left.iter().all(|dir| remove(dir)) {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            });
    }
}

/// Who would enforce memory, processes and CPU here: a cgroup made and removed now, or
/// `None` for each the cgroups cannot.
pub(super) fn probe() -> (Option<Mechanism>, Option<Mechanism>, Option<Mechanism>) {
    let all = Limits::none().memory(1 << 30).processes(1 << 20).cpu(1.0);
    match Cgroups::create(&all) {
        Ok(cgroups) => (cgroups.memory, cgroups.processes, cgroups.cpu),
        Err(_) => (None, None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchies_are_found_from_the_kernels_files() {
        // A fake cgroup tree: v1 memory (our cgroup `/job`), cpu and cpuacct together (ours
        // `/`), pids mounted at a part of the hierarchy, and a v2 root that delegates.
        let tree = tempfile::tempdir().unwrap();
        let at = |path: &str| tree.path().join(path);
        for dir in ["memory/job", "cpu,cpuacct", "pids", "unified/svc"] {
            std::fs::create_dir_all(at(dir)).unwrap();
        }
        std::fs::write(at("unified/cgroup.subtree_control"), "cpu memory pids\n").unwrap();
        let point = |dir: &str| at(dir).display().to_string().replace(' ', "\\040");
        let mountinfo = format!(
            "30 25 0:26 / {} rw,relatime shared:9 - cgroup cgroup rw,memory\n\
             31 25 0:27 / {} rw,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct\n\
             32 25 0:28 / {} rw,relatime shared:11 - cgroup2 cgroup2 rw\n\
             33 25 0:29 /box {} rw,relatime - cgroup cgroup rw,pids\n\
             34 25 0:30 / /proc rw - proc proc rw",
            point("memory"),
            point("cpu,cpuacct"),
            point("unified"),
            point("pids"),
        );
        let membership = "4:memory:/job\n3:cpu,cpuacct:/\n2:pids:/box\n0::/svc";
        let found = find(&mountinfo, membership);
        let mut v1 = found.v1.clone();
        v1.sort();
        assert_eq!(
            v1,
            [
                (CPU, at("cpu,cpuacct")),
                (MEMORY, at("memory/job")),
                (PIDS, at("pids")),
            ]
        );
        // Our v2 cgroup `/svc` enables nothing for its children; its parent does.
        assert_eq!(found.v2, Some((at("unified"), vec![MEMORY, PIDS, CPU])));
        // A controller we are in no cgroup of is not ours.
        let found = find(&mountinfo, "0::/svc");
        assert!(found.v1.is_empty());
        assert_eq!(unescape("/a\\040b"), "/a b");
    }

    #[test]
    fn a_programs_cgroup_is_removed_when_dropped() {
        let cgroups = Cgroups::create(&Limits::none().processes(64)).unwrap();
        let dirs = cgroups.dirs.clone();
        assert_eq!(cgroups.count(), 0);
        drop(cgroups);
        assert!(dirs.iter().all(|dir| !dir.exists()));
    }
}
