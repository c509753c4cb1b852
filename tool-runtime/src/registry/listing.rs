//! Listing a registry's tools through a [`ToolFilter`].

use serde::{Deserialize, Serialize};
use toolwright_core::{SafetyLevel, Tool};

use super::filter::ToolFilter;
use super::registration::Registration;
use super::storage::ToolRegistry;

/// One line of [`ToolRegistry::tools_info`]: a tool's name, description, state in the
/// registry, safety and categories, serializable for an admin page or a log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// The tool's name.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// Whether models may see and call it.
    pub enabled: bool,
    /// Its priority in listings.
    pub priority: i32,
    /// How much it may change the world.
    pub safety: SafetyLevel,
    /// Its categories.
    pub categories: Vec<String>,
}

impl ToolRegistry {
    /// The registrations that pass `filter`, by priority (highest first), then by name.
    ///
    /// ```
    /// # use toolwright_runtime::{ToolFilter, ToolRegistry};
    /// assert!(ToolRegistry::new().registrations(&ToolFilter::new()).is_empty());
    /// ```
    pub fn registrations(&self, filter: &ToolFilter) -> Vec<Registration> {
        let state = self.read();
        let mut matching: Vec<Registration> = state
            .entries
            .values()
            .filter(|entry| filter.matches(&entry.tool, entry.enabled))
            .cloned()
            .collect();
        // The map iterates by name and the sort is stable: ties stay in name order.
        matching.sort_by_key(|entry| std::cmp::Reverse(entry.priority));
        matching
    }

    /// The tools that pass `filter`, by priority (highest first), then by name.
    ///
    /// ```
    /// # use toolwright_runtime::{ToolFilter, ToolRegistry};
    /// assert!(ToolRegistry::new().list(&ToolFilter::new()).is_empty());
    /// ```
    pub fn list(&self, filter: &ToolFilter) -> Vec<Tool> {
        self.registrations(filter)
            .into_iter()
            .map(|entry| entry.tool)
            .collect()
    }

    /// Every tool, enabled or not, as a serializable summary, by priority then name.
    ///
    /// ```
    /// use toolwright_core::tool;
    /// use toolwright_runtime::register_all_tools;
    ///
    /// /// Tell the time.
    /// #[tool(priority = 100)]
    /// fn clock() -> &'static str { "noon" }
    ///
    /// let info = register_all_tools().unwrap().tools_info();
    /// let clock = info.iter().find(|t| t.name == "clock").unwrap();
    /// assert_eq!((clock.priority, clock.enabled), (100, true));
    /// ```
    pub fn tools_info(&self) -> Vec<ToolInfo> {
        self.registrations(&ToolFilter::new().include_disabled(true))
            .into_iter()
            .map(|entry| ToolInfo {
                name: entry.tool.name().to_owned(),
                description: entry.tool.description().to_owned(),
                enabled: entry.enabled,
                priority: entry.priority,
                safety: entry.tool.safety(),
                categories: entry
                    .tool
                    .categories()
                    .iter()
                    .map(|c| c.to_string())
                    .collect(),
            })
            .collect()
    }
}
