//! The tasks extension as the server answers it (SEP-2663): `McpServer`'s task settings,
//! the calls that become tasks, and `tasks/get`, `tasks/update`, `tasks/cancel`. The tasks
//! themselves, and where they are kept, are `crate::tasks`'s.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CreateTaskResult, ErrorCode,
    GetTaskParams, GetTaskResult, JsonObject, ServerCapabilities, TASKS_EXTENSION_ID,
    UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Map, Value, json};
use toolwright_core::{TaskSupport, ToolCall};
use toolwright_runtime::executor::{CallReport, Outcome};

use crate::principal::Principal;
use crate::server::setup::McpServer;
use crate::server::task_run::{Job, Start, TaskApproval};
use crate::tasks::handle::TaskHandle;
use crate::tasks::record::TaskRecord;
use crate::tasks::store::{TaskLimits, TaskStore, TaskStoreError};

/// The tasks settings of [`McpServer`].
impl McpServer {
    /// Keeps tasks in `store` (default: a [`MemoryTaskStore`](crate::tasks::MemoryTaskStore) of this server's own). Give
    /// replicas behind a load balancer one shared store (`RedisTaskStore`, feature
    /// `redis`), so any of them answers for any task.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_mcp::McpServer;
    /// use toolwright_mcp::tasks::MemoryTaskStore;
    /// # let executor = toolwright_runtime::Executor::builder(Arc::new(toolwright_runtime::ToolRegistry::new())).build();
    ///
    /// let server = McpServer::new(executor).task_store(Arc::new(MemoryTaskStore::new()));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        Arc::make_mut(&mut self.tasks).store = store;
        self
    }

    /// How long a task is kept from its creation, result included (default
    /// [`DEFAULT_TASK_TTL`](crate::tasks::DEFAULT_TASK_TTL), one hour; at least a millisecond). A call still running then
    /// is cancelled: give long calls a TTL longer than they run.
    ///
    /// ```
    /// use std::time::Duration;
    /// # use std::sync::Arc;
    /// # let executor = toolwright_runtime::Executor::builder(Arc::new(toolwright_runtime::ToolRegistry::new())).build();
    /// let server = toolwright_mcp::McpServer::new(executor).task_ttl(Duration::from_secs(6 * 3600));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        Arc::make_mut(&mut self.tasks).ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// How often clients are told to poll a task (default [`DEFAULT_POLL_INTERVAL`](crate::tasks::DEFAULT_POLL_INTERVAL), a
    /// second; at least a millisecond), and how often the replica running a task reads it
    /// for what other replicas wrote when its store cannot tell it (Redis).
    ///
    /// ```
    /// use std::time::Duration;
    /// # use std::sync::Arc;
    /// # let executor = toolwright_runtime::Executor::builder(Arc::new(toolwright_runtime::ToolRegistry::new())).build();
    /// let server = toolwright_mcp::McpServer::new(executor).task_poll_interval(Duration::from_millis(250));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        Arc::make_mut(&mut self.tasks).poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// How many tasks are kept, per caller and in all, and how large a result (default
    /// [`TaskLimits::default`]: 64, 1024, 1 MiB).
    ///
    /// ```
    /// use toolwright_mcp::tasks::TaskLimits;
    /// # use std::sync::Arc;
    /// # let executor = toolwright_runtime::Executor::builder(Arc::new(toolwright_runtime::ToolRegistry::new())).build();
    /// let server = toolwright_mcp::McpServer::new(executor)
    ///     .task_limits(TaskLimits::default().max_per_owner(4).max_total(100));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn task_limits(mut self, limits: TaskLimits) -> Self {
        Arc::make_mut(&mut self.tasks).limits = limits;
        self
    }

    /// Whether the server makes tasks and declares the tasks extension (default on). Off,
    /// every call answers in the call, and `required` tools cannot be called.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # let executor = toolwright_runtime::Executor::builder(Arc::new(toolwright_runtime::ToolRegistry::new())).build();
    /// let server = toolwright_mcp::McpServer::new(executor).tasks(false);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn tasks(mut self, enabled: bool) -> Self {
        Arc::make_mut(&mut self.tasks).enabled = enabled;
        self
    }
}

/// Declares the tasks extension in the server's capabilities, when it makes tasks.
pub(crate) fn declare(server: &McpServer, capabilities: &mut ServerCapabilities) {
    if server.tasks.enabled {
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(TASKS_EXTENSION_ID.to_owned(), JsonObject::new());
    }
}

