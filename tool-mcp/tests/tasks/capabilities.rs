//! What the client declared decides: without the extension a required task tool is
//! explained and an optional one answers in the call; a task's question goes through input
//! requests.

use rmcp::model::{ErrorCode, TaskPayload, TaskStatus, UpdateTaskParams};
use serde_json::json;
use toolwright_mcp::{HttpOptions, McpServer};

use crate::support::{
    Client, TASKS, call, call_as_task, connect, executor, mcp_error, result_text, serve, status,
    wait_for,
};

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
