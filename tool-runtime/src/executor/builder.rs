//! Configuring an executor: its policy, limits, hooks and state.

use std::sync::Arc;
use std::time::Duration;

use std::collections::HashMap;

use super::approval::ApprovalHandler;
use super::guardrail::Guardrail;
use super::handle::{Executor, Inner};
use super::hooks::ToolHook;
use super::limits::CallCounts;
use super::metrics::Metrics;
use super::pending::{
    DEFAULT_PENDING_APPROVAL_TTL, MIN_PENDING_KEY_LEN, PendingCalls, PendingKey, PendingLimits,
};
use super::pool::{DEFAULT_SYNC_THREADS, Pool};
use crate::registry::{ToolFilter, ToolRegistry};
use toolwright_core::SafetyLevel;
use toolwright_core::ToolState;
use toolwright_core::client::DEFAULT_MAX_CLIENT_REQUESTS;

/// Why an executor was not built.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecutorBuildError {
    /// Tools need state the builder was not given.
    #[error("{}", missing_state_message(.0))]
    MissingState(Vec<MissingState>),
    /// The key given to [`ExecutorBuilder::pending_key`] is shorter than
    /// [`MIN_PENDING_KEY_LEN`] bytes.
    #[error(
        "the pending key is {len} bytes long; it must be at least {MIN_PENDING_KEY_LEN} random \
         bytes (32 bytes from a secure random source, kept secret and shared by the replicas)"
    )]
    ShortPendingKey {
        /// The given key's length in bytes.
        len: usize,
    },
}

/// One type of state one tool needs and the executor lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingState {
    /// The tool's name.
    pub tool: String,
    /// The type it needs, as Rust writes it.
    pub type_name: &'static str,
}

fn missing_state_message(missing: &[MissingState]) -> String {
    let mut tools: Vec<&str> = missing.iter().map(|m| m.tool.as_str()).collect();
    tools.dedup();
    let mut message = format!(
        "{} {} state the executor was not given:",
        tools.len(),
        if tools.len() == 1 {
            "tool needs"
        } else {
            "tools need"
        }
    );
    for m in missing {
        message.push_str(&format!("\n  - `{}` needs `{}`", m.tool, m.type_name));
    }
    message.push_str(
        "\nadd each with `Executor::builder(..).state(value)` (or `.shared_state(arc)`), bind a \
         tool set to an instance with `ToolRegistry::register_set`, or remove the tools from the \
         registry",
    );
    message
}

/// How many calls of one `execute_batch` run at once unless configured.
const DEFAULT_CONCURRENCY: usize = 16;

/// Configures an [`Executor`]; made by [`Executor::builder`].
#[must_use = "a builder does nothing until `.build()`"]
pub struct ExecutorBuilder {
    registry: Arc<ToolRegistry>,
    max_safety: SafetyLevel,
    approval: Option<Arc<dyn ApprovalHandler>>,
    hooks: Vec<Arc<dyn ToolHook>>,
    timeout: Option<Duration>,
    concurrency: usize,
    state: ToolState,
    lenient: bool,
    max_sync_threads: usize,
    max_concurrent_calls: Option<usize>,
    validate_output: bool,
    max_output_bytes: usize,
    max_client_requests: u32,
    guardrails: Vec<Arc<dyn Guardrail>>,
    pending_ttl: Duration,
    pending_limits: PendingLimits,
    pending_key: Option<Vec<u8>>,
    max_calls: HashMap<String, u32>,
    discovery: super::discovery::Discovery,
    nested_calls_for: std::collections::HashSet<String>,
}

impl ExecutorBuilder {
    /// How the tools are listed (default [`Discovery::Full`](super::Discovery::Full)):
    /// [`Discovery::search_first`](super::Discovery::search_first) lists a core plus
    /// `search_tools`, `describe_tool` and `call_tool`; every tool stays callable under its
    /// own policy ([`Executor::listed_tools`]).
    pub fn discovery(mut self, discovery: super::discovery::Discovery) -> Self {
        self.discovery = discovery;
        self
    }

    /// Refuse tools above `level` without running them (default: none refused).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_core::SafetyLevel;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_safety(SafetyLevel::Cautious).build();
    /// assert_eq!(executor.max_safety(), SafetyLevel::Cautious);
    /// ```
    pub fn max_safety(mut self, level: SafetyLevel) -> Self {
        self.max_safety = level;
        self
    }

