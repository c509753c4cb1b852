//! Confining a program you start yourself the way `run_command` confines its commands: an
//! MCP server of someone else's, a plugin, a converter.
//!
//! [`Sandbox`] names what the program may reach; [`Sandbox::confine`] prepares a
//! [`std::process::Command`] so that, when it is spawned, the program starts behind the same
//! kernel walls as `run_command` (see the crate's security model): new namespaces and a
//! private view of the file system that holds the system's programs and libraries, an
//! allow-list of `/etc`, a few devices, its own `/proc`, a private temporary directory and
//! exactly the paths granted here; no capabilities; Landlock rules over the same list (TCP
//! denied without the network); and the system-call policy. A path that is not granted does
//! not exist for the program, whatever link or `..` it follows: the kernel resolves every
//! path inside the view.
//!
//! The program gets a clean environment: the variables set on the command before
//! [`confine`](Sandbox::confine), `PATH`, `LANG`, `LC_ALL`, `LC_CTYPE` and `TZ` from ours, and
//! `HOME` and `TMPDIR` set to its private temporary directory. Nothing else of ours, so no
//! token of ours in the environment reaches it.
//!
//! The returned [`Confined`] must live as long as the program (it holds the temporary
//! directory): dropping it kills the program. Killing the process
//! [`spawn`](std::process::Command::spawn) returned kills the program and everything it
//! started, and so does the end of our own process, however it ends (`SIGKILL` included):
//! a program that ignores the end of its input does not outlive us.
//!
//! ```no_run
//! use std::process::Command;
//! use toolwright_std::sandbox::Sandbox;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut command = Command::new("node");
//! command.arg("/opt/servers/files/index.js").arg("/srv/shared");
//! let confined = Sandbox::new()
//!     .read("/opt/servers/files")
//!     .write("/srv/shared")
//!     .confine(&mut command)?;
//! let status = command.status()?;
//! drop(confined);
//! # let _ = status;
//! # Ok(())
//! # }
//! ```
//!
//! Outside Linux there is no kernel confinement: [`Sandbox::confine`] fails unless
//! [`Sandbox::allow_unconfined`] says to run the program anyway.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::confine::{self, Access, Confinement, PrepareError, Spec};
use crate::egress::Egress;
use crate::limits::{Limits, Mechanisms};

/// How many processes and threads a confined program may have at once: plenty for a
/// server (node runs about a dozen threads), and a fork bomb stops there.
pub const MAX_TASKS: u64 = 1024;

/// Variables of ours a confined program keeps: where programs are, and the locale and time
/// zone. Nothing that could hold a secret.
const KEPT_ENV: &[&str] = &["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"];

/// What a confined program may reach: directories (or files) to read, to write, and
/// whether it may use the network. Build it, then [`confine`](Sandbox::confine) a command.
///
/// ```
/// use toolwright_std::sandbox::Sandbox;
///
/// let sandbox = Sandbox::new().read("/usr/share/doc").network(false);
/// assert_eq!(sandbox.readable(), [std::path::PathBuf::from("/usr/share/doc")]);
/// assert!(!sandbox.network_allowed());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Sandbox {
    read: Vec<PathBuf>,
    write: Vec<PathBuf>,
    network: bool,
    /// Named hosts only, through a proxy.
    egress: Option<Egress>,
    unconfined: bool,
    cwd: Option<PathBuf>,
    limits: Option<Limits>,
}

/// Why a program could not be confined.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// A granted path does not exist or cannot be resolved.
    #[error("`{path}` cannot be granted to the sandbox: {source}; grant paths that exist")]
    Path {
        /// The path as it was given.
        path: PathBuf,
        /// What resolving it said.
        source: std::io::Error,
    },
    /// `/` was granted, which would be the whole file system.
    #[error(
        "granting `{0}` would give the program the whole file system; grant the directories it \
         needs"
    )]
    WholeFileSystem(PathBuf),
    /// The working directory is not one of the granted paths.
    #[error(
        "the program would start in `{0}`, which it cannot see; start it in a granted \
         directory (`Sandbox::cwd`)"
    )]
    WorkingDirectory(PathBuf),
    /// The kernel cannot confine programs here and running unconfined was not allowed.
    #[error(
        "this system cannot confine programs (on Linux: Landlock is not available or not \
         enabled), so the program is not started; to run it unconfined anyway, allow it with \
         `Sandbox::allow_unconfined(true)`"
    )]
    NotConfinable,
    /// A part of the confinement could not be built.
    #[error("cannot confine the program: {0}")]
    Failed(String),
}

/// The confinement of a program, from [`Sandbox::confine`]: keep it as long as the program
/// runs (it holds the program's temporary directory, removed when this is dropped, and
/// dropping it kills the program).
#[derive(Debug)]
pub struct Confined {
    confinement: Confinement,
}

