//! `toolbox serve` against rmcp's client: over stdio (a child process) and streamable HTTP.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Value, json};

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap()
}

async fn exercise<S: rmcp::Service<rmcp::RoleClient>>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, S>,
    root: &std::path::Path,
) {
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), tools_std::TOOL_NAMES.len());
    let read = tools.iter().find(|t| t.name == "read_file").unwrap();
    assert_eq!(
        read.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );

    let result = client
        .call_tool(
            CallToolRequestParams::new("read_file")
                .with_arguments(args(json!({"path": "hello.txt"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.content[0].as_text().unwrap().text, "hello\n");

    let result = client
        .call_tool(CallToolRequestParams::new("read_file").with_arguments(args(json!({"path": 3}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));

    let err = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .unwrap_err();
    assert!(matches!(err, ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS));

    let result = client
        .call_tool(
            CallToolRequestParams::new("write_file")
                .with_arguments(args(json!({"path": "pwned.txt", "content": "x"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(!root.join("pwned.txt").exists());
}

#[tokio::test]
async fn over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello\n").unwrap();
    let root = dir.path().to_owned();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_toolbox")).configure(|command| {
            command.arg("serve").arg("--root").arg(&root);
        }),
    )
    .unwrap();
    let client = ().serve(transport).await.unwrap();
    exercise(&client, dir.path()).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_streamable_http() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello\n").unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--root"])
        .arg(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for "listening on ...".
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(
        line.contains(&format!("listening on http://127.0.0.1:{port}/mcp")),
        "{line}"
    );

    let client = ()
        .serve(StreamableHttpClientTransport::from_uri(format!(
            "http://127.0.0.1:{port}/mcp"
        )))
        .await
        .unwrap();
    exercise(&client, dir.path()).await;
    client.cancel().await.unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
}
