//! Collecting every `#[tool]` linked into the binary.

use toolwright_core::Tool;

use super::error::{NameClash, RegistryError};
use super::storage::ToolRegistry;

/// Every linked `#[tool]`, sorted by name, or every name that several share.
fn linked_tools_checked() -> Result<Vec<Tool>, RegistryError> {
    let mut tools: Vec<Tool> = toolwright_core::linked_tools().collect();
    tools.sort_by(|a, b| {
        a.name()
            .cmp(b.name())
            .then_with(|| a.source().cmp(b.source()))
    });
    let clashes = find_clashes(&tools);
    if clashes.is_empty() {
        Ok(tools)
    } else {
        Err(RegistryError::DuplicateTools { clashes })
    }
}

/// The names several of `tools` (sorted by name, then source) share, each with all its
/// sources, in that order.
fn find_clashes(tools: &[Tool]) -> Vec<NameClash> {
    tools
        .chunk_by(|a, b| a.name() == b.name())
        .filter(|same| same.len() > 1)
        .map(|same| NameClash {
            name: same[0].name().to_owned(),
            sources: same.iter().map(|tool| tool.source().clone()).collect(),
        })
        .collect()
}

/// A registry of every `#[tool]` function linked into the binary, from any crate.
///
/// Tools register themselves at link time through `inventory`; no list is kept by hand.
/// Calling it again returns an equal registry (the tools' schemas are built once).
///
/// **Linking.** A tool is collected when the crate that defines it is linked into the
/// binary. Rust links a dependency only if the code names it, so a crate whose tools you
/// only want collected (and whose functions you never call) must still be named once,
/// anywhere in the binary's crate:
///
/// ```ignore
/// use my_tools_crate as _; // links my_tools_crate, so its #[tool]s are collected
/// ```
///
/// # Errors
///
/// [`RegistryError::DuplicateTools`] when linked tools share names; the error lists every
/// shared name with each definition's crate, module, file and line.
///
/// ```
/// use toolwright_core::tool;
/// use toolwright_runtime::register_all_tools;
///
/// /// Count the words in a text.
/// #[tool]
/// fn count_words(text: String) -> usize {
///     text.split_whitespace().count()
/// }
///
/// let registry = register_all_tools().unwrap();
/// assert!(registry.get("count_words").is_some());
/// ```
pub fn register_all_tools() -> Result<ToolRegistry, RegistryError> {
    let mut registry = ToolRegistry::new();
    registry.register_all()?;
    Ok(registry)
}

impl ToolRegistry {
    /// Adds every `#[tool]` linked into the binary (see [`register_all_tools`]) and returns
    /// how many tools the registry holds after. Calling it again changes nothing.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// let mut registry = ToolRegistry::new();
    /// let count = registry.register_all().unwrap();
    /// assert_eq!(registry.register_all().unwrap(), count);
    /// ```
    pub fn register_all(&mut self) -> Result<usize, RegistryError> {
        for tool in linked_tools_checked()? {
            self.register(tool)?;
        }
        Ok(self.len())
    }
}
