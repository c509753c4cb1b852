//! The executor's search-first list (`Discovery::search_first`): what is listed, and that
//! `call_tool` is the real call under the real tool's policy: its approval, its call limit,
//! its hooks, counted once, never above the caller's ceiling nor outside the offered set.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwright_core::{SafetyLevel, Tool, ToolCall, ToolResult};
use toolwright_formats::discovery::DeferPlan;
use toolwright_runtime::executor::{AuditLog, HookEvent, Outcome, ToolHook};
use toolwright_runtime::{
    ApprovalDecision, ApprovalRequest, CallOptions, Discovery, Executor, ExecutorBuilder,
    ToolFilter, ToolRegistry,
};

fn tool(name: &str, description: &str, safety: SafetyLevel, runs: &Arc<AtomicUsize>) -> Tool {
    let runs = Arc::clone(runs);
    let done = format!("{name} done");
    Tool::builder(name)
        .description(description)
        .safety(safety)
        .priority(if name == "read_note" { 100 } else { 0 })
        .handler(move |_| {
            runs.fetch_add(1, Ordering::SeqCst);
            let done = done.clone();
            async move { done }
        })
        .build()
        .unwrap()
}

struct Fixture {
    builder: ExecutorBuilder,
    runs: Arc<AtomicUsize>,
}

/// 300 tools, a core chosen by priority, a cautious and a dangerous one.
fn fixture() -> Fixture {
    let registry = Arc::new(ToolRegistry::new());
    let runs = Arc::new(AtomicUsize::new(0));
    for i in 0..300 {
        let description = format!("Report the status of warehouse shelf number {i}.");
        registry
            .register(tool(
                &format!("shelf_{i}_status"),
                &description,
                SafetyLevel::Safe,
                &runs,
            ))
            .unwrap();
    }
    for (name, description, safety) in [
        ("read_note", "Read a note by its title.", SafetyLevel::Safe),
        (
            "send_invoice",
            "Send an invoice to a customer by email.",
            SafetyLevel::Cautious,
        ),
        (
            "wipe_database",
            "Delete every row of the production database.",
            SafetyLevel::Dangerous,
        ),
    ] {
        registry
            .register(tool(name, description, safety, &runs))
            .unwrap();
    }
    let builder = Executor::builder(registry).discovery(Discovery::search_first(
        DeferPlan::new().core_priority_at_least(100),
    ));
    Fixture { builder, runs }
}

fn names(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(Tool::name).collect()
}

async fn run(
    executor: &Executor,
    name: &str,
    arguments: Value,
    options: CallOptions,
) -> (Outcome, ToolResult) {
    let report = executor
        .execute_with(ToolCall::new("c1", name, arguments), options)
        .await;
    (report.outcome, report.result)
}

