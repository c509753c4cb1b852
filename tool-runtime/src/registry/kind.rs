//! [`Primitive`]: which of MCP's server primitives a registry entry or a change is.

use serde::{Deserialize, Serialize};

/// Which kind of entry a [`RegistryChange`](super::RegistryChange) or a
/// [`RegistryError`](super::RegistryError) is about.
///
/// ```
/// use toolwright_runtime::registry::Primitive;
/// assert_eq!(Primitive::Prompt.to_string(), "prompt");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Primitive {
    /// A tool.
    Tool,
    /// A prompt.
    Prompt,
    /// A resource (a fixed URI or a template).
    Resource,
    /// A skill.
    Skill,
}

impl Primitive {
    /// Its name in messages (`"tool"`, `"prompt"`, `"resource"`, `"skill"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Primitive::Tool => "tool",
            Primitive::Prompt => "prompt",
            Primitive::Resource => "resource",
            Primitive::Skill => "skill",
        }
    }
}

impl std::fmt::Display for Primitive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
