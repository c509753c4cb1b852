//! The running client of an upstream MCP server (rmcp's, over any transport): the opening
//! (`era`), `tools/call` with its cancellation and progress, `list_changed` as a counter a
//! mount waits on, the upstream's own requests and logs handed to `forward`. How the server
//! is reached is each kind's business (`stdio`, `http`); the paged `tools/list` is `list`'s.

// rmcp marks logging and sampling deprecated (SEP-2577, a protocol version clients do not
// speak yet); they are what the protocol versions in use offer.
#![allow(deprecated)]

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, RequestId, ResourceUpdatedNotificationParam,
    ServerResult,
};
use rmcp::service::{
    ClientInitializeError, ClientServiceExt, InboundStreamOrigin, NotificationContext, Peer,
    PeerRequestOptions, RequestContext, RoleClient, RunningService,
};
use rmcp::transport::IntoTransport;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, watch};
use toolwright_core::{ToolContext, ToolError, ToolOutput};

use super::era::{HANDSHAKE, Protocol};
use super::error::UpstreamError;
use super::forward::{self, Calls};

/// Progress notifications kept for tokens no call has claimed yet; the oldest go first.
const EARLY_PROGRESS: usize = 32;

/// Progress notifications queued for one call before newer ones are dropped.
const PROGRESS_QUEUE: usize = 32;

/// The most rounds of input requests (MCP 2026-07-28) one call of a mounted tool answers.
pub(crate) const MAX_INPUT_ROUNDS: usize = 8;

/// The longest server name shown in descriptions and reports, in characters.
const MAX_SERVER_NAME: usize = 64;

/// A connection to an upstream MCP server, cheap to clone (one connection, shared).
///
/// Made by [`Upstream::stdio`] (a command started as a child process) or, with the
/// `http` feature, `Upstream::http`; mounted into a registry with
/// [`MountUpstream::mount`](super::MountUpstream::mount).
#[derive(Clone)]
pub struct Upstream {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    /// What we were told to connect to: the command or URL, escaped.
    pub(super) label: String,
    /// The name the server announced, escaped and bounded (the label without one).
    server_name: String,
    pub(super) peer: Peer<RoleClient>,
    pub(super) shared: Arc<Shared>,
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
pub(super) struct Shared {
    progress: Mutex<ProgressRoutes>,
    /// The mounted tools' calls in flight, to which the upstream's own requests and log
    /// messages go.
    calls: Calls,
    /// The upstream's name as questions and log messages show it (the label until the
    /// handshake names it).
    server_name: Mutex<Arc<str>>,
    /// Counts `notifications/tools/list_changed` (and prompts' and resources': a mount
    /// refreshes everything it mounted after any of them).
    changes: watch::Sender<u64>,
    /// Where `notifications/resources/updated` go (the mount's subscriptions), once a
    /// mount listens.
    updates: Mutex<Option<UpdateSink>>,
    /// Cancelled when the connection is closed.
    closed: tokio_util::sync::CancellationToken,
    /// Cancelled when the transport ended (the upstream's side closed, or ours).
    ended: tokio_util::sync::CancellationToken,
    /// The most bytes of one message, when the transport enforces one we chose (HTTP): a
    /// closed transport is then said to be maybe that limit's doing.
    pub(super) message_limit: std::sync::OnceLock<usize>,
    /// For an upstream called as each caller (`callers`): where a call's own session is.
    pub(super) per_caller: std::sync::OnceLock<Arc<dyn PerCaller>>,
}

/// The sessions of an upstream called as each caller (HTTP upstreams with per-caller
/// credentials, `callers`): a request run for a call goes on its caller's session.
pub(super) trait PerCaller: Send + Sync {
    /// The session of `ctx`'s caller, opened if need be, held while the lease lives; a
    /// call without the credentials it needs is refused.
    fn session<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<CallerLease, ToolError>> + Send + 'a>>;

    /// Closes every caller's session (the upstream is closed); later calls fail at once.
    fn close(&self) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// A caller's session, in use while this lives.
pub(super) struct CallerLease {
    pub(super) upstream: Upstream,
    pub(super) _held: Box<dyn std::any::Any + Send>,
}

/// What an upstream declared beside tools.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Declared {
    pub(super) tools: bool,
    pub(super) prompts: bool,
    pub(super) resources: bool,
    pub(super) subscribe: bool,
    pub(super) completions: bool,
    pub(super) skills: bool,
}

/// What a mount does with the upstream's `notifications/resources/updated` (the upstream's
/// URI).
pub(super) type UpdateSink = Arc<dyn Fn(&str) + Send + Sync>;

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

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.shared.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.shared.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let sink = self
            .shared
            .updates
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(sink) = sink {
            sink(&params.uri);
        }
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

/// What a connection keeps for as long as it is open (a confinement's guard).
pub(super) type Kept = Box<dyn std::any::Any + Send + Sync>;

impl Upstream {
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
        Upstream::connect_transport_as(label, transport, Protocol::Handshake).await
    }

