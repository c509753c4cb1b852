//! Safety policy: safe runs, cautious is logged, dangerous needs an approval that said yes.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwright::SafetyLevel;
use toolwright::runtime::executor::Outcome;
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::tools::{approve_all, call, executor, runs};

#[tokio::test]
async fn safe_tools_run_at_once() {
    let result = executor()
        .build()
        .execute(call("c1", "read_number", json!({"key": "safe-1", "n": 5})))
        .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "5");
    assert_eq!(result.metadata.safety_level, Some(SafetyLevel::Safe));
    assert_eq!(result.metadata.approved, Some(true));
    assert_eq!(runs("safe-1"), 1);
}

#[tokio::test]
async fn dangerous_without_a_handler_is_refused_and_never_runs() {
    let result = executor()
        .build()
        .execute(call("c1", "wipe_path", json!({"key": "noh", "path": "/"})))
        .await;
    assert!(!result.success);
    assert_eq!(result.metadata.approved, Some(false));
    assert_eq!(
        result.error.as_deref(),
        Some(
            "tool `wipe_path` is dangerous and needs approval, but no approval handler is configured; it was not run"
        )
    );
    assert_eq!(runs("noh"), 0);
}

#[tokio::test]
async fn dangerous_runs_when_approved() {
    let executor = executor().approval(approve_all()).build();
    let result = executor
        .execute(call(
            "c1",
            "wipe_path",
            json!({"key": "yes", "path": "tmp"}),
        ))
        .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.metadata.approved, Some(true));
    assert_eq!(result.metadata.safety_level, Some(SafetyLevel::Dangerous));
    assert_eq!(runs("yes"), 1);
}

#[tokio::test]
async fn denial_returns_the_reason_and_never_runs() {
    let executor = executor()
        .approval(|_req: ApprovalRequest| async {
            ApprovalDecision::Denied {
                reason: "not on a Friday".into(),
            }
        })
        .build();
    let result = executor
        .execute(call("c1", "wipe_path", json!({"key": "deny", "path": "/"})))
        .await;
    assert!(!result.success);
    assert_eq!(result.metadata.approved, Some(false));
    assert_eq!(
        result.error.as_deref(),
        Some("tool `wipe_path` was not run: approval denied (not on a Friday)")
    );
    assert_eq!(runs("deny"), 0);
}

#[tokio::test]
async fn above_the_ceiling_is_refused_without_asking_or_running() {
    let asked = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&asked);
    let executor = executor()
        .max_safety(SafetyLevel::Cautious)
        .approval(move |_req: ApprovalRequest| {
            *counter.lock().unwrap() += 1;
            async { ApprovalDecision::Approved }
        })
        .build();
    let result = executor
        .execute(call(
            "c1",
            "wipe_path",
            json!({"key": "ceiling", "path": "/"}),
        ))
        .await;
    assert!(!result.success);
    assert_eq!(
        result.error.as_deref(),
        Some(
            "tool `wipe_path` is dangerous, above this executor's limit of cautious; it was not run"
        )
    );
    assert_eq!(result.metadata.approved, Some(false));
    assert_eq!(runs("ceiling"), 0);
    assert_eq!(*asked.lock().unwrap(), 0);
    // Cautious still runs under a cautious ceiling.
    let ok = executor
        .execute(call(
            "c2",
            "change_setting",
            json!({"key": "ceiling-c", "value": 1}),
        ))
        .await;
    assert!(ok.success);
    assert!(
        executor
            .available_tools()
            .iter()
            .all(|t| t.safety() <= SafetyLevel::Cautious)
    );
}

#[tokio::test]
async fn modified_arguments_run_after_validation() {
    let executor = executor()
        .approval(|req: ApprovalRequest| async move {
            let mut arguments = req.arguments.clone();
            arguments["path"] = json!("tmp/only-this");
            ApprovalDecision::Modified { arguments }
        })
        .build();
    let result = executor
        .execute(call(
            "c1",
            "wipe_path",
            json!({"key": "mod-ok", "path": "/", "token": "s3cret"}),
        ))
        .await;
    assert!(result.success, "{result:?}");
    // The path was changed; the secret, which the approver only saw redacted, kept its value.
    assert_eq!(result.content, "wiped tmp/only-this with s3cret");
    assert_eq!(runs("mod-ok"), 1);
}

#[tokio::test]
async fn modified_arguments_that_fail_validation_never_run() {
    for (key, modified) in [
        ("mod-bad-type", json!({"key": "mod-bad-type", "path": 42})),
        ("mod-missing", json!({"key": "mod-missing"})),
        (
            "mod-unknown",
            json!({"key": "mod-unknown", "path": "x", "force": true}),
        ),
        ("mod-not-object", json!(["mod-not-object"])),
    ] {
        let executor = executor()
            .approval(move |_req: ApprovalRequest| {
                let arguments = modified.clone();
                async move { ApprovalDecision::Modified { arguments } }
            })
            .build();
        let result = executor
            .execute(call("c1", "wipe_path", json!({"key": key, "path": "/"})))
            .await;
        assert!(!result.success, "{key}: {result:?}");
        assert_eq!(runs(key), 0, "{key} ran");
    }
}