    /// How many elicitation and sampling requests one call may make of its client (default
    /// [`DEFAULT_MAX_CLIENT_REQUESTS`], 10); beyond it a request fails with
    /// [`ClientError::LimitReached`](toolwright_core::ClientError::LimitReached) without reaching the
    /// client, so a tool a model drives cannot flood the user with questions or spend the
    /// client's model without end.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_client_requests(3).build();
    /// assert_eq!(executor.max_client_requests(), 3);
    /// ```
    pub fn max_client_requests(mut self, limit: u32) -> Self {
        self.max_client_requests = limit;
        self
    }

    /// Who approves dangerous calls: any `Fn(ApprovalRequest) -> impl Future<Output =
    /// ApprovalDecision>` or [`ApprovalHandler`]. Without one, dangerous calls are refused.
    pub fn approval(mut self, handler: impl ApprovalHandler) -> Self {
        self.approval = Some(Arc::new(handler));
        self
    }

    /// Adds a hook; hooks run in the order they are added.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// # use toolwright_runtime::executor::AuditLog;
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .hook(AuditLog::new(std::io::sink()))
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn hook(mut self, hook: impl ToolHook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Adds a hook that is shared with other code (to read what it collected).
    pub fn shared_hook(mut self, hook: Arc<dyn ToolHook>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// How long a call may run before it fails as timed out (default: no limit). A call's own
    /// [`CallOptions::timeout`](super::CallOptions::timeout) wins.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How many calls of one [`Executor::execute_batch`] run at once (default 16, at
    /// least 1).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).concurrency(4).build();
    /// # let _ = executor;
    /// ```
    pub fn concurrency(mut self, limit: usize) -> Self {
        self.concurrency = limit.max(1);
        self
    }

    /// The most threads sync tools run on at once (default 64, at least 1).
    ///
    /// A sync tool runs on a thread of its own, so it can block without stalling the async
    /// runtime, and a tool that never returns loses only its thread; the price is a thread
    /// hop per call (a few microseconds; async tools run on the caller's task). A call whose
    /// caller stopped waiting keeps its thread until the tool returns and counts against
    /// this limit as *abandoned* ([`SyncThreadStats`](super::SyncThreadStats) in [`Executor::metrics`]); tools that
    /// check [`ToolContext::is_cancelled`](toolwright_core::ToolContext::is_cancelled) give their thread back at once. When every thread
    /// is busy, a call waits for one within its timeout, then fails saying so.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_sync_threads(8).build();
    /// assert_eq!(executor.metrics().sync_threads.limit, 8);
    /// ```
    pub fn max_sync_threads(mut self, limit: usize) -> Self {
        self.max_sync_threads = limit.max(1);
        self
    }

    /// The most calls that run at once, across every caller of this executor (default: no
    /// limit; at least 1). A call over the limit waits for a slot within its timeout, then
    /// fails saying the executor is at its limit. For a server shared by many clients.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_concurrent_calls(32).build();
    /// # let _ = executor;
    /// ```
    pub fn max_concurrent_calls(mut self, limit: usize) -> Self {
        self.max_concurrent_calls = Some(limit.max(1));
        self
    }

    /// A value tools can read through [`ToolContext::state`](toolwright_core::ToolContext::state); one per type.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// struct ApiKey(String);
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .state(ApiKey("secret".into()))
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Shares a value the application already holds with the tools, as [`state`](Self::state)
    /// does for a value it hands over: a tool set's instance the application also uses, a
    /// pool cloned elsewhere. Tools read it as a `&T` (`#[state]`, `&self` of a set's method).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// struct Pool;
    /// let pool = Arc::new(Pool);
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .shared_state(Arc::clone(&pool))
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.state.insert_shared(value);
        self
    }

    /// Accept the argument mistakes models make most (a number or boolean sent as a string,
    /// one value where an array was expected, an object sent as a JSON string) and record
    /// what was changed in the result's `metadata.coerced`. Off by default.
    pub fn lenient_arguments(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }

    /// Check each tool's structured output against its output schema before the result
    /// goes back (default: on in debug builds, off in release builds). Output that breaks
    /// the schema fails the call with a message naming the field (a JSON Pointer) and what
    /// the schema expects there: a bug in the tool, caught before a model or client reads
    /// data that does not match what the tool promised. A tool whose schema the executor
    /// cannot read (a `$ref` to another document or an anchor) is not checked, and a warning is logged once.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).validate_output(true).build();
    /// assert!(executor.validates_output());
    /// ```
    pub fn validate_output(mut self, validate: bool) -> Self {
        self.validate_output = validate;
        self
    }

    /// The most bytes of text and data one result may carry (default
    /// [`DEFAULT_MAX_OUTPUT_BYTES`](super::DEFAULT_MAX_OUTPUT_BYTES), 16 MiB; at least 1):
    /// [`ToolOutput::byte_len`](toolwright_core::ToolOutput::byte_len), counted before base64. A
    /// larger output (a buggy or hostile tool's 500 MB image) fails the call saying so,
    /// instead of being encoded and sent on. Providers refuse far less (Anthropic takes
    /// images up to 5 MB); the limit is for what no one can use.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).max_output_bytes(1 << 20).build();
    /// assert_eq!(executor.max_output_bytes(), 1 << 20);
    /// ```
    pub fn max_output_bytes(mut self, limit: usize) -> Self {
        self.max_output_bytes = limit.max(1);
        self
    }

    /// Adds a guardrail: it checks every call after the safety ceiling and before the
    /// approval policy (it may deny or rewrite the arguments), and every successful output
    /// before hooks and the model see it (it may replace or withhold it). Guardrails run in
    /// the order they were added; the first denial stops the call; each sees the previous
    /// one's rewrite. See [`Guardrail`](crate::executor::Guardrail).
    pub fn guardrail(mut self, guardrail: impl Guardrail) -> Self {
        self.guardrails.push(Arc::new(guardrail));
        self
    }

    /// As [`guardrail`](Self::guardrail), with a guardrail the caller shares.
    pub fn shared_guardrail(mut self, guardrail: Arc<dyn Guardrail>) -> Self {
        self.guardrails.push(guardrail);
        self
    }

    /// How long a call deferred by the approval handler
    /// ([`ApprovalDecision::Defer`](crate::executor::ApprovalDecision::Defer)) waits for
    /// [`Executor::resume`] before it is dropped (default: one hour).
    ///
    /// ```
    /// use std::{sync::Arc, time::Duration};
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .pending_approval_ttl(Duration::from_secs(24 * 3600))
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn pending_approval_ttl(mut self, ttl: Duration) -> Self {
        self.pending_ttl = ttl;
        self
    }

    /// The secret key that signs deferred calls (HMAC-SHA256 over everything that decides
    /// what runs: see [`PendingCall`](crate::executor::PendingCall)), at least
    /// [`MIN_PENDING_KEY_LEN`] bytes ([`try_build`](Self::try_build) fails on a shorter one).
    /// Give the same key to every replica that resumes the others' calls
    /// ([`Executor::resume_call`]); without one, the executor uses a random key made once per
    /// process, so pending calls resume only in the process that deferred them.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// // In practice: 32 random bytes from a secret store, the same for every replica.
    /// let key = [42u8; 32];
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .pending_key(key)
    ///     .try_build()
    ///     .unwrap();
    /// # let _ = executor;
    /// assert!(Executor::builder(Arc::new(ToolRegistry::new())).pending_key(*b"short").try_build().is_err());
    /// ```
    pub fn pending_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.pending_key = Some(key.as_ref().to_vec());
        self
    }

