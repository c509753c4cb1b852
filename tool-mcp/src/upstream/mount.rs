//! Mounting an upstream's tools into a registry: the options (namespace, safety, trust,
//! pins, bounds), the plan of names, the runtime tools that forward their calls, the
//! report, and `refresh`.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::Tool as McpTool;
use serde_json::Value;
use toolwright_core::{SafetyLevel, Tool};
use toolwright_runtime::{RegisterOptions, ToolRegistry};

use super::connection::{ListCut, ListLimits, Upstream};
use super::error::UpstreamError;
use super::fingerprint::Fingerprint;
use super::names::{check_namespace, glob_matches, mounted_name, normalise_glob};

/// The most bytes of an upstream's description kept in a mounted tool's.
const MAX_DESCRIPTION: usize = 4096;

/// How an upstream's tools are mounted: under which namespace, at which safety, trusted or
/// not, with which fingerprints pinned, within which bounds.
///
/// ```
/// use toolwright_mcp::upstream::MountOptions;
/// use toolwright_core::SafetyLevel;
///
/// let options = MountOptions::new("github")
///     .safety("get_*", SafetyLevel::Safe)      // a glob over the names a client sees
///     .safety("delete_repository", SafetyLevel::Dangerous)
///     .trusted(true);                          // its readOnlyHint may lower the rest
/// assert_eq!(options.namespace(), "github");
/// ```
#[derive(Debug, Clone)]
pub struct MountOptions {
    namespace: String,
    default_safety: SafetyLevel,
    overrides: Vec<(String, SafetyLevel)>,
    trusted: bool,
    pins: HashMap<String, Fingerprint>,
    max_tools: usize,
    max_pages: usize,
    list_timeout: Duration,
    max_tool_bytes: usize,
    max_mount_bytes: usize,
}

/// The default of [`MountOptions::max_tool_bytes`]: 64 KiB.
pub const DEFAULT_MAX_TOOL_BYTES: usize = 64 * 1024;

/// The default of [`MountOptions::max_mount_bytes`]: 16 MiB.
pub const DEFAULT_MAX_MOUNT_BYTES: usize = 16 * 1024 * 1024;

