//! Hooks in order, a panicking hook, metrics, and the audit log.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwright::ToolResult;
use toolwright::runtime::executor::{AuditLog, HookEvent, ToolHook, UNKNOWN_TOOL_METRIC};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::tools::{call, executor};

#[derive(Default)]
struct Recorder {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

impl ToolHook for Recorder {
    fn before(&self, event: &HookEvent) {
        self.log.lock().unwrap().push(format!(
            "{} before {} {}",
            self.name, event.tool, event.arguments
        ));
    }
    fn after(&self, event: &HookEvent, result: &ToolResult) {
        self.log.lock().unwrap().push(format!(
            "{} after {} {}",
            self.name, event.tool, result.content
        ));
    }
    fn error(&self, event: &HookEvent, result: &ToolResult) {
        self.log.lock().unwrap().push(format!(
            "{} error {} {}",
            self.name,
            event.tool,
            result.error.as_deref().unwrap_or("")
        ));
    }
}

struct Panicker;

impl ToolHook for Panicker {
    fn before(&self, _: &HookEvent) {
        panic!("hook bug");
    }
    fn after(&self, _: &HookEvent, _: &ToolResult) {
        panic!("hook bug");
    }
}

#[tokio::test]
async fn hooks_run_in_order_in_every_phase_and_a_panicking_hook_breaks_nothing() {
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let executor = executor()
        .hook(Recorder {
            name: "first",
            log: Arc::clone(&log),
        })
        .hook(Panicker)
        .hook(Recorder {
            name: "second",
            log: Arc::clone(&log),
        })
        .build();
    let ok = executor
        .execute(call("c1", "read_number", json!({"key": "hooks", "n": 2})))
        .await;
    assert!(ok.success);
    let failed = executor
        .execute(call("c2", "fail_politely", json!({"key": "hooks"})))
        .await;
    assert!(!failed.success);
    let unknown = executor.execute(call("c3", "nope", json!({}))).await;
    assert!(!unknown.success);
    let log = log.lock().unwrap();
    assert_eq!(
        log[..8],
        [
            r#"first before read_number {"key":"hooks","n":2}"#,
            r#"second before read_number {"key":"hooks","n":2}"#,
            "first after read_number 2",
            "second after read_number 2",
            r#"first before fail_politely {"key":"hooks"}"#,
            r#"second before fail_politely {"key":"hooks"}"#,
            "first error fail_politely tool `fail_politely` failed: the service is down; try again in a minute",
            "second error fail_politely tool `fail_politely` failed: the service is down; try again in a minute",
        ]
    );
    assert!(
        log[8].starts_with(
            "first error nope unknown tool `nope`; available tools: `change_setting`, "
        ),
        "{}",
        log[8]
    );
    assert!(
        log[9].starts_with("second error nope unknown tool `nope`"),
        "{}",
        log[9]
    );
    assert_eq!(log.len(), 10);
}

#[tokio::test]
async fn metrics_count_outcomes_and_latency_per_tool() {
    let executor = executor()
        .approval(|req: ApprovalRequest| async move {
            if req.arguments["path"] == "ok" {
                ApprovalDecision::Approved
            } else {
                ApprovalDecision::Denied {
                    reason: "no".into(),
                }
            }
        })
        .build();
    for _ in 0..3 {
        executor
            .execute(call("c", "sleep_async", json!({"key": "metrics", "ms": 5})))
            .await;
    }
    // Only this call has a timeout (one it cannot meet): a busy machine slows the 5 ms
    // calls, but cannot make them time out.
    executor
        .execute_with(
            call("c", "sleep_async", json!({"key": "metrics", "ms": 600_000})),
            CallOptions::default().timeout(std::time::Duration::from_millis(100)),
        )
        .await;
    executor
        .execute(call("c", "sleep_async", json!({"key": "metrics"})))
        .await;
    executor
        .execute(call(
            "c",
            "wipe_path",
            json!({"key": "metrics", "path": "ok"}),
        ))
        .await;
    executor
        .execute(call(
            "c",
            "wipe_path",
            json!({"key": "metrics", "path": "no"}),
        ))
        .await;
    executor.execute(call("c", "made_up_1", json!({}))).await;
    executor.execute(call("c", "made_up_2", json!({}))).await;

    let metrics = executor.metrics();
    let sleep = &metrics.tools["sleep_async"];
    assert_eq!(
        (
            sleep.calls,
            sleep.successes,
            sleep.failures,
            sleep.timeouts,
            sleep.denials
        ),
        (5, 3, 2, 1, 0)
    );
    assert_eq!(sleep.latency.count, 5);
    assert!(sleep.latency.p50_ms >= 5.0, "{:?}", sleep.latency);
    assert!(
        sleep.latency.p99_ms >= 100.0,
        "the timed-out call: {:?}",
        sleep.latency
    );
    // The timed-out call alone is at least 100 ms of five: a mean of at least 20 ms.
    assert!(sleep.latency.mean_ms >= 20.0, "{:?}", sleep.latency);
    let wipe = &metrics.tools["wipe_path"];
    assert_eq!(
        (wipe.calls, wipe.successes, wipe.failures, wipe.denials),
        (2, 1, 1, 1)
    );
    assert_eq!(metrics.tools[UNKNOWN_TOOL_METRIC].calls, 2);
    assert!(!metrics.tools.contains_key("made_up_1"));
    // Serializable.
    let value = serde_json::to_value(&metrics).unwrap();
    assert_eq!(value["tools"]["wipe_path"]["denials"], 1);
}

#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>, Arc<Mutex<usize>>);

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        *self.1.lock().unwrap() += 1;
        Ok(())
    }
}

