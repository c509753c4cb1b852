//! The connection to an upstream MCP server: rmcp's client over a child process's stdio or
//! streamable HTTP (or any rmcp transport, for tests), the paginated `tools/list` within
//! bounds, `tools/call` forwarded with its cancellation and progress, and
//! `notifications/tools/list_changed` turned into a counter a mount can wait on; the
//! upstream's own requests and log messages handed to `forward`.

// rmcp marks logging and sampling deprecated (SEP-2577, a protocol version clients do not
// speak yet); they are what the protocol versions in use offer.
#![allow(deprecated)]

use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ListToolsRequest,
    LoggingMessageNotificationParam, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, RequestId, ServerResult, Tool as McpTool,
};
use rmcp::service::{
    InboundStreamOrigin, NotificationContext, Peer, PeerRequestOptions, RequestContext, RoleClient,
    RunningService,
};
use rmcp::transport::IntoTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Map, Value};
use sha2::Digest as _;
use tokio::sync::{mpsc, watch};
use toolwright_core::{ToolContext, ToolError, ToolOutput};

use super::error::UpstreamError;
#[cfg(feature = "upstream-http")]
use crate::secret::SecretSource;

use super::forward::{self, Calls};

/// Progress notifications kept for a token no call has claimed yet (one that arrives before
/// the call that sent the token subscribes); the oldest go first.
const EARLY_PROGRESS: usize = 32;

/// Progress notifications queued for one call before newer ones are dropped.
const PROGRESS_QUEUE: usize = 32;

/// The most rounds of input requests (MCP 2026-07-28's multi round-trip requests) one call
/// of a mounted tool answers before it fails.
pub(crate) const MAX_INPUT_ROUNDS: usize = 8;

/// The default of [`HttpUpstream::max_message_bytes`]: 16 MiB.
#[cfg(feature = "upstream-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "upstream-http")))]
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The longest server name shown in descriptions and reports, in characters.
const MAX_SERVER_NAME: usize = 64;

/// Why a `tools/list` stopped before the upstream's last page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListCut {
    /// The upstream listed more tools than [`MountOptions::max_tools`](super::MountOptions::max_tools).
    TooManyTools {
        /// The limit: the tools read.
        limit: usize,
    },
    /// The upstream still had a `nextCursor` after
    /// [`MountOptions::max_pages`](super::MountOptions::max_pages) pages.
    TooManyPages {
        /// The limit: the pages read.
        limit: usize,
    },
    /// The upstream sent a cursor it had sent before (a loop).
    RepeatedCursor {
        /// The page (from 1) that repeated it.
        page: usize,
    },
}

impl std::fmt::Display for ListCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListCut::TooManyTools { limit } => {
                write!(
                    f,
                    "the upstream lists more than {limit} tools; the rest were not read"
                )
            }
            ListCut::TooManyPages { limit } => write!(
                f,
                "the upstream's tool list goes on after {limit} pages; the rest were not read"
            ),
            ListCut::RepeatedCursor { page } => write!(
                f,
                "the upstream repeated a cursor on page {page}; the list was read up to there"
            ),
        }
    }
}

/// The bounds of one `tools/list`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListLimits {
    pub(crate) max_tools: usize,
    pub(crate) max_pages: usize,
    pub(crate) timeout: Duration,
    /// The most bytes of one tool's definition (its JSON as listed).
    pub(crate) max_tool_bytes: usize,
    /// The most bytes of all the definitions kept from one listing.
    pub(crate) max_total_bytes: usize,
}

/// The tools an upstream listed, and why the list stopped early if it did.
pub(crate) struct Listing {
    pub(crate) tools: Vec<McpTool>,
    pub(crate) cut: Option<ListCut>,
    /// The definitions dropped as too large, as soon as their page was read.
    pub(crate) refused: Vec<Refused>,
}

/// A tool definition dropped for its size.
pub(crate) struct Refused {
    /// The upstream's name, at most [`MAX_REFUSED_NAME`] characters of it.
    pub(crate) upstream_name: String,
    /// The bytes of its definition.
    pub(crate) bytes: usize,
    /// Which limit: `true` for the whole listing's, `false` for one definition's.
    pub(crate) total: bool,
}