impl MountOptions {
    /// Options for mounting under `namespace` (snake_case, at most 32 characters, checked
    /// by [`mount`](super::MountUpstream::mount)): every tool `dangerous`, the upstream not
    /// trusted, nothing pinned, at most 1000 tools in 100 pages, 60 s a page, 64 KiB a
    /// tool's definition and 16 MiB all of them.
    pub fn new(namespace: impl Into<String>) -> Self {
        MountOptions {
            namespace: namespace.into(),
            default_safety: SafetyLevel::Dangerous,
            overrides: Vec::new(),
            trusted: false,
            pins: HashMap::new(),
            max_tools: 1000,
            max_pages: 100,
            list_timeout: Duration::from_secs(60),
            max_tool_bytes: DEFAULT_MAX_TOOL_BYTES,
            max_mount_bytes: DEFAULT_MAX_MOUNT_BYTES,
        }
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Checks the options without connecting to anything (as [`MountUpstream::mount`]
    /// does first), so a configuration is refused before any server starts.
    ///
    /// ```
    /// use toolwright_mcp::upstream::MountOptions;
    /// assert!(MountOptions::new("github").check().is_ok());
    /// let error = MountOptions::new("Git-Hub").check().unwrap_err();
    /// assert!(error.to_string().contains("not snake_case"));
    /// ```
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Namespace`] when the namespace is not a snake_case name of at most
    /// 32 characters that does not end in `_`.
    pub fn check(&self) -> Result<(), UpstreamError> {
        check_namespace(&self.namespace).map_err(|reason| UpstreamError::Namespace {
            namespace: toolwright_names::escape::escape(&self.namespace).into_owned(),
            reason,
        })
    }

    /// The safety of a tool no override names (default: dangerous).
    pub fn default_safety(mut self, level: SafetyLevel) -> Self {
        self.default_safety = level;
        self
    }

    /// The safety of the upstream tools named `pattern`, where `*` stands for any run of
    /// characters. The pattern is matched against the name a client sees, not the
    /// upstream's spelling, so an upstream cannot slip a tool past it by renaming it
    /// (`deleteFile` for `delete_file`): an exact pattern names the tool whose mounted name
    /// it would get (`delete_file`, `deleteFile` and `delete-file` are one), and a glob is
    /// normalised by the same rule (see [`normalise`](super::normalise)) and matched against
    /// the mounted name without its namespace. A pattern without `*` wins over every glob;
    /// among globs, and among exact patterns naming one tool, the first given wins. An
    /// override wins over the annotations.
    pub fn safety(mut self, pattern: impl Into<String>, level: SafetyLevel) -> Self {
        self.overrides.push((pattern.into(), level));
        self
    }

    /// Whether the upstream's annotations may lower a tool's safety (default: no). When
    /// trusted, `readOnlyHint: true` makes a tool no overrides names `safe`, and
    /// `destructiveHint: false` makes it at most `cautious`; never higher than the default.
    pub fn trusted(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// Pins the fingerprint of the upstream tool named `upstream_name`, matched by the name
    /// a client sees (as [`safety`](Self::safety) does: any spelling with the same mounted
    /// name is the same tool): when the upstream lists it with another fingerprint (a
    /// renamed tool has one), the tool is registered disabled and the change reported.
    pub fn pin(mut self, upstream_name: impl Into<String>, fingerprint: Fingerprint) -> Self {
        self.pins.insert(upstream_name.into(), fingerprint);
        self
    }

    /// The most tools read from the upstream (default 1000); the rest are reported as
    /// [`ListCut::TooManyTools`].
    pub fn max_tools(mut self, max: usize) -> Self {
        self.max_tools = max;
        self
    }

    /// The most pages of `tools/list` read (default 100); a list that goes on is reported as
    /// [`ListCut::TooManyPages`].
    pub fn max_pages(mut self, max: usize) -> Self {
        self.max_pages = max.max(1);
        self
    }

    /// The most bytes of one tool's definition as the upstream lists it (its JSON: name,
    /// description, schemas, annotations; default [`DEFAULT_MAX_TOOL_BYTES`], 64 KiB). A
    /// larger one is dropped as soon as its page is read and reported as
    /// [`SkipReason::TooLarge`], so an upstream cannot make the gateway hold (and compile)
    /// schemas of any size. One page of `tools/list` is bounded before it is decoded by
    /// the transport: 16 MiB a message.
    ///
    /// ```
    /// use toolwright_mcp::upstream::MountOptions;
    /// let options = MountOptions::new("github").max_tool_bytes(16 * 1024).max_mount_bytes(1 << 20);
    /// assert_eq!(options.namespace(), "github");
    /// ```
    pub fn max_tool_bytes(mut self, max: usize) -> Self {
        self.max_tool_bytes = max;
        self
    }

    /// The most bytes of all the definitions one listing keeps (default
    /// [`DEFAULT_MAX_MOUNT_BYTES`], 16 MiB); the definitions past it are reported as
    /// [`SkipReason::MountFull`].
    pub fn max_mount_bytes(mut self, max: usize) -> Self {
        self.max_mount_bytes = max;
        self
    }

    /// How long one page of `tools/list` may take (default 60 s).
    pub fn list_timeout(mut self, timeout: Duration) -> Self {
        self.list_timeout = timeout;
        self
    }

    /// Whether `key` (an exact override or a pin) names the tool mounted as `mounted`.
    fn names(&self, key: &str, mounted: &str) -> bool {
        mounted_name(&self.namespace, key).is_some_and(|name| name == mounted)
    }

    /// The pins naming the tool mounted as `mounted`.
    fn pins_of<'a>(&'a self, mounted: &'a str) -> impl Iterator<Item = Fingerprint> + 'a {
        self.pins
            .iter()
            .filter(move |(key, _)| self.names(key, mounted))
            .map(|(_, pin)| *pin)
    }

    /// The safety of `tool`, mounted as `mounted`, by the overrides, then (trusted only)
    /// its annotations, then the default.
    fn safety_for(&self, mounted: &str, tool: &McpTool) -> SafetyLevel {
        let tail = mounted
            .strip_prefix(self.namespace.as_str())
            .and_then(|rest| rest.strip_prefix('_'))
            .unwrap_or(mounted);
        let exact = self
            .overrides
            .iter()
            .find(|(pattern, _)| !pattern.contains('*') && self.names(pattern, mounted));
        let glob = || {
            self.overrides.iter().find(|(pattern, _)| {
                pattern.contains('*') && glob_matches(&normalise_glob(pattern), tail)
            })
        };
        if let Some((_, level)) = exact.or_else(glob) {
            return *level;
        }
        let mut level = self.default_safety;
        if self.trusted
            && let Some(annotations) = &tool.annotations
        {
            if annotations.read_only_hint == Some(true) {
                level = level.min(SafetyLevel::Safe);
            } else if annotations.destructive_hint == Some(false) {
                level = level.min(SafetyLevel::Cautious);
            }
        }
        level
    }

    fn limits(&self) -> ListLimits {
        ListLimits {
            max_tools: self.max_tools,
            max_pages: self.max_pages,
            timeout: self.list_timeout,
            max_tool_bytes: self.max_tool_bytes,
            max_total_bytes: self.max_mount_bytes,
        }
    }
}

/// One upstream tool in the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MountedTool {
    /// The name it is registered under: `{namespace}_{normalised}`.
    pub name: String,
    /// The upstream's own name, used for the forward call (as the upstream sent it; escape
    /// it before showing it).
    pub upstream_name: String,
    /// Its fingerprint as last listed.
    pub fingerprint: Fingerprint,
    /// Its safety level.
    pub safety: SafetyLevel,
    /// Whether it was registered enabled (a pinned tool whose fingerprint differs is not).
    pub enabled: bool,
}

/// An upstream tool whose fingerprint differs from its pin or from the last listing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FingerprintChange {
    /// The mounted name.
    pub name: String,
    /// The upstream's name.
    pub upstream_name: String,
    /// The pinned fingerprint, or the one listed before.
    pub expected: Fingerprint,
    /// The one listed now.
    pub actual: Fingerprint,
    /// Whether `expected` was a pin, and so the tool is now disabled.
    pub pinned: bool,
}

