//! The directory the file and command tools work in, and the rule that no path leaves it.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// Longest path a tool accepts, in bytes.
const MAX_PATH_BYTES: usize = 4096;
/// Longest single path component, in bytes (the usual file system limit).
const MAX_COMPONENT_BYTES: usize = 255;

/// Environment variables a command keeps by default; everything else is cleared.
const DEFAULT_ENV: &[&str] = &[
    "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "USER", "TMPDIR",
];

/// Why a path was refused. Each message says what was wrong and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path is empty.
    #[error("the path is empty: give a path relative to the workspace root, or `.` for the root")]
    Empty,
    /// The path contains a NUL byte.
    #[error("the path contains a NUL byte, which no file name can hold")]
    NulByte,
    /// The path is too long.
    #[error(
        "the path is {0} bytes long; paths are limited to {MAX_PATH_BYTES} bytes and each name to {MAX_COMPONENT_BYTES}"
    )]
    TooLong(usize),
    /// The path is absolute.
    #[error(
        "`{0}` is an absolute path; paths are relative to the workspace root (write `src/main.rs`, not `/src/main.rs`)"
    )]
    Absolute(String),
    /// The path starts with `~`.
    #[error("`{0}` refers to a home directory; paths are relative to the workspace root")]
    HomeRelative(String),
    /// The path has a `..` component.
    #[error("`{0}` goes up with `..`; paths must stay inside the workspace root")]
    ParentTraversal(String),
    /// A name in the path is only spaces.
    #[error("`{0}` has a name made only of spaces; check the path")]
    BlankName(String),
    /// The path resolves outside the workspace, through a symbolic link.
    #[error("`{0}` leads outside the workspace through a symbolic link; it is not accessible")]
    OutsideRoot(String),
    /// Nothing exists at the path.
    #[error("`{0}` does not exist; list the directory to see what is there")]
    NotFound(String),
    /// The file system refused.
    #[error("cannot access `{path}`: {message}")]
    Io {
        /// The path, relative to the root.
        path: String,
        /// The operating system's message.
        message: String,
    },
}

/// Why a workspace could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot use `{root}` as the workspace root: {source}")]
pub struct WorkspaceError {
    root: String,
    #[source]
    source: std::io::Error,
}

/// The directory the file and command tools are confined to, with the limits they work
/// within. An application puts one into the executor's state:
///
/// ```
/// use std::sync::Arc;
/// use tool_runtime::{Executor, register_all_tools};
/// use tools_std::Workspace;
///
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = Workspace::new(dir.path()).unwrap().allow_commands(["ls", "cargo"]);
/// let executor = Executor::builder(Arc::new(tools_std::registry().unwrap()))
///     .state(workspace)
///     .build();
/// # let _ = executor;
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    max_read_bytes: u64,
    max_write_bytes: u64,
    max_entries: usize,
    max_matches: usize,
    max_output_bytes: usize,
    command_timeout: Duration,
    max_command_timeout: Duration,
    allowed_commands: BTreeSet<String>,
    allow_shell: bool,
    env: BTreeSet<String>,
}

