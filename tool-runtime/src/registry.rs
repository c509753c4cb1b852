#![doc = include_str!("../docs/registry.md")]

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use std::borrow::Cow;

use toolwright_names::did_you_mean;

use crate::search::SearchIndex;
use toolwright_core::Catalog;
use toolwright_core::CatalogEntry;
use toolwright_core::CatalogHit;
use toolwright_core::CatalogSource;
use toolwright_core::SafetyLevel;
use toolwright_core::Tool;
use toolwright_core::ToolSet;
use toolwright_core::ToolSource;
use toolwright_core::ToolSpec;

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
    /// Linked `#[tool]` functions share names ([`register_all_tools`],
    /// [`ToolRegistry::register_all`]): every clash, each with all its definitions, so one
    /// build shows everything to rename. Nothing is registered.
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
}

/// One name that several linked tools share, with where each is defined (see
/// [`RegistryError::DuplicateTools`]).
///
/// ```
/// use toolwright_runtime::{NameClash, ToolSource};
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

/// A tool in a registry, with the registry's state for it.
///
/// ```
/// use toolwright_runtime::{tool, register_all_tools, ToolRegistry};
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
    /// When the registry registered it (from the registry's clock).
    pub created_at: Timestamp,
}

/// Which tools to list. Every filter that is set must hold (AND); within `categories`,
/// `tags` and `names`, any one match is enough. Disabled tools are left out unless
/// `include_disabled(true)`.
///
/// ```
/// use toolwright_runtime::{SafetyLevel, ToolFilter};
///
/// let filter = ToolFilter::new()
///     .max_safety(SafetyLevel::Cautious)
///     .categories(["filesystem", "math"])
///     .tags(["files"])
///     .include_disabled(false);
/// assert_eq!(filter.safety_ceiling(), Some(SafetyLevel::Cautious));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_safety: Option<SafetyLevel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    categories: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    names: Option<Vec<String>>,
    #[serde(default)]
    include_disabled: bool,
}

impl ToolFilter {
    /// A filter that lets every enabled tool through.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// assert_eq!(ToolFilter::new(), ToolFilter::default());
    /// ```
    pub fn new() -> Self {
        ToolFilter::default()
    }

    /// Only tools at or below `level` (`Cautious`: safe and cautious tools).
    ///
    /// ```
    /// # use toolwright_runtime::{SafetyLevel, ToolFilter};
    /// let filter = ToolFilter::new().max_safety(SafetyLevel::Safe);
    /// # let _ = filter;
    /// ```
    pub fn max_safety(mut self, level: SafetyLevel) -> Self {
        self.max_safety = Some(level);
        self
    }

    /// Only tools in at least one of `categories`.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let filter = ToolFilter::new().categories(["filesystem", "math"]);
    /// # let _ = filter;
    /// ```
    pub fn categories<I, S>(mut self, categories: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.categories = Some(categories.into_iter().map(Into::into).collect());
        self
    }

    /// Only tools with at least one of `tags`.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let filter = ToolFilter::new().tags(["files"]);
    /// # let _ = filter;
    /// ```
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = Some(tags.into_iter().map(Into::into).collect());
        self
    }

    /// Only the tools named in `names` (for exporting exactly the tools offered in one request).
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let filter = ToolFilter::new().names(["read_file", "write_file"]);
    /// # let _ = filter;
    /// ```
    pub fn names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.names = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Whether disabled tools are listed too.
    ///
    /// ```
    /// # use toolwright_runtime::ToolFilter;
    /// let everything = ToolFilter::new().include_disabled(true);
    /// # let _ = everything;
    /// ```
    pub fn include_disabled(mut self, include: bool) -> Self {
        self.include_disabled = include;
        self
    }

    /// The safety ceiling, if one is set.
    ///
    /// ```
    /// use toolwright_runtime::{SafetyLevel, ToolFilter};
    /// assert_eq!(ToolFilter::new().max_safety(SafetyLevel::Safe).safety_ceiling(), Some(SafetyLevel::Safe));
    /// ```
    pub fn safety_ceiling(&self) -> Option<SafetyLevel> {
        self.max_safety
    }

    /// Whether a tool in state `enabled` passes the filter.
    ///
    /// ```
    /// use toolwright_runtime::{tool, register_all_tools, SafetyLevel, ToolFilter};
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
        fn any_of(wanted: &Option<Vec<String>>, have: &[Cow<'static, str>]) -> bool {
            wanted
                .as_ref()
                .is_none_or(|wanted| wanted.iter().any(|w| have.iter().any(|h| h == w)))
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

/// Every registration of a registry, by name: serializable, for persisting an application's
/// choices (which tools are enabled, their priorities) and for tests and debugging.
///
/// ```
/// use toolwright_runtime::{tool, register_all_tools, RegistrySnapshot};
///
/// /// Ping.
/// #[tool]
/// fn ping() -> &'static str { "pong" }
///
/// let registry = register_all_tools().unwrap();
/// registry.set_enabled("ping", false).unwrap();
/// let json = serde_json::to_string(&registry.snapshot()).unwrap();
///
/// let fresh = register_all_tools().unwrap();
/// let saved: RegistrySnapshot = serde_json::from_str(&json).unwrap();
/// let report = fresh.apply_state(&saved);
/// assert!(report.unknown.is_empty());
/// assert!(!fresh.is_enabled("ping"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RegistrySnapshot {
    /// Every registration, sorted by name.
    pub tools: Vec<RegistrationSnapshot>,
}

/// What [`ToolRegistry::apply_state`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyReport {
    /// Tools whose enabled flag and priority were restored.
    pub applied: Vec<String>,
    /// Names in the snapshot that the registry does not have.
    pub unknown: Vec<String>,
}

