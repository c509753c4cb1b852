//! What the task tests share: the tools (each test has its own, so tests running at once
//! do not share their signals), a server, clients that declare what they are told to, and
//! the calls and polls of `tasks/get` under a deadline.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, CreateTaskResult,
    GetTaskParams, GetTaskResult, Implementation, ProtocolVersion, TaskPayload, TaskStatus,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::sync::Notify;
use toolwright_core::{SafetyLevel, ToolContext, tool};
use toolwright_mcp::{HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

/// How long anything may take before a test gives up: generous, so a loaded machine does
/// not fail a test; nothing is asserted on durations.
pub const DEADLINE: Duration = Duration::from_secs(120);

// ---------------------------------------------------------------------------------------
// The tools: each test has its own, so tests running at once do not share their signals.

pub static REPORT_ENTERED: Notify = Notify::const_new();
pub static REPORT_RELEASE: Notify = Notify::const_new();

/// Write the quarterly report (slow: until the test releases it).
#[tool(task = "required")]
async fn quarterly_report(ctx: &ToolContext) -> String {
    ctx.report_progress(1.0, Some(2.0), "halfway through the numbers");
    REPORT_ENTERED.notify_one();
    REPORT_RELEASE.notified().await;
    "report ready".to_owned()
}

/// Signals `stopped` when dropped: an async tool cancelled is dropped at its `.await`.
pub struct Stopped(pub &'static Notify);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

pub static HOLD_ENTERED: Notify = Notify::const_new();
pub static HOLD_STOPPED: Notify = Notify::const_new();

/// Hold until cancelled.
#[tool(task = "required")]
async fn hold_here(ctx: &ToolContext) -> String {
    let _stopped = Stopped(&HOLD_STOPPED);
    HOLD_ENTERED.notify_one();
    ctx.cancelled().await;
    "cancelled".to_owned()
}

pub static REPLICA_ENTERED: Notify = Notify::const_new();
pub static REPLICA_STOPPED: Notify = Notify::const_new();
pub static REPLICA_RELEASE: Notify = Notify::const_new();

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

pub fn executor() -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .build()
}

pub async fn serve(server: McpServer, options: HttpOptions) -> HttpServer {
    server
        .serve_http_with(([127, 0, 0, 1], 0).into(), options)
        .await
        .unwrap()
}

/// A client that declares what it is told to; it answers no request of the server's (a
/// task's questions come through `tasks/get`).
#[derive(Clone, Default)]
pub struct Client {
    pub tasks: bool,
    pub elicitation: bool,
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

pub const TASKS: Client = Client {
    tasks: true,
    elicitation: false,
};

pub type Session = RunningService<RoleClient, Client>;

pub async fn connect(http: &HttpServer, client: Client) -> Session {
    client
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap()
}

pub async fn connect_as(http: &HttpServer, token: &str, client: Client) -> Session {
    let config = StreamableHttpClientTransportConfig::with_uri(http.url()).auth_header(token);
    client
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

/// A client of protocol revision 2026-07-28: no `initialize`, its capabilities in each
/// request's `_meta`.
pub async fn connect_modern(http: &HttpServer, client: Client) -> Session {
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

pub fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

/// Calls `name`, which must answer with a task.
pub async fn call_as_task(client: &Session, name: &str, arguments: Value) -> CreateTaskResult {
    match client.call_tool_once(call(name, arguments)).await.unwrap() {
        CallToolResponse::Task(task) => task,
        other => panic!("`{name}` did not answer with a task: {other:?}"),
    }
}

pub async fn get(client: &Session, id: &str) -> Result<GetTaskResult, ServiceError> {
    client.get_task(GetTaskParams::new(id)).await
}

/// Polls `tasks/get` until `until` holds, failing after the deadline.
pub async fn wait_for(
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

pub fn status(task: &GetTaskResult) -> TaskStatus {
    task.task.task.status
}

/// The text of a completed task's result.
pub fn result_text(task: &GetTaskResult) -> String {
    match &task.task.payload {
        TaskPayload::Completed { result } => result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        other => panic!("not a completed task: {other:?}"),
    }
}

/// Waits for a tool's signal, failing after the deadline.
pub async fn signalled(notify: &Notify, what: &str) {
    tokio::time::timeout(DEADLINE, notify.notified())
        .await
        .unwrap_or_else(|_| panic!("{what} never happened"));
}

pub fn mcp_error(error: ServiceError) -> rmcp::ErrorData {
    match error {
        ServiceError::McpError(error) => error,
        other => panic!("not a JSON-RPC error: {other:?}"),
    }
}
