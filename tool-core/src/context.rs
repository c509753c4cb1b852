//! What a running tool can know about its call: the call id, typed state from the
//! application, whether the call was cancelled, and the powers of the client that made it
//! (logging, elicitation, sampling).

use std::any::type_name;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::catalog::{Catalog, NestedCalls};
use crate::client::{
    ClientError, ClientPowers, DEFAULT_MAX_CLIENT_REQUESTS, Elicitation, ElicitationRequest,
    LogLevel, SampledMessage, SamplingMessage, SamplingOptions, SamplingRequest,
    elicitation_schema, log_to_tracing,
};
use crate::error::ToolError;
use crate::file_change::ApprovedChange;
use crate::safety::SafetyLevel;
use crate::state::ToolState;

/// One progress report of a long-running call (forwarded, for example, as an MCP progress
/// notification).
///
/// ```
/// use toolwright_core::Progress;
/// let halfway = Progress { progress: 5.0, total: Some(10.0), message: Some("5 of 10 files".into()) };
/// # let _ = halfway;
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// How far along the call is, in units of the tool's choosing; it only grows.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What is happening now.
    pub message: Option<String>,
}

/// Where a call's progress reports go.
pub(crate) type ProgressReporter = Arc<dyn Fn(Progress) + Send + Sync>;

/// The client of one call: its powers, and how many requests the call made of it.
#[derive(Clone)]
struct ClientLink {
    powers: Arc<dyn ClientPowers>,
    /// Shared by every clone of the call's context.
    requests: Arc<AtomicU32>,
    limit: u32,
}

/// What a tool knows about the call it is running: the call id, the application's typed
/// state, and the cancellation signal.
///
/// Take it as a `&ToolContext` parameter of a `#[tool]` function (it is not part of the
/// tool's schema); the executor fills it in. Cloning is cheap.
///
/// ```
/// use toolwright_core::{ToolContext, ToolState};
///
/// struct Greeting(String);
/// let mut state = ToolState::new();
/// state.insert(Greeting("hello".into()));
/// let ctx = ToolContext::new().with_call_id("call_1").with_state(state);
///
/// assert_eq!(ctx.call_id(), "call_1");
/// assert_eq!(ctx.state::<Greeting>().unwrap().0, "hello");
/// assert!(!ctx.is_cancelled());
/// ```
#[derive(Clone)]
pub struct ToolContext {
    call_id: Name,
    state: Arc<ToolState>,
    cancellation: CancellationToken,
    /// The tools the call may see (set by the executor: enabled, under the ceiling, among
    /// those offered for the request).
    catalog: Option<Catalog>,
    max_safety: SafetyLevel,
    progress: Option<ProgressReporter>,
    tool: Name,
    client: Option<ClientLink>,
    approved_change: Option<Arc<ApprovedChange>>,
    /// Cancelled when the run stopped at a question only the caller's next request answers
    /// (set by the executor, which then ends the call with `Outcome::InputRequired`).
    asked: Option<CancellationToken>,
    /// The first change the run recorded (`record_side_effect`), shared by every clone.
    side_effect: Arc<OnceLock<String>>,
    /// Calls of other tools on the caller's behalf, for the tools the operator named.
    nested: Option<Arc<dyn NestedCalls>>,
    /// Who made the call, when the front end says (`Caller`).
    caller: Option<Arc<crate::caller::Caller>>,
}

impl Default for ToolContext {
    fn default() -> Self {
        ToolContext {
            call_id: Name::Static(""),
            state: Arc::default(),
            cancellation: CancellationToken::new(),
            catalog: None,
            max_safety: SafetyLevel::Dangerous,
            progress: None,
            tool: Name::Static(""),
            client: None,
            approved_change: None,
            asked: None,
            side_effect: Arc::default(),
            nested: None,
            caller: None,
        }
    }
}

/// A name a context holds: borrowed for the life of the program (a `#[tool]`'s name), or
/// shared, so making a context for a call copies no text it need not.
#[derive(Clone)]
enum Name {
    Static(&'static str),
    Shared(Arc<str>),
}

impl std::ops::Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Name::Static(name) => name,
            Name::Shared(name) => name,
        }
    }
}

