//! `toolwright serve --discovery search` against rmcp's client over stdio: the short list,
//! the instructions, a search, `call_tool` of a cautious tool, a refused dangerous one, and
//! the same options from `[serve]` of a configuration.

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_toolwright");

async fn serve(root: &std::path::Path, args: &[&str]) -> RunningService<RoleClient, ()> {
    let root = root.to_owned();
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|command| {
            command.arg("serve").arg("--root").arg(&root).args(&args);
        }))
        .unwrap();
    ().serve(transport).await.unwrap()
}

async fn listed(client: &RunningService<RoleClient, ()>) -> Vec<String> {
    let tools = client.list_all_tools().await.unwrap();
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    arguments: Value,
) -> (bool, String) {
    let request = CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().cloned().unwrap());
    let result = client.call_tool(request).await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    (result.is_error == Some(true), text)
}

#[tokio::test]
async fn serve_discovery_search_lists_the_core_and_finds_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello\n").unwrap();
    let client = serve(
        dir.path(),
        &[
            "--discovery",
            "search",
            "--core",
            "read_file",
            "--core",
            "category:no_such_category",
        ],
    )
    .await;
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.starts_with("The tool list is partial"),
        "{instructions}"
    );
    assert!(
        instructions.contains("project directory"),
        "the operator's words follow: {instructions}"
    );
    let tools = listed(&client).await;
    assert_eq!(
        tools.first().map(String::as_str),
        Some("read_file"),
        "{tools:?}"
    );
    assert_eq!(
        &tools[tools.len() - 3..],
        ["search_tools", "describe_tool", "call_tool"]
    );
    assert!(tools.len() < toolwright_std::TOOL_NAMES.len(), "{tools:?}");
    assert!(
        !tools
            .iter()
            .any(|tool| tool == "write_file" || tool == "delete_path"),
        "{tools:?}"
    );

    let (error, found) = call(
        &client,
        "search_tools",
        json!({"query": "create a new directory"}),
    )
    .await;
    assert!(!error && found.contains("create_directory"), "{found}");
    let (error, text) = call(
        &client,
        "call_tool",
        json!({"name": "create_directory", "arguments": {"path": "made"}}),
    )
    .await;
    assert!(!error, "{text}");
    assert!(dir.path().join("made").is_dir());
    // Needs approval, and this client cannot give it: refused, naming the real tool.
    let (error, text) = call(
        &client,
        "call_tool",
        json!({"name": "write_file", "arguments": {"path": "note.txt", "content": "hi"}}),
    )
    .await;
    assert!(
        error && text.contains("`write_file` is dangerous"),
        "{text}"
    );
    assert!(!text.contains("call_tool"), "{text}");
    assert!(!dir.path().join("note.txt").exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn serve_discovery_from_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("serve.toml");
    std::fs::write(
        &config,
        "[serve]\ndiscovery = \"search\"\ncore = [\"current_time\"]\n",
    )
    .unwrap();
    let workspace = dir.path().join("work");
    std::fs::create_dir(&workspace).unwrap();
    let client = serve(&workspace, &["--config", config.to_str().unwrap()]).await;
    assert_eq!(
        listed(&client).await,
        ["current_time", "search_tools", "describe_tool", "call_tool"]
    );
    client.cancel().await.unwrap();

    // --core without search-first is a usage error that says what to add.
    let output = std::process::Command::new(BIN)
        .args(["serve", "--core", "read_file", "--root"])
        .arg(&workspace)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("--discovery search"), "{said}");
}
