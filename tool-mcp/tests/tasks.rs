//! Tasks (the MCP tasks extension, SEP-2663) over streamable HTTP, with rmcp's client: a
//! call of a task tool answers with a task that the client polls to its end, cancels,
//! answers; tasks belong to their caller, expire, and are shared by servers that share a
//! store (a memory store in one process; Redis with the `redis` feature).
//!
//! No test waits for a time: each waits for an event (a tool that signals, a task status
//! that `tasks/get` shows) under a generous deadline that fails it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    CreateTaskResult, ErrorCode, GetTaskParams, GetTaskResult, Implementation, ProtocolVersion,
    TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolwright_core::{SafetyLevel, ToolContext, tool};
use toolwright_mcp::tasks::{MemoryTaskStore, TaskStore};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor, register_all_tools};

/// How long anything may take before a test gives up: generous, so a loaded machine does
/// not fail a test; nothing is asserted on durations.
const DEADLINE: Duration = Duration::from_secs(120);

// ---------------------------------------------------------------------------------------
// The tools: each test has its own, so tests running at once do not share their signals.

static REPORT_ENTERED: Notify = Notify::const_new();
static REPORT_RELEASE: Notify = Notify::const_new();

/// Write the quarterly report (slow: until the test releases it).
#[tool(task = "required")]
async fn quarterly_report(ctx: &ToolContext) -> String {
    ctx.report_progress(1.0, Some(2.0), "halfway through the numbers");
    REPORT_ENTERED.notify_one();
    REPORT_RELEASE.notified().await;
    "report ready".to_owned()
}

/// Signals `stopped` when dropped: an async tool cancelled is dropped at its `.await`.
struct Stopped(&'static Notify);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

static HOLD_ENTERED: Notify = Notify::const_new();
static HOLD_STOPPED: Notify = Notify::const_new();

/// Hold until cancelled.
#[tool(task = "required")]
async fn hold_here(ctx: &ToolContext) -> String {
    let _stopped = Stopped(&HOLD_STOPPED);
    HOLD_ENTERED.notify_one();
    ctx.cancelled().await;
    "cancelled".to_owned()
}

static REPLICA_ENTERED: Notify = Notify::const_new();
static REPLICA_STOPPED: Notify = Notify::const_new();
static REPLICA_RELEASE: Notify = Notify::const_new();

/// Hold until cancelled or released.
#[tool(task = "required")]
async fn hold_on_replica(ctx: &ToolContext) -> String {
    let _stopped = Stopped(&REPLICA_STOPPED);
    REPLICA_ENTERED.notify_one();
    tokio::select! {
        () = ctx.cancelled() => "cancelled".to_owned(),
        () = REPLICA_RELEASE.notified() => "released".to_owned(),
    }
}

/// Hold until cancelled (its task expires first).
#[tool(task = "required")]
async fn outlive_the_task(ctx: &ToolContext) -> String {
    ctx.cancelled().await;
    "cancelled".to_owned()
}

/// Add two numbers, as a task.
#[tool(task = "required")]
fn add_as_task(a: i64, b: i64) -> i64 {
    a + b
}

/// Multiply two numbers, as a task when the client can poll.
#[tool(task = "optional")]
fn multiply_maybe_as_task(a: i64, b: i64) -> i64 {
    a * b
}

/// Check the books, as a task: always finds a discrepancy (a tool error).
#[tool(task = "required")]
fn audit_as_task() -> Result<String, toolwright_core::ToolError> {
    Err(toolwright_core::ToolError::new("the books do not balance"))
}

/// Crash, as a task (a bug in the tool).
#[tool(task = "required")]
fn crash_as_task() -> String {
    panic!("the ledger is on fire")
}

/// Drop a table (dangerous: the executor defers its approval).
#[tool(safety = "dangerous")]
fn drop_table(name: String) -> String {
    format!("dropped {name}")
}

/// Purge the cache (dangerous, as a task).
#[tool(task = "required", safety = "dangerous")]
fn purge_cache(region: String) -> String {
    format!("purged {region}")
}

/// Ask the user for a colour, as a task.
#[tool(task = "required")]
async fn favourite_colour(ctx: &ToolContext) -> Result<String, toolwright_core::ToolError> {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Answer {
        colour: String,
    }
    match ctx.elicit::<Answer>("Which colour?").await? {
        toolwright_core::Elicitation::Accepted(answer) => Ok(format!("you like {}", answer.colour)),
        _ => Ok("no colour".to_owned()),
    }
}

// ---------------------------------------------------------------------------------------
// Servers and clients.

fn executor() -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .build()
}