impl Workspace {
    /// A workspace rooted at `root` (which must be an existing directory), with the default
    /// limits: reads of 256 KiB, writes of 10 MiB, 1,000 directory entries, 200 search
    /// matches, 64 KiB of command output per stream, commands limited to 30 s (at most
    /// 300 s when asked), and no commands allowed until [`allow_commands`](Self::allow_commands).
    ///
    /// # Errors
    ///
    /// When `root` does not exist or is not a directory.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let given = root.as_ref();
        let fail = |source| WorkspaceError {
            root: given.display().to_string(),
            source,
        };
        let root = std::fs::canonicalize(given).map_err(fail)?;
        if !root.is_dir() {
            return Err(fail(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        Ok(Workspace {
            root,
            max_read_bytes: 256 * 1024,
            max_write_bytes: 10 * 1024 * 1024,
            max_entries: 1000,
            max_matches: 200,
            max_output_bytes: 64 * 1024,
            command_timeout: Duration::from_secs(30),
            max_command_timeout: Duration::from_secs(300),
            allowed_commands: BTreeSet::new(),
            allow_shell: false,
            env: DEFAULT_ENV.iter().map(|name| (*name).to_owned()).collect(),
        })
    }

    /// The workspace root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The most bytes `read_file` returns (and `search_files` prints).
    pub fn max_read_bytes(mut self, bytes: u64) -> Self {
        self.max_read_bytes = bytes;
        self
    }

    /// The largest file `write_file` and `edit_file` write.
    pub fn max_write_bytes(mut self, bytes: u64) -> Self {
        self.max_write_bytes = bytes;
        self
    }

    /// The most entries `list_directory` and `find_files` return.
    pub fn max_entries(mut self, entries: usize) -> Self {
        self.max_entries = entries;
        self
    }

    /// The most matches `search_files` returns.
    pub fn max_matches(mut self, matches: usize) -> Self {
        self.max_matches = matches;
        self
    }

    /// The most bytes of stdout, and of stderr, `run_command` keeps.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }

    /// How long a command may run when the model asks for no limit, and the most it may ask
    /// for.
    pub fn command_timeout(mut self, default: Duration, max: Duration) -> Self {
        self.command_timeout = default;
        self.max_command_timeout = max.max(default);
        self
    }

    /// Programs `run_command` may run (by the name the model gives, e.g. `cargo`).
    pub fn allow_commands<I, S>(mut self, programs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_commands
            .extend(programs.into_iter().map(Into::into));
        self
    }

    /// Whether `run_command` may run a shell script (`shell: true`); off by default.
    pub fn allow_shell(mut self, allow: bool) -> Self {
        self.allow_shell = allow;
        self
    }

    /// Environment variables commands keep, besides `PATH`, `HOME`, `LANG`, `LC_ALL`,
    /// `LC_CTYPE`, `TERM`, `TZ`, `USER` and `TMPDIR`.
    pub fn keep_env<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.env.extend(names.into_iter().map(Into::into));
        self
    }

    pub(crate) fn read_limit(&self) -> u64 {
        self.max_read_bytes
    }
    pub(crate) fn write_limit(&self) -> u64 {
        self.max_write_bytes
    }
    pub(crate) fn entry_limit(&self) -> usize {
        self.max_entries
    }
    pub(crate) fn match_limit(&self) -> usize {
        self.max_matches
    }
    pub(crate) fn output_limit(&self) -> usize {
        self.max_output_bytes
    }
    pub(crate) fn timeouts(&self) -> (Duration, Duration) {
        (self.command_timeout, self.max_command_timeout)
    }
    pub(crate) fn allowed_commands(&self) -> &BTreeSet<String> {
        &self.allowed_commands
    }
    pub(crate) fn shell_allowed(&self) -> bool {
        self.allow_shell
    }

    /// The environment a command runs with: the kept variables that are set.
    pub(crate) fn command_env(&self) -> Vec<(String, OsString)> {
        self.env
            .iter()
            .filter_map(|name| std::env::var_os(name).map(|value| (name.clone(), value)))
            .collect()
    }

    /// The path of something that exists inside the workspace, canonical.
    ///
    /// # Errors
    ///
    /// A [`PathError`] for every way out of the root: absolute paths, `..`, `~`, NUL bytes,
    /// overlong paths, and symbolic links (anywhere in the path) that lead outside.
    ///
    /// ```
    /// use tools_std::{PathError, Workspace};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("notes.txt"), "hi").unwrap();
    /// let workspace = Workspace::new(dir.path()).unwrap();
    /// assert!(workspace.resolve("notes.txt").is_ok());
    /// assert!(matches!(workspace.resolve("../etc/passwd"), Err(PathError::ParentTraversal(_))));
    /// assert!(matches!(workspace.resolve("/etc/passwd"), Err(PathError::Absolute(_))));
    /// ```
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let joined = self.join(path)?;
        match std::fs::canonicalize(&joined) {
            Ok(real) => self.inside(path, real),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                // A dangling symbolic link is "not found" too; say so only if it points inside.
                self.check_existing_prefix(path, &joined)?;
                Err(PathError::NotFound(path.to_owned()))
            }
            Err(error) => Err(PathError::Io {
                path: path.to_owned(),
                message: error.to_string(),
            }),
        }
    }

    /// The path of something that may not exist yet (to create), inside the workspace. Its
    /// deepest existing ancestor is canonicalized and checked; the rest is new.
    ///
    /// # Errors
    ///
    /// As [`resolve`](Self::resolve).
    pub fn resolve_new(&self, path: &str) -> Result<PathBuf, PathError> {
        let joined = self.join(path)?;
        match std::fs::symlink_metadata(&joined) {
            // It exists (possibly as a symbolic link): resolve it like any existing path.
            Ok(_) => self.resolve(path),
            Err(_) => {
                let (existing, rest) = self.check_existing_prefix(path, &joined)?;
                Ok(rest.iter().fold(existing, |at, part| at.join(part)))
            }
        }
    }

    /// The deepest existing ancestor of `joined`, canonical and inside the root, and the
    /// components after it.
    fn check_existing_prefix(
        &self,
        path: &str,
        joined: &Path,
    ) -> Result<(PathBuf, Vec<OsString>), PathError> {
        let mut existing = joined.to_path_buf();
        let mut rest = Vec::new();
        while std::fs::symlink_metadata(&existing).is_err() {
            match (existing.file_name(), existing.parent()) {
                (Some(name), Some(parent)) => {
                    rest.push(name.to_os_string());
                    existing = parent.to_path_buf();
                }
                _ => break,
            }
        }
        rest.reverse();
        let real = match std::fs::canonicalize(&existing) {
            Ok(real) => real,
            // A dangling symbolic link: where it points decides the message.
            Err(_)
                if std::fs::symlink_metadata(&existing)
                    .is_ok_and(|m| m.file_type().is_symlink()) =>
            {
                let target = std::fs::read_link(&existing).unwrap_or_default();
                let inside = target.is_relative()
                    && !target.components().any(|c| c == Component::ParentDir)
                    || target.starts_with(&self.root);
                return Err(if inside {
                    PathError::NotFound(path.to_owned())
                } else {
                    PathError::OutsideRoot(path.to_owned())
                });
            }
            Err(error) => {
                return Err(PathError::Io {
                    path: path.to_owned(),
                    message: error.to_string(),
                });
            }
        };
        Ok((self.inside(path, real)?, rest))
    }

    fn inside(&self, path: &str, real: PathBuf) -> Result<PathBuf, PathError> {
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(PathError::OutsideRoot(path.to_owned()))
        }
    }

    /// The root joined with a checked relative path, without touching the file system.
    fn join(&self, path: &str) -> Result<PathBuf, PathError> {
        if path.contains('\0') {
            return Err(PathError::NulByte);
        }
        if path.trim().is_empty() {
            return Err(PathError::Empty);
        }
        if path.len() > MAX_PATH_BYTES {
            return Err(PathError::TooLong(path.len()));
        }
        if path.starts_with('~') {
            return Err(PathError::HomeRelative(path.to_owned()));
        }
        let bytes = path.as_bytes();
        let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
        if path.starts_with('/') || path.starts_with('\\') || drive {
            return Err(PathError::Absolute(path.to_owned()));
        }
        let mut joined = self.root.clone();
        for part in path.split(['/', '\\']) {
            if part.len() > MAX_COMPONENT_BYTES {
                return Err(PathError::TooLong(path.len()));
            }
            if !part.is_empty() && part.trim().is_empty() {
                return Err(PathError::BlankName(path.to_owned()));
            }
            match Path::new(part).components().next() {
                None | Some(Component::CurDir) => {}
                Some(Component::ParentDir) => {
                    return Err(PathError::ParentTraversal(path.to_owned()));
                }
                Some(Component::Normal(name)) => joined.push(name),
                Some(Component::RootDir | Component::Prefix(_)) => {
                    return Err(PathError::Absolute(path.to_owned()));
                }
            }
        }
        Ok(joined)
    }

    /// `real` relative to the root, for messages and listings (`.` for the root).
    pub fn relative(&self, real: &Path) -> String {
        match real.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
            Ok(relative) => relative.to_string_lossy().replace('\\', "/"),
            Err(_) => real.display().to_string(),
        }
    }
}
