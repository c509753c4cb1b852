//! Per-hunk approval of `edit_file` and `write_file` through the executor: exactly the accepted
//! hunks are written, to the file as it was previewed; a file changed in between is never
//! overwritten; a decision that names hunks the change does not have writes nothing.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tempfile::TempDir;
use toolwright_core::file_change::{ApprovedChange, FileChange};
use toolwright_core::{ToolCall, ToolContext, ToolResult};
use toolwright_runtime::executor::AuditLog;
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, Executor};
use toolwright_std::Workspace;

/// Thirty numbered lines.
fn original() -> String {
    (1..=30).map(|n| format!("line {n}\n")).collect()
}

/// `original()` with lines 1, 15 and 30 upper-cased: three hunks, far apart.
fn edited() -> String {
    (1..=30)
        .map(|n| {
            if [1, 15, 30].contains(&n) {
                format!("LINE {n}\n")
            } else {
                format!("line {n}\n")
            }
        })
        .collect()
}

/// `original()` with the lines in `changed` upper-cased.
fn with_changed(changed: &[u32]) -> String {
    (1..=30)
        .map(|n| {
            if changed.contains(&n) {
                format!("LINE {n}\n")
            } else {
                format!("line {n}\n")
            }
        })
        .collect()
}

/// The unified diff `edit_file` is given for the same three changes.
fn three_hunk_diff() -> String {
    let change =
        toolwright_core::file_change::FileChange::between("notes.txt", &original(), &edited());
    change.unified_diff()
}

struct Setup {
    dir: TempDir,
    executor: Executor,
    asked: Arc<Mutex<Vec<ApprovalRequest>>>,
    audit: Arc<Mutex<Vec<u8>>>,
}

#[derive(Clone)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A workspace with `notes.txt` = `original()`, and an executor whose approver runs
/// `decide` (with the workspace's root, to play a second process).
fn setup<F>(decide: F) -> Setup
where
    F: Fn(&ApprovalRequest, &std::path::Path) -> ApprovalDecision + Send + Sync + 'static,
{
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), original()).unwrap();
    let root = dir.path().to_owned();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let audit = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let decide = Arc::new(decide);
    let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
        .state(Workspace::new(dir.path()).unwrap())
        .hook(AuditLog::new(SharedBuffer(Arc::clone(&audit))))
        .approval(move |request: ApprovalRequest| {
            seen.lock().unwrap().push(request.clone());
            let (decide, root) = (Arc::clone(&decide), root.clone());
            async move { decide(&request, &root) }
        })
        .build();
    Setup {
        dir,
        executor,
        asked,
        audit,
    }
}