impl ToolContext {
    /// A context with an empty call id, no state and a fresh cancellation token.
    pub fn new() -> Self {
        ToolContext::default()
    }

    /// The context of one call of the tool named `tool`: what an executor starts from, in
    /// one step (no default parts made to be replaced).
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use std::sync::Arc;
    /// use toolwright_core::{CancellationToken, ToolContext, ToolState};
    ///
    /// let ctx = ToolContext::for_call("call_1", &Cow::Borrowed("greet"), Arc::new(ToolState::new()), CancellationToken::new());
    /// assert_eq!((ctx.call_id(), ctx.tool_name()), ("call_1", "greet"));
    /// ```
    // For executors (toolwright-runtime); not part of the API.
    #[doc(hidden)]
    // The `Cow` itself says whether the name lives as long as the program (no copy).
    #[allow(clippy::ptr_arg)]
    pub fn for_call(
        call_id: &str,
        tool: &std::borrow::Cow<'static, str>,
        state: Arc<ToolState>,
        cancellation: CancellationToken,
    ) -> Self {
        ToolContext {
            call_id: Name::Shared(Arc::from(call_id)),
            state,
            cancellation,
            catalog: None,
            max_safety: SafetyLevel::Dangerous,
            progress: None,
            tool: match tool {
                std::borrow::Cow::Borrowed(name) => Name::Static(name),
                std::borrow::Cow::Owned(name) => Name::Shared(Arc::from(name.as_str())),
            },
            client: None,
            approved_change: None,
            asked: None,
            side_effect: Arc::default(),
            nested: None,
            caller: None,
        }
    }

    /// Who made the call, as the front end that authenticated it says; `None` for a call
    /// of the local user (stdio, the CLI, a program's own call). The bearer token is there
    /// only for a tool built with
    /// [`ToolBuilder::receives_caller_token`](crate::ToolBuilder::receives_caller_token).
    ///
    /// ```
    /// use toolwright_core::{Caller, ToolContext};
    /// let ctx = ToolContext::new().with_caller(Caller::new("alice"));
    /// assert_eq!(ctx.caller().map(Caller::subject), Some("alice"));
    /// assert!(ToolContext::new().caller().is_none());
    /// ```
    pub fn caller(&self) -> Option<&crate::caller::Caller> {
        self.caller.as_deref()
    }

    /// The same context, for a call made by `caller`.
    pub fn with_caller(mut self, caller: crate::caller::Caller) -> Self {
        self.caller = Some(Arc::new(caller));
        self
    }

    /// The same context for the call `call_id`.
    pub fn with_call_id(mut self, call_id: impl Into<Arc<str>>) -> Self {
        self.call_id = Name::Shared(call_id.into());
        self
    }

    /// The same context with `state` as the application's state.
    pub fn with_state(mut self, state: impl Into<Arc<ToolState>>) -> Self {
        self.state = state.into();
        self
    }

    /// The same context, cancelled when `token` is.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// The file change a person approved for this call, hunk by hunk, when the tool's
    /// preview had one ([`Preview::change`](crate::Preview::change)) and the call needed
    /// approval. A tool that previews a change writes exactly
    /// [`ApprovedChange::apply`]'s text when this is set, so the rejected hunks are not
    /// written and a file changed since the preview is not overwritten.
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// use toolwright_core::ToolContext;
    /// use toolwright_core::file_change::{ApprovedChange, FileChange};
    ///
    /// let change = FileChange::between("f.txt", "a\n", "b\n");
    /// let ctx = ToolContext::new().with_approved_change(ApprovedChange::all(change));
    /// assert_eq!(ctx.approved_change().unwrap().apply("a\n").unwrap(), "b\n");
    /// assert!(ToolContext::new().approved_change().is_none());
    /// # }
    /// ```
    pub fn approved_change(&self) -> Option<&ApprovedChange> {
        self.approved_change.as_deref()
    }