/// How [`ToolRegistry::register_with`] (and the other `_with` methods) registers a tool.
///
/// The default registers it enabled, at the tool's own priority.
///
/// ```
/// use toolwright_runtime::RegisterOptions;
///
/// let options = RegisterOptions::new().enabled(false).priority(50);
/// assert!(!options.is_enabled());
/// assert_eq!(options.priority_override(), Some(50));
/// assert!(RegisterOptions::default().is_enabled());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterOptions {
    enabled: bool,
    priority: Option<i32>,
    replace: bool,
}

impl Default for RegisterOptions {
    fn default() -> Self {
        RegisterOptions {
            enabled: true,
            priority: None,
            replace: false,
        }
    }
}

impl RegisterOptions {
    /// Enabled, at the tool's own priority.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert_eq!(RegisterOptions::new(), RegisterOptions::default());
    /// ```
    pub fn new() -> Self {
        RegisterOptions::default()
    }

    /// Whether the new registration is enabled. Registered disabled, a tool is never visible
    /// to a model until [`ToolRegistry::set_enabled`] enables it: the registry changes once.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert!(!RegisterOptions::new().enabled(false).is_enabled());
    /// ```
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// The new registration's priority, instead of the tool's own.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert_eq!(RegisterOptions::new().priority(-5).priority_override(), Some(-5));
    /// ```
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Whether the new registration replaces a tool already registered under the same
    /// name, whatever its version (logged at `warn` when the two differ). Without it, a
    /// different tool under a taken name and version is refused
    /// ([`RegistryError::VersionConflict`]).
    ///
    /// ```
    /// use toolwright_runtime::{RegisterOptions, Tool, ToolRegistry};
    ///
    /// let registry = ToolRegistry::new();
    /// let v1 = Tool::builder("greet").description("Say hello.").handler(|_| async { "hello" }).build().unwrap();
    /// let v2 = Tool::builder("greet").description("Say hi.").handler(|_| async { "hi" }).build().unwrap();
    /// registry.register(v1).unwrap();
    /// assert!(registry.register(v2.clone()).is_err());
    /// registry.register_with(v2, RegisterOptions::new().replace(true)).unwrap();
    /// assert_eq!(registry.get("greet").unwrap().description(), "Say hi.");
    /// ```
    pub fn replace(mut self, replace: bool) -> Self {
        self.replace = replace;
        self
    }

    /// Whether these options register enabled.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert!(RegisterOptions::new().is_enabled());
    /// ```
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The priority these options set, if not the tool's own.
    ///
    /// ```
    /// # use toolwright_runtime::RegisterOptions;
    /// assert_eq!(RegisterOptions::new().priority_override(), None);
    /// ```
    pub fn priority_override(&self) -> Option<i32> {
        self.priority
    }
}

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
}

/// One change to one tool of a [`ToolRegistry`], from
/// [`ToolRegistry::subscribe_changes`].
///
/// Each event carries the tool's registration before and after the change, so applying
/// an event (insert `after`, or remove the name when it is `None`) is idempotent: a receiver
/// that re-read the registry can apply events it has already seen without harm.
///
/// ```
/// use toolwright_runtime::{RegisterOptions, Tool, ToolFilter, ToolRegistry};
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
    /// The tool's name.
    pub name: String,
    /// The registry's generation after this change: 1 for the first change, one more for
    /// each change after (a receiver that sees a gap missed events).
    pub generation: u64,
    /// The registration before the change (`None` for [`ChangeKind::Added`]).
    pub before: Option<Registration>,
    /// The registration after the change (`None` for [`ChangeKind::Removed`]).
    pub after: Option<Registration>,
}

impl RegistryChange {
    /// Whether the change may alter what [`ToolRegistry::list`] returns for `filter`: the
    /// tool passed `filter` before or passes it after. A server tells each client about the
    /// changes that concern its view only.
    ///
    /// ```
    /// use toolwright_runtime::{SafetyLevel, Tool, ToolFilter, ToolRegistry};
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
    }
}

