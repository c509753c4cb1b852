//! Resource limits of a confined program: memory, CPU, processes and what it may write,
//! enforced by the kernel.
//!
//! [`Limits`] is given to a `Sandbox` (a confined MCP server) or to a `Workspace` (its
//! `run_command`). Where this host delegates a cgroup, each program gets one of its own;
//! otherwise resource limits (`setrlimit`) and the PID namespace hold.
//! `sandbox::limit_mechanisms` says which holds here, per limit:
//!
//! | limit | cgroup v2 delegated | cgroup v1 writable | neither |
//! |---|---|---|---|
//! | `memory` | `memory.max`, `memory.swap.max = 0`: all its processes together | `memory.limit_in_bytes` (and `memsw`): all together | `RLIMIT_DATA`: each process |
//! | `processes` | `pids.max` | `pids.max` | `pid_max` of its PID namespace (Linux 6.14 and later, `/proc/sys` writable; at least 301), and `RLIMIT_NPROC` when not root |
//! | `cpu` (cores) | `cpu.max` | `cpu.cfs_quota_us` | not enforced |
//! | `cpu_time` (seconds) | `RLIMIT_CPU`: each process, `SIGXCPU` then `SIGKILL` | the same | the same |
//! | `write` | `RLIMIT_FSIZE` per file (`EFBIG`), and a private temporary directory that is a `tmpfs` of that size (`ENOSPC`) | the same | the same |
//!
//! What bounds writes to a granted directory (the workspace) is the size of each file; the
//! number of files is bounded only by the file system that holds it.
//!
//! ```
//! use toolwright_std::limits::Limits;
//!
//! let limits = Limits::none()
//!     .memory(Limits::parse_size("512MiB").unwrap())
//!     .processes(128);
//! assert_eq!(limits.memory_bytes(), Some(512 * 1024 * 1024));
//! assert!(Limits::parse_size("512XB").is_err());
//! ```

use std::fmt;

/// What a confined program may use. `None` in a field: no limit of ours.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    memory: Option<u64>,
    cpu: Option<f64>,
    cpu_time: Option<u64>,
    processes: Option<u64>,
    write: Option<u64>,
}

/// A limit that makes no sense.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitsError {
    /// A size that is not a positive whole number with a known unit.
    #[error(
        "`{0}` is not a size; write a positive whole number of bytes with an optional unit \
         (B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB), e.g. `512MiB`"
    )]
    Size(String),
    /// A limit of zero, or below zero.
    #[error("`{name}` must be above zero (it is {value}); leave it out for no limit")]
    NotPositive {
        /// The limit's name.
        name: &'static str,
        /// What was given.
        value: String,
    },
}

/// Who enforces one limit on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mechanism {
    /// A cgroup v2 of the program's own, in a subtree delegated to us.
    CgroupV2,
    /// A cgroup v1 of the program's own, in a hierarchy we may write.
    CgroupV1,
    /// `pid_max` in the program's own PID namespace.
    PidNamespace,
    /// A resource limit (`setrlimit`) of each process.
    Rlimit,
    /// Nothing on this host.
    Unenforced,
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mechanism::CgroupV2 => "cgroup v2",
            Mechanism::CgroupV1 => "cgroup v1",
            Mechanism::PidNamespace => "the PID namespace's pid_max",
            Mechanism::Rlimit => "rlimit (per process)",
            Mechanism::Unenforced => "not enforced here",
        })
    }
}

/// Who enforces each limit on this host (see the [module](self)'s table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mechanisms {
    /// For [`Limits::memory`].
    pub memory: Mechanism,
    /// For [`Limits::processes`].
    pub processes: Mechanism,
    /// For [`Limits::cpu`].
    pub cpu: Mechanism,
}

impl fmt::Display for Mechanisms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "memory: {}; processes: {}; cpu: {}; cpu time and write: rlimit",
            self.memory, self.processes, self.cpu
        )
    }
}

/// The default memory of a command: half of the host's memory, and 4 GiB where that is
/// unknown.
fn half_the_memory() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("MemTotal:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
        });
    total.map_or(4 << 30, |kib| (kib * 1024 / 2).max(256 << 20))
}

impl Limits {
    /// No limit of ours at all.
    pub fn none() -> Limits {
        Limits::default()
    }

    /// The defaults of `run_command`: they bound a memory, fork or disk bomb without
    /// breaking a normal build: memory half of the host's, 4096 processes and threads,
    /// 4 GiB per written file (and a 4 GiB private temporary directory); no CPU limit (the
    /// command's timeout bounds its time).
    ///
    /// ```
    /// let limits = toolwright_std::limits::Limits::run_command_default();
    /// assert_eq!(limits.processes_max(), Some(4096));
    /// ```
    pub fn run_command_default() -> Limits {
        Limits {
            memory: Some(half_the_memory()),
            cpu: None,
            cpu_time: None,
            processes: Some(4096),
            write: Some(4 << 30),
        }
    }

    /// The defaults of a `Sandbox`: 1024 processes and threads
    /// (node runs about a dozen threads), nothing else.
    ///
    /// ```
    /// let limits = toolwright_std::limits::Limits::sandbox_default();
    /// assert_eq!(limits.memory_bytes(), None);
    /// ```
    pub fn sandbox_default() -> Limits {
        Limits {
            processes: Some(1024),
            ..Limits::default()
        }
    }