impl std::fmt::Debug for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Confinement")
            .field("confined", &self.confined())
            .field("temp_dir", &self.temp_dir())
            .finish_non_exhaustive()
    }
}

impl Confined {
    /// Whether the kernel confines the program (false only where it cannot and
    /// [`Sandbox::allow_unconfined`] let the program run anyway).
    pub fn is_confined(&self) -> bool {
        self.confinement.confined()
    }

    /// The program's private temporary directory (its `TMPDIR` and `HOME`), writable by it.
    pub fn temp_dir(&self) -> &Path {
        self.confinement.temp_dir()
    }
}

impl Sandbox {
    /// A sandbox that grants nothing beyond the system's programs and libraries, and no
    /// network.
    pub fn new() -> Sandbox {
        Sandbox::default()
    }

    /// Lets the program read (and execute) `path` and everything beneath it; not write.
    pub fn read(mut self, path: impl Into<PathBuf>) -> Sandbox {
        self.read.push(path.into());
        self
    }

    /// Lets the program read and write `path` and everything beneath it.
    pub fn write(mut self, path: impl Into<PathBuf>) -> Sandbox {
        self.write.push(path.into());
        self
    }

    /// Whether the program may use the network (default: no; the kernel then refuses it
    /// IP sockets and TCP connections, and it has no network but a loopback that is down).
    pub fn network(mut self, allowed: bool) -> Sandbox {
        self.network = allowed;
        self
    }

    /// Lets the program reach only the hosts of `egress` (an
    /// [`AllowList`](crate::egress::AllowList) or an [`Egress`]), through a proxy: it gets no
    /// network of its own, and `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` point at a relay in
    /// its namespace to a proxy that refuses unlisted hosts and private, loopback, link-local
    /// and metadata addresses unless listed (see the [`egress`](crate::egress) module). Turns
    /// [`network`](Sandbox::network) off; [`confine`](Sandbox::confine) fails when the proxy
    /// cannot start.
    ///
    /// ```
    /// use toolwright_std::egress::AllowList;
    /// use toolwright_std::sandbox::Sandbox;
    ///
    /// let sandbox = Sandbox::new().network_hosts(AllowList::parse(["api.github.com:443"])?);
    /// assert!(!sandbox.network_allowed());
    /// assert_eq!(sandbox.network_hosts_allowed().map(|list| list.rules().len()), Some(1));
    /// # Ok::<(), toolwright_std::egress::RuleError>(())
    /// ```
    pub fn network_hosts(mut self, egress: impl Into<Egress>) -> Sandbox {
        self.network = false;
        self.egress = Some(egress.into());
        self
    }

    /// The hosts the program may reach through the proxy, if
    /// [`network_hosts`](Sandbox::network_hosts) was given.
    pub fn network_hosts_allowed(&self) -> Option<&crate::egress::AllowList> {
        self.egress.as_ref().map(Egress::allowed)
    }

    /// Whether the program runs where the kernel cannot confine it (default: no, and
    /// [`confine`](Sandbox::confine) fails there).
    pub fn allow_unconfined(mut self, allowed: bool) -> Sandbox {
        self.unconfined = allowed;
        self
    }

