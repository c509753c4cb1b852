//! A scripted session: the calls an agent might make to fix a typo in a project, run through
//! the executor over a temporary workspace, with an approval handler that shows each
//! dangerous call's preview (the diff) and approves it.
//!
//! Run it with `cargo run -p toolwright-std --example workspace_session`.

use std::sync::Arc;

use serde_json::json;
use toolwright_core::ToolCall;
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor};
use toolwright_std::Workspace;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir_all(dir.path().join("src"))?;
    std::fs::write(
        dir.path().join("src/greet.rs"),
        "pub fn greet() -> &'static str {\n    \"Helo, world\"\n}\n",
    )?;
    std::fs::write(dir.path().join("README.md"), "# greet\nSays hello.\n")?;

    let executor = Executor::builder(Arc::new(toolwright_std::registry()?))
        .state(Workspace::new(dir.path())?.allow_commands(["ls", "wc"]))
        .approval(|request: ApprovalRequest| async move {
            println!(
                "  approval asked for {} ({}):",
                request.tool, request.safety
            );
            for line in request.preview.as_deref().unwrap_or("(no preview)").lines() {
                println!("  | {line}");
            }
            ApprovalDecision::Approved
        })
        .build();

    let script = [
        ("list_directory", json!({"depth": 2})),
        ("search_files", json!({"pattern": "Helo"})),
        ("read_file", json!({"path": "src/greet.rs"})),
        (
            "edit_file",
            json!({"path": "src/greet.rs", "old_text": "Helo", "new_text": "Hello"}),
        ),
        (
            "edit_file",
            json!({"path": "src/greet.rs", "old_text": "Helo", "new_text": "Hello"}),
        ),
        (
            "write_file",
            json!({"path": "CHANGELOG.md", "content": "- Fix the greeting's spelling\n"}),
        ),
        (
            "run_command",
            json!({"program": "wc", "args": ["-l", "src/greet.rs", "CHANGELOG.md"]}),
        ),
        ("read_file", json!({"path": "../../etc/passwd"})),
        ("calculate", json!({"expression": "2^10 / 4"})),
        (
            "search_tools",
            json!({"query": "delete a file", "limit": 2}),
        ),
    ];
    for (i, (tool, arguments)) in script.into_iter().enumerate() {
        println!("\n> {tool} {arguments}");
        let result = executor
            .execute(ToolCall::new(format!("call_{i}"), tool, arguments))
            .await;
        let label = if result.success { "ok" } else { "error" };
        for line in result.content.lines() {
            println!("  {label}: {line}");
        }
    }
    println!("\n{}", serde_json::to_string_pretty(&executor.metrics())?);
    Ok(())
}
