//! Call policy through the MCP server: per-session call limits, guardrails, deferred
//! approvals. A binary of its own, so its tools do not change the other tests' tool lists.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;
use toolwright_core::{BoxFuture, SafetyLevel, tool};
use toolwright_mcp::McpServer;
use toolwright_runtime::executor::{CallVerdict, GuardedCall, Guardrail};
use toolwright_runtime::{
    ApprovalDecision, ApprovalRequest, Executor, ExecutorBuilder, register_all_tools,
};

static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Count one run and say so.
#[tool]
fn count_me(label: String) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("counted {label}")
}

/// Drop a table (dangerous).
#[tool(safety = "dangerous")]
fn drop_table(table: String) -> String {
    format!("dropped {table}")
}

fn builder() -> ExecutorBuilder {
    Executor::builder(Arc::new(register_all_tools().unwrap())).max_safety(SafetyLevel::Dangerous)
}

/// A client session (it declares no capabilities: no elicitation) on `executor`.
async fn session(executor: &Executor) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(executor.clone());
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        if let Ok(running) = server.serve((read, write)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(client_io);
    ().serve((read, write)).await.unwrap()
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &'static str,
    arguments: serde_json::Value,
) -> CallToolResult {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
        .await
        .unwrap()
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn call_limits_count_per_session() {
    let executor = builder().max_calls("count_me", 2).build();
    let first = session(&executor).await;
    for label in ["a", "b"] {
        let result = call(&first, "count_me", json!({"label": label})).await;
        assert_eq!(result.is_error, Some(false), "{result:?}");
    }
    let refused = call(&first, "count_me", json!({"label": "c"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        text(&refused),
        "tool `count_me` was not run: it may run at most 2 times per session and has run 2 \
         times; go on without it"
    );
    // Another session has its own count.
    let second = session(&executor).await;
    let result = call(&second, "count_me", json!({"label": "d"})).await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

/// Denies any table named `users`.
struct ProtectUsers;

impl Guardrail for ProtectUsers {
    fn check_call(&self, call: GuardedCall) -> BoxFuture<CallVerdict> {
        let users = call.arguments["table"] == "users";
        Box::pin(async move {
            if users {
                CallVerdict::Deny {
                    reason: "the users table is protected".into(),
                }
            } else {
                CallVerdict::Allow
            }
        })
    }
}

#[tokio::test]
async fn guardrails_and_deferred_approvals_through_mcp() {
    let executor = builder()
        .guardrail(ProtectUsers)
        .approval(|_: ApprovalRequest| async { ApprovalDecision::Defer })
        .build();
    let client = session(&executor).await;

    let denied = call(&client, "drop_table", json!({"table": "users"})).await;
    assert_eq!(denied.is_error, Some(true));
    assert_eq!(
        text(&denied),
        "tool `drop_table` was not run: the users table is protected"
    );
    assert!(executor.pending_approvals().is_empty());

    // The client cannot be asked (no elicitation): the executor's handler defers.
    let waiting = call(&client, "drop_table", json!({"table": "logs"})).await;
    assert_eq!(waiting.is_error, Some(true));
    assert!(
        text(&waiting).contains("waiting for a person's approval"),
        "{}",
        text(&waiting)
    );
    let pending = executor.pending_approvals();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].request.arguments["table"], "logs");
    assert!(
        !text(&waiting).contains(&pending[0].token),
        "the client is not given the token"
    );
    let done = executor
        .resume(&pending[0].token, ApprovalDecision::Approved)
        .await
        .unwrap();
    assert_eq!(done.content, "dropped logs");
    client.cancel().await.unwrap();
}
