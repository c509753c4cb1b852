//! The `gateway.toml` file as serde reads it: `[[upstream]]` tables (a stdio `command` or
//! an HTTP `url`, its credentials, safety, pins, limits, confinement) and `[serve]`, which
//! is the serving program's (the CLI's flags) and only kept here.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use toolwright_core::SafetyLevel;

/// A gateway configuration, loaded and checked by [`GatewayConfig::load`] (or
/// [`Checks::load`](super::Checks::load)): other MCP servers to mount, each under a
/// namespace, with our policy for their tools.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use toolwright_gateway::GatewayConfig;
/// use toolwright_runtime::ToolRegistry;
///
/// let config = GatewayConfig::load("gateway.toml".as_ref())?;
/// let registry = Arc::new(ToolRegistry::new());
/// let mounts = config.mount_all(&registry).await?;
/// for mount in &mounts {
///     eprint!("{}", mount.report());
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayConfig {
    #[serde(default)]
    pub(crate) upstream: Vec<toml::Spanned<UpstreamConfig>>,
    /// The serving program's own options (the CLI's `[serve]`); not read here.
    #[serde(default, rename = "serve")]
    pub(crate) _serve: Option<toml::Table>,
    /// Resources declared in the file (`[[resources]]`).
    #[serde(default)]
    pub(crate) resources: Vec<toml::Spanned<ResourceConfig>>,
    /// Prompts declared in the file (`[[prompts]]`).
    #[serde(default)]
    pub(crate) prompts: Vec<toml::Spanned<PromptConfig>>,
    /// What `resources` and `prompts` became at load (their files read).
    #[serde(skip)]
    pub(crate) declared: Declared,
    // Supervision and reload (issue 40, lifecycle): the file-wide defaults, and the file
    // as TOML values, which a reload compares to tell changed upstreams from unchanged.
    /// `[supervise]`: every upstream's supervision unless its own `supervise` says.
    #[serde(default)]
    pub(crate) supervise: Option<super::supervision::SuperviseConfig>,
    /// The whole file as TOML, kept at load.
    #[serde(skip)]
    pub(crate) raw: toml::Table,
}

/// The declared resources and prompts, built at load.
#[derive(Debug, Default)]
pub(crate) struct Declared {
    pub(crate) resources: Vec<toolwright_core::Resource>,
    pub(crate) prompts: Vec<toolwright_core::Prompt>,
}

/// One `[[resources]]`: a fixed URI, or a template (`{var}`) whose `text` or `json` may use
/// its variables; its body is exactly one of `text`, `json`, `file`, `base64`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResourceConfig {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) safety: Option<SafetyLevel>,
    pub(crate) text: Option<String>,
    pub(crate) json: Option<toml::Value>,
    pub(crate) file: Option<PathBuf>,
    pub(crate) base64: Option<String>,
    /// A template variable's completions (`{ id = ["1", "2"] }`).
    #[serde(default)]
    pub(crate) completions: BTreeMap<String, Vec<String>>,
}

/// One `[[prompts]]`: its arguments and the messages it gives.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PromptConfig {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) arguments: Vec<ArgumentConfig>,
    pub(crate) messages: Vec<MessageConfig>,
}

/// An argument of a declared prompt.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArgumentConfig {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) required: bool,
    /// The values `completion/complete` offers (those starting with what was typed).
    #[serde(default)]
    pub(crate) completions: Vec<String>,
}

/// A message of a declared prompt: exactly one of `text`, `image`, `resource`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MessageConfig {
    #[serde(default)]
    pub(crate) role: RoleConfig,
    pub(crate) text: Option<String>,
    /// An image file, beside the configuration.
    pub(crate) image: Option<PathBuf>,
    /// The image's MIME type (by default from its extension).
    pub(crate) mime_type: Option<String>,
    pub(crate) resource: Option<EmbeddedConfig>,
}

/// Who says a message.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RoleConfig {
    #[default]
    User,
    Assistant,
}

/// A resource embedded in a prompt's message: its URI (which may name arguments) and text.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EmbeddedConfig {
    pub(crate) uri: String,
    pub(crate) text: String,
    pub(crate) mime_type: Option<String>,
}

