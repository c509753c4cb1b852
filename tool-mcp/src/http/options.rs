//! How the streamable HTTP server runs: authentication, the Host and Origin checks, limits,
//! sessions.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::SessionStore;

#[cfg(feature = "auth")]
use crate::auth::config::AuthConfig;
#[cfg(feature = "metrics")]
use crate::http::metrics::PrometheusMetrics;

/// How [`McpServer::serve_http_with`](crate::McpServer::serve_http_with) serves: a builder.
///
/// The defaults suit a server for this machine only: no authentication (and then only a
/// loopback address may be bound), `Host` must be `localhost`, `127.0.0.1` or `::1`,
/// requests that carry an `Origin` header are refused (browsers' cross-site requests; allow
/// origins with [`allow_origin`](Self::allow_origin)) unless it is the server's own origin on
/// a loopback address (`http://127.0.0.1:PORT`, `localhost`, `[::1]`: same-origin), bodies up
/// to 4 MiB, at most 1,024 sessions, a session ends after 10 minutes without a request, at
/// most 512 connections, 10 seconds to send a request's header, a connection closed after 5
/// minutes without a byte either way, 30 seconds for a request's body; at most 128
/// connections per peer address until a request on them authenticates, 8
/// `subscriptions/listen` streams per caller; with authentication, each caller (token) at
/// most 64 sessions, 64 connections and 16 tool calls in flight.
///
/// ```
/// # #[cfg(feature = "auth")] fn main() -> Result<(), toolwright_mcp::AuthError> {
/// use std::time::Duration;
/// use toolwright_mcp::{AuthConfig, HttpOptions};
///
/// let options = HttpOptions::new()
///     .auth(AuthConfig::new().token("0123456789abcdef0123456789abcdef", ["tools:safe"])?)
///     .resource_url("https://tools.example.com")
///     .allow_host("tools.example.com")
///     .allow_origin("https://chat.example.com")
///     .max_request_body_bytes(1024 * 1024)
///     .max_sessions(200)
///     .session_idle_timeout(Duration::from_secs(300));
/// assert_eq!(options.max_sessions_limit(), 200);
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "auth"))] fn main() {}
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    #[cfg(feature = "auth")]
    pub(crate) auth: Option<AuthConfig>,
    pub(crate) insecure_no_auth: bool,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) max_request_body_bytes: usize,
    pub(crate) max_sessions: usize,
    pub(crate) session_idle: Duration,
    pub(crate) stateless: bool,
    pub(crate) session_store: Option<Arc<dyn SessionStore>>,
    #[cfg(feature = "auth")]
    pub(crate) resource_url: Option<String>,
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Option<Arc<PrometheusMetrics>>,
    /// What `/readyz` and `/metrics` also report (`status_source`).
    pub(crate) status_sources: Vec<Arc<dyn crate::status::StatusSource>>,
    pub(crate) max_connections: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) connection_idle: Duration,
    pub(crate) max_sessions_per_principal: usize,
    pub(crate) max_calls_per_principal: usize,
    // Shares of the HTTP pools, and the body deadline.
    pub(crate) max_connections_per_address: usize,
    pub(crate) max_connections_per_principal: usize,
    pub(crate) max_listen_streams_per_principal: usize,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_sessions_per_address: usize,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("HttpOptions");
        #[cfg(feature = "auth")]
        f.field("auth", &self.auth);
        f.field("insecure_no_auth", &self.insecure_no_auth)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("max_request_body_bytes", &self.max_request_body_bytes)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle", &self.session_idle)
            .field("stateless", &self.stateless)
            .field("session_store", &self.session_store.is_some());
        #[cfg(feature = "auth")]
        f.field("resource_url", &self.resource_url);
        #[cfg(feature = "metrics")]
        f.field("metrics", &self.metrics.is_some());
        f.field("status_sources", &self.status_sources.len());
        f.field("max_connections", &self.max_connections)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("connection_idle", &self.connection_idle)
            .field(
                "max_sessions_per_principal",
                &self.max_sessions_per_principal,
            )
            .field("max_calls_per_principal", &self.max_calls_per_principal)
            .field(
                "max_connections_per_address",
                &self.max_connections_per_address,
            )
            .field(
                "max_connections_per_principal",
                &self.max_connections_per_principal,
            )
            .field(
                "max_listen_streams_per_principal",
                &self.max_listen_streams_per_principal,
            )
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_sessions_per_address", &self.max_sessions_per_address)
            .finish()
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            #[cfg(feature = "auth")]
            auth: None,
            insecure_no_auth: false,
            allowed_hosts: ["localhost", "127.0.0.1", "::1"]
                .map(str::to_owned)
                .to_vec(),
            allowed_origins: Vec::new(),
            max_request_body_bytes: HttpOptions::DEFAULT_MAX_REQUEST_BODY_BYTES,
            max_sessions: HttpOptions::DEFAULT_MAX_SESSIONS,
            session_idle: HttpOptions::DEFAULT_SESSION_IDLE,
            stateless: false,
            session_store: None,
            #[cfg(feature = "auth")]
            resource_url: None,
            #[cfg(feature = "metrics")]
            metrics: None,
            status_sources: Vec::new(),
            max_connections: HttpOptions::DEFAULT_MAX_CONNECTIONS,
            header_read_timeout: HttpOptions::DEFAULT_HEADER_READ_TIMEOUT,
            connection_idle: HttpOptions::DEFAULT_CONNECTION_IDLE,
            max_sessions_per_principal: HttpOptions::DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
            max_calls_per_principal: HttpOptions::DEFAULT_MAX_CALLS_PER_PRINCIPAL,
            max_connections_per_address: HttpOptions::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            max_connections_per_principal: HttpOptions::DEFAULT_MAX_CONNECTIONS_PER_PRINCIPAL,
            max_listen_streams_per_principal: HttpOptions::DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL,
            body_read_timeout: HttpOptions::DEFAULT_BODY_READ_TIMEOUT,
            max_sessions_per_address: HttpOptions::DEFAULT_MAX_SESSIONS_PER_ADDRESS,
        }
    }
}

