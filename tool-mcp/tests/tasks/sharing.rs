//! Who sees a task: never another caller (not to see, answer or cancel it); every server
//! that shares the store.

use std::sync::Arc;

use rmcp::model::{CancelTaskParams, ErrorCode, TaskStatus, UpdateTaskParams};
use serde_json::json;
use toolwright_mcp::tasks::{MemoryTaskStore, TaskStore};
use toolwright_mcp::{AuthConfig, HttpOptions, McpServer};

use crate::support::{
    REPLICA_ENTERED, REPLICA_STOPPED, TASKS, call_as_task, connect, connect_as, executor, get,
    mcp_error, result_text, serve, signalled, status, wait_for,
};

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
