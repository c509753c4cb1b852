//! A task's life: a required task tool answers with a task that works then completes; a
//! tool error completes it, a crash fails it; cancelling stops its call; after its TTL it
//! is gone and a call still running is cancelled.

use std::time::Duration;

use rmcp::model::{CancelTaskParams, ErrorCode, TaskPayload, TaskStatus};
use serde_json::json;
use toolwright_mcp::{HttpOptions, McpServer};

use crate::support::{
    DEADLINE, HOLD_ENTERED, HOLD_STOPPED, REPORT_ENTERED, REPORT_RELEASE, TASKS, call_as_task,
    connect, executor, get, mcp_error, result_text, serve, signalled, status, wait_for,
};

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
