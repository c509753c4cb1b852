//! Running programs: no shell unless asked and allowed, inside the workspace, confined by the
//! kernel (Landlock, seccomp, namespaces: see the `confine` module), with a cleared
//! environment, capped output, and a timeout that ends everything the command started.

use std::num::NonZeroU64;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;
use toolwright_core::{ApprovalNeed, Json, ToolContext, ToolError, tool};

use crate::confine::{self, Confinement};
use crate::quarantine::GitEntries;
use crate::workspace::workspace;

/// How long a stopped command's supervisor has to kill everything and exit before it is
/// killed itself.
const STOP_GRACE: Duration = Duration::from_millis(500);
/// How long the output pipes may stay open once the command has exited; then what they hold
/// is read without waiting, and they are dropped.
const PIPE_GRACE: Duration = Duration::from_millis(250);
/// The most bytes read from a pipe, without waiting, after [`PIPE_GRACE`].
const DRAIN_LIMIT: usize = 4 * 1024 * 1024;

/// What a command did.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CommandOutput {
    /// The program (or shell script) that ran.
    pub command: String,
    /// Its exit code, when it exited on its own.
    pub exit_code: Option<i32>,
    /// Whether it exited with code 0.
    pub success: bool,
    /// Whether it ran out of time and was killed.
    pub timed_out: bool,
    /// Its standard output (UTF-8, lossy), up to the workspace's limit.
    pub stdout: String,
    /// Its standard error, up to the limit.
    pub stderr: String,
    /// Whether stdout was cut at the limit.
    pub stdout_truncated: bool,
    /// Whether stderr was cut at the limit.
    pub stderr_truncated: bool,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// Whether the kernel confined it (its own view of the file system, no capabilities,
    /// Landlock, the system-call policy); false only where the workspace allows unconfined
    /// commands and the kernel cannot confine them.
    pub confined: bool,
    /// The git repositories the command left in the workspace (a `.git`, or a directory
    /// that is a repository by its content, such as a bare one; either would run its
    /// configuration when a person next uses git there), moved into quarantine. Absent
    /// when there were none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quarantined: Vec<crate::quarantine::Quarantined>,
}

/// What `run_command` would run, and where, on one line whatever the arguments hold. Takes
/// `run_command`'s parameters, read once for both.
///
/// Each word is shown as [`shown_word`] writes it: an argument with a newline, a space, a
/// bidirectional control or an invisible character is quoted and escaped, so the words the
/// person reads are the words that run, and no argument can start a line of its own. A shell
/// script is shown escaped the same way (its newlines as `\n`).
pub fn run_command_preview(
    _ctx: &ToolContext,
    program: &str,
    args: &Option<Vec<String>>,
    cwd: &Option<String>,
    _timeout_secs: &Option<NonZeroU64>,
    _stdin: &Option<String>,
    shell: &Option<bool>,
) -> Result<String, ToolError> {
    let cwd = shown_word(cwd.as_deref().unwrap_or("."));
    Ok(if shell.unwrap_or(false) {
        format!(
            "run the shell script `{}` in `{cwd}`",
            toolwright_names::escape::escape(program)
        )
    } else {
        let line: Vec<String> = std::iter::once(program)
            .chain(args.iter().flatten().map(String::as_str))
            .map(shown_word)
            .collect();
        format!("run `{}` in `{cwd}`", line.join(" "))
    })
}

