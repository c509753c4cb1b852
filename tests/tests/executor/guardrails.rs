//! Guardrails: checks before a call (deny, rewrite) and on its output (replace, withhold),
//! run in order, a panicking one denying.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};
use toolwright::model::ToolOutput;
use toolwright::runtime::executor::{CallVerdict, Outcome, OutputVerdict};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::contract::assert_contract_result;
use crate::tools::{call, executor, guard, guard_output, runs};

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