/// The most characters of a refused tool's name kept for the report (its name may be what
/// made it too large).
const MAX_REFUSED_NAME: usize = 128;

/// The bytes of `tool`'s JSON, counted without building it.
pub(crate) fn definition_bytes(tool: &McpTool) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // A tool that was just decoded from JSON serialises again; on failure count it whole.
    match serde_json::to_writer(&mut count, tool) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// A connection to an upstream MCP server, cheap to clone (one connection, shared).
///
/// Made by [`Upstream::stdio`] (a command started as a child process) or, with the
/// `upstream-http` feature, [`Upstream::http`]; mounted into a registry with
/// [`MountUpstream::mount`](super::MountUpstream::mount).
#[derive(Clone)]
pub struct Upstream {
    inner: Arc<Inner>,
}

struct Inner {
    /// What we were told to connect to: the command or URL, escaped.
    label: String,
    /// The name the server announced, escaped and bounded (the label without one).
    server_name: String,
    peer: Peer<RoleClient>,
    shared: Arc<Shared>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, UpstreamHandler>>>,
    /// What the start kept (a confinement's guard), dropped after the service.
    _kept: Option<Kept>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("label", &self.inner.label)
            .field("server_name", &self.inner.server_name)
            .finish_non_exhaustive()
    }
}

/// What the client handler shares with the connection.
#[derive(Default)]
struct Shared {
    progress: Mutex<ProgressRoutes>,
    /// The mounted tools' calls in flight, to which the upstream's own requests and log
    /// messages go.
    calls: Calls,
    /// The upstream's name as questions and log messages show it (the label until the
    /// handshake names it).
    server_name: Mutex<Arc<str>>,
    /// Counts `notifications/tools/list_changed`.
    changes: watch::Sender<u64>,
    /// Cancelled when the connection is closed.
    closed: tokio_util::sync::CancellationToken,
    /// The most bytes of one message, when the transport enforces one we chose (HTTP): a
    /// closed transport is then said to be maybe that limit's doing.
    message_limit: std::sync::OnceLock<usize>,
}

/// Where each call's progress goes, by token.
#[derive(Default)]
struct ProgressRoutes {
    routes: HashMap<ProgressToken, mpsc::Sender<ProgressNotificationParam>>,
    early: VecDeque<ProgressNotificationParam>,
}

