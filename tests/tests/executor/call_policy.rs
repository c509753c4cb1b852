//! Call policy beyond safety levels: the tools offered per request, guardrails, deferred
//! approvals, per-tool call limits and timeouts.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwright::SafetyLevel;
use toolwright::model::{BoxFuture, ToolOutput};
use toolwright::runtime::executor::{
    CallCounts, CallVerdict, GuardedCall, Guardrail, Outcome, OutputVerdict, PendingCall,
    ResumeError,
};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions, ToolFilter};

use crate::contract::assert_contract_result;
use crate::tools::{approve_all, call, executor, runs};

// ---- the tools offered per request

#[tokio::test]
async fn a_tool_not_offered_is_unknown_whatever_the_registry_holds() {
    let executor = executor().approval(approve_all()).build();
    let offered = CallOptions::new().allowed_tools(ToolFilter::new().names(["read_number"]));
    let report = executor
        .execute_with(
            call(
                "1",
                "wipe_path",
                json!({"key": "offered-wipe", "path": "/"}),
            ),
            offered.clone(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::UnknownTool);
    assert_eq!(
        report.result.error.as_deref(),
        Some("unknown tool `wipe_path`; available tools: `read_number`")
    );
    assert_eq!(runs("offered-wipe"), 0);
    assert_contract_result(&report.result);

    // A near miss is suggested only among the offered tools.
    let report = executor
        .execute_with(
            call("2", "read_numbr", json!({"key": "offered-near", "n": 1})),
            offered.clone(),
        )
        .await;
    assert_eq!(
        report.result.error.as_deref(),
        Some("unknown tool `read_numbr`; did you mean `read_number`?")
    );
    let report = executor
        .execute_with(
            call("3", "wipe_pth", json!({"key": "offered-near", "path": "/"})),
            offered.clone(),
        )
        .await;
    assert!(
        !report
            .result
            .error
            .as_deref()
            .unwrap()
            .contains("wipe_path"),
        "a tool not offered is never named: {:?}",
        report.result.error
    );

    // The offered tool runs.
    let report = executor
        .execute_with(
            call("4", "read_number", json!({"key": "offered-ok", "n": 5})),
            offered,
        )
        .await;
    assert_eq!(report.result.content, "5");
}

#[tokio::test]
async fn a_filter_by_category_or_safety_is_an_offered_set_too() {
    let executor = executor().approval(approve_all()).build();
    let safe_only =
        CallOptions::new().allowed_tools(ToolFilter::new().max_safety(SafetyLevel::Safe));
    let report = executor
        .execute_with(
            call(
                "1",
                "change_setting",
                json!({"key": "offered-cat", "value": 1}),
            ),
            safe_only,
        )
        .await;
    assert_eq!(report.outcome, Outcome::UnknownTool);
    let danger = CallOptions::new().allowed_tools(ToolFilter::new().categories(["danger"]));
    let report = executor
        .execute_with(
            call("2", "wipe_path", json!({"key": "offered-cat", "path": "x"})),
            danger,
        )
        .await;
    assert!(report.result.success, "{:?}", report.result);
    assert_eq!(runs("offered-cat"), 1);
}

#[tokio::test]
async fn a_turn_of_calls_keeps_to_the_offered_set() {
    let executor = executor().build();
    let turn = CallOptions::new().allowed_tools(ToolFilter::new().names(["read_number"]));
    let results = executor
        .execute_batch(
            vec![
                call("a", "read_number", json!({"key": "offered-turn", "n": 1})),
                call(
                    "b",
                    "change_setting",
                    json!({"key": "offered-turn", "value": 2}),
                ),
                call("c", "read_number", json!({"key": "offered-turn", "n": 3})),
            ],
            turn,
        )
        .await;
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert!(results[0].success && results[2].success);
    assert!(
        results[1]
            .error
            .as_deref()
            .unwrap()
            .starts_with("unknown tool `change_setting`")
    );
    assert_eq!(runs("offered-turn"), 2);
}

// ---- guardrails

/// A guardrail built from closures, recording what it saw.
struct Rule<C, O> {
    call: C,
    output: O,
    seen: Arc<AtomicUsize>,
}

fn guard(
    call: impl Fn(&GuardedCall) -> CallVerdict + Send + Sync + 'static,
) -> Rule<impl Fn(&GuardedCall) -> CallVerdict, impl Fn(&ToolOutput) -> OutputVerdict> {
    Rule {
        call,
        output: |_: &ToolOutput| OutputVerdict::Keep,
        seen: Arc::default(),
    }
}

fn guard_output(
    output: impl Fn(&ToolOutput) -> OutputVerdict + Send + Sync + 'static,
) -> Rule<impl Fn(&GuardedCall) -> CallVerdict, impl Fn(&ToolOutput) -> OutputVerdict> {
    Rule {
        call: |_: &GuardedCall| CallVerdict::Allow,
        output,
        seen: Arc::default(),
    }
}

impl<C, O> Guardrail for Rule<C, O>
where
    C: Fn(&GuardedCall) -> CallVerdict + Send + Sync + 'static,
    O: Fn(&ToolOutput) -> OutputVerdict + Send + Sync + 'static,
{
    fn check_call(&self, call: GuardedCall) -> BoxFuture<CallVerdict> {
        self.seen.fetch_add(1, Ordering::SeqCst);
        let verdict = (self.call)(&call);
        Box::pin(async move { verdict })
    }

    fn check_output(&self, _call: GuardedCall, output: ToolOutput) -> BoxFuture<OutputVerdict> {
        let verdict = (self.output)(&output);
        Box::pin(async move { verdict })
    }
}

#[tokio::test]
async fn a_guardrail_denies_and_the_tool_does_not_run() {
    let executor = executor()
        .guardrail(guard(|call| {
            if call.arguments["n"] == 13 {
                CallVerdict::Deny {
                    reason: "13 is unlucky".into(),
                }
            } else {
                CallVerdict::Allow
            }
        }))
        .build();
    let report = executor
        .execute_with(
            call("1", "read_number", json!({"key": "guard-deny", "n": 13})),
            CallOptions::new(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Denied);
    assert_eq!(
        report.result.error.as_deref(),
        Some("tool `read_number` was not run: 13 is unlucky")
    );
    assert_eq!(report.result.metadata.approved, Some(false));
    assert_eq!(runs("guard-deny"), 0);
    let ok = executor
        .execute(call(
            "2",
            "read_number",
            json!({"key": "guard-deny", "n": 12}),
        ))
        .await;
    assert_eq!(ok.content, "12");
}

#[tokio::test]
async fn rewritten_arguments_are_what_the_approver_sees_and_are_read_again() {
    let asked = Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let asked_by_approver = Arc::clone(&asked);
    let executor = executor()
        .guardrail(guard(|call| {
            let mut arguments = call.arguments.clone();
            let path = arguments["path"].as_str().unwrap_or_default().to_owned();
            arguments["path"] = json!(format!("sandbox/{path}"));
            CallVerdict::Rewrite { arguments }
        }))
        .approval(move |request: ApprovalRequest| {
            asked_by_approver
                .lock()
                .unwrap()
                .push(request.arguments.clone());
            std::future::ready(ApprovalDecision::Approved)
        })
        .build();
    let result = executor
        .execute(call(
            "1",
            "wipe_path",
            json!({"key": "guard-rewrite", "path": "tmp", "token": "s3cret"}),
        ))
        .await;
    assert_eq!(result.content, "wiped sandbox/tmp with s3cret");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked[0]["path"], "sandbox/tmp");
    assert_eq!(
        asked[0]["token"], "[redacted]",
        "secrets stay redacted for the approver"
    );

    // A rewrite the tool cannot read fails like a model's bad arguments would.
    let executor = crate::tools::executor()
        .guardrail(guard(|_| CallVerdict::Rewrite {
            arguments: json!({"key": "guard-rewrite-bad", "n": "not a number"}),
        }))
        .build();
    let result = executor
        .execute(call(
            "2",
            "read_number",
            json!({"key": "guard-rewrite-bad", "n": 1}),
        ))
        .await;
    assert!(!result.success);
    assert!(
        result.error.as_deref().unwrap().contains("`n`"),
        "{result:?}"
    );
    assert_eq!(runs("guard-rewrite-bad"), 0);

    // Not an object: denied.
    let executor = crate::tools::executor()
        .guardrail(guard(|_| CallVerdict::Rewrite {
            arguments: json!([1, 2]),
        }))
        .build();
    let result = executor
        .execute(call(
            "3",
            "read_number",
            json!({"key": "guard-rewrite-bad", "n": 1}),
        ))
        .await;
    assert_eq!(
        result.error.as_deref(),
        Some(
            "tool `read_number` was not run: a guardrail's rewritten arguments are not a JSON object"
        )
    );
}

#[tokio::test]
async fn guardrails_run_in_order_and_the_first_denial_stops_the_rest() {
    let first = guard(|call| {
        let mut arguments = call.arguments.clone();
        arguments["n"] = json!(arguments["n"].as_i64().unwrap_or(0) + 1);
        CallVerdict::Rewrite { arguments }
    });
    let second = guard(|call| {
        if call.arguments["n"] == 2 {
            CallVerdict::Deny {
                reason: "saw the first one's rewrite".into(),
            }
        } else {
            CallVerdict::Allow
        }
    });
    let third = guard(|_| CallVerdict::Allow);
    let third_seen = Arc::clone(&third.seen);
    let executor = executor()
        .guardrail(first)
        .guardrail(second)
        .guardrail(third)
        .build();
    let denied = executor
        .execute(call(
            "1",
            "read_number",
            json!({"key": "guard-order", "n": 1}),
        ))
        .await;
    assert_eq!(
        denied.error.as_deref(),
        Some("tool `read_number` was not run: saw the first one's rewrite")
    );
    assert_eq!(third_seen.load(Ordering::SeqCst), 0);
    let ran = executor
        .execute(call(
            "2",
            "read_number",
            json!({"key": "guard-order", "n": 5}),
        ))
        .await;
    assert_eq!(ran.content, "6");
    assert_eq!(third_seen.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_panicking_guardrail_denies() {
    let executor = executor()
        .guardrail(guard(|_| panic!("the guardrail broke")))
        .build();
    let result = executor
        .execute(call(
            "1",
            "read_number",
            json!({"key": "guard-panic", "n": 1}),
        ))
        .await;
    assert_eq!(
        result.error.as_deref(),
        Some("tool `read_number` was not run: a guardrail failed")
    );
    assert_eq!(runs("guard-panic"), 0);

    let executor = crate::tools::executor()
        .guardrail(guard_output(|_| panic!("the output guardrail broke")))
        .build();
    let report = executor
        .execute_with(
            call(
                "2",
                "read_number",
                json!({"key": "guard-panic-out", "n": 1}),
            ),
            CallOptions::new(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Denied);
    assert_eq!(
        report.result.error.as_deref(),
        Some("tool `read_number` ran, but its output was withheld: a guardrail failed")
    );
    assert_eq!(
        runs("guard-panic-out"),
        1,
        "it ran; only its output was withheld"
    );
    assert_eq!(report.result.metadata.approved, Some(true));
}

#[tokio::test]
async fn output_guardrails_replace_or_withhold_before_the_model_sees_it() {
    let executor = executor()
        .guardrail(guard_output(|output| {
            OutputVerdict::Replace(ToolOutput::text(output.content.replace('4', "[digit]")))
        }))
        .build();
    let result = executor
        .execute(call(
            "1",
            "read_number",
            json!({"key": "guard-out", "n": 42}),
        ))
        .await;
    assert_eq!(result.content, "[digit]2");

    let executor = crate::tools::executor()
        .guardrail(guard_output(|_| OutputVerdict::Withhold {
            reason: "it held a secret".into(),
        }))
        .build();
    let result = executor
        .execute(call(
            "2",
            "read_number",
            json!({"key": "guard-out", "n": 42}),
        ))
        .await;
    assert_eq!(
        result.error.as_deref(),
        Some("tool `read_number` ran, but its output was withheld: it held a secret")
    );
    assert!(!result.content.contains("42"));
    assert_contract_result(&result);

    // A replacement is held to the output size limit.
    let executor = crate::tools::executor()
        .max_output_bytes(10)
        .guardrail(guard_output(|_| {
            OutputVerdict::Replace(ToolOutput::text("x".repeat(100)))
        }))
        .build();
    let result = executor
        .execute(call(
            "3",
            "read_number",
            json!({"key": "guard-out", "n": 1}),
        ))
        .await;
    assert!(
        result
            .error
            .as_deref()
            .unwrap()
            .contains("above this executor's limit")
    );
}

// ---- deferred approvals

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

// ---- per-tool call limits and timeouts

#[tokio::test]
async fn call_limits_count_runs_per_executor_or_per_session() {
    let executor = executor().max_calls("read_number", 2).build();
    let read = |id: &str| call(id, "read_number", json!({"key": "limit-exec", "n": 1}));
    assert!(executor.execute(read("1")).await.success);
    assert!(executor.execute(read("2")).await.success);
    let refused = executor.execute_with(read("3"), CallOptions::new()).await;
    assert_eq!(refused.outcome, Outcome::Denied);
    assert_eq!(
        refused.result.error.as_deref(),
        Some(
            "tool `read_number` was not run: it may run at most 2 times per executor and has run 2 times; go on without it"
        )
    );
    assert_eq!(runs("limit-exec"), 2);

    // Each session counts on its own.
    let (first, second) = (Arc::new(CallCounts::new()), Arc::new(CallCounts::new()));
    let in_session = |counts: &Arc<CallCounts>| CallOptions::new().call_counts(Arc::clone(counts));
    for id in ["a", "b"] {
        assert!(
            executor
                .execute_with(read(id), in_session(&first))
                .await
                .result
                .success
        );
    }
    let refused = executor
        .execute_with(read("c"), in_session(&first))
        .await
        .result;
    assert!(refused.error.as_deref().unwrap().contains("per session"));
    assert!(
        executor
            .execute_with(read("d"), in_session(&second))
            .await
            .result
            .success
    );
    assert_eq!(
        (first.count("read_number"), second.count("read_number")),
        (2, 1)
    );
}

#[tokio::test]
async fn refused_calls_do_not_use_up_the_limit() {
    let executor = executor()
        .max_calls("wipe_path", 1)
        .approval(|request: ApprovalRequest| {
            std::future::ready(if request.arguments["path"] == "/" {
                ApprovalDecision::Denied {
                    reason: "no".into(),
                }
            } else {
                ApprovalDecision::Approved
            })
        })
        .build();
    for path in ["/", "/", "tmp"] {
        executor
            .execute(call(
                "1",
                "wipe_path",
                json!({"key": "limit-refused", "path": path}),
            ))
            .await;
    }
    assert_eq!(runs("limit-refused"), 1);
}

#[tokio::test]
async fn concurrent_calls_never_overshoot_a_limit() {
    let executor = executor().max_calls("read_number", 5).build();
    let calls = (0..40)
        .map(|i| {
            call(
                &format!("{i}"),
                "read_number",
                json!({"key": "limit-race", "n": i}),
            )
        })
        .collect();
    let results = executor.execute_batch(calls, CallOptions::new()).await;
    assert_eq!(results.iter().filter(|r| r.success).count(), 5);
    assert_eq!(runs("limit-race"), 5);
}

#[tokio::test]
async fn the_smallest_timeout_applies() {
    // The executor's is small, the call's large: the executor's wins.
    let executor = executor().timeout(Duration::from_millis(50)).build();
    let result = executor
        .execute_with(
            call("1", "hang_forever", json!({"key": "timeout-min"})),
            CallOptions::new().timeout(Duration::from_secs(3600)),
        )
        .await
        .result;
    assert!(
        result
            .error
            .as_deref()
            .unwrap()
            .contains("timed out after 50 ms"),
        "{result:?}"
    );
    // The call's is smaller: it wins.
    let executor = crate::tools::executor()
        .timeout(Duration::from_secs(3600))
        .build();
    let result = executor
        .execute_with(
            call("2", "hang_forever", json!({"key": "timeout-min"})),
            CallOptions::new().timeout(Duration::from_millis(50)),
        )
        .await
        .result;
    assert!(
        result
            .error
            .as_deref()
            .unwrap()
            .contains("timed out after 50 ms"),
        "{result:?}"
    );
}

// ---- per-tool approval rules, timeouts and limits declared on the tool

/// Move money; asked about only above 100.
#[toolwright::tool(approval = large_amounts)]
fn pay_out(key: String, amount: u32) -> String {
    crate::tools::count_run(&key);
    format!("paid {amount}")
}

fn large_amounts(
    _ctx: &toolwright::ToolContext,
    _key: &str,
    amount: &u32,
) -> toolwright::model::ApprovalNeed {
    if *amount > 100 {
        toolwright::model::ApprovalNeed::Required
    } else {
        toolwright::model::ApprovalNeed::NotRequired
    }
}

/// Remove a scratch file; needs no approval inside scratch/, though dangerous.
#[toolwright::tool(safety = "dangerous", approval = scratch_is_free)]
fn remove_scratch(key: String, path: String) -> String {
    crate::tools::count_run(&key);
    format!("removed {path}")
}

fn scratch_is_free(
    _ctx: &toolwright::ToolContext,
    _key: &str,
    path: &str,
) -> Result<toolwright::model::ApprovalNeed, toolwright::ToolError> {
    if path.contains("panic") {
        panic!("the rule broke");
    }
    if path.is_empty() {
        return Err(toolwright::ToolError::new("`path` is empty"));
    }
    Ok(if path.starts_with("scratch/") && !path.contains("..") {
        toolwright::model::ApprovalNeed::NotRequired
    } else {
        toolwright::model::ApprovalNeed::Required
    })
}

/// Wait forever, but the tool says 50 ms at most.
#[toolwright::tool(timeout = "50ms")]
async fn short_fuse(key: String) -> String {
    crate::tools::count_run(&key);
    std::future::pending::<()>().await;
    String::new()
}

/// Ring once per executor.
#[toolwright::tool(max_calls = 1)]
fn ring_once(key: String) -> String {
    crate::tools::count_run(&key);
    "ring".into()
}

#[tokio::test]
async fn a_rule_asks_about_a_safe_tool_and_frees_a_dangerous_one() {
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let executor = executor()
        .approval(move |request: ApprovalRequest| {
            counter.fetch_add(1, Ordering::SeqCst);
            std::future::ready(if request.arguments["amount"] == 1000 {
                ApprovalDecision::Denied {
                    reason: "too much".into(),
                }
            } else {
                ApprovalDecision::Approved
            })
        })
        .build();
    let pay =
        |id: &str, amount: u32| call(id, "pay_out", json!({"key": "rule-pay", "amount": amount}));
    assert!(executor.execute(pay("1", 5)).await.success);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "small amounts are not asked about"
    );
    assert!(executor.execute(pay("2", 500)).await.success);
    let denied = executor.execute(pay("3", 1000)).await;
    assert_eq!(
        denied.error.as_deref(),
        Some("tool `pay_out` was not run: approval denied (too much)")
    );
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert_eq!(runs("rule-pay"), 2);

    // A dangerous tool freed by its rule runs without a handler; elsewhere it is refused.
    let executor = crate::tools::executor().build();
    let remove = |id: &str, path: &str| {
        call(
            id,
            "remove_scratch",
            json!({"key": "rule-scratch", "path": path}),
        )
    };
    assert_eq!(
        executor.execute(remove("1", "scratch/a")).await.content,
        "removed scratch/a"
    );
    let refused = executor.execute(remove("2", "scratch/../src")).await;
    assert!(
        refused.error.as_deref().unwrap().contains("needs approval"),
        "{refused:?}"
    );
    // The ceiling still comes first.
    let capped = crate::tools::executor()
        .max_safety(SafetyLevel::Cautious)
        .build();
    assert!(!capped.execute(remove("3", "scratch/b")).await.success);
    // A rule that fails fails the call; one that panics denies it.
    let failed = executor.execute(remove("4", "")).await;
    assert!(
        failed.error.as_deref().unwrap().contains("`path` is empty"),
        "{failed:?}"
    );
    let crashed = executor
        .execute_with(remove("5", "panic"), CallOptions::new())
        .await;
    assert_eq!(crashed.outcome, Outcome::Denied);
    assert_eq!(
        crashed.result.error.as_deref(),
        Some("tool `remove_scratch` was not run: its approval rule crashed")
    );
    assert_eq!(runs("rule-scratch"), 1);
}

#[tokio::test]
async fn a_tools_own_timeout_and_call_limit_apply() {
    let executor = executor().timeout(Duration::from_secs(3600)).build();
    let result = executor
        .execute(call("1", "short_fuse", json!({"key": "own-timeout"})))
        .await;
    assert!(
        result
            .error
            .as_deref()
            .unwrap()
            .contains("timed out after 50 ms"),
        "{result:?}"
    );

    let ring = |id: &str| call(id, "ring_once", json!({"key": "own-limit"}));
    assert!(executor.execute(ring("1")).await.success);
    assert!(
        executor
            .execute(ring("2"))
            .await
            .error
            .unwrap()
            .contains("at most 1 time per executor")
    );
    // The executor's setting overrides the tool's.
    let more = crate::tools::executor().max_calls("ring_once", 3).build();
    for id in ["a", "b", "c"] {
        assert!(more.execute(ring(id)).await.success);
    }
    assert_eq!(runs("own-limit"), 4);
}
