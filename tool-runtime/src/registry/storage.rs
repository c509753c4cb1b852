//! The map of registrations behind [`ToolRegistry`]: register, look up, remove, and the
//! change event each of them sends.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use jiff::Timestamp;
use toolwright_core::{Prompt, Resource, Skill, Tool, ToolSet};
use toolwright_names::did_you_mean;

use super::error::RegistryError;
use super::events::{CHANGE_CAPACITY, ChangeKind, PrimitiveState, RegistryChange};
use super::kind::Primitive;
use super::registration::{RegisterOptions, Registration};
use crate::search::SearchIndex;

/// Where a registry reads the time for `created_at`; swap it in tests for a fixed clock.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

#[derive(Default)]
pub(super) struct State {
    pub(super) entries: BTreeMap<String, Registration>,
    /// The generation of the last change (0: none yet); bumped under the write lock, so
    /// events are numbered in the order their changes happened.
    pub(super) generation: u64,
    /// Built on the first search, then kept in step with every register and remove
    /// (registering thousands of tools at startup should not pay for an index nobody uses).
    pub(super) index: Option<SearchIndex>,
    /// Prompts by name.
    pub(super) prompts: BTreeMap<String, Entry<Prompt>>,
    /// Resources and templates by URI or template as written.
    pub(super) resources: BTreeMap<String, Entry<Resource>>,
    /// Skills by the URI of their `SKILL.md`.
    pub(super) skills: BTreeMap<String, Skill>,
}

/// A prompt or resource in the registry, with its enabled flag and registration time.
#[derive(Debug, Clone)]
pub(super) struct Entry<T> {
    pub(super) item: T,
    pub(super) enabled: bool,
    pub(super) created_at: Timestamp,
}

/// The tools an application offers, by name, with an enabled flag, a priority and a
/// registration time for each, and a search index over them.
///
/// Share one across threads as `Arc<ToolRegistry>`: every method but
/// [`register_all`](Self::register_all) takes `&self`.
///
/// ```
/// use toolwright_core::{tool, SafetyLevel};
/// use toolwright_runtime::{register_all_tools, ToolFilter};
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
pub struct ToolRegistry {
    state: RwLock<State>,
    clock: Clock,
    events: tokio::sync::broadcast::Sender<RegistryChange>,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        ToolRegistry::with_clock(Arc::new(Timestamp::now))
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish_non_exhaustive()
    }
}

pub(super) fn unknown<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> RegistryError {
    RegistryError::UnknownTool {
        name: name.to_owned(),
        suggestion: did_you_mean(name, known.map(String::as_str)).map(str::to_owned),
    }
}

/// What a registry holds under a name.
pub(crate) enum Lookup {
    Enabled(Tool),
    Disabled(Tool),
    Unknown,
}

impl ToolRegistry {
    /// An empty registry.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().is_empty());
    /// ```
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// An empty registry that reads registration times from `clock`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::ToolRegistry;
    ///
    /// let fixed: jiff::Timestamp = "2025-12-27T14:00:00Z".parse().unwrap();
    /// let registry = ToolRegistry::with_clock(Arc::new(move || fixed));
    /// # let _ = registry;
    /// ```
    pub fn with_clock(clock: Clock) -> Self {
        ToolRegistry {
            state: RwLock::default(),
            clock,
            events: tokio::sync::broadcast::Sender::new(CHANGE_CAPACITY),
        }
    }

    /// A receiver of every change from now on, one [`RegistryChange`] per tool that changed,
    /// in the order the changes happened (also when many threads change the registry), each
    /// sent once its change is visible: a receiver that reads the registry on an event sees
    /// that change (or a later one). Changes that change nothing (enabling an enabled tool,
    /// the same priority again, registering the same spec again) send nothing.
    ///
    /// **Lag.** The channel keeps the last [`CHANGE_CAPACITY`] events. A receiver that falls
    /// further behind gets [`RecvError::Lagged`](tokio::sync::broadcast::error::RecvError::Lagged)
    /// (and then the oldest events still kept); it should re-read the registry and go on.
    /// Generations are consecutive, so a gap also shows what was missed.
    ///
    /// ```
    /// use toolwright_core::Tool;
    /// use toolwright_runtime::ToolRegistry;
    /// use toolwright_runtime::registry::ChangeKind;
    ///
    /// let registry = ToolRegistry::new();
    /// let mut changes = registry.subscribe_changes();
    /// let ping = Tool::builder("ping").description("Ping.").handler(|_| async { "pong" }).build().unwrap();
    /// registry.register(ping).unwrap();
    /// registry.set_enabled("ping", false).unwrap();
    /// registry.set_enabled("ping", false).unwrap(); // no change, no event
    /// registry.remove("ping");
    /// let kinds: Vec<_> = std::iter::from_fn(|| changes.try_recv().ok()).map(|c| (c.kind, c.generation)).collect();
    /// assert_eq!(kinds, [(ChangeKind::Added, 1), (ChangeKind::Disabled, 2), (ChangeKind::Removed, 3)]);
    /// ```
    pub fn subscribe_changes(&self) -> tokio::sync::broadcast::Receiver<RegistryChange> {
        self.events.subscribe()
    }