/// An upstream tool that was not mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The upstream's name (as sent; escape it before showing it).
    pub upstream_name: String,
    /// The name it would have had, when it has one.
    pub name: Option<String>,
    /// Why it was not mounted.
    pub reason: SkipReason,
}

/// Why an upstream tool was not mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Other upstream tools map to the same name (or the upstream listed it twice); none of
    /// them is mounted, so which one a name calls never depends on the order of a list.
    SameName {
        /// The other upstream names.
        others: Vec<String>,
    },
    /// A tool that is not this mount's is registered under the name.
    AlreadyRegistered,
    /// No valid tool name could be made of it.
    UnusableName,
    /// The tool builder refused the definition (a schema that is not an object schema, or
    /// not valid JSON Schema); the builder's reason.
    InvalidDefinition(String),
    /// The registry refused it; the registry's reason.
    Registry(String),
    /// Its definition is larger than [`MountOptions::max_tool_bytes`].
    TooLarge {
        /// The bytes of its definition.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Keeping it would have taken the listing's definitions past
    /// [`MountOptions::max_mount_bytes`].
    MountFull {
        /// The bytes of its definition.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
}

/// What a mount or a refresh did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MountReport {
    /// The tools registered now (on a mount, every one mounted).
    pub added: Vec<MountedTool>,
    /// Tools whose fingerprint differs from their pin or from the last listing (each
    /// registered again with the new definition: disabled when pinned).
    pub changed: Vec<FingerprintChange>,
    /// Tools removed from the registry: the upstream no longer lists them, or their new
    /// definition was refused (then also in `skipped`).
    pub removed: Vec<MountedTool>,
    /// Upstream tools not mounted, each with its reason.
    pub skipped: Vec<Skipped>,
    /// Why the upstream's list was not read to its end, if it was not.
    pub cut: Option<ListCut>,
}

impl MountReport {
    /// Whether nothing needs an operator's eye: no change, nothing skipped, the whole list
    /// read.
    pub fn is_clean(&self) -> bool {
        self.changed.is_empty() && self.skipped.is_empty() && self.cut.is_none()
    }
}

