//! The HTTP server's options, ops endpoints and drain, over real HTTP on 127.0.0.1. No test
//! waits for a time: they wait for events (a tool that signals it runs, a counter that
//! changes) and assert on counts.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{initialize, message, post, session_id};
use reqwest::StatusCode;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use tokio::sync::Notify;
use toolwright_core::{SafetyLevel, ToolContext, tool};
use toolwright_mcp::{HttpOptions, HttpServer, McpServer, PrometheusMetrics, ServeError};
use toolwright_runtime::{Executor, register_all_tools};

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

static BLOCK_ENTERED: Notify = Notify::const_new();
static BLOCK_RELEASE: Notify = Notify::const_new();

/// Wait until the test releases it.
#[tool]
async fn block_until_released() -> String {
    BLOCK_ENTERED.notify_one();
    BLOCK_RELEASE.notified().await;
    "released".to_owned()
}

static HOLD_ENTERED: Notify = Notify::const_new();

/// Wait until cancelled.
#[tool]
async fn hold_until_cancelled(ctx: &ToolContext) -> String {
    HOLD_ENTERED.notify_one();
    ctx.cancelled().await;
    "cancelled".to_owned()
}

fn executor(metrics: Option<Arc<PrometheusMetrics>>) -> Executor {
    let mut builder = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous);
    if let Some(metrics) = metrics {
        builder = builder.shared_hook(metrics);
    }
    builder.build()
}

async fn start(options: HttpOptions) -> HttpServer {
    McpServer::new(executor(None))
        .serve_http_with(([127, 0, 0, 1], 0).into(), options)
        .await
        .unwrap()
}

fn base(http: &HttpServer) -> String {
    format!("http://{}", http.local_addr())
}

#[tokio::test]
async fn origin_validation_is_on_by_default() {
    let http = start(HttpOptions::new()).await;
    let client = reqwest::Client::new();
    let refused = post(&client, &http.url(), &common::initialize_body())
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(refused.text().await.unwrap().contains("Origin"));
    // Programs send no Origin: served.
    assert_eq!(
        initialize(&client, &http.url(), None).await.status(),
        StatusCode::OK
    );
    http.shutdown();

    let http = start(HttpOptions::new().allow_origin("http://app.example:8080")).await;
    let allowed = post(&client, &http.url(), &common::initialize_body())
        .header("origin", "http://app.example:8080")
        .send()
        .await
        .unwrap();
    assert_eq!(allowed.status(), StatusCode::OK);
    let refused = post(&client, &http.url(), &common::initialize_body())
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    http.shutdown();
}

/// The MCP conformance suite's `dns-rebinding-protection`: on a loopback address the
/// server's own origin is same-origin and served; a rebinding page's Host and Origin, and
/// another local port's origin, are refused.
#[tokio::test]
async fn own_loopback_origin_is_served_and_rebinding_refused() {
    let http = start(HttpOptions::new()).await;
    let port = http.local_addr().port();
    let client = reqwest::Client::new();
    for own in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ] {
        let served = post(&client, &http.url(), &common::initialize_body())
            .header("origin", &own)
            .send()
            .await
            .unwrap();
        assert_eq!(served.status(), StatusCode::OK, "Origin: {own}");
    }
    let other_port = post(&client, &http.url(), &common::initialize_body())
        .header(
            "origin",
            format!("http://127.0.0.1:{}", port.wrapping_add(1)),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(other_port.status(), StatusCode::FORBIDDEN);
    let rebinding = post(&client, &http.url(), &common::initialize_body())
        .header("host", "evil.example.com")
        .header("origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(rebinding.status(), StatusCode::FORBIDDEN);
    http.shutdown();
}

#[tokio::test]
async fn a_foreign_host_is_refused_unless_allowed() {
    let http = start(HttpOptions::new().allow_host("tools.example")).await;
    let client = reqwest::Client::new();
    let refused = post(&client, &http.url(), &common::initialize_body())
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(refused.text().await.unwrap().contains("Host"));
    let allowed = post(&client, &http.url(), &common::initialize_body())
        .header("host", "tools.example")
        .send()
        .await
        .unwrap();
    assert_eq!(allowed.status(), StatusCode::OK);
    http.shutdown();
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let http = start(HttpOptions::new().max_request_body_bytes(1024)).await;
    let client = reqwest::Client::new();
    let mut body = common::initialize_body();
    body["params"]["clientInfo"]["name"] = json!("x".repeat(2048));
    let response = post(&client, &http.url(), &body).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // Under the limit: served.
    assert_eq!(
        initialize(&client, &http.url(), None).await.status(),
        StatusCode::OK
    );
    http.shutdown();
}

#[tokio::test]
async fn the_session_limit_answers_503_and_a_closed_session_frees_its_slot() {
    let http = start(HttpOptions::new().max_sessions(1)).await;
    let client = reqwest::Client::new();
    let first = initialize(&client, &http.url(), None).await;
    assert_eq!(first.status(), StatusCode::OK);
    let session = session_id(&first).unwrap();
    assert_eq!(http.open_sessions(), 1);

    let refused = initialize(&client, &http.url(), None).await;
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key("retry-after"));
    let text = refused.text().await.unwrap();
    assert!(
        text.contains("already has its maximum of 1 open sessions; close a session"),
        "{text}"
    );
    assert_eq!(http.open_sessions(), 1);

    let closed = client
        .delete(http.url())
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    assert_eq!(http.open_sessions(), 0);
    assert_eq!(
        initialize(&client, &http.url(), None).await.status(),
        StatusCode::OK
    );
    assert_eq!(http.open_sessions(), 1);
    http.shutdown();
}

