//! Where an application keeps its tools and decides which ones a model may see.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde::Serialize;

use crate::suggest::did_you_mean;
use crate::{SafetyLevel, Tool, ToolSource};

/// Why the registry refused an operation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
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
         give the new definition a different version to replace it",
        version.as_ref().map(|v| format!("at version `{v}`")).unwrap_or_else(|| "without a version".to_owned())
    )]
    VersionConflict {
        /// The tool's name.
        name: String,
        /// The version both definitions share (`None`: both unversioned).
        version: Option<String>,
    },
}

/// A tool in a registry, with the registry's state for it.
///
/// ```
/// use tool_runtime::{tool, register_all_tools, ToolRegistry};
///
/// /// Say hello.
/// #[tool]
/// fn hello() -> &'static str { "hello" }
///
/// let tool = register_all_tools().unwrap().get("hello").unwrap();
/// let registry = ToolRegistry::new();
/// let registration = registry.register(tool).unwrap();
/// assert!(registration.enabled);
/// assert_eq!(registration.priority, 10);
/// ```
#[derive(Debug, Clone)]
pub struct Registration {
    /// The registered tool.
    pub tool: Tool,
    /// Whether models may see and call it.
    pub enabled: bool,
    /// Its priority in listings (higher first).
    pub priority: i32,
}

/// Which tools to list. Every filter that is set must hold (AND); within `categories`,
/// `tags` and `names`, any one match is enough. Disabled tools are left out unless
/// `include_disabled(true)`.
///
/// ```
/// use tool_runtime::{SafetyLevel, ToolFilter};
///
/// let filter = ToolFilter::new()
///     .max_safety(SafetyLevel::Cautious)
///     .categories(["filesystem", "math"])
///     .tags(["files"])
///     .include_disabled(false);
/// # let _ = filter;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToolFilter {
    max_safety: Option<SafetyLevel>,
    categories: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    names: Option<Vec<String>>,
    include_disabled: bool,
}

impl ToolFilter {
    /// A filter that lets every enabled tool through.
    pub fn new() -> Self {
        ToolFilter::default()
    }

    /// Only tools at or below `level` (`Cautious`: safe and cautious tools).
    pub fn max_safety(mut self, level: SafetyLevel) -> Self {
        self.max_safety = Some(level);
        self
    }

    /// Only tools in at least one of `categories`.
    pub fn categories<I, S>(mut self, categories: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.categories = Some(categories.into_iter().map(Into::into).collect());
        self
    }

    /// Only tools with at least one of `tags`.
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = Some(tags.into_iter().map(Into::into).collect());
        self
    }

    /// Only the tools named in `names`.
    pub fn names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.names = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Whether disabled tools are listed too.
    pub fn include_disabled(mut self, include: bool) -> Self {
        self.include_disabled = include;
        self
    }

    /// The safety ceiling, if one is set.
    ///
    /// ```
    /// use tool_runtime::{SafetyLevel, ToolFilter};
    /// assert_eq!(ToolFilter::new().max_safety(SafetyLevel::Safe).safety_ceiling(), Some(SafetyLevel::Safe));
    /// ```
    pub fn safety_ceiling(&self) -> Option<SafetyLevel> {
        self.max_safety
    }

    /// Whether a tool in state `enabled` passes the filter.
    ///
    /// ```
    /// use tool_runtime::{tool, register_all_tools, SafetyLevel, ToolFilter};
    ///
    /// /// Delete everything.
    /// #[tool(safety = "dangerous", categories(filesystem))]
    /// fn wipe() {}
    ///
    /// let wipe = register_all_tools().unwrap().get("wipe").unwrap();
    /// assert!(ToolFilter::new().categories(["filesystem"]).matches(&wipe, true));
    /// assert!(!ToolFilter::new().max_safety(SafetyLevel::Cautious).matches(&wipe, true));
    /// assert!(!ToolFilter::new().matches(&wipe, false));
    /// ```
    pub fn matches(&self, tool: &Tool, enabled: bool) -> bool {
        fn any_of(wanted: &Option<Vec<String>>, have: &[String]) -> bool {
            wanted
                .as_ref()
                .is_none_or(|wanted| wanted.iter().any(|w| have.contains(w)))
        }
        (enabled || self.include_disabled)
            && self.max_safety.is_none_or(|max| tool.safety() <= max)
            && any_of(&self.categories, tool.categories())
            && any_of(&self.tags, tool.tags())
            && self
                .names
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == tool.name()))
    }
}