impl fmt::Display for MountReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |name: &str| toolwright_names::escape::escape(name).into_owned();
        for tool in &self.added {
            writeln!(
                f,
                "mounted `{}` as `{}` ({}{})",
                shown(&tool.upstream_name),
                tool.name,
                tool.safety,
                if tool.enabled { "" } else { ", disabled" }
            )?;
        }
        for change in &self.changed {
            writeln!(
                f,
                "`{}` changed: fingerprint {} where {} was {}{}",
                change.name,
                change.actual,
                change.expected,
                if change.pinned { "pinned" } else { "listed" },
                if change.pinned { "; disabled" } else { "" }
            )?;
        }
        for tool in &self.removed {
            writeln!(f, "removed `{}` (gone upstream)", tool.name)?;
        }
        for skipped in &self.skipped {
            write!(f, "skipped `{}`", shown(&skipped.upstream_name))?;
            if let Some(name) = &skipped.name {
                write!(f, " (as `{name}`)")?;
            }
            match &skipped.reason {
                SkipReason::SameName { others } => writeln!(
                    f,
                    ": the same name as {}",
                    others
                        .iter()
                        .map(|o| format!("`{}`", shown(o)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )?,
                SkipReason::AlreadyRegistered => {
                    writeln!(f, ": another tool is registered under the name")?
                }
                SkipReason::UnusableName => writeln!(f, ": no valid tool name can be made of it")?,
                SkipReason::InvalidDefinition(reason) | SkipReason::Registry(reason) => {
                    writeln!(f, ": {reason}")?
                }
                SkipReason::TooLarge { bytes, limit } => writeln!(
                    f,
                    ": its definition has {bytes} bytes, more than the limit of {limit} \
                     (max_tool_bytes)"
                )?,
                SkipReason::MountFull { bytes, limit } => writeln!(
                    f,
                    ": its definition ({bytes} bytes) would take the mount past its limit of \
                     {limit} bytes (max_mount_bytes)"
                )?,
            }
        }
        if let Some(cut) = &self.cut {
            writeln!(f, "{cut}")?;
        }
        Ok(())
    }
}

/// An upstream's tools mounted into a registry; made by
/// [`MountUpstream::mount`](super::MountUpstream::mount). It keeps the mapping of names both
/// ways, and [`refresh`](Self::refresh) brings the registry up to the upstream's list.
pub struct Mount {
    registry: Arc<ToolRegistry>,
    upstream: Upstream,
    options: MountOptions,
    /// The mounted tools by mounted name.
    tools: Mutex<BTreeMap<String, MountedTool>>,
    /// The last fingerprint seen under each mounted name, kept after a tool is gone: one
    /// that comes back (under any spelling) with another definition is a change.
    seen: Mutex<HashMap<String, Fingerprint>>,
    report: MountReport,
}

impl fmt::Debug for Mount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mount")
            .field("upstream", &self.upstream)
            .field("namespace", &self.options.namespace)
            .finish_non_exhaustive()
    }
}