impl Setup {
    fn file(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("notes.txt")).unwrap()
    }

    async fn write(&self) -> ToolResult {
        let call = ToolCall::new(
            "w",
            "write_file",
            json!({"path": "notes.txt", "content": edited(), "overwrite": true}),
        );
        self.executor.execute(call).await
    }

    async fn edit(&self) -> ToolResult {
        let call = ToolCall::new(
            "e",
            "edit_file",
            json!({"path": "notes.txt", "diff": three_hunk_diff()}),
        );
        self.executor.execute(call).await
    }

    fn audit_lines(&self) -> Vec<Value> {
        let bytes = self.audit.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

fn hunks(indices: &[usize]) -> ApprovalDecision {
    ApprovalDecision::ApprovedHunks {
        hunks: indices.to_vec(),
    }
}

#[tokio::test]
async fn the_first_and_third_of_three_hunks_are_written_and_the_model_is_told() {
    for via_edit in [false, true] {
        let setup = setup(|_, _| hunks(&[0, 2]));
        let result = if via_edit {
            setup.edit().await
        } else {
            setup.write().await
        };
        assert!(result.success, "{result:?}");
        assert_eq!(
            setup.file(),
            with_changed(&[1, 30]),
            "edit_file: {via_edit}"
        );
        assert!(
            result.content.starts_with(
                "applied 2 of 3 hunks to `notes.txt` (hunk 1 @@ -1,4 +1,4 @@, hunk 3 @@ -27,4 +27,4 @@); \
                 the approver rejected hunk 2 @@ -12,7 +12,7 @@"
            ),
            "{}",
            result.content
        );
        let selection = result.metadata.hunks.unwrap();
        assert_eq!(
            (selection.applied, selection.rejected),
            (vec![0, 2], vec![1])
        );

        // What the approver saw: three hunks, with their lines, beside the text diff.
        let asked = setup.asked.lock().unwrap();
        let change = asked[0].change.as_ref().unwrap();
        assert_eq!(change.path, "notes.txt");
        assert_eq!(change.hunks.len(), 3);
        assert_eq!(change.hunks[1].header, "@@ -12,7 +12,7 @@");
        assert!(
            asked[0]
                .preview
                .as_deref()
                .unwrap()
                .contains("-line 15\n+LINE 15\n")
        );

        // The audit log says which hunks were approved.
        let lines = setup.audit_lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(
            lines[0]["hunks"],
            json!({"applied": [0, 2], "rejected": [1]})
        );
    }
}

#[tokio::test]
async fn every_hunk_or_none() {
    let all = setup(|_, _| hunks(&[2, 0, 1, 1]));
    let result = all.write().await;
    assert!(result.success, "{result:?}");
    assert_eq!(all.file(), edited());
    assert!(
        result.content.starts_with("replaced `notes.txt`"),
        "{}",
        result.content
    );

    let none = setup(|_, _| hunks(&[]));
    let result = none.write().await;
    assert!(!result.success);
    assert_eq!(result.metadata.approved, Some(false));
    assert!(
        result.content.contains("the approver rejected every hunk"),
        "{}",
        result.content
    );
    assert_eq!(none.file(), original());
}

#[tokio::test]
async fn a_hunk_the_change_does_not_have_writes_nothing() {
    for decision in [hunks(&[0, 3]), hunks(&[usize::MAX])] {
        let setup = setup(move |_, _| decision.clone());
        let result = setup.edit().await;
        assert!(!result.success);
        assert!(result.content.contains("hunk"), "{}", result.content);
        assert!(
            result.content.contains("does not exist"),
            "{}",
            result.content
        );
        assert_eq!(setup.file(), original());
    }
}

#[tokio::test]
async fn a_file_changed_while_the_person_decided_is_not_overwritten() {
    for decision in [hunks(&[0, 2]), ApprovalDecision::Approved] {
        // A second process writes the file while the approval is pending.
        let setup = setup(move |_, root: &std::path::Path| {
            std::fs::write(root.join("notes.txt"), "someone else's text\n").unwrap();
            decision.clone()
        });
        for via_edit in [false, true] {
            let result = if via_edit {
                setup.edit().await
            } else {
                setup.write().await
            };
            assert!(!result.success, "{result:?}");
            // The executor computes the preview again once the person has decided: the
            // write's differs; the edit's diff no longer applies.
            let expected = if via_edit {
                "the diff does not apply to `notes.txt` as it is now"
            } else {
                "changed since the preview the approver saw"
            };
            assert!(result.content.contains(expected), "{}", result.content);
            assert!(result.metadata.hunks.is_none());
            assert_eq!(setup.file(), "someone else's text\n");
            // Back as it was, for the next call.
            std::fs::write(setup.dir.path().join("notes.txt"), original()).unwrap();
        }
    }
}

#[test]
fn the_tool_itself_never_writes_approved_hunks_over_another_text() {
    // Past the executor's second look (a process writing in the last instant): the tool
    // applies the hunks to the text they were computed from, or writes nothing.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "someone else's text\n").unwrap();
    let mut state = toolwright_core::ToolState::new();
    state.insert(Workspace::new(dir.path()).unwrap());
    let change = FileChange::between("notes.txt", &original(), &edited());
    for approved in [
        ApprovedChange::new(change.clone(), vec![0, 2]).unwrap(),
        ApprovedChange::all(change),
    ] {
        let ctx = ToolContext::new()
            .with_state(state.clone())
            .with_approved_change(approved);
        let error =
            toolwright_std::files::write_file(&ctx, "notes.txt".into(), edited(), Some(true), None)
                .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("changed since the preview was approved, so nothing was written"),
            "{error}"
        );
        let error = toolwright_std::files::edit_file(
            &ctx,
            "notes.txt".into(),
            None,
            None,
            Some(three_hunk_diff()),
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("changed since the preview"),
            "{error}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
            "someone else's text\n"
        );
    }
}

#[test]
fn some_hunks_of_a_change_within_the_limit_cannot_write_past_it() {
    // 80 bytes; the change adds 24 bytes at the top and removes 24 at the bottom (80 again),
    // under the 100-byte limit. Only the first hunk would make 104.
    let old: String = (1..=20).map(|n| format!("l{n:02}\n")).collect();
    let new = format!("xxxxxxx\nxxxxxxx\nxxxxxxx\n{}", &old[..old.len() - 24]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), &old).unwrap();
    let mut state = toolwright_core::ToolState::new();
    state.insert(Workspace::new(dir.path()).unwrap().max_write_bytes(100));
    let change = FileChange::between("f.txt", &old, &new);
    assert_eq!(change.hunks.len(), 2);
    let ctx = ToolContext::new()
        .with_state(state)
        .with_approved_change(ApprovedChange::new(change, vec![0]).unwrap());
    let error =
        toolwright_std::files::write_file(&ctx, "f.txt".into(), new, Some(true), None).unwrap_err();
    assert!(
        error.to_string().contains(
            "the approved hunks would make `f.txt` 104 bytes; files are limited to 100 bytes"
        ),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        old
    );
}