/// One word of a command line as a preview shows it: as it is when it is plain (not empty,
/// no white space, quotes, backticks, backslashes, or characters
/// [`toolwright_names::escape::escape_class`] flags), else between single quotes, with `'` and `\`
/// written `\'` and `\\` and flagged characters as Rust escapes (`\n`, `\u{202e}`).
///
/// ```
/// use toolwright_std::execution::shown_word;
///
/// assert_eq!(shown_word("--release"), "--release");
/// assert_eq!(shown_word("a b"), "'a b'");
/// assert_eq!(shown_word("x\nrm -rf ~"), "'x\\nrm -rf ~'");
/// assert_eq!(shown_word("\u{202e}txt"), "'\\u{202e}txt'");
/// assert_eq!(shown_word(""), "''");
/// ```
pub fn shown_word(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.chars().any(|c| {
            c.is_whitespace()
                || matches!(c, '\'' | '"' | '`' | '\\')
                || toolwright_names::escape::must_escape(c)
        });
    if plain {
        return word.to_owned();
    }
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if toolwright_names::escape::must_escape(c) => {
                toolwright_names::escape::write_rust_escape(c, &mut out);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Whether a `run_command` call needs approval: not when the program and the start of its
/// arguments match an entry of the workspace's
/// [`run_without_approval`](crate::workspace::Workspace::run_without_approval) list, and never for a
/// shell script. Takes `run_command`'s parameters.
pub fn run_command_approval(
    ctx: &ToolContext,
    program: &str,
    args: &Option<Vec<String>>,
    _cwd: &Option<String>,
    _timeout_secs: &Option<NonZeroU64>,
    _stdin: &Option<String>,
    shell: &Option<bool>,
) -> Result<ApprovalNeed, ToolError> {
    let args = args.as_deref().unwrap_or_default();
    Ok(workspace(ctx)?.command_approval(program, args, shell.unwrap_or(false)))
}

/// Run a program in the workspace and return its exit status and output. The program must be
/// one the workspace allows; it runs without a shell (arguments are passed as they are, no
/// globbing or pipes) unless `shell` is true and the workspace allows shells. The environment
/// is cleared except for a few variables (PATH, HOME, LANG, ...). The kernel confines it: it
/// can write only the workspace (not `.git`, unless allowed) and its own temporary directory
/// (`$TMPDIR`), read only those and the system, and has no network unless allowed. Output is
/// cut at a limit; the command is killed, with everything it started, when it runs out of
/// time.
#[tool(
    safety = "dangerous",
    categories(execution),
    tags("process", "shell"),
    preview = run_command_preview,
    approval = run_command_approval
)]
pub async fn run_command(
    ctx: &ToolContext,
    /// The program to run, e.g. `cargo` (or, with `shell: true`, a shell script)
    program: String,
    /// Its arguments, one per element
    args: Option<Vec<String>>,
    /// Working directory relative to the workspace root (default: the root)
    cwd: Option<String>,
    /// Seconds before the command is killed, at least 1 (default and maximum set by the
    /// workspace; a larger number counts as the maximum)
    timeout_secs: Option<NonZeroU64>,
    /// Text to write to the command's standard input
    stdin: Option<String>,
    /// Run `program` as a `sh -c` script (only if the workspace allows shells)
    shell: Option<bool>,
) -> Result<Json<CommandOutput>, ToolError> {
    let ws = workspace(ctx)?;
    let shell = shell.unwrap_or(false);
    let args = args.unwrap_or_default();
    let mut command = if shell {
        if !ws.shell_allowed() {
            return Err(ToolError::new(
                "shell scripts are not allowed in this workspace; run a program with its arguments \
                 instead (`shell: false`), or ask for `Workspace::allow_shell(true)`",
            ));
        }
        if !args.is_empty() {
            return Err(ToolError::new(
                "with `shell: true`, put the whole script in `program` and leave `args` empty",
            ));
        }
        let mut command = tokio::process::Command::new("sh");
        command.arg("-c").arg(&program);
        command
    } else {
        let allowed = ws.allowed_commands();
        if !allowed.contains(&program) {
            let list = if allowed.is_empty() {
                "no programs are allowed in this workspace (the application allows them with \
                 `Workspace::allow_commands([...])`, or `toolwright --allow-command NAME`)"
                    .to_owned()
            } else {
                format!(
                    "the allowed programs are {}",
                    allowed
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(ToolError::new(format!(
                "`{program}` is not an allowed program: {list}"
            )));
        }
        let mut command = tokio::process::Command::new(&program);
        command.args(&args);
        command
    };
    let cwd_path = ws.resolve(cwd.as_deref().unwrap_or("."))?;
    if !cwd_path.is_dir() {
        return Err(ToolError::new(format!(
            "`{}` is not a directory",
            cwd.unwrap_or_default()
        )));
    }
    // The `.git` entries as they are: bound read-only for the command, and what it leaves
    // beside them is moved into quarantine afterwards.
    let git_before = (!ws.git_writes_allowed()).then(|| GitEntries::scan(ws.root()));
    let protected = git_before
        .as_ref()
        .map(GitEntries::protectable)
        .unwrap_or_default();
    let mut confinement = Confinement::prepare(ws, &cwd_path, &protected)?;
    let env = ws.command_env();
    // The user's ~/.gitconfig is out of reach (it may hold tokens), and git refuses to work
    // in a repository when it cannot read it: it reads none instead.
    let hide_git_config =
        confinement.confined() && !env.iter().any(|(name, _)| name == "GIT_CONFIG_GLOBAL");
    command
        .current_dir(&cwd_path)
        .env_clear()
        .envs(env)
        .env("TMPDIR", confinement.temp_dir())
        .envs(confinement.proxy_env())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Dropped unfinished, `Running` stops it (the supervisor kills everything).
        .kill_on_drop(false);
    if hide_git_config {
        command.env("GIT_CONFIG_GLOBAL", "/dev/null");
    }
    // Its own process group (on Linux, the supervisor's; the command gets another).
    #[cfg(unix)]
    command.process_group(0);
    confinement.install(command.as_std_mut());

    let (default_timeout, max_timeout) = ws.timeouts();
    let timeout = timeout_secs
        .map(|secs| Duration::from_secs(secs.get()).min(max_timeout))
        .unwrap_or(default_timeout);
    let started = Instant::now();
    let spawned = command.spawn();
    // The rules and descriptors prepared for the child are no longer needed.
    drop(command);
    let mut child = Running(spawned.map_err(|e| {
        let hint = if e.raw_os_error() == Some(libc_enetunreach()) && ws.egress().is_some() {
            "named hosts only (`network_hosts`, `--allow-network-host`) needs a network \
             namespace of the command's own, which this kernel did not give; the command was \
             not started"
        } else if e.kind() == std::io::ErrorKind::PermissionDenied && confinement.confined() {
            "commands may only run programs from the system directories (/usr, /bin, /opt, \
             ...), the Rust toolchain and the workspace"
        } else {
            "is it installed and on PATH?"
        };
        ToolError::new(format!("cannot start `{program}`: {e} ({hint})"))
    })?);
    // Tasks, aborted when the call ends (or is dropped).
    let _input = match (stdin, child.0.stdin.take()) {
        // Written on its own task so a command that does not read stdin cannot block us.
        (Some(text), Some(mut input)) => Some(Task(tokio::spawn(async move {
            let _ = input.write_all(text.as_bytes()).await;
        }))),
        _ => None,
    };
    let output = Output::read(&mut child, ws.output_limit());

    let mut timed_out = false;
    let status = tokio::select! {
        status = child.0.wait() => status.ok(),
        () = tokio::time::sleep(timeout) => {
            timed_out = true;
            child.stop().await
        }
        () = ctx.cancelled() => {
            child.stop().await;
            return Err(ToolError::new(format!("`{program}` was cancelled and killed")));
        }
    };
    let Ended {
        stdout,
        stdout_truncated,
        stderr,
        stderr_truncated,
        exit_code,
        confined,
        quarantined,
    } = output.end(status, confinement, git_before, ws).await;
    Ok(Json(CommandOutput {
        command: if shell {
            format!("sh -c {program:?}")
        } else {
            std::iter::once(program)
                .chain(args)
                .collect::<Vec<_>>()
                .join(" ")
        },
        exit_code,
        success: exit_code == Some(0) && !timed_out,
        timed_out,
        stdout,
        stderr,
        stdout_truncated,
        stderr_truncated,
        duration_ms: started.elapsed().as_millis() as u64,
        confined,
        quarantined,
    }))
}

/// A command's output pipes, each read on its own task (aborted when dropped) and kept to
/// a limit. Shared by `run_command` and code mode's `run_code`.
pub(crate) struct Output {
    stdout: Task<(String, bool)>,
    stderr: Task<(String, bool)>,
    stop_reading: watch::Sender<bool>,
}

/// What a command left once it ended: its output, how it exited, and what was done after.
pub(crate) struct Ended {
    pub(crate) stdout: String,
    pub(crate) stdout_truncated: bool,
    pub(crate) stderr: String,
    pub(crate) stderr_truncated: bool,
    pub(crate) exit_code: Option<i32>,
    /// Whether the command ran confined.
    pub(crate) confined: bool,
    /// The `.git` entries it left, moved into quarantine.
    pub(crate) quarantined: Vec<crate::quarantine::Quarantined>,
}

impl Output {
    /// Starts reading `child`'s standard output and error, at most `limit` bytes of each.
    pub(crate) fn read(child: &mut Running, limit: usize) -> Output {
        let (stop_reading, reading) = watch::channel(false);
        Output {
            stdout: Task(tokio::spawn(read_capped(
                child.0.stdout.take(),
                limit,
                reading.clone(),
            ))),
            stderr: Task(tokio::spawn(read_capped(
                child.0.stderr.take(),
                limit,
                reading,
            ))),
            stop_reading,
        }
    }

    /// Once the command exited (`status`, if it did) or was stopped: its output, then its
    /// temporary directory removed (with `confinement`), then the `.git` entries it left
    /// beside `git_before` moved into quarantine.
    pub(crate) async fn end(
        mut self,
        status: Option<ExitStatus>,
        confinement: Confinement,
        git_before: Option<GitEntries>,
        ws: &crate::workspace::Workspace,
    ) -> Ended {
        // Everything the command started is gone (but without a PID namespace, a
        // descendant that left its process group): what holds the pipes now is read
        // without waiting.
        let readers = async { ((&mut self.stdout.0).await, (&mut self.stderr.0).await) };
        tokio::pin!(readers);
        let (stdout, stderr) = match tokio::time::timeout(PIPE_GRACE, &mut readers).await {
            Ok(read) => read,
            Err(_) => {
                let _ = self.stop_reading.send(true);
                readers.await
            }
        };
        let (stdout, stdout_truncated) = stdout.unwrap_or_default();
        let (stderr, stderr_truncated) = stderr.unwrap_or_default();
        let confined = confinement.confined();
        // Removes the command's temporary directory.
        drop(confinement);
        let quarantined = git_before
            .map(|before| before.sweep(ws.root(), &ws.quarantine()))
            .unwrap_or_default();
        Ended {
            stdout,
            stdout_truncated,
            stderr,
            stderr_truncated,
            exit_code: status.and_then(|s| s.code()),
            confined,
            quarantined,
        }
    }
}

/// A task aborted when dropped.
pub(crate) struct Task<T>(pub(crate) tokio::task::JoinHandle<T>);

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The spawned process (on Linux, the command's supervisor), stopped if it is dropped before
/// it was waited for: a call dropped unfinished (an executor's time limit) still ends
/// everything the command started.
pub(crate) struct Running(pub(crate) tokio::process::Child);

impl Running {
    /// Stops the command and everything it started, and waits for it.
    pub(crate) async fn stop(&mut self) -> Option<ExitStatus> {
        if let Some(pid) = self.0.id() {
            confine::stop(pid);
        }
        match tokio::time::timeout(STOP_GRACE, self.0.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => {
                if let Some(pid) = self.0.id() {
                    confine::kill(pid);
                }
                self.0.wait().await.ok()
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // `id()` is `None` once the process was waited for.
        if let Some(pid) = self.0.id() {
            confine::stop(pid);
        }
    }
}

/// Reads a stream to its end, keeping at most `limit` bytes (the rest is drained so the
/// command never blocks on a full pipe). When `stop` turns true, reads what the pipe holds
/// without waiting, and returns.
async fn read_capped(
    stream: Option<impl Pipe>,
    limit: usize,
    mut stop: watch::Receiver<bool>,
) -> (String, bool) {
    let Some(mut stream) = stream else {
        return (String::new(), false);
    };
    let mut kept = Vec::new();
    let mut buffer = [0_u8; 8192];
    let mut truncated = false;
    let mut keep = |bytes: &[u8]| {
        let room = limit.saturating_sub(kept.len());
        kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        truncated |= bytes.len() > room;
    };
    loop {
        tokio::select! {
            read = stream.read(&mut buffer) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => keep(&buffer[..n]),
            },
            _ = stop.wait_for(|stop| *stop) => {
                let mut drained = 0;
                while drained < DRAIN_LIMIT {
                    match stream.read_now(&mut buffer) {
                        0 => break,
                        n => {
                            keep(&buffer[..n]);
                            drained += n;
                        }
                    }
                }
                break;
            }
        }
    }
    (String::from_utf8_lossy(&kept).into_owned(), truncated)
}

/// A command's output pipe.
pub(crate) trait Pipe: AsyncRead + Unpin {
    /// Reads what the pipe holds now, without waiting: 0 when it is empty or closed.
    fn read_now(&self, buffer: &mut [u8]) -> usize;
}

macro_rules! pipe {
    ($type:ty) => {
        impl Pipe for $type {
            fn read_now(&self, buffer: &mut [u8]) -> usize {
                // Tokio's pipes are non-blocking, so this returns at once.
                #[cfg(unix)]
                return rustix::io::read(std::os::fd::AsFd::as_fd(self), buffer).unwrap_or(0);
                #[cfg(not(unix))]
                {
                    let _ = buffer;
                    0
                }
            }
        }
    };
}
pipe!(tokio::process::ChildStdout);
pipe!(tokio::process::ChildStderr);

/// `ENETUNREACH`: what the confinement answers when a command that may reach named hosts
/// gets no network namespace (the same number on every architecture Linux's generic
/// `errno.h` serves).
fn libc_enetunreach() -> i32 {
    101
}
