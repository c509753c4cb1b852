//! Collecting every `#[tool]` linked into the binary.

// The layers, lowest first (no module imports one listed after it): unlinked.
mod unlinked;

use toolwright_core::{Prompt, Resource, Tool, ToolSource};

use super::error::{NameClash, RegistryError};
use super::kind::Primitive;
use super::storage::ToolRegistry;

/// Every linked `#[tool]`, sorted by name, or every name that several share.
fn linked_tools_checked() -> Result<Vec<Tool>, RegistryError> {
    let mut tools: Vec<Tool> = toolwright_core::linked_tools().collect();
    // Debug builds run by cargo: tell about a dependency whose tools are missing.
    // A crate of prompts or resources only is linked too (its items are collected with the
    // tools).
    unlinked::warn_once(|| {
        let prompts = toolwright_core::linked_prompts().map(|p| p.source().crate_name.clone());
        let resources = toolwright_core::linked_resources().map(|r| r.source().crate_name.clone());
        tools
            .iter()
            .map(|tool| tool.source().crate_name.clone())
            .chain(prompts)
            .chain(resources)
            .map(|name| name.into_owned())
            .collect()
    });
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

/// The clashes among `items` keyed by `key` (sorted here), for linked prompts and resources.
fn primitive_clashes<T>(
    items: &mut [T],
    key: impl Fn(&T) -> &str,
    source: impl Fn(&T) -> &ToolSource,
) -> Vec<NameClash> {
    items.sort_by(|a, b| key(a).cmp(key(b)).then_with(|| source(a).cmp(source(b))));
    items
        .chunk_by(|a, b| key(a) == key(b))
        .filter(|same| same.len() > 1)
        .map(|same| NameClash {
            name: key(&same[0]).to_owned(),
            sources: same.iter().map(|item| source(item).clone()).collect(),
        })
        .collect()
}

/// Every linked `#[prompt]` and `#[resource]`, sorted, or the names several share.
fn linked_primitives_checked() -> Result<(Vec<Prompt>, Vec<Resource>), RegistryError> {
    let mut prompts: Vec<Prompt> = toolwright_core::linked_prompts().collect();
    let clashes = primitive_clashes(&mut prompts, Prompt::name, Prompt::source);
    if !clashes.is_empty() {
        return Err(RegistryError::DuplicatePrimitives {
            primitive: Primitive::Prompt,
            clashes,
        });
    }
    let mut resources: Vec<Resource> = toolwright_core::linked_resources().collect();
    let clashes = primitive_clashes(&mut resources, |r| r.uri().as_str(), Resource::source);
    if !clashes.is_empty() {
        return Err(RegistryError::DuplicatePrimitives {
            primitive: Primitive::Resource,
            clashes,
        });
    }
    Ok((prompts, resources))
}

/// A registry of every `#[tool]` function linked into the binary, from any crate, with every
/// linked `#[prompt]` and `#[resource]`.
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
/// When you forget, a debug build run by cargo (`cargo run`, `cargo test`, `cargo run
/// --example`) says so: the first call reads the package's `Cargo.toml` and the workspace's
/// `Cargo.lock`, and warns once on stderr (never stdout, an MCP server's protocol) about each
/// direct dependency that depends on toolwright, contributed no tool and defines `#[tool]`s
/// (read from its source when it is a path or crates.io dependency), naming the line to add.
/// `TOOLWRIGHT_LINK_CHECK=off` silences it; release builds never check, and the check never
/// fails the call.
///
/// # Errors
///
/// [`RegistryError::DuplicateTools`] when linked tools share names; the error lists every
/// shared name with each definition's crate, module, file and line.
/// [`RegistryError::DuplicatePrimitives`] likewise for prompts sharing names and resources
/// sharing URIs (or templates).
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
    /// Adds every `#[tool]`, `#[prompt]` and `#[resource]` linked into the binary (see
    /// [`register_all_tools`]) and returns how many tools the registry holds after. Calling it again changes nothing.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// let mut registry = ToolRegistry::new();
    /// let count = registry.register_all().unwrap();
    /// assert_eq!(registry.register_all().unwrap(), count);
    /// ```
    pub fn register_all(&mut self) -> Result<usize, RegistryError> {
        let tools = linked_tools_checked()?;
        let (prompts, resources) = linked_primitives_checked()?;
        for tool in tools {
            self.register(tool)?;
        }
        for prompt in prompts {
            self.register_prompt(prompt)?;
        }
        for resource in resources {
            self.register_resource(resource)?;
        }
        Ok(self.len())
    }
}
