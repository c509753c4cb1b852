//! Nested calls (code mode): a tool the operator named calls other tools through the
//! executor with its caller's options; nothing widens on the way in.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwright_core::{CancellationToken, SafetyLevel, Tool, ToolCall};
use toolwright_runtime::{
    ApprovalDecision, ApprovalRequest, CallOptions, Executor, ToolFilter, ToolRegistry,
};

/// Outcomes of the nested calls `outer` made, one line each: `name: ok` or `name: error`.
fn outer() -> Tool {
    Tool::builder("outer")
        .description("Call the named tools.")
        .input_schema(json!({"type": "object", "properties": {"names": {"type": "array"}}}))
        .handler_with_context(|ctx, args| async move {
            let Some(calls) = ctx.nested_calls() else {
                return "no nested calls".to_owned();
            };
            let mut lines = Vec::new();
            for name in args["names"].as_array().into_iter().flatten() {
                let name = name.as_str().unwrap_or_default();
                let result = calls
                    .call(ToolCall::new("forged-id", name, json!({})))
                    .await;
                lines.push(match result.error {
                    None => format!("{name}: {}", result.content),
                    Some(error) => format!("{name}: {error}"),
                });
            }
            lines.join("\n")
        })
        .build()
        .unwrap()
}

fn simple(name: &str, safety: SafetyLevel) -> Tool {
    Tool::builder(name)
        .description("A tool.")
        .safety(safety)
        .handler(|_| async { "ran" })
        .build()
        .unwrap()
}

fn registry(extra: impl IntoIterator<Item = Tool>) -> Arc<ToolRegistry> {
    let registry = ToolRegistry::new();
    registry.register(outer()).unwrap();
    for (name, safety) in [
        ("safe_tool", SafetyLevel::Safe),
        ("cautious_tool", SafetyLevel::Cautious),
        ("danger", SafetyLevel::Dangerous),
        ("hidden", SafetyLevel::Safe),
    ] {
        registry.register(simple(name, safety)).unwrap();
    }
    for tool in extra {
        registry.register(tool).unwrap();
    }
    Arc::new(registry)
}

/// The executor's own handler approves everything: a nested call must use the caller's.
fn executor(registry: Arc<ToolRegistry>, nested: bool) -> Executor {
    let builder = Executor::builder(registry)
        .approval(|_: ApprovalRequest| async { ApprovalDecision::Approved })
        .max_calls("safe_tool", 1);
    if nested {
        builder.nested_calls_for(["outer"])
    } else {
        builder
    }
    .build()
}

async fn call_outer(executor: &Executor, names: Value, options: CallOptions) -> String {
    let report = executor
        .execute_with(
            ToolCall::new("outer-1", "outer", json!({"names": names})),
            options,
        )
        .await;
    assert!(report.result.success, "{:?}", report.result.error);
    report.result.content
}

#[tokio::test]
async fn a_nested_call_keeps_the_callers_ceiling_offer_approver_and_counts() {
    let executor = executor(registry([]), true);
    let asked: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let asked_by = Arc::clone(&asked);
    let options = CallOptions::new()
        .max_safety(SafetyLevel::Cautious)
        .allowed_tools(ToolFilter::new().names(["outer", "safe_tool", "cautious_tool", "danger"]))
        .approval(move |request: ApprovalRequest| {
            asked_by
                .lock()
                .unwrap()
                .push((request.call_id.clone(), request.tool.clone()));
            async {
                ApprovalDecision::Denied {
                    reason: "no".into(),
                }
            }
        });
    let names = json!([
        "safe_tool",
        "safe_tool",
        "cautious_tool",
        "danger",
        "hidden"
    ]);
    let lines = call_outer(&executor, names, options.clone()).await;
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines[0], "safe_tool: ran");
    // The executor's per-tool limit counts nested calls like any other.
    assert!(lines[1].contains("may run at most 1 time"), "{lines:?}");
    assert_eq!(lines[2], "cautious_tool: ran");
    assert!(
        lines[3].contains("above this caller's limit of cautious"),
        "{lines:?}"
    );
    assert!(
        lines[4].starts_with("hidden: unknown tool `hidden`"),
        "{lines:?}"
    );
    // Nothing was dangerous enough to ask about under this ceiling.
    assert!(asked.lock().unwrap().is_empty());

    // Under a dangerous ceiling the caller's own approver is asked (and says no), under an
    // id the executor made from the outer call's, not the one the tool passed.
    let options = options.max_safety(SafetyLevel::Dangerous);
    let lines = call_outer(&executor, json!(["danger"]), options).await;
    assert!(
        lines.starts_with("danger: ") && lines.contains("no"),
        "{lines}"
    );
    assert_eq!(
        *asked.lock().unwrap(),
        [("outer-1.1".to_owned(), "danger".to_owned())]
    );
}

#[tokio::test]
async fn only_the_tools_the_operator_named_get_nested_calls() {
    let lines = call_outer(
        &executor(registry([]), false),
        json!(["safe_tool"]),
        CallOptions::new(),
    )
    .await;
    assert_eq!(lines, "no nested calls");
}

#[tokio::test]
async fn cancelling_the_outer_call_cancels_its_nested_call() {
    let seen: Arc<Mutex<Option<CancellationToken>>> = Arc::default();
    let (started, started_rx) = tokio::sync::oneshot::channel::<()>();
    let started = Arc::new(Mutex::new(Some(started)));
    let seen_by = Arc::clone(&seen);
    let waiter = Tool::builder("waiter")
        .description("Wait to be cancelled.")
        .handler_with_context(move |ctx, _| {
            *seen_by.lock().unwrap() = Some(ctx.cancellation_token().clone());
            if let Some(started) = started.lock().unwrap().take() {
                let _ = started.send(());
            }
            async move {
                ctx.cancelled().await;
                "cancelled"
            }
        })
        .build()
        .unwrap();
    let executor = executor(registry([waiter]), true);
    let token = CancellationToken::new();
    let options = CallOptions::new().cancellation(token.clone());
    let call = executor.execute_with(
        ToolCall::new("outer-1", "outer", json!({"names": ["waiter"]})),
        options,
    );
    let cancel = async {
        tokio::time::timeout(std::time::Duration::from_secs(60), started_rx)
            .await
            .expect("the nested call never started")
            .unwrap();
        token.cancel();
    };
    let (report, ()) = tokio::join!(call, cancel);
    assert!(!report.result.success);
    let nested = seen.lock().unwrap().clone().expect("the nested call ran");
    assert!(nested.is_cancelled());
}

/// A nested call is never left waiting: an approver that defers (a person decides later)
/// or asks between requests (a client of MCP 2026-07-28) gets the nested call refused,
/// with what to do instead, and no deferred call is left behind to run outside the
/// program once someone approves it.
#[tokio::test]
async fn a_nested_call_cannot_wait_for_a_later_approval() {
    for decision in [ApprovalDecision::Defer, ApprovalDecision::InputRequired] {
        let executor = executor(registry([]), true);
        let answer = decision.clone();
        let options = CallOptions::new()
            .max_safety(SafetyLevel::Dangerous)
            .approval(move |_: ApprovalRequest| {
                let answer = answer.clone();
                async move { answer }
            });
        let lines = call_outer(&executor, json!(["danger"]), options).await;
        assert!(
            lines.starts_with("danger: tool `danger` was not run: it waits for an approval")
                && lines.contains("Call `danger` directly"),
            "{decision:?}: {lines}"
        );
        assert!(
            executor.pending_approvals().is_empty(),
            "{decision:?}: a deferred nested call was left behind"
        );
    }
}