/// What a confined stdio upstream may reach.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SandboxConfig {
    /// Paths it may read (and execute).
    #[serde(default)]
    pub(crate) read: Vec<PathBuf>,
    /// Paths it may read and write.
    #[serde(default)]
    pub(crate) write: Vec<PathBuf>,
    /// Its network: `false` (none, the default), `true` (the host's whole network), or a
    /// list of `host:port` it may reach through an egress proxy and nothing else.
    #[serde(default)]
    pub(crate) network: NetworkConfig,
    /// Where its egress proxy's refusals go, besides the log
    /// (`GatewayConfig::on_egress_refusal`).
    #[cfg(feature = "confine")]
    #[serde(skip)]
    pub(crate) egress_sink: Option<EgressSink>,
}

/// `sandbox.network`: all or nothing, or named hosts only.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub(crate) enum NetworkConfig {
    /// `true`: the host's whole network; `false`: none.
    Whole(bool),
    /// `["api.github.com:443", "10.1.2.0/24:5432"]`: these hosts, through a proxy.
    Hosts(Vec<String>),
}

impl Default for NetworkConfig {
    fn default() -> NetworkConfig {
        NetworkConfig::Whole(false)
    }
}

/// The refusal sink of confined upstreams' egress proxies.
#[cfg(feature = "confine")]
#[derive(Clone)]
pub(crate) struct EgressSink(pub(crate) toolwright_std::egress::RefusalSink);

#[cfg(feature = "confine")]
impl std::fmt::Debug for EgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EgressSink")
    }
}

/// OAuth 2.0 client credentials of an HTTP upstream.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OAuthConfig {
    pub(crate) client_id: String,
    pub(crate) client_secret_file: Option<PathBuf>,
    pub(crate) client_secret_env: Option<String>,
    #[serde(default)]
    pub(crate) scopes: Vec<String>,
    pub(crate) resource: Option<String>,
    pub(crate) token_url: Option<String>,
    /// Authorization servers (issuer URLs) trusted with the secret besides the upstream's
    /// own origin.
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
}

/// `[upstream.callers]`: an HTTP upstream called as each caller (`HttpUpstream::token_exchange`,
/// `principal_tokens`, `identity_header`), each caller with a session of its own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CallersConfig {
    /// Exchange each caller's token (RFC 8693).
    pub(crate) token_exchange: Option<ExchangeConfig>,
    /// A file of tokens by principal (TOML, or JSON for `.json`).
    pub(crate) principal_tokens: Option<PathBuf>,
    /// The header that carries the caller's subject upstream.
    pub(crate) identity_header: Option<String>,
    /// The most callers' sessions at once (`HttpUpstream::max_caller_sessions`).
    pub(crate) max_sessions: Option<usize>,
}

/// `[upstream.callers.token_exchange]`: the gateway as an OAuth client exchanging each
/// caller's token at the upstream's authorization server.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExchangeConfig {
    pub(crate) client_id: String,
    pub(crate) client_secret_file: Option<PathBuf>,
    pub(crate) client_secret_env: Option<String>,
    pub(crate) audience: Option<String>,
    #[serde(default)]
    pub(crate) scopes: Vec<String>,
    pub(crate) resource: Option<String>,
    pub(crate) token_url: Option<String>,
    /// Authorization servers (issuer URLs) trusted with the callers' tokens.
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    /// The most callers' exchanged tokens cached (`TokenExchange::max_cached_tokens`).
    pub(crate) max_cached_tokens: Option<usize>,
}