#[tokio::test]
async fn an_idle_session_ends_and_frees_its_slot() {
    // A session may not be idle at all: it ends right after its handshake.
    let http = start(
        HttpOptions::new()
            .max_sessions(1)
            .session_idle_timeout(Duration::ZERO),
    )
    .await;
    let client = reqwest::Client::new();
    let first = initialize(&client, &http.url(), None).await;
    assert_eq!(first.status(), StatusCode::OK);
    first.text().await.unwrap();
    // The session's worker ends on its own: wait for the count to go down (an event).
    while http.open_sessions() > 0 {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        initialize(&client, &http.url(), None).await.status(),
        StatusCode::OK
    );
    http.shutdown();
}

#[tokio::test]
async fn stateless_mode_serves_calls_without_a_session() {
    let http = start(HttpOptions::new().stateless(true)).await;
    let client = reqwest::Client::new();
    let call = json!({
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}}
    });
    let response = post(&client, &http.url(), &call).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(session_id(&response).is_none());
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    let answer = message(&response.text().await.unwrap());
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["content"][0]["text"], "5.0");
    assert_eq!(http.open_sessions(), 0);
    http.shutdown();
}

#[tokio::test]
async fn call_limits_hold_across_stateless_requests_and_per_session_otherwise() {
    let limited = || {
        Executor::builder(Arc::new(register_all_tools().unwrap()))
            .max_calls("add", 1)
            .build()
    };
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 1}}
    });
    // Stateless: no session, so the executor counts; a fresh request is no way around it.
    let http = McpServer::new(limited())
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().stateless(true),
        )
        .await
        .unwrap();
    let client = reqwest::Client::new();
    let mut errors = Vec::new();
    for _ in 0..2 {
        let response = post(&client, &http.url(), &call).send().await.unwrap();
        let answer = message(&response.text().await.unwrap());
        errors.push(answer["result"]["isError"].as_bool());
    }
    assert_eq!(errors, [Some(false), Some(true)]);
    http.shutdown();

    // With sessions: each session has its own count.
    let http = McpServer::new(limited())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    for _ in 0..2 {
        let transport = StreamableHttpClientTransport::from_uri(http.url());
        let session = ().serve(transport).await.unwrap();
        let arguments = json!({"a": 1, "b": 1}).as_object().cloned().unwrap();
        let first = session
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments.clone()))
            .await
            .unwrap();
        let second = session
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
            .await
            .unwrap();
        assert_eq!((first.is_error, second.is_error), (Some(false), Some(true)));
        session.cancel().await.unwrap();
    }
    http.shutdown();
}

#[tokio::test]
async fn serving_others_without_authentication_is_refused() {
    let error = McpServer::new(executor(None))
        .serve_http(([0, 0, 0, 0], 0).into())
        .await
        .err()
        .unwrap();
    assert!(matches!(error, ServeError::Config(_)), "{error:?}");
    let text = error.to_string();
    assert!(text.contains("without authentication"), "{text}");
    assert!(text.contains("insecure_no_auth"), "{text}");
}

