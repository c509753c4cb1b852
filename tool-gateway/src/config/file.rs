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
    /// Whether it may use the network.
    #[serde(default)]
    pub(crate) network: bool,
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
