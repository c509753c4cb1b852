//! Deferred approvals: a call left pending, resumed (approved, modified or denied) on this
//! executor or another sharing its key, never forged, replayed or unbounded.

use std::time::Duration;

use serde_json::json;
use toolwright::SafetyLevel;
use toolwright::runtime::executor::{CallVerdict, Outcome, PendingCall, ResumeError};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::contract::assert_contract_result;
use crate::tools::{call, executor, guard, runs};

fn deferring() -> toolwright::runtime::ExecutorBuilder {
    executor().approval(|_: ApprovalRequest| std::future::ready(ApprovalDecision::Defer))
}

#[tokio::test]
async fn a_deferred_call_is_pending_then_runs_once_with_its_id() {
    let executor = deferring().build();
    let report = executor
        .execute_with(
            call(
                "call-9",
                "wipe_path",
                json!({"key": "defer-run", "path": "a", "token": "k"}),
            ),
            CallOptions::new(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Pending);
    assert_eq!(runs("defer-run"), 0);
    assert_contract_result(&report.result);
    let pending = report.result.metadata.pending.clone().unwrap();
    assert_eq!(pending.token.len(), 32);
    assert!(
        !report.result.content.contains(&pending.token),
        "the model is not given the token: {}",
        report.result.content
    );
    assert!(
        report
            .result
            .content
            .contains("waiting for a person's approval")
    );

    let waiting = executor.pending_approvals();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].request.arguments["token"], "[redacted]");

    let done = executor
        .resume(&pending.token, ApprovalDecision::Approved)
        .await
        .unwrap();
    assert_eq!(done.id, "call-9");
    assert_eq!(done.content, "wiped a with k");
    assert_eq!(done.metadata.approved, Some(true));
    assert_eq!(runs("defer-run"), 1);
    assert!(executor.pending_approvals().is_empty());
    // A token runs once.
    assert_eq!(
        executor
            .resume(&pending.token, ApprovalDecision::Approved)
            .await
            .unwrap_err(),
        ResumeError::UnknownToken
    );
    assert_eq!(runs("defer-run"), 1);
}

#[tokio::test]
async fn a_resumed_call_may_be_modified_or_denied_and_is_checked_again() {
    let executor = deferring().build();
    let token = |result: toolwright::ToolResult| result.metadata.pending.unwrap().token;
    let first = executor
        .execute(call(
            "1",
            "wipe_path",
            json!({"key": "defer-mod", "path": "a"}),
        ))
        .await;
    let modified = executor
        .resume(
            &token(first),
            ApprovalDecision::Modified {
                arguments: json!({"key": "defer-mod", "path": "narrower"}),
            },
        )
        .await
        .unwrap();
    assert_eq!(modified.content, "wiped narrower with ");

    let second = executor
        .execute(call(
            "2",
            "wipe_path",
            json!({"key": "defer-mod", "path": "b"}),
        ))
        .await;
    let bad = executor
        .resume(
            &token(second),
            ApprovalDecision::Modified {
                arguments: json!({"key": "defer-mod", "path": 7}),
            },
        )
        .await
        .unwrap();
    assert!(bad.error.as_deref().unwrap().contains("`path`"), "{bad:?}");

    let third = executor
        .execute(call(
            "3",
            "wipe_path",
            json!({"key": "defer-mod", "path": "c"}),
        ))
        .await;
    let denied = executor
        .resume(
            &token(third),
            ApprovalDecision::Denied {
                reason: "not today".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        denied.error.as_deref(),
        Some("tool `wipe_path` was not run: approval denied (not today)")
    );
    assert_eq!(denied.id, "3");
    assert_contract_result(&denied);
    assert_eq!(runs("defer-mod"), 1);

    // The registry changed meanwhile: the resumed call is refused.
    let fourth = executor
        .execute(call(
            "4",
            "wipe_path",
            json!({"key": "defer-mod", "path": "d"}),
        ))
        .await;
    executor.registry().set_enabled("wipe_path", false).unwrap();
    let refused = executor
        .resume(&token(fourth), ApprovalDecision::Approved)
        .await
        .unwrap();
    executor.registry().set_enabled("wipe_path", true).unwrap();
    assert_eq!(
        refused.error.as_deref(),
        Some("tool `wipe_path` is disabled and cannot be called now")
    );
    assert_eq!(runs("defer-mod"), 1);
}

#[tokio::test]
async fn resuming_keeps_the_callers_ceiling_and_refuses_defer_and_stale_tokens() {
    let executor = deferring().build();
    let pending = executor
        .execute_with(
            call(
                "1",
                "wipe_path",
                json!({"key": "defer-ceiling", "path": "a"}),
            ),
            CallOptions::new(),
        )
        .await
        .result
        .metadata
        .pending
        .unwrap();
    assert_eq!(
        executor
            .resume(&pending.token, ApprovalDecision::Defer)
            .await
            .unwrap_err(),
        ResumeError::DeferredAgain
    );
    assert_eq!(
        executor
            .resume(
                "0123456789abcdef0123456789abcdef",
                ApprovalDecision::Approved
            )
            .await
            .unwrap_err(),
        ResumeError::UnknownToken
    );
    // Resumed under a lower ceiling: refused.
    let report = executor
        .resume_with(
            &pending.token,
            ApprovalDecision::Approved,
            CallOptions::new().max_safety(SafetyLevel::Cautious),
        )
        .await
        .unwrap();
    assert_eq!(report.outcome, Outcome::Denied);
    assert_eq!(runs("defer-ceiling"), 0);

    // Expired: refused, without running.
    let executor = deferring().pending_approval_ttl(Duration::ZERO).build();
    let pending = executor
        .execute(call(
            "2",
            "wipe_path",
            json!({"key": "defer-ceiling", "path": "a"}),
        ))
        .await
        .metadata
        .pending
        .unwrap();
    assert!(executor.pending_approvals().is_empty());
    let taken = executor.take_pending(&pending.token).unwrap();
    let error = executor
        .resume_call(taken, ApprovalDecision::Approved, CallOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ResumeError::Expired { ref call_id, .. } if call_id == "2"));
    assert_eq!(runs("defer-ceiling"), 0);
}

