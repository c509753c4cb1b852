//! The severity of a message a tool logs to its client, and where it goes without one.

use std::fmt;
use std::str::FromStr;

/// The severity of a log message: the eight syslog levels MCP uses, lowest first.
///
/// ```
/// use toolwright_core::LogLevel;
///
/// assert!(LogLevel::Warning > LogLevel::Info);
/// assert_eq!("notice".parse::<LogLevel>().unwrap(), LogLevel::Notice);
/// assert_eq!(LogLevel::Emergency.as_str(), "emergency");
/// assert!("loud".parse::<LogLevel>().is_err());
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Something happened.
    Info,
    /// Something normal but worth noticing.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A part stopped working.
    Critical,
    /// Someone must act now.
    Alert,
    /// Nothing works.
    Emergency,
}

impl LogLevel {
    /// Every level, lowest first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name as MCP spells it (`"warning"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A log level name that is not one of the eight.
///
/// ```
/// let err = "loud".parse::<toolwright_core::LogLevel>().unwrap_err();
/// assert!(err.to_string().contains("debug, info"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown log level `{0}`: use one of debug, info, notice, warning, error, critical, alert, \
     emergency"
)]
pub struct ParseLogLevelError(String);

impl FromStr for LogLevel {
    type Err = ParseLogLevelError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        LogLevel::ALL
            .into_iter()
            .find(|level| level.as_str().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| ParseLogLevelError(text.to_owned()))
    }
}

/// A log message sent to `tracing` at the closest of its levels (`tracing` has five).
pub(crate) fn log_to_tracing(tool: &str, level: LogLevel, message: &str) {
    match level {
        LogLevel::Debug => tracing::debug!(tool, level = level.as_str(), "{message}"),
        LogLevel::Info | LogLevel::Notice => {
            tracing::info!(tool, level = level.as_str(), "{message}");
        }
        LogLevel::Warning => tracing::warn!(tool, level = level.as_str(), "{message}"),
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => {
            tracing::error!(tool, level = level.as_str(), "{message}");
        }
    }
}
