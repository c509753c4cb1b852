//! `McpServer`: what it is made of, and the options a program sets on it.

use std::sync::Arc;
use std::time::Duration;

use toolwright_runtime::Executor;
use toolwright_runtime::executor::CallCounts;

use crate::ask::rounds::{StateClaims, StateSeal};
use crate::client::SessionLog;
use crate::error::ServeError;
use crate::in_flight::InFlight;

/// The setting a refusal of a dangerous call names unless told another
/// ([`McpServer::allow_dangerous_hint`]).
const DEFAULT_ALLOW_DANGEROUS_HINT: &str = "`McpServer::allow_dangerous(true)`";

/// Tools per `tools/list` page.
const DEFAULT_PAGE_SIZE: usize = 100;

/// An MCP server over an [`Executor`]: the handler rmcp calls for each session. Cheap to
/// clone (each HTTP session gets a clone).
///
/// ```
/// use std::sync::Arc;
/// use toolwright_mcp::McpServer;
/// use toolwright_runtime::{Executor, ToolRegistry};
///
/// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
/// let server = McpServer::new(executor)
///     .name("my-tools", "1.0.0")
///     .instructions("Tools for my project.")
///     .allow_dangerous(false)
///     .page_size(50);
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct McpServer {
    pub(super) executor: Executor,
    pub(super) options: Arc<Options>,
    /// Tool calls running, over every clone (an HTTP server's drain waits for them).
    pub(crate) calls: InFlight,
    /// The session's `logging/setLevel` (each session gets its own: `for_session`).
    pub(crate) log: SessionLog,
    /// The session's runs per tool, for per-tool call limits (`for_session`); `None` counts
    /// on the executor (stateless requests, which have no session).
    pub(crate) call_counts: Option<Arc<CallCounts>>,
    /// Whether the transport can notify the client after answering a request: a session,
    /// or a `subscriptions/listen` stream. Not in stateless HTTP mode (`for_stateless_request`),
    /// where each answer is one JSON body: the server then declares no `listChanged`.
    pub(crate) notifies: bool,
    /// Tasks (SEP-2663): the store, their settings, the tasks this replica runs.
    pub(crate) tasks: Arc<crate::tasks::handle::TaskConfig>,
    /// What callers were refused by a limit of approvals, tasks and request states, over
    /// every clone (`/metrics`).
    pub(crate) refused: Arc<crate::refused::LimitRefusals>,
    /// The tools as MCP describes them, per registry generation, over every clone.
    pub(crate) views: Arc<crate::server::views::ToolViews>,
    /// The sessions told when the tools change, over every clone.
    pub(crate) list_watch: Arc<crate::server::watch::ListWatch>,
    /// Every session's resource subscriptions and their limits, over every clone.
    pub(crate) subscription_hub: Arc<crate::server::subscriptions::SubscriptionHub>,
    /// This session's resource subscriptions (each session gets its own: `for_session`).
    pub(crate) subscriptions: Arc<crate::server::subscriptions::SessionSubscriptions>,
}