#[tokio::test]
async fn the_audit_log_writes_one_redacted_line_per_cautious_or_dangerous_call() {
    let sink = Lines::default();
    let executor = executor()
        .hook(AuditLog::new(sink.clone()))
        .approval(|req: ApprovalRequest| async move {
            if req.arguments["path"] == "ok" {
                ApprovalDecision::Approved
            } else {
                ApprovalDecision::Denied {
                    reason: "no".into(),
                }
            }
        })
        .build();
    executor
        .execute(call("safe", "read_number", json!({"key": "audit", "n": 1})))
        .await;
    executor
        .execute(call(
            "cautious",
            "change_setting",
            json!({"key": "audit", "value": 1}),
        ))
        .await;
    executor
        .execute(call(
            "approved",
            "wipe_path",
            json!({"key": "audit", "path": "ok", "token": "hunter2"}),
        ))
        .await;
    executor
        .execute(call(
            "denied",
            "wipe_path",
            json!({"key": "audit", "path": "no"}),
        ))
        .await;

    let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
    assert!(!text.contains("hunter2"));
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(*sink.1.lock().unwrap(), 3, "flushed per line");
    let summary: Vec<(&str, &str, &str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["call_id"].as_str().unwrap(),
                l["tool"].as_str().unwrap(),
                l["decision"].as_str().unwrap(),
                l["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("cautious", "change_setting", "approved", "success"),
            ("approved", "wipe_path", "approved", "success"),
            ("denied", "wipe_path", "denied", "failure"),
        ]
    );
    assert_eq!(lines[1]["arguments"]["token"], "[redacted]");
    assert!(lines[0]["time"].as_str().unwrap().ends_with('Z'));
    assert!(lines[0]["duration_ms"].is_number());
}

/// Issue 18: the size of results per tool, counted exactly (the bytes of `content`, the
/// text the model receives, failures included).
#[tokio::test]
async fn metrics_measure_the_size_of_results() {
    let executor = executor().build();
    for (n, content) in [(7, "7"), (12345, "12345"), (-1, "-1")] {
        let result = executor
            .execute(call("c", "read_number", json!({"key": "sizes", "n": n})))
            .await;
        assert_eq!(result.content, content);
    }
    let failed = executor
        .execute(call("c", "fail_politely", json!({"key": "sizes"})))
        .await;
    let failure = "tool `fail_politely` failed: the service is down; try again in a minute";
    assert_eq!(failed.content, failure);
    let unknown = executor.execute(call("c", "made_up", json!({}))).await;

    let metrics = executor.metrics();
    let size = &metrics.tools["read_number"].result_size;
    assert_eq!((size.count, size.total_bytes, size.max_bytes), (3, 8, 5));
    assert_eq!(size.mean_bytes, 8.0 / 3.0);
    let size = &metrics.tools["fail_politely"].result_size;
    let bytes = failure.len() as u64;
    assert_eq!(
        (
            size.count,
            size.total_bytes,
            size.max_bytes,
            size.mean_bytes
        ),
        (1, bytes, bytes, bytes as f64)
    );
    let size = &metrics.tools[UNKNOWN_TOOL_METRIC].result_size;
    assert_eq!(size.total_bytes, unknown.content.len() as u64);
    assert_eq!(size.count, 1);
    // Serialized with the rest.
    let value = serde_json::to_value(&metrics).unwrap();
    assert_eq!(
        value["tools"]["read_number"]["result_size"],
        json!({"count": 3, "total_bytes": 8, "mean_bytes": 8.0 / 3.0, "max_bytes": 5})
    );
}
