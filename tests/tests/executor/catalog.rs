//! What a running tool sees of the other tools: the catalog the executor gives each call.
//! A tool that lists tools must see exactly what the model may call, and nothing it could
//! use to run or change a tool around the executor.

use std::sync::Arc;

use serde_json::json;
use toolwright::runtime::{CallOptions, ToolFilter};
use toolwright::{Executor, SafetyLevel, Tool, ToolCall, ToolContext, ToolError, ToolRegistry};

/// A tool that reports what its catalog holds: the listed names, whether `get` finds each
/// name it was asked about, and the names a search for "file" finds.
fn looker() -> Tool {
    Tool::builder("look_around")
        .description("List the tools this call can see.")
        .safety(SafetyLevel::Safe)
        .handler_with_context(|ctx: ToolContext, args| async move {
            let catalog = ctx.catalog().ok_or_else(|| ToolError::new("no catalog"))?;
            let listed: Vec<String> = catalog.list().iter().map(|e| e.name().to_owned()).collect();
            let probes: Vec<String> = args
                .get("probe")
                .and_then(|probe| probe.as_array())
                .into_iter()
                .flatten()
                .filter_map(|name| name.as_str())
                .filter(|name| catalog.get(name).is_some())
                .map(str::to_owned)
                .collect();
            let found: Vec<String> = catalog
                .search("file", 10)
                .iter()
                .map(|hit| hit.entry.name().to_owned())
                .collect();
            Ok::<_, ToolError>(json!({"listed": listed, "got": probes, "found": found}).to_string())
        })
        .build()
        .unwrap()
}

fn file_tool(name: &str, safety: SafetyLevel) -> Tool {
    Tool::builder(name)
        .description(format!("Do something to a file ({name})."))
        .safety(safety)
        .handler(|_| async { "done" })
        .build()
        .unwrap()
}

fn registry() -> Arc<ToolRegistry> {
    let registry = ToolRegistry::new();
    registry.register(looker()).unwrap();
    registry
        .register(file_tool("read_file", SafetyLevel::Safe))
        .unwrap();
    registry
        .register(file_tool("write_file", SafetyLevel::Cautious))
        .unwrap();
    registry
        .register(file_tool("delete_file", SafetyLevel::Dangerous))
        .unwrap();
    registry
        .register(file_tool("hidden_file", SafetyLevel::Safe))
        .unwrap();
    registry.set_enabled("hidden_file", false).unwrap();
    Arc::new(registry)
}

const EVERY_NAME: [&str; 5] = [
    "look_around",
    "read_file",
    "write_file",
    "delete_file",
    "hidden_file",
];

async fn seen(executor: &Executor, options: CallOptions) -> serde_json::Value {
    let call = ToolCall::new("c", "look_around", json!({"probe": EVERY_NAME}));
    let result = executor.execute_with(call, options).await.result;
    assert!(!result.is_error(), "{:?}", result.error);
    serde_json::from_str(&result.content).unwrap()
}

fn sorted(value: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_tool_sees_the_enabled_tools_under_the_executors_ceiling() {
    let executor = Executor::builder(registry())
        .max_safety(SafetyLevel::Cautious)
        .build();
    let seen = seen(&executor, CallOptions::new()).await;
    let expected = ["look_around", "read_file", "write_file"];
    assert_eq!(sorted(&seen["listed"]), expected);
    // `get` answers the same for a name outside the catalog as for one that does not exist:
    // a disabled or too dangerous tool cannot be probed for.
    assert_eq!(sorted(&seen["got"]), expected);
    assert_eq!(sorted(&seen["found"]), ["read_file", "write_file"]);
}

#[tokio::test]
async fn a_tool_sees_only_the_tools_offered_for_the_request_and_under_the_callers_ceiling() {
    let executor = Executor::builder(registry()).build();
    let offered =
        ToolFilter::new().names(["look_around", "read_file", "delete_file", "hidden_file"]);
    let seen_offered = seen(&executor, CallOptions::new().allowed_tools(offered.clone())).await;
    assert_eq!(
        sorted(&seen_offered["listed"]),
        ["delete_file", "look_around", "read_file"]
    );
    assert_eq!(
        sorted(&seen_offered["got"]),
        ["delete_file", "look_around", "read_file"]
    );
    assert_eq!(sorted(&seen_offered["found"]), ["delete_file", "read_file"]);

    let options = CallOptions::new()
        .allowed_tools(offered)
        .max_safety(SafetyLevel::Safe);
    let seen_safe = seen(&executor, options).await;
    assert_eq!(sorted(&seen_safe["listed"]), ["look_around", "read_file"]);
    assert_eq!(sorted(&seen_safe["got"]), ["look_around", "read_file"]);
    assert_eq!(sorted(&seen_safe["found"]), ["read_file"]);
}

#[tokio::test]
async fn the_catalog_follows_the_registry_while_the_call_runs() {
    let registry = registry();
    let executor = Executor::builder(Arc::clone(&registry)).build();
    registry.set_enabled("write_file", false).unwrap();
    let seen = seen(&executor, CallOptions::new()).await;
    assert!(!sorted(&seen["listed"]).contains(&"write_file".to_owned()));
    assert!(!sorted(&seen["got"]).contains(&"write_file".to_owned()));
}

#[tokio::test]
async fn a_search_limit_counts_only_visible_tools() {
    let executor = Executor::builder(registry()).build();
    let offered = ToolFilter::new().names(["look_around", "delete_file"]);
    let call = ToolCall::new("c", "look_around", json!({}));
    let result = executor
        .execute_with(call, CallOptions::new().allowed_tools(offered))
        .await
        .result;
    let seen: serde_json::Value = serde_json::from_str(&result.content).unwrap();
    // Three other file tools score for "file" before or after it; the offered one is found.
    assert_eq!(sorted(&seen["found"]), ["delete_file"]);
}
