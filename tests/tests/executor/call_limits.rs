//! Per-tool call limits and timeouts set on the executor or the call.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolwright::runtime::executor::{CallCounts, Outcome};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::tools::{call, executor, runs};

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
