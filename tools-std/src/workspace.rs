//! The directory the file and command tools work in, and the rule that no path leaves it.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use toolwright_core::{ApprovalNeed, ToolContext, ToolError};

use crate::egress::Egress;

/// `EXDEV`: what `openat2` with `RESOLVE_BENEATH` answers for a path that leaves the root.
const EXDEV: i32 = 18;
/// Most symbolic links followed in one path, as Linux's `MAXSYMLINKS`.
const MAX_LINK_HOPS: usize = 40;

/// Longest path a tool accepts, in bytes.
const MAX_PATH_BYTES: usize = 4096;
/// Longest single path component, in bytes (the usual file system limit).
const MAX_COMPONENT_BYTES: usize = 255;

/// Environment variables a command keeps by default; everything else is cleared.
/// The longest a command may run unless [`Workspace::command_timeout`] says otherwise:
/// a model's own `timeout` argument is cut to it. Front ends that offer a bound of their
/// own (the CLI's `--code-mode-timeout`) check against it rather than repeat it.
///
/// ```
/// use std::time::Duration;
///
/// assert_eq!(toolwright_std::DEFAULT_MAX_COMMAND_TIMEOUT, Duration::from_secs(300));
/// ```
pub const DEFAULT_MAX_COMMAND_TIMEOUT: Duration = Duration::from_secs(300);

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

/// A glob given to [`Workspace::writable_without_approval`] that is not a valid glob.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let err = toolwright_std::Workspace::new(dir.path()).unwrap()
///     .writable_without_approval(["docs/[a"]).unwrap_err();
/// assert!(err.to_string().starts_with("`docs/[a` is not a valid glob"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{glob}` is not a valid glob for `Workspace::writable_without_approval`: {message}; globs are \
     matched against paths relative to the workspace root, like `docs/**` or `*.md`"
)]
pub struct GlobError {
    glob: String,
    message: String,
}