async fn serve(server: McpServer, options: HttpOptions) -> HttpServer {
    server
        .serve_http_with(([127, 0, 0, 1], 0).into(), options)
        .await
        .unwrap()
}

/// A client that declares what it is told to; it answers no request of the server's (a
/// task's questions come through `tasks/get`).
#[derive(Clone, Default)]
struct Client {
    tasks: bool,
    elicitation: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.tasks {
            capabilities.extensions = ClientCapabilities::builder()
                .enable_tasks()
                .build()
                .extensions;
        }
        if self.elicitation {
            capabilities.elicitation = ClientCapabilities::builder()
                .enable_elicitation()
                .build()
                .elicitation;
        }
        ClientConfig::new(capabilities, Implementation::new("tasks-test", "0.0.1"))
    }
}

const TASKS: Client = Client {
    tasks: true,
    elicitation: false,
};

type Session = RunningService<RoleClient, Client>;

async fn connect(http: &HttpServer, client: Client) -> Session {
    client
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap()
}

async fn connect_as(http: &HttpServer, token: &str, client: Client) -> Session {
    let config = StreamableHttpClientTransportConfig::with_uri(http.url()).auth_header(token);
    client
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

/// A client of protocol revision 2026-07-28: no `initialize`, its capabilities in each
/// request's `_meta`.
async fn connect_modern(http: &HttpServer, client: Client) -> Session {
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    client
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(http.url()),
            lifecycle,
        )
        .await
        .unwrap()
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

/// Calls `name`, which must answer with a task.
async fn call_as_task(client: &Session, name: &str, arguments: Value) -> CreateTaskResult {
    match client.call_tool_once(call(name, arguments)).await.unwrap() {
        CallToolResponse::Task(task) => task,
        other => panic!("`{name}` did not answer with a task: {other:?}"),
    }
}

async fn get(client: &Session, id: &str) -> Result<GetTaskResult, ServiceError> {
    client.get_task(GetTaskParams::new(id)).await
}

/// Polls `tasks/get` until `until` holds, failing after the deadline.
async fn wait_for(
    client: &Session,
    id: &str,
    what: &str,
    until: impl Fn(&GetTaskResult) -> bool,
) -> GetTaskResult {
    let started = tokio::time::Instant::now();
    loop {
        let task = get(client, id).await.unwrap();
        if until(&task) {
            return task;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "task {id} never {what}: {task:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn status(task: &GetTaskResult) -> TaskStatus {
    task.task.task.status
}

/// The text of a completed task's result.
fn result_text(task: &GetTaskResult) -> String {
    match &task.task.payload {
        TaskPayload::Completed { result } => result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        other => panic!("not a completed task: {other:?}"),
    }
}

/// Waits for a tool's signal, failing after the deadline.
async fn signalled(notify: &Notify, what: &str) {
    tokio::time::timeout(DEADLINE, notify.notified())
        .await
        .unwrap_or_else(|_| panic!("{what} never happened"));
}

fn mcp_error(error: ServiceError) -> rmcp::ErrorData {
    match error {
        ServiceError::McpError(error) => error,
        other => panic!("not a JSON-RPC error: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Tests.

#[tokio::test]
async fn a_required_task_tool_answers_with_a_task_that_works_then_completes() {
    let http = serve(McpServer::new(executor()), HttpOptions::new()).await;
    let client = connect(&http, TASKS).await;

    let tools = client.list_all_tools().await.unwrap();
    let entry = tools.iter().find(|t| t.name == "quarterly_report").unwrap();
    let meta = serde_json::to_value(&entry.meta).unwrap();
    assert_eq!(meta["taskSupport"], "required");
    let plain = tools.iter().find(|t| t.name == "drop_table").unwrap();
    assert!(
        serde_json::to_value(&plain.meta)
            .unwrap()
            .get("taskSupport")
            .is_none()
    );

    let created = call_as_task(&client, "quarterly_report", json!({})).await;
    let id = created.task.task_id.clone();
    assert_eq!(created.task.status, TaskStatus::Working);
    assert_eq!(created.task.ttl_ms, Some(3_600_000));
    assert_eq!(created.task.poll_interval_ms, Some(1000));
    assert_eq!(id.len(), 32, "{id}");

    signalled(&REPORT_ENTERED, "the report starting").await;
    let working = wait_for(&client, &id, "showed its progress", |task| {
        task.task
            .task
            .status_message
            .as_deref()
            .is_some_and(|m| m.contains("halfway through the numbers (1/2)"))
    })
    .await;
    assert_eq!(status(&working), TaskStatus::Working);

    REPORT_RELEASE.notify_one();
    let done = wait_for(&client, &id, "completed", |task| status(task).is_terminal()).await;
    assert_eq!(status(&done), TaskStatus::Completed);
    assert_eq!(result_text(&done), "report ready");
    match &done.task.payload {
        TaskPayload::Completed { result } => assert_eq!(result["isError"], false),
        other => panic!("{other:?}"),
    }
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_tool_error_completes_its_task_and_a_crash_fails_it() {
    let http = serve(McpServer::new(executor()), HttpOptions::new()).await;
    let client = connect(&http, TASKS).await;

    // The tool ran and reported an error: `completed`, the result an error result.
    let id = call_as_task(&client, "audit_as_task", json!({}))
        .await
        .task
        .task_id;
    let done = wait_for(&client, &id, "ended", |task| status(task).is_terminal()).await;
    assert_eq!(status(&done), TaskStatus::Completed);
    assert!(result_text(&done).contains("the books do not balance"));
    match &done.task.payload {
        TaskPayload::Completed { result } => assert_eq!(result["isError"], true),
        other => panic!("{other:?}"),
    }

    // The tool crashed: an internal failure, `failed` with a JSON-RPC error and no result
    // (SEP-2663 keeps `completed` for results, `isError` ones included).
    let id = call_as_task(&client, "crash_as_task", json!({}))
        .await
        .task
        .task_id;
    let ended = wait_for(&client, &id, "ended", |task| status(task).is_terminal()).await;
    assert_eq!(status(&ended), TaskStatus::Failed);
    let shown = serde_json::to_value(&ended).unwrap();
    assert!(shown.get("result").is_none(), "{shown}");
    assert_eq!(shown["error"]["code"], ErrorCode::INTERNAL_ERROR.0);
    let message = shown["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`crash_as_task` crashed") && message.contains("the ledger is on fire"),
        "{message}"
    );
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn cancelling_a_task_stops_its_call() {
    let http = serve(McpServer::new(executor()), HttpOptions::new()).await;
    let client = connect(&http, TASKS).await;
    let id = call_as_task(&client, "hold_here", json!({}))
        .await
        .task
        .task_id;
    signalled(&HOLD_ENTERED, "the call starting").await;

    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    signalled(&HOLD_STOPPED, "the call stopping").await;
    let ended = wait_for(&client, &id, "ended", |task| status(task).is_terminal()).await;
    assert_eq!(status(&ended), TaskStatus::Cancelled);
    // A task that ended stays as it ended.
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    assert_eq!(
        status(&get(&client, &id).await.unwrap()),
        TaskStatus::Cancelled
    );
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn another_caller_cannot_see_answer_or_cancel_a_task() {
    const ALICE: &str = "alice-token-0123456789abcdef";
    const BOB: &str = "bob-token-0123456789abcdef01";
    let auth = AuthConfig::new()
        .token(ALICE, ["tools:safe"])
        .unwrap()
        .token(BOB, ["tools:safe"])
        .unwrap();
    let http = serve(McpServer::new(executor()), HttpOptions::new().auth(auth)).await;
    let alice = connect_as(&http, ALICE, TASKS).await;
    let bob = connect_as(&http, BOB, TASKS).await;

    let id = call_as_task(&alice, "add_as_task", json!({"a": 2, "b": 3}))
        .await
        .task
        .task_id;
    let done = wait_for(&alice, &id, "completed", |task| status(task).is_terminal()).await;
    assert_eq!(result_text(&done), "5");

    // To Bob, Alice's task is no task: the same error as an id nobody made.
    let unknown = mcp_error(
        get(&bob, "0123456789abcdef0123456789abcdef")
            .await
            .unwrap_err(),
    );
    let hers = mcp_error(get(&bob, &id).await.unwrap_err());
    assert_eq!(hers.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        hers.message.replace(&id, "ID"),
        unknown
            .message
            .replace("0123456789abcdef0123456789abcdef", "ID")
    );
    let cancel = bob.cancel_task(CancelTaskParams::new(id.clone())).await;
    assert_eq!(
        mcp_error(cancel.unwrap_err()).code,
        ErrorCode::INVALID_PARAMS
    );
    let update = bob
        .update_task(UpdateTaskParams::new(id.clone(), Default::default()))
        .await;
    assert_eq!(
        mcp_error(update.unwrap_err()).code,
        ErrorCode::INVALID_PARAMS
    );
    // Alice still has it, as it was.
    assert_eq!(result_text(&get(&alice, &id).await.unwrap()), "5");
    alice.cancel().await.unwrap();
    bob.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_task_is_gone_after_its_ttl_and_a_call_still_running_is_cancelled() {
    let executor = executor();
    let server = McpServer::new(executor.clone())
        .task_ttl(Duration::from_millis(1))
        .task_poll_interval(Duration::from_millis(5));
    let http = serve(server, HttpOptions::new()).await;
    let client = connect(&http, TASKS).await;

    let created = call_as_task(&client, "add_as_task", json!({"a": 1, "b": 1})).await;
    assert_eq!(created.task.ttl_ms, Some(1));
    let id = created.task.task_id;
    let started = tokio::time::Instant::now();
    let error = loop {
        match get(&client, &id).await {
            Err(error) => break mcp_error(error),
            Ok(task) => assert!(started.elapsed() < DEADLINE, "never expired: {task:?}"),
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("expired"), "{}", error.message);

    // A call that outlives its task is cancelled (or never starts): either way it fails.
    let _ = call_as_task(&client, "outlive_the_task", json!({})).await;
    let started = tokio::time::Instant::now();
    while executor
        .metrics()
        .tools
        .get("outlive_the_task")
        .is_none_or(|m| m.failures == 0)
    {
        assert!(started.elapsed() < DEADLINE, "the call outlived its task");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn servers_that_share_a_store_serve_each_others_tasks() {
    let store = Arc::new(MemoryTaskStore::new());
    let executor = executor();
    let first = serve(
        McpServer::new(executor.clone()).task_store(store.clone()),
        HttpOptions::new(),
    )
    .await;
    let second = serve(
        McpServer::new(executor).task_store(store.clone()),
        HttpOptions::new(),
    )
    .await;
    let on_first = connect(&first, TASKS).await;
    let on_second = connect(&second, TASKS).await;

    // Created through the first, read through the second.
    let id = call_as_task(&on_first, "hold_on_replica", json!({}))
        .await
        .task
        .task_id;
    signalled(&REPLICA_ENTERED, "the call starting").await;
    assert_eq!(
        status(&get(&on_second, &id).await.unwrap()),
        TaskStatus::Working
    );
    // Cancelled through the second: the first, which runs it, sees it in the store.
    on_second
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    signalled(&REPLICA_STOPPED, "the call stopping").await;
    let ended = wait_for(&on_second, &id, "ended", |task| status(task).is_terminal()).await;
    assert_eq!(status(&ended), TaskStatus::Cancelled);

    // And a result written by the first is read through the second.
    let id = call_as_task(&on_first, "add_as_task", json!({"a": 20, "b": 22}))
        .await
        .task
        .task_id;
    let done = wait_for(&on_second, &id, "completed", |task| {
        status(task).is_terminal()
    })
    .await;
    assert_eq!(result_text(&done), "42");
    assert!(store.load(&id).await.unwrap().is_some());

    on_first.cancel().await.unwrap();
    on_second.cancel().await.unwrap();
    first.shutdown();
    second.shutdown();
}

#[tokio::test]
async fn a_client_without_the_extension_is_told_what_a_required_task_tool_needs() {
    let http = serve(McpServer::new(executor()), HttpOptions::new()).await;
    let plain = connect(&http, Client::default()).await;

    let refused = plain
        .call_tool_once(call("add_as_task", json!({"a": 1, "b": 2})))
        .await
        .unwrap_err();
    let error = mcp_error(refused);
    assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert!(
        error.message.contains("`add_as_task` runs only as a task")
            && error.message.contains("io.modelcontextprotocol/tasks"),
        "{}",
        error.message
    );
    assert_eq!(
        error.data.unwrap()["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );

    // An optional one answers in the call; to a client that can poll, with a task.
    let answered = plain
        .call_tool(call("multiply_maybe_as_task", json!({"a": 6, "b": 7})))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&answered.content).unwrap()[0]["text"],
        "42"
    );
    let polling = connect(&http, TASKS).await;
    let id = call_as_task(&polling, "multiply_maybe_as_task", json!({"a": 6, "b": 7}))
        .await
        .task
        .task_id;
    let done = wait_for(&polling, &id, "completed", |task| {
        status(task).is_terminal()
    })
    .await;
    assert_eq!(result_text(&done), "42");
    plain.cancel().await.unwrap();
    polling.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_task_asks_the_tools_question_through_input_requests() {
    let http = serve(McpServer::new(executor()), HttpOptions::new()).await;
    let client = connect(
        &http,
        Client {
            tasks: true,
            elicitation: true,
        },
    )
    .await;
    let id = call_as_task(&client, "favourite_colour", json!({}))
        .await
        .task
        .task_id;
    let asking = wait_for(&client, &id, "asked", |task| {
        status(task) == TaskStatus::InputRequired
    })
    .await;
    let TaskPayload::InputRequired { input_requests } = &asking.task.payload else {
        panic!("{asking:?}");
    };
    let (key, request) = input_requests.iter().next().unwrap();
    let request = serde_json::to_value(request).unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(
        request["params"]["message"],
        "Tool `favourite_colour` asks: Which colour?"
    );

    // An answer to a question nobody asked is ignored; the real one is taken.
    let answers = [
        (
            "elicitation-99".to_owned(),
            json!({"action": "accept", "content": {"colour": "red"}}),
        ),
        (
            key.clone(),
            json!({"action": "accept", "content": {"colour": "green"}}),
        ),
    ];
    client
        .update_task(UpdateTaskParams::new(
            id.clone(),
            answers.into_iter().collect(),
        ))
        .await
        .unwrap();
    let done = wait_for(&client, &id, "completed", |task| status(task).is_terminal()).await;
    assert_eq!(result_text(&done), "you like green");
    client.cancel().await.unwrap();
    http.shutdown();
}

/// The executor defers dangerous calls; approvals it was asked for.
fn deferring_executor(asked: Arc<AtomicUsize>) -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .approval(move |_: ApprovalRequest| {
            asked.fetch_add(1, Ordering::SeqCst);
            async { ApprovalDecision::Defer }
        })
        .build()
}

#[tokio::test]
async fn a_deferred_approval_becomes_a_task_the_client_answers() {
    let asked = Arc::new(AtomicUsize::new(0));
    let executor = deferring_executor(asked.clone());
    let http = serve(McpServer::new(executor.clone()), HttpOptions::new()).await;
    // A client of 2026-07-28 that polls tasks: the executor's handler decides, and defers;
    // the waiting call becomes a task the client answers.
    let client = connect_modern(
        &http,
        Client {
            tasks: true,
            elicitation: true,
        },
    )
    .await;

    let created = call_as_task(&client, "drop_table", json!({"name": "users"})).await;
    assert_eq!(created.task.status, TaskStatus::InputRequired);
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let id = created.task.task_id;
    let waiting = get(&client, &id).await.unwrap();
    let TaskPayload::InputRequired { input_requests } = &waiting.task.payload else {
        panic!("{waiting:?}");
    };
    let form = serde_json::to_value(&input_requests["approval-1"]).unwrap();
    assert_eq!(form["method"], "elicitation/create");
    let message = form["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("`drop_table`") && message.contains("users"),
        "{message}"
    );
    assert_eq!(
        form["params"]["requestedSchema"]["required"],
        json!(["approve"])
    );

    let answer = [(
        "approval-1".to_owned(),
        json!({"action": "accept", "content": {"approve": true}}),
    )];
    client
        .update_task(UpdateTaskParams::new(
            id.clone(),
            answer.into_iter().collect(),
        ))
        .await
        .unwrap();
    let done = wait_for(&client, &id, "completed", |task| status(task).is_terminal()).await;
    assert_eq!(result_text(&done), "dropped users");
    // Resumed with the person's decision, not asked again; and resumed once.
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert!(executor.pending_approvals().is_empty());

    // A "no" runs nothing.
    let id = call_as_task(&client, "drop_table", json!({"name": "orders"}))
        .await
        .task
        .task_id;
    let answer = [(
        "approval-1".to_owned(),
        json!({"action": "accept", "content": {"approve": false}}),
    )];
    client
        .update_task(UpdateTaskParams::new(
            id.clone(),
            answer.into_iter().collect(),
        ))
        .await
        .unwrap();
    let done = wait_for(&client, &id, "completed", |task| status(task).is_terminal()).await;
    assert!(result_text(&done).contains("approval denied"), "{done:?}");
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_deferred_call_stays_pending_for_a_client_that_cannot_poll() {
    let asked = Arc::new(AtomicUsize::new(0));
    let executor = deferring_executor(asked);
    let http = serve(McpServer::new(executor.clone()), HttpOptions::new()).await;
    // Neither tasks nor elicitation (a client that answers questions would be asked through
    // a multi round-trip request instead): the executor's handler defers, and the call
    // waits for the application.
    let client = connect_modern(
        &http,
        Client {
            tasks: false,
            elicitation: false,
        },
    )
    .await;
    let answered = client
        .call_tool(call("drop_table", json!({"name": "users"})))
        .await
        .unwrap();
    assert_eq!(answered.is_error, Some(true));
    let text = serde_json::to_value(&answered.content).unwrap()[0]["text"].clone();
    assert!(
        text.as_str()
            .unwrap()
            .contains("waiting for a person's approval"),
        "{text}"
    );
    assert_eq!(executor.pending_approvals().len(), 1);
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_dangerous_task_asks_only_a_caller_that_may_approve() {
    const APPROVER: &str = "approver-token-0123456789ab";
    const OPERATOR: &str = "operator-token-0123456789ab";
    let auth = AuthConfig::new()
        .token(APPROVER, ["tools:dangerous", "tools:approve"])
        .unwrap()
        .token(OPERATOR, ["tools:dangerous"])
        .unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let executor = deferring_executor(asked.clone());
    let http = serve(
        McpServer::new(executor.clone()),
        HttpOptions::new().auth(auth),
    )
    .await;
    let both = Client {
        tasks: true,
        elicitation: true,
    };

    // May approve: asked through the task (the server's question, not the executor's).
    let approver = connect_as(&http, APPROVER, both.clone()).await;
    let id = call_as_task(&approver, "purge_cache", json!({"region": "eu"}))
        .await
        .task
        .task_id;
    let waiting = wait_for(&approver, &id, "asked", |task| {
        status(task) == TaskStatus::InputRequired
    })
    .await;
    let TaskPayload::InputRequired { input_requests } = &waiting.task.payload else {
        panic!("{waiting:?}");
    };
    assert!(
        input_requests.contains_key("approval-1"),
        "{input_requests:?}"
    );
    let answer = [(
        "approval-1".to_owned(),
        json!({"action": "accept", "content": {"approve": true}}),
    )];
    approver
        .update_task(UpdateTaskParams::new(
            id.clone(),
            answer.into_iter().collect(),
        ))
        .await
        .unwrap();
    let done = wait_for(&approver, &id, "completed", |task| {
        status(task).is_terminal()
    })
    .await;
    assert_eq!(result_text(&done), "purged eu");
    assert_eq!(asked.load(Ordering::SeqCst), 0);

    // May not approve (no tools:approve): never asked; the executor's handler decides, and
    // the call it deferred waits for the application, not for this client.
    let operator = connect_as(&http, OPERATOR, both).await;
    let id = call_as_task(&operator, "purge_cache", json!({"region": "us"}))
        .await
        .task
        .task_id;
    let done = wait_for(&operator, &id, "ended", |task| status(task).is_terminal()).await;
    assert!(
        result_text(&done).contains("waiting for a person's approval"),
        "{done:?}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(executor.pending_approvals().len(), 1);
    approver.cancel().await.unwrap();
    operator.cancel().await.unwrap();
    http.shutdown();
}

#[cfg(feature = "redis")]
#[path = "common/redis.rs"]
mod redis_server;

#[cfg(feature = "redis")]
mod redis_store {
    //! The same, with the tasks in a real `redis-server` (on a Unix socket in a temporary
    //! directory). Without `redis-server` installed these tests say so and pass, unless
    //! `TOOLWRIGHT_REQUIRE_SERVICES=1` (as in CI), where they fail.

    use super::*;
    use crate::redis_server::Redis;
    use toolwright_mcp::RedisTaskStore;
    use toolwright_mcp::tasks::{TaskLimits, TaskStoreError};

    static REDIS_ENTERED: Notify = Notify::const_new();
    static REDIS_STOPPED: Notify = Notify::const_new();

    /// Hold until cancelled (for the Redis test).
    #[tool(task = "required")]
    async fn hold_in_redis(ctx: &ToolContext) -> String {
        let _stopped = Stopped(&REDIS_STOPPED);
        REDIS_ENTERED.notify_one();
        ctx.cancelled().await;
        "cancelled".to_owned()
    }

    #[tokio::test]
    async fn replicas_share_tasks_through_redis() {
        let Some(redis) = Redis::start().await else {
            return;
        };
        let store = |prefix: &str| {
            let url = redis.url();
            let prefix = prefix.to_owned();
            async move {
                Arc::new(
                    RedisTaskStore::connect(&url)
                        .await
                        .unwrap()
                        .key_prefix(prefix),
                )
            }
        };
        let executor = executor();
        let first = serve(
            McpServer::new(executor.clone())
                .task_store(store("test:tasks:").await)
                .task_poll_interval(Duration::from_millis(20)),
            HttpOptions::new(),
        )
        .await;
        let second = serve(
            McpServer::new(executor)
                .task_store(store("test:tasks:").await)
                .task_poll_interval(Duration::from_millis(20)),
            HttpOptions::new(),
        )
        .await;
        let on_first = connect(&first, TASKS).await;
        let on_second = connect(&second, TASKS).await;

        let id = call_as_task(&on_first, "add_as_task", json!({"a": 40, "b": 2}))
            .await
            .task
            .task_id;
        let done = wait_for(&on_second, &id, "completed", |task| {
            status(task).is_terminal()
        })
        .await;
        assert_eq!(result_text(&done), "42");
        let mut connection = redis.connection().await;
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg("test:tasks:*")
            .query_async(&mut connection)
            .await
            .unwrap();
        assert!(keys.contains(&format!("test:tasks:task:{id}")), "{keys:?}");
        let ttl: i64 = redis::cmd("PTTL")
            .arg(format!("test:tasks:task:{id}"))
            .query_async(&mut connection)
            .await
            .unwrap();
        assert!(ttl > 0 && ttl <= 3_600_000, "{ttl}");

        // Cancelled through the second replica: the first sees it in Redis and stops.
        let id = call_as_task(&on_first, "hold_in_redis", json!({}))
            .await
            .task
            .task_id;
        signalled(&REDIS_ENTERED, "the call starting").await;
        on_second
            .cancel_task(CancelTaskParams::new(id.clone()))
            .await
            .unwrap();
        signalled(&REDIS_STOPPED, "the call stopping").await;
        let ended = wait_for(&on_second, &id, "ended", |task| status(task).is_terminal()).await;
        assert_eq!(status(&ended), TaskStatus::Cancelled);

        on_first.cancel().await.unwrap();
        on_second.cancel().await.unwrap();
        first.shutdown();
        second.shutdown();
    }

    #[tokio::test]
    async fn the_redis_store_keeps_its_limits_and_revisions() {
        let Some(redis) = Redis::start().await else {
            return;
        };
        let store = RedisTaskStore::connect(&redis.url()).await.unwrap();
        let limits = TaskLimits::default().max_per_owner(1).max_total(2);
        let record = |id: &str, owner: &str| -> toolwright_mcp::tasks::TaskRecord {
            serde_json::from_value(json!({
                "id": id, "owner": owner, "tool": "t", "status": "working",
                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
                "expires_at": "2100-01-01T00:00:00Z", "ttl_ms": 1000, "poll_interval_ms": 1000,
                "revision": 0,
            }))
            .unwrap()
        };
        store.create(&record("a", "alice"), &limits).await.unwrap();
        assert!(matches!(
            store.create(&record("a", "bob"), &limits).await,
            Err(TaskStoreError::Duplicate { .. })
        ));
        assert!(matches!(
            store.create(&record("b", "alice"), &limits).await,
            Err(TaskStoreError::OwnerFull { limit: 1 })
        ));
        store.create(&record("c", "bob"), &limits).await.unwrap();
        assert!(matches!(
            store.create(&record("d", "carol"), &limits).await,
            Err(TaskStoreError::StoreFull { limit: 2 })
        ));

        let mut changed = store.load("a").await.unwrap().unwrap();
        changed.revision = 1;
        changed.status_message = Some("halfway".to_owned());
        assert!(store.replace(&changed, 0).await.unwrap());
        assert!(!store.replace(&changed, 0).await.unwrap());
        let stored = store.load("a").await.unwrap().unwrap();
        assert_eq!(stored.status_message.as_deref(), Some("halfway"));
        assert_eq!(stored.revision, 1);
        assert!(store.load("nothing").await.unwrap().is_none());

        // An expired task is not found.
        let mut old = record("e", "dave");
        old.expires_at = "2000-01-01T00:00:00Z".parse().unwrap();
        let _ = store.create(&old, &TaskLimits::default()).await;
        assert!(store.load("e").await.unwrap().is_none());
    }
}
