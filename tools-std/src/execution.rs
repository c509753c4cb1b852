//! Running programs: no shell unless asked and allowed, inside the workspace, with a cleared
//! environment, capped output, and a timeout that kills the whole process group.

use std::process::Stdio;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tool_runtime::{Json, ToolContext, ToolError, tool};

use crate::workspace;

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
}

/// The arguments of `run_command`, for its preview.
#[derive(Deserialize)]
struct RunArgs {
    program: String,
    args: Option<Vec<String>>,
    cwd: Option<String>,
    shell: Option<bool>,
}

/// What `run_command` would run, and where.
pub fn run_command_preview(
    _ctx: &ToolContext,
    args: &serde_json::Map<String, serde_json::Value>,
) -> Result<String, ToolError> {
    let args: RunArgs = serde_json::from_value(serde_json::Value::Object(args.clone()))?;
    let cwd = args.cwd.unwrap_or_else(|| ".".to_owned());
    Ok(if args.shell.unwrap_or(false) {
        format!("run the shell script `{}` in `{cwd}`", args.program)
    } else {
        let line: Vec<String> = std::iter::once(args.program)
            .chain(args.args.unwrap_or_default())
            .collect();
        format!("run `{}` in `{cwd}`", line.join(" "))
    })
}

/// Run a program in the workspace and return its exit status and output. The program must be
/// one the workspace allows; it runs without a shell (arguments are passed as they are, no
/// globbing or pipes) unless `shell` is true and the workspace allows shells. The environment
/// is cleared except for a few variables (PATH, HOME, LANG, ...). Output is cut at a limit;
/// the command is killed, with everything it started, when it runs out of time.
#[tool(safety = "dangerous", categories(execution), tags("process", "shell"), preview = run_command_preview)]
pub async fn run_command(
    ctx: &ToolContext,
    /// The program to run, e.g. `cargo` (or, with `shell: true`, a shell script)
    program: String,
    /// Its arguments, one per element
    args: Option<Vec<String>>,
    /// Working directory relative to the workspace root (default: the root)
    cwd: Option<String>,
    /// Seconds before the command is killed (default and maximum set by the workspace)
    timeout_secs: Option<u64>,
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
                 `Workspace::allow_commands([...])`, or `toolbox --allow-command NAME`)"
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
    command
        .current_dir(&cwd_path)
        .env_clear()
        .envs(ws.command_env())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group, so a timeout kills everything the command started.
    #[cfg(unix)]
    command.process_group(0);

    let (default_timeout, max_timeout) = ws.timeouts();
    let timeout = timeout_secs
        .map(|secs| Duration::from_secs(secs).min(max_timeout))
        .unwrap_or(default_timeout);
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| {
        ToolError::new(format!(
            "cannot start `{program}`: {e} (is it installed and on PATH?)"
        ))
    })?;
    let group = child.id();
    if let (Some(text), Some(mut input)) = (stdin, child.stdin.take()) {
        // Written on its own task so a command that does not read stdin cannot block us.
        tokio::spawn(async move {
            let _ = input.write_all(text.as_bytes()).await;
        });
    }
    let limit = ws.output_limit();
    let stdout = tokio::spawn(read_capped(child.stdout.take(), limit));
    let stderr = tokio::spawn(read_capped(child.stderr.take(), limit));

    let mut timed_out = false;
    let status = tokio::select! {
        status = child.wait() => status.ok(),
        () = tokio::time::sleep(timeout) => {
            timed_out = true;
            kill_group(group);
            child.wait().await.ok()
        }
        () = ctx.cancelled() => {
            kill_group(group);
            child.wait().await.ok();
            return Err(ToolError::new(format!("`{program}` was cancelled and killed")));
        }
    };
    let (stdout, stdout_truncated) = stdout.await.unwrap_or_default();
    let (stderr, stderr_truncated) = stderr.await.unwrap_or_default();
    let exit_code = status.and_then(|s| s.code());
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
    }))
}

/// Kills the process group led by `pid` (the command and everything it started).
fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid
        .and_then(|pid| i32::try_from(pid).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Reads a stream to its end, keeping at most `limit` bytes (the rest is drained so the
/// command never blocks on a full pipe).
async fn read_capped(stream: Option<impl AsyncRead + Unpin>, limit: usize) -> (String, bool) {
    let Some(mut stream) = stream else {
        return (String::new(), false);
    };
    let mut kept = Vec::new();
    let mut buffer = [0_u8; 8192];
    let mut truncated = false;
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = limit.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..n.min(room)]);
                truncated |= n > room;
            }
        }
    }
    (String::from_utf8_lossy(&kept).into_owned(), truncated)
}