/// The directory the file and command tools are confined to, with the limits they work
/// within. An application puts one into the executor's state:
///
/// ```
/// use std::sync::Arc;
/// use toolwright_runtime::{Executor, register_all_tools};
/// use toolwright_std::Workspace;
///
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = Workspace::new(dir.path()).unwrap().allow_commands(["ls", "cargo"]);
/// let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
///     .state(workspace)
///     .build();
/// # let _ = executor;
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    dir: Arc<Dir>,
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
    allow_network: bool,
    /// Named hosts only (`network_hosts`), when the network is not allowed whole.
    egress: Option<Egress>,
    allow_git_writes: bool,
    quarantine: Option<PathBuf>,
    allow_unconfined: bool,
    /// The resource limits of each command (`None`: the defaults).
    command_limits: Option<crate::limits::Limits>,
    /// `writable_without_approval`'s globs as given, and compiled.
    write_globs: Vec<String>,
    writable: GlobSet,
    /// `run_without_approval`'s entries, each split into its words (program first).
    free_commands: Vec<Vec<String>>,
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
        // The one place a path is opened by name: from here on, every access is relative to
        // this handle, so renaming or replacing the root's ancestors changes nothing.
        let dir = Dir::open_ambient_dir(&root, ambient_authority()).map_err(fail)?;
        Ok(Workspace {
            root,
            dir: Arc::new(dir),
            max_read_bytes: 256 * 1024,
            max_write_bytes: 10 * 1024 * 1024,
            max_entries: 1000,
            max_matches: 200,
            max_output_bytes: 64 * 1024,
            command_timeout: Duration::from_secs(30),
            max_command_timeout: DEFAULT_MAX_COMMAND_TIMEOUT,
            allowed_commands: BTreeSet::new(),
            allow_shell: false,
            env: DEFAULT_ENV.iter().map(|name| (*name).to_owned()).collect(),
            allow_network: false,
            egress: None,
            allow_git_writes: false,
            quarantine: None,
            allow_unconfined: false,
            command_limits: None,
            write_globs: Vec::new(),
            writable: GlobSet::empty(),
            free_commands: Vec::new(),
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

    /// Whether commands may open network connections; off by default (the kernel refuses
    /// TCP connections and the creation of IP sockets).
    pub fn allow_network(mut self, allow: bool) -> Self {
        self.allow_network = allow;
        self
    }

    /// Lets commands reach only the hosts of `egress` (an [`AllowList`](crate::egress::AllowList)
    /// or an [`Egress`]), through a proxy, and nothing else: each command gets no network of
    /// its own, and `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` point at a relay in its
    /// namespace to the proxy, which refuses unlisted hosts and private, loopback,
    /// link-local and metadata addresses unless listed (see the [`egress`](crate::egress)
    /// module). Ignored while [`allow_network`](Self::allow_network) is on; a command does
    /// not start when its proxy cannot.
    ///
    /// ```
    /// use toolwright_std::egress::AllowList;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let workspace = toolwright_std::Workspace::new(dir.path())?
    ///     .network_hosts(AllowList::parse(["pypi.org:443", "files.pythonhosted.org:443"])?);
    /// assert_eq!(workspace.network_hosts_allowed().map(|e| e.rules().len()), Some(2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn network_hosts(mut self, egress: impl Into<Egress>) -> Self {
        self.egress = Some(egress.into());
        self
    }

    /// The hosts commands may reach through the proxy, if [`network_hosts`](Self::network_hosts)
    /// was given.
    pub fn network_hosts_allowed(&self) -> Option<&crate::egress::AllowList> {
        self.egress.as_ref().map(Egress::allowed)
    }

    /// Whether commands may write inside `.git` directories (and other repositories, such as
    /// bare ones) of the workspace; off by default (they are read-only to commands, so a
    /// command cannot plant hooks or rewrite history, and one a command leaves behind is
    /// quarantined).
    pub fn allow_git_writes(mut self, allow: bool) -> Self {
        self.allow_git_writes = allow;
        self
    }

    /// Where a git repository that a command left in the workspace (a `.git`, or a directory
    /// that is one by its content, such as a bare one) is moved (each in a folder of its
    /// own, a `.git` renamed `dot-git`, its `HEAD` renamed `HEAD.quarantined`, so git no
    /// longer finds it), to be inspected by a person. By default
    /// `$XDG_STATE_HOME/tools-std/quarantine` (or `~/.local/state/...`). Where the move fails
    /// (another file system), it is renamed in place instead. Not used when
    /// [`allow_git_writes`](Self::allow_git_writes) is on.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let aside = tempfile::tempdir().unwrap();
    /// let workspace = toolwright_std::Workspace::new(dir.path()).unwrap().quarantine_dir(aside.path());
    /// assert_eq!(workspace.quarantine(), aside.path());
    /// ```
    pub fn quarantine_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.quarantine = Some(dir.into());
        self
    }

    /// The folder a repository that a command left behind is moved into (see
    /// [`quarantine_dir`](Self::quarantine_dir)).
    pub fn quarantine(&self) -> PathBuf {
        self.quarantine
            .clone()
            .unwrap_or_else(crate::quarantine::default_folder)
    }

    // `readable_by_commands` is in `confine`, beside the list of the commands' view that
    // answers it.

    /// Whether commands may run without kernel confinement where the kernel cannot confine
    /// them (no Landlock); off by default, so on such a kernel `run_command` refuses to run.
    pub fn allow_unconfined_commands(mut self, allow: bool) -> Self {
        self.allow_unconfined = allow;
        self
    }

    /// The memory, CPU, processes and writes of each command `run_command` starts,
    /// enforced by the kernel (see `toolwright_std::limits`); by default
    /// [`Limits::run_command_default`](crate::limits::Limits::run_command_default).
    ///
    /// ```
    /// use toolwright_std::limits::Limits;
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = toolwright_std::Workspace::new(dir.path())
    ///     .unwrap()
    ///     .limit_commands(Limits::none().memory(1 << 30).processes(256));
    /// assert_eq!(workspace.command_limits().processes_max(), Some(256));
    /// ```
    pub fn limit_commands(mut self, limits: crate::limits::Limits) -> Self {
        self.command_limits = Some(limits);
        self
    }

    /// The limits each command runs under.
    pub fn command_limits(&self) -> crate::limits::Limits {
        self.command_limits
            .unwrap_or_else(crate::limits::Limits::run_command_default)
    }

    /// Files `write_file` and `edit_file` may write without asking for approval: globs over
    /// the path relative to the root, after the workspace resolves it (`.` and empty names
    /// dropped, symbolic links inside the workspace followed to the file really written; `..`,
    /// absolute paths and links out of the workspace are refused before any glob is tried).
    /// Matching is case-sensitive, and `*` and `?` do not cross a `/`: `*.md` is the Markdown
    /// files at the root, `**/*.md` those anywhere, `docs/**` everything under `docs`. Writes
    /// elsewhere, and every write when no glob is given (the default), need approval as the
    /// tools' `dangerous` level says. Calling it again adds globs.
    ///
    /// # Errors
    ///
    /// A [`GlobError`] naming the first glob that is not valid.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::{ApprovalNeed, ToolContext, ToolState};
    /// use toolwright_std::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = Workspace::new(dir.path()).unwrap()
    ///     .writable_without_approval(["docs/**", "*.md"]).unwrap();
    /// let mut state = ToolState::new();
    /// state.insert(workspace);
    /// let ctx = ToolContext::new().with_state(state);
    /// let write_file = toolwright_std::registry().unwrap().get("write_file").unwrap();
    /// let approval = |path: &str| {
    ///     let args = json!({"path": path, "content": "x"}).as_object().unwrap().clone();
    ///     write_file.approval(&ctx, &args).unwrap()
    /// };
    /// assert_eq!(approval("docs/guide/intro.txt").unwrap(), ApprovalNeed::NotRequired);
    /// assert_eq!(approval("README.md").unwrap(), ApprovalNeed::NotRequired);
    /// assert_eq!(approval("src/main.rs").unwrap(), ApprovalNeed::Required);
    /// assert_eq!(approval("src/notes.md").unwrap(), ApprovalNeed::Required);
    /// assert!(approval("docs/../secret").is_err()); // refused, as the write itself would be
    /// ```
    pub fn writable_without_approval<I, S>(mut self, globs: I) -> Result<Self, GlobError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.write_globs.extend(globs.into_iter().map(Into::into));
        let mut set = GlobSetBuilder::new();
        for glob in &self.write_globs {
            let compiled = GlobBuilder::new(glob)
                .literal_separator(true)
                .case_insensitive(false)
                .build()
                .map_err(|error| GlobError {
                    glob: glob.clone(),
                    message: error.kind().to_string(),
                })?;
            set.add(compiled);
        }
        self.writable = set.build().map_err(|error| GlobError {
            glob: error.glob().unwrap_or_default().to_owned(),
            message: error.kind().to_string(),
        })?;
        Ok(self)
    }

    /// Commands `run_command` may run without asking for approval: read-only commands such
    /// as `ls`, `cat` or `git status`. An entry is split into words at whitespace. A
    /// one-word entry (`ls`) matches that program exactly as the model names it, with any
    /// arguments; a longer entry (`git status`) matches when the program is its first word
    /// and the arguments start with the rest, so `git status --short` matches but
    /// `git -c core.pager=x status` and `git push` do not. So list only commands that cannot
    /// change anything whatever options follow. Never a shell script (`shell: true`), never
    /// a path like `/bin/ls` or `./ls` unless listed as written. Any other command keeps the
    /// tool's `dangerous` level. A program here must still be allowed with
    /// [`allow_commands`](Self::allow_commands): this only lifts the approval. Calling it
    /// again adds entries.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::{ApprovalNeed, ToolContext, ToolState};
    /// use toolwright_std::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = Workspace::new(dir.path()).unwrap()
    ///     .allow_commands(["ls", "git"])
    ///     .run_without_approval(["ls", "git status"]);
    /// let mut state = ToolState::new();
    /// state.insert(workspace);
    /// let ctx = ToolContext::new().with_state(state);
    /// let run_command = toolwright_std::registry().unwrap().get("run_command").unwrap();
    /// let approval = |call: serde_json::Value| {
    ///     run_command.approval(&ctx, call.as_object().unwrap()).unwrap().unwrap()
    /// };
    /// assert_eq!(approval(json!({"program": "ls", "args": ["-la"]})), ApprovalNeed::NotRequired);
    /// assert_eq!(approval(json!({"program": "git", "args": ["status"]})), ApprovalNeed::NotRequired);
    /// assert_eq!(approval(json!({"program": "git", "args": ["push"]})), ApprovalNeed::Required);
    /// assert_eq!(approval(json!({"program": "ls", "shell": true})), ApprovalNeed::Required);
    /// ```
    pub fn run_without_approval<I, S>(mut self, commands: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for command in commands {
            let words: Vec<String> = command
                .into()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            if !words.is_empty() && !self.free_commands.contains(&words) {
                self.free_commands.push(words);
            }
        }
        self
    }

    /// Whether writing the file `path` names needs approval: not when the file really written
    /// (after the workspace's normalisation and links) matches a glob of
    /// [`writable_without_approval`](Self::writable_without_approval).
    pub(crate) fn write_approval(&self, path: &str) -> Result<ApprovalNeed, PathError> {
        if self.write_globs.is_empty() {
            return Ok(ApprovalNeed::Required);
        }
        // What `write_target` writes: the same resolution, links followed beneath the root.
        let relative = self.locate(path, true)?;
        if relative.as_os_str().is_empty() || !self.writable.is_match(&relative) {
            return Ok(ApprovalNeed::Required);
        }
        Ok(ApprovalNeed::NotRequired)
    }

    /// Whether running `program` with `args` (never a shell script) needs approval: not when
    /// an entry of [`run_without_approval`](Self::run_without_approval) matches.
    pub(crate) fn command_approval(
        &self,
        program: &str,
        args: &[String],
        shell: bool,
    ) -> ApprovalNeed {
        if shell {
            return ApprovalNeed::Required;
        }
        let free = self
            .free_commands
            .iter()
            .any(|entry| match entry.split_first() {
                Some((name, prefix)) => name == program && args.starts_with(prefix),
                None => false,
            });
        if free {
            ApprovalNeed::NotRequired
        } else {
            ApprovalNeed::Required
        }
    }

    pub(crate) fn network_allowed(&self) -> bool {
        self.allow_network
    }
    pub(crate) fn egress(&self) -> Option<&Egress> {
        self.egress.as_ref()
    }
    pub(crate) fn git_writes_allowed(&self) -> bool {
        self.allow_git_writes
    }
    pub(crate) fn unconfined_allowed(&self) -> bool {
        self.allow_unconfined
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

    /// The directory handle every file tool works through: paths are resolved beneath it by
    /// the kernel (`openat2` with `RESOLVE_BENEATH` on Linux), never by checking a path and
    /// opening it again by name.
    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The canonical path of something that exists inside the workspace, for messages and for
    /// handing to other programs (a command's working directory). It is resolved beneath the
    /// root through the workspace's directory handle, so no symbolic link leads out of it;
    /// the file tools themselves never open a path this returns.
    ///
    /// # Errors
    ///
    /// A [`PathError`] for every way out of the root: absolute paths, `..`, `~`, NUL bytes,
    /// overlong paths, and symbolic links (anywhere in the path) that lead outside.
    ///
    /// ```
    /// use toolwright_std::{PathError, Workspace};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("notes.txt"), "hi").unwrap();
    /// let workspace = Workspace::new(dir.path()).unwrap();
    /// assert!(workspace.resolve("notes.txt").is_ok());
    /// assert!(matches!(workspace.resolve("../etc/passwd"), Err(PathError::ParentTraversal(_))));
    /// assert!(matches!(workspace.resolve("/etc/passwd"), Err(PathError::Absolute(_))));
    /// ```
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let relative = self.locate(path, true)?;
        if relative.as_os_str().is_empty() {
            return Ok(self.root.clone());
        }
        match self.dir.canonicalize(&relative) {
            Ok(real) => Ok(self.root.join(real)),
            Err(error) => Err(self.path_error(path, error)),
        }
    }

    /// The path relative to the root that `path` names, checked without touching the file
    /// system (empty for the root itself). Only `/` separates names: a backslash or a colon
    /// is part of a name, as on every Unix file system.
    ///
    /// # Errors
    ///
    /// As [`resolve`](Self::resolve), except for what only the file system can tell.
    pub(crate) fn check(&self, path: &str) -> Result<PathBuf, PathError> {
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
        if path.starts_with('/') {
            return Err(PathError::Absolute(path.to_owned()));
        }
        let mut relative = PathBuf::new();
        for part in path.split('/') {
            if part.len() > MAX_COMPONENT_BYTES {
                return Err(PathError::TooLong(path.len()));
            }
            match part {
                "" | "." => {}
                ".." => return Err(PathError::ParentTraversal(path.to_owned())),
                _ if part.trim().is_empty() => {
                    return Err(PathError::BlankName(path.to_owned()));
                }
                _ => relative.push(part),
            }
        }
        Ok(relative)
    }

    /// The path relative to the root that `path` names, with the symbolic links along it
    /// replaced by what they point to (the last name only when `follow_last`), for opening
    /// beneath the root. Links are read through the directory handle; a link that points
    /// outside the root, absolute or with `..`, is refused, and one that points inside it,
    /// even by an absolute path, works. Resolution stops at the first name that does not
    /// exist. What this returns is still opened beneath the root by the kernel, so a link
    /// changed meanwhile can only make the open fail, never leave the root.
    pub(crate) fn locate(&self, path: &str, follow_last: bool) -> Result<PathBuf, PathError> {
        let relative = self.check(path)?;
        let mut pending: Vec<OsString> = relative
            .components()
            .rev()
            .map(|c| c.as_os_str().to_os_string())
            .collect();
        let mut resolved = PathBuf::new();
        let mut hops = 0;
        while let Some(name) = pending.pop() {
            if name == ".." {
                if !resolved.pop() {
                    return Err(PathError::OutsideRoot(path.to_owned()));
                }
                continue;
            }
            if name == "." {
                continue;
            }
            resolved.push(&name);
            if pending.is_empty() && !follow_last {
                break;
            }
            let Ok(metadata) = self.dir.symlink_metadata(&resolved) else {
                // Missing (or unreadable): the rest is for the open to report.
                resolved.extend(pending.drain(..).rev());
                break;
            };
            if !metadata.file_type().is_symlink() {
                continue;
            }
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return Err(PathError::Io {
                    path: path.to_owned(),
                    message: "too many levels of symbolic links".to_owned(),
                });
            }
            let target = self
                .dir
                .read_link_contents(&resolved)
                .map_err(|e| self.path_error(path, e))?;
            resolved.pop();
            if target.is_absolute() {
                let Ok(inside) = target.strip_prefix(&self.root) else {
                    return Err(PathError::OutsideRoot(path.to_owned()));
                };
                resolved = PathBuf::new();
                pending.extend(
                    inside
                        .components()
                        .rev()
                        .map(|c| c.as_os_str().to_os_string()),
                );
            } else {
                pending.extend(
                    target
                        .components()
                        .rev()
                        .map(|c| c.as_os_str().to_os_string()),
                );
            }
        }
        Ok(resolved)
    }

    /// What an I/O error met while resolving `path` beneath the root means to a model.
    pub(crate) fn path_error(&self, path: &str, error: std::io::Error) -> PathError {
        // cap-std reports an escape as "a path led outside of the filesystem"; the kernel's
        // `RESOLVE_BENEATH` as EXDEV; `RESOLVE_NO_MAGICLINKS` and too many links as ELOOP.
        let escaped = error.raw_os_error() == Some(EXDEV)
            || (error.kind() == std::io::ErrorKind::PermissionDenied
                && error.raw_os_error().is_none());
        if escaped {
            PathError::OutsideRoot(path.to_owned())
        } else if error.kind() == std::io::ErrorKind::NotFound {
            PathError::NotFound(path.to_owned())
        } else {
            PathError::Io {
                path: path.to_owned(),
                message: error.to_string(),
            }
        }
    }

    /// `real` relative to the root, for messages and listings (`.` for the root).
    pub fn relative(&self, real: &Path) -> String {
        match real.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
            Ok(relative) => crate::names::escape(relative.as_os_str()),
            Err(_) => real.display().to_string(),
        }
    }
}

/// The workspace from the executor's state, or a failure saying how to configure one.
pub(crate) fn workspace(ctx: &ToolContext) -> Result<&Workspace, ToolError> {
    ctx.state::<Workspace>().ok_or_else(|| {
        ToolError::new(
            "no workspace is configured, so file and command tools are unavailable; the \
             application adds one with `Executor::builder(..).state(toolwright_std::Workspace::new(root)?)` \
             (or `toolwright --root DIR`)",
        )
    })
}

impl From<PathError> for ToolError {
    fn from(error: PathError) -> Self {
        ToolError::from_error(error)
    }
}
