//! How a command ends: its outcome or a usage error, and the registry every command reads.

/// A usage error: a message for the person at the terminal; exits with status 2.
#[derive(Debug)]
pub(crate) struct UsageError(pub(crate) String);

/// How a command ended.
pub(crate) enum Outcome {
    Success,
    ToolFailed,
}

/// The registry of every linked tool, or a usage-level error.
pub(crate) fn registry() -> Result<tool_runtime::ToolRegistry, UsageError> {
    tools_std::registry().map_err(|error| UsageError(error.to_string()))
}
