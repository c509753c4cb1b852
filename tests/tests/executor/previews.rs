//! What a person approved is what runs: a preview is computed again once the approver has
//! decided and the call runs only if it is unchanged; hunks can be taken one by one only from
//! a tool that promised to apply the selection (`Preview::hunks`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwright::model::Preview;
use toolwright::model::file_change::FileChange;
use toolwright::runtime::executor::Outcome;
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions};
use toolwright::{Executor, SafetyLevel, Tool, ToolCall, ToolError, ToolRegistry};

/// What the world looks like to the preview: a number another process may change.
struct World(AtomicUsize);

/// How often the tool ran.
struct Runs(AtomicUsize);

/// A dangerous tool whose text preview reads the world, approved by `decide` (which gets the
/// world, to play a second process).
fn executor<F>(preview_as_change: bool, decide: F) -> (Executor, Arc<World>, Arc<Runs>)
where
    F: Fn(&ApprovalRequest, &World) -> ApprovalDecision + Send + Sync + 'static,
{
    let world = Arc::new(World(AtomicUsize::new(1)));
    let runs = Arc::new(Runs(AtomicUsize::new(0)));
    let tool = Tool::builder("reset_world")
        .description("Set the world to zero.")
        .safety(SafetyLevel::Dangerous)
        .input_schema(json!({"type": "object", "properties": {}}))
        .needs_state::<World>()
        .preview(move |ctx, _args| {
            let now = ctx.require_state::<World>()?.0.load(Ordering::SeqCst);
            let preview = if preview_as_change {
                // Shown as a diff, applied whole: the tool ignores any selection.
                Preview::change(FileChange::between(
                    "world",
                    "a\nb\n",
                    &format!("{now}\nb\n"),
                ))
            } else {
                Preview::text(format!("set the world from {now} to 0"))
            };
            Ok::<_, ToolError>(preview)
        })
        .sync_handler(|ctx, _args| -> Result<String, ToolError> {
            ctx.require_state::<Runs>()?
                .0
                .fetch_add(1, Ordering::SeqCst);
            ctx.require_state::<World>()?.0.store(0, Ordering::SeqCst);
            Ok("done".into())
        })
        .build()
        .unwrap();
    let registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let decide = Arc::new(decide);
    let seen = Arc::clone(&world);
    let executor = Executor::builder(Arc::new(registry))
        .shared_state(Arc::clone(&world))
        .shared_state(Arc::clone(&runs))
        .approval(move |request: ApprovalRequest| {
            let (decide, world) = (Arc::clone(&decide), Arc::clone(&seen));
            async move { decide(&request, &world) }
        })
        .build();
    (executor, world, runs)
}

fn call() -> ToolCall {
    ToolCall::new("1", "reset_world", json!({}))
}

#[tokio::test]
async fn a_preview_that_changed_while_the_person_decided_runs_nothing() {
    let (executor, world, runs) = executor(false, |request, world| {
        assert_eq!(
            request.preview.as_deref(),
            Some("set the world from 1 to 0")
        );
        world.0.store(7, Ordering::SeqCst); // meanwhile, elsewhere
        ApprovalDecision::Approved
    });
    let report = executor.execute_with(call(), CallOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Failure, "{:?}", report.result);
    assert!(
        report
            .result
            .content
            .contains("changed since the preview the approver saw"),
        "{}",
        report.result.content
    );
    assert_eq!(runs.0.load(Ordering::SeqCst), 0);
    assert_eq!(world.0.load(Ordering::SeqCst), 7);

    // Unchanged: it runs.
    let (executor, world, runs) = executor_approving();
    assert!(executor.execute(call()).await.success);
    assert_eq!(runs.0.load(Ordering::SeqCst), 1);
    assert_eq!(world.0.load(Ordering::SeqCst), 0);
}

fn executor_approving() -> (Executor, Arc<World>, Arc<Runs>) {
    executor(false, |_, _| ApprovalDecision::Approved)
}