#[derive(Clone)]
pub(super) struct Options {
    pub(super) name: String,
    pub(super) version: String,
    pub(super) instructions: Option<String>,
    pub(super) page_size: usize,
    pub(super) allow_dangerous: bool,
    /// How a refusal of a dangerous call names the setting that lets such calls run
    /// ([`McpServer::allow_dangerous_hint`]).
    pub(super) allow_dangerous_hint: String,
    pub(super) elicitation: bool,
    /// How `requestState` is sealed and checked (multi round-trip requests).
    pub(super) seal: StateSeal,
}
impl McpServer {
    /// A server for `executor`'s tools.
    pub fn new(executor: Executor) -> Self {
        let hub = Arc::new(crate::server::subscriptions::SubscriptionHub::default());
        McpServer {
            executor,
            options: Arc::new(Options {
                name: default_name(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                instructions: None,
                page_size: DEFAULT_PAGE_SIZE,
                allow_dangerous: false,
                allow_dangerous_hint: DEFAULT_ALLOW_DANGEROUS_HINT.to_owned(),
                elicitation: true,
                seal: StateSeal::random(),
            }),
            calls: InFlight::default(),
            log: SessionLog::default(),
            // Served as it is (stdio, rmcp's `serve`), a server value is one session.
            call_counts: Some(Arc::default()),
            notifies: true,
            tasks: Arc::default(),
            refused: Arc::default(),
            views: Arc::default(),
            list_watch: Arc::default(),
            subscription_hub: Arc::clone(&hub),
            subscriptions: hub.session(),
        }
    }

    fn with(mut self, change: impl FnOnce(&mut Options)) -> Self {
        change(Arc::make_mut(&mut self.options));
        self
    }

    /// The name and version the server reports to clients (`serverInfo` in its answer to
    /// `initialize`). By default the name is the running program's (the file name of
    /// [`std::env::current_exe`] without its extension; `toolwright-mcp` when it cannot be
    /// read) and the version is this crate's, since the program's own version is not known
    /// at run time.
    ///
    /// To announce your package's name and version, give them from your crate, where Cargo
    /// sets them at compile time:
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::McpServer;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let server = McpServer::new(executor)
    ///     .name(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    /// assert_eq!(server.server_name(), ("toolwright-mcp", env!("CARGO_PKG_VERSION")));
    /// ```
    pub fn name(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let (name, version) = (name.into(), version.into());
        self.with(|o| {
            o.name = name;
            o.version = version;
        })
    }

    /// The name and version the server reports to clients: see [`name`](Self::name).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::McpServer;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let server = McpServer::new(Executor::builder(Arc::new(ToolRegistry::new())).build());
    /// // The program running this example, and toolwright-mcp's version.
    /// let program = std::env::current_exe().unwrap();
    /// let stem = program.file_stem().unwrap().to_str().unwrap();
    /// assert_eq!(server.server_name(), (stem, env!("CARGO_PKG_VERSION")));
    /// ```
    pub fn server_name(&self) -> (&str, &str) {
        (&self.options.name, &self.options.version)
    }

    /// Instructions for the client's model about how to use the tools.
    pub fn instructions(self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.with(|o| o.instructions = Some(text))
    }

    /// Tools per `tools/list` page (default 100).
    pub fn page_size(self, size: usize) -> Self {
        self.with(|o| o.page_size = size.max(1))
    }

    /// Let dangerous tools run without asking when the client cannot ask its user (no MCP
    /// elicitation). Off by default: they are refused.
    pub fn allow_dangerous(self, allow: bool) -> Self {
        self.with(|o| o.allow_dangerous = allow)
    }

    /// How the refusal of a dangerous call that nobody could approve names the setting
    /// that lets such calls run, for whoever runs the server: by default this builder's
    /// option (`McpServer::allow_dangerous(true)`); a command-line program names its flag.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # let executor = toolwright_runtime::Executor::builder(Arc::new(toolwright_runtime::ToolRegistry::new())).build();
    /// // A CLI whose `--allow-dangerous` flag calls `allow_dangerous(true)`:
    /// let server = toolwright_mcp::McpServer::new(executor).allow_dangerous_hint("--allow-dangerous");
    /// # let _ = server;
    /// ```
    pub fn allow_dangerous_hint(self, setting: impl Into<String>) -> Self {
        let setting = setting.into();
        self.with(|o| o.allow_dangerous_hint = setting)
    }

    /// Ask the client's user to approve dangerous calls through MCP elicitation when the
    /// client supports it (default on).
    pub fn elicitation(self, ask: bool) -> Self {
        self.with(|o| o.elicitation = ask)
    }

    /// The key that seals the `requestState` of multi round-trip requests (MCP 2026-07-28:
    /// the approval and the questions of a call, answered when the client repeats it). By
    /// default each process has a random key of its own; replicas behind one load balancer
    /// need the same key, so a repeated call may land on any of them (and, for states to be
    /// used once across replicas, shared claims: [`request_state_claims`](Self::request_state_claims)).
    /// Keep it from the tools: whoever holds it can forge an approval.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::McpServer;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let server = McpServer::new(executor.clone()).request_state_key([7u8; 32]).unwrap();
    /// # let _ = server;
    /// assert!(McpServer::new(executor).request_state_key(b"short".to_vec()).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`ServeError::Config`] for a key shorter than 32 bytes.
    pub fn request_state_key(self, key: impl Into<Vec<u8>>) -> Result<Self, ServeError> {
        let codec = rmcp::model::RequestStateCodec::try_new(key).map_err(|error| {
            ServeError::Config(format!(
                "the request state key cannot be used: {error}; give 32 random bytes or more"
            ))
        })?;
        Ok(self.with(|o| o.seal.codec = Some(Arc::new(codec))))
    }

    /// Where the server records which `requestState`s were used, so each is used once
    /// (default: this process's memory). Replicas share one: a `RedisSessionStore` (feature
    /// `redis`) is one.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::{McpServer, MemoryClaims};
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let server = McpServer::new(executor).request_state_claims(Arc::new(MemoryClaims::default()));
    /// # let _ = server;
    /// ```
    pub fn request_state_claims(self, claims: Arc<dyn StateClaims>) -> Self {
        self.with(|o| o.seal.claims = claims)
    }

    /// How long after a call asked its caller the repeated call may come (default 15
    /// minutes); a later one is refused and the caller asked again.
    ///
    /// ```
    /// use std::{sync::Arc, time::Duration};
    /// use toolwright_mcp::McpServer;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let server = McpServer::new(executor).request_state_ttl(Duration::from_secs(120));
    /// # let _ = server;
    /// ```
    pub fn request_state_ttl(self, ttl: Duration) -> Self {
        self.with(|o| o.seal.ttl = ttl)
    }

    /// The most resources one session may subscribe to (`resources/subscribe`, or the
    /// URIs of one `subscriptions/listen` stream; default
    /// [`DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION`](crate::DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION)),
    /// and the most one caller may hold over all its sessions (default
    /// [`DEFAULT_MAX_SUBSCRIPTIONS_PER_PRINCIPAL`](crate::DEFAULT_MAX_SUBSCRIPTIONS_PER_PRINCIPAL)).
    /// A subscription over either is refused at once, naming the limit. Set before serving:
    /// sessions already open keep the limits they started with.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::McpServer;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let server = McpServer::new(executor).max_subscriptions(64, 256);
    /// # let _ = server;
    /// ```
    pub fn max_subscriptions(mut self, per_session: usize, per_principal: usize) -> Self {
        let hub = Arc::new(crate::server::subscriptions::SubscriptionHub::new(
            per_session,
            per_principal,
        ));
        self.subscriptions = hub.session();
        self.subscription_hub = hub;
        self
    }

    /// The executor calls run through.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// Whether dangerous calls run unasked when the client cannot ask
    /// ([`allow_dangerous`](Self::allow_dangerous)).
    pub(crate) fn allows_dangerous(&self) -> bool {
        self.options.allow_dangerous
    }

    /// Whether the client's user is asked to approve dangerous calls
    /// ([`elicitation`](Self::elicitation)).
    pub(crate) fn asks_by_elicitation(&self) -> bool {
        self.options.elicitation
    }
}

/// The name a server announces unless told another: the running program's file name
/// without its extension (`my-tools` for `/usr/local/bin/my-tools` or `my-tools.exe`), or
/// `toolwright-mcp` when it cannot be read or is not Unicode.
fn default_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|path| {
            path.file_stem()
                .and_then(|stem| stem.to_str())
                .filter(|stem| !stem.is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "toolwright-mcp".to_owned())
}