    /// How many deferred calls the executor keeps waiting at once (default 1024); beyond it
    /// a deferral is refused as denied, so a model cannot fill the memory with calls nobody
    /// approves.
    pub fn max_pending_approvals(mut self, limit: usize) -> Self {
        self.pending_limits.max = limit;
        self
    }

    /// How many deferred calls one owner ([`CallOptions::owner`](crate::executor::CallOptions::owner);
    /// calls without one share the owner `""`) keeps waiting at once (default
    /// [`DEFAULT_MAX_PENDING_APPROVALS_PER_OWNER`](crate::executor::DEFAULT_MAX_PENDING_APPROVALS_PER_OWNER),
    /// 64); beyond it that owner's deferrals are refused as denied
    /// ([`DeferError::OwnerFull`](crate::executor::DeferError::OwnerFull)), so one caller
    /// cannot take every slot.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .max_pending_approvals_per_owner(4)
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn max_pending_approvals_per_owner(mut self, limit: usize) -> Self {
        self.pending_limits.per_owner = limit;
        self
    }

    /// How many bytes of deferred calls (their JSON: arguments and what the person is shown)
    /// one owner keeps waiting at once (default
    /// [`DEFAULT_MAX_PENDING_BYTES_PER_OWNER`](crate::executor::DEFAULT_MAX_PENDING_BYTES_PER_OWNER),
    /// 4 MiB); a deferral past it is refused as denied
    /// ([`DeferError::OwnerBytes`](crate::executor::DeferError::OwnerBytes)).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .max_pending_bytes_per_owner(256 * 1024)
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn max_pending_bytes_per_owner(mut self, limit: usize) -> Self {
        self.pending_limits.bytes_per_owner = limit;
        self
    }