/// `tools/call`: the answer when the call is this module's (a task, or a refusal because
/// it would have to be one), `None` when it is an ordinary call.
pub(crate) async fn call_tool(
    server: &McpServer,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, McpError>> {
    // An unknown tool is the ordinary path's to refuse.
    let tool = server.executor().registry().get(&request.name)?;
    let support = tool.task_support();
    if !support.allows_task() {
        return None;
    }
    let declared = declared_tasks(context);
    if server.tasks.enabled && declared {
        // A tool that asks first is run in the call up to its first question
        // (`handler.rs`), and becomes a task there once the question is answered.
        if tool.meta().ask_first && in_rounds(context) {
            return None;
        }
        let arguments = request.arguments.clone().unwrap_or_default();
        return Some(start(server, &request.name, arguments, context, None).await);
    }
    if support != TaskSupport::Required {
        return None;
    }
    let message = if server.tasks.enabled {
        format!(
            "tool `{}` runs only as a task, and this client did not declare the tasks \
             extension: declare `{TASKS_EXTENSION_ID}` in the request's capabilities (_meta \
             `io.modelcontextprotocol/clientCapabilities`, `extensions`), then poll tasks/get \
             for the result",
            request.name
        )
    } else {
        format!(
            "tool `{}` runs only as a task, and this server does not run tasks; its operator \
             can turn them on (`McpServer::tasks`)",
            request.name
        )
    };
    Some(Err(McpError::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message,
        Some(json!({
            "requiredCapabilities": {"extensions": {TASKS_EXTENSION_ID: {}}},
        })),
    )))
}

/// A call whose approval the executor deferred, in an ordinary `tools/call`: a task whose
/// approval form waits in `inputRequests`, when the client can answer it (it declared the
/// tasks extension and elicitation, and may approve). `None`: the pending result stands.
///
/// `server_defers`: the server deferred the call only to make this task of it; then a task
/// that cannot be made (the caller's tasks or the store are full) takes the call back and
/// is refused at once, naming the limit, instead of leaving a call nobody can answer.
pub(crate) async fn deferred(
    server: &McpServer,
    context: &RequestContext<RoleServer>,
    report: &CallReport,
    server_defers: bool,
) -> Option<Result<CallToolResponse, McpError>> {
    if report.outcome != Outcome::Pending || !server.tasks.enabled || !declared_tasks(context) {
        return None;
    }
    let principal = crate::caller::principal(&context.extensions);
    let may_approve = principal.is_none_or(Principal::can_approve);
    if !may_approve || !server.asks_by_elicitation() || !declared_elicitation(context) {
        return None;
    }
    let token = report.result.metadata.pending.as_ref()?.token.clone();
    let waiting = server
        .executor()
        .pending_approvals()
        .into_iter()
        .find(|pending| pending.token == token)?;
    let ceiling = crate::caller::ceiling(principal).ok()?;
    let form = match crate::ask::approval::input_request(&waiting.request) {
        Ok(form) => form,
        Err(error) => {
            tracing::warn!(%error, "could not write a deferred call's approval form; the call stays pending");
            return None;
        }
    };
    let id = match new_id() {
        Ok(id) => id,
        Err(error) => return Some(Err(error)),
    };
    let config = &server.tasks;
    let mut record = TaskRecord::new(
        id.clone(),
        owner(principal),
        waiting.call.name.clone(),
        config.ttl,
        config.poll_interval,
    );
    let key = "approval-1".to_owned();
    record.input_requests.insert(key.clone(), form);
    record.status = rmcp::model::TaskStatus::InputRequired;
    record.status_message = Some(format!(
        "waiting for the user to approve `{}` (answer the approval request in inputRequests \
         with tasks/update)",
        crate::ask::approval::printable(&waiting.call.name)
    ));
    if let Err(error) = config.store.create(&record, &config.limits).await {
        if server_defers {
            let _ = server.executor().take_pending(&token);
            tracing::warn!(%error, "refused a call whose approval could not become a task");
            return Some(Err(refused(server, error)));
        }
        tracing::warn!(%error, "could not make a task of a deferred call; the call stays pending");
        return None;
    }
    let handle = Arc::new(TaskHandle::new(
        crate::tasks::handle::TaskConfig::clone(config),
        id,
        config.running.register(&record.id),
    ));
    // The key above is the task's first.
    let _ = handle.next_key("approval");
    let job = Job {
        server: server.clone(),
        handle,
        tool: waiting.call.name.clone(),
        ceiling,
        approval: TaskApproval::Executor,
        elicitation: true,
        may_approve: true,
        owner: owner(principal),
        share: crate::caller::share_ticket(&context.extensions),
        answers: None,
        deferred: Arc::default(),
        caller: crate::caller::caller(&context.extensions),
    };
    let report = Box::new(report.clone());
    tokio::spawn(job.run(Start::Deferred { report, key }, None));
    Some(Ok(CallToolResponse::Task(CreateTaskResult::new(
        record.task(),
    ))))
}