/// The tools an application offers, by name, with an enabled flag and a priority for each.
///
/// Share one across threads as `Arc<ToolRegistry>`: every method takes `&self`.
///
/// ```
/// use tool_runtime::{tool, register_all_tools, SafetyLevel, ToolFilter};
///
/// /// Read a file.
/// #[tool(categories(filesystem))]
/// fn read_notes(path: String) -> String { path }
///
/// let registry = register_all_tools().unwrap();
/// assert!(registry.names().contains(&"read_notes".to_string()));
/// let safe_fs = registry.list(&ToolFilter::new().max_safety(SafetyLevel::Safe).categories(["filesystem"]));
/// assert!(safe_fs.iter().any(|t| t.name() == "read_notes"));
/// registry.set_enabled("read_notes", false).unwrap();
/// assert!(!registry.list(&ToolFilter::new()).iter().any(|t| t.name() == "read_notes"));
/// ```
#[derive(Default)]
pub struct ToolRegistry {
    entries: RwLock<BTreeMap<String, Registration>>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, Registration>> {
        // No code panics while holding the lock, and the map is valid between operations.
        self.entries.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, Registration>> {
        self.entries.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers `tool` under its name, with the versioning rules of a tool registry:
    /// a new name registers enabled; the same spec again returns the existing registration
    /// unchanged; a different version replaces the registration (keeping its enabled flag);
    /// the same version with a different spec is [`RegistryError::VersionConflict`].
    pub fn register(&self, tool: Tool) -> Result<Registration, RegistryError> {
        let mut entries = self.write();
        if let Some(existing) = entries.get_mut(tool.name()) {
            if existing.tool.spec() == tool.spec() {
                return Ok(existing.clone());
            }
            if existing.tool.version() == tool.version() {
                return Err(RegistryError::VersionConflict {
                    name: tool.name().to_owned(),
                    version: tool.version().map(str::to_owned),
                });
            }
            existing.priority = tool.priority();
            existing.tool = tool;
            return Ok(existing.clone());
        }
        let registration = Registration {
            priority: tool.priority(),
            enabled: true,
            tool,
        };
        entries.insert(registration.tool.name().to_owned(), registration.clone());
        Ok(registration)
    }

    /// The tool named `name`, enabled or not.
    pub fn get(&self, name: &str) -> Option<Tool> {
        self.read().get(name).map(|entry| entry.tool.clone())
    }

    /// The registration of the tool named `name`.
    pub fn registration(&self, name: &str) -> Option<Registration> {
        self.read().get(name).cloned()
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    /// The tools that pass `filter`, by priority (highest first), then by name.
    pub fn list(&self, filter: &ToolFilter) -> Vec<Tool> {
        let entries = self.read();
        let mut matching: Vec<&Registration> = entries
            .values()
            .filter(|entry| filter.matches(&entry.tool, entry.enabled))
            .collect();
        // The map iterates by name, and the sort is stable: ties stay in name order.
        matching.sort_by_key(|entry| std::cmp::Reverse(entry.priority));
        matching
            .into_iter()
            .map(|entry| entry.tool.clone())
            .collect()
    }

    /// Enables or disables the tool named `name`; doing it twice is harmless.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<Registration, RegistryError> {
        let mut entries = self.write();
        match entries.get_mut(name) {
            Some(entry) => {
                entry.enabled = enabled;
                Ok(entry.clone())
            }
            None => Err(unknown(name, entries.keys())),
        }
    }

    /// Whether the tool named `name` is registered and enabled.
    pub fn is_enabled(&self, name: &str) -> bool {
        self.read().get(name).is_some_and(|entry| entry.enabled)
    }

    /// Removes the tool named `name`, returning it; `None` if there was none.
    pub fn remove(&self, name: &str) -> Option<Tool> {
        self.write().remove(name).map(|entry| entry.tool)
    }

    /// How many tools are registered, enabled or not.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// Adds every `#[tool]` linked into the binary (see [`register_all_tools`]) and returns
    /// how many tools the registry holds after. Calling it again changes nothing.
    pub fn register_all(&mut self) -> Result<usize, RegistryError> {
        for tool in linked_tools_checked()? {
            self.register(tool)?;
        }
        Ok(self.len())
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

fn unknown<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> RegistryError {
    RegistryError::UnknownTool {
        name: name.to_owned(),
        suggestion: did_you_mean(name, known.map(String::as_str)).map(str::to_owned),
    }
}

/// Every linked `#[tool]`, sorted by name, or the first pair that shares a name.
fn linked_tools_checked() -> Result<Vec<Tool>, RegistryError> {
    let mut tools: Vec<Tool> = crate::macro_support::linked_tools().collect();
    tools.sort_by(|a, b| {
        a.name()
            .cmp(b.name())
            .then_with(|| a.source().cmp(b.source()))
    });
    if let Some(pair) = tools
        .windows(2)
        .find(|pair| pair[0].name() == pair[1].name())
    {
        return Err(RegistryError::DuplicateTool {
            name: pair[0].name().to_owned(),
            first: Box::new(pair[0].source().clone()),
            second: Box::new(pair[1].source().clone()),
        });
    }
    Ok(tools)
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
/// [`RegistryError::DuplicateTool`] when two linked tools share a name; the error names
/// both definitions' crate, file and line.
///
/// ```
/// use tool_runtime::{tool, register_all_tools};
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
