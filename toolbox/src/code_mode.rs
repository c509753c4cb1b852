//! `--code-mode` (and `[serve.code_mode]` of a configuration): `run_code` offered and
//! allowed, with its bounds (the book, "Code mode"). Without it `run_code` is not in the
//! registry at all, so no list shows a tool that would only refuse.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use toolwright_core::SafetyLevel;
use toolwright_runtime::{ExecutorBuilder, ToolRegistry};
use toolwright_std::code_mode::{CodeMode, PYTHON_CANDIDATES};

/// The standard tool code mode turns on.
pub(crate) const RUN_CODE: &str = "run_code";

/// The longest a program may run: the workspace's maximum command timeout (the CLI keeps
/// `Workspace`'s default), which `run_code` never passes; a longer bound is refused rather
/// than silently cut.
const MAX_PROGRAM_SECONDS: u64 = toolwright_std::DEFAULT_MAX_COMMAND_TIMEOUT.as_secs();

/// Code mode's switch and bounds, as `serve` and `call` take them.
#[derive(Debug, Args)]
pub(crate) struct CodeModeArgs {
    /// Offer run_code: a Python program in run_command's sandbox in which each tool offered
    /// to the caller is a function whose calls go through the same policy, approvals
    /// included (see the book, "Code mode"). Without it run_code is not listed.
    #[arg(long)]
    pub(crate) code_mode: bool,
    /// With --code-mode, the most tool calls one program makes (default: 50); more are
    /// refused without running.
    #[arg(long, value_name = "N", requires = "code_mode",
        value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) code_mode_max_calls: Option<u32>,
    /// With --code-mode, seconds a program may run, its tool calls included (default: the
    /// command timeout, 30; at most 300, and at most --timeout).
    #[arg(long, value_name = "SECONDS", requires = "code_mode",
        value_parser = clap::value_parser!(u64).range(1..=MAX_PROGRAM_SECONDS))]
    pub(crate) code_mode_timeout: Option<u64>,
    /// With --code-mode, the most bytes kept of a program's stdout, and of its stderr, e.g.
    /// 64KiB (default: run_command's, 64KiB).
    #[arg(long, value_name = "SIZE", requires = "code_mode", value_parser = size)]
    pub(crate) code_mode_max_output_bytes: Option<usize>,
    /// With --code-mode, the most bytes of one call a program makes (its name and
    /// arguments), e.g. 256KiB (default: 1MiB); a longer one is refused unread.
    #[arg(long, value_name = "SIZE", requires = "code_mode", value_parser = size)]
    pub(crate) code_mode_max_request_bytes: Option<usize>,
    /// With --code-mode, the Python 3 interpreter: an absolute path, under a directory the
    /// sandbox shows (/usr, /bin, /opt, ...) (default: the first of /usr/bin/python3,
    /// /usr/local/bin/python3, /bin/python3).
    #[arg(long, value_name = "PATH", requires = "code_mode", value_parser = interpreter)]
    pub(crate) code_mode_python: Option<PathBuf>,
}

/// A size such as `64KiB` (a plain number is bytes), for clap.
fn size(text: &str) -> Result<usize, String> {
    let bytes = toolwright_std::limits::Limits::parse_size(text).map_err(|e| e.to_string())?;
    usize::try_from(bytes).map_err(|_| format!("`{text}` is more than this machine can address"))
}

/// An interpreter path that names a file, for clap: a typo is refused when the server
/// starts, not at the model's first program.
fn interpreter(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if !path.is_absolute() {
        return Err(format!(
            "`{text}` is not an absolute path; give the interpreter's full path, e.g. \
             /usr/bin/python3"
        ));
    }
    if !path.is_file() {
        return Err(format!("no file at `{text}`; is Python 3 installed there?"));
    }
    Ok(path)
}

impl CodeModeArgs {
    /// The bounds, when code mode is on; checked against the executor's timeout for each
    /// call (`call_timeout`, which bounds `run_code`'s own call): a program bound past it
    /// would be cut short by it, so it is refused, naming both. Likewise a ceiling
    /// (`max_safety`) under which `run_code`, a dangerous tool, could never be called.
    ///
    /// # Errors
    ///
    /// A ceiling below dangerous, a program timeout longer than `call_timeout`, or no
    /// Python 3 where it is looked for.
    pub(crate) fn bounds(
        &self,
        call_timeout: Option<Duration>,
        max_safety: Option<SafetyLevel>,
    ) -> Result<Option<CodeMode>, String> {
        if !self.code_mode {
            return Ok(None);
        }
        if let Some(level) = max_safety.filter(|level| *level < SafetyLevel::Dangerous) {
            return Err(format!(
                "--code-mode offers run_code, a dangerous tool, and --max-safety {level} \
                 serves no dangerous tool: drop one of them"
            ));
        }
        let mut bounds = CodeMode::new();
        if let Some(calls) = self.code_mode_max_calls {
            bounds = bounds.max_calls(calls);
        }
        if let Some(seconds) = self.code_mode_timeout {
            if let Some(call) = call_timeout.filter(|call| call.as_secs() < seconds) {
                return Err(format!(
                    "--code-mode-timeout {seconds} (`timeout` of `[serve.code_mode]`) is \
                     longer than --timeout {} (the bound of every call, run_code's included): \
                     the program would be stopped at {}s. Lower --code-mode-timeout, or raise \
                     --timeout",
                    call.as_secs(),
                    call.as_secs()
                ));
            }
            bounds = bounds.timeout(Duration::from_secs(seconds));
        }
        if let Some(bytes) = self.code_mode_max_output_bytes {
            bounds = bounds.max_output_bytes(bytes);
        }
        if let Some(bytes) = self.code_mode_max_request_bytes {
            bounds = bounds.max_request_bytes(bytes);
        }
        match &self.code_mode_python {
            Some(python) => bounds = bounds.python(python),
            None if !PYTHON_CANDIDATES
                .iter()
                .any(|path| std::path::Path::new(path).is_file()) =>
            {
                return Err(format!(
                    "--code-mode needs Python 3, and there is none at {}: install python3, or \
                     give its path with --code-mode-python",
                    PYTHON_CANDIDATES.join(", ")
                ));
            }
            None => {}
        }
        Ok(Some(bounds))
    }
}

/// `registry` as a command offers it: without code mode, `run_code` is taken out, so no
/// list, search or export shows a tool that would only refuse. Called before any upstream
/// is mounted, so only the standard tool of that name is removed.
pub(crate) fn offer(registry: &ToolRegistry, code_mode: bool) {
    if !code_mode {
        registry.remove(RUN_CODE);
    }
}

/// `executor` with code mode: `bounds` in its state (`run_code`'s switch) and nested calls
/// given to `run_code` alone, so a program's calls go back through this executor under the
/// caller's own options. The one place `serve` and `call` turn it on.
pub(crate) fn enable(executor: ExecutorBuilder, bounds: Option<CodeMode>) -> ExecutorBuilder {
    match bounds {
        Some(bounds) => executor.state(bounds).nested_calls_for([RUN_CODE]),
        None => executor,
    }
}

/// What to tell someone who asked for `name` where code mode is off, when `name` is
/// `run_code`.
pub(crate) fn off_hint(name: &str, code_mode: bool) -> Option<String> {
    (name == RUN_CODE && !code_mode).then(|| {
        format!("`{RUN_CODE}` is offered only with --code-mode (see the book, \"Code mode\")")
    })
}