#[tokio::test]
async fn a_preview_of_a_file_that_cannot_be_shown_never_says_create() {
    let setup = setup(|_, _| ApprovalDecision::Denied {
        reason: "no".into(),
    });
    std::fs::write(setup.dir.path().join("data.bin"), [0xff, 0xfe, 0, 1]).unwrap();
    let call = |overwrite: bool| {
        ToolCall::new(
            "b",
            "write_file",
            json!({"path": "data.bin", "content": "x", "overwrite": overwrite}),
        )
    };
    setup.executor.execute(call(true)).await;
    setup.executor.execute(call(false)).await;
    let asked = setup.asked.lock().unwrap().clone();
    let previews: Vec<&str> = asked.iter().filter_map(|r| r.preview.as_deref()).collect();
    assert!(
        previews[0].starts_with("REPLACE the existing file `data.bin` with new content (1 byte, 1 line); its current content cannot be shown: `data.bin` is not UTF-8 text"),
        "{}",
        previews[0]
    );
    assert!(
        previews[1].contains("exists and `overwrite` is not true"),
        "{}",
        previews[1]
    );
    assert!(asked.iter().all(|r| r.change.is_none()));
    assert_eq!(
        std::fs::read(setup.dir.path().join("data.bin")).unwrap(),
        [0xff, 0xfe, 0, 1]
    );
}

#[tokio::test]
async fn modified_arguments_run_as_a_new_call_without_the_old_hunks() {
    let setup = setup(|_, _| ApprovalDecision::Modified {
        arguments: json!({"path": "notes.txt", "content": "short\n", "overwrite": true}),
    });
    let result = setup.write().await;
    assert!(result.success, "{result:?}");
    assert!(result.metadata.hunks.is_none());
    assert_eq!(setup.file(), "short\n");
}

#[tokio::test]
async fn a_deferred_edit_resumes_with_hunks_only_if_the_file_is_as_previewed() {
    let setup = setup(|_, _| ApprovalDecision::Defer);
    let pending = setup.write().await;
    let token = pending.metadata.pending.unwrap().token;
    let waiting = setup.executor.pending_approvals();
    assert_eq!(waiting[0].request.change.as_ref().unwrap().hunks.len(), 3);
    let result = setup.executor.resume(&token, hunks(&[1])).await.unwrap();
    assert!(result.success, "{result:?}");
    assert_eq!(setup.file(), with_changed(&[15]));

    // Deferred again; meanwhile the file changes: the person's decision was about another
    // text, so nothing runs.
    std::fs::write(setup.dir.path().join("notes.txt"), original()).unwrap();
    let pending = setup.write().await;
    let token = pending.metadata.pending.unwrap().token;
    std::fs::write(setup.dir.path().join("notes.txt"), original() + "line 31\n").unwrap();
    let result = setup.executor.resume(&token, hunks(&[0])).await.unwrap();
    assert!(!result.success);
    assert!(
        result
            .content
            .contains("changed since the preview the approver saw"),
        "{}",
        result.content
    );
    assert_eq!(setup.file(), original() + "line 31\n");
}

#[tokio::test]
async fn a_pending_edit_stored_as_json_resumes_with_hunks() {
    let setup = setup(|_, _| ApprovalDecision::Defer);
    let pending = setup.edit().await;
    let token = pending.metadata.pending.unwrap().token;
    let stored = serde_json::to_string(&setup.executor.take_pending(&token).unwrap()).unwrap();
    let back = serde_json::from_str(&stored).unwrap();
    let report = setup
        .executor
        .resume_call(back, hunks(&[0, 2]), toolwright_runtime::CallOptions::new())
        .await
        .unwrap();
    assert!(report.result.success, "{:?}", report.result);
    assert_eq!(setup.file(), with_changed(&[1, 30]));
}

#[tokio::test]
async fn hunks_for_a_call_without_a_change_deny_it() {
    let setup = setup(|_, _| hunks(&[0]));
    // A new file: its preview is a size, not hunks.
    let call = ToolCall::new(
        "n",
        "write_file",
        json!({"path": "new.txt", "content": "x\n"}),
    );
    let result = setup.executor.execute(call).await;
    assert!(!result.success);
    assert!(
        result.content.contains("preview has none"),
        "{}",
        result.content
    );
    assert!(!setup.dir.path().join("new.txt").exists());
}
