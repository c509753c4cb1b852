//! Code mode: `run_code` runs a short Python 3 program in the same confinement as
//! `run_command` (no network, the workspace only, the same limits), in which each tool
//! offered to the caller is a typed function. Every function call goes back over a channel
//! (a socket the program holds as its standard input, not the network) to this process,
//! which checks it and makes it through the executor: approvals, limits, timeouts, audit and
//! the offered set apply call by call, and the approval names the real tool.
//!
//! The executor lets `run_code` make calls only when its operator says so
//! ([`ExecutorBuilder::nested_calls_for`](toolwright_runtime::ExecutorBuilder::nested_calls_for));
//! without it the program runs with no tools. `run_code` runs at all only when the
//! executor's state holds a [`CodeMode`] (its switch and bounds).
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use toolwright_runtime::Executor;
//! use toolwright_std::Workspace;
//! use toolwright_std::code_mode::CodeMode;
//!
//! let registry = Arc::new(toolwright_std::registry()?);
//! let executor = Executor::builder(registry)
//!     .state(Workspace::new(std::env::temp_dir())?)
//!     .state(CodeMode::new().max_calls(20).timeout(Duration::from_secs(30)).max_output_bytes(64 * 1024))
//!     .nested_calls_for(["run_code"])
//!     .build();
//! # let _ = executor;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The layers, lowest first (no module imports one listed after it): stubs, channel. This
// file holds the configuration and the tool.
mod channel;
mod stubs;

use std::collections::HashSet;
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use toolwright_core::{Json, ToolContext, ToolError, tool};

pub use channel::ProgramCall;

use crate::confine::Confinement;
use crate::execution::{Ended, Output, Running};
use crate::quarantine::GitEntries;
use crate::workspace::workspace;

/// The most tool calls one program makes unless [`CodeMode::max_calls`] says otherwise.
pub const DEFAULT_MAX_CALLS: u32 = 50;
/// The most bytes of one request line from a program unless
/// [`CodeMode::max_request_bytes`] says otherwise: 1 MiB.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 1024 * 1024;
/// What the interpreter runs: it reads the module (the runtime, the stubs and the program)
/// as the channel's first line and runs it. Not a file: the program's `TMPDIR` is its own
/// (a `tmpfs` where the kernel gives one), and an argument is bounded in size.
const BOOTSTRAP: &str = "import json, os\n\
    line = b''\n\
    while not line.endswith(b'\\n'):\n\
    \x20   chunk = os.read(0, 1 << 16)\n\
    \x20   if not chunk:\n\
    \x20       raise SystemExit('toolwright: the channel closed before the module came')\n\
    \x20   line += chunk\n\
    exec(compile(json.loads(line)['module'], '<toolwright>', 'exec'))\n";

/// Where the Python 3 interpreter is looked for, in order, when [`CodeMode::python`] is not
/// set: the system's, which is in a confined program's view.
pub const PYTHON_CANDIDATES: [&str; 3] =
    ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"];

/// Code mode's switch and bounds: `run_code` runs only when the executor's state holds one
/// (the operator's word: the workspace's allow-list of programs does not name Python). The
/// program's time and output default to the workspace's command limits.
///
/// ```
/// use std::time::Duration;
/// use toolwright_std::code_mode::CodeMode;
///
/// let bounds = CodeMode::new().max_calls(20).timeout(Duration::from_secs(30)).max_output_bytes(64 * 1024);
/// assert_eq!(bounds.calls(), 20);
/// ```
#[derive(Debug, Clone)]
pub struct CodeMode {
    max_calls: u32,
    timeout: Option<Duration>,
    max_output_bytes: Option<usize>,
    max_request_bytes: usize,
    python: Option<PathBuf>,
}

impl Default for CodeMode {
    fn default() -> Self {
        CodeMode {
            max_calls: DEFAULT_MAX_CALLS,
            timeout: None,
            max_output_bytes: None,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            python: None,
        }
    }
}

impl CodeMode {
    /// The defaults: [`DEFAULT_MAX_CALLS`] calls, [`DEFAULT_MAX_REQUEST_BYTES`] per request,
    /// the workspace's command timeout and output limit.
    pub fn new() -> Self {
        CodeMode::default()
    }

    /// At most `calls` tool calls per program; past it a call is refused without running
    /// (the program sees a `ToolCallError`).
    pub fn max_calls(mut self, calls: u32) -> Self {
        self.max_calls = calls;
        self
    }

    /// The most tool calls per program.
    pub fn calls(&self) -> u32 {
        self.max_calls
    }

