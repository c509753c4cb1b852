//! Options for one call.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::approval::ApprovalHandler;
use super::limits::CallCounts;
use crate::registry::ToolFilter;
use toolwright_core::ClientPowers;
use toolwright_core::Preview;
use toolwright_core::Progress;
use toolwright_core::SafetyLevel;

/// Where a call's progress reports go.
pub(super) type ProgressReporter = Arc<dyn Fn(Progress) + Send + Sync>;

/// Options for one call: its own timeout and a cancellation token.
///
/// ```
/// use std::time::Duration;
/// use toolwright_runtime::CallOptions;
/// use toolwright_core::CancellationToken;
///
/// let token = CancellationToken::new();
/// let options = CallOptions::new().timeout(Duration::from_secs(5)).cancellation(token.clone());
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(super) timeout: Option<Duration>,
    pub(super) cancellation: Option<CancellationToken>,
    pub(super) approval: Option<Arc<dyn ApprovalHandler>>,
    pub(super) progress: Option<ProgressReporter>,
    pub(super) max_safety: Option<SafetyLevel>,
    pub(super) client: Option<Arc<dyn ClientPowers>>,
    pub(super) allowed: Option<Arc<ToolFilter>>,
    pub(super) call_counts: Option<Arc<CallCounts>>,
    /// For a resumed call: the preview the person saw, which the fresh preview must still
    /// be (`Executor::resume_call`).
    pub(super) previewed: Option<Preview>,
    /// Whose call this is, for the per-owner limits of deferred calls (`None`: the owner `""`).
    pub(super) owner: Option<Arc<str>>,
    /// Who made the call (`CallOptions::caller`).
    pub(super) caller: Option<toolwright_core::Caller>,
    /// A call a running tool makes (code mode): it cannot wait for an approval or an
    /// answer given after it returns (a deferred approval, a multi round-trip request).
    pub(super) nested: bool,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("cancellation", &self.cancellation)
            .field("approval", &self.approval.is_some())
            .field("progress", &self.progress.is_some())
            .field("max_safety", &self.max_safety)
            .field("client", &self.client.is_some())
            .field("allowed", &self.allowed)
            .field("call_counts", &self.call_counts.is_some())
            .field("owner", &self.owner)
            .field("caller", &self.caller)
            .finish()
    }
}

impl CallOptions {
    /// No options: the executor's timeout, no cancellation.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// Whose call this is (an authenticated principal, a client address, a session): if its
    /// approval is deferred, the call counts against this owner's share of waiting calls
    /// ([`ExecutorBuilder::max_pending_approvals_per_owner`](crate::executor::ExecutorBuilder::max_pending_approvals_per_owner),
    /// [`max_pending_bytes_per_owner`](crate::executor::ExecutorBuilder::max_pending_bytes_per_owner)).
    /// Calls without an owner share one.
    ///
    /// ```
    /// use toolwright_runtime::CallOptions;
    ///
    /// let options = CallOptions::new().owner("token:3f2a");
    /// # let _ = options;
    /// ```
    pub fn owner(mut self, owner: impl Into<Arc<str>>) -> Self {
        self.owner = Some(owner.into());
        self
    }

    /// Who made this call, as the front end that authenticated it says: every tool reads the
    /// subject on its context ([`ToolContext::caller`](toolwright_core::ToolContext::caller)),
    /// and the bearer token reaches only a tool built with
    /// [`ToolBuilder::receives_caller_token`](toolwright_core::ToolBuilder::receives_caller_token)
    /// (a gateway's mounted tool that acts upstream as the caller). Without it the call is
    /// the local user's.
    ///
    /// ```
    /// use toolwright_core::{Caller, CallerToken};
    /// use toolwright_runtime::CallOptions;
    ///
    /// let options = CallOptions::new().caller(Caller::new("alice").with_token(CallerToken::new("t")));
    /// assert!(!format!("{options:?}").contains("\"t\""));
    /// ```
    pub fn caller(mut self, caller: toolwright_core::Caller) -> Self {
        self.caller = Some(caller);
        self
    }

    /// This call's timeout. The smallest of this, the tool's (`#[tool(timeout = "30s")]`)
    /// and the executor's ([`ExecutorBuilder::timeout`](crate::executor::ExecutorBuilder::timeout))
    /// applies: a caller can shorten a call, never lengthen it past the others.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Cancels the call when `token` is cancelled: the tool is told through its
    /// [`ToolContext`](toolwright_core::ToolContext), an async tool is stopped, and the result is a failure.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Who approves this call if it is dangerous, instead of the executor's handler (an MCP
    /// server asks the user of the client that made the call).
    pub fn approval(mut self, handler: impl ApprovalHandler) -> Self {
        self.approval = Some(Arc::new(handler));
        self
    }

    /// The highest safety level this call may run, for a caller allowed less than the
    /// executor's [`max_safety`](crate::executor::ExecutorBuilder::max_safety) (an MCP client whose
    /// token grants only `tools:safe`, say). The lower of the two applies: a tool above it is
    /// refused as denied without running, and the tool's context lists only the tools under
    /// it. It never raises the executor's ceiling.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_core::serde_json::json;
    /// use toolwright_runtime::executor::Outcome;
    /// use toolwright_core::{tool, SafetyLevel, ToolCall};
    /// use toolwright_runtime::{register_all_tools, CallOptions, Executor};
    ///
    /// /// Rename a file.
    /// #[tool(safety = "cautious")]
    /// fn rename_file(from: String, to: String) -> String { format!("{from} -> {to}") }
    ///
    /// let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    /// let call = ToolCall::new("1", "rename_file", json!({"from": "a", "to": "b"}));
    /// let report = executor
    ///     .execute_with(call, CallOptions::new().max_safety(SafetyLevel::Safe))
    ///     .await;
    /// assert_eq!(report.outcome, Outcome::Denied);
    /// assert_eq!(
    ///     report.result.error.as_deref(),
    ///     Some("tool `rename_file` is cautious, above this caller's limit of safe; it was not run")
    /// );
    /// # }
    /// ```
    pub fn max_safety(mut self, level: SafetyLevel) -> Self {
        self.max_safety = Some(level);
        self
    }