    /// Where the program starts (default: the command's own working directory if it set one,
    /// else the first directory granted to write, else the first to read, else `/`). It must
    /// be beneath a granted path.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Sandbox {
        self.cwd = Some(dir.into());
        self
    }

    /// Limits the program's memory, CPU, processes and writes (by default
    /// [`Limits::sandbox_default`]: 1024 processes and threads). A limit this host cannot
    /// enforce with a cgroup falls back as [`limit_mechanisms`] says.
    ///
    /// ```
    /// use toolwright_std::limits::Limits;
    /// use toolwright_std::sandbox::Sandbox;
    ///
    /// let sandbox = Sandbox::new().limits(Limits::none().memory(512 << 20).processes(128));
    /// assert_eq!(sandbox.limits_set().processes_max(), Some(128));
    /// ```
    pub fn limits(mut self, limits: Limits) -> Sandbox {
        self.limits = Some(limits);
        self
    }

    /// The limits the program will run under.
    pub fn limits_set(&self) -> Limits {
        self.limits.unwrap_or_else(Limits::sandbox_default)
    }

    /// The paths granted to read, as given.
    pub fn readable(&self) -> &[PathBuf] {
        &self.read
    }

    /// The paths granted to write, as given.
    pub fn writable(&self) -> &[PathBuf] {
        &self.write
    }

    /// Whether the network is allowed.
    pub fn network_allowed(&self) -> bool {
        self.network
    }

    /// The directory or file through which a program confined by this sandbox could read
    /// `path` (one of the system's directories, an allowed `/etc` file, a granted path), or
    /// `None`: the question to ask before granting a directory that may hold a secret.
    /// Where the system cannot confine programs, `Some("/")`.
    ///
    /// ```
    /// use toolwright_std::sandbox::Sandbox;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let secret = dir.path().join("token");
    /// std::fs::write(&secret, "s3cret")?;
    /// # #[cfg(target_os = "linux")]
    /// assert_eq!(Sandbox::new().readable_through(&secret), None);
    /// # #[cfg(target_os = "linux")]
    /// assert!(Sandbox::new().read(dir.path()).readable_through(&secret).is_some());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn readable_through(&self, path: impl AsRef<Path>) -> Option<PathBuf> {
        let binds: Vec<(PathBuf, Access)> = self
            .read
            .iter()
            .map(|path| (path, Access::Execute))
            .chain(self.write.iter().map(|path| (path, Access::Write)))
            .filter_map(|(path, access)| Some((std::fs::canonicalize(path).ok()?, access)))
            .collect();
        confine::readable_through(&binds, path.as_ref())
    }

    /// Prepares `command` to start confined: its environment is replaced (see the
    /// [module](self)), its working directory set, and the kernel walls installed for when it
    /// is spawned. Keep the returned [`Confined`] until the program has exited.
    ///
    /// # Errors
    ///
    /// [`SandboxError::Path`] for a granted path that does not exist,
    /// [`SandboxError::WholeFileSystem`] for `/`, [`SandboxError::WorkingDirectory`] when
    /// the program would start where it cannot see, [`SandboxError::NotConfinable`] where
    /// the kernel cannot confine and that was not allowed.
    pub fn confine(&self, command: &mut std::process::Command) -> Result<Confined, SandboxError> {
        let mut binds = Vec::new();
        for (paths, access) in [(&self.read, Access::Execute), (&self.write, Access::Write)] {
            for path in paths {
                let canonical =
                    std::fs::canonicalize(path).map_err(|source| SandboxError::Path {
                        path: path.clone(),
                        source,
                    })?;
                if canonical.parent().is_none() {
                    return Err(SandboxError::WholeFileSystem(path.clone()));
                }
                binds.push((canonical, access));
            }
        }
        let cwd = self
            .cwd
            .clone()
            .or_else(|| command.get_current_dir().map(Path::to_path_buf))
            .or_else(|| self.write.first().cloned())
            .or_else(|| self.read.first().cloned())
            .unwrap_or_else(|| PathBuf::from("/"));
        let cwd = std::fs::canonicalize(&cwd).map_err(|source| SandboxError::Path {
            path: cwd.clone(),
            source,
        })?;
        let visible = cwd == Path::new("/") || binds.iter().any(|(path, _)| cwd.starts_with(path));
        if !visible {
            return Err(SandboxError::WorkingDirectory(cwd));
        }
        let spec = Spec {
            binds,
            toolchain: false,
            network: self.network,
            unconfined_allowed: self.unconfined,
            protect_root_git: None,
            prefix: "toolwright-sandbox-",
            limits: self.limits.unwrap_or_else(Limits::sandbox_default),
            egress: self.egress.clone().filter(|_| !self.network),
        };
        let mut confinement =
            Confinement::prepare_spec(spec, &cwd, |temp| vec![(temp.to_path_buf(), Access::Write)])
                .map_err(|error| match error {
                    PrepareError::NotConfinable => SandboxError::NotConfinable,
                    PrepareError::Failed(message) => SandboxError::Failed(message),
                })?;
        let explicit: Vec<(OsString, OsString)> = command
            .get_envs()
            .filter_map(|(key, value)| Some((key.to_owned(), value?.to_owned())))
            .collect();
        command.env_clear();
        for name in KEPT_ENV {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        command
            .env("HOME", confinement.temp_dir())
            .env("TMPDIR", confinement.temp_dir())
            .envs(explicit)
            .envs(confinement.proxy_env())
            .current_dir(&cwd);
        confinement.install(command);
        Ok(Confined { confinement })
    }
}

/// Who enforces each resource limit on this host: a cgroup of the program's own (v2
/// delegated, or v1 writable), the PID namespace, or per-process rlimits (see
/// [`crate::limits`]). It makes and removes a test cgroup where one may be writable.
///
/// ```
/// println!("{}", toolwright_std::sandbox::limit_mechanisms());
/// ```
pub fn limit_mechanisms() -> Mechanisms {
    #[cfg(target_os = "linux")]
    return confine::mechanisms();
    #[cfg(not(target_os = "linux"))]
    {
        use crate::limits::Mechanism;
        Mechanisms {
            memory: Mechanism::Unenforced,
            processes: Mechanism::Unenforced,
            cpu: Mechanism::Unenforced,
        }
    }
}

/// Whether this system can confine programs: `false` where a [`Sandbox`] would need
/// [`Sandbox::allow_unconfined`] to run anything.
///
/// ```
/// let _ = toolwright_std::sandbox::supported();
/// ```
pub fn supported() -> bool {
    let mut command = std::process::Command::new("true");
    Sandbox::new()
        .confine(&mut command)
        .is_ok_and(|confined| confined.is_confined())
}
