//! What a mount did: the tools mounted, those skipped and why, the fingerprints that
//! changed, a list cut short.

use std::fmt;

use toolwright_core::SafetyLevel;

use super::fingerprint::Fingerprint;
use super::list::ListCut;

/// One upstream tool in the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MountedTool {
    /// The name it is registered under: `{namespace}_{normalised}`.
    pub name: String,
    /// The upstream's own name, used for the forward call (as the upstream sent it; escape
    /// it before showing it).
    pub upstream_name: String,
    /// Its fingerprint as last listed.
    pub fingerprint: Fingerprint,
    /// Its safety level.
    pub safety: SafetyLevel,
    /// Whether it was registered enabled (a pinned tool whose fingerprint differs is not).
    pub enabled: bool,
}

/// An upstream tool whose fingerprint differs from its pin or from the last listing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FingerprintChange {
    /// The mounted name.
    pub name: String,
    /// The upstream's name.
    pub upstream_name: String,
    /// The pinned fingerprint, or the one listed before.
    pub expected: Fingerprint,
    /// The one listed now.
    pub actual: Fingerprint,
    /// Whether `expected` was a pin, and so the tool is now disabled.
    pub pinned: bool,
}

/// An upstream tool that was not mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The upstream's name (as sent; escape it before showing it).
    pub upstream_name: String,
    /// The name it would have had, when it has one.
    pub name: Option<String>,
    /// Why it was not mounted.
    pub reason: SkipReason,
}

/// Why an upstream tool was not mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Other upstream tools map to the same name (or the upstream listed it twice); none of
    /// them is mounted, so which one a name calls never depends on the order of a list.
    SameName {
        /// The other upstream names.
        others: Vec<String>,
    },
    /// A tool that is not this mount's is registered under the name.
    AlreadyRegistered,
    /// No valid tool name could be made of it.
    UnusableName,
    /// The tool builder refused the definition (a schema that is not an object schema, or
    /// not valid JSON Schema); the builder's reason.
    InvalidDefinition(String),
    /// The registry refused it; the registry's reason.
    Registry(String),
    /// Its definition is larger than [`MountOptions::max_tool_bytes`](super::MountOptions::max_tool_bytes).
    TooLarge {
        /// The bytes of its definition.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Keeping it would have taken the listing's definitions past
    /// [`MountOptions::max_mount_bytes`](super::MountOptions::max_mount_bytes).
    MountFull {
        /// The bytes of its definition.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
}

/// What a mount or a refresh did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MountReport {
    /// The tools registered now (on a mount, every one mounted).
    pub added: Vec<MountedTool>,
    /// Tools whose fingerprint differs from their pin or from the last listing (each
    /// registered again with the new definition: disabled when pinned).
    pub changed: Vec<FingerprintChange>,
    /// Tools removed from the registry: the upstream no longer lists them, or their new
    /// definition was refused (then also in `skipped`).
    pub removed: Vec<MountedTool>,
    /// Upstream tools not mounted, each with its reason.
    pub skipped: Vec<Skipped>,
    /// Why the upstream's list was not read to its end, if it was not.
    pub cut: Option<ListCut>,
}

impl MountReport {
    /// Whether nothing needs an operator's eye: no change, nothing skipped, the whole list
    /// read.
    pub fn is_clean(&self) -> bool {
        self.changed.is_empty() && self.skipped.is_empty() && self.cut.is_none()
    }
}

impl fmt::Display for MountReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |name: &str| toolwright_names::escape::escape(name).into_owned();
        for tool in &self.added {
            writeln!(
                f,
                "mounted `{}` as `{}` ({}{})",
                shown(&tool.upstream_name),
                tool.name,
                tool.safety,
                if tool.enabled { "" } else { ", disabled" }
            )?;
        }
        for change in &self.changed {
            writeln!(
                f,
                "`{}` changed: fingerprint {} where {} was {}{}",
                change.name,
                change.actual,
                change.expected,
                if change.pinned { "pinned" } else { "listed" },
                if change.pinned { "; disabled" } else { "" }
            )?;
        }
        for tool in &self.removed {
            writeln!(f, "removed `{}` (gone upstream)", tool.name)?;
        }
        for skipped in &self.skipped {
            write!(f, "skipped `{}`", shown(&skipped.upstream_name))?;
            if let Some(name) = &skipped.name {
                write!(f, " (as `{name}`)")?;
            }
            match &skipped.reason {
                SkipReason::SameName { others } => writeln!(
                    f,
                    ": the same name as {}",
                    others
                        .iter()
                        .map(|o| format!("`{}`", shown(o)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )?,
                SkipReason::AlreadyRegistered => {
                    writeln!(f, ": another tool is registered under the name")?
                }
                SkipReason::UnusableName => writeln!(f, ": no valid tool name can be made of it")?,
                SkipReason::InvalidDefinition(reason) | SkipReason::Registry(reason) => {
                    writeln!(f, ": {reason}")?
                }
                SkipReason::TooLarge { bytes, limit } => writeln!(
                    f,
                    ": its definition has {bytes} bytes, more than the limit of {limit} \
                     (max_tool_bytes)"
                )?,
                SkipReason::MountFull { bytes, limit } => writeln!(
                    f,
                    ": its definition ({bytes} bytes) would take the mount past its limit of \
                     {limit} bytes (max_mount_bytes)"
                )?,
            }
        }
        if let Some(cut) = &self.cut {
            writeln!(f, "{cut}")?;
        }
        Ok(())
    }
}
