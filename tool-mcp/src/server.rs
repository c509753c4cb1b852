//! The MCP server: rmcp's `ServerHandler` over a registry and an executor.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, GetTaskResult,
    Implementation, InputRequiredResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool as McpTool, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use toolwright_runtime::executor::{CallCounts, Outcome, Progress};
use toolwright_runtime::schema::{Format, mcp_output_schema, tools_to_schema};
use toolwright_runtime::{
    ApprovalDecision, ApprovalRequest, CallOptions, Executor, SafetyLevel, ToolCall, ToolFilter,
};

use crate::approval::ElicitationApproval;
use crate::caller::{ceiling, enter_share, principal};
use crate::client::{Queued, SessionLog, flushed};
use crate::content::call_tool_result;
use crate::in_flight::InFlight;
use crate::principal::SCOPE_APPROVE;
use crate::rounds::{Binding, Round, RoundApproval, StateClaims, StateSeal};
#[cfg(feature = "http")]
use crate::{HttpOptions, HttpServer};
use crate::{Principal, ServeError};

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
    executor: Executor,
    options: Arc<Options>,
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
    pub(crate) tasks: crate::tasks::TaskConfig,
    /// What callers were refused by a limit of approvals, tasks and request states, over
    /// every clone (`/metrics`).
    pub(crate) refused: Arc<crate::refused::LimitRefusals>,
}

#[derive(Clone)]
struct Options {
    name: String,
    version: String,
    instructions: Option<String>,
    page_size: usize,
    allow_dangerous: bool,
    elicitation: bool,
    /// How `requestState` is sealed and checked (multi round-trip requests).
    seal: StateSeal,
}