    /// The program's time, its tool calls included (at most the workspace's maximum command
    /// timeout); then it is killed with everything it started.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The most bytes kept of the program's standard output, and of its standard error.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = Some(bytes);
        self
    }

    /// The most bytes of one request line (a call and its arguments); a longer one is
    /// refused unread.
    pub fn max_request_bytes(mut self, bytes: usize) -> Self {
        self.max_request_bytes = bytes;
        self
    }

    /// The Python 3 interpreter (it must be in a confined program's view: under `/usr`,
    /// `/bin`, `/opt`, ...). Default: the first of [`PYTHON_CANDIDATES`] that exists.
    pub fn python(mut self, path: impl Into<PathBuf>) -> Self {
        self.python = Some(path.into());
        self
    }
}

/// What a program did.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CodeOutput {
    /// The value of the program's last line when it is an expression (as in a notebook),
    /// as JSON; absent otherwise, or when the program failed before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Its standard output (UTF-8, lossy), up to the limit.
    pub stdout: String,
    /// Its standard error (a traceback when it failed), up to the limit.
    pub stderr: String,
    /// Whether stdout was cut at the limit.
    pub stdout_truncated: bool,
    /// Whether stderr was cut at the limit.
    pub stderr_truncated: bool,
    /// Its exit code, when it exited on its own.
    pub exit_code: Option<i32>,
    /// Whether it exited with code 0 in time.
    pub success: bool,
    /// Whether it ran out of time and was killed.
    pub timed_out: bool,
    /// The tool calls it asked for, in order, each with how it ended.
    pub calls: Vec<ProgramCall>,
    /// How many of them reached the executor.
    pub calls_made: u32,
    /// How many requests were refused before the executor (not offered, over the bound,
    /// malformed).
    pub calls_refused: u32,
    /// The tools it was offered (their real names).
    pub tools_offered: Vec<String>,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// Whether the kernel confined it, as for `run_command`.
    pub confined: bool,
    /// The git repositories it left in the workspace, moved into quarantine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quarantined: Vec<crate::quarantine::Quarantined>,
}

/// What `run_code` would run: the program, escaped onto lines the person reads as they are,
/// and the tools it may call.
pub fn run_code_preview(
    ctx: &ToolContext,
    code: &str,
    _timeout_secs: &Option<NonZeroU64>,
) -> Result<String, ToolError> {
    let offered = offered_tools(ctx);
    let names: Vec<&str> = offered.iter().map(|t| t.name()).collect();
    let program: Vec<String> = code
        .lines()
        .map(|line| format!("    {}", toolwright_names::escape::escape(line)))
        .collect();
    Ok(format!(
        "run this Python program in the sandbox, each of its tool calls asking again under \
         that tool's own policy (tools it may call: {}):\n{}",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        },
        program.join("\n")
    ))
}

/// The tools a program of this call may call: those the caller was offered, minus
/// `run_code` itself (no recursion), and none when the executor gives no nested calls.
fn offered_tools(ctx: &ToolContext) -> Vec<toolwright_core::CatalogEntry> {
    match (ctx.nested_calls(), ctx.catalog()) {
        (Some(_), Some(catalog)) => catalog
            .list()
            .into_iter()
            .filter(|entry| entry.name() != ctx.tool_name())
            .collect(),
        _ => Vec::new(),
    }
}

fn python(bounds: &CodeMode) -> Result<PathBuf, ToolError> {
    match &bounds.python {
        Some(path) => Ok(path.clone()),
        None => PYTHON_CANDIDATES
            .iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
            .ok_or_else(|| {
                ToolError::new(format!(
                    "no Python 3 interpreter at {}; install python3, or set \
                     `CodeMode::python`",
                    PYTHON_CANDIDATES.join(", ")
                ))
            }),
    }
}