    /// The tools offered to the model for this request (its turn's tool list): a call of any
    /// other tool is refused as an unknown tool, whatever the registry holds, and the
    /// suggestions and what a running tool sees of the other tools
    /// ([`ToolContext::catalog`](toolwright_core::ToolContext::catalog)) keep to them. Export
    /// the schemas with the same filter (`registry.list(&filter)`), so what the model was
    /// shown and what it may run are one set.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_core::serde_json::json;
    /// use toolwright_runtime::executor::Outcome;
    /// use toolwright_core::{tool, ToolCall};
    /// use toolwright_runtime::{register_all_tools, CallOptions, Executor, ToolFilter};
    ///
    /// /// Read the weather.
    /// #[tool]
    /// fn forecast_city(city: String) -> String { format!("sun in {city}") }
    ///
    /// /// Ring the bell.
    /// #[tool]
    /// fn ring_bell(to: String) -> String { format!("rang for {to}") }
    ///
    /// let registry = Arc::new(register_all_tools().unwrap());
    /// let offered = ToolFilter::new().names(["forecast_city"]);
    /// let tools_for_the_model = registry.list(&offered); // export these schemas
    /// assert_eq!(tools_for_the_model.len(), 1);
    ///
    /// let executor = Executor::builder(registry).build();
    /// let options = CallOptions::new().allowed_tools(offered);
    /// let call = ToolCall::new("1", "ring_bell", json!({"to": "x@example.com"}));
    /// let report = executor.execute_with(call, options).await;
    /// assert_eq!(report.outcome, Outcome::UnknownTool);
    /// assert_eq!(report.result.error.as_deref(), Some("unknown tool `ring_bell`; available tools: `forecast_city`"));
    /// # }
    /// ```
    pub fn allowed_tools(mut self, offered: ToolFilter) -> Self {
        self.allowed = Some(Arc::new(offered));
        self
    }

    /// Counts this call against `counts` for per-tool call limits, instead of the
    /// executor's own counts: a front end gives each session its own
    /// [`CallCounts`](super::CallCounts), making `max_calls` a per-session limit.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::CallOptions;
    /// use toolwright_runtime::executor::CallCounts;
    ///
    /// let session = Arc::new(CallCounts::new());
    /// let options = CallOptions::new().call_counts(Arc::clone(&session));
    /// # let _ = options;
    /// ```
    pub fn call_counts(mut self, counts: Arc<CallCounts>) -> Self {
        self.call_counts = Some(counts);
        self
    }

    /// Where the tool's [`ToolContext::report_progress`](toolwright_core::ToolContext::report_progress) reports go for this call.
    pub fn progress(mut self, reporter: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(reporter));
        self
    }

    /// The client that made this call: where the tool's
    /// [`ToolContext::log`](toolwright_core::ToolContext::log),
    /// [`elicit`](toolwright_core::ToolContext::elicit) and [`sample`](toolwright_core::ToolContext::sample) go
    /// (an MCP server gives each call its session's client). Without one, logging goes to
    /// `tracing` and the requests are [`ClientError::NotAvailable`](toolwright_core::ClientError::NotAvailable).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_core::serde_json::json;
    /// use toolwright_core::client::{ClientFuture, ClientPowers, ElicitationRequest};
    /// use toolwright_runtime::{CallOptions, Executor, ToolRegistry};
    /// use toolwright_core::{ClientError, Elicitation, Tool, ToolCall};
    ///
    /// /// A user who always says yes.
    /// struct Yes;
    /// impl ClientPowers for Yes {
    ///     fn elicit(&self, _: ElicitationRequest) -> ClientFuture<Result<Elicitation<toolwright_core::serde_json::Value>, ClientError>> {
    ///         Box::pin(async { Ok(Elicitation::Accepted(json!({"sure": true}))) })
    ///     }
    /// }
    ///
    /// let ask = Tool::builder("ask")
    ///     .description("Ask the user whether they are sure.")
    ///     .handler_with_context(|ctx, _| async move {
    ///         let schema = json!({"type": "object", "properties": {"sure": {"type": "boolean"}}});
    ///         match ctx.elicit_json("Are you sure?", schema).await {
    ///             Ok(answer) => format!("{answer:?}"),
    ///             Err(error) => error.to_string(),
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let registry = ToolRegistry::new();
    /// registry.register(ask).unwrap();
    /// let executor = Executor::builder(Arc::new(registry)).build();
    ///
    /// let call = || ToolCall::new("1", "ask", json!({}));
    /// let plain = executor.execute(call()).await;
    /// assert!(plain.content.starts_with("elicitation is not available here"), "{}", plain.content);
    /// let asked = executor.execute_with(call(), CallOptions::new().client(Yes)).await;
    /// assert_eq!(asked.result.content, r#"Accepted(Object {"sure": Bool(true)})"#);
    /// # }
    /// ```
    pub fn client(mut self, client: impl ClientPowers) -> Self {
        self.client = Some(Arc::new(client));
        self
    }

    /// As [`client`](Self::client), with a client the caller shares.
    pub fn shared_client(mut self, client: Arc<dyn ClientPowers>) -> Self {
        self.client = Some(client);
        self
    }
}