    /// The same context with `change` approved (the executor sets it; tests of a tool too).
    pub fn with_approved_change(mut self, change: ApprovedChange) -> Self {
        self.approved_change = Some(Arc::new(change));
        self
    }

    /// The highest safety level this call allows (the executor's, lowered by the caller's
    /// ceiling).
    pub fn max_safety(&self) -> SafetyLevel {
        self.max_safety
    }

    /// The same context under the safety ceiling `max_safety` (the executor sets it).
    pub fn with_max_safety(mut self, max_safety: SafetyLevel) -> Self {
        self.max_safety = max_safety;
        self
    }

    /// The tools this call may see, read-only: those the model may call in this request
    /// (enabled, under the call's ceiling, among the tools offered). `None` outside an
    /// executor, unless given with [`with_catalog`](Self::with_catalog).
    ///
    /// A tool gets names, descriptions and schemas, never a way to run another tool or
    /// change the registry: every call goes through the executor and its policy.
    pub fn catalog(&self) -> Option<&Catalog> {
        self.catalog.as_ref()
    }

    /// The same context, seeing the tools of `catalog` (the executor sets it for each call).
    ///
    /// ```
    /// use toolwright_core::{Catalog, CatalogEntry, CatalogHit, CatalogSource, ToolContext};
    ///
    /// struct Empty;
    /// impl CatalogSource for Empty {
    ///     fn list(&self) -> Vec<CatalogEntry> { Vec::new() }
    ///     fn search(&self, _query: &str, _limit: usize) -> Vec<CatalogHit> { Vec::new() }
    /// }
    ///
    /// let ctx = ToolContext::new().with_catalog(Catalog::new(Empty));
    /// assert!(ctx.catalog().unwrap().list().is_empty());
    /// ```
    pub fn with_catalog(mut self, catalog: Catalog) -> Self {
        self.catalog = Some(catalog);
        self
    }

    /// The calls of other tools this tool may make on its caller's behalf, through the
    /// executor and its whole policy: `None` unless the operator named this tool
    /// (`ExecutorBuilder::nested_calls_for` in toolwright-runtime). See [`NestedCalls`].
    pub fn nested_calls(&self) -> Option<&Arc<dyn NestedCalls>> {
        self.nested.as_ref()
    }

    /// The same context, able to call other tools through `calls` (the executor sets it).
    pub fn with_nested_calls(mut self, calls: Arc<dyn NestedCalls>) -> Self {
        self.nested = Some(calls);
        self
    }

    /// The same context, sending progress reports to `reporter`.
    // For toolwright-runtime; not part of the API.
    #[doc(hidden)]
    pub fn with_progress(mut self, reporter: Arc<dyn Fn(Progress) + Send + Sync>) -> Self {
        self.progress = Some(reporter);
        self
    }

