//! How an upstream's tools are mounted: under which namespace, at which safety, trusted or
//! not, with which fingerprints pinned, within which bounds.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::model::Tool as McpTool;
use toolwright_core::SafetyLevel;

use super::error::UpstreamError;
use super::fingerprint::Fingerprint;
use super::limits::{Rate, UpstreamLimits};
use super::list::ListLimits;
use super::names::{check_namespace, glob_matches, mounted_name, normalise_glob};

/// How an upstream's tools are mounted: under which namespace, at which safety, trusted or
/// not, with which fingerprints pinned, within which bounds.
///
/// ```
/// use toolwright_gateway::upstream::MountOptions;
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
    pub(super) namespace: String,
    pub(super) default_safety: SafetyLevel,
    pub(super) overrides: Vec<(String, SafetyLevel)>,
    pub(super) trusted: bool,
    pub(super) pins: HashMap<String, Fingerprint>,
    pub(super) max_tools: usize,
    pub(super) max_pages: usize,
    pub(super) list_timeout: Duration,
    pub(super) max_tool_bytes: usize,
    pub(super) max_mount_bytes: usize,
    pub(super) primitives: bool,
    pub(super) read_safety: SafetyLevel,
    pub(super) prompt_pins: HashMap<String, Fingerprint>,
    pub(super) resource_pins: HashMap<String, Fingerprint>,
    /// Calls at once and per period, with each caller's share (`limits`).
    pub(super) call_limits: UpstreamLimits,
    pub(super) call_timeout: Option<Duration>,
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
            primitives: true,
            read_safety: SafetyLevel::Safe,
            prompt_pins: HashMap::new(),
            resource_pins: HashMap::new(),
            call_limits: UpstreamLimits::default(),
            call_timeout: None,
        }
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Checks the options without connecting to anything (as [`MountUpstream::mount`](super::MountUpstream::mount)
    /// does first), so a configuration is refused before any server starts.
    ///
    /// ```
    /// use toolwright_gateway::upstream::MountOptions;
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
        })?;
        self.call_limits
            .check()
            .map_err(|reason| UpstreamError::Limits {
                namespace: toolwright_names::escape::escape(&self.namespace).into_owned(),
                reason,
            })
    }

    /// The most calls of the upstream's tools running at once (default: no limit); one
    /// more is refused at once, before it is sent, with a message that names the upstream,
    /// the limit and its value. Each caller (the call's authenticated subject) has a share
    /// of it: [`max_concurrent_per_caller`](Self::max_concurrent_per_caller), by default
    /// half, rounded up. Calls without a caller (the local user) count only here.
    ///
    /// ```
    /// use toolwright_gateway::upstream::MountOptions;
    /// let options = MountOptions::new("github").max_concurrent(8).max_concurrent_per_caller(2);
    /// assert!(options.check().is_ok());
    /// assert!(MountOptions::new("github").max_concurrent(0).check().is_err());
    /// ```
    pub fn max_concurrent(mut self, max: usize) -> Self {
        self.call_limits.max_concurrent = Some(max);
        self
    }

    /// One caller's share of the calls at once (default: half of
    /// [`max_concurrent`](Self::max_concurrent), rounded up; without it, no limit). It
    /// may not be over `max_concurrent`.
    pub fn max_concurrent_per_caller(mut self, max: usize) -> Self {
        self.call_limits.max_concurrent_per_caller = Some(max);
        self
    }

    /// The most calls of the upstream's tools per period (default: no limit), a token
    /// bucket: a call over it is refused at once with when to try again. Each caller has a
    /// share: [`rate_per_caller`](Self::rate_per_caller), by default half.
    ///
    /// ```
    /// use toolwright_gateway::upstream::{MountOptions, Rate};
    /// let options = MountOptions::new("github").rate("600/min".parse::<Rate>().unwrap());
    /// assert!(options.check().is_ok());
    /// ```
    pub fn rate(mut self, rate: Rate) -> Self {
        self.call_limits.rate = Some(rate);
        self
    }

    /// One caller's share of the [`rate`](Self::rate) (default: half of it, rounded up;
    /// without it, no limit). It may not allow more calls than the rate.
    pub fn rate_per_caller(mut self, rate: Rate) -> Self {
        self.call_limits.rate_per_caller = Some(rate);
        self
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
    /// [`ListCut::TooManyTools`](super::ListCut::TooManyTools).
    pub fn max_tools(mut self, max: usize) -> Self {
        self.max_tools = max;
        self
    }

    /// The most pages of `tools/list` read (default 100); a list that goes on is reported as
    /// [`ListCut::TooManyPages`](super::ListCut::TooManyPages).
    pub fn max_pages(mut self, max: usize) -> Self {
        self.max_pages = max.max(1);
        self
    }

    /// The most bytes of one tool's definition as the upstream lists it (its JSON: name,
    /// description, schemas, annotations; default [`DEFAULT_MAX_TOOL_BYTES`], 64 KiB). A
    /// larger one is dropped as soon as its page is read and reported as
    /// [`SkipReason::TooLarge`](super::SkipReason::TooLarge), so an upstream cannot make the gateway hold (and compile)
    /// schemas of any size. One page of `tools/list` is bounded before it is decoded by
    /// the transport: 16 MiB a message.
    ///
    /// ```
    /// use toolwright_gateway::upstream::MountOptions;
    /// let options = MountOptions::new("github").max_tool_bytes(16 * 1024).max_mount_bytes(1 << 20);
    /// assert_eq!(options.namespace(), "github");
    /// ```
    pub fn max_tool_bytes(mut self, max: usize) -> Self {
        self.max_tool_bytes = max;
        self
    }

    /// The most bytes of all the definitions one listing keeps (default
    /// [`DEFAULT_MAX_MOUNT_BYTES`], 16 MiB); the definitions past it are reported as
    /// [`SkipReason::MountFull`](super::SkipReason::MountFull).
    pub fn max_mount_bytes(mut self, max: usize) -> Self {
        self.max_mount_bytes = max;
        self
    }

    /// Whether the upstream's prompts, resources, resource templates and skills are mounted
    /// beside its tools (default: yes, those it declares). Each list is bounded as the
    /// tools' is ([`max_tools`](Self::max_tools) definitions, [`max_pages`](Self::max_pages)
    /// pages, [`max_tool_bytes`](Self::max_tool_bytes) a definition,
    /// [`max_mount_bytes`](Self::max_mount_bytes) all of one list's). When they are, the
    /// resource links in a mounted tool's result name the mounted URIs.
    ///
    /// ```
    /// use toolwright_gateway::upstream::MountOptions;
    /// let tools_only = MountOptions::new("github").primitives(false);
    /// # let _ = tools_only;
    /// ```
    pub fn primitives(mut self, mount: bool) -> Self {
        self.primitives = mount;
        self
    }

    /// The safety of the upstream's prompts, resource reads and skills (default `safe`: they
    /// are read, not run; a read of a `cautious` or `dangerous` one needs what a call of
    /// such a tool needs).
    pub fn read_safety(mut self, level: SafetyLevel) -> Self {
        self.read_safety = level;
        self
    }

    /// Pins the fingerprint of the upstream prompt named `name` (matched by the name a
    /// client sees, as [`pin`](Self::pin) does for tools): when the upstream lists it with
    /// another fingerprint, it is registered disabled and the change reported.
    pub fn pin_prompt(mut self, name: impl Into<String>, fingerprint: Fingerprint) -> Self {
        self.prompt_pins.insert(name.into(), fingerprint);
        self
    }

    /// Pins the fingerprint of the upstream resource, resource template or skill with the
    /// URI `uri` (the upstream's own, or the one it is mounted under).
    pub fn pin_resource(mut self, uri: impl Into<String>, fingerprint: Fingerprint) -> Self {
        self.resource_pins.insert(uri.into(), fingerprint);
        self
    }

    /// How long one call of a mounted tool may take (the tool's own timeout, which the
    /// executor applies instead of its default); by default the executor's.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// How long one page of `tools/list` may take (default 60 s).
    pub fn list_timeout(mut self, timeout: Duration) -> Self {
        self.list_timeout = timeout;
        self
    }

    /// Whether `key` (an exact override or a pin) names the tool mounted as `mounted`.
    pub(super) fn names(&self, key: &str, mounted: &str) -> bool {
        mounted_name(&self.namespace, key).is_some_and(|name| name == mounted)
    }

    /// The pins naming the tool mounted as `mounted`.
    pub(super) fn pins_of<'a>(
        &'a self,
        mounted: &'a str,
    ) -> impl Iterator<Item = Fingerprint> + 'a {
        self.pins
            .iter()
            .filter(move |(key, _)| self.names(key, mounted))
            .map(|(_, pin)| *pin)
    }

    /// The pin of the prompt mounted as `mounted`: one that differs from `actual` if any
    /// does (two spellings may name one prompt).
    pub(super) fn prompt_pin(&self, mounted: &str, actual: Fingerprint) -> Option<Fingerprint> {
        let pins: Vec<Fingerprint> = self
            .prompt_pins
            .iter()
            .filter(|(key, _)| self.names(key, mounted))
            .map(|(_, pin)| *pin)
            .collect();
        pins.iter()
            .find(|pin| **pin != actual)
            .or(pins.first())
            .copied()
    }

    /// The pin of the resource (template, skill) with the upstream URI `uri`, mounted as
    /// `mounted`: one that differs from `actual` if any does.
    pub(super) fn resource_pin(
        &self,
        uri: &str,
        mounted: &str,
        actual: Fingerprint,
    ) -> Option<Fingerprint> {
        let pins: Vec<Fingerprint> = [uri, mounted]
            .iter()
            .filter_map(|key| self.resource_pins.get(*key).copied())
            .collect();
        pins.iter()
            .find(|pin| **pin != actual)
            .or(pins.first())
            .copied()
    }

    /// The safety of `tool`, mounted as `mounted`, by the overrides, then (trusted only)
    /// its annotations, then the default.
    pub(super) fn safety_for(&self, mounted: &str, tool: &McpTool) -> SafetyLevel {
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

    pub(super) fn limits(&self) -> ListLimits {
        ListLimits {
            max_tools: self.max_tools,
            max_pages: self.max_pages,
            timeout: self.list_timeout,
            max_tool_bytes: self.max_tool_bytes,
            max_total_bytes: self.max_mount_bytes,
        }
    }
}