/// How many events a [`ToolRegistry::subscribe_changes`] receiver may fall behind before it
/// gets [`RecvError::Lagged`](tokio::sync::broadcast::error::RecvError::Lagged).
///
/// ```
/// use tokio::sync::broadcast::error::TryRecvError;
/// use toolwright_runtime::registry::CHANGE_CAPACITY;
/// use toolwright_runtime::{Tool, ToolRegistry};
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

/// Where a registry reads the time for `created_at`; swap it in tests for a fixed clock.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// One result of [`ToolRegistry::search`].
#[derive(Debug, Clone)]
pub struct SearchHit {
    /// The tool found.
    pub tool: Tool,
    /// Its BM25 relevance to the query (higher is better; only comparable within one search).
    pub score: f64,
}

#[derive(Default)]
struct State {
    entries: BTreeMap<String, Registration>,
    /// The generation of the last change (0: none yet); bumped under the write lock, so
    /// events are numbered in the order their changes happened.
    generation: u64,
    /// Built on the first search, then kept in step with every register and remove
    /// (registering thousands of tools at startup should not pay for an index nobody uses).
    index: Option<SearchIndex>,
}

/// The tools an application offers, by name, with an enabled flag, a priority and a
/// registration time for each, and a search index over them.
///
/// Share one across threads as `Arc<ToolRegistry>`: every method but
/// [`register_all`](Self::register_all) takes `&self`.
///
/// ```
/// use toolwright_runtime::{tool, register_all_tools, SafetyLevel, ToolFilter};
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
    /// use toolwright_runtime::{Tool, ToolRegistry};
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
    /// # use toolwright_runtime::{Tool, ToolRegistry};
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
    fn emit(
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
                name: name.to_owned(),
                generation,
                before,
                after,
            });
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        // Nothing panics while holding the lock, and the state is valid between operations.
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
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
    /// [`ToolSpec`]s are equal; versions decide what replaces what:
    ///
    /// - a new name registers, enabled;
    /// - the same spec again returns the existing registration unchanged;
    /// - a different version replaces the registration with a new one (enabled, new
    ///   `created_at`);
    /// - the same version (both unversioned included) with a different spec is
    ///   [`RegistryError::VersionConflict`]: bump the version to replace a tool.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_runtime::{RegistryError, Tool, ToolRegistry};
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
    /// use toolwright_runtime::{RegisterOptions, Tool, ToolRegistry};
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

    /// Registers the tools of a [`#[tool_set]`](crate::tool_set), each run on `instance`
    /// (see [`ToolSet::tools`]), and returns their registrations in the order the methods
    /// are written.
    ///
    /// A tool of the set already registered (its link-time form, from
    /// [`register_all_tools`], which looks for `Self` in the executor's state, or a binding
    /// to another instance) is replaced, keeping its enabled flag and priority. Any other tool of the same name is
    /// [`RegistryError::DuplicateTool`], and then nothing is registered.
    ///
    /// <!-- A crate of its own: its tools need state, and doctests share a binary. -->
    /// ```rust,standalone_crate
    /// use std::sync::Arc;
    /// use toolwright_runtime::{tool, tool_set, ToolRegistry};
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
    /// use toolwright_runtime::{tool, tool_set, RegisterOptions, ToolFilter, ToolRegistry};
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
    /// use toolwright_runtime::{tool, register_all_tools};
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

    /// Every registration, sorted by name: spec, enabled, priority, `created_at`, source.
    ///
    /// ```
    /// # use toolwright_runtime::ToolRegistry;
    /// assert!(ToolRegistry::new().snapshot().tools.is_empty());
    /// ```
    pub fn snapshot(&self) -> RegistrySnapshot {
        RegistrySnapshot {
            tools: self
                .read()
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
    /// let saved: RegistrySnapshot = serde_json::from_value(serde_json::json!({"tools": [{
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
        report
    }

    /// The enabled tools most relevant to `query`, best first, at most `limit`.
    ///
    /// Relevance is BM25 over each tool's name (split on `_`), description, categories,
    /// tags, and parameter names and descriptions, from an index kept in step with
    /// `register` and `remove`.
    ///
    /// ```
    /// use toolwright_runtime::{tool, register_all_tools};
    ///
    /// /// Send an email message to a recipient.
    /// #[tool(safety = "dangerous", tags("mail"))]
    /// fn send_email(to: String, body: String) -> String { format!("sent to {to}: {body}") }
    ///
    /// let hits = register_all_tools().unwrap().search("email someone a message", 3);
    /// assert_eq!(hits[0].tool.name(), "send_email");
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_filtered(query, limit, &ToolFilter::new())
    }

    /// Like [`search`](Self::search), among the tools that pass `filter` (its safety ceiling,
    /// categories, tags and names).
    ///
    /// ```
    /// # use toolwright_runtime::{SafetyLevel, ToolFilter, ToolRegistry};
    /// let hits = ToolRegistry::new().search_filtered("delete", 5, &ToolFilter::new().max_safety(SafetyLevel::Safe));
    /// assert!(hits.is_empty());
    /// ```
    pub fn search_filtered(
        &self,
        query: &str,
        limit: usize,
        filter: &ToolFilter,
    ) -> Vec<SearchHit> {
        {
            let state = self.read();
            if let Some(index) = &state.index {
                return Self::hits(&state.entries, index, query, limit, filter);
            }
        }
        let mut state = self.write();
        let State { entries, index, .. } = &mut *state;
        let index = index.get_or_insert_with(|| {
            let mut index = SearchIndex::default();
            for entry in entries.values() {
                index.insert(&entry.tool);
            }
            index
        });
        Self::hits(entries, index, query, limit, filter)
    }

    fn hits(
        entries: &BTreeMap<String, Registration>,
        index: &SearchIndex,
        query: &str,
        limit: usize,
        filter: &ToolFilter,
    ) -> Vec<SearchHit> {
        index
            .scores(query)
            .into_iter()
            .filter_map(|(name, score)| {
                let entry = entries.get(&name)?;
                filter
                    .matches(&entry.tool, entry.enabled)
                    .then(|| SearchHit {
                        tool: entry.tool.clone(),
                        score,
                    })
            })
            .take(limit)
            .collect()
    }

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

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish_non_exhaustive()
    }
}