/// Whether the call's client speaks the 2026-07-28 revision (asked in the call's result).
fn in_rounds(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize())
}

/// Whether a call of `tool` asks first (`#[tool(ask_first)]`) and may become a task: the
/// call runs the tool up to its first question, in the call's round.
pub(crate) fn asks_first(
    server: &McpServer,
    tool: &str,
    context: &RequestContext<RoleServer>,
) -> bool {
    server.tasks.enabled
        && in_rounds(context)
        && declared_tasks(context)
        && server
            .executor()
            .registry()
            .get(tool)
            .is_some_and(|tool| tool.meta().ask_first && tool.task_support().allows_task())
}

/// A call of a tool that asks first, whose first question the call's round answered: the
/// call becomes a task, whose run finds the answers of `round`.
pub(crate) async fn start_after_questions(
    server: &McpServer,
    name: &str,
    arguments: Map<String, Value>,
    context: &RequestContext<RoleServer>,
    round: Arc<crate::ask::rounds::Round>,
) -> Result<CallToolResponse, McpError> {
    start(server, name, arguments, context, Some(round)).await
}

/// Starts a call as a task: stores it, runs it in the background, and answers with it.
async fn start(
    server: &McpServer,
    name: &str,
    arguments: Map<String, Value>,
    context: &RequestContext<RoleServer>,
    answers: Option<Arc<crate::ask::rounds::Round>>,
) -> Result<CallToolResponse, McpError> {
    let principal = crate::caller::principal(&context.extensions);
    let ceiling = crate::caller::ceiling(principal)?;
    // The caller's share of calls in flight, held while the call first runs.
    let ticket = crate::caller::share_ticket(&context.extensions);
    let share = ticket.enter()?;
    let config = &server.tasks;
    let id = new_id()?;
    let name = name.to_owned();
    let record = TaskRecord::new(
        id.clone(),
        owner(principal),
        name.clone(),
        config.ttl,
        config.poll_interval,
    );
    config
        .store
        .create(&record, &config.limits)
        .await
        .map_err(|error| refused(server, error))?;
    let handle = Arc::new(TaskHandle::new(
        crate::tasks::handle::TaskConfig::clone(config),
        id,
        config.running.register(&record.id),
    ));
    let call = ToolCall::new(
        context.id.to_string(),
        name.clone(),
        Value::Object(arguments),
    );
    let elicitation = declared_elicitation(context);
    let may_approve =
        principal.is_none_or(Principal::can_approve) && server.asks_by_elicitation() && elicitation;
    let job = Job {
        server: server.clone(),
        handle,
        tool: name,
        ceiling,
        approval: approval(server, principal, may_approve),
        elicitation,
        may_approve,
        owner: owner(principal),
        share: ticket,
        answers,
        deferred: Arc::default(),
        caller: crate::caller::caller(&context.extensions),
    };
    tracing::info!(task = %record.id, tool = %job.tool, "a call runs as a task");
    tokio::spawn(job.run(Start::Call(call), share));
    Ok(CallToolResponse::Task(CreateTaskResult::new(record.task())))
}

/// Who approves a dangerous call of a task: as `McpServer` decides for a plain call, except
/// that a client that can be asked (`may_ask`: it declared elicitation, the server asks
/// clients, the caller may approve) is asked through the task.
fn approval(server: &McpServer, principal: Option<&Principal>, may_ask: bool) -> TaskApproval {
    if may_ask {
        return TaskApproval::AskTheClient;
    }
    let may_approve = principal.is_none_or(Principal::can_approve);
    if server.allows_dangerous() {
        return TaskApproval::Approve;
    }
    if server.executor().has_approval_handler() {
        return TaskApproval::Executor;
    }
    TaskApproval::Deny(if may_approve {
        format!(
            "this MCP client cannot ask you to approve it (it does not support elicitation); \
             the server refuses dangerous tools unless its operator allows them: {}",
            server.options.allow_dangerous_hint
        )
    } else {
        format!(
            "your access token lacks the `{}` scope needed to approve it; ask for a token with \
             that scope (the server refuses dangerous tools to such callers unless its \
             operator allows them: {})",
            crate::principal::SCOPE_APPROVE,
            server.options.allow_dangerous_hint
        )
    })
}

/// `tasks/get`: the task as it stands, for its owner.
pub(crate) async fn get_task(
    server: &McpServer,
    params: GetTaskParams,
    context: &RequestContext<RoleServer>,
) -> Result<GetTaskResult, McpError> {
    let task = owned_task(server, &params.task_id, context).await?;
    Ok(GetTaskResult::new(task.detailed()))
}