/// The key replicas share (in practice: 32 random bytes from a secret store).
const SHARED_KEY: [u8; 32] = *b"replicas share this 32-byte key!";

#[tokio::test]
async fn a_pending_call_round_trips_through_json_to_another_executor() {
    let executor = deferring().pending_key(SHARED_KEY).build();
    let pending = executor
        .execute(call(
            "c-42",
            "wipe_path",
            json!({"key": "defer-json", "path": "p", "token": "t"}),
        ))
        .await
        .metadata
        .pending
        .unwrap();
    let stored = serde_json::to_string(&executor.take_pending(&pending.token).unwrap()).unwrap();
    assert!(executor.pending_approvals().is_empty());
    // Another executor with the same key (another replica, or after a restart) runs it.
    let elsewhere = crate::tools::executor().pending_key(SHARED_KEY).build();
    let waiting: PendingCall = serde_json::from_str(&stored).unwrap();
    assert_eq!(waiting.call.id, "c-42");
    let report = elsewhere
        .resume_call(waiting, ApprovalDecision::Approved, CallOptions::new())
        .await
        .unwrap();
    assert_eq!(report.result.id, "c-42");
    assert_eq!(report.result.content, "wiped p with t");
    assert_eq!(runs("defer-json"), 1);
}

/// A stored call edited on the way (its arguments, its id, what the person saw, its expiry),
/// one signed with another key, and one resumed twice are refused without running; the
/// honest one runs once.
#[tokio::test]
async fn forged_foreign_and_replayed_pending_calls_are_refused() {
    let executor = deferring().pending_key(SHARED_KEY).build();
    let pending = executor
        .execute(call(
            "c-7",
            "wipe_path",
            json!({"key": "defer-forged", "path": "tmp/cache"}),
        ))
        .await
        .metadata
        .pending
        .unwrap();
    let honest = executor.take_pending(&pending.token).unwrap();
    let stored = serde_json::to_string(&honest).unwrap();
    let read = || serde_json::from_str::<PendingCall>(&stored).unwrap();
    let resume = |pending: PendingCall, executor: &toolwright::Executor| {
        let executor = executor.clone();
        async move {
            executor
                .resume_call(pending, ApprovalDecision::Approved, CallOptions::new())
                .await
        }
    };

    // Forged: edited arguments, in Rust or in the stored JSON.
    let mut forged = read();
    forged.call.arguments["path"] = json!("/");
    let error = resume(forged, &executor).await.unwrap_err();
    assert!(
        matches!(error, ResumeError::Unverified { ref call_id } if call_id == "c-7"),
        "{error:?}"
    );
    assert!(error.to_string().contains("pending_key"), "{error}");
    let edited: PendingCall = serde_json::from_str(&stored.replace("tmp/cache", "home")).unwrap();
    assert!(matches!(
        resume(edited, &executor).await,
        Err(ResumeError::Unverified { .. })
    ));
    for edit in [
        (|p: &mut PendingCall| p.call.id = "c-8".into()) as fn(&mut PendingCall),
        |p| p.request.preview = Some("nothing to see".into()),
        |p| p.expires_at = jiff::Timestamp::MAX,
        |p| p.max_safety = Some(toolwright::SafetyLevel::Safe),
        |p| p.mac.clear(),
    ] {
        let mut forged = read();
        edit(&mut forged);
        assert!(matches!(
            resume(forged, &executor).await,
            Err(ResumeError::Unverified { .. })
        ));
    }
    // Signed with another key: another executor's own, or a made-up one.
    let other = crate::tools::executor().pending_key([9u8; 32]).build();
    assert!(matches!(
        resume(read(), &other).await,
        Err(ResumeError::Unverified { .. })
    ));
    let by_default = crate::tools::executor().build();
    assert!(matches!(
        resume(read(), &by_default).await,
        Err(ResumeError::Unverified { .. })
    ));
    assert_eq!(runs("defer-forged"), 0, "nothing forged ran");

    // The honest one runs, once.
    let report = resume(read(), &executor).await.unwrap();
    assert_eq!(report.result.id, "c-7");
    assert!(report.result.success, "{:?}", report.result);
    assert_eq!(runs("defer-forged"), 1);
    // Replayed, here or by another executor of the process with the key: refused.
    for again in [
        &executor,
        &crate::tools::executor().pending_key(SHARED_KEY).build(),
    ] {
        let error = resume(read(), again).await.unwrap_err();
        assert!(
            matches!(error, ResumeError::AlreadyResumed { ref call_id } if call_id == "c-7"),
            "{error:?}"
        );
    }
    assert_eq!(runs("defer-forged"), 1, "the replay did not run");
}