fn unknown<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> RegistryError {
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

/// The tools of a registry that pass a filter, as a running tool sees them (read-only).
struct VisibleTools {
    registry: Arc<ToolRegistry>,
    /// Enabled tools under the call's ceiling.
    filter: ToolFilter,
    /// The tools offered for the request, when the caller said (`CallOptions::allowed_tools`).
    offered: Option<Arc<ToolFilter>>,
}

impl VisibleTools {
    fn offered(&self, tool: &Tool) -> bool {
        self.offered
            .as_ref()
            .is_none_or(|offered| offered.matches(tool, true))
    }
}

fn catalog_entry(tool: &Tool) -> CatalogEntry {
    CatalogEntry::new(
        tool.meta().clone(),
        tool.input_schema().clone(),
        tool.output_schema().cloned(),
    )
}

impl CatalogSource for VisibleTools {
    fn list(&self) -> Vec<CatalogEntry> {
        self.registry
            .list(&self.filter)
            .iter()
            .filter(|tool| self.offered(tool))
            .map(catalog_entry)
            .collect()
    }

    fn search(&self, query: &str, limit: usize) -> Vec<CatalogHit> {
        let hits = match &self.offered {
            // Searched with the ceiling alone, then narrowed: the limit counts offered tools.
            Some(_) => self
                .registry
                .search_filtered(query, usize::MAX, &self.filter),
            None => self.registry.search_filtered(query, limit, &self.filter),
        };
        hits.into_iter()
            .filter(|hit| self.offered(&hit.tool))
            .take(limit)
            .map(|hit| CatalogHit {
                entry: catalog_entry(&hit.tool),
                score: hit.score,
            })
            .collect()
    }

    fn get(&self, name: &str) -> Option<CatalogEntry> {
        let tool = self.registry.get(name)?;
        (self.registry.is_enabled(name) && self.filter.matches(&tool, true) && self.offered(&tool))
            .then(|| catalog_entry(&tool))
    }
}

impl ToolRegistry {
    /// A read-only catalog of the enabled tools that pass `filter`, for a tool's context
    /// ([`ToolContext::with_catalog`](crate::ToolContext::with_catalog)); the executor makes one for each call.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{SafetyLevel, ToolFilter, ToolRegistry};
    ///
    /// let registry = Arc::new(ToolRegistry::new());
    /// let catalog = registry.catalog(ToolFilter::new().max_safety(SafetyLevel::Safe));
    /// assert!(catalog.list().is_empty());
    /// ```
    pub fn catalog(self: &Arc<Self>, filter: ToolFilter) -> Catalog {
        Catalog::new(VisibleTools {
            registry: Arc::clone(self),
            filter: filter.include_disabled(false),
            offered: None,
        })
    }

    /// The catalog a call sees: enabled tools under `ceiling`, among `offered` if given.
    pub(crate) fn call_catalog(
        self: &Arc<Self>,
        ceiling: SafetyLevel,
        offered: Option<&Arc<ToolFilter>>,
    ) -> Catalog {
        Catalog::new(VisibleTools {
            registry: Arc::clone(self),
            filter: ToolFilter::new().max_safety(ceiling),
            offered: offered.cloned(),
        })
    }
}

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
/// use toolwright_runtime::{tool, register_all_tools};
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

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
