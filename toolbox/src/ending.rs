//! How a command ends: its outcome, a usage error or a stop, and the registry every command
//! reads.

/// A usage error: a message for the person at the terminal; exits with status 2.
#[derive(Debug)]
pub(crate) struct UsageError(pub(crate) String);

/// How a command ended.
pub(crate) enum Outcome {
    Success,
    ToolFailed,
}

/// Why a command stopped before its end.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Stop {
    /// The user's mistake: the message is printed, exit status 2.
    #[error("{0}")]
    Usage(String),
    /// Whoever read stdout went away (`toolwright list | head -1`): nobody wants the rest, so
    /// the command ends quietly with status 0, as ripgrep does.
    #[error("stdout was closed by its reader")]
    StdoutClosed,
    /// Writing the output failed otherwise (a full disk, say): exit status 1.
    #[error("cannot write the output to stdout: {0}; check where stdout goes (a full disk?)")]
    Output(std::io::Error),
}

impl From<UsageError> for Stop {
    fn from(UsageError(message): UsageError) -> Self {
        Stop::Usage(message)
    }
}

impl Stop {
    /// The stop for an error writing stdout: a closed pipe is quiet, anything else is not.
    pub(crate) fn writing_stdout(error: std::io::Error) -> Self {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            Stop::StdoutClosed
        } else {
            Stop::Output(error)
        }
    }
}

/// Writes to stdout, through one lock and buffer, and flushes. Everything toolwright prints on
/// stdout goes through here (except `serve`, where stdout is the MCP transport), so a reader
/// that goes away ends the command quietly instead of panicking like `println!`.
pub(crate) fn print(
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Stop> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(Stop::writing_stdout)
}

/// The registry of every linked tool (`run_code` only with `code_mode`: see
/// [`crate::code_mode::offer`]), or a usage-level error.
pub(crate) fn registry(code_mode: bool) -> Result<toolwright_runtime::ToolRegistry, UsageError> {
    let registry = toolwright_std::registry().map_err(|error| UsageError(error.to_string()))?;
    crate::code_mode::offer(&registry, code_mode);
    Ok(registry)
}