/// Mounting into a registry: `registry.mount(&upstream, options).await`.
///
/// Implemented for `Arc<ToolRegistry>` (the registry an `Executor` runs), in this crate
/// because the registry's crate does not know MCP.
pub trait MountUpstream {
    /// Lists `upstream`'s tools and registers each as a runtime tool under
    /// `options`' namespace; see the [module](super) for the rules.
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Namespace`] for a namespace that is not one, or the upstream's
    /// error when its list cannot be read. A tool that cannot be mounted is not an error:
    /// it is in the [`MountReport`].
    fn mount(
        &self,
        upstream: &Upstream,
        options: MountOptions,
    ) -> impl Future<Output = Result<Mount, UpstreamError>> + Send;
}

impl MountUpstream for Arc<ToolRegistry> {
    async fn mount(
        &self,
        upstream: &Upstream,
        options: MountOptions,
    ) -> Result<Mount, UpstreamError> {
        options.check()?;
        let mut mount = Mount {
            registry: self.clone(),
            upstream: upstream.clone(),
            options,
            tools: Mutex::new(BTreeMap::new()),
            seen: Mutex::new(HashMap::new()),
            report: MountReport::default(),
        };
        mount.report = mount.refresh().await?;
        Ok(mount)
    }
}

/// One upstream tool with the name it gets.
struct Planned {
    name: String,
    tool: McpTool,
    fingerprint: Fingerprint,
}

impl Mount {
    /// What the mount did when it was made.
    pub fn report(&self) -> &MountReport {
        &self.report
    }

    /// The upstream.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// The options it was mounted with.
    pub fn options(&self) -> &MountOptions {
        &self.options
    }

    /// The tools mounted now, by mounted name.
    pub fn tools(&self) -> Vec<MountedTool> {
        self.lock().values().cloned().collect()
    }

    /// The upstream's name of the mounted tool `name`.
    pub fn upstream_name(&self, name: &str) -> Option<String> {
        self.lock().get(name).map(|tool| tool.upstream_name.clone())
    }

    /// The mounted name of the upstream's tool `upstream_name`.
    pub fn mounted_name(&self, upstream_name: &str) -> Option<String> {
        self.lock()
            .values()
            .find(|tool| tool.upstream_name == upstream_name)
            .map(|tool| tool.name.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, MountedTool>> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Follows the upstream's `notifications/tools/list_changed` in a task of its own: after
    /// each, [`refresh`](Self::refresh), and `on_report` gets what it did (or why it
    /// failed). The task ends when the upstream is [closed](Upstream::close), or when it is
    /// aborted.
    pub fn follow<F>(self: &Arc<Self>, mut on_report: F) -> tokio::task::JoinHandle<()>
    where
        F: FnMut(Result<MountReport, UpstreamError>) + Send + 'static,
    {
        let mount = self.clone();
        let mut changes = mount.upstream.tool_list_changes();
        tokio::spawn(async move {
            while changes.changed().await {
                on_report(mount.refresh().await);
            }
        })
    }

    /// Removes every mounted tool from the registry (the connection stays open).
    pub fn unmount(&self) -> Vec<MountedTool> {
        let tools = std::mem::take(&mut *self.lock());
        tools
            .into_values()
            .inspect(|tool| drop(self.registry.remove(&tool.name)))
            .collect()
    }

    /// Lists the upstream's tools again and brings the registry up to it: new tools
    /// registered, vanished ones removed, changed ones registered again (disabled when
    /// their pin differs), each in the report. Call it when
    /// [`Upstream::tool_list_changes`] says the list changed.
    ///
    /// # Errors
    ///
    /// The upstream's error when its list cannot be read; the registry is then unchanged.
    pub async fn refresh(&self) -> Result<MountReport, UpstreamError> {
        let listing = self.upstream.list_tools(self.options.limits()).await?;
        let mut report = MountReport {
            cut: listing.cut,
            ..MountReport::default()
        };
        for refused in listing.refused {
            let limit = if refused.total {
                self.options.max_mount_bytes
            } else {
                self.options.max_tool_bytes
            };
            let reason = if refused.total {
                SkipReason::MountFull {
                    bytes: refused.bytes,
                    limit,
                }
            } else {
                SkipReason::TooLarge {
                    bytes: refused.bytes,
                    limit,
                }
            };
            report.skipped.push(Skipped {
                name: mounted_name(&self.options.namespace, &refused.upstream_name),
                upstream_name: refused.upstream_name,
                reason,
            });
        }
        let planned = self.plan(listing.tools, &mut report);
        let mut tools = self.lock();
        // Vanished (or now skipped) tools.
        let keep: std::collections::HashSet<(&str, &str)> = planned
            .iter()
            .map(|p| (p.name.as_str(), p.tool.name.as_ref()))
            .collect();
        let gone: Vec<String> = tools
            .values()
            .filter(|t| !keep.contains(&(t.name.as_str(), t.upstream_name.as_str())))
            .map(|t| t.name.clone())
            .collect();
        for name in gone {
            if let Some(tool) = tools.remove(&name) {
                drop(self.registry.remove(&name));
                report.removed.push(tool);
            }
        }
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        for plan in planned {
            let previous = tools.get(&plan.name).cloned();
            if previous
                .as_ref()
                .is_some_and(|p| p.fingerprint == plan.fingerprint)
            {
                continue;
            }
            // What was last seen under this name, mounted now or gone since.
            let before = seen.insert(plan.name.clone(), plan.fingerprint);
            if previous.is_none() && self.registry.get(&plan.name).is_some() {
                report.skipped.push(Skipped {
                    upstream_name: plan.tool.name.to_string(),
                    name: Some(plan.name),
                    reason: SkipReason::AlreadyRegistered,
                });
                continue;
            }
            // Every pin naming the tool must match (two spellings may name one tool).
            let pin = self
                .options
                .pins_of(&plan.name)
                .find(|pin| *pin != plan.fingerprint)
                .or_else(|| self.options.pins_of(&plan.name).next());
            let pin_differs = pin.is_some_and(|pin| pin != plan.fingerprint);
            let enabled = !pin_differs;
            let safety = self.options.safety_for(&plan.name, &plan.tool);
            let tool = match self.build(&plan, safety) {
                Ok(tool) => tool,
                Err(reason) => {
                    // The old definition does not stay behind the new one's back.
                    if let Some(previous) = tools.remove(&plan.name) {
                        drop(self.registry.remove(&plan.name));
                        report.removed.push(previous);
                    }
                    report.skipped.push(Skipped {
                        upstream_name: plan.tool.name.to_string(),
                        name: Some(plan.name),
                        reason: SkipReason::InvalidDefinition(reason),
                    });
                    continue;
                }
            };
            let registered = self.registry.register_with(
                tool,
                RegisterOptions::new()
                    .enabled(enabled)
                    .replace(previous.is_some()),
            );
            if let Err(error) = registered {
                report.skipped.push(Skipped {
                    upstream_name: plan.tool.name.to_string(),
                    name: Some(plan.name),
                    reason: SkipReason::Registry(error.to_string()),
                });
                continue;
            }
            if previous.is_some() && enabled {
                // A replacement keeps the registration's enabled flag; a pin that matches
                // again enables it.
                drop(self.registry.set_enabled(&plan.name, true));
            }
            let mounted = MountedTool {
                name: plan.name.clone(),
                upstream_name: plan.tool.name.to_string(),
                fingerprint: plan.fingerprint,
                safety,
                enabled,
            };
            match (&previous, pin) {
                (_, Some(pin)) if pin_differs => report.changed.push(FingerprintChange {
                    name: plan.name.clone(),
                    upstream_name: mounted.upstream_name.clone(),
                    expected: pin,
                    actual: plan.fingerprint,
                    pinned: true,
                }),
                (Some(previous), _) => report.changed.push(FingerprintChange {
                    name: plan.name.clone(),
                    upstream_name: mounted.upstream_name.clone(),
                    expected: previous.fingerprint,
                    actual: plan.fingerprint,
                    pinned: false,
                }),
                // Gone and back (or renamed) with another definition: a change too.
                (None, _) => {
                    if let Some(before) = before.filter(|before| *before != plan.fingerprint) {
                        report.changed.push(FingerprintChange {
                            name: plan.name.clone(),
                            upstream_name: mounted.upstream_name.clone(),
                            expected: before,
                            actual: plan.fingerprint,
                            pinned: false,
                        });
                    }
                }
            }
            if previous.is_none() {
                report.added.push(mounted.clone());
            } else if !enabled {
                drop(self.registry.set_enabled(&plan.name, false));
            }
            tools.insert(plan.name, mounted);
        }
        Ok(report)
    }

    /// The name each listed tool gets; the ones that get none or share one are reported.
    fn plan(&self, listed: Vec<McpTool>, report: &mut MountReport) -> Vec<Planned> {
        let mut by_name: BTreeMap<String, Vec<McpTool>> = BTreeMap::new();
        for tool in listed {
            match mounted_name(&self.options.namespace, &tool.name) {
                Some(name) => by_name.entry(name).or_default().push(tool),
                None => report.skipped.push(Skipped {
                    upstream_name: tool.name.to_string(),
                    name: None,
                    reason: SkipReason::UnusableName,
                }),
            }
        }
        let mut planned = Vec::with_capacity(by_name.len());
        for (name, mut group) in by_name {
            if group.len() == 1
                && let Some(tool) = group.pop()
            {
                let fingerprint = Fingerprint::of(&tool);
                planned.push(Planned {
                    name,
                    tool,
                    fingerprint,
                });
                continue;
            }
            let names: Vec<String> = group.iter().map(|t| t.name.to_string()).collect();
            for (i, tool) in group.iter().enumerate() {
                let others = names
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, n)| n.clone())
                    .collect();
                report.skipped.push(Skipped {
                    upstream_name: tool.name.to_string(),
                    name: Some(name.clone()),
                    reason: SkipReason::SameName { others },
                });
            }
        }
        planned
    }

    /// The runtime tool that forwards calls of `plan` to the upstream.
    fn build(&self, plan: &Planned, safety: SafetyLevel) -> Result<Tool, String> {
        let server = self.upstream.server_name().to_owned();
        let namespace = self.options.namespace.clone();
        let upstream_name = plan.tool.name.to_string();
        let shown_name = toolwright_names::escape::escape(&upstream_name).into_owned();
        let description = description(
            &server,
            &namespace,
            &shown_name,
            plan.tool.description.as_deref(),
        );
        let mut builder = Tool::builder(plan.name.clone())
            .description(description)
            .input_schema(Value::Object((*plan.tool.input_schema).clone()))
            .safety(safety);
        if let Some(output) = &plan.tool.output_schema {
            builder = builder.output_schema(Value::Object((**output).clone()));
        }
        let preview = {
            let (server, namespace, shown_name) =
                (server.clone(), namespace.clone(), shown_name.clone());
            move |_: &toolwright_core::ToolContext, arguments: &serde_json::Map<String, Value>| {
                let arguments = Value::Object(arguments.clone()).to_string();
                Ok::<_, toolwright_core::ToolError>(format!(
                    "Call `{shown_name}` on the upstream MCP server `{server}` (mounted as `{namespace}`) with {}",
                    toolwright_names::escape::escape(&arguments)
                ))
            }
        };
        let upstream = self.upstream.clone();
        builder
            .preview(preview)
            .handler_with_context(move |ctx, arguments| {
                let upstream = upstream.clone();
                let upstream_name = upstream_name.clone();
                async move { upstream.call(&ctx, &upstream_name, arguments).await }
            })
            .build()
            .map_err(|error| error.to_string())
    }
}

/// A mounted tool's description: where it comes from, then the upstream's own (characters
/// a reader must not see raw escaped, newlines and tabs kept, at most 4096 bytes).
fn description(server: &str, namespace: &str, upstream_name: &str, own: Option<&str>) -> String {
    let mut text = format!(
        "[Tool `{upstream_name}` of the upstream MCP server `{server}`, mounted as `{namespace}`.]"
    );
    let own = own.map(str::trim).unwrap_or_default();
    if !own.is_empty() {
        let mut cut = own.len().min(MAX_DESCRIPTION);
        while !own.is_char_boundary(cut) {
            cut -= 1;
        }
        let shown = toolwright_names::escape::escape_with(&own[..cut], |c, _, out| {
            if c == '\n' || c == '\t' {
                out.push(c);
            } else {
                toolwright_names::escape::write_rust_escape(c, out);
            }
        });
        text.push(' ');
        text.push_str(&shown);
        if cut < own.len() {
            text.push_str(" [...]");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_say_where_and_escape() {
        let text = description("srv", "ns", "t", Some("safe\u{202e}evil\nline"));
        assert_eq!(
            text,
            "[Tool `t` of the upstream MCP server `srv`, mounted as `ns`.] safe\\u{202e}evil\nline"
        );
        let long = description("srv", "ns", "t", Some(&"é".repeat(5000)));
        assert!(long.ends_with(" [...]"));
        assert!(long.len() < MAX_DESCRIPTION + 200);
    }

    #[test]
    fn safety_by_overrides_trust_and_default() {
        let tool = |name: &str, read_only: Option<bool>, destructive: Option<bool>| {
            let mut tool = McpTool::new(name.to_owned(), "d", serde_json::Map::new());
            let mut annotations = rmcp::model::ToolAnnotations::new();
            annotations.read_only_hint = read_only;
            annotations.destructive_hint = destructive;
            tool.annotations = Some(annotations);
            tool
        };
        let options = MountOptions::new("ns");
        assert_eq!(
            options.safety_for("ns_a", &tool("a", Some(true), None)),
            SafetyLevel::Dangerous
        );
        let trusted = MountOptions::new("ns").trusted(true);
        assert_eq!(
            trusted.safety_for("ns_a", &tool("a", Some(true), None)),
            SafetyLevel::Safe
        );
        assert_eq!(
            trusted.safety_for("ns_a", &tool("a", None, Some(false))),
            SafetyLevel::Cautious
        );
        assert_eq!(
            trusted.safety_for("ns_a", &tool("a", None, None)),
            SafetyLevel::Dangerous
        );
        let globbed = MountOptions::new("ns")
            .safety("get*", SafetyLevel::Safe)
            .safety("*", SafetyLevel::Cautious)
            .safety("get_secret", SafetyLevel::Dangerous);
        assert_eq!(
            globbed.safety_for("ns_get_x", &tool("get_x", None, None)),
            SafetyLevel::Safe
        );
        assert_eq!(
            globbed.safety_for("ns_put_x", &tool("put_x", None, None)),
            SafetyLevel::Cautious
        );
        assert_eq!(
            globbed.safety_for("ns_get_secret", &tool("get_secret", None, None)),
            SafetyLevel::Dangerous
        );
    }
}
