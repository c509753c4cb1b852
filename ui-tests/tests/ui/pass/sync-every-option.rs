use toolwright::{SafetyLevel, tool};
use toolwright::model::TaskSupport;

/// Ignored: `description` wins over the doc comment.
#[tool(
    name = "remove_file",
    description = "Remove a file from the workspace.",
    safety = "dangerous",
    categories(filesystem, "file-ops"),
    tags("files", "delete"),
    required("path"),
    version = "1.2.0",
    priority = 42,
    timeout = "90s",
    max_calls = 7,
    task = "optional",
    inline,
)]
fn delete_path(path: String, force: Option<bool>) -> String {
    format!("removed {path} (force: {})", force.unwrap_or(false))
}

fn main() {
    // The function is still an ordinary function.
    assert_eq!(delete_path("a".into(), None), "removed a (force: false)");

    let registry = toolwright::register_all_tools().unwrap();
    assert!(registry.get("delete_path").is_none());
    let tool = registry.get("remove_file").unwrap();
    assert_eq!(tool.name(), "remove_file");
    assert_eq!(tool.description(), "Remove a file from the workspace.");
    assert_eq!(tool.safety(), SafetyLevel::Dangerous);
    assert_eq!(tool.categories(), ["filesystem", "file-ops"]);
    assert_eq!(tool.tags(), ["files", "delete"]);
    assert_eq!(tool.required(), ["path"]);
    assert_eq!(tool.version(), Some("1.2.0"));
    assert_eq!(tool.priority(), 42);
    assert_eq!(tool.timeout(), Some(std::time::Duration::from_secs(90)));
    assert_eq!(tool.max_calls(), Some(7));
    assert_eq!(tool.task_support(), TaskSupport::Optional);
    assert!(!tool.is_async());
    assert!(tool.is_inline());
    assert_eq!(tool.input_schema()["required"], toolwright::serde_json::json!(["path"]));
    assert_eq!(tool.output_schema(), None);
    assert!(tool.source().file.ends_with("sync-every-option.rs"));

    let args = toolwright::serde_json::json!({"path": "b", "force": true});
    let out = tool
        .call_blocking(&toolwright::ToolContext::new(), args.as_object().unwrap().clone())
        .unwrap()
        .unwrap();
    assert_eq!(out.content, "removed b (force: true)");
}
