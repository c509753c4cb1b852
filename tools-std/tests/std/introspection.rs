//! list_tools, describe_tool, search_tools: a model looks itself up.

use std::sync::Arc;

use serde_json::{Value, json};
use toolwright_core::{SafetyLevel, ToolCall};
use toolwright_runtime::Executor;

use crate::harness::Harness;

#[tokio::test]
async fn list_tools_shows_the_available_tools() {
    let h = Harness::new();
    let listing = h.ok("list_tools", json!({})).await;
    for name in toolwright_std::TOOL_NAMES {
        assert!(
            listing.contains(&format!("{name} [")),
            "{name} missing from {listing}"
        );
    }
    assert!(
        listing.contains("read_file [safe; filesystem]: Read a UTF-8 text file in the workspace."),
        "{listing}"
    );
    let data = h.ok("list_tools", json!({"category": "data"})).await;
    assert_eq!(data.lines().count(), 3, "{data}");
    assert_eq!(
        h.ok("list_tools", json!({"category": "nope"})).await,
        "no tools in category `nope`"
    );
}

#[tokio::test]
async fn the_executors_ceiling_hides_tools_from_introspection() {
    let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
        .max_safety(SafetyLevel::Safe)
        .build();
    let listing = executor
        .execute(ToolCall::new("1", "list_tools", json!({})))
        .await
        .content;
    assert!(!listing.contains("write_file"), "{listing}");
    assert!(!listing.contains("run_command"), "{listing}");
    let result = executor
        .execute(ToolCall::new(
            "2",
            "describe_tool",
            json!({"name": "write_file"}),
        ))
        .await;
    assert!(
        result
            .error
            .unwrap()
            .contains("no tool named `write_file` is available")
    );
    let found = executor
        .execute(ToolCall::new(
            "3",
            "search_tools",
            json!({"query": "write a file"}),
        ))
        .await
        .content;
    assert!(!found.contains("write_file"), "{found}");
}

#[tokio::test]
async fn introspection_keeps_to_the_tools_offered_for_the_request() {
    let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap())).build();
    let offered = toolwright_runtime::CallOptions::new().allowed_tools(
        toolwright_runtime::ToolFilter::new().names([
            "list_tools",
            "describe_tool",
            "search_tools",
            "read_file",
        ]),
    );
    let run = |id: &str, name: &str, arguments: Value| {
        executor.execute_with(ToolCall::new(id, name, arguments), offered.clone())
    };
    let listing = run("1", "list_tools", json!({})).await.result.content;
    assert_eq!(listing.lines().count(), 4, "{listing}");
    assert!(!listing.contains("write_file"), "{listing}");
    // Naming a tool that was not offered does not reveal it.
    let described = run("2", "describe_tool", json!({"name": "write_file"})).await;
    assert!(
        described
            .result
            .error
            .as_deref()
            .unwrap()
            .contains("no tool named `write_file` is available"),
        "{described:?}"
    );
    assert!(
        run("3", "describe_tool", json!({"name": "read_file"}))
            .await
            .result
            .success
    );
    let found = run("4", "search_tools", json!({"query": "write a file"}))
        .await
        .result
        .content;
    assert!(!found.contains("write_file"), "{found}");
}

#[tokio::test]
async fn describe_tool_gives_the_schema() {
    let h = Harness::new();
    let described: Value =
        serde_json::from_str(&h.ok("describe_tool", json!({"name": "edit_file"})).await).unwrap();
    assert_eq!(described["name"], "edit_file");
    assert_eq!(described["safety"], "dangerous");
    assert_eq!(described["input_schema"]["required"], json!(["path"]));
    assert!(
        described["input_schema"]["properties"]["diff"]["description"]
            .as_str()
            .unwrap()
            .contains("unified diff")
    );
    let error = h.err("describe_tool", json!({"name": "read"})).await;
    assert!(error.contains("did you mean `read_file`?"), "{error}");
    // Closest first: the transposition before the names that merely share a word.
    let error = h.err("describe_tool", json!({"name": "raed_file"})).await;
    assert!(
        error.contains(
            "no tool named `raed_file` is available; did you mean `read_file` or `edit_file` or `write_file`?"
        ),
        "{error}"
    );
    let error = h.err("describe_tool", json!({"name": "file"})).await;
    assert!(
        error.contains("did you mean `edit_file` or `file_info` or `read_file`?"),
        "{error}"
    );
}

#[tokio::test]
async fn search_tools_finds_the_right_tool() {
    let h = Harness::new();
    for (query, expected) in [
        ("replace some text in a file", "edit_file"),
        ("run cargo test", "run_command"),
        ("what time is it in Tokyo", "current_time"),
        ("evaluate a math expression", "calculate"),
        ("find files matching a glob pattern", "find_files"),
        ("search for a regex in file contents", "search_files"),
    ] {
        let found = h
            .ok("search_tools", json!({"query": query, "limit": 3}))
            .await;
        let first = found.lines().next().unwrap();
        assert!(first.starts_with(expected), "{query}: {found}");
    }
}

/// Issue 18: the executor's "did you mean" is the closest name (a transposition), not the
/// first that shares a word; the same for parameters.
#[tokio::test]
async fn misspelt_names_suggest_the_closest_first() {
    let h = Harness::new();
    let error = h.err("raed_file", json!({"path": "a.txt"})).await;
    assert_eq!(error, "unknown tool `raed_file`; did you mean `read_file`?");
    let error = h.err("fiel_info", json!({"path": "a.txt"})).await;
    assert_eq!(error, "unknown tool `fiel_info`; did you mean `file_info`?");
    let error = h.err("read_file", json!({"ptah": "a.txt"})).await;
    assert!(
        error.contains("unknown parameter `ptah`: did you mean `path`?"),
        "{error}"
    );
}
