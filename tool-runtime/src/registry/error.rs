//! Why the registry refuses: [`RegistryError`] and the name clashes it reports.

use std::fmt;

use toolwright_core::ToolSource;

use super::kind::Primitive;

/// Why the registry refused an operation.
#[derive(Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two `#[tool]` functions linked into one binary have the same name.
    #[error(
        "two tools are named `{name}`: one defined in {first}, the other in {second}; \
         rename one with `#[tool(name = \"...\")]`"
    )]
    DuplicateTool {
        /// The shared name.
        name: String,
        /// Where the first definition is.
        first: Box<ToolSource>,
        /// Where the second definition is.
        second: Box<ToolSource>,
    },
    /// Linked `#[tool]` functions share names
    /// ([`register_all_tools`](super::register_all_tools),
    /// [`ToolRegistry::register_all`](super::ToolRegistry::register_all)): every clash, each
    /// with all its definitions, so one build shows everything to rename. Nothing is
    /// registered.
    #[error("{}", describe_clashes(clashes))]
    DuplicateTools {
        /// Each shared name with its definitions, sorted by name (and the definitions by
        /// source), so the error is the same on every run.
        clashes: Vec<NameClash>,
    },
    /// No tool has this name.
    #[error("no tool is named `{name}`{}", suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// A registered name close to it.
        suggestion: Option<String>,
    },
    /// A tool with this name and version is registered with a different spec.
    #[error(
        "tool `{name}` is already registered {} with a different spec; \
         bump the version of the new definition, or register it with `RegisterOptions::new().replace(true)`",
        version.as_ref().map(|v| format!("at version `{v}`")).unwrap_or_else(|| "without a version".to_owned())
    )]
    VersionConflict {
        /// The tool's name.
        name: String,
        /// The version both definitions share (`None`: both unversioned).
        version: Option<String>,
    },
    /// A prompt, resource or skill is registered under this name (a resource: URI or
    /// template) with a different definition and the same version.
    #[error(
        "{primitive} `{key}` is already registered {} with a different definition (defined in {first}, the new one in {second}); \
         rename one, bump the version of the new definition, or remove the old one first",
        version.as_ref().map(|v| format!("at version `{v}`")).unwrap_or_else(|| "without a version".to_owned())
    )]
    PrimitiveConflict {
        /// What kind of entry.
        primitive: Primitive,
        /// Its name (a resource's URI or template, a skill's URI).
        key: String,
        /// The version both share.
        version: Option<String>,
        /// Where the registered one was defined.
        first: Box<ToolSource>,
        /// Where the new one was defined.
        second: Box<ToolSource>,
    },
    /// No prompt, resource or skill has this name.
    #[error("no {primitive} is named `{key}`{}", suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownPrimitive {
        /// What kind of entry.
        primitive: Primitive,
        /// The name asked for.
        key: String,
        /// A registered name close to it.
        suggestion: Option<String>,
    },
    /// Linked `#[prompt]`s share names or `#[resource]`s share URIs; nothing is registered.
    #[error("{}", describe_primitive_clashes(*primitive, clashes))]
    DuplicatePrimitives {
        /// What kind of entry.
        primitive: Primitive,
        /// Each shared name with its definitions.
        clashes: Vec<NameClash>,
    },
}

/// One name that several linked tools share, with where each is defined (see
/// [`RegistryError::DuplicateTools`]).
///
/// ```
/// use toolwright_runtime::NameClash;
/// use toolwright_core::ToolSource;
///
/// let clash = NameClash {
///     name: "get_forecast".into(),
///     sources: vec![
///         ToolSource::new("a-tools", "a_tools", "src/lib.rs", 3),
///         ToolSource::new("b-tools", "b_tools", "src/lib.rs", 9),
///     ],
/// };
/// assert_eq!(
///     clash.to_string(),
///     "2 tools are named `get_forecast` (defined in a-tools (a_tools) at src/lib.rs:3 \
///      and in b-tools (b_tools) at src/lib.rs:9)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameClash {
    /// The shared name.
    pub name: String,
    /// Every definition with that name (two or more), sorted.
    pub sources: Vec<ToolSource>,
}

impl fmt::Display for NameClash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} tools are named `{}` (defined in ",
            self.sources.len(),
            self.name
        )?;
        for (i, source) in self.sources.iter().enumerate() {
            match i {
                0 => {}
                i if i + 1 == self.sources.len() => f.write_str(" and in ")?,
                _ => f.write_str(", in ")?,
            }
            write!(f, "{source}")?;
        }
        f.write_str(")")
    }
}

/// The message of [`RegistryError::DuplicateTools`]: each clash, then what to do.
fn describe_clashes(clashes: &[NameClash]) -> String {
    let each: Vec<String> = clashes.iter().map(NameClash::to_string).collect();
    match clashes.len() {
        1 => format!(
            "{}; rename all but one with `#[tool(name = \"...\")]`",
            each.join("; ")
        ),
        n => format!(
            "linked tools share {n} names: {}; rename all but one of each with \
             `#[tool(name = \"...\")]`",
            each.join("; ")
        ),
    }
}

/// The message of [`RegistryError::DuplicatePrimitives`]: each name with its definitions.
fn describe_primitive_clashes(primitive: Primitive, clashes: &[NameClash]) -> String {
    let each: Vec<String> = clashes
        .iter()
        .map(|clash| {
            let places: Vec<String> = clash.sources.iter().map(ToString::to_string).collect();
            format!(
                "{} {primitive}s are named `{}` (defined in {})",
                clash.sources.len(),
                clash.name,
                places.join(" and in ")
            )
        })
        .collect();
    let how = match primitive {
        Primitive::Resource => "give all but one of each another `uri`",
        _ => "rename all but one of each with `name = \"...\"`",
    };
    format!("{}; {how}", each.join("; "))
}

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