impl Shared {
    fn server_name(&self) -> Arc<str> {
        self.server_name
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// rmcp's client handler for an upstream: progress to the call that sent the token, the
/// tool list's changes to the counter, questions, sampling and log messages to the client
/// of the call they belong to (`forward`).
struct UpstreamHandler {
    shared: Arc<Shared>,
}

impl ClientHandler for UpstreamHandler {
    /// Elicitation (forms) and sampling, which `forward` passes on to the client of the
    /// call that asks; nothing else (no roots, no URL elicitation, no sampling with tools).
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_sampling()
            .build();
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let server = self.shared.server_name();
        tokio::select! {
            answer = forward::elicit(&self.shared.calls, &server, request, origin) => answer,
            () = context.ct.cancelled() => Ok(ElicitResult::new(ElicitationAction::Cancel)),
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, rmcp::ErrorData> {
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let server = self.shared.server_name();
        tokio::select! {
            answer = forward::sample(&self.shared.calls, &server, params, origin) => answer,
            () = context.ct.cancelled() => Err(rmcp::ErrorData::invalid_request("cancelled by the upstream", None)),
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        forward::log(&self.shared.calls, &self.shared.server_name(), params);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let mut routes = self
            .shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match routes.routes.get(&params.progress_token) {
            // Progress is a hint: a call that does not keep up loses some.
            Some(sender) => drop(sender.try_send(params)),
            None => {
                if routes.early.len() >= EARLY_PROGRESS {
                    routes.early.pop_front();
                }
                routes.early.push_back(params);
            }
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.shared.changes.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// Waits for an upstream's `notifications/tools/list_changed`; made by
/// [`Upstream::tool_list_changes`].
#[derive(Debug)]
pub struct ToolListChanges {
    receiver: watch::Receiver<u64>,
    closed: tokio_util::sync::CancellationToken,
}

impl ToolListChanges {
    /// Returns once the upstream said its tool list changed since this watcher was made or
    /// last returned (several notifications in between count as one); `false` once the
    /// connection is closed ([`Upstream::close`]).
    pub async fn changed(&mut self) -> bool {
        tokio::select! {
            biased;
            () = self.closed.cancelled() => false,
            changed = self.receiver.changed() => changed.is_ok(),
        }
    }
}

/// An upstream started as a child process, speaking MCP over its stdin and stdout; made by
/// [`Upstream::stdio`]. What it writes to its stderr reaches ours a line at a time, escaped
/// (no escape sequence of its reaches a terminal) and named after it.
#[derive(Debug, Clone)]
pub struct StdioUpstream {
    command: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
    prepare: Option<Prepare>,
}

/// What a connection keeps for as long as it is open (a confinement's guard).
type Kept = Box<dyn std::any::Any + Send + Sync>;

/// A step run on an upstream's command just before it starts.
type PrepareFn = dyn Fn(&mut std::process::Command) -> std::io::Result<Kept> + Send + Sync;

/// A [`PrepareFn`] shared by the clones of a [`StdioUpstream`].
#[derive(Clone)]
struct Prepare(Arc<PrepareFn>);

impl std::fmt::Debug for Prepare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prepare(..)")
    }
}

impl StdioUpstream {
    /// Sets an environment variable of the child (the rest are inherited).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The child's working directory (default: ours).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Runs `prepare` on the command just before it starts, and keeps what it returns for as
    /// long as the connection is open: how a caller confines the server (toolwright-std's
    /// `Sandbox::confine`, whose guard must outlive the program). An error stops the start.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolwright_mcp::upstream::Upstream;
    ///
    /// let upstream = Upstream::stdio("my-mcp-server", ["--stdio"])
    ///     .prepare(|command| {
    ///         // e.g. toolwright_std::sandbox::Sandbox::new().confine(command)
    ///         command.env_remove("AWS_SECRET_ACCESS_KEY");
    ///         Ok(())
    ///     })
    ///     .connect()
    ///     .await?;
    /// # let _ = upstream;
    /// # Ok(())
    /// # }
    /// ```
    pub fn prepare<F, K>(mut self, prepare: F) -> Self
    where
        F: Fn(&mut std::process::Command) -> std::io::Result<K> + Send + Sync + 'static,
        K: Send + Sync + 'static,
    {
        self.prepare = Some(Prepare(Arc::new(move |command| {
            prepare(command).map(|kept| Box::new(kept) as Kept)
        })));
        self
    }

    /// Starts the command and makes the MCP handshake.
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Spawn`] when the command does not start (or the
    /// [`prepare`](Self::prepare) step fails),
    /// [`UpstreamError::Handshake`] when it does not answer `initialize` (within a minute).
    pub async fn connect(self) -> Result<Upstream, UpstreamError> {
        let label = std::iter::once(&self.command)
            .chain(&self.args)
            .map(|part| part.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        let label = toolwright_names::escape::escape(&label).into_owned();
        let mut command = tokio::process::Command::new(&self.command);
        command.args(&self.args);
        for (key, value) in &self.env {
            command.env(key, value);
        }
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        let spawn_error = |source| UpstreamError::Spawn {
            command: label.clone(),
            source,
        };
        let kept = match &self.prepare {
            Some(Prepare(prepare)) => Some(prepare(command.as_std_mut()).map_err(spawn_error)?),
            None => None,
        };
        let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        if let Some(stderr) = stderr {
            tokio::spawn(relay_stderr(label.clone(), stderr));
        }
        Upstream::connect_keeping(label, transport, kept).await
    }
}

/// How long an upstream has to answer `initialize`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest line of an upstream's stderr we pass on; the rest of a longer one is left out.
const STDERR_LINE_LIMIT: usize = 4096;

/// Passes what an upstream writes to its stderr on to ours, a line at a time: each named
/// after the upstream, escaped (a server, even a confined one, must not drive the person's
/// terminal: set the clipboard, retitle the window, fake a prompt) and at most
/// [`STDERR_LINE_LIMIT`] bytes long, so that memory stays bounded whatever it writes.
async fn relay_stderr(label: String, mut stderr: impl tokio::io::AsyncRead + Unpin) {
    use tokio::io::AsyncReadExt;
    let mut line = Vec::new();
    let mut cut = false;
    let mut chunk = [0u8; 8192];
    loop {
        let read = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        for byte in &chunk[..read] {
            if *byte == b'\n' {
                write_stderr_line(&label, &line, cut);
                line.clear();
                cut = false;
            } else if line.len() < STDERR_LINE_LIMIT {
                line.push(*byte);
            } else {
                cut = true;
            }
        }
    }
    if !line.is_empty() {
        write_stderr_line(&label, &line, cut);
    }
}

/// One line of an upstream's stderr on ours, escaped.
fn write_stderr_line(label: &str, line: &[u8], cut: bool) {
    use std::io::Write;
    let text = String::from_utf8_lossy(line);
    let text = toolwright_names::escape::escape(&text);
    let more = if cut { " [cut]" } else { "" };
    // Nowhere to say that our stderr is gone.
    let _ = writeln!(std::io::stderr().lock(), "upstream `{label}`: {text}{more}");
}

/// An upstream over streamable HTTP; made by [`Upstream::http`].
#[cfg(feature = "upstream-http")]
#[derive(Debug, Clone)]
pub struct HttpUpstream {
    url: String,
    token: Option<SecretSource>,
    max_message_bytes: usize,
    #[cfg(feature = "upstream-oauth")]
    credentials: Option<super::oauth::ClientCredentials>,
}

#[cfg(feature = "upstream-http")]
impl HttpUpstream {
    /// Sends `Authorization: Bearer <token>` with the token read from `path` (surrounding
    /// whitespace trimmed) when connecting.
    pub fn bearer_token_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.token = Some(SecretSource::File(path.into()));
        #[cfg(feature = "upstream-oauth")]
        {
            self.credentials = None;
        }
        self
    }

    /// The most bytes of one message read from the upstream (a JSON response body, or one
    /// event of a stream), counted before it is decoded; default
    /// [`DEFAULT_MAX_MESSAGE_BYTES`], 16 MiB. A larger one fails its request (a page of
    /// `tools/list` among them) rather than being held.
    ///
    /// ```
    /// use toolwright_mcp::upstream::Upstream;
    /// let upstream = Upstream::http("https://tools.example.com/mcp").max_message_bytes(1 << 20);
    /// # let _ = upstream;
    /// ```
    pub fn max_message_bytes(mut self, max: usize) -> Self {
        self.max_message_bytes = max;
        self
    }

    /// Sends `Authorization: Bearer <token>` with the token read from the environment
    /// variable `name` when connecting.
    pub fn bearer_token_env(mut self, name: impl Into<String>) -> Self {
        self.token = Some(SecretSource::Env(name.into()));
        #[cfg(feature = "upstream-oauth")]
        {
            self.credentials = None;
        }
        self
    }

    /// Authorises with an OAuth 2.0 client credentials grant instead of a static token
    /// (feature `upstream-oauth`): when connecting, the secret is read, the token endpoint
    /// found (the MCP server's RFC 9728 metadata, then its authorization server's RFC 8414
    /// metadata, or [`ClientCredentials::token_url`](super::ClientCredentials::token_url))
    /// and a token fetched; every request carries it. A token that has expired, or that the
    /// server answers with 401, is replaced by a new one from the same credentials (once per
    /// request). Replaces a bearer token set before, as they replace this.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolwright_mcp::upstream::UpstreamError> {
    /// use toolwright_mcp::upstream::{ClientCredentials, Upstream};
    ///
    /// let upstream = Upstream::http("https://tools.example.com/mcp")
    ///     .client_credentials(
    ///         ClientCredentials::secret_file("toolwright-gateway", "/run/secrets/tools-client")
    ///             .scopes(["tools:read", "tools:write"]),
    ///     )
    ///     .connect()
    ///     .await?;
    /// # let _ = upstream;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "upstream-oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "upstream-oauth")))]
    pub fn client_credentials(mut self, credentials: super::oauth::ClientCredentials) -> Self {
        self.token = None;
        self.credentials = Some(credentials);
        self
    }

    /// Reads the token, if any, and makes the MCP handshake.
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Token`] when the token cannot be read or is empty,
    /// [`UpstreamError::ClientSecret`] and [`UpstreamError::OAuth`] when client credentials
    /// give no token, [`UpstreamError::Handshake`] when the server does not answer
    /// `initialize`.
    pub async fn connect(self) -> Result<Upstream, UpstreamError> {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

        let label = toolwright_names::escape::escape(&self.url).into_owned();
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.clone());
        // Bounded before decoding: the upstream chooses how much it sends.
        config.max_json_response_size = self.max_message_bytes;
        config.max_sse_event_size = self.max_message_bytes;
        #[cfg(feature = "upstream-oauth")]
        if let Some(credentials) = &self.credentials {
            let client = super::oauth::authorise(&self.url, &label, credentials).await?;
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let upstream = Upstream::connect_transport(label, transport).await?;
            let _ = upstream
                .inner
                .shared
                .message_limit
                .set(self.max_message_bytes);
            return Ok(upstream);
        }
        if let Some(source) = &self.token {
            let token = source.read().map_err(|error| UpstreamError::Token {
                upstream: label.clone(),
                from: toolwright_names::escape::escape(&error.from).into_owned(),
                reason: error.reason,
            })?;
            config = config.auth_header(token);
        }
        let transport = StreamableHttpClientTransport::from_config(config);
        let upstream = Upstream::connect_transport(label, transport).await?;
        let _ = upstream
            .inner
            .shared
            .message_limit
            .set(self.max_message_bytes);
        Ok(upstream)
    }
}

impl Upstream {
    /// An upstream started as `command args...` (found on `PATH` as `std::process::Command`
    /// finds it); set its environment and directory on the [`StdioUpstream`], then
    /// [`connect`](StdioUpstream::connect).
    ///
    /// The server runs with this process's rights and environment unless
    /// [`StdioUpstream::prepare`] confines it: with toolwright-std's `Sandbox` it gets
    /// `run_command`'s walls and sees only what it is granted (the CLI does this for every
    /// stdio upstream that its configuration does not mark `unconfined`).
    pub fn stdio<I, S>(command: impl Into<OsString>, args: I) -> StdioUpstream
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        StdioUpstream {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            prepare: None,
        }
    }

    /// An upstream at a streamable HTTP `url` (`https://host/mcp`); give it a bearer token
    /// on the [`HttpUpstream`], then [`connect`](HttpUpstream::connect).
    #[cfg(feature = "upstream-http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "upstream-http")))]
    pub fn http(url: impl Into<String>) -> HttpUpstream {
        HttpUpstream {
            url: url.into(),
            token: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            #[cfg(feature = "upstream-oauth")]
            credentials: None,
        }
    }

    /// Connects over any rmcp client transport (an in-process duplex stream in tests).
    /// `label` names the upstream in errors. Not part of the API.
    #[doc(hidden)]
    pub async fn connect_transport<T, E, A>(
        label: impl Into<String>,
        transport: T,
    ) -> Result<Upstream, UpstreamError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        Upstream::connect_keeping(label.into(), transport, None).await
    }

    /// Connects over `transport`, keeping `kept` for as long as the connection is open.
    async fn connect_keeping<T, E, A>(
        label: String,
        transport: T,
        kept: Option<Kept>,
    ) -> Result<Upstream, UpstreamError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let shared = Arc::new(Shared::default());
        *shared
            .server_name
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Arc::from(label.as_str());
        let handler = UpstreamHandler {
            shared: shared.clone(),
        };
        // A server that never answers must not keep us from starting (the gateway starts
        // its upstreams before it serves).
        let service = tokio::time::timeout(HANDSHAKE_TIMEOUT, handler.serve(transport))
            .await
            .map_err(|_| UpstreamError::Handshake {
                upstream: label.clone(),
                reason: format!(
                    "no answer to `initialize` within {} seconds",
                    HANDSHAKE_TIMEOUT.as_secs()
                ),
            })?
            .map_err(|error| UpstreamError::Handshake {
                upstream: label.clone(),
                reason: toolwright_names::escape::escape(&error.to_string()).into_owned(),
            })?;
        let server_name = service
            .peer_info()
            .and_then(|info| info.server_info.as_ref().map(|i| i.name.clone()))
            .filter(|name| !name.trim().is_empty())
            .map(|name| {
                let bounded: String = name.chars().take(MAX_SERVER_NAME).collect();
                toolwright_names::escape::escape(&bounded).into_owned()
            })
            .unwrap_or_else(|| label.clone());
        let peer = service.peer().clone();
        // Requests during the handshake named the upstream by its label; later ones by
        // its name.
        *shared
            .server_name
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Arc::from(server_name.as_str());
        Ok(Upstream {
            inner: Arc::new(Inner {
                label,
                server_name,
                peer,
                shared,
                service: tokio::sync::Mutex::new(Some(service)),
                _kept: kept,
            }),
        })
    }

    /// What we connected to: the command line or the URL, escaped.
    pub fn label(&self) -> &str {
        &self.inner.label
    }

    /// The name the server announced in its handshake (escaped, at most 64 characters), or
    /// the [`label`](Self::label) when it gave none.
    pub fn server_name(&self) -> &str {
        &self.inner.server_name
    }

    /// A watcher of the upstream's `notifications/tools/list_changed`: after it returns,
    /// [`Mount::refresh`](super::Mount::refresh) reads the list again.
    pub fn tool_list_changes(&self) -> ToolListChanges {
        let mut receiver = self.inner.shared.changes.subscribe();
        receiver.mark_unchanged();
        ToolListChanges {
            receiver,
            closed: self.inner.shared.closed.clone(),
        }
    }

    /// Closes the connection (a child process is asked to exit, then killed). Calls in
    /// flight fail; later calls fail at once.
    pub async fn close(&self) {
        self.inner.shared.closed.cancel();
        let service = self.inner.service.lock().await.take();
        if let Some(service) = service {
            drop(service.cancel().await);
        }
    }

    fn request_error(&self, method: &'static str, error: impl std::fmt::Display) -> UpstreamError {
        UpstreamError::Request {
            upstream: self.inner.label.clone(),
            method,
            reason: toolwright_names::escape::escape(&error.to_string()).into_owned(),
        }
    }

    /// [`request_error`](Self::request_error) for `tools/list`, naming the message limit
    /// when the transport closed under it (a larger answer is dropped unread).
    fn list_error(&self, error: rmcp::ServiceError) -> UpstreamError {
        let closed = matches!(error, rmcp::ServiceError::TransportClosed);
        match self.inner.shared.message_limit.get() {
            Some(limit) if closed => self.request_error(
                "tools/list",
                format!(
                    "{error}: the answer was refused unread if it was larger than the limit of \
                     {limit} bytes a message (`max_message_bytes`)"
                ),
            ),
            _ => self.request_error("tools/list", error),
        }
    }

    /// Every page of `tools/list`, within `limits`.
    pub(crate) async fn list_tools(&self, limits: ListLimits) -> Result<Listing, UpstreamError> {
        const METHOD: &str = "tools/list";
        let mut tools = Vec::new();
        let mut refused = Vec::new();
        let mut total: usize = 0;
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        let mut page = 0;
        loop {
            if page == limits.max_pages {
                return Ok(Listing {
                    tools,
                    cut: Some(ListCut::TooManyPages {
                        limit: limits.max_pages,
                    }),
                    refused,
                });
            }
            page += 1;
            let request = ClientRequest::ListToolsRequest(ListToolsRequest {
                method: Default::default(),
                params: Some(PaginatedRequestParams::default().with_cursor(cursor.take())),
                extensions: Default::default(),
            });
            let options = PeerRequestOptions::with_timeout(limits.timeout);
            let handle = self
                .inner
                .peer
                .send_request_with_option(request, options)
                .await
                .map_err(|e| self.list_error(e))?;
            let result = match handle.await_response().await {
                Ok(ServerResult::ListToolsResult(result)) => result,
                Ok(_) => {
                    return Err(UpstreamError::UnexpectedResult {
                        upstream: self.inner.label.clone(),
                        method: METHOD,
                    });
                }
                Err(e) => return Err(self.list_error(e)),
            };
            // Refused definitions count too: an upstream cannot list for ever by sending
            // only ones too large to keep.
            let room = limits.max_tools.saturating_sub(tools.len() + refused.len());
            let more_than_room = result.tools.len() > room;
            // Each definition is measured as its page arrives, and one too large dropped at
            // once: what a listing keeps is bounded by the limits, not by the upstream.
            for tool in result.tools.into_iter().take(room) {
                let bytes = definition_bytes(&tool);
                let too_large = bytes > limits.max_tool_bytes;
                if too_large || total.saturating_add(bytes) > limits.max_total_bytes {
                    refused.push(Refused {
                        upstream_name: tool.name.chars().take(MAX_REFUSED_NAME).collect(),
                        bytes,
                        total: !too_large,
                    });
                    continue;
                }
                total += bytes;
                tools.push(tool);
            }
            if more_than_room {
                return Ok(Listing {
                    tools,
                    cut: Some(ListCut::TooManyTools {
                        limit: limits.max_tools,
                    }),
                    refused,
                });
            }
            match result.next_cursor {
                None => {
                    return Ok(Listing {
                        tools,
                        cut: None,
                        refused,
                    });
                }
                Some(next) => {
                    // The digest, not the cursor: the upstream chooses its size.
                    let digest: [u8; 32] = sha2::Sha256::digest(next.as_bytes()).into();
                    if !seen.insert(digest) {
                        return Ok(Listing {
                            tools,
                            cut: Some(ListCut::RepeatedCursor { page }),
                            refused,
                        });
                    }
                    cursor = Some(next);
                }
            }
        }
    }

    /// Calls `name` upstream with `arguments`: progress to `ctx`, and a cancelled `ctx` (or
    /// a dropped call) cancels the upstream request. An upstream that answers with input
    /// requests (MCP 2026-07-28's multi round-trip requests) has them answered through
    /// `ctx`'s client and the call repeated with the answers, at most
    /// [`MAX_INPUT_ROUNDS`] times. The call is recorded on `ctx` as a side effect, so a
    /// question (the upstream's, mid-call or as input requests) is never answered by
    /// repeating our call, which would call the upstream again.
    pub(crate) async fn call(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<ToolOutput, ToolError> {
        let failed = |reason: String| {
            ToolError::new(format!(
                "the upstream MCP server `{}` could not run `{}`: {reason}",
                self.inner.server_name,
                toolwright_names::escape::escape(name)
            ))
        };
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let mut rounds = 0;
        loop {
            let result = self.call_once(ctx, params.clone(), &failed).await?;
            match result {
                Ok(ServerResult::CallToolResult(result)) => {
                    return crate::content::from_upstream(result).map_err(|reason| {
                        ToolError::new(format!(
                            "`{}` of the upstream MCP server `{}`: {reason}",
                            toolwright_names::escape::escape(name),
                            self.inner.server_name
                        ))
                    });
                }
                Ok(ServerResult::InputRequiredResult(asked)) => {
                    rounds += 1;
                    if rounds > MAX_INPUT_ROUNDS {
                        return Err(failed(format!(
                            "it still asked for input after {MAX_INPUT_ROUNDS} rounds of \
                             answers, the most a mounted tool's call forwards"
                        )));
                    }
                    let responses = forward::answer_input_requests(
                        ctx,
                        &self.inner.server_name,
                        asked.input_requests.unwrap_or_default(),
                    )
                    .await
                    .map_err(|reason| failed(format!("it asked for input: {reason}")))?;
                    params.input_responses = Some(responses);
                    params.request_state = asked.request_state;
                }
                Ok(ServerResult::CreateTaskResult(_)) => {
                    return Err(failed(
                        "it answered with a task, which mounted tools do not follow yet".to_owned(),
                    ));
                }
                Ok(_) => {
                    return Err(failed(
                        "it answered with an unexpected kind of result".to_owned(),
                    ));
                }
                Err(e) => return Err(failed(escaped(&e))),
            }
        }
    }

    /// One `tools/call` upstream, registered for the upstream's requests while it runs.
    async fn call_once(
        &self,
        ctx: &ToolContext,
        params: CallToolRequestParams,
        failed: &impl Fn(String) -> ToolError,
    ) -> Result<Result<ServerResult, rmcp::ServiceError>, ToolError> {
        let call_name = params.name.to_string();
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        // The upstream may ask a question as soon as it has the request: the call is
        // registered before the gate lets a question be routed.
        let gate = self.inner.shared.calls.gate().await;
        let handle = self
            .inner
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| failed(escaped(&e)))?;
        // The upstream now runs the call: a side effect of ours, whatever the tool does.
        // Recorded, a question that could only be answered by repeating our call (MCP
        // 2026-07-28's rounds: the client answers by calling again, and our tool runs again
        // from the start) is refused instead of ending the round: the retry would call the
        // upstream a second time for one approval, while this call goes on. A client that
        // answers while the call waits (the handshake-era sessions) is asked as before, so
        // in both eras one approval means one upstream call.
        ctx.record_side_effect(format!(
            "a call of `{}` was sent to the upstream MCP server `{}`",
            toolwright_names::escape::escape(&call_name),
            self.inner.server_name
        ));
        let _registered = self.inner.shared.calls.register(handle.id.clone(), ctx);
        drop(gate);
        let mut cancel = CancelOnDrop {
            peer: Some(self.inner.peer.clone()),
            id: handle.id.clone(),
        };
        let mut progress = self.subscribe_progress(handle.progress_token.clone());
        let response = handle.await_response();
        tokio::pin!(response);
        let cancelled = ctx.cancellation_token().clone();
        let result = loop {
            tokio::select! {
                result = &mut response => break result,
                Some(update) = progress.receiver.recv() => {
                    ctx.report_progress(
                        update.progress,
                        update.total,
                        update.message.as_deref().map(escaped_str).unwrap_or_default(),
                    );
                }
                () = cancelled.cancelled() => {
                    // `cancel` sends notifications/cancelled as it drops.
                    return Err(ToolError::new("the call was cancelled"));
                }
            }
        };
        cancel.peer = None;
        // Progress sent just before the result.
        while let Ok(update) = progress.receiver.try_recv() {
            ctx.report_progress(
                update.progress,
                update.total,
                update
                    .message
                    .as_deref()
                    .map(escaped_str)
                    .unwrap_or_default(),
            );
        }
        Ok(result)
    }

    fn subscribe_progress(&self, token: ProgressToken) -> ProgressSubscription {
        let (sender, receiver) = mpsc::channel(PROGRESS_QUEUE);
        let mut routes = self
            .inner
            .shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let early = std::mem::take(&mut routes.early);
        for update in early {
            if update.progress_token == token {
                drop(sender.try_send(update));
            } else {
                routes.early.push_back(update);
            }
        }
        routes.routes.insert(token.clone(), sender);
        ProgressSubscription {
            shared: self.inner.shared.clone(),
            token,
            receiver,
        }
    }
}

fn escaped(error: &impl std::fmt::Display) -> String {
    toolwright_names::escape::escape(&error.to_string()).into_owned()
}

fn escaped_str(text: &str) -> String {
    toolwright_names::escape::escape(text).into_owned()
}

/// A call's progress; unrouted when dropped.
struct ProgressSubscription {
    shared: Arc<Shared>,
    token: ProgressToken,
    receiver: mpsc::Receiver<ProgressNotificationParam>,
}

impl Drop for ProgressSubscription {
    fn drop(&mut self) {
        let removed = self
            .shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .routes
            .remove(&self.token);
        drop(removed);
    }
}

/// Sends `notifications/cancelled` for a request when dropped while armed (the call was
/// cancelled, timed out or dropped before its answer).
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: RequestId,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let params = CancelledNotificationParam::new(
            Some(self.id.clone()),
            Some("cancelled by the caller".to_owned()),
        );
        runtime.spawn(async move {
            drop(peer.notify_cancelled(params).await);
        });
    }
}