    /// How many bytes of deferred calls the executor keeps waiting at once over every owner
    /// (default [`DEFAULT_MAX_PENDING_BYTES`](crate::executor::DEFAULT_MAX_PENDING_BYTES),
    /// 64 MiB); a deferral past it is refused as denied
    /// ([`DeferError::Bytes`](crate::executor::DeferError::Bytes)).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .max_pending_bytes(16 * 1024 * 1024)
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn max_pending_bytes(mut self, limit: usize) -> Self {
        self.pending_limits.bytes = limit;
        self
    }

    /// At most `limit` runs of `tool` per executor, or per session when the front end gives
    /// each session its own [`CallCounts`] ([`CallOptions::call_counts`](crate::executor::CallOptions::call_counts)).
    /// Overrides the tool's own `#[tool(max_calls = n)]`. Beyond it, calls are refused as
    /// denied with a message that tells the model to go on without the tool.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_core::serde_json::json;
    /// use toolwright_core::{tool, ToolCall};
    /// use toolwright_runtime::{register_all_tools, Executor};
    ///
    /// /// Search the web.
    /// #[tool]
    /// fn web_search(query: String) -> String { format!("results for {query}") }
    ///
    /// let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
    ///     .max_calls("web_search", 1)
    ///     .build();
    /// let call = |id: &str| ToolCall::new(id, "web_search", json!({"query": "rust"}));
    /// assert!(executor.execute(call("1")).await.success);
    /// let refused = executor.execute(call("2")).await;
    /// assert_eq!(refused.error.as_deref(), Some(
    ///     "tool `web_search` was not run: it may run at most 1 time per executor and has \
    ///      run 1 time; go on without it"));
    /// # }
    /// ```
    pub fn max_calls(mut self, tool: impl Into<String>, limit: u32) -> Self {
        self.max_calls.insert(tool.into(), limit);
        self
    }

    /// Lets the tools named `tools` call other tools on their caller's behalf
    /// ([`ToolContext::nested_calls`](toolwright_core::ToolContext::nested_calls)): code mode's
    /// `run_code` (toolwright-std). Each such call goes through this executor's whole policy
    /// with the outer call's options (offered set, ceiling, approval handler, owner, call
    /// counts, cancellation), and hooks see it under the called tool's name. Default: no tool
    /// may; the operator names each one.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new()))
    ///     .nested_calls_for(["run_code"])
    ///     .build();
    /// # let _ = executor;
    /// ```
    pub fn nested_calls_for(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.nested_calls_for
            .extend(tools.into_iter().map(Into::into));
        self
    }

    /// The executor, after checking that its state holds every type of state the registry's
    /// tools need ([`Tool::required_state`](toolwright_core::Tool::required_state): tool sets' `Self`, `#[state]` parameters,
    /// [`ToolBuilder::needs_state`](toolwright_core::ToolBuilder::needs_state)), disabled tools
    /// included since they can be enabled later. Tools registered after the build are not
    /// checked: a call to one whose state is missing fails with a message naming the type.
    ///
    /// # Errors
    ///
    /// [`ExecutorBuildError::MissingState`], listing every tool and the state it lacks;
    /// [`ExecutorBuildError::ShortPendingKey`] for a [`pending_key`](Self::pending_key)
    /// shorter than [`MIN_PENDING_KEY_LEN`] bytes.
    ///
    /// <!-- A crate of its own: its tools need state, and doctests share a binary. -->
    /// ```rust,standalone_crate
    /// use std::sync::Arc;
    /// use toolwright_core::tool;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    /// use toolwright_runtime::executor::ExecutorBuildError;
    ///
    /// struct Pool;
    ///
    /// /// Count the rows of the table.
    /// #[tool]
    /// fn count_rows(#[state] pool: &Pool) -> u64 {
    ///     let _ = pool;
    ///     0
    /// }
    ///
    /// let registry = Arc::new(toolwright_runtime::register_all_tools().unwrap());
    /// let error = Executor::builder(Arc::clone(&registry)).try_build().unwrap_err();
    /// let ExecutorBuildError::MissingState(missing) = &error else { unreachable!() };
    /// assert_eq!(missing[0].tool, "count_rows");
    /// assert!(error.to_string().contains("`count_rows` needs"));
    /// // `?` in `main` prints the error's Debug: the same message.
    /// assert_eq!(format!("{error:?}"), error.to_string());
    ///
    /// assert!(Executor::builder(registry).state(Pool).try_build().is_ok());
    /// ```
    pub fn try_build(self) -> Result<Executor, ExecutorBuildError> {
        if let Some(key) = &self.pending_key
            && key.len() < MIN_PENDING_KEY_LEN
        {
            return Err(ExecutorBuildError::ShortPendingKey { len: key.len() });
        }
        let missing = self.missing_state();
        if missing.is_empty() {
            Ok(self.build_unchecked())
        } else {
            Err(ExecutorBuildError::MissingState(missing))
        }
    }

