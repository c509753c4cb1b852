//! Per-tool approval rules, timeouts and call limits declared on the tool itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use toolwright::SafetyLevel;
use toolwright::runtime::executor::Outcome;
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::tools::{call, executor, runs};

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
