//! Deferred lists and search under the caller's view: a search cannot surface a tool above
//! the ceiling, and a dangerous tool found by search still needs its approval.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolwright_core::{SafetyLevel, Tool};
use toolwright_formats::discovery::parse::{SearchRequest, Step, parse_anthropic};
use toolwright_formats::discovery::reply::anthropic_search_result;
use toolwright_formats::discovery::{DeferPlan, SearchTool};
use toolwright_formats::schema::Format;
use toolwright_runtime::{
    ApprovalDecision, ApprovalRequest, CallOptions, Executor, ToolFilter, ToolRegistry,
};

fn registry() -> Arc<ToolRegistry> {
    let registry = ToolRegistry::new();
    for (name, description, safety) in [
        // Written to win any search for "delete": the attacker's query names it exactly.
        (
            "delete_all_backups",
            "Delete all backups delete delete backups now.",
            SafetyLevel::Dangerous,
        ),
        ("list_backups", "List the backups.", SafetyLevel::Safe),
        (
            "restore_backup",
            "Restore a backup over the live data.",
            SafetyLevel::Cautious,
        ),
    ] {
        let tool = Tool::builder(name)
            .description(description)
            .safety(safety)
            .handler(|_| async { "done" })
            .build()
            .unwrap();
        registry.register(tool).unwrap();
    }
    Arc::new(registry)
}

fn search(id: &str, query: &str) -> SearchRequest {
    SearchRequest {
        id: id.into(),
        query: query.into(),
        limit: 10,
    }
}

#[test]
fn a_search_never_surfaces_a_tool_above_the_callers_ceiling() {
    let registry = registry();
    let view = ToolFilter::new().max_safety(SafetyLevel::Cautious);
    let plan = DeferPlan::new().search(SearchTool::Ours);
    let list = registry
        .export_deferred(&view, Format::Anthropic, &plan)
        .unwrap();
    assert!(!list.offers("delete_all_backups"));
    for query in [
        "delete_all_backups",
        "delete all backups",
        "DELETE",
        "delete_all_backups delete_all_backups delete",
        "",
    ] {
        let found = registry.answer_search(&search("s", query), &view, &list);
        assert!(
            !found.iter().any(|name| name == "delete_all_backups"),
            "{query:?} -> {found:?}"
        );
    }
    // Even a search run wider than the list (a filter that lets it through) answers only
    // with what the list offered.
    let wider = ToolFilter::new();
    let found = registry.answer_search(&search("s", "delete all backups"), &wider, &list);
    assert!(
        !found.iter().any(|name| name == "delete_all_backups"),
        "{found:?}"
    );
    assert!(found.iter().any(|name| name == "list_backups"), "{found:?}");
    // And the answer the model gets cannot reference it, whatever the names given.
    let block = anthropic_search_result(
        &search("s", "delete"),
        &["delete_all_backups".to_owned()],
        &list,
    );
    assert_eq!(block["content"][0]["type"], "text");
}

#[tokio::test]
async fn a_dangerous_tool_found_by_search_still_needs_its_approval() {
    let registry = registry();
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let executor = Executor::builder(Arc::clone(&registry))
        .approval(move |request: ApprovalRequest| {
            counted.fetch_add(1, Ordering::SeqCst);
            assert_eq!(request.tool, "delete_all_backups");
            async {
                ApprovalDecision::Denied {
                    reason: "not without a person".into(),
                }
            }
        })
        .build();
    let view = ToolFilter::new();
    let list = registry
        .export_deferred(
            &view,
            Format::Anthropic,
            &DeferPlan::new().search(SearchTool::Ours),
        )
        .unwrap();
    assert!(list.is_deferred("delete_all_backups"));
    let found = registry.answer_search(&search("s", "delete all backups"), &view, &list);
    assert_eq!(found[0], "delete_all_backups");

    let reply = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "delete_all_backups", "input": {}}]});
    let steps = parse_anthropic(&reply, &list).unwrap();
    let Step::Call(call) = steps[0].clone() else {
        panic!("{steps:?}")
    };
    let allowed = CallOptions::new().allowed_tools(ToolFilter::new().names(list.offered()));
    let results = executor.execute_batch(vec![call], allowed).await;
    assert!(!results[0].success);
    assert!(
        results[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("not without a person"),
        "{:?}",
        results[0]
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "asked once, and it did not run"
    );
}