#[tokio::test]
async fn health_readiness_and_metrics() {
    let metrics = Arc::new(PrometheusMetrics::new());
    let http = McpServer::new(executor(Some(Arc::clone(&metrics))))
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().metrics(metrics),
        )
        .await
        .unwrap();
    let web = reqwest::Client::new();
    let base = base(&http);
    let health = web.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let ready = web.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::OK);

    let client = ().serve(StreamableHttpClientTransport::from_uri(http.url())).await.unwrap();
    let mut sum_bytes = 0;
    for _ in 0..2 {
        let result = client
            .call_tool(
                CallToolRequestParams::new("add")
                    .with_arguments(json!({"a": 1, "b": 2}).as_object().cloned().unwrap()),
            )
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(false));
        sum_bytes += result.content[0].as_text().unwrap().text.len();
    }
    let result = client
        .call_tool(CallToolRequestParams::new("add"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let error_bytes = result.content[0].as_text().unwrap().text.len();

    let response = web.get(format!("{base}/metrics")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    let text = response.text().await.unwrap();
    for line in [
        "mcp_tool_calls_total{tool=\"add\"} 3",
        "mcp_tool_failures_total{tool=\"add\"} 1",
        "mcp_tool_denials_total{tool=\"add\"} 0",
        "mcp_tool_timeouts_total{tool=\"add\"} 0",
        "mcp_tool_call_duration_seconds_count{tool=\"add\"} 3",
        "mcp_tool_call_duration_seconds_bucket{le=\"+Inf\",tool=\"add\"} 3",
        // Issue 18: the size of results: two sums (under 64 bytes) and one error message.
        "mcp_tool_result_bytes_count{tool=\"add\"} 3",
        "mcp_tool_result_bytes_bucket{le=\"64.0\",tool=\"add\"} 2",
        "# TYPE mcp_tool_result_bytes histogram",
        "mcp_sessions_open 1",
        "mcp_draining 0",
        "mcp_sync_threads{state=\"busy\"} 0",
        "# TYPE mcp_tool_call_duration_seconds histogram",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in:\n{text}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("mcp_sync_threads{state=\"limit\"} ")),
        "{text}"
    );
    // The sizes, exactly: the sum twice and the error message.
    assert_eq!(sum_bytes, 6, "`3.0` twice");
    for line in [
        format!(
            "mcp_tool_result_bytes_sum{{tool=\"add\"}} {}.0",
            sum_bytes + error_bytes
        ),
        format!("mcp_tool_result_bytes_max{{tool=\"add\"}} {error_bytes}"),
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in:\n{text}");
    }
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_refuses_new_work_and_waits_for_the_calls_in_flight() {
    let http = start(HttpOptions::new()).await;
    let base = base(&http);
    let url = http.url();
    let client = ().serve(StreamableHttpClientTransport::from_uri(url.clone())).await.unwrap();
    let call = tokio::spawn(async move {
        let result = client
            .call_tool(CallToolRequestParams::new("block_until_released"))
            .await;
        (client, result)
    });
    BLOCK_ENTERED.notified().await;
    assert_eq!(http.calls_in_flight(), 1);

    // Draining starts when drain is called; the deadline is far away, so only the release
    // below lets it end.
    let drain = tokio::spawn(http.drain(Duration::from_secs(3600)));
    let web = reqwest::Client::new();
    let ready = web.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    let health = web.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let metrics = web.get(format!("{base}/metrics")).send().await.unwrap();
    let metrics = metrics.text().await.unwrap();
    assert!(metrics.lines().any(|l| l == "mcp_draining 1"), "{metrics}");
    let refused = initialize(&web, &url, None).await;
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.text().await.unwrap().contains("shutting down"));

    BLOCK_RELEASE.notify_one();
    let (client, result) = call.await.unwrap();
    let result = result.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "released");
    let report = drain.await.unwrap().unwrap();
    assert!(report.is_clean(), "{report:?}");
    // Stopped: nothing answers any more.
    assert!(web.get(format!("{base}/healthz")).send().await.is_err());
    drop(client);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_cancels_what_still_runs_at_its_deadline() {
    let executor = executor(None);
    let http = McpServer::new(executor.clone())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    let client = ().serve(StreamableHttpClientTransport::from_uri(http.url())).await.unwrap();
    let call = tokio::spawn(async move {
        let _ = client
            .call_tool(CallToolRequestParams::new("hold_until_cancelled"))
            .await;
        client
    });
    HOLD_ENTERED.notified().await;
    let report = http.drain(Duration::ZERO).await.unwrap();
    assert_eq!(report.unfinished_calls, 1, "{report:?}");
    assert!(!report.is_clean());
    // The call was cancelled: the executor counts it as failed (wait for that event).
    while executor
        .metrics()
        .tools
        .get("hold_until_cancelled")
        .is_none_or(|m| m.failures == 0)
    {
        tokio::task::yield_now().await;
    }
    call.abort();
}
