//! A person approves an edit hunk by hunk: a dangerous tool previews its change as hunks,
//! the approver accepts the first and the third of three, and the tool writes exactly
//! those, applied to the text as it was previewed.
//!
//! Run it with `cargo run -p toolwright --example hunk_approval --features diff`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use toolwright::model::ToolContext;
use toolwright::model::file_change::{FileChange, Preview};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest};
use toolwright::serde_json::json;
use toolwright::{Executor, ToolCall, ToolError, register_all_tools, tool};

/// The "files" the tool edits: a map shared with the application.
#[derive(Default)]
struct Files(Mutex<HashMap<String, String>>);

impl Files {
    fn read(&self, path: &str) -> Result<String, ToolError> {
        let files = self
            .0
            .lock()
            .map_err(|_| ToolError::new("the file store is poisoned"))?;
        files
            .get(path)
            .cloned()
            .ok_or_else(|| ToolError::new(format!("no file `{path}`")))
    }
}

/// What `replace_all` would change, as hunks the approver can take one by one.
fn preview_replace(
    ctx: &ToolContext,
    path: &str,
    from: &str,
    to: &str,
) -> Result<Preview, ToolError> {
    let files = ctx
        .state::<Arc<Files>>()
        .ok_or_else(|| ToolError::new("no files here"))?;
    let old = files.read(path)?;
    let new = old.replace(from, to);
    Ok(Preview::hunks(FileChange::between(path, &old, &new)))
}

/// Replace every occurrence of a text in a file.
#[tool(safety = "dangerous", preview = preview_replace)]
fn replace_all(
    ctx: &ToolContext,
    #[state] files: &Arc<Files>,
    /// The file to edit
    path: String,
    /// The text to replace
    from: String,
    /// What to put instead
    to: String,
) -> Result<String, ToolError> {
    let change = ctx
        .approved_change()
        .ok_or_else(|| ToolError::new("this tool runs only after its change was approved"))?;
    let current = files.read(&path)?;
    // The approved hunks, applied to the text the person saw (refused if it changed since).
    let edited = change
        .apply(&current)
        .map_err(|error| ToolError::new(error.to_string()))?;
    // The preview computed the change from `from` and `to`; what runs is the approved part.
    let _ = (from, to);
    files
        .0
        .lock()
        .map_err(|_| ToolError::new("the file store is poisoned"))?
        .insert(path.clone(), edited);
    Ok(format!("edited {path}"))
}

/// The person: shown each hunk, keeps the first and the third.
async fn review(request: ApprovalRequest) -> ApprovalDecision {
    let Some(change) = &request.change else {
        return ApprovalDecision::Denied {
            reason: "no change to review".into(),
        };
    };
    println!("{} wants to edit {}:", request.tool, change.path);
    for hunk in &change.hunks {
        println!("  hunk {}: {}", hunk.index + 1, hunk.header);
    }
    let keep: Vec<usize> = change
        .hunks
        .iter()
        .map(|hunk| hunk.index)
        .step_by(2)
        .collect();
    ApprovalDecision::ApprovedHunks { hunks: keep }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Three settings far enough apart to be three hunks.
    let gap = "\n".repeat(10);
    let text = format!("alpha = 1\n{gap}beta = 1\n{gap}gamma = 1\n");
    let files = Arc::new(Files::default());
    files.0.lock().unwrap().insert("config.txt".into(), text);

    let executor = Executor::builder(Arc::new(register_all_tools()?))
        .state(Arc::clone(&files))
        .approval(review)
        .build();
    let call = ToolCall::new(
        "call_1",
        "replace_all",
        json!({"path": "config.txt", "from": "= 1", "to": "= 2"}),
    );
    let result = executor.execute(call).await;
    println!("{}", result.content);
    assert!(!result.is_error(), "{:?}", result.error);

    // The first and third hunks were written; the second was not.
    let edited = files.read("config.txt")?;
    assert_eq!(
        edited,
        format!("alpha = 2\n{gap}beta = 1\n{gap}gamma = 2\n")
    );
    Ok(())
}
