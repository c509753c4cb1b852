//! What a person approves is the file written (issue 27): a write through a symbolic link
//! names the file it really changes, in the preview, the change's header and the result; a
//! link into `.git` is refused before anyone is asked; a link changed while the person
//! decides writes nothing.

use std::os::unix::fs::symlink;
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwright_core::{ToolCall, ToolResult};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor};
use toolwright_std::Workspace;

/// An executor over `root` whose approver records each request, then runs `during` (which
/// may change the workspace while the person "decides") and approves.
fn executor(
    root: &std::path::Path,
    during: impl Fn() + Send + Sync + 'static,
) -> (Executor, Arc<Mutex<Vec<ApprovalRequest>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let during = Arc::new(during);
    let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
        .state(Workspace::new(root).unwrap())
        .approval(move |request: ApprovalRequest| {
            seen.lock().unwrap().push(request);
            let during = during.clone();
            async move {
                during();
                ApprovalDecision::Approved
            }
        })
        .build();
    (executor, asked)
}

async fn call(executor: &Executor, tool: &str, arguments: serde_json::Value) -> ToolResult {
    executor.execute(ToolCall::new("1", tool, arguments)).await
}

#[tokio::test]
async fn a_link_into_git_is_refused_before_anyone_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    let config = "[core]\n\trepositoryformatversion = 0\n";
    std::fs::write(root.join(".git/config"), config).unwrap();
    // An untrusted repository can ship both.
    symlink(".git/config", root.join("notes.txt")).unwrap();
    symlink(".git", root.join("docs")).unwrap();
    let (executor, asked) = executor(root, || {});
    let hostile = "[core]\n\tfsmonitor = touch pwned\n";
    for (tool, arguments) in [
        (
            "write_file",
            json!({"path": "notes.txt", "content": hostile, "overwrite": true}),
        ),
        (
            "edit_file",
            json!({"path": "notes.txt", "old_text": "repositoryformatversion = 0", "new_text": "fsmonitor = touch pwned"}),
        ),
        (
            "write_file",
            json!({"path": "docs/config", "content": hostile, "overwrite": true}),
        ),
        (
            "edit_file",
            json!({"path": "docs/config", "old_text": "repositoryformatversion = 0", "new_text": "fsmonitor = x"}),
        ),
    ] {
        let result = call(&executor, tool, arguments.clone()).await;
        assert!(!result.success, "{tool} {arguments}: {result:?}");
        let error = result.error.unwrap_or_default();
        assert!(error.contains("is a link to `.git/config`"), "{error}");
        assert!(error.contains("refused"), "{error}");
    }
    assert!(asked.lock().unwrap().is_empty(), "nobody is asked");
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        config
    );
}

#[tokio::test]
async fn a_write_through_a_link_names_the_file_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/real.md"), "one\ntwo\n").unwrap();
    symlink("docs/real.md", root.join("notes.txt")).unwrap();
    let (executor, asked) = executor(root, || {});

    let result = call(
        &executor,
        "edit_file",
        json!({"path": "notes.txt", "old_text": "two", "new_text": "TWO"}),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert!(
        result
            .content
            .starts_with("edited `docs/real.md` (`notes.txt` is a link to it)"),
        "{}",
        result.content
    );
    assert!(
        result.content.contains("--- a/docs/real.md"),
        "{}",
        result.content
    );
    {
        let asked = asked.lock().unwrap();
        let change = asked[0].change.as_ref().expect("a change to approve");
        assert_eq!(change.path, "docs/real.md");
        assert_eq!(change.requested.as_deref(), Some("notes.txt"));
        let preview = asked[0].preview.as_deref().unwrap_or_default();
        assert!(
            preview.starts_with("`notes.txt` is a link to `docs/real.md`\n--- a/docs/real.md"),
            "{preview}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join("docs/real.md")).unwrap(),
        "one\nTWO\n"
    );
    assert!(
        std::fs::symlink_metadata(root.join("notes.txt"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );

    let result = call(
        &executor,
        "write_file",
        json!({"path": "notes.txt", "content": "three\n", "overwrite": true}),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert!(
        result
            .content
            .starts_with("replaced `docs/real.md` (`notes.txt` is a link to it)"),
        "{}",
        result.content
    );
    // A link to a file not there yet: the creation names it.
    symlink("docs/new.md", root.join("new.txt")).unwrap();
    let result = call(
        &executor,
        "write_file",
        json!({"path": "new.txt", "content": "fresh\n"}),
    )
    .await;
    assert!(result.success, "{result:?}");
    let asked = asked.lock().unwrap();
    let preview = asked.last().unwrap().preview.clone().unwrap_or_default();
    assert!(
        preview.starts_with("create `docs/new.md` (`new.txt` is a link to it)"),
        "{preview}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("docs/new.md")).unwrap(),
        "fresh\n"
    );
}

#[tokio::test]
async fn a_link_changed_while_the_person_decides_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::write(root.join("a.md"), "same\n").unwrap();
    std::fs::write(root.join("b.md"), "same\n").unwrap();
    symlink("a.md", root.join("notes.txt")).unwrap();
    let swap_root = root.clone();
    let (executor, asked) = executor(&root, move || {
        // While the person reads the prompt naming `a.md`, the link moves to `b.md`.
        std::fs::remove_file(swap_root.join("notes.txt")).unwrap();
        symlink("b.md", swap_root.join("notes.txt")).unwrap();
    });
    let result = call(
        &executor,
        "edit_file",
        json!({"path": "notes.txt", "old_text": "same", "new_text": "CHANGED"}),
    )
    .await;
    assert!(!result.success, "{result:?}");
    assert_eq!(
        asked.lock().unwrap()[0].change.as_ref().unwrap().path,
        "a.md"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.md")).unwrap(),
        "same\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("b.md")).unwrap(),
        "same\n"
    );
}