    /// The generation of the latest change (0 before any): the
    /// [`RegistryChange::generation`] of the last event sent.
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// # use toolwright_runtime::ToolRegistry;
    /// let registry = ToolRegistry::new();
    /// assert_eq!(registry.generation(), 0);
    /// registry.register(Tool::builder("ping").description("Ping.").handler(|_| async { "pong" }).build().unwrap()).unwrap();
    /// assert_eq!(registry.generation(), 1);
    /// ```
    pub fn generation(&self) -> u64 {
        self.read().generation
    }

    /// Records one change. Called with the write lock held, so generations follow the order
    /// of the changes and a receiver that reads the registry waits for the lock, then sees
    /// the change.
    pub(super) fn emit(
        &self,
        state: &mut State,
        kind: ChangeKind,
        name: &str,
        before: Option<Registration>,
        after: Option<Registration>,
    ) {
        state.generation += 1;
        let generation = state.generation;
        if self.events.receiver_count() > 0 {
            // An error means every receiver has gone since the count: nobody to tell.
            let _ = self.events.send(RegistryChange {
                kind,
                primitive: Primitive::Tool,
                name: name.to_owned(),
                generation,
                before,
                after,
                primitive_before: None,
                primitive_after: None,
            });
        }
    }

    /// Records one change of a prompt, resource or skill, as [`emit`](Self::emit) does a
    /// tool's.
    pub(super) fn emit_primitive(
        &self,
        state: &mut State,
        kind: ChangeKind,
        primitive: Primitive,
        key: &str,
        before: Option<PrimitiveState>,
        after: Option<PrimitiveState>,
    ) {
        state.generation += 1;
        let generation = state.generation;
        if self.events.receiver_count() > 0 {
            let _ = self.events.send(RegistryChange {
                kind,
                primitive,
                name: key.to_owned(),
                generation,
                before: None,
                after: None,
                primitive_before: before,
                primitive_after: after,
            });
        }
    }

    pub(super) fn now(&self) -> Timestamp {
        (self.clock)()
    }

    pub(super) fn read(&self) -> RwLockReadGuard<'_, State> {
        // Nothing panics while holding the lock, and the state is valid between operations.
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn new_registration(&self, tool: Tool, options: RegisterOptions) -> Registration {
        Registration {
            priority: options.priority.unwrap_or_else(|| tool.priority()),
            enabled: options.enabled,
            created_at: (self.clock)(),
            tool,
        }
    }

    /// Registers `tool` under its name. Two registrations are the same tool when their
    /// [`ToolSpec`](toolwright_core::ToolSpec)s are equal; versions decide what replaces what:
    ///
    /// - a new name registers, enabled;
    /// - the same spec again returns the existing registration unchanged;
    /// - a different version replaces the registration with a new one (enabled, new
    ///   `created_at`);
    /// - the same version (both unversioned included) with a different spec is
    ///   [`RegistryError::VersionConflict`]: bump the version to replace a tool.
    ///
    /// ```
    /// use toolwright_core::serde_json::json;
    /// use toolwright_runtime::{RegistryError, ToolRegistry};
    /// use toolwright_core::Tool;
    ///
    /// let v1 = |schema| Tool::builder("example").description("An example.").version("1.0.0")
    ///     .input_schema(schema).handler(|_| async { "ok" }).build().unwrap();
    /// let registry = ToolRegistry::new();
    /// registry.register(v1(json!({"type": "object"}))).unwrap();
    /// let err = registry.register(v1(json!({"type": "object", "properties": {"a": {"type": "string"}}})));
    /// assert!(matches!(err, Err(RegistryError::VersionConflict { .. })));
    /// ```
    pub fn register(&self, tool: Tool) -> Result<Registration, RegistryError> {
        self.register_with(tool, RegisterOptions::new())
    }