/// One `[[upstream]]` of a [`GatewayConfig`]: how to reach the server and how to mount it.
/// Connect and mount it with [`mount`](Self::mount).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamConfig {
    pub(crate) namespace: String,
    pub(crate) command: Option<String>,
    #[serde(default)]
    pub(crate) args: Vec<String>,
    #[serde(default)]
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) url: Option<String>,
    pub(crate) token_file: Option<PathBuf>,
    pub(crate) token_env: Option<String>,
    pub(crate) oauth: Option<toml::Spanned<OAuthConfig>>,
    /// Each caller's own credentials (`[upstream.callers]`).
    pub(crate) callers: Option<toml::Spanned<CallersConfig>>,
    pub(crate) safety: Option<SafetyLevel>,
    #[serde(default)]
    pub(crate) trusted: bool,
    #[serde(default)]
    pub(crate) tools: BTreeMap<String, SafetyLevel>,
    #[serde(default)]
    pub(crate) pins: BTreeMap<String, String>,
    /// The most bytes of one message of an HTTP upstream (`HttpUpstream::max_message_bytes`).
    pub(crate) max_message_bytes: Option<usize>,
    /// The most bytes of one tool's definition (`MountOptions::max_tool_bytes`).
    pub(crate) max_tool_bytes: Option<usize>,
    /// The most bytes of all the upstream's definitions (`MountOptions::max_mount_bytes`).
    pub(crate) max_mount_bytes: Option<usize>,
    pub(crate) sandbox: Option<SandboxConfig>,
    #[serde(default)]
    pub(crate) unconfined: bool,
    /// Whether the upstream's prompts, resources and skills are mounted
    /// (`MountOptions::primitives`; default yes).
    pub(crate) primitives: Option<bool>,
    /// The safety of their reads (`MountOptions::read_safety`; default safe).
    pub(crate) read_safety: Option<SafetyLevel>,
    /// Pinned prompts by name (`MountOptions::pin_prompt`).
    #[serde(default)]
    pub(crate) prompt_pins: BTreeMap<String, String>,
    /// Pinned resources, templates and skills by URI (`MountOptions::pin_resource`).
    #[serde(default)]
    pub(crate) resource_pins: BTreeMap<String, String>,
    /// The kernel's limits of a confined stdio upstream.
    pub(crate) limits: Option<toml::Spanned<LimitsConfig>>,
    /// Calls at once (`MountOptions::max_concurrent`; default no limit) and a caller's
    /// share of them (default half).
    pub(crate) max_concurrent: Option<usize>,
    pub(crate) max_concurrent_per_caller: Option<usize>,
    /// Calls per period, `"50/s"` (`MountOptions::rate`; default no limit), and a caller's
    /// share (default half).
    pub(crate) rate: Option<String>,
    pub(crate) rate_per_caller: Option<String>,
    /// Its supervision, over the file's `[supervise]` (issue 40, lifecycle).
    pub(crate) supervise: Option<super::supervision::SuperviseConfig>,
    /// What `supervise` and `[supervise]` came to, at load.
    #[serde(skip)]
    pub(crate) supervision: super::supervision::Supervision,
    /// How its session is opened: `"handshake"` (default), `"2026-07-28"`, `"auto"`
    /// (`StdioUpstream::protocol`), and what that came to at load.
    pub(crate) protocol: Option<String>,
    #[serde(skip)]
    pub(crate) era: crate::upstream::Protocol,
}

/// `limits = { memory = "512MiB", cpu = 1.0, cpu_time = 600, processes = 128,
/// write = "256MiB" }` of a confined stdio upstream, as written (checked in `confine`).
// Without `confine` the table is still parsed (a mistake in it is refused), but never read:
// there are no confined upstreams to limit.
#[cfg_attr(not(feature = "confine"), allow(dead_code))]
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LimitsConfig {
    /// A size (`"512MiB"`) or a number of bytes.
    pub(crate) memory: Option<toml::Value>,
    /// CPUs' worth of time.
    pub(crate) cpu: Option<toml::Value>,
    /// Seconds of CPU time per process.
    pub(crate) cpu_time: Option<toml::Value>,
    /// Processes and threads at once.
    pub(crate) processes: Option<toml::Value>,
    /// The largest file, and the size of its temporary directory.
    pub(crate) write: Option<toml::Value>,
}

impl GatewayConfig {
    /// The upstreams, in the file's order.
    pub fn upstreams(&self) -> impl Iterator<Item = &UpstreamConfig> {
        self.upstream.iter().map(toml::Spanned::get_ref)
    }
}

impl UpstreamConfig {
    /// The namespace its tools are mounted under (`{namespace}_{tool}`).
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// How it is supervised: its `supervise`, over the file's `[supervise]`, over the
    /// defaults.
    pub fn supervision(&self) -> &super::supervision::Supervision {
        &self.supervision
    }
}

/// The line (from 1) of byte `offset` in `text`: where a TOML key or table is, for
/// messages that name the file and line.
///
/// ```
/// assert_eq!(toolwright_gateway::config::line_of("a = 1\nb = 2\n", 6), 2);
/// ```
pub fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(1, |before| {
        before.bytes().filter(|b| *b == b'\n').count() + 1
    })
}