#[tokio::test]
async fn a_short_pending_key_is_a_build_error() {
    let error = executor()
        .pending_key(b"too short")
        .try_build()
        .unwrap_err();
    assert!(
        matches!(
            error,
            toolwright::runtime::executor::ExecutorBuildError::ShortPendingKey { len: 9 }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("at least 32"), "{error}");
}

#[tokio::test]
async fn guardrail_rewrites_are_applied_once_to_a_resumed_call() {
    let executor = deferring()
        .guardrail(guard(|call| {
            let mut arguments = call.arguments.clone();
            let path = arguments["path"].as_str().unwrap_or_default().to_owned();
            arguments["path"] = json!(format!("sandbox/{path}"));
            CallVerdict::Rewrite { arguments }
        }))
        .build();
    let pending = executor
        .execute(call(
            "1",
            "wipe_path",
            json!({"key": "defer-guard", "path": "a"}),
        ))
        .await
        .metadata
        .pending
        .unwrap();
    assert_eq!(
        executor.pending_approvals()[0].request.arguments["path"],
        "sandbox/a",
        "the person sees what will run"
    );
    let done = executor
        .resume(&pending.token, ApprovalDecision::Approved)
        .await
        .unwrap();
    assert_eq!(done.content, "wiped sandbox/a with ");
}

#[tokio::test]
async fn the_number_of_waiting_calls_is_bounded() {
    let executor = deferring().max_pending_approvals(2).build();
    let mut outcomes = Vec::new();
    for i in 0..3 {
        let report = executor
            .execute_with(
                call(
                    &format!("{i}"),
                    "wipe_path",
                    json!({"key": "defer-bound", "path": "a"}),
                ),
                CallOptions::new(),
            )
            .await;
        outcomes.push(report.outcome);
    }
    assert_eq!(
        outcomes,
        [Outcome::Pending, Outcome::Pending, Outcome::Denied]
    );
    assert_eq!(executor.pending_approvals().len(), 2);
}