    /// Connects over any rmcp client transport, opening the session as `protocol` says.
    /// Not part of the API.
    #[doc(hidden)]
    pub async fn connect_transport_as<T, E, A>(
        label: impl Into<String>,
        transport: T,
        protocol: Protocol,
    ) -> Result<Upstream, UpstreamError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        Upstream::connect_keeping(label.into(), transport, None, protocol, HANDSHAKE).await
    }

    /// Connects over `transport`, keeping `kept` for as long as the connection is open;
    /// the session must open `within` that long.
    pub(super) async fn connect_keeping<T, E, A>(
        label: String,
        transport: T,
        kept: Option<Kept>,
        protocol: Protocol,
        within: Duration,
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
        let transport =
            super::ending::Ending::new(transport.into_transport(), shared.ended.clone());
        // A server that never answers must not keep us from starting (the gateway starts
        // its upstreams before it serves).
        let opening = handler.serve_with_lifecycle(transport, protocol.lifecycle());
        let service = tokio::time::timeout(within, opening)
            .await
            .map_err(|_| UpstreamError::Handshake {
                upstream: label.clone(),
                reason: format!(
                    "no answer to {} within {} seconds ({})",
                    protocol.opening(),
                    within.as_secs_f64(),
                    protocol.hint()
                ),
            })?
            .map_err(|error| {
                // A refusal of the opening request may be the other era's server (over
                // HTTP, an HTTP error): say how to choose; a closed connection is not.
                let refused = matches!(
                    error,
                    ClientInitializeError::JsonRpcError(_)
                        | ClientInitializeError::TransportError { .. }
                        | ClientInitializeError::ExpectedInitResult(_)
                        | ClientInitializeError::ExpectedInitResponse(_)
                        | ClientInitializeError::NoCompatibleProtocolVersion { .. }
                        | ClientInitializeError::LegacyFallbackFailed { .. }
                );
                let mut reason = error.to_string();
                if refused {
                    reason = format!("{reason} ({})", protocol.hint());
                }
                UpstreamError::Handshake {
                    upstream: label.clone(),
                    reason: toolwright_names::escape::escape(&reason).into_owned(),
                }
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

    /// Which of tools, prompts, resources (and subscriptions to them), completions and
    /// skills the upstream declared in its handshake.
    pub(super) fn declared(&self) -> Declared {
        let Some(info) = self.inner.peer.peer_info() else {
            return Declared::default();
        };
        let capabilities = &info.capabilities;
        Declared {
            tools: capabilities.tools.is_some(),
            prompts: capabilities.prompts.is_some(),
            resources: capabilities.resources.is_some(),
            subscribe: capabilities
                .resources
                .as_ref()
                .is_some_and(|r| r.subscribe == Some(true)),
            completions: capabilities.completions.is_some(),
            skills: capabilities.supports_skills(),
        }
    }

    /// Sends the upstream's `notifications/resources/updated` to `sink` (the one mount of the
    /// connection), instead of dropping them.
    pub(super) fn on_resource_updates(&self, sink: UpdateSink) {
        *self
            .inner
            .shared
            .updates
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(sink);
    }

    /// Returns once the connection is over: the upstream's side ended (a stdio server
    /// exited, an HTTP transport closed) or it was [closed](Self::close). A supervisor
    /// waits on this to restart it.
    pub async fn closed(&self) {
        let shared = &self.inner.shared;
        tokio::select! {
            () = shared.ended.cancelled() => {}
            () = shared.closed.cancelled() => {}
        }
    }

    /// Whether the connection is over ([`closed`](Self::closed) would return at once, or
    /// the transport refuses to send).
    pub fn is_closed(&self) -> bool {
        let shared = &self.inner.shared;
        shared.ended.is_cancelled()
            || shared.closed.is_cancelled()
            || self.inner.peer.is_transport_closed()
    }

    /// Whether the upstream answers a `ping` within `timeout` (an error answer counts: it
    /// is there). A supervisor asks after a call failed, for a transport that does not end
    /// when its server goes away (streamable HTTP).
    pub async fn answers_ping(&self, timeout: Duration) -> bool {
        let ping = ClientRequest::PingRequest(rmcp::model::PingRequest {
            method: Default::default(),
            extensions: Default::default(),
        });
        let sent = self
            .inner
            .peer
            .send_request_with_option(ping, PeerRequestOptions::with_timeout(timeout))
            .await;
        match sent {
            Ok(handle) => matches!(
                handle.await_response().await,
                Ok(_) | Err(rmcp::ServiceError::McpError(_))
            ),
            Err(_) => false,
        }
    }

    /// Closes the connection (a child process is asked to exit, then killed). Calls in
    /// flight fail; later calls fail at once.
    pub async fn close(&self) {
        // Each caller's session goes with ours.
        if let Some(per_caller) = self.inner.shared.per_caller.get() {
            per_caller.close().await;
        }
        self.inner.shared.closed.cancel();
        let service = self.inner.service.lock().await.take();
        if let Some(service) = service {
            drop(service.cancel().await);
        }
    }

    pub(super) fn request_error(
        &self,
        method: &'static str,
        error: impl std::fmt::Display,
    ) -> UpstreamError {
        UpstreamError::Request {
            upstream: self.inner.label.clone(),
            method,
            reason: toolwright_names::escape::escape(&error.to_string()).into_owned(),
        }
    }

    /// Calls its requests on each caller's own session (`callers`).
    #[cfg(feature = "http")]
    pub(super) fn set_per_caller(&self, per_caller: Arc<dyn PerCaller>) {
        let _ = self.inner.shared.per_caller.set(per_caller);
    }

    /// Whether its requests go on each caller's own session.
    pub(super) fn acts_as_caller(&self) -> bool {
        self.inner.shared.per_caller.get().is_some()
    }

    /// Records the most bytes of one message the transport enforces (HTTP), so a closed
    /// transport is said to be maybe that limit's doing.
    #[cfg(feature = "http")]
    pub(super) fn set_message_limit(&self, max: usize) {
        let _ = self.inner.shared.message_limit.set(max);
    }

    /// Calls `name` upstream with `arguments`: progress to `ctx`, and a cancelled `ctx` (or
    /// a dropped call) cancels the upstream request. An upstream that answers with input
    /// requests (MCP 2026-07-28's multi round-trip requests) has them answered through
    /// `ctx`'s client and the call repeated with the answers, at most
    /// [`MAX_INPUT_ROUNDS`] times. The call is recorded on `ctx` as a side effect, so a
    /// question (the upstream's, mid-call or as input requests) is never answered by
    /// repeating our call, which would call the upstream again. With `namespace`, the
    /// resource URIs of the result are placed in it (the mount serves the upstream's
    /// resources there).
    pub(crate) async fn call(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: Map<String, Value>,
        namespace: Option<&str>,
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
            let result = self.call_once(ctx, name, params.clone(), &failed).await?;
            match result {
                Ok(ServerResult::CallToolResult(result)) => {
                    return super::content::from_upstream(result, namespace).map_err(|reason| {
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
        call_name: &str,
        params: CallToolRequestParams,
        failed: &impl Fn(String) -> ToolError,
    ) -> Result<Result<ServerResult, rmcp::ServiceError>, ToolError> {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        self.request_once(ctx, Some(call_name), request, failed)
            .await
    }

    /// One request upstream run for `ctx` (a call, a `prompts/get`, a `resources/read`),
    /// registered for the upstream's requests and log messages while it runs, with its
    /// progress and cancellation. `side_effect` names a tool call, recorded on `ctx` (see
    /// [`call`](Self::call)); reads record none.
    pub(super) async fn request_once(
        &self,
        ctx: &ToolContext,
        side_effect: Option<&str>,
        request: ClientRequest,
        failed: &impl Fn(String) -> ToolError,
    ) -> Result<Result<ServerResult, rmcp::ServiceError>, ToolError> {
        // An upstream called as each caller: the request goes on the caller's own session
        // (its credentials), never on ours.
        if let Some(per_caller) = self.inner.shared.per_caller.get() {
            let lease = per_caller.session(ctx).await?;
            return Box::pin(
                lease
                    .upstream
                    .request_once(ctx, side_effect, request, failed),
            )
            .await;
        }
        // The upstream may ask a question as soon as it has the request: the call is
        // registered before the gate lets a question be routed.
        let gate = self.inner.shared.calls.gate().await;
        let handle = self
            .inner
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| failed(escaped(&e)))?;
        // A tool call the upstream runs is a side effect of ours, whatever the tool does.
        // Recorded, a question that could only be answered by repeating our call (MCP
        // 2026-07-28's rounds: the client answers by calling again, and our tool runs again
        // from the start) is refused instead of ending the round: the retry would call the
        // upstream a second time for one approval, while this call goes on. It is recorded
        // when the upstream shows it runs the call: it asks mid-call (`forward`), or answers
        // with anything but input requests. Input requests (a 2026-07-28 upstream's round)
        // end its run without effect, so our client's round may end too and the repeated
        // call carries the answers upstream: the bridge between the eras, both ways. A
        // client that answers while the call waits is asked as before, so in both eras one
        // approval means one upstream call.
        let running = side_effect.map(|call_name| {
            format!(
                "a call of `{}` was sent to the upstream MCP server `{}`",
                toolwright_names::escape::escape(call_name),
                self.inner.server_name
            )
        });
        let _registered = self
            .inner
            .shared
            .calls
            .register(handle.id.clone(), ctx, running.clone());
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
                    return Err(ToolError::new("the request was cancelled"));
                }
            }
        };
        cancel.peer = None;
        if let Some(what) = running
            && !matches!(result, Ok(ServerResult::InputRequiredResult(_)))
        {
            ctx.record_side_effect(what);
        }
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