    /// [`register`](Self::register) with `options`: enabled or not, and a priority. The
    /// options apply when the call creates a registration (a new name, a new version); the
    /// same spec again returns the existing registration unchanged.
    ///
    /// ```
    /// use toolwright_runtime::{RegisterOptions, ToolRegistry};
    /// use toolwright_core::Tool;
    ///
    /// let registry = ToolRegistry::new();
    /// let ping = Tool::builder("ping").description("Ping.").handler(|_| async { "pong" }).build().unwrap();
    /// let registration = registry.register_with(ping, RegisterOptions::new().enabled(false).priority(90)).unwrap();
    /// assert_eq!((registration.enabled, registration.priority), (false, 90));
    /// ```
    ///
    /// # Errors
    ///
    /// As [`register`](Self::register).
    pub fn register_with(
        &self,
        tool: Tool,
        options: RegisterOptions,
    ) -> Result<Registration, RegistryError> {
        let mut state = self.write();
        if options.replace {
            if let Some(existing) = state.entries.get(tool.name())
                && existing.tool.spec() != tool.spec()
            {
                tracing::warn!(
                    tool = tool.name(),
                    previous = %existing.tool.source(),
                    new = %tool.source(),
                    "replacing a registered tool"
                );
            }
            return Ok(self.insert(&mut state, tool, options));
        }
        if let Some(existing) = state.entries.get(tool.name()) {
            if existing.tool.spec() == tool.spec() {
                return Ok(existing.clone());
            }
            if existing.tool.version() == tool.version() {
                return Err(RegistryError::VersionConflict {
                    name: tool.name().to_owned(),
                    version: tool.version().map(str::to_owned),
                });
            }
        }
        Ok(self.insert(&mut state, tool, options))
    }

    /// Registers the tools of a [`#[tool_set]`](toolwright_core::tool_set), each run on `instance`
    /// (see [`ToolSet::tools`]), and returns their registrations in the order the methods
    /// are written.
    ///
    /// The set's `#[prompt]` and `#[resource]` methods are registered too, bound to
    /// `instance` the same way (their link-time forms replaced, keeping their enabled flags).
    ///
    /// A tool of the set already registered (its link-time form, from
    /// [`register_all_tools`](super::register_all_tools), which looks for `Self` in the
    /// executor's state, or a binding to another instance) is replaced, keeping its enabled
    /// flag and priority. Any other tool of the same name is [`RegistryError::DuplicateTool`],
    /// and then nothing is registered.
    ///
    /// <!-- A crate of its own: its tools need state, and doctests share a binary. -->
    /// ```rust,standalone_crate
    /// use std::sync::Arc;
    /// use toolwright_core::{tool, tool_set};
    /// use toolwright_runtime::ToolRegistry;
    ///
    /// struct Tenant {
    ///     name: String,
    /// }
    ///
    /// #[tool_set]
    /// impl Tenant {
    ///     /// The name of the tenant this session serves.
    ///     #[tool]
    ///     fn tenant_name(&self) -> String {
    ///         self.name.clone()
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// // One registry per tenant, each with its own instance.
    /// let acme = ToolRegistry::new();
    /// acme.register_set(Arc::new(Tenant { name: "acme".into() })).unwrap();
    /// let tool = acme.get("tenant_name").unwrap();
    /// assert!(tool.required_state().is_empty()); // it holds its instance
    /// assert_eq!(tool.call(Default::default()).await.unwrap().content, "acme");
    /// # }
    /// ```
    pub fn register_set<S: ToolSet>(
        &self,
        instance: Arc<S>,
    ) -> Result<Vec<Registration>, RegistryError> {
        self.register_set_with(instance, RegisterOptions::new())
    }