impl HttpOptions {
    /// The default largest request body: 4 MiB.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_REQUEST_BODY_BYTES, 4 * 1024 * 1024);
    /// ```
    pub const DEFAULT_MAX_REQUEST_BODY_BYTES: usize = 4 * 1024 * 1024;
    /// The default most open sessions: 1,024.
    ///
    /// ```
    /// use toolwright_mcp::HttpOptions;
    /// assert_eq!(HttpOptions::new().max_sessions_limit(), HttpOptions::DEFAULT_MAX_SESSIONS);
    /// ```
    pub const DEFAULT_MAX_SESSIONS: usize = 1024;
    /// The default time a session may go without a request before it ends: 10 minutes.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_SESSION_IDLE.as_secs(), 600);
    /// ```
    pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(600);
    /// The default most open connections: 512.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_CONNECTIONS, 512);
    /// ```
    pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
    /// The default time a client has to send a request's header: 10 seconds.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_HEADER_READ_TIMEOUT.as_secs(), 10);
    /// ```
    pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default time a connection may go without a byte either way: 5 minutes.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_CONNECTION_IDLE.as_secs(), 300);
    /// ```
    pub const DEFAULT_CONNECTION_IDLE: Duration = Duration::from_secs(300);
    /// The default most sessions one caller (token) may have open: 64.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_SESSIONS_PER_PRINCIPAL, 64);
    /// ```
    pub const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL: usize = 64;
    /// The default most tool calls one caller (token) may have running: 16.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_CALLS_PER_PRINCIPAL, 16);
    /// ```
    pub const DEFAULT_MAX_CALLS_PER_PRINCIPAL: usize = 16;
    /// The default most connections one peer address may hold while no request on them
    /// authenticated (every connection, without authentication): 128.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 128);
    /// ```
    pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 128;
    /// The default most connections one caller (token) may hold: 64.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_CONNECTIONS_PER_PRINCIPAL, 64);
    /// ```
    pub const DEFAULT_MAX_CONNECTIONS_PER_PRINCIPAL: usize = 64;
    /// The default most `subscriptions/listen` streams one caller (token, or peer address
    /// without authentication) may have open: 8.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL, 8);
    /// ```
    pub const DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL: usize = 8;
    /// The default time a request's whole body has to arrive: 30 seconds.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_BODY_READ_TIMEOUT.as_secs(), 30);
    /// ```
    pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default most sessions one peer address may have open without authentication: 256.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::DEFAULT_MAX_SESSIONS_PER_ADDRESS, 256);
    /// ```
    pub const DEFAULT_MAX_SESSIONS_PER_ADDRESS: usize = 256;

    /// The defaults (see the type's documentation).
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new();
    /// assert_eq!(options.max_sessions_limit(), 1024);
    /// ```
    pub fn new() -> Self {
        HttpOptions::default()
    }

    /// Requests to `/mcp` must carry a bearer token that `auth` accepts; the token's scopes
    /// set what the caller may see and call. Serves the protected resource metadata at
    /// `/.well-known/oauth-protected-resource`.
    ///
    /// ```
    /// # fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// use toolwright_mcp::{AuthConfig, HttpOptions};
    /// let options = HttpOptions::new()
    ///     .auth(AuthConfig::new().token("0123456789abcdef0123", ["tools:safe"])?);
    /// # let _ = options;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    pub fn auth(mut self, auth: AuthConfig) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Serve without authentication on a non-loopback address (anyone who can reach the
    /// port can call every tool the executor allows). Without it, binding such an address
    /// without [`auth`](Self::auth) fails.
    ///
    /// ```no_run
    /// # async fn run(executor: toolwright_runtime::Executor) -> Result<(), toolwright_mcp::ServeError> {
    /// // Only on a network you trust.
    /// let options = toolwright_mcp::HttpOptions::new().insecure_no_auth(true);
    /// let server = toolwright_mcp::serve_http_with(executor, "0.0.0.0:8080".parse().unwrap(), options).await?;
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    pub fn insecure_no_auth(mut self, allow: bool) -> Self {
        self.insecure_no_auth = allow;
        self
    }

    /// Also accept requests whose `Host` is `host` (a name or `name:port`), besides the
    /// loopback names. Serving on a non-loopback address accepts that address too.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().allow_host("tools.example.com");
    /// # let _ = options;
    /// ```
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Accept exactly these `Host` values, instead of the loopback names. An empty list
    /// accepts any `Host`: only behind a proxy that checks it.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().allowed_hosts(["tools.example.com"]);
    /// # let _ = options;
    /// ```
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Accept requests from web pages of `origin` (`scheme://host[:port]`, `:*` for any
    /// port). Requests with an `Origin` header not in the list are refused with `403`;
    /// requests without one (programs, not browsers), and on a loopback address requests from
    /// the server's own origin (`http://127.0.0.1:PORT` with its port), are not affected.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new()
    ///     .allow_origin("https://chat.example.com")
    ///     .allow_origin("http://localhost:*");
    /// # let _ = options;
    /// ```
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// The largest request body accepted; larger ones get `413` (default 4 MiB).
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_request_body_bytes(256 * 1024);
    /// # let _ = options;
    /// ```
    pub fn max_request_body_bytes(mut self, bytes: usize) -> Self {
        self.max_request_body_bytes = bytes;
        self
    }

    /// The most sessions open at once (default 1,024, at least 1); a client that would open
    /// one more gets `503`. Sessions that end (closed by the client, idle too long) free
    /// their slot.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_sessions(0).max_sessions_limit(), 1);
    /// ```
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// The most sessions open at once.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_sessions(8).max_sessions_limit(), 8);
    /// ```
    pub fn max_sessions_limit(&self) -> usize {
        self.max_sessions
    }

    /// How long a session may go without a request before it ends (default 10 minutes).
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new()
    ///     .session_idle_timeout(std::time::Duration::from_secs(120));
    /// # let _ = options;
    /// ```
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// No sessions: every POST is answered on its own, with JSON (`tools/call` works without
    /// `initialize` or `Mcp-Session-Id`). For a fleet of servers behind a load balancer.
    /// Without a session the server cannot ask the client anything (no elicitation, so
    /// dangerous tools follow the server's policy), nor send notifications later.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().stateless(true);
    /// # let _ = options;
    /// ```
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Keep what is needed to restore a session in `store` (shared by several servers), so a
    /// client's session survives a restart or a move to another server.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use rmcp::transport::streamable_http_server::session::SessionStore;
    ///
    /// # fn redis_store() -> Arc<dyn SessionStore> { unimplemented!() }
    /// let store: Arc<dyn SessionStore> = redis_store();
    /// let options = toolwright_mcp::HttpOptions::new().session_store(store);
    /// # let _ = options;
    /// ```
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = Some(store);
        self
    }

    /// The public URL of this server as clients reach it (`https://tools.example.com`), the
    /// `resource` of the protected resource metadata and the base of the metadata URL in
    /// `WWW-Authenticate`. Default: `http://` and the address the server listens on.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().resource_url("https://tools.example.com");
    /// # let _ = options;
    /// ```
    #[cfg(feature = "auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    pub fn resource_url(mut self, url: impl Into<String>) -> Self {
        self.resource_url = Some(url.into().trim_end_matches('/').to_owned());
        self
    }

    /// Adds a part of the serving program that reports on `/readyz` (a source that is not
    /// ready makes it answer `503`) and `/metrics` (its metrics beside the server's), asked
    /// at each request: a gateway's upstreams, say.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::status::{Readiness, StatusSource};
    ///
    /// struct Always;
    /// impl StatusSource for Always {
    ///     fn readiness(&self) -> Readiness {
    ///         Readiness::ready()
    ///     }
    /// }
    /// let options = toolwright_mcp::HttpOptions::new().status_source(Arc::new(Always));
    /// # let _ = options;
    /// ```
    pub fn status_source(mut self, source: Arc<dyn crate::status::StatusSource>) -> Self {
        self.status_sources.push(source);
        self
    }

    /// The latency histograms `/metrics` shows (give the executor the same value as a hook).
    /// Without it, `/metrics` shows the executor's counters and the server's gauges only.
    ///
    /// ```
    /// use std::sync::Arc;
    /// let metrics = Arc::new(toolwright_mcp::PrometheusMetrics::new());
    /// let options = toolwright_mcp::HttpOptions::new().metrics(metrics);
    /// # let _ = options;
    /// ```
    #[cfg(feature = "metrics")]
    #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
    pub fn metrics(mut self, metrics: Arc<PrometheusMetrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// The most connections open at once (default 512, at least 1). One more closes a
    /// connection of the caller (principal, or address) holding the most, when it holds
    /// more than the newcomer's would (idle first, then one still sending its body, then a
    /// listening stream; never one whose answer is being made), counted in
    /// `mcp_refusals_total{reason="evicted_connections"}`; else it is answered `503 Service
    /// Unavailable` with `Retry-After` and closed at once, counted in
    /// `mcp_refusals_total{reason="connections"}`. Each caller also has a share:
    /// [`max_connections_per_principal`](Self::max_connections_per_principal),
    /// [`max_connections_per_address`](Self::max_connections_per_address). Keep it below the
    /// process's limit of open files (`ulimit -n`).
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_connections(0);
    /// assert_eq!(options.max_connections_limit(), 1);
    /// ```
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// The most connections open at once.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_connections_limit(), 512);
    /// ```
    pub fn max_connections_limit(&self) -> usize {
        self.max_connections
    }

    /// How long a client has to send the whole header of a request, from when the server
    /// starts waiting for it (default 10 seconds, at least a millisecond): a connection that
    /// sends half a header and stops is closed then, and its slot freed.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new()
    ///     .header_read_timeout(std::time::Duration::from_secs(5));
    /// # let _ = options;
    /// ```
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long a connection may go without a byte read or written before it is closed
    /// (default 5 minutes, at least a millisecond). Event streams send a keep-alive every 15
    /// seconds, so they stay open; in stateless mode, where an answer is one JSON body, keep
    /// it above your longest tool call.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new()
    ///     .connection_idle_timeout(std::time::Duration::from_secs(120));
    /// # let _ = options;
    /// ```
    pub fn connection_idle_timeout(mut self, idle: Duration) -> Self {
        self.connection_idle = idle.max(Duration::from_millis(1));
        self
    }

    /// With authentication, the most sessions one caller may have open at once (default 64,
    /// at least 1): the caller is its token's [`Principal::owner`](crate::Principal::owner).
    /// One more gets `429 Too Many Requests`, counted in
    /// `mcp_refusals_total{reason="principal_sessions"}`, while other callers still get
    /// sessions up to [`max_sessions`](Self::max_sessions).
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_sessions_per_principal(8);
    /// assert_eq!(options.max_sessions_per_principal_limit(), 8);
    /// ```
    pub fn max_sessions_per_principal(mut self, max: usize) -> Self {
        self.max_sessions_per_principal = max.max(1);
        self
    }

    /// The most sessions one caller may have open at once.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_sessions_per_principal_limit(), 64);
    /// ```
    pub fn max_sessions_per_principal_limit(&self) -> usize {
        self.max_sessions_per_principal
    }

    /// With authentication, the most tool calls one caller may have running at once, over
    /// all its sessions (default 16, at least 1). One more is answered with a JSON-RPC error
    /// at once (it does not wait), counted in `mcp_refusals_total{reason="principal_calls"}`;
    /// other callers' calls are not held up behind it. Keep it below the executor's
    /// [`max_concurrent_calls`](toolwright_runtime::ExecutorBuilder::max_concurrent_calls).
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_calls_per_principal(4);
    /// assert_eq!(options.max_calls_per_principal_limit(), 4);
    /// ```
    pub fn max_calls_per_principal(mut self, max: usize) -> Self {
        self.max_calls_per_principal = max.max(1);
        self
    }

    /// The most tool calls one caller may have running at once.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_calls_per_principal_limit(), 16);
    /// ```
    pub fn max_calls_per_principal_limit(&self) -> usize {
        self.max_calls_per_principal
    }

    /// The most connections one peer address may hold while no request on them
    /// authenticated (without authentication: every connection of the address), default
    /// 128, at least 1. One more is closed at once with `429 Too Many Requests` naming the
    /// limit, counted in `mcp_refusals_total{reason="address_connections"}`, unless one of
    /// the address's own connections is idle or still sending its body: that one is closed
    /// instead. Behind a reverse proxy every connection comes from the proxy's address until
    /// it authenticates: raise it to the proxy's pool of connections.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_connections_per_address(32);
    /// assert_eq!(options.max_connections_per_address_limit(), 32);
    /// ```
    pub fn max_connections_per_address(mut self, max: usize) -> Self {
        self.max_connections_per_address = max.max(1);
        self
    }

    /// The most connections one peer address may hold while unauthenticated.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_connections_per_address_limit(), 128);
    /// ```
    pub fn max_connections_per_address_limit(&self) -> usize {
        self.max_connections_per_address
    }

    /// With authentication, the most connections one caller may hold (default 64, at least
    /// 1): a connection counts against the caller ([`Principal::owner`](crate::Principal::owner))
    /// once a request on it authenticates. A request that would make it one more closes an
    /// idle (or still-sending) connection of the caller's, else it is answered `429 Too Many
    /// Requests` naming the limit and its connection closed, counted in
    /// `mcp_refusals_total{reason="principal_connections"}`.
    ///
    /// When the server has [`max_connections`](Self::max_connections) open, a new
    /// connection does not get `503` while a caller holds more than the newcomer's address
    /// would: one of that caller's connections is closed (idle first, then one still
    /// sending its body, then a listening stream; never one whose answer is being made),
    /// counted in `mcp_refusals_total{reason="evicted_connections"}`.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_connections_per_principal(16);
    /// assert_eq!(options.max_connections_per_principal_limit(), 16);
    /// ```
    pub fn max_connections_per_principal(mut self, max: usize) -> Self {
        self.max_connections_per_principal = max.max(1);
        self
    }

    /// The most connections one caller may hold.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_connections_per_principal_limit(), 64);
    /// ```
    pub fn max_connections_per_principal_limit(&self) -> usize {
        self.max_connections_per_principal
    }

    /// The most `subscriptions/listen` streams one caller may have open at once (default 8,
    /// at least 1): per token with authentication, per peer address without. One more is
    /// answered at once with `429 Too Many Requests` and a JSON-RPC error naming the limit,
    /// counted in `mcp_refusals_total{reason="listen_streams"}`.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_listen_streams_per_principal(2);
    /// assert_eq!(options.max_listen_streams_per_principal_limit(), 2);
    /// ```
    pub fn max_listen_streams_per_principal(mut self, max: usize) -> Self {
        self.max_listen_streams_per_principal = max.max(1);
        self
    }

    /// The most `subscriptions/listen` streams one caller may have open.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_listen_streams_per_principal_limit(), 8);
    /// ```
    pub fn max_listen_streams_per_principal_limit(&self) -> usize {
        self.max_listen_streams_per_principal
    }

    /// How long a request's whole body may take to arrive, from when the server starts
    /// reading it (default 30 seconds, at least a millisecond): a body that trickles is
    /// answered `408 Request Timeout` and its connection closed, counted in
    /// `mcp_refusals_total{reason="body_timeout"}`.
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new()
    ///     .body_read_timeout(std::time::Duration::from_secs(10));
    /// assert_eq!(options.body_read_timeout_limit().as_secs(), 10);
    /// ```
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long a request's whole body may take to arrive.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().body_read_timeout_limit().as_secs(), 30);
    /// ```
    pub fn body_read_timeout_limit(&self) -> Duration {
        self.body_read_timeout
    }

    /// Without authentication, the most sessions one peer address may have open at once
    /// (default 256, at least 1). One more gets `429 Too Many Requests` naming the limit,
    /// counted in `mcp_refusals_total{reason="address_sessions"}`. With authentication the
    /// share is per caller ([`max_sessions_per_principal`](Self::max_sessions_per_principal)).
    ///
    /// ```
    /// let options = toolwright_mcp::HttpOptions::new().max_sessions_per_address(16);
    /// assert_eq!(options.max_sessions_per_address_limit(), 16);
    /// ```
    pub fn max_sessions_per_address(mut self, max: usize) -> Self {
        self.max_sessions_per_address = max.max(1);
        self
    }

    /// The most sessions one peer address may have open without authentication.
    ///
    /// ```
    /// assert_eq!(toolwright_mcp::HttpOptions::new().max_sessions_per_address_limit(), 256);
    /// ```
    pub fn max_sessions_per_address_limit(&self) -> usize {
        self.max_sessions_per_address
    }
}