    /// The executor; [`try_build`](Self::try_build) without the `Result`, for programs whose
    /// tools' state is fixed at compile time.
    ///
    /// # Panics
    ///
    /// When a tool needs state the builder was not given, with the message of
    /// [`ExecutorBuildError`] (every tool and type missing), or the pending key is too short:
    /// a configuration mistake found when the program starts, not when a model first calls
    /// the tool.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_runtime::{Executor, ToolRegistry};
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// assert!(!executor.has_approval_handler());
    /// ```
    pub fn build(self) -> Executor {
        match self.try_build() {
            Ok(executor) => executor,
            Err(error) => panic!("{error}"),
        }
    }

    /// Every registered tool's state the builder does not hold, by tool name.
    fn missing_state(&self) -> Vec<MissingState> {
        let mut missing = Vec::new();
        for registration in self
            .registry
            .registrations(&ToolFilter::new().include_disabled(true))
        {
            for state in registration.tool.required_state() {
                if !self.state.contains(*state) {
                    missing.push(MissingState {
                        tool: registration.tool.name().to_owned(),
                        type_name: state.type_name(),
                    });
                }
            }
        }
        missing
    }

    fn build_unchecked(self) -> Executor {
        // The tools a call may see at the executor's own ceiling, made once: most calls
        // have no narrower view of their own.
        let catalog = self.registry.call_catalog(self.max_safety, None);
        Executor {
            inner: Arc::new(Inner {
                catalog,
                registry: self.registry,
                max_safety: self.max_safety,
                approval: self.approval,
                hooks: self.hooks,
                timeout: self.timeout,
                concurrency: self.concurrency,
                state: Arc::new(self.state),
                lenient: self.lenient,
                metrics: Metrics::default(),
                pool: Pool::new(self.max_sync_threads),
                call_limit: self
                    .max_concurrent_calls
                    .map(|limit| Arc::new(tokio::sync::Semaphore::new(limit))),
                max_concurrent_calls: self.max_concurrent_calls.unwrap_or(0),
                validate_output: self.validate_output,
                max_output_bytes: self.max_output_bytes,
                max_client_requests: self.max_client_requests,
                guardrails: self.guardrails,
                pending: PendingCalls::with_limits(
                    self.pending_ttl,
                    self.pending_limits,
                    self.pending_key
                        .as_deref()
                        .map_or_else(PendingKey::process, PendingKey::given),
                ),
                max_calls: self.max_calls,
                nested_calls_for: self.nested_calls_for,
                call_counts: Arc::new(CallCounts::new()),
                discovery: self.discovery,
            }),
        }
    }
}

impl Executor {
    /// Starts configuring an executor over `registry`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).concurrency(4).build();
    /// # let _ = executor;
    /// ```
    pub fn builder(registry: Arc<ToolRegistry>) -> ExecutorBuilder {
        ExecutorBuilder {
            registry,
            max_safety: SafetyLevel::Dangerous,
            approval: None,
            hooks: Vec::new(),
            timeout: None,
            concurrency: DEFAULT_CONCURRENCY,
            state: ToolState::new(),
            lenient: false,
            max_sync_threads: DEFAULT_SYNC_THREADS,
            max_concurrent_calls: None,
            validate_output: cfg!(debug_assertions),
            max_output_bytes: super::handle::DEFAULT_MAX_OUTPUT_BYTES,
            max_client_requests: DEFAULT_MAX_CLIENT_REQUESTS,
            guardrails: Vec::new(),
            pending_ttl: DEFAULT_PENDING_APPROVAL_TTL,
            pending_limits: PendingLimits::default(),
            pending_key: None,
            max_calls: HashMap::new(),
            discovery: super::discovery::Discovery::Full,
            nested_calls_for: std::collections::HashSet::new(),
        }
    }
}

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for ExecutorBuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
