//! Deferred approvals as tasks: a client that polls answers them; one that cannot leaves
//! the call pending for the application; only a caller that may approve is asked.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{TaskPayload, TaskStatus, UpdateTaskParams};
use serde_json::json;
use toolwright_core::SafetyLevel;
use toolwright_mcp::{AuthConfig, HttpOptions, McpServer};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor, register_all_tools};

use crate::support::{
    Client, call, call_as_task, connect_as, connect_modern, get, result_text, serve, status,
    wait_for,
};

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