    /// [`register_set`](Self::register_set) with `options` for the set's tools that are not
    /// registered yet (a tool bound again keeps its enabled flag and priority).
    ///
    /// ```rust,standalone_crate
    /// use std::sync::Arc;
    /// use toolwright_core::{tool, tool_set};
    /// use toolwright_runtime::{RegisterOptions, ToolFilter, ToolRegistry};
    ///
    /// struct Plugin;
    ///
    /// #[tool_set]
    /// impl Plugin {
    ///     /// Say what the plugin is.
    ///     #[tool]
    ///     fn plugin_name(&self) -> &'static str {
    ///         "plugin"
    ///     }
    /// }
    ///
    /// let registry = ToolRegistry::new();
    /// registry.register_set_with(Arc::new(Plugin), RegisterOptions::new().enabled(false)).unwrap();
    /// assert!(registry.list(&ToolFilter::new()).is_empty());
    /// ```
    ///
    /// # Errors
    ///
    /// As [`register_set`](Self::register_set).
    pub fn register_set_with<S: ToolSet>(
        &self,
        instance: Arc<S>,
        options: RegisterOptions,
    ) -> Result<Vec<Registration>, RegistryError> {
        let tools = S::tools(&instance);
        let (prompts, resources) = (S::prompts(&instance), S::resources(&instance));
        self.check_set_primitives(&prompts, &resources)?;
        let mut state = self.write();
        for tool in &tools {
            if let Some(existing) = state.entries.get(tool.name())
                && (existing.tool.origin().is_none() || existing.tool.origin() != tool.origin())
            {
                return Err(RegistryError::DuplicateTool {
                    name: tool.name().to_owned(),
                    first: Box::new(existing.tool.source().clone()),
                    second: Box::new(tool.source().clone()),
                });
            }
        }
        let registrations = tools
            .into_iter()
            .map(|tool| {
                // A rebinding keeps what the application decided about the tool.
                let options = match state.entries.get(tool.name()) {
                    Some(existing) => RegisterOptions {
                        enabled: existing.enabled,
                        priority: Some(existing.priority),
                        replace: false,
                    },
                    None => options,
                };
                self.insert(&mut state, tool, options)
            })
            .collect();
        drop(state);
        self.bind_set_primitives(prompts, resources);
        Ok(registrations)
    }

    /// Puts a new registration in, replacing any under its name, and sends its event.
    fn insert(&self, state: &mut State, tool: Tool, options: RegisterOptions) -> Registration {
        let registration = self.new_registration(tool, options);
        if let Some(index) = &mut state.index {
            index.insert(&registration.tool);
        }
        let name = registration.tool.name().to_owned();
        let before = state.entries.insert(name.clone(), registration.clone());
        let kind = match before {
            Some(_) => ChangeKind::Replaced,
            None => ChangeKind::Added,
        };
        self.emit(state, kind, &name, before, Some(registration.clone()));
        registration
    }

    /// The tool named `name`, enabled or not.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().get("nothing").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<Tool> {
        self.read()
            .entries
            .get(name)
            .map(|entry| entry.tool.clone())
    }

    /// The tool named `name` and whether it is enabled, in one read of the registry (a
    /// tool disabled between two reads cannot slip through).
    pub(crate) fn lookup(&self, name: &str) -> Lookup {
        match self.read().entries.get(name) {
            Some(entry) if entry.enabled => Lookup::Enabled(entry.tool.clone()),
            Some(entry) => Lookup::Disabled(entry.tool.clone()),
            None => Lookup::Unknown,
        }
    }

    /// The registration of the tool named `name`.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().registration("nothing").is_none());
    /// ```
    pub fn registration(&self, name: &str) -> Option<Registration> {
        self.read().entries.get(name).cloned()
    }

    /// Every registered name, enabled or not, sorted.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().names().is_empty());
    /// ```
    pub fn names(&self) -> Vec<String> {
        self.read().entries.keys().cloned().collect()
    }

    /// Removes the tool named `name`, returning it; `None` if there was none (removing twice
    /// is harmless).
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().remove("nothing").is_none());
    /// ```
    pub fn remove(&self, name: &str) -> Option<Tool> {
        let mut state = self.write();
        let removed = state.entries.remove(name)?;
        if let Some(index) = &mut state.index {
            index.remove(name);
        }
        let tool = removed.tool.clone();
        self.emit(&mut state, ChangeKind::Removed, name, Some(removed), None);
        Some(tool)
    }

    /// How many tools are registered, enabled or not.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert_eq!(ToolRegistry::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.read().entries.len()
    }

    /// Whether no tool is registered.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.read().entries.is_empty()
    }
}
