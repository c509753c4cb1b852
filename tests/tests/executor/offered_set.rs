//! The tools offered per request: a call to a tool outside the offered set is unknown,
//! whatever the registry holds.

use serde_json::json;
use toolwright::SafetyLevel;
use toolwright::runtime::executor::Outcome;
use toolwright::runtime::{CallOptions, ToolFilter};

use crate::contract::assert_contract_result;
use crate::tools::{approve_all, call, executor, runs};

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