#[tokio::test]
async fn a_deferred_call_whose_preview_changed_runs_nothing() {
    let (executor, world, runs) = executor(false, |_, _| ApprovalDecision::Defer);
    let pending = executor.execute(call()).await;
    let token = pending.metadata.pending.unwrap().token;
    world.0.store(9, Ordering::SeqCst);
    let result = executor
        .resume(&token, ApprovalDecision::Approved)
        .await
        .unwrap();
    assert!(!result.success);
    assert!(
        result
            .content
            .contains("changed since the preview the approver saw"),
        "{}",
        result.content
    );
    assert_eq!(runs.0.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn hunks_are_offered_only_by_a_tool_that_applies_them() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let (executor, _, runs) = executor(true, move |request, _| {
        seen.lock().unwrap().push(request.clone());
        ApprovalDecision::ApprovedHunks { hunks: vec![0] }
    });
    let report = executor.execute_with(call(), CallOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Denied, "{:?}", report.result);
    assert_eq!(runs.0.load(Ordering::SeqCst), 0);
    let asked = asked.lock().unwrap();
    // The diff is shown; the hunks are not offered.
    assert!(asked[0].preview.as_deref().unwrap().contains("-a\n+1"));
    assert!(asked[0].change.is_none());
}

/// A document the person edits hunk by hunk, and whether the tool's rule asks about edits.
struct Doc {
    text: Mutex<String>,
    ask: std::sync::atomic::AtomicBool,
}

#[tokio::test]
async fn a_resumed_decision_applies_even_if_the_rule_would_no_longer_ask() {
    let old: String = (1..=20).map(|n| format!("line {n}\n")).collect();
    let new = old
        .replace("line 1\n", "LINE 1\n")
        .replace("line 20\n", "LINE 20\n");
    let doc = Arc::new(Doc {
        text: Mutex::new(old.clone()),
        ask: std::sync::atomic::AtomicBool::new(true),
    });
    let tool = Tool::builder("set_doc")
        .description("Replace the document.")
        .safety(SafetyLevel::Cautious)
        .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
        .needs_state::<Doc>()
        .approval(|ctx, _| {
            let ask = ctx.require_state::<Doc>()?.ask.load(Ordering::SeqCst);
            Ok(if ask {
                toolwright::model::ApprovalNeed::Required
            } else {
                toolwright::model::ApprovalNeed::NotRequired
            })
        })
        .preview(|ctx, args| {
            let old = ctx.require_state::<Doc>()?.text.lock().unwrap().clone();
            let new = args["text"].as_str().unwrap_or_default();
            Ok::<_, ToolError>(Preview::hunks(FileChange::between("doc", &old, new)))
        })
        .sync_handler(|ctx, args| -> Result<String, ToolError> {
            let doc = ctx.require_state::<Doc>()?;
            let mut text = doc.text.lock().unwrap();
            *text = match ctx.approved_change() {
                Some(approved) => approved.apply(&text)?,
                None => args["text"].as_str().unwrap_or_default().to_owned(),
            };
            Ok("written".into())
        })
        .build()
        .unwrap();
    let registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let executor = Executor::builder(Arc::new(registry))
        .shared_state(Arc::clone(&doc))
        .approval(|_: ApprovalRequest| async { ApprovalDecision::Defer })
        .build();
    let pending = executor
        .execute(ToolCall::new("1", "set_doc", json!({"text": new})))
        .await;
    let token = pending.metadata.pending.unwrap().token;
    // The rule changes its mind (a configuration reloaded) before the person answers.
    doc.ask.store(false, Ordering::SeqCst);
    let result = executor
        .resume(&token, ApprovalDecision::ApprovedHunks { hunks: vec![0] })
        .await
        .unwrap();
    assert!(result.success, "{result:?}");
    assert_eq!(
        *doc.text.lock().unwrap(),
        old.replace("line 1\n", "LINE 1\n")
    );
}