/// Run a short Python 3 program in the sandbox, in which each tool you were offered is a
/// function (`read_file(path=...)`, also `tools.read_file`; `call_tool(name, {...})` by
/// real name), so one program can make many tool calls and return only what matters. Each
/// call still goes through the same checks and approvals as a direct call, and raises
/// `ToolCallError` when it fails or is refused; structured results come back as dicts,
/// others as text. The value of the last line, when it is an expression, is returned as
/// `result`, with what the program printed. No network; the workspace is the working
/// directory; calls, time and output are bounded.
#[tool(
    safety = "dangerous",
    categories(execution),
    tags("process", "code"),
    preview = run_code_preview
)]
pub async fn run_code(
    ctx: &ToolContext,
    /// The Python 3 program
    code: String,
    /// Seconds before the program is killed, at least 1 (default and maximum set by the
    /// operator)
    timeout_secs: Option<NonZeroU64>,
) -> Result<Json<CodeOutput>, ToolError> {
    let ws = workspace(ctx)?;
    // Python in the sandbox is a program the workspace's allow-list did not name: it runs
    // only where the operator turned code mode on.
    let bounds = ctx.state::<CodeMode>().cloned().ok_or_else(|| {
        ToolError::new(
            "code mode is off here: `run_code` runs only when the application puts a \
             `CodeMode` in the executor's state (`.state(CodeMode::new())`, with \
             `.nested_calls_for([\"run_code\"])` to let programs call tools); use \
             `run_command` or call the tools one by one instead",
        )
    })?;
    let python = python(&bounds)?;
    let offered = offered_tools(ctx);
    let (source, _) = stubs::module(&offered, &code);
    let mut module = serde_json::json!({ "module": source })
        .to_string()
        .into_bytes();
    module.push(b'\n');

    let git_before = (!ws.git_writes_allowed()).then(|| GitEntries::scan(ws.root()));
    let protected = git_before
        .as_ref()
        .map(GitEntries::protectable)
        .unwrap_or_default();
    let mut confinement = Confinement::prepare(ws, ws.root(), &protected)?;
    let (ours, theirs) = std::os::unix::net::UnixStream::pair()
        .map_err(|e| ToolError::new(format!("cannot make the program's channel: {e}")))?;
    ours.set_nonblocking(true)
        .map_err(|e| ToolError::new(format!("cannot make the program's channel: {e}")))?;
    let mut ours = tokio::net::UnixStream::from_std(ours)
        .map_err(|e| ToolError::new(format!("cannot make the program's channel: {e}")))?;

    let mut command = tokio::process::Command::new(&python);
    // -I: no environment variables, user site or script directory on the path; -B: no
    // bytecode files left behind.
    command
        .arg("-I")
        .arg("-B")
        .arg("-c")
        .arg(BOOTSTRAP)
        .current_dir(ws.root())
        .env_clear()
        .envs(ws.command_env())
        .env("TMPDIR", confinement.temp_dir())
        // As for `run_command`: the egress proxy, when the workspace names hosts.
        .envs(confinement.proxy_env())
        .env("PYTHONIOENCODING", "utf-8")
        // The channel: the program's only way to the executor.
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(false);
    command.process_group(0);
    confinement.install(command.as_std_mut());

    let (default_timeout, max_timeout) = ws.timeouts();
    let timeout = timeout_secs
        .map(|secs| Duration::from_secs(secs.get()))
        .or(bounds.timeout)
        .unwrap_or(default_timeout)
        .min(max_timeout);
    let started = Instant::now();
    let spawned = command.spawn();
    // Our copy of the program's end of the channel closes here, so its exit ends the channel.
    drop(command);
    let mut child = Running(
        spawned.map_err(|e| ToolError::new(format!("cannot start `{}`: {e}", python.display())))?,
    );
    let limit = bounds.max_output_bytes.unwrap_or_else(|| ws.output_limit());
    let output = Output::read(&mut child, limit);

    let host = channel::Host {
        offered: offered
            .iter()
            .map(|t| t.name().to_owned())
            .collect::<HashSet<_>>(),
        calls: ctx.nested_calls().cloned(),
        max_calls: bounds.max_calls,
        max_request_bytes: bounds.max_request_bytes,
    };
    let mut transcript = channel::Transcript::default();
    let mut timed_out = false;
    let status = {
        let run = async {
            let channel = async {
                // The module is the channel's first line; nothing else is sent before the
                // program's first request, so the bootstrap reads exactly this line.
                if ours.write_all(&module).await.is_ok() {
                    channel::serve(ours, &host, &mut transcript).await;
                }
            };
            let (status, ()) = tokio::join!(child.0.wait(), channel);
            status.ok()
        };
        tokio::select! {
            status = run => status,
            () = tokio::time::sleep(timeout) => {
                timed_out = true;
                child.stop().await
            }
            () = ctx.cancelled() => {
                child.stop().await;
                return Err(ToolError::new("the program was cancelled and killed"));
            }
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
    Ok(Json(CodeOutput {
        result: transcript.result,
        stdout,
        stderr,
        stdout_truncated,
        stderr_truncated,
        exit_code,
        success: exit_code == Some(0) && !timed_out,
        timed_out,
        calls: transcript.calls,
        calls_made: transcript.made,
        calls_refused: transcript.refused,
        tools_offered: offered.iter().map(|t| t.name().to_owned()).collect(),
        duration_ms: started.elapsed().as_millis() as u64,
        confined,
        quarantined,
    }))
}
