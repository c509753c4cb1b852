//! Supervision of an HTTP upstream: its server goes away (stopped), the gateway notices
//! when the transport ends or a call fails on a closed transport, withdraws its tools and
//! starts it again when the server is back on the same address.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolwright_core::{Tool, ToolCall};
use toolwright_gateway::{Checks, Gateway, UpstreamState};
use toolwright_mcp::{HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{ApprovalDecision, Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

async fn serve(at: std::net::SocketAddr) -> HttpServer {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Tool::builder("echo")
                .description("Echo the text.")
                .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
                .handler(|args: Map<String, Value>| async move {
                    args["text"].as_str().unwrap_or_default().to_owned()
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    McpServer::new(Executor::builder(registry).build())
        .serve_http_with(at, HttpOptions::new())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_upstream_that_goes_away_is_withdrawn_and_comes_back() {
    let http = serve(([127, 0, 0, 1], 0).into()).await;
    let at = http.local_addr();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.toml");
    std::fs::write(
        &path,
        format!(
            "[[upstream]]\nnamespace = \"web\"\nurl = \"{}\"\nsafety = \"safe\"\n\
             supervise = {{ backoff_initial = 0.01, backoff_max = 0.05 }}\n",
            http.url()
        ),
    )
    .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    let gateway = Gateway::new(Arc::clone(&registry));
    let executor = Executor::builder(Arc::clone(&registry))
        .approval(|_| async { ApprovalDecision::Approved })
        .shared_hook(gateway.hook())
        .build();
    gateway
        .start(Checks::new().load(&path).unwrap())
        .await
        .unwrap();
    let up = |statuses: &[toolwright_gateway::UpstreamStatus]| {
        statuses.iter().all(|u| u.state == UpstreamState::Up)
    };
    within("web up", gateway.wait_for(up)).await;
    let call = |id: &str| ToolCall::new(id, "web_echo", json!({"text": "hi"}));
    assert!(!executor.execute(call("1")).await.is_error());

    // The server stops: the next call fails, and the gateway notices.
    drop(http.drain(Duration::from_secs(5)).await);
    assert!(executor.execute(call("2")).await.is_error());
    within(
        "web noticed down",
        gateway.wait_for(|statuses| {
            statuses
                .iter()
                .any(|u| u.restarts > 0 || u.state != UpstreamState::Up)
        }),
    )
    .await;
    // Back on the same address: mounted again.
    let _again = serve(at).await;
    within(
        "web back",
        gateway.wait_for(|statuses| {
            statuses
                .iter()
                .all(|u| u.state == UpstreamState::Up && u.starts > 1)
        }),
    )
    .await;
    assert!(!executor.execute(call("3")).await.is_error());
    within("shutdown", gateway.shutdown()).await;
}