#[tokio::test]
async fn approval_requests_carry_tool_safety_redacted_arguments_and_call_id() {
    let seen: Arc<Mutex<Vec<ApprovalRequest>>> = Arc::default();
    let log = Arc::clone(&seen);
    let executor = executor()
        .approval(move |req: ApprovalRequest| {
            log.lock().unwrap().push(req);
            async { ApprovalDecision::Approved }
        })
        .build();
    executor
        .execute(call(
            "call_77",
            "wipe_path",
            json!({"key": "req", "path": "/data", "token": "hunter2"}),
        ))
        .await;
    let seen = seen.lock().unwrap();
    let request = &seen[0];
    assert_eq!(request.call_id, "call_77");
    assert_eq!(request.tool, "wipe_path");
    assert_eq!(request.safety, SafetyLevel::Dangerous);
    assert_eq!(
        request.description,
        "Permanently delete everything under a path."
    );
    assert_eq!(
        request.arguments,
        json!({"key": "req", "path": "/data", "token": "[redacted]"})
    );
    assert!(!serde_json::to_string(request).unwrap().contains("hunter2"));
}

#[tokio::test]
async fn a_panicking_approval_handler_denies() {
    let executor = executor()
        .approval(|_req: ApprovalRequest| async {
            panic!("approval UI crashed");
            #[allow(unreachable_code)]
            ApprovalDecision::Approved
        })
        .build();
    let result = executor
        .execute(call(
            "c1",
            "wipe_path",
            json!({"key": "approval-panic", "path": "/"}),
        ))
        .await;
    assert!(!result.success);
    assert_eq!(result.metadata.approved, Some(false));
    assert_eq!(runs("approval-panic"), 0);
}

#[tokio::test]
async fn a_call_s_own_ceiling_lowers_the_executor_s() {
    let asked = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&asked);
    let executor = executor()
        .approval(move |_req: ApprovalRequest| {
            *counter.lock().unwrap() += 1;
            async { ApprovalDecision::Approved }
        })
        .build();
    let safe_only = || CallOptions::new().max_safety(SafetyLevel::Safe);

    // Above the caller's ceiling: denied, never run, never asked.
    let report = executor
        .execute_with(
            call(
                "c1",
                "change_setting",
                json!({"key": "call-ceiling-c", "value": 1}),
            ),
            safe_only(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Denied);
    assert_eq!(
        report.result.error.as_deref(),
        Some(
            "tool `change_setting` is cautious, above this caller's limit of safe; it was not run"
        )
    );
    assert_eq!(report.result.metadata.approved, Some(false));
    let report = executor
        .execute_with(
            call(
                "c2",
                "wipe_path",
                json!({"key": "call-ceiling-d", "path": "/"}),
            ),
            safe_only(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Denied);
    assert_eq!(runs("call-ceiling-c") + runs("call-ceiling-d"), 0);
    assert_eq!(*asked.lock().unwrap(), 0);
    assert_eq!(executor.metrics().tools["wipe_path"].denials, 1);

    // Under it: runs.
    let report = executor
        .execute_with(
            call(
                "c3",
                "read_number",
                json!({"key": "call-ceiling-s", "n": 1}),
            ),
            safe_only(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Success);
    assert_eq!(runs("call-ceiling-s"), 1);

    // An unknown name is not answered with a tool above the caller's ceiling.
    let report = executor
        .execute_with(call("c4", "wipe_pat", json!({})), safe_only())
        .await;
    assert_eq!(report.outcome, Outcome::UnknownTool);
    let message = report.result.error.unwrap_or_default();
    assert!(!message.contains("wipe_path"), "{message}");
    let report = executor
        .execute_with(call("c5", "wipe_pat", json!({})), CallOptions::new())
        .await;
    let message = report.result.error.unwrap_or_default();
    assert!(message.contains("did you mean `wipe_path`?"), "{message}");
}

#[tokio::test]
async fn a_call_s_ceiling_never_raises_the_executor_s() {
    let executor = executor()
        .max_safety(SafetyLevel::Safe)
        .approval(approve_all())
        .build();
    let report = executor
        .execute_with(
            call(
                "c1",
                "change_setting",
                json!({"key": "call-ceiling-raise", "value": 1}),
            ),
            CallOptions::new().max_safety(SafetyLevel::Dangerous),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Denied);
    assert_eq!(
        report.result.error.as_deref(),
        Some(
            "tool `change_setting` is cautious, above this executor's limit of safe; it was not run"
        )
    );
    assert_eq!(runs("call-ceiling-raise"), 0);
}
