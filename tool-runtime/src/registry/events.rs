//! The change events a registry sends to its subscribers.

use serde::{Deserialize, Serialize};

use toolwright_core::{Prompt, Resource, Skill};

use super::filter::ToolFilter;
use super::kind::Primitive;
use super::registration::Registration;

/// What happened to one tool in a [`RegistryChange`].
///
/// ```
/// use toolwright_runtime::registry::ChangeKind;
/// assert_ne!(ChangeKind::Enabled, ChangeKind::Disabled);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChangeKind {
    /// A tool was registered under a name that had none (enabled or not: see
    /// [`RegistryChange::after`]).
    Added,
    /// The tool was removed.
    Removed,
    /// The tool was enabled.
    Enabled,
    /// The tool was disabled.
    Disabled,
    /// Another registration took the name's place (a new version, a registration with `RegisterOptions::replace`,
    /// a tool set bound again).
    Replaced,
    /// The tool's priority changed.
    PriorityChanged,
    /// A resource's contents changed
    /// ([`ToolRegistry::notify_resource_updated`](super::ToolRegistry::notify_resource_updated)):
    /// servers send `notifications/resources/updated` to the sessions subscribed to
    /// [`RegistryChange::name`], the URI.
    Updated,
}

/// A prompt, resource or skill as a [`RegistryChange`] carries it: the entry and whether it
/// was enabled.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PrimitiveState {
    /// A prompt.
    Prompt {
        /// The prompt.
        prompt: Prompt,
        /// Whether it was enabled.
        enabled: bool,
    },
    /// A resource or template.
    Resource {
        /// The resource.
        resource: Resource,
        /// Whether it was enabled.
        enabled: bool,
    },
    /// A skill (always listed).
    Skill(Skill),
}

impl PrimitiveState {
    fn concerns(&self, filter: &ToolFilter) -> bool {
        match self {
            PrimitiveState::Prompt { prompt, enabled } => filter.matches_prompt(prompt, *enabled),
            PrimitiveState::Resource { resource, enabled } => {
                filter.matches_resource(resource, *enabled)
            }
            PrimitiveState::Skill(_) => true,
        }
    }
}

/// One change to one tool of a [`ToolRegistry`](super::ToolRegistry), from
/// [`ToolRegistry::subscribe_changes`](super::ToolRegistry::subscribe_changes).
///
/// Each event carries the tool's registration before and after the change, so applying
/// an event (insert `after`, or remove the name when it is `None`) is idempotent: a receiver
/// that re-read the registry can apply events it has already seen without harm.
///
/// ```
/// use toolwright_runtime::{RegisterOptions, ToolFilter, ToolRegistry};
/// use toolwright_core::Tool;
/// use toolwright_runtime::registry::ChangeKind;
///
/// let registry = ToolRegistry::new();
/// let mut changes = registry.subscribe_changes();
/// let ping = Tool::builder("ping").description("Ping.").handler(|_| async { "pong" }).build().unwrap();
/// registry.register_with(ping, RegisterOptions::new().enabled(false)).unwrap();
/// let change = changes.try_recv().unwrap();
/// assert_eq!((change.kind, change.name.as_str(), change.generation), (ChangeKind::Added, "ping", 1));
/// assert!(!change.after.as_ref().unwrap().enabled);
/// assert!(!change.concerns(&ToolFilter::new())); // no model could see it
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RegistryChange {
    /// What happened.
    pub kind: ChangeKind,
    /// What kind of entry changed: for [`Primitive::Tool`], `before` and `after` hold its
    /// registrations; for the others, `primitive_before` and `primitive_after`.
    pub primitive: Primitive,
    /// The tool's (or prompt's) name, the resource's URI or template, the skill's URI.
    pub name: String,
    /// The registry's generation after this change: 1 for the first change, one more for
    /// each change after (a receiver that sees a gap missed events).
    pub generation: u64,
    /// The registration before the change (`None` for [`ChangeKind::Added`]).
    pub before: Option<Registration>,
    /// The registration after the change (`None` for [`ChangeKind::Removed`]).
    pub after: Option<Registration>,
    /// A prompt, resource or skill before the change (`None` for tools and
    /// [`ChangeKind::Added`]).
    pub primitive_before: Option<PrimitiveState>,
    /// A prompt, resource or skill after the change (`None` for tools and
    /// [`ChangeKind::Removed`]).
    pub primitive_after: Option<PrimitiveState>,
}

impl RegistryChange {
    /// Whether the change may alter what [`ToolRegistry::list`](super::ToolRegistry::list)
    /// (or the listing of prompts, resources, skills) returns for `filter`: the entry passed
    /// `filter` before or passes it after. A server tells
    /// each client about the changes that concern its view only.
    ///
    /// ```
    /// use toolwright_core::{SafetyLevel, Tool};
    /// use toolwright_runtime::{ToolFilter, ToolRegistry};
    ///
    /// let registry = ToolRegistry::new();
    /// let mut changes = registry.subscribe_changes();
    /// let wipe = Tool::builder("wipe").description("Wipe.").safety(SafetyLevel::Dangerous)
    ///     .handler(|_| async { "wiped" }).build().unwrap();
    /// registry.register(wipe).unwrap();
    /// let change = changes.try_recv().unwrap();
    /// assert!(change.concerns(&ToolFilter::new()));
    /// assert!(!change.concerns(&ToolFilter::new().max_safety(SafetyLevel::Safe)));
    /// ```
    pub fn concerns(&self, filter: &ToolFilter) -> bool {
        [&self.before, &self.after]
            .into_iter()
            .flatten()
            .any(|registration| filter.matches(&registration.tool, registration.enabled))
            || [&self.primitive_before, &self.primitive_after]
                .into_iter()
                .flatten()
                .any(|state| state.concerns(filter))
    }
}

/// How many events a
/// [`ToolRegistry::subscribe_changes`](super::ToolRegistry::subscribe_changes) receiver may
/// fall behind before it gets
/// [`RecvError::Lagged`](tokio::sync::broadcast::error::RecvError::Lagged).
///
/// ```
/// use tokio::sync::broadcast::error::TryRecvError;
/// use toolwright_runtime::registry::CHANGE_CAPACITY;
/// use toolwright_core::Tool;
/// use toolwright_runtime::ToolRegistry;
///
/// let registry = ToolRegistry::new();
/// let mut changes = registry.subscribe_changes();
/// registry.register(Tool::builder("ping").description("Ping.").handler(|_| async { "pong" }).build().unwrap()).unwrap();
/// for i in 0..CHANGE_CAPACITY {
///     registry.set_priority("ping", i as i32 + 1).unwrap();
/// }
/// // One change too many for a receiver that read none: re-read the registry, then go on.
/// assert!(matches!(changes.try_recv(), Err(TryRecvError::Lagged(1))));
/// assert_eq!(changes.try_recv().unwrap().generation, 2);
/// ```
pub const CHANGE_CAPACITY: usize = 1024;
