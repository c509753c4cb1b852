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
    /// A resource (or template, or skill) whose URI cannot be placed in the namespace (no
    /// scheme, characters a URI may not hold, longer than 2048 bytes; see
    /// [`mounted_uri`](super::mounted_uri)).
    UnusableUri,
}

/// Which of an upstream's primitives, beside its tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum PrimitiveKind {
    /// A prompt (`prompts/list`).
    Prompt,
    /// A resource with a fixed URI (`resources/list`).
    Resource,
    /// A resource template (`resources/templates/list`).
    ResourceTemplate,
    /// A skill (SEP-2640, `skills/list`).
    Skill,
}

impl fmt::Display for PrimitiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PrimitiveKind::Prompt => "prompt",
            PrimitiveKind::Resource => "resource",
            PrimitiveKind::ResourceTemplate => "resource template",
            PrimitiveKind::Skill => "skill",
        })
    }
}

/// One upstream prompt, resource, resource template or skill in the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MountedPrimitive {
    /// Which primitive.
    pub kind: PrimitiveKind,
    /// What it is served under: a prompt's `{namespace}_{normalised}` name, a resource's,
    /// template's or skill's URI in the namespace.
    pub name: String,
    /// The upstream's own name or URI (as sent; escape it before showing it).
    pub upstream_name: String,
    /// Its fingerprint as last listed.
    pub fingerprint: Fingerprint,
    /// Whether it was registered enabled (a pinned one whose fingerprint differs is not).
    pub enabled: bool,
}

/// What a mount or a refresh did with the upstream's prompts, resources, resource
/// templates and skills; each entry names its [`PrimitiveKind`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PrimitivesReport {
    /// Registered now.
    pub added: Vec<MountedPrimitive>,
    /// Whose fingerprint differs from their pin or from the last listing.
    pub changed: Vec<(PrimitiveKind, FingerprintChange)>,
    /// Removed from the registry (gone upstream, or their new definition refused).
    pub removed: Vec<MountedPrimitive>,
    /// Not mounted, each with its reason.
    pub skipped: Vec<(PrimitiveKind, Skipped)>,
    /// Lists not read to their end.
    pub cuts: Vec<(PrimitiveKind, ListCut)>,
    /// Lists that could not be read (the upstream's error, escaped); what was mounted from
    /// them before stays.
    pub unlisted: Vec<(PrimitiveKind, String)>,
}

impl PrimitivesReport {
    /// Whether nothing needs an operator's eye.
    pub fn is_clean(&self) -> bool {
        self.changed.is_empty()
            && self.skipped.is_empty()
            && self.cuts.is_empty()
            && self.unlisted.is_empty()
    }
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
    /// What was done with the upstream's prompts, resources and skills.
    pub primitives: PrimitivesReport,
}

impl MountReport {
    /// Whether nothing needs an operator's eye: no change, nothing skipped, the whole list
    /// read.
    pub fn is_clean(&self) -> bool {
        self.changed.is_empty()
            && self.skipped.is_empty()
            && self.cut.is_none()
            && self.primitives.is_clean()
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
            writeln!(f, ": {}", reason(&skipped.reason, "tool"))?;
        }
        if let Some(cut) = &self.cut {
            writeln!(f, "{cut}")?;
        }
        write!(f, "{}", self.primitives)
    }
}

impl fmt::Display for PrimitivesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |name: &str| toolwright_names::escape::escape(name).into_owned();
        for item in &self.added {
            writeln!(
                f,
                "mounted the {} `{}` as `{}`{}",
                item.kind,
                shown(&item.upstream_name),
                shown(&item.name),
                if item.enabled { "" } else { " (disabled)" }
            )?;
        }
        for (kind, change) in &self.changed {
            writeln!(
                f,
                "the {kind} `{}` changed: fingerprint {} where {} was {}{}",
                shown(&change.name),
                change.actual,
                change.expected,
                if change.pinned { "pinned" } else { "listed" },
                if change.pinned { "; disabled" } else { "" }
            )?;
        }
        for item in &self.removed {
            writeln!(f, "removed the {} `{}`", item.kind, shown(&item.name))?;
        }
        for (kind, skipped) in &self.skipped {
            write!(f, "skipped the {kind} `{}`", shown(&skipped.upstream_name))?;
            if let Some(name) = &skipped.name {
                write!(f, " (as `{}`)", shown(name))?;
            }
            writeln!(f, ": {}", reason(&skipped.reason, &kind.to_string()))?;
        }
        for (kind, cut) in &self.cuts {
            let cut = match cut {
                ListCut::TooManyTools { limit } => {
                    format!("the upstream lists more than {limit}; the rest were not read")
                }
                ListCut::TooManyPages { limit } => {
                    format!("the list goes on after {limit} pages; the rest were not read")
                }
                ListCut::RepeatedCursor { page } => format!(
                    "the upstream repeated a cursor on page {page}; the list was read up to there"
                ),
            };
            writeln!(f, "{kind}s: {cut}")?;
        }
        for (kind, error) in &self.unlisted {
            writeln!(f, "{kind}s: not listed: {error}")?;
        }
        Ok(())
    }
}

/// Why something of `kind` was skipped, for a person.
fn reason(reason: &SkipReason, kind: &str) -> String {
    let shown = |name: &str| toolwright_names::escape::escape(name).into_owned();
    match reason {
        SkipReason::SameName { others } => format!(
            "the same name as {}",
            others
                .iter()
                .map(|o| format!("`{}`", shown(o)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        SkipReason::AlreadyRegistered => {
            format!("another {kind} is registered under the name")
        }
        SkipReason::UnusableName => format!("no valid {kind} name can be made of it"),
        SkipReason::InvalidDefinition(reason) | SkipReason::Registry(reason) => reason.clone(),
        SkipReason::TooLarge { bytes, limit } => format!(
            "its definition has {bytes} bytes, more than the limit of {limit} (max_tool_bytes)"
        ),
        SkipReason::MountFull { bytes, limit } => format!(
            "its definition ({bytes} bytes) would take the mount past its limit of {limit} \
             bytes (max_mount_bytes)"
        ),
        SkipReason::UnusableUri => "its URI cannot be placed in the namespace (no scheme, \
             characters a URI may not hold, or longer than 2048 bytes)"
            .to_owned(),
    }
}
