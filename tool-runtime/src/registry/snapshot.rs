//! Saving a registry's state and applying it to another.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use toolwright_core::{ToolSource, ToolSpec};

use super::events::ChangeKind;
use super::storage::ToolRegistry;

/// One registration in a [`RegistrySnapshot`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegistrationSnapshot {
    /// The tool's spec.
    pub spec: ToolSpec,
    /// Whether it was enabled.
    pub enabled: bool,
    /// Its priority.
    pub priority: i32,
    /// When it was registered.
    pub created_at: Timestamp,
    /// Where it was defined.
    pub source: ToolSource,
}

/// A prompt or resource in a [`RegistrySnapshot`]: its key and whether it was enabled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimitiveSnapshot {
    /// The prompt's name, or the resource's URI or template.
    pub key: String,
    /// Its version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether it was enabled.
    pub enabled: bool,
    /// When it was registered.
    pub created_at: Timestamp,
}

/// Every registration of a registry, by name: serializable, for persisting an application's
/// choices (which tools are enabled, their priorities) and for tests and debugging.
///
/// ```
/// use toolwright_core::tool;
/// use toolwright_runtime::{register_all_tools, RegistrySnapshot};
///
/// /// Ping.
/// #[tool]
/// fn ping() -> &'static str { "pong" }
///
/// let registry = register_all_tools().unwrap();
/// registry.set_enabled("ping", false).unwrap();
/// let json = toolwright_core::serde_json::to_string(&registry.snapshot()).unwrap();
///
/// let fresh = register_all_tools().unwrap();
/// let saved: RegistrySnapshot = toolwright_core::serde_json::from_str(&json).unwrap();
/// let report = fresh.apply_state(&saved);
/// assert!(report.unknown.is_empty());
/// assert!(!fresh.is_enabled("ping"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RegistrySnapshot {
    /// Every registration, sorted by name.
    pub tools: Vec<RegistrationSnapshot>,
    /// Every prompt, sorted by name (absent in snapshots from before prompts: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PrimitiveSnapshot>,
    /// Every resource and template, sorted by key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<PrimitiveSnapshot>,
}

/// What [`ToolRegistry::apply_state`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyReport {
    /// Tools whose enabled flag and priority were restored.
    pub applied: Vec<String>,
    /// Names in the snapshot that the registry does not have.
    pub unknown: Vec<String>,
    /// Prompts and resources (by key) whose enabled flag was restored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied_primitives: Vec<String>,
    /// Prompts and resources (by key) in the snapshot that the registry does not have.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_primitives: Vec<String>,
}

impl ToolRegistry {
    /// Every registration, sorted by name: spec, enabled, priority, `created_at`, source.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().snapshot().tools.is_empty());
    /// ```
    pub fn snapshot(&self) -> RegistrySnapshot {
        let state = self.read();
        RegistrySnapshot {
            prompts: state
                .prompts
                .iter()
                .map(|(key, e)| PrimitiveSnapshot {
                    key: key.clone(),
                    version: e.item.version().map(str::to_owned),
                    enabled: e.enabled,
                    created_at: e.created_at,
                })
                .collect(),
            resources: state
                .resources
                .iter()
                .map(|(key, e)| PrimitiveSnapshot {
                    key: key.clone(),
                    version: e.item.version().map(str::to_owned),
                    enabled: e.enabled,
                    created_at: e.created_at,
                })
                .collect(),
            tools: state
                .entries
                .values()
                .map(|entry| RegistrationSnapshot {
                    spec: entry.tool.spec().clone(),
                    enabled: entry.enabled,
                    priority: entry.priority,
                    created_at: entry.created_at,
                    source: entry.tool.source().clone(),
                })
                .collect(),
        }
    }

    /// Restores the enabled flags and priorities of `snapshot` onto the tools this registry
    /// has, so an application can persist a user's choices. Names it does not have are
    /// reported, not an error. Each tool whose state differs sends its events
    /// ([`ChangeKind::Enabled`] or [`ChangeKind::Disabled`], then
    /// [`ChangeKind::PriorityChanged`]); the others send none.
    ///
    /// ```
    /// use toolwright_runtime::{RegistrySnapshot, ToolRegistry};
    ///
    /// let saved: RegistrySnapshot = toolwright_core::serde_json::from_value(toolwright_core::serde_json::json!({"tools": [{
    ///     "spec": {"name": "gone", "description": "Removed since.", "input_schema": {"type": "object"}},
    ///     "enabled": false, "priority": 10, "created_at": "2025-12-27T14:00:00Z",
    ///     "source": {"crate": "app", "module_path": "app", "file": "src/main.rs", "line": 1}
    /// }]})).unwrap();
    /// let report = ToolRegistry::new().apply_state(&saved);
    /// assert_eq!(report.unknown, ["gone"]);
    /// ```
    pub fn apply_state(&self, snapshot: &RegistrySnapshot) -> ApplyReport {
        let mut state = self.write();
        let mut report = ApplyReport::default();
        for saved in &snapshot.tools {
            let name = saved.spec.name.as_str();
            let Some(entry) = state.entries.get_mut(name) else {
                report.unknown.push(name.to_owned());
                continue;
            };
            report.applied.push(name.to_owned());
            // One event per thing that changed, each with the state after it.
            let mut changes = Vec::new();
            if entry.enabled != saved.enabled {
                let before = entry.clone();
                entry.enabled = saved.enabled;
                let kind = if saved.enabled {
                    ChangeKind::Enabled
                } else {
                    ChangeKind::Disabled
                };
                changes.push((kind, before, entry.clone()));
            }
            if entry.priority != saved.priority {
                let before = entry.clone();
                entry.priority = saved.priority;
                changes.push((ChangeKind::PriorityChanged, before, entry.clone()));
            }
            for (kind, before, after) in changes {
                self.emit(&mut state, kind, name, Some(before), Some(after));
            }
        }
        drop(state);
        for saved in &snapshot.prompts {
            match self.set_prompt_enabled(&saved.key, saved.enabled) {
                Ok(()) => report.applied_primitives.push(saved.key.clone()),
                Err(_) => report.unknown_primitives.push(saved.key.clone()),
            }
        }
        for saved in &snapshot.resources {
            match self.set_resource_enabled(&saved.key, saved.enabled) {
                Ok(()) => report.applied_primitives.push(saved.key.clone()),
                Err(_) => report.unknown_primitives.push(saved.key.clone()),
            }
        }
        report
    }
}