    /// At most `bytes` of memory (with the cgroup: all its processes together, no swap).
    pub fn memory(mut self, bytes: u64) -> Limits {
        self.memory = Some(bytes);
        self
    }

    /// At most `cores` CPUs' worth of time per period (cgroup only).
    pub fn cpu(mut self, cores: f64) -> Limits {
        self.cpu = Some(cores);
        self
    }

    /// At most `seconds` of CPU time per process (`RLIMIT_CPU`: `SIGXCPU`, then `SIGKILL`
    /// a second later).
    pub fn cpu_time(mut self, seconds: u64) -> Limits {
        self.cpu_time = Some(seconds);
        self
    }

    /// At most `count` processes and threads at once.
    pub fn processes(mut self, count: u64) -> Limits {
        self.processes = Some(count);
        self
    }

    /// Files of at most `bytes` (`RLIMIT_FSIZE`), and a private temporary directory of that
    /// size.
    pub fn write(mut self, bytes: u64) -> Limits {
        self.write = Some(bytes);
        self
    }

    /// The memory limit in bytes.
    pub fn memory_bytes(&self) -> Option<u64> {
        self.memory
    }

    /// The CPU bandwidth limit in cores.
    pub fn cpu_cores(&self) -> Option<f64> {
        self.cpu
    }

    /// The CPU time limit in seconds.
    pub fn cpu_seconds(&self) -> Option<u64> {
        self.cpu_time
    }

    /// The limit on processes and threads.
    pub fn processes_max(&self) -> Option<u64> {
        self.processes
    }

    /// The limit on a written file's size (and the private temporary directory's).
    pub fn write_bytes(&self) -> Option<u64> {
        self.write
    }

    /// Checks that every limit given is above zero (and the CPU a finite number).
    ///
    /// # Errors
    ///
    /// [`LimitsError::NotPositive`] naming the limit.
    pub fn validate(&self) -> Result<(), LimitsError> {
        let zero = |name: &'static str, value: Option<u64>| match value {
            Some(0) => Err(LimitsError::NotPositive {
                name,
                value: "0".into(),
            }),
            _ => Ok(()),
        };
        zero("memory", self.memory)?;
        zero("cpu_time", self.cpu_time)?;
        zero("processes", self.processes)?;
        zero("write", self.write)?;
        match self.cpu {
            Some(cores) if !(cores.is_finite() && cores > 0.0) => Err(LimitsError::NotPositive {
                name: "cpu",
                value: cores.to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// Parses a size: a positive whole number with an optional unit, `B`, `K`/`KiB`,
    /// `M`/`MiB`, `G`/`GiB`, `T`/`TiB` (powers of 1024), or `KB`, `MB`, `GB`, `TB` (powers
    /// of 1000).
    ///
    /// ```
    /// use toolwright_std::limits::Limits;
    /// assert_eq!(Limits::parse_size("256MiB"), Ok(256 << 20));
    /// assert_eq!(Limits::parse_size("2GB"), Ok(2_000_000_000));
    /// assert!(Limits::parse_size("0").is_err());
    /// assert!(Limits::parse_size("-1GiB").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`LimitsError::Size`] for anything else, [`LimitsError::NotPositive`] for zero.
    pub fn parse_size(text: &str) -> Result<u64, LimitsError> {
        let bad = || LimitsError::Size(text.to_string());
        let trimmed = text.trim();
        let split = trimmed
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(trimmed.len());
        let (digits, unit) = trimmed.split_at(split);
        if digits.is_empty() {
            return Err(bad());
        }
        let number: u64 = digits.parse().map_err(|_| bad())?;
        let factor: u64 = match unit.trim() {
            "" | "B" => 1,
            "K" | "KiB" => 1 << 10,
            "M" | "MiB" => 1 << 20,
            "G" | "GiB" => 1 << 30,
            "T" | "TiB" => 1 << 40,
            "KB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            "TB" => 1_000_000_000_000,
            _ => return Err(bad()),
        };
        let bytes = number.checked_mul(factor).ok_or_else(bad)?;
        if bytes == 0 {
            return Err(LimitsError::NotPositive {
                name: "size",
                value: text.to_string(),
            });
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_nonsense_is_refused() {
        assert_eq!(Limits::parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(Limits::parse_size("1024"), Ok(1024));
        assert_eq!(Limits::parse_size("3 G"), Ok(3 << 30));
        for bad in ["512XB", "", "MiB", "-5", "1.5GiB", "99999999999TiB", "1 2"] {
            assert!(
                matches!(Limits::parse_size(bad), Err(LimitsError::Size(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            Limits::parse_size("0KiB"),
            Err(LimitsError::NotPositive { .. })
        ));
    }

    #[test]
    fn zero_and_negative_limits_are_refused() {
        assert!(Limits::none().processes(0).validate().is_err());
        assert!(Limits::none().cpu(-1.0).validate().is_err());
        assert!(Limits::none().cpu(f64::NAN).validate().is_err());
        assert!(Limits::run_command_default().validate().is_ok());
    }
}
