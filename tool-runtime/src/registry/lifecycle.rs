//! Enabling, disabling and reprioritizing registered tools.

use super::error::RegistryError;
use super::events::ChangeKind;
use super::registration::Registration;
use super::storage::{ToolRegistry, unknown};

impl ToolRegistry {
    /// Enables or disables the tool named `name`; doing it twice is harmless.
    ///
    /// # Errors
    ///
    /// [`RegistryError::UnknownTool`] (with the closest name) when no tool has that name.
    ///
    /// ```
    /// # use toolwright_runtime::{RegistryError, ToolRegistry};
    /// let err = ToolRegistry::new().set_enabled("nothing", true).unwrap_err();
    /// assert!(matches!(err, RegistryError::UnknownTool { .. }));
    /// ```
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<Registration, RegistryError> {
        let mut state = self.write();
        let Some(entry) = state.entries.get_mut(name) else {
            return Err(unknown(name, state.entries.keys()));
        };
        if entry.enabled == enabled {
            return Ok(entry.clone());
        }
        let before = entry.clone();
        entry.enabled = enabled;
        let after = entry.clone();
        let kind = if enabled {
            ChangeKind::Enabled
        } else {
            ChangeKind::Disabled
        };
        self.emit(&mut state, kind, name, Some(before), Some(after.clone()));
        Ok(after)
    }

    /// Sets the priority of the tool named `name` (the same priority again changes nothing).
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().set_priority("nothing", 1).is_err());
    /// ```
    pub fn set_priority(&self, name: &str, priority: i32) -> Result<Registration, RegistryError> {
        let mut state = self.write();
        let Some(entry) = state.entries.get_mut(name) else {
            return Err(unknown(name, state.entries.keys()));
        };
        if entry.priority == priority {
            return Ok(entry.clone());
        }
        let before = entry.clone();
        entry.priority = priority;
        let after = entry.clone();
        self.emit(
            &mut state,
            ChangeKind::PriorityChanged,
            name,
            Some(before),
            Some(after.clone()),
        );
        Ok(after)
    }

    /// Whether the tool named `name` is registered and enabled.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(!ToolRegistry::new().is_enabled("nothing"));
    /// ```
    pub fn is_enabled(&self, name: &str) -> bool {
        self.read()
            .entries
            .get(name)
            .is_some_and(|entry| entry.enabled)
    }
}