/// `tasks/update`: the client's answers to the task's questions. Answers to questions the
/// task is not asking (unknown, answered, withdrawn) are ignored; the replica running the
/// task takes the others.
pub(crate) async fn update_task(
    server: &McpServer,
    params: UpdateTaskParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), McpError> {
    let id = params.task_id;
    owned_task(server, &id, context).await?;
    let limit = MAX_ANSWER_BYTES;
    for (key, answer) in &params.input_responses {
        let size = serde_json::to_vec(answer).map_or(usize::MAX, |bytes| bytes.len());
        if size > limit {
            return Err(McpError::invalid_params(
                format!(
                    "the answer to `{key}` is {size} bytes; an answer to a task's question may \
                     be at most {limit}"
                ),
                None,
            ));
        }
    }
    let responses = params.input_responses;
    let written = crate::tasks::handle::modify(&server.tasks, &id, &mut |task: &mut TaskRecord| {
        if task.status.is_terminal() {
            return false;
        }
        let mut changed = false;
        for (key, answer) in &responses {
            if task.input_requests.contains_key(key) && !task.input_responses.contains_key(key) {
                task.input_responses.insert(key.clone(), answer.clone());
                changed = true;
            }
        }
        changed
    })
    .await
    .map_err(store_error)?;
    if written.is_none() {
        return Err(not_found(&id));
    }
    if let Some(local) = server.tasks.running.get(&id) {
        local.changed.notify_waiters();
    }
    Ok(())
}

/// `tasks/cancel`: records the request (any replica sees it) and stops the call at once if
/// it runs here. A task that ended stays as it ended.
pub(crate) async fn cancel_task(
    server: &McpServer,
    params: CancelTaskParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), McpError> {
    let id = params.task_id;
    owned_task(server, &id, context).await?;
    let written = crate::tasks::handle::modify(&server.tasks, &id, &mut |task: &mut TaskRecord| {
        if task.status.is_terminal() || task.cancel_requested {
            return false;
        }
        task.cancel_requested = true;
        task.status_message = Some("cancelling at the client's request".to_owned());
        true
    })
    .await
    .map_err(store_error)?;
    if written.is_none() {
        return Err(not_found(&id));
    }
    if let Some(local) = server.tasks.running.get(&id) {
        local.cancel.cancel();
        local.changed.notify_waiters();
    }
    Ok(())
}

/// The largest answer `tasks/update` takes for one question, in bytes of its JSON.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The task `id` if the caller owns it.
async fn owned_task(
    server: &McpServer,
    id: &str,
    context: &RequestContext<RoleServer>,
) -> Result<TaskRecord, McpError> {
    let caller = owner(crate::caller::principal(&context.extensions));
    match server.tasks.store.load(id).await.map_err(store_error)? {
        Some(task) if task.owner == caller => Ok(task),
        // Another caller's task is, to this one, no task at all.
        _ => Err(not_found(id)),
    }
}

fn not_found(id: &str) -> McpError {
    McpError::invalid_params(
        format!(
            "no task `{}` here: it never existed, it expired (a task is kept for its ttlMs \
             from its creation), or another caller created it",
            crate::ask::approval::printable(id)
        ),
        None,
    )
}

/// A failure to create a task as the client's error, counted when a limit refused it.
fn refused(server: &McpServer, error: TaskStoreError) -> McpError {
    if matches!(
        error,
        TaskStoreError::OwnerFull { .. } | TaskStoreError::StoreFull { .. }
    ) {
        crate::refused::LimitRefusals::count(&server.refused.tasks);
    }
    store_error(error)
}

/// A store's failure as the client's error: a full store is the caller's to wait for, a
/// failing one the server's.
fn store_error(error: TaskStoreError) -> McpError {
    match error {
        TaskStoreError::OwnerFull { .. } | TaskStoreError::StoreFull { .. } => {
            McpError::new(ErrorCode(-32000), error.to_string(), None)
        }
        other => {
            tracing::error!(error = %other, "the task store failed");
            McpError::internal_error(other.to_string(), None)
        }
    }
}

/// Whose a task of this caller is.
fn owner(principal: Option<&Principal>) -> String {
    crate::caller::owner(principal).to_owned()
}

/// Whether the request declared the tasks extension (in its `_meta`, or at `initialize`).
pub(crate) fn declared_tasks(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks())
}

/// Whether the request declared form elicitation (or an empty `elicitation: {}`, which
/// means forms).
pub(crate) fn declared_elicitation(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// A new task id: 128 random bits, hex.
fn new_id() -> Result<String, McpError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| {
        McpError::internal_error(
            format!("could not make a task id: the system's random source failed ({error})"),
            None,
        )
    })?;
    Ok(toolwright_core::encoding::hex(&bytes))
}