#[tokio::test]
async fn the_list_is_the_core_and_the_meta_tools_and_every_tool_stays_callable() {
    let Fixture { builder, runs } = fixture();
    let executor = builder.build();
    assert_eq!(
        names(&executor.listed_tools(SafetyLevel::Dangerous)),
        ["read_note", "search_tools", "describe_tool", "call_tool"]
    );
    assert_eq!(
        executor.available_tools().len(),
        303,
        "everything is still offered"
    );
    let (_, found) = run(
        &executor,
        "search_tools",
        json!({"query": "email an invoice"}),
        CallOptions::new(),
    )
    .await;
    let found: Value = serde_json::from_str(&found.content).unwrap();
    assert_eq!(found["tools"][0]["name"], "send_invoice");
    assert_eq!(found["tools"][0]["safety"], "cautious");
    let (outcome, result) = run(
        &executor,
        "call_tool",
        json!({"name": "shelf_7_status"}),
        CallOptions::new(),
    )
    .await;
    assert_eq!(
        (outcome, result.content.as_str()),
        (Outcome::Success, "shelf_7_status done")
    );
    let (outcome, _) = run(&executor, "shelf_8_status", json!({}), CallOptions::new()).await;
    assert_eq!(
        outcome,
        Outcome::Success,
        "a direct call of an unlisted, offered tool runs"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    // The default lists everything.
    let full = Executor::builder(Arc::clone(executor.registry())).build();
    assert_eq!(full.listed_tools(SafetyLevel::Dangerous).len(), 303);
}

/// What the audit log wrote.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

/// Every call's end, as hooks see it.
impl ToolHook for Seen {
    fn after(&self, event: &HookEvent, _: &ToolResult) {
        self.0.lock().unwrap().push(event.tool.clone());
    }
    fn error(&self, event: &HookEvent, _: &ToolResult) {
        self.0.lock().unwrap().push(event.tool.clone());
    }
}

#[tokio::test]
async fn call_tool_is_the_real_call_its_approval_its_limit_its_hooks_once() {
    let Fixture { builder, runs } = fixture();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Seen::default();
    let audit = Buffer::default();
    let recorder = Arc::clone(&asked);
    let executor = builder
        .approval(move |request: ApprovalRequest| {
            recorder.lock().unwrap().push(request.tool.clone());
            async {
                ApprovalDecision::Denied {
                    reason: "no".into(),
                }
            }
        })
        .hook(seen.clone())
        .hook(AuditLog::new(audit.clone()))
        .max_calls("send_invoice", 1)
        .build();

    // A dangerous tool through call_tool: asked once, about itself; denied, not run.
    let (outcome, _) = run(
        &executor,
        "call_tool",
        json!({"name": "wipe_database", "arguments": {}}),
        CallOptions::new(),
    )
    .await;
    assert_eq!(outcome, Outcome::Denied);
    assert_eq!(*asked.lock().unwrap(), ["wipe_database"]);
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // The limit counts the real tool, once per call, whichever way it is called.
    let (outcome, _) = run(
        &executor,
        "call_tool",
        json!({"name": "send_invoice"}),
        CallOptions::new(),
    )
    .await;
    assert_eq!(outcome, Outcome::Success);
    let (outcome, result) = run(&executor, "send_invoice", json!({}), CallOptions::new()).await;
    assert_ne!(outcome, Outcome::Success, "{}", result.content);
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // Hooks and the audit log name the real tools, never the wrapper.
    let seen = seen.0.lock().unwrap().clone();
    assert_eq!(seen, ["wipe_database", "send_invoice", "send_invoice"]);
    let audit = String::from_utf8(audit.0.lock().unwrap().clone()).unwrap();
    assert!(
        audit.contains("\"wipe_database\"") && audit.contains("\"send_invoice\""),
        "{audit}"
    );
    assert!(!audit.contains("call_tool"), "{audit}");
    let metrics = executor.metrics();
    assert!(metrics.tools.contains_key("send_invoice"));
    assert!(!metrics.tools.contains_key("call_tool"));
}

#[tokio::test]
async fn nothing_above_the_ceiling_or_outside_the_offer_is_found_described_or_called() {
    let Fixture { builder, runs } = fixture();
    let executor = builder
        .approval(|_: ApprovalRequest| async { ApprovalDecision::Approved })
        .build();
    let safe = || CallOptions::new().max_safety(SafetyLevel::Safe);
    assert_eq!(
        names(&executor.listed_tools(SafetyLevel::Safe)),
        ["read_note", "search_tools", "describe_tool", "call_tool"]
    );
    for query in [
        "wipe_database",
        "delete every row of the production database",
        "invoice",
    ] {
        let (_, found) = run(
            &executor,
            "search_tools",
            json!({"query": query, "limit": 20}),
            safe(),
        )
        .await;
        assert!(
            !found.content.contains("wipe_database") && !found.content.contains("send_invoice"),
            "{query}: {}",
            found.content
        );
    }
    for name in [
        "wipe_database",
        "send_invoice",
        "WIPE_DATABASE",
        "wipe_d\u{0430}tabase",
        "wipe_database\u{0}",
    ] {
        let (_, described) = run(&executor, "describe_tool", json!({"name": name}), safe()).await;
        assert!(
            !described.success && !described.content.contains("Delete every row"),
            "{name}"
        );
        let (outcome, result) = run(&executor, "call_tool", json!({"name": name}), safe()).await;
        assert_eq!(outcome, Outcome::Failure, "{name}: {}", result.content);
        assert!(
            result.content.contains("unknown tool") || result.content.contains("invalid tool name"),
            "{name}: {}",
            result.content
        );
        assert!(
            !result.content.contains("dangerous"),
            "the refusal does not tell what it is: {}",
            result.content
        );
    }
    // A huge query is refused, in a short message.
    let (_, result) = run(
        &executor,
        "search_tools",
        json!({"query": "wipe ".repeat(200_000)}),
        safe(),
    )
    .await;
    assert!(
        !result.success && result.content.len() < 300,
        "{}",
        result.content.len()
    );
    // A huge name is refused before any lookup, in a short message.
    let (_, result) = run(
        &executor,
        "call_tool",
        json!({"name": "w".repeat(1 << 20)}),
        safe(),
    )
    .await;
    assert!(
        !result.success && result.content.len() < 300,
        "{}",
        result.content.len()
    );

    // Offered for this turn: only read_note and the meta-tools; call_tool cannot leave it.
    let offered = CallOptions::new().allowed_tools(ToolFilter::new().names(["read_note"]));
    let (_, result) = run(
        &executor,
        "call_tool",
        json!({"name": "shelf_1_status"}),
        offered,
    )
    .await;
    assert!(
        !result.success && result.content.contains("unknown tool"),
        "{}",
        result.content
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // Malformed wrappers: tool errors, never a panic.
    for arguments in [
        json!(null),
        json!([1]),
        json!({"name": 1}),
        json!({"name": "call_tool"}),
        json!({"name": "read_note", "arguments": "x"}),
    ] {
        let (outcome, result) = run(
            &executor,
            "call_tool",
            arguments.clone(),
            CallOptions::new(),
        )
        .await;
        assert_eq!(outcome, Outcome::Failure, "{arguments}");
        assert!(
            result.content.contains("call_tool"),
            "{arguments}: {}",
            result.content
        );
    }
}