    /// Reports how far a long call has come; the caller forwards it (an MCP server sends a
    /// progress notification) or ignores it.
    ///
    /// ```
    /// use toolwright_core::ToolContext;
    /// // Outside an executor nobody listens; reporting is harmless.
    /// ToolContext::new().report_progress(1.0, Some(3.0), "first of three");
    /// ```
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: impl Into<String>) {
        if let Some(reporter) = &self.progress {
            let message: String = message.into();
            reporter(Progress {
                progress,
                total,
                message: (!message.is_empty()).then_some(message),
            });
        }
    }

    /// The same context for a call of the tool `name` (the executor sets it; a client's
    /// requests and log messages carry it).
    pub fn with_tool_name(mut self, name: impl Into<Arc<str>>) -> Self {
        self.tool = Name::Shared(name.into());
        self
    }

    /// The name of the tool being run (empty outside an executor, unless set with
    /// [`with_tool_name`](Self::with_tool_name)).
    ///
    /// ```
    /// use toolwright_core::ToolContext;
    /// assert_eq!(ToolContext::new().with_tool_name("deploy").tool_name(), "deploy");
    /// ```
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// The same context, with `client` answering the tool's [`log`](Self::log),
    /// [`elicit`](Self::elicit) and [`sample`](Self::sample), at most
    /// [`DEFAULT_MAX_CLIENT_REQUESTS`] requests. The executor sets it from
    /// `CallOptions::client`; call it yourself to test a tool
    /// with a fake client.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use toolwright_core::client::{ClientFuture, ClientPowers, SampledMessage, SamplingOptions, SamplingRequest};
    /// use toolwright_core::{ClientError, ToolContext};
    ///
    /// struct Echo;
    /// impl ClientPowers for Echo {
    ///     fn sample(&self, request: SamplingRequest) -> ClientFuture<Result<SampledMessage, ClientError>> {
    ///         let text = request.messages.last().map(|m| m.text.clone()).unwrap_or_default();
    ///         Box::pin(async move { Ok(SampledMessage::new(text, "echo")) })
    ///     }
    /// }
    ///
    /// let ctx = ToolContext::new().with_client(std::sync::Arc::new(Echo));
    /// let reply = ctx.sample(vec![toolwright_core::client::SamplingMessage::user("hi")], SamplingOptions::new(10)).await.unwrap();
    /// assert_eq!((reply.text.as_str(), reply.model.as_str()), ("hi", "echo"));
    /// # }
    /// ```
    pub fn with_client(self, client: Arc<dyn ClientPowers>) -> Self {
        self.with_client_limit(client, DEFAULT_MAX_CLIENT_REQUESTS)
    }

    /// The same context with `client`, allowing the call `limit` elicitation and sampling
    /// requests in all.
    // For toolwright-runtime (the executor's `max_client_requests`); not part of the API.
    #[doc(hidden)]
    pub fn with_client_limit(mut self, client: Arc<dyn ClientPowers>, limit: u32) -> Self {
        self.client = Some(ClientLink {
            powers: client,
            requests: Arc::new(AtomicU32::new(0)),
            limit,
        });
        self
    }

    /// Whether a client is attached to this call (an MCP session; the command line). Its
    /// requests may still be refused when the client lacks the capability.
    pub fn has_client(&self) -> bool {
        self.client.is_some()
    }

    /// Logs `message` to the client that made the call, as this tool (an MCP server sends
    /// `notifications/message` at or above the level the client set with
    /// `logging/setLevel`). Fire and forget: it never fails and never waits. Without a
    /// client the message goes to `tracing` at the closest level, so it is never lost.
    ///
    /// ```
    /// use toolwright_core::{LogLevel, ToolContext};
    /// // Outside an MCP server: to `tracing`.
    /// ToolContext::new().log(LogLevel::Notice, "cache rebuilt");
    /// ```
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        match &self.client {
            Some(client) => client.powers.log(&self.tool, level, message.as_ref()),
            None => log_to_tracing(&self.tool, level, message.as_ref()),
        }
    }

    /// Asks the user of the client a question and reads the answer as a `T`: the form asked
    /// for is `T`'s JSON Schema, which MCP allows only as a flat object of strings, numbers,
    /// integers, booleans and string enums (`Option<T>` fields are optional). The client
    /// shows the question as this tool's.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use toolwright_core::{ClientError, Elicitation, ToolContext};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Target {
    ///     /// The region to deploy to.
    ///     region: String,
    ///     replicas: Option<u32>,
    /// }
    ///
    /// // Outside an MCP server (and the command line's prompt) there is nobody to ask.
    /// let asked = ToolContext::new().elicit::<Target>("Where should I deploy?").await;
    /// let Err(ClientError::NotAvailable { what: "elicitation", .. }) = asked else { panic!() };
    /// # }
    /// ```
    ///
    /// A tool handles the three answers:
    ///
    /// ```
    /// # async fn deploy(ctx: &toolwright_core::ToolContext) -> Result<String, toolwright_core::ToolError> {
    /// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct Target { region: String }
    /// use toolwright_core::Elicitation;
    /// match ctx.elicit::<Target>("Where should I deploy?").await? {
    ///     Elicitation::Accepted(target) => Ok(format!("deploying to {}", target.region)),
    ///     Elicitation::Declined | Elicitation::Cancelled => Ok("not deployed: the user did not say where".into()),
    /// }
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::NotAvailable`] without a client that can ask its user;
    /// [`ClientError::UnsupportedSchema`] when `T` is not a flat object;
    /// [`ClientError::InvalidAnswer`] when the answer is not a `T`;
    /// [`ClientError::LimitReached`], [`ClientError::Cancelled`], [`ClientError::Protocol`].
    pub async fn elicit<T>(&self, message: impl Into<String>) -> Result<Elicitation<T>, ClientError>
    where
        T: DeserializeOwned + schemars::JsonSchema,
    {
        let generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|settings| settings.inline_subschemas = true)
            .into_generator();
        let schema = generator.into_root_schema_for::<T>().to_value();
        let answer = self.elicit_json(message, schema).await?;
        match answer {
            Elicitation::Accepted(value) => serde_json::from_value(value)
                .map(Elicitation::Accepted)
                .map_err(|error| ClientError::InvalidAnswer(error.to_string())),
            Elicitation::Declined => Ok(Elicitation::Declined),
            Elicitation::Cancelled => Ok(Elicitation::Cancelled),
        }
    }

    /// Asks the user of the client a question with a form given as a JSON Schema (a flat
    /// object of primitive properties, as [`elicit`](Self::elicit)); the answer is a JSON
    /// object.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use serde_json::json;
    /// use toolwright_core::{ClientError, ToolContext};
    ///
    /// let nested = json!({"type": "object", "properties": {"tags": {"type": "array"}}});
    /// let ctx = ToolContext::new();
    /// let Err(ClientError::UnsupportedSchema(why)) = ctx.elicit_json("Tags?", nested).await else { panic!() };
    /// assert!(why.contains("`tags` is an array"));
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`elicit`](Self::elicit).
    pub async fn elicit_json(
        &self,
        message: impl Into<String>,
        schema: Value,
    ) -> Result<Elicitation<Value>, ClientError> {
        let schema = elicitation_schema(&schema)?;
        let client = self.client_for_many("elicitation", 1)?;
        let request = ElicitationRequest::new(&*self.tool, message, schema);
        let answer = self.wait_for(client.elicit(request)).await?;
        match answer {
            Elicitation::Accepted(value) if !value.is_object() => Err(ClientError::InvalidAnswer(
                format!("expected an object, got {value}"),
            )),
            other => Ok(other),
        }
    }

    /// Asks the client's model for a reply to `messages` (the client may show the request
    /// to its user first, and may refuse it).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use toolwright_core::client::{SamplingMessage, SamplingOptions};
    /// use toolwright_core::{ClientError, ToolContext};
    ///
    /// let asked = ToolContext::new()
    ///     .sample(vec![SamplingMessage::user("Summarize: ...")], SamplingOptions::new(100))
    ///     .await;
    /// let Err(ClientError::NotAvailable { what: "sampling", why }) = asked else { panic!() };
    /// assert_eq!(why, "this call is not served over MCP (no client to ask)");
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::NotAvailable`] without a client that offers sampling;
    /// [`ClientError::Declined`] when its user refuses; [`ClientError::LimitReached`],
    /// [`ClientError::Cancelled`], [`ClientError::Protocol`].
    pub async fn sample(
        &self,
        messages: Vec<SamplingMessage>,
        options: SamplingOptions,
    ) -> Result<SampledMessage, ClientError> {
        let client = self.client_for_many("sampling", 1)?;
        let request = SamplingRequest::new(&*self.tool, messages, options);
        self.wait_for(client.sample(request)).await
    }

    /// The call's client powers, counting `count` more requests of it (all or none), or why
    /// there is none.
    pub(crate) fn client_for_many(
        &self,
        what: &'static str,
        count: u32,
    ) -> Result<&Arc<dyn ClientPowers>, ClientError> {
        let Some(client) = &self.client else {
            return Err(ClientError::NotAvailable {
                what,
                why: "this call is not served over MCP (no client to ask)".to_owned(),
            });
        };
        let made = client.requests.fetch_add(count, Ordering::SeqCst);
        if made.saturating_add(count) > client.limit {
            return Err(ClientError::LimitReached {
                limit: client.limit,
            });
        }
        Ok(&client.powers)
    }

    /// The client's answer, or [`ClientError::Cancelled`] if the call is cancelled first.
    ///
    /// A question the caller answers only by repeating the call
    /// ([`ClientError::InputRequired`]) ends this run under an executor: the executor is told,
    /// ends the call with `Outcome::InputRequired` and cancels the run, so nothing after the
    /// question runs (a sync tool waiting here wakes up to its cancellation). After a
    /// recorded side effect such a question is refused instead: repeating the call would
    /// repeat the effect.
    pub(crate) async fn wait_for<T>(
        &self,
        answer: impl Future<Output = Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        let answer = tokio::select! {
            answer = answer => answer,
            () = self.cancellation.cancelled() => Err(ClientError::Cancelled),
        };
        if let Err(ClientError::InputRequired) = &answer {
            if let Some(effect) = self.side_effect.get() {
                return Err(ClientError::AfterSideEffect(effect.clone()));
            }
            if let Some(asked) = &self.asked {
                asked.cancel();
                self.cancellation.cancelled().await;
            }
        }
        answer
    }

    /// Records that this run changed something outside itself (wrote a file, sent a
    /// message, ran a command), described by `what` for the error below.
    ///
    /// A client of MCP's 2026-07-28 revision answers a tool's question by repeating the
    /// whole call: the tool runs again from the start with the answer. Work before a
    /// question therefore runs once per question, and a change made before a question would
    /// be made again. Ask every question first, change things after; a question asked after
    /// a recorded change is refused with [`ClientError::AfterSideEffect`] rather than
    /// sent. (A client that answers while the call waits, as the handshake-era revisions do,
    /// is asked as usual.)
    ///
    /// ```
    /// use toolwright_core::ToolContext;
    ///
    /// let ctx = ToolContext::new();
    /// assert_eq!(ctx.side_effect(), None);
    /// ctx.record_side_effect("wrote notes.txt");
    /// ctx.record_side_effect("wrote todo.txt"); // the first one is kept
    /// assert_eq!(ctx.side_effect(), Some("wrote notes.txt"));
    /// ```
    pub fn record_side_effect(&self, what: impl Into<String>) {
        let _ = self.side_effect.set(what.into());
    }

    /// The first side effect this run recorded with
    /// [`record_side_effect`](Self::record_side_effect), if any.
    pub fn side_effect(&self) -> Option<&str> {
        self.side_effect.get().map(String::as_str)
    }

    /// The same context, telling the executor through `asked` when the run stopped at a
    /// question only the caller's next request answers.
    // For toolwright-runtime; not part of the API.
    #[doc(hidden)]
    pub fn with_question_signal(mut self, asked: CancellationToken) -> Self {
        self.asked = Some(asked);
        self
    }

    /// The id of the call being run, as the model sent it.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The application's value of type `T`, if it registered one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.state.get::<T>()
    }

    /// The application's value of type `T`, or a failure that says how to provide it.
    ///
    /// ```
    /// use toolwright_core::ToolContext;
    ///
    /// struct Workspace;
    /// let Err(err) = ToolContext::new().require_state::<Workspace>() else { unreachable!() };
    /// assert!(err.to_string().contains("Workspace"));
    /// ```
    pub fn require_state<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.state.get::<T>().ok_or_else(|| {
            ToolError::new(format!(
                "this tool is not configured: it needs a `{}` in the executor's state \
                 (the application adds it with `Executor::builder(..).state(value)`)",
                type_name::<T>()
            ))
        })
    }

    /// The whole state.
    pub fn state_map(&self) -> &ToolState {
        &self.state
    }

    /// Whether the call was cancelled; long-running tools check it and stop early.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.cancellation.cancelled().await;
    }

    /// The cancellation token of the call.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &&*self.call_id)
            .field("state", &self.state)
            .field("cancelled", &self.is_cancelled())
            .field("tool", &&*self.tool)
            .field("client", &self.client.is_some())
            .finish()
    }
}
