//! How much a tool may change the world, and so how carefully it is run.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much a tool may change the world, ordered from least to most dangerous.
///
/// The executor runs [`Safe`](SafetyLevel::Safe) tools at once, logs
/// [`Cautious`](SafetyLevel::Cautious) ones before running them, and runs
/// [`Dangerous`](SafetyLevel::Dangerous) ones only after an approval handler said yes.
///
/// ```
/// use toolwright_core::SafetyLevel;
///
/// assert!(SafetyLevel::Safe < SafetyLevel::Dangerous);
/// assert_eq!("cautious".parse::<SafetyLevel>().unwrap(), SafetyLevel::Cautious);
/// assert_eq!(SafetyLevel::Dangerous.to_string(), "dangerous");
/// assert_eq!(serde_json::to_string(&SafetyLevel::Safe).unwrap(), "\"safe\"");
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SafetyLevel {
    /// Read-only: runs without asking.
    #[default]
    Safe,
    /// Changes state in a way that can be undone: logged, then run.
    Cautious,
    /// Makes permanent changes: runs only after an approval handler approves.
    Dangerous,
}

impl SafetyLevel {
    /// Every level, from least to most dangerous.
    ///
    /// ```
    /// use toolwright_core::SafetyLevel;
    /// assert_eq!(SafetyLevel::ALL.len(), 3);
    /// ```
    pub const ALL: [SafetyLevel; 3] = [
        SafetyLevel::Safe,
        SafetyLevel::Cautious,
        SafetyLevel::Dangerous,
    ];

    /// The level's lowercase name, as used in attributes and JSON.
    ///
    /// ```
    /// use toolwright_core::SafetyLevel;
    /// assert_eq!(SafetyLevel::Cautious.as_str(), "cautious");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            SafetyLevel::Safe => "safe",
            SafetyLevel::Cautious => "cautious",
            SafetyLevel::Dangerous => "dangerous",
        }
    }
}

impl fmt::Display for SafetyLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`SafetyLevel`] from a string that names no level.
///
/// ```
/// use toolwright_core::SafetyLevel;
/// let err = "risky".parse::<SafetyLevel>().unwrap_err();
/// assert_eq!(err.to_string(), "unknown safety level `risky`: expected one of `safe`, `cautious`, `dangerous`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown safety level `{given}`: expected one of `safe`, `cautious`, `dangerous`")]
pub struct ParseSafetyLevelError {
    given: String,
}

impl FromStr for SafetyLevel {
    type Err = ParseSafetyLevelError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SafetyLevel::ALL
            .into_iter()
            .find(|level| level.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseSafetyLevelError {
                given: s.to_owned(),
            })
    }
}
