//! The MCP server against rmcp's own client, over streamable HTTP in-process.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorCode, Implementation, NumberOrString, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, RequestParamsMeta,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use toolwright_core::{Json, SafetyLevel, Tool, ToolContext, ToolError, tool};
use toolwright_mcp::{HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

static WIPES: AtomicUsize = AtomicUsize::new(0);

/// A sum.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// The total.
    total: f64,
}

/// Add two numbers.
#[tool(categories(math))]
fn add(a: f64, b: f64) -> Json<Sum> {
    Json(Sum { total: a + b })
}

/// Divide two numbers.
#[tool(categories(math))]
fn divide(a: f64, b: f64) -> Result<f64, ToolError> {
    if b == 0.0 {
        return Err(ToolError::new("cannot divide by zero; pass a non-zero `b`"));
    }
    Ok(a / b)
}

/// Wipe the data store (counts how often it really ran).
#[tool(safety = "dangerous", categories(admin))]
fn wipe(reason: String) -> String {
    WIPES.fetch_add(1, Ordering::SeqCst);
    format!("wiped: {reason}")
}

/// Count slowly, reporting progress; stops when cancelled.
#[tool]
async fn count_slowly(ctx: &ToolContext, to: u32) -> String {
    for i in 1..=to {
        ctx.report_progress(f64::from(i), Some(f64::from(to)), format!("{i} of {to}"));
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    format!("counted to {to}")
}

/// Progress reports a client received: (progress, message).
type Reports = Arc<Mutex<Vec<(f64, Option<String>)>>>;

#[derive(Clone, Default)]
struct Client {
    elicitation: Option<bool>,
    asked: Arc<Mutex<Vec<String>>>,
    progress: Reports,
    list_changed: Arc<AtomicUsize>,
    /// Told at each `notifications/tools/list_changed`.
    list_changed_told: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = match self.elicitation {
            Some(_) => ClientCapabilities::builder().enable_elicitation().build(),
            None => ClientCapabilities::default(),
        };
        ClientConfig::new(capabilities, Implementation::new("test-client", "0.0.1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"approve": self.elicitation == Some(true)})))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push((params.progress, params.message));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
        self.list_changed_told.notify_one();
    }
}

async fn start(configure: impl FnOnce(McpServer) -> McpServer) -> (HttpServer, Executor) {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .timeout(Duration::from_secs(10))
        .build();
    let server = configure(McpServer::new(executor.clone()).page_size(2));
    let http = server.serve_http(([127, 0, 0, 1], 0).into()).await.unwrap();
    (http, executor)
}

async fn connect(http: &HttpServer, client: Client) -> RunningService<RoleClient, Client> {
    client
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap()
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap()
}

#[tokio::test]
async fn lists_tools_with_pages_annotations_and_schemas() {
    let (http, _) = start(|s| s).await;
    let client = connect(&http, Client::default()).await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.capabilities.tools.as_ref().unwrap().list_changed,
        Some(true)
    );

    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    let second = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(first.next_cursor.clone()),
        ))
        .await
        .unwrap();
    assert_eq!(second.tools.len(), 2);
    assert!(second.next_cursor.is_none());
    let all = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = all.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["add", "count_slowly", "divide", "wipe"]);

    let add = &all[0];
    let annotations = add.annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(true));
    assert_eq!(annotations.destructive_hint, Some(false));
    assert_eq!(annotations.idempotent_hint, Some(true));
    assert_eq!(annotations.open_world_hint, Some(false));
    assert_eq!(add.input_schema.get("required"), Some(&json!(["a", "b"])));
    assert_eq!(
        add.output_schema.as_ref().unwrap().get("required"),
        Some(&json!(["total"]))
    );
    assert_eq!(add.meta.as_ref().unwrap().0["categories"], json!(["math"]));
    let wipe = &all[3];
    assert_eq!(
        wipe.annotations.as_ref().unwrap().destructive_hint,
        Some(true)
    );
    assert_eq!(
        wipe.annotations.as_ref().unwrap().read_only_hint,
        Some(false)
    );

    let err = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some("bogus".into())),
        ))
        .await
        .unwrap_err();
    assert!(matches!(err, ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS));
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn calls_return_text_structured_content_and_errors() {
    let (http, executor) = start(|s| s).await;
    let client = connect(&http, Client::default()).await;

    let result = client
        .call_tool(CallToolRequestParams::new("add").with_arguments(args(json!({"a": 1, "b": 2}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        r#"{"total":3.0}"#
    );
    assert_eq!(result.structured_content, Some(json!({"total": 3.0})));

    let result = client
        .call_tool(
            CallToolRequestParams::new("divide").with_arguments(args(json!({"a": 1, "b": 0}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        result.content[0]
            .as_text()
            .unwrap()
            .text
            .contains("cannot divide by zero")
    );

    let result = client
        .call_tool(CallToolRequestParams::new("add").with_arguments(args(json!({"a": "one"}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(
        text.contains("invalid value for parameter `a`: expected number"),
        "{text}"
    );
    assert!(text.contains("missing required parameter `b`"), "{text}");

    let err = client
        .call_tool(CallToolRequestParams::new("ad"))
        .await
        .unwrap_err();
    let ServiceError::McpError(err) = err else {
        panic!("{err:?}")
    };
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    assert!(
        err.message
            .contains("unknown tool `ad`; did you mean `add`?"),
        "{}",
        err.message
    );

    // Calls went through the executor: its metrics saw them.
    assert_eq!(executor.metrics().tools["add"].calls, 2);
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn dangerous_tools_need_approval_through_elicitation_or_a_flag() {
    let before = WIPES.load(Ordering::SeqCst);
    // A client that cannot elicit: refused, not run.
    let (http, _) = start(|s| s).await;
    let client = connect(&http, Client::default()).await;
    let result = client
        .call_tool(CallToolRequestParams::new("wipe").with_arguments(args(json!({"reason": "x"}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.contains("cannot ask you to approve it"), "{text}");
    assert!(text.contains("McpServer::allow_dangerous(true)"), "{text}");
    assert_eq!(WIPES.load(Ordering::SeqCst), before);
    client.cancel().await.unwrap();

    // A program with a flag of its own (the CLI) names the flag instead.
    let (flagged, _) = start(|s| s.allow_dangerous_hint("`--allow-dangerous`")).await;
    let client = connect(&flagged, Client::default()).await;
    let result = client
        .call_tool(CallToolRequestParams::new("wipe").with_arguments(args(json!({"reason": "x"}))))
        .await
        .unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.contains("`--allow-dangerous`"), "{text}");
    assert!(!text.contains("McpServer"), "{text}");
    assert_eq!(WIPES.load(Ordering::SeqCst), before);
    client.cancel().await.unwrap();
    flagged.shutdown();

    // A client whose user says no: refused, not run; the user saw the call.
    let declining = Client {
        elicitation: Some(false),
        ..Client::default()
    };
    let asked = Arc::clone(&declining.asked);
    let client = connect(&http, declining).await;
    let result = client
        .call_tool(
            CallToolRequestParams::new("wipe").with_arguments(args(json!({"reason": "cleanup"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(WIPES.load(Ordering::SeqCst), before);
    let asked = asked.lock().unwrap().clone();
    assert!(
        asked[0].starts_with("Allow the dangerous tool `wipe` to run?"),
        "{asked:?}"
    );
    assert!(asked[0].contains("\"reason\": \"cleanup\""), "{asked:?}");
    client.cancel().await.unwrap();

    // A client whose user says yes: it runs.
    let client = connect(
        &http,
        Client {
            elicitation: Some(true),
            ..Client::default()
        },
    )
    .await;
    let result = client
        .call_tool(CallToolRequestParams::new("wipe").with_arguments(args(json!({"reason": "ok"}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 1);
    client.cancel().await.unwrap();
    http.shutdown();

    // allow_dangerous(true): runs without asking a client that cannot elicit.
    let (http, _) = start(|s| s.allow_dangerous(true)).await;
    let client = connect(&http, Client::default()).await;
    let result = client
        .call_tool(
            CallToolRequestParams::new("wipe").with_arguments(args(json!({"reason": "allowed"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 2);
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn progress_is_forwarded_and_cancellation_stops_the_call() {
    let (http, executor) = start(|s| s).await;
    let client = Client::default();
    let progress = Arc::clone(&client.progress);
    let client = connect(&http, client).await;
    let mut request =
        CallToolRequestParams::new("count_slowly").with_arguments(args(json!({"to": 3})));
    request.set_progress_token(ProgressToken(NumberOrString::Number(7)));
    let result = client.call_tool(request).await.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "counted to 3");
    // Notifications may arrive after the result: wait for them (an event), not for a time.
    while progress.lock().unwrap().len() < 3 {
        tokio::task::yield_now().await;
    }
    let seen = progress.lock().unwrap().clone();
    assert_eq!(
        seen.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        [1.0, 2.0, 3.0]
    );
    assert_eq!(seen[0].1.as_deref(), Some("1 of 3"));

    // Dropping the call makes the client send notifications/cancelled; the call stops.
    let slow = CallToolRequestParams::new("count_slowly").with_arguments(args(json!({"to": 1000})));
    let timed_out = tokio::time::timeout(Duration::from_millis(150), client.call_tool(slow)).await;
    assert!(timed_out.is_err());
    // The server sees the cancellation and ends the call: wait until it has counted it.
    while executor.metrics().tools["count_slowly"].failures == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let metrics = executor.metrics();
    let counted = &metrics.tools["count_slowly"];
    assert_eq!(
        (counted.calls, counted.successes, counted.failures),
        (2, 1, 1),
        "{counted:?}"
    );
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn registry_changes_notify_the_client() {
    let (http, executor) = start(|s| s).await;
    let client = Client::default();
    let changed = Arc::clone(&client.list_changed);
    let client = connect(&http, client).await;
    client.list_all_tools().await.unwrap();
    executor.registry().set_enabled("divide", false).unwrap();
    // Wait for the notification (an event), then check that it came once.
    while changed.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(changed.load(Ordering::SeqCst), 1);
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(!names.contains(&"divide".to_owned()));
    let err = client.call_tool(CallToolRequestParams::new("divide")).await;
    let result = err.unwrap();
    assert_eq!(
        result.is_error,
        Some(true),
        "a disabled tool is refused, not unknown"
    );
    executor.registry().set_enabled("divide", true).unwrap();
    client.cancel().await.unwrap();
    http.shutdown();
}

/// Waits until the client has had `count` list-changed notifications.
async fn list_changes(client: &Client, count: usize) -> usize {
    while client.list_changed.load(Ordering::SeqCst) < count {
        client.list_changed_told.notified().await;
    }
    client.list_changed.load(Ordering::SeqCst)
}

#[tokio::test]
async fn list_changed_only_for_changes_the_client_may_see() {
    // The executor's ceiling is cautious: `wipe` (dangerous) is never this client's concern.
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Cautious)
        .build();
    let http = McpServer::new(executor.clone())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    let client = Client::default();
    let watcher = client.clone();
    let client = connect(&http, client).await;
    client.list_all_tools().await.unwrap();
    let registry = executor.registry();
    let hidden = |name: &str| {
        Tool::builder(name)
            .description("Registered disabled.")
            .handler(|_| async { "ok" })
            .build()
            .unwrap()
    };

    // Changes this client cannot see, then one it can, in phases: the count read once a
    // phase's notification has arrived includes every notification sent before it (the
    // server handles the changes in order), so one sent for an unseen change shows up in a
    // later phase's count.
    registry.set_enabled("wipe", false).unwrap();
    registry
        .register_with(
            hidden("plugin_tool"),
            toolwright_runtime::RegisterOptions::new().enabled(false),
        )
        .unwrap();
    registry.set_enabled("divide", false).unwrap();
    assert_eq!(list_changes(&watcher, 1).await, 1);

    registry.set_enabled("wipe", true).unwrap();
    registry.remove("plugin_tool"); // disabled: never seen
    registry
        .register_with(
            hidden("plugin_tool"),
            toolwright_runtime::RegisterOptions::new().enabled(false),
        )
        .unwrap();
    registry.set_priority("wipe", 1).unwrap();
    registry.set_enabled("plugin_tool", true).unwrap();
    assert_eq!(list_changes(&watcher, 2).await, 2);

    registry.set_enabled("divide", true).unwrap();
    assert_eq!(list_changes(&watcher, 3).await, 3);
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"plugin_tool".to_owned()));
    assert!(names.contains(&"divide".to_owned()));
    assert!(!names.contains(&"wipe".to_owned()));
    client.cancel().await.unwrap();
    http.shutdown();
}