impl McpServer {
    /// A server for `executor`'s tools.
    pub fn new(executor: Executor) -> Self {
        McpServer {
            executor,
            options: Arc::new(Options {
                name: default_name(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                instructions: None,
                page_size: DEFAULT_PAGE_SIZE,
                allow_dangerous: false,
                elicitation: true,
                seal: StateSeal::random(),
            }),
            calls: InFlight::default(),
            log: SessionLog::default(),
            // Served as it is (stdio, rmcp's `serve`), a server value is one session.
            call_counts: Some(Arc::default()),
            notifies: true,
            tasks: crate::tasks::TaskConfig::default(),
            refused: Arc::default(),
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

    /// The executor calls run through.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// Serves over stdio until the client disconnects.
    ///
    /// # Errors
    ///
    /// When initialization fails or the streams fail.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves newline-delimited JSON-RPC (the stdio transport) on any pair of streams, until
    /// `input` ends: a pipe, a socket, a child's stdio. Lines that are not JSON-RPC messages
    /// get their JSON-RPC error (`-32700`, `-32600`, `-32602` for `tools/call` arguments that
    /// are not an object), and a request reusing the id of one still in flight is refused.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// use toolwright_mcp::McpServer;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let server = McpServer::new(Executor::builder(Arc::new(ToolRegistry::new())).build());
    /// let (mut client, server_in) = tokio::io::duplex(4096);
    /// let (server_out, client_out) = tokio::io::duplex(4096);
    /// let serving = tokio::spawn(server.serve_io(server_in, server_out));
    /// client.write_all(b"{not json\n").await.unwrap();
    /// let mut reply = String::new();
    /// BufReader::new(client_out).read_line(&mut reply).await.unwrap();
    /// assert!(reply.contains("-32700"), "{reply}");
    /// drop(client);
    /// let _ = serving.await;
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When initialization fails or the streams fail.
    pub async fn serve_io<R, W>(self, input: R, output: W) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let running = self
            .for_session()
            .serve(crate::stdio::guard(input, output))
            .await
            .map_err(|error| ServeError::Protocol(error.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|error| ServeError::Protocol(error.to_string()))?;
        Ok(())
    }

    /// Serves over streamable HTTP at `http://{addr}/mcp` with the default
    /// [`HttpOptions`] (no authentication, so a loopback address only); returns once
    /// listening.
    ///
    /// # Errors
    ///
    /// When the address cannot be bound, or is not a loopback address.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http(self, addr: std::net::SocketAddr) -> Result<HttpServer, ServeError> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// Serves over streamable HTTP at `http://{addr}/mcp` as `options` say; returns once
    /// listening. The same listener answers `/healthz`, `/readyz` and `/metrics`.
    ///
    /// ```no_run
    /// # #[cfg(feature = "auth")]
    /// # async fn run(executor: toolwright_runtime::Executor) -> Result<(), Box<dyn std::error::Error>> {
    /// use toolwright_mcp::{AuthConfig, HttpOptions, McpServer};
    ///
    /// let options = HttpOptions::new()
    ///     .auth(AuthConfig::new().tokens_from_file("/etc/toolwright/tokens")?)
    ///     .resource_url("https://tools.example.com")
    ///     .allow_host("tools.example.com");
    /// let server = McpServer::new(executor)
    ///     .serve_http_with("0.0.0.0:8080".parse()?, options)
    ///     .await?;
    /// server.wait().await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the address cannot be bound; a non-loopback address without authentication
    /// (unless [`HttpOptions::insecure_no_auth`]); authentication that accepts no token; a
    /// resource URL that is not a URL.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http_with(
        self,
        addr: std::net::SocketAddr,
        options: HttpOptions,
    ) -> Result<HttpServer, ServeError> {
        HttpServer::start(self, addr, options).await
    }

    /// The tools a client may call, as MCP tool entries.
    fn tools(&self, ceiling: SafetyLevel) -> Vec<McpTool> {
        let tools: Vec<_> = self
            .executor
            .available_tools()
            .into_iter()
            .filter(|tool| tool.safety() <= ceiling)
            .collect();
        tools_to_schema(&tools, Format::Mcp)
            .into_iter()
            .filter_map(|value| match serde_json::from_value::<McpTool>(value) {
                Ok(tool) => Some(tool),
                Err(error) => {
                    tracing::warn!(%error, "a tool could not be described in MCP's format; left out");
                    None
                }
            })
            .collect()
    }

    /// Whether the server itself defers this call's approval so that it becomes a task the
    /// client answers: a 2026-07-28 client that declared the tasks extension and form
    /// elicitation, may approve, and no executor handler decides. Such a deferred call
    /// never outlives its request unless it became a task (`call_tool` takes it back).
    fn defers_to_a_task(
        &self,
        context: &RequestContext<RoleServer>,
        principal: Option<&Principal>,
        round: Option<&Arc<Round>>,
    ) -> bool {
        round.is_some()
            && self.options.elicitation
            && self.tasks.enabled
            && !self.executor.has_approval_handler()
            && principal.is_none_or(Principal::can_approve)
            && crate::tasks::declared_tasks(context)
            && crate::tasks::declared_elicitation(context)
    }

    /// The approval to use for a dangerous call from this client, if not the executor's.
    /// A caller authenticated without `tools:approve` is not asked: its own approval would
    /// not count.
    ///
    /// A client of the 2026-07-28 revision (`round`) is asked in the call's result; an
    /// earlier one with an `elicitation/create` request while the call waits.
    fn approval_for(
        &self,
        context: &RequestContext<RoleServer>,
        principal: Option<&Principal>,
        round: Option<&Arc<Round>>,
    ) -> Option<CallOptions> {
        let may_approve = principal.is_none_or(Principal::can_approve);
        let can_ask = may_approve
            && self.options.elicitation
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.elicitation.is_some());
        if can_ask {
            // A 2026-07-28 client that polls tasks approves through a task: the call is
            // deferred (by the executor's own handler when it has one, which may also decide
            // at once), and `tasks::deferred` turns the waiting call into an `input_required`
            // task whose input request is the approval form. The state stays on the server,
            // shared by the replicas with the task store.
            if round.is_some() && self.tasks.enabled && crate::tasks::declared_tasks(context) {
                if self.executor.has_approval_handler() {
                    return None;
                }
                if self.defers_to_a_task(context, principal, round) {
                    return Some(
                        CallOptions::new()
                            .approval(|_: ApprovalRequest| async { ApprovalDecision::Defer }),
                    );
                }
            }
            return Some(match round {
                Some(round) => CallOptions::new().approval(RoundApproval {
                    round: Arc::clone(round),
                }),
                None => CallOptions::new().approval(ElicitationApproval {
                    peer: context.peer.clone(),
                }),
            });
        }
        if self.options.allow_dangerous {
            return Some(
                CallOptions::new()
                    .approval(|_: ApprovalRequest| async { ApprovalDecision::Approved }),
            );
        }
        if self.executor.has_approval_handler() {
            return None;
        }
        if !may_approve {
            return Some(
                CallOptions::new().approval(|request: ApprovalRequest| async move {
                    ApprovalDecision::Denied {
                        reason: format!(
                            "`{}` is dangerous, and your access token lacks the `{SCOPE_APPROVE}` \
                         scope needed to approve it; ask for a token with that scope (the \
                         server refuses dangerous tools to such callers unless started with \
                         --allow-dangerous)",
                            request.tool
                        ),
                    }
                }),
            );
        }
        Some(CallOptions::new().approval(|request: ApprovalRequest| async move {
            ApprovalDecision::Denied {
                reason: format!(
                    "`{}` is dangerous, and this MCP client cannot ask you to approve it (it does \
                     not support elicitation); the server refuses dangerous tools unless started \
                     with --allow-dangerous",
                    request.tool
                ),
            }
        }))
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

impl ServerHandler for McpServer {
    #[allow(deprecated)] // `enable_logging`: rmcp marks logging deprecated (SEP-2577).
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        if let Some(tools) = capabilities.tools.as_mut() {
            tools.list_changed = self.notifies.then_some(true);
        }
        crate::tasks::declare(self, &mut capabilities); // tasks (SEP-2663)
        let mut config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.options.name.clone(),
            self.options.version.clone(),
        ));
        if let Some(instructions) = &self.options.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Tell this client when the tools it may see change, for as long as it is connected:
        // only changes to tools under its ceiling (the executor's, and its token's when the
        // HTTP server authenticated the `initialized` notification).
        let ceiling = match principal(&context.extensions) {
            None => Some(SafetyLevel::Dangerous),
            Some(principal) => principal.max_safety(),
        };
        let Some(ceiling) = ceiling else {
            return; // a token that grants no tools sees no list to change
        };
        let visible = ToolFilter::new().max_safety(ceiling.min(self.executor.max_safety()));
        let mut changes = self.executor.registry().subscribe_changes();
        let peer = context.peer;
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    change = changes.recv() => {
                        let concerns = match change {
                            Ok(change) => change.concerns(&visible),
                            // Missed changes may have concerned this client.
                            Err(RecvError::Lagged(_)) => true,
                            Err(RecvError::Closed) => break,
                        };
                        if concerns && peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                    }
                    () = tokio::time::sleep(Duration::from_secs(10)) => {}
                }
                if peer.is_transport_closed() {
                    break;
                }
            }
        });
    }

    /// `subscriptions/listen` (a 2026-07-28 client): tool list changes, unless the server
    /// cannot notify (stateless HTTP: method not found).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.notifies.then(|| crate::listen::accepted(requested))
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        // The tools this client may see: as for a session's `initialized` (its token's
        // ceiling under the executor's; none for a token that grants no tools).
        let ceiling = match principal(&subscription.request_context().extensions) {
            None => Some(SafetyLevel::Dangerous),
            Some(principal) => principal.max_safety(),
        };
        let visible = ceiling
            .map(|ceiling| ToolFilter::new().max_safety(ceiling.min(self.executor.max_safety())));
        crate::listen::tool_changes(self.executor.registry(), visible, subscription).await;
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let ceiling = ceiling(principal(&context.extensions))?;
        let tools = self.tools(ceiling);
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&offset| offset <= tools.len())
                .ok_or_else(|| {
                    McpError::invalid_params(
                        format!(
                            "invalid cursor `{cursor}`: use the nextCursor of the previous page"
                        ),
                        None,
                    )
                })?,
        };
        let end = (start + self.options.page_size).min(tools.len());
        let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
        result.next_cursor = (end < tools.len()).then(|| end.to_string());
        Ok(result)
    }

    /// rmcp asks for the one tool a 2026-07-28 request names (to check its `Mcp-Name` and
    /// parameter headers): that tool only, if a client may see it, not the whole list.
    fn get_tool(&self, name: &str) -> Option<McpTool> {
        let registry = self.executor.registry();
        let tool = registry.get(name)?;
        if !registry.is_enabled(name) || tool.safety() > self.executor.max_safety() {
            return None;
        }
        let value = tools_to_schema(std::slice::from_ref(&tool), Format::Mcp)
            .into_iter()
            .next()?;
        serde_json::from_value::<McpTool>(value).ok()
    }

    #[allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); clients use it today.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // ---- tasks (SEP-2663): a call of a tool that runs as a task is tasks.rs's ----
        if let Some(answer) = crate::tasks::call_tool(self, &request, &context).await {
            return answer;
        }
        // ---- end tasks ----
        // The caller's share of calls in flight (with authentication): over it, refused at
        // once, so one token cannot take every slot of the executor.
        let _share = enter_share(&context.extensions)?;
        let _running = self.calls.enter();
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let principal = principal(&context.extensions);
        let ceiling = ceiling(principal)?;
        // A 2026-07-28 client is asked through the call's result (multi round-trip
        // requests): the round holds the answers its repeated call brings.
        let round = if context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize())
        {
            let binding = Binding::new(principal.map(Principal::owner), &name, &arguments);
            let round = self
                .options
                .seal
                .open(
                    &binding,
                    request.request_state.as_deref(),
                    request.input_responses.as_ref(),
                )
                .await
                .map_err(|error| {
                    if matches!(error, crate::rounds::RoundError::Claims(_)) {
                        crate::refused::LimitRefusals::count(&self.refused.request_states);
                    }
                    tracing::warn!(tool = %name, %error, "refused a call's requestState");
                    McpError::invalid_params(error.to_string(), Some(json!({"tool": name})))
                })?;
            Some(Arc::new(round))
        } else {
            None
        };
        let arguments = Value::Object(arguments);
        // Who approves if the tool is dangerous: the executor asks only for dangerous calls.
        let mut options = self
            .approval_for(&context, principal, round.as_ref())
            .unwrap_or_default();
        let server_defers = self.defers_to_a_task(&context, principal, round.as_ref());
        // Whether the server deferred the approval: a call then not pending was refused by
        // a limit of the waiting approvals.
        let deferred = Arc::new(std::sync::atomic::AtomicBool::new(false));
        if server_defers {
            let deferred = Arc::clone(&deferred);
            options = options.approval(move |_: ApprovalRequest| {
                deferred.store(true, std::sync::atomic::Ordering::Relaxed);
                async { ApprovalDecision::Defer }
            });
        }
        // Whose call it is: a deferred approval counts against its owner's share.
        options = options.owner(crate::caller::owner(principal));
        let client = Arc::new(self.client_for_call(&context, round.clone()));
        options = options
            .cancellation(context.ct.clone())
            .max_safety(ceiling)
            .shared_client(client.clone());
        if let Some(counts) = &self.call_counts {
            options = options.call_counts(Arc::clone(counts));
        }
        let mut progress_queue = None;
        if let Some(token) = context.meta.get_progress_token() {
            let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Queued<Progress>>();
            let peer = context.peer.clone();
            tokio::spawn(async move {
                while let Some(item) = receiver.recv().await {
                    let report = match item {
                        Queued::Send(report) => report,
                        Queued::Flush(done) => {
                            let _ = done.send(());
                            continue;
                        }
                    };
                    let mut params = ProgressNotificationParam::new(token.clone(), report.progress);
                    if let Some(total) = report.total {
                        params = params.with_total(total);
                    }
                    if let Some(message) = report.message {
                        params = params.with_message(message);
                    }
                    if peer.notify_progress(params).await.is_err() {
                        break;
                    }
                }
            });
            progress_queue = Some(sender.clone());
            options = options.progress(move |report| {
                let _ = sender.send(Queued::Send(report));
            });
        }

        let call = ToolCall::new(context.id.to_string(), name.clone(), arguments);
        let report = self.executor.execute_with(call, options).await;
        if deferred.load(std::sync::atomic::Ordering::Relaxed) && report.outcome != Outcome::Pending
        {
            crate::refused::LimitRefusals::count(&self.refused.pending_approvals);
        }
        // The progress and log notifications the tool sent go out before its result (or the
        // wait ends with the request's cancellation).
        let notifications_sent = async {
            if let Some(queue) = &progress_queue {
                flushed(queue).await;
            }
            client.flush().await;
        };
        tokio::select! {
            () = notifications_sent => {}
            () = context.ct.cancelled() => {}
        }
        if report.outcome == Outcome::InputRequired
            && let Some(round) = &round
        {
            let questions = round.questions();
            if !questions.is_empty() {
                let Some(state) = self.options.seal.seal(round, &questions) else {
                    return Err(McpError::internal_error(
                        "the server could not seal the state of this call's questions (no \
                         randomness or no key)",
                        None,
                    ));
                };
                return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                    Some(questions),
                    Some(state),
                )));
            }
        }
        // ---- tasks (SEP-2663): a deferred approval becomes a task the client answers ----
        if let Some(answer) = crate::tasks::deferred(self, &context, &report, server_defers).await {
            return answer;
        }
        if server_defers && report.outcome == Outcome::Pending {
            // Deferred here only to become a task, which it did not: nobody could ever
            // answer it, so it must not wait (and fill the caller's share) for an hour.
            if let Some(pending) = &report.result.metadata.pending {
                let _ = self.executor.take_pending(&pending.token);
            }
            return Err(McpError::new(
                rmcp::model::ErrorCode(-32000),
                format!(
                    "tool `{}` needs the user's approval, and this call could not become a \
                     task to ask it (see the server's log); try again later",
                    crate::approval::printable(&name)
                ),
                None,
            ));
        }
        // ---- end tasks ----
        let result = report.result;
        if report.outcome == Outcome::UnknownTool {
            // The tool does not exist (or the name is not a tool name): a protocol error.
            let message = result
                .error
                .unwrap_or_else(|| format!("unknown tool `{name}`"));
            return Err(McpError::invalid_params(
                message,
                Some(json!({"tool": name})),
            ));
        }
        // Structured content only where the tool declares an (object) output schema.
        let structured = report.tool.as_ref().and_then(mcp_output_schema).is_some();
        Ok(call_tool_result(result, structured).into())
    }

    // ---- tasks (SEP-2663): tasks/get, tasks/update, tasks/cancel are tasks.rs's ----
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        crate::tasks::get_task(self, request, &context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        crate::tasks::update_task(self, request, &context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        crate::tasks::cancel_task(self, request, &context).await
    }
    // ---- end tasks ----
}

// ---- tasks (SEP-2663): what tasks.rs reads of the server's options ----
impl McpServer {
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
// ---- end tasks ----
