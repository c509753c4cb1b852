//! Running: errors, panics, timeouts, cancellation, concurrency, order, state.

use std::time::{Duration, Instant};

use serde_json::json;
use toolwright::ToolCall;
use toolwright::model::CancellationToken;
use toolwright::runtime::CallOptions;
use toolwright::runtime::executor::{BlockingExecutor, Outcome};

use crate::tools::{Greeting, call, executor, runs};

#[tokio::test]
async fn unknown_tools_get_suggestions() {
    let executor = executor().build();
    let result = executor.execute(call("c1", "reed_number", json!({}))).await;
    assert!(!result.success);
    assert_eq!(
        result.error.as_deref(),
        Some("unknown tool `reed_number`; did you mean `read_number`?")
    );
    assert_eq!(result.metadata.safety_level, None);
    assert_eq!(result.metadata.approved, None);
    let result = executor.execute(call("c2", "zzzzzz", json!({}))).await;
    assert!(
        result
            .error
            .unwrap()
            .starts_with("unknown tool `zzzzzz`; available tools: `")
    );
}

#[tokio::test]
async fn invalid_names_are_refused_clearly() {
    let executor = executor().build();
    for name in [
        "Read-Number",
        "read number",
        "",
        "../etc/passwd",
        "READ_NUMBER",
        &"x".repeat(500),
    ] {
        let result = executor.execute(call("c1", name, json!({}))).await;
        assert!(!result.success);
        let error = result.error.unwrap();
        assert!(error.starts_with("invalid tool name `"), "{name}: {error}");
        assert!(
            !error.contains(&"x".repeat(100)),
            "long names are shortened: {error}"
        );
    }
    let result = executor.execute(call("c1", "Read-Number", json!({}))).await;
    assert!(
        result
            .error
            .unwrap()
            .ends_with("did you mean `read_number`?")
    );
}

#[tokio::test]
async fn arguments_must_be_an_object() {
    let executor = executor().build();
    for arguments in [json!([1, 2]), json!("{\"n\": 1}"), json!(null), json!(3)] {
        let result = executor
            .execute(call("c1", "read_number", arguments.clone()))
            .await;
        assert!(!result.success);
        assert!(
            result.error.as_deref().unwrap().starts_with(
                "arguments for tool `read_number` must be a JSON object of named parameters, got "
            ),
            "{arguments}: {result:?}"
        );
    }
}

#[tokio::test]
async fn disabled_tools_are_refused() {
    let executor = executor().build();
    executor
        .registry()
        .set_enabled("read_number", false)
        .unwrap();
    let result = executor
        .execute(call(
            "c1",
            "read_number",
            json!({"key": "disabled", "n": 1}),
        ))
        .await;
    assert_eq!(
        result.error.as_deref(),
        Some("tool `read_number` is disabled and cannot be called now")
    );
    assert_eq!(runs("disabled"), 0);
    executor
        .registry()
        .set_enabled("read_number", true)
        .unwrap();
    assert!(
        executor
            .execute(call(
                "c2",
                "read_number",
                json!({"key": "disabled", "n": 1})
            ))
            .await
            .success
    );
}

#[tokio::test]
async fn handler_errors_and_argument_errors_are_failures() {
    let executor = executor().build();
    let result = executor
        .execute(call("c1", "fail_politely", json!({"key": "polite"})))
        .await;
    assert_eq!(
        result.error.as_deref(),
        Some("tool `fail_politely` failed: the service is down; try again in a minute")
    );
    let result = executor
        .execute(call(
            "c2",
            "read_number",
            json!({"key": "args", "n": "five"}),
        ))
        .await;
    assert!(result.error.as_deref().unwrap().starts_with("invalid arguments for tool `read_number`: invalid value for parameter `n`: expected integer, got string \"five\""), "{result:?}");
    assert_eq!(runs("args"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_tool_leaves_the_executor_usable() {
    let executor = executor().build();
    for name in ["explode", "explode_async"] {
        let result = executor
            .execute(call("c1", name, json!({"key": "panic"})))
            .await;
        assert!(!result.success);
        let error = result.error.unwrap();
        assert!(
            error.starts_with(&format!("tool `{name}` crashed (panicked: ")),
            "{error}"
        );
        assert!(error.contains("boom"), "{error}");
    }
    let after = executor
        .execute(call(
            "c2",
            "read_number",
            json!({"key": "after-panic", "n": 1}),
        ))
        .await;
    assert!(after.success);
    assert!(executor.registry().get("explode").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_tells_a_crash_from_an_error_the_tool_reported() {
    let executor = executor().build();
    for name in ["explode", "explode_async"] {
        let report = executor
            .execute_with(
                call("c1", name, json!({"key": "crash-report"})),
                CallOptions::new(),
            )
            .await;
        assert_eq!(report.outcome, Outcome::Failure);
        assert!(report.crashed, "{name}: {:?}", report.result);
    }
    let report = executor
        .execute_with(
            call("c2", "fail_politely", json!({"key": "polite-report"})),
            CallOptions::new(),
        )
        .await;
    assert_eq!(report.outcome, Outcome::Failure);
    assert!(!report.crashed, "{:?}", report.result);
    let report = executor
        .execute_with(
            call("c3", "read_number", json!({"key": "crash-ok", "n": 1})),
            CallOptions::new(),
        )
        .await;
    assert!(report.result.success && !report.crashed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_sync_tool_times_out_and_blocks_nothing() {
    let executor = executor().timeout(Duration::from_millis(200)).build();
    let started = Instant::now();
    let results = executor
        .execute_batch(
            vec![
                call("hang", "hang_forever", json!({"key": "hang"})),
                call("quick", "read_number", json!({"key": "hang-quick", "n": 7})),
            ],
            CallOptions::new(),
        )
        .await;
    // The tool never returns: any bound proves the call did not wait for it. A generous one
    // keeps a busy machine from failing the test.
    assert!(started.elapsed() < Duration::from_secs(120));
    assert_eq!(
        results[0].error.as_deref(),
        Some("tool `hang_forever` timed out after 200 ms and was stopped; try a smaller request")
    );
    assert!(results[1].success);
    let after = executor
        .execute(call(
            "after",
            "read_number",
            json!({"key": "hang-after", "n": 1}),
        ))
        .await;
    assert!(after.success);
    assert_eq!(executor.metrics().tools["hang_forever"].timeouts, 1);
}

#[tokio::test]
async fn per_call_timeouts_override_the_executor_timeout() {
    let executor = executor().timeout(Duration::from_secs(60)).build();
    let result = executor
        .execute_with(
            call(
                "c1",
                "sleep_async",
                json!({"key": "per-call", "ms": 10_000}),
            ),
            CallOptions::new().timeout(Duration::from_millis(50)),
        )
        .await
        .result;
    assert!(result.error.unwrap().contains("timed out after 50 ms"));
}

#[tokio::test]
async fn a_cancel_token_stops_the_call_and_tells_the_tool() {
    let executor = executor().build();
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let result = executor
        .execute_with(
            call("c1", "sleep_async", json!({"key": "cancel", "ms": 10_000})),
            CallOptions::new().cancellation(token),
        )
        .await
        .result;
    assert_eq!(
        result.error.as_deref(),
        Some("the call of `sleep_async` was cancelled")
    );
}

/// Waits for `what` to have happened once: an event, however long a busy machine takes (a
/// minute at most, so a real failure still ends the test).
async fn eventually(what: &str) {
    for _ in 0..6000 {
        if runs(what) == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what} never happened");
}

#[tokio::test]
async fn dropping_the_call_stops_an_async_tool() {
    let executor = executor().build();
    let pending = executor.execute(call("c1", "wait_async", json!({"key": "drop-async"})));
    let finished = tokio::time::timeout(Duration::from_millis(100), pending).await;
    assert!(finished.is_err(), "the tool waits forever: {finished:?}");
    assert_eq!(runs("drop-async"), 1);
    // The tool's future was dropped with the call.
    eventually("drop-async:dropped").await;
}

#[tokio::test]
async fn dropping_the_call_tells_a_sync_tool_to_stop() {
    let executor = executor().build();
    let pending = executor.execute(call("c1", "wait_for_cancel", json!({"key": "drop-sync"})));
    let finished = tokio::time::timeout(Duration::from_millis(100), pending).await;
    assert!(
        finished.is_err(),
        "the tool waits for cancellation: {finished:?}"
    );
    assert_eq!(runs("drop-sync"), 1);
    eventually("drop-sync:saw-cancel").await;
}

#[tokio::test]
async fn a_timeout_tells_a_sync_tool_to_stop() {
    let executor = executor().timeout(Duration::from_millis(50)).build();
    let result = executor
        .execute(call(
            "c1",
            "wait_for_cancel",
            json!({"key": "timeout-sync"}),
        ))
        .await;
    assert!(result.error.unwrap().contains("timed out after 50 ms"));
    eventually("timeout-sync:saw-cancel").await;
}

/// Two runtime tools, `meet_async` and `meet_sync`, each of whose calls waits until `n`
/// calls of it have started.
fn meeting(n: usize) -> std::sync::Arc<toolwright::ToolRegistry> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let registry = toolwright::ToolRegistry::new();
    let arrived = Arc::new(AtomicUsize::new(0));
    let here = Arc::clone(&arrived);
    let meet_async = toolwright::Tool::builder("meet_async")
        .description("Wait until everyone has arrived.")
        .handler(move |_| {
            let here = Arc::clone(&here);
            async move {
                here.fetch_add(1, Ordering::SeqCst);
                while here.load(Ordering::SeqCst) < n {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                "met"
            }
        })
        .build()
        .unwrap();
    let arrived = Arc::new(AtomicUsize::new(0));
    let meet_sync = toolwright::Tool::builder("meet_sync")
        .description("Wait until everyone has arrived, on a thread.")
        .sync_handler(move |_, _| {
            arrived.fetch_add(1, Ordering::SeqCst);
            while arrived.load(Ordering::SeqCst) < n {
                std::thread::sleep(Duration::from_millis(1));
            }
            "met"
        })
        .build()
        .unwrap();
    registry.register(meet_async).unwrap();
    registry.register(meet_sync).unwrap();
    Arc::new(registry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn independent_calls_run_concurrently() {
    // Each call waits until all 100 are running at once: run one after another, they would
    // never finish (the timeout turns that into a failure). No clock decides the result.
    let executor = toolwright::Executor::builder(meeting(100))
        .concurrency(100)
        .max_sync_threads(100)
        .timeout(Duration::from_secs(120))
        .build();
    for tool in ["meet_async", "meet_sync"] {
        let calls: Vec<ToolCall> = (0..100)
            .map(|i| call(&format!("c{i}"), tool, json!({})))
            .collect();
        let results = executor.execute_batch(calls, CallOptions::new()).await;
        assert!(results.iter().all(|r| r.success), "{tool}: {results:?}");
        assert_eq!(executor.metrics().tools[tool].successes, 100);
    }
}

#[tokio::test]
async fn concurrency_limit_is_respected() {
    let executor = executor().concurrency(2).build();
    let calls: Vec<ToolCall> = (0..6)
        .map(|i| {
            call(
                &format!("c{i}"),
                "sleep_async",
                json!({"key": "limit", "ms": 60}),
            )
        })
        .collect();
    let started = Instant::now();
    executor.execute_batch(calls, CallOptions::new()).await;
    // Three waves of two.
    assert!(
        started.elapsed() >= Duration::from_millis(170),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_keep_call_order_when_calls_finish_out_of_order() {
    let executor = executor().build();
    let delays = [120_u64, 10, 80, 0, 40];
    let calls: Vec<ToolCall> = delays
        .iter()
        .enumerate()
        .map(|(i, ms)| {
            call(
                &format!("id-{i}"),
                "sleep_async",
                json!({"key": "order", "ms": ms}),
            )
        })
        .chain([call("id-bad", "nope", json!({}))])
        .collect();
    let results = executor.execute_batch(calls, CallOptions::new()).await;
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["id-0", "id-1", "id-2", "id-3", "id-4", "id-bad"]);
    for (result, ms) in results.iter().zip(delays) {
        assert_eq!(result.content, format!("slept {ms} ms"));
    }
    assert!(!results[5].success);
    assert!(
        executor
            .execute_batch(Vec::new(), CallOptions::new())
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn tools_read_state_and_their_call_id() {
    let executor = executor().state(Greeting("Hello".into())).build();
    let result = executor
        .execute(call("call_9", "greet", json!({"name": "Ada"})))
        .await;
    assert_eq!(result.content, "Hello Ada (call call_9)");
    let unconfigured = crate::tools::executor().build();
    let result = unconfigured
        .execute(call("c1", "greet", json!({"name": "Ada"})))
        .await;
    assert!(
        result
            .error
            .unwrap()
            .contains("needs a `executor::tools::Greeting` in the executor's state")
    );
}

#[test]
fn the_blocking_facade_works_without_a_runtime() {
    let blocking = BlockingExecutor::new(executor().build()).unwrap();
    let result = blocking.execute(call(
        "c1",
        "read_number",
        json!({"key": "blocking", "n": 3}),
    ));
    assert_eq!(result.content, "3");
    let results = blocking.execute_batch(
        vec![
            call("a", "sleep_sync", json!({"key": "blocking", "ms": 1})),
            call("b", "read_number", json!({"key": "blocking", "n": 4})),
        ],
        CallOptions::new(),
    );
    assert_eq!(results[1].content, "4");
    assert_eq!(blocking.metrics().tools["read_number"].calls, 2);
}

#[tokio::test]
async fn the_blocking_facade_refuses_inside_a_runtime_instead_of_panicking() {
    let blocking =
        tokio::task::spawn_blocking(|| BlockingExecutor::new(executor().build()).unwrap())
            .await
            .unwrap();
    let result = blocking.execute(call("c1", "read_number", json!({"key": "nested", "n": 3})));
    assert!(!result.success);
    assert!(
        result
            .error
            .as_deref()
            .unwrap()
            .contains("inside an async runtime")
    );
    // Drop the facade's runtime off the async threads.
    tokio::task::spawn_blocking(move || drop(blocking))
        .await
        .unwrap();
}

#[tokio::test]
async fn lenient_mode_fixes_common_mistakes_and_says_so() {
    let strict = executor().build();
    let arguments = json!({"key": "lenient", "numbers": 5, "flag": "true", "count_to": "3"});
    let result = strict
        .execute(call("c1", "take_list", arguments.clone()))
        .await;
    assert!(!result.success);

    let lenient = executor().lenient_arguments(true).build();
    let result = lenient.execute(call("c1", "take_list", arguments)).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "[5] true Some(3)");
    assert_eq!(
        result.metadata.coerced,
        [
            "`numbers`: number 5 -> array [5]",
            "`flag`: string \"true\" -> boolean true",
            "`count_to`: string \"3\" -> number 3"
        ]
    );
    let result = lenient
        .execute(call(
            "c2",
            "take_list",
            json!(r#"{"key": "lenient", "numbers": ["1", 2], "flag": false}"#),
        ))
        .await;
    assert!(
        !result.success,
        "items are not coerced inside arrays: {result:?}"
    );
    let result = lenient
        .execute(call(
            "c3",
            "take_list",
            json!(r#"{"key": "lenient", "numbers": [1], "flag": false}"#),
        ))
        .await;
    assert!(result.success, "{result:?}");
    assert_eq!(
        result.metadata.coerced,
        ["arguments: a JSON string -> the object it contains"]
    );
    let result = lenient
        .execute(call(
            "c4",
            "take_list",
            json!({"key": "lenient", "numbers": [], "flag": "maybe"}),
        ))
        .await;
    assert!(!result.success, "nonsense is still refused");
}

/// The pool of sync-tool threads is bounded: tools that never return hold their threads as
/// "abandoned", a further sync call fails within its timeout saying why, and async tools
/// keep running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_sync_pool_fails_new_sync_calls_and_keeps_serving_async_ones() {
    let executor = executor()
        .max_sync_threads(4)
        .timeout(Duration::from_millis(200))
        .build();
    let hung: Vec<ToolCall> = (0..4)
        .map(|i| {
            call(
                &format!("h{i}"),
                "hang_forever",
                json!({"key": "pool-hang"}),
            )
        })
        .collect();
    for result in executor.execute_batch(hung, CallOptions::new()).await {
        assert!(result.error.unwrap().contains("timed out after 200 ms"));
    }
    let threads = executor.metrics().sync_threads;
    assert_eq!(
        (
            threads.limit,
            threads.threads,
            threads.busy,
            threads.abandoned
        ),
        (4, 4, 4, 4)
    );
    let fifth = executor
        .execute(call(
            "fifth",
            "read_number",
            json!({"key": "pool-5th", "n": 5}),
        ))
        .await;
    assert_eq!(
        fifth.error.as_deref(),
        Some(
            "tool `read_number` could not start within 200 ms: all 4 threads for sync tools are \
             busy (4 of them still running calls that timed out or were cancelled); try again \
             later (the application can raise `ExecutorBuilder::max_sync_threads`)"
        )
    );
    assert_eq!(runs("pool-5th"), 0, "it never ran");
    let async_call = executor
        .execute(call(
            "async",
            "sleep_async",
            json!({"key": "pool-async", "ms": 0}),
        ))
        .await;
    assert!(async_call.success, "{async_call:?}");
    assert_eq!(
        executor.metrics().sync_threads.threads,
        4,
        "no thread beyond the limit"
    );
}

/// A tool that checks its cancellation gives its thread back when its call times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cooperative_tool_gives_its_thread_back_after_a_timeout() {
    let executor = executor()
        .max_sync_threads(2)
        .timeout(Duration::from_millis(100))
        .build();
    for i in 0..6 {
        let result = executor
            .execute(call(
                &format!("c{i}"),
                "wait_for_cancel",
                json!({"key": "coop"}),
            ))
            .await;
        assert!(result.error.unwrap().contains("timed out"));
        // Wait for the event (the tool saw its cancellation and returned), not for a time.
        while executor.metrics().sync_threads.busy > 0 {
            tokio::task::yield_now().await;
        }
    }
    assert_eq!(runs("coop:saw-cancel"), 6);
    let threads = executor.metrics().sync_threads;
    assert_eq!((threads.busy, threads.abandoned), (0, 0));
    assert!(threads.threads <= 2);
}

/// Over the executor's limit of concurrent calls, a call waits for a slot within its
/// timeout, then fails saying the limit was reached; the slots come back when calls end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrent_call_limit_holds_across_callers() {
    let executor = executor().max_concurrent_calls(2).build();
    let running: Vec<_> = (0..2)
        .map(|i| {
            let executor = executor.clone();
            tokio::spawn(async move {
                executor
                    .execute(call(
                        &format!("w{i}"),
                        "wait_async",
                        json!({"key": "limit-2"}),
                    ))
                    .await
            })
        })
        .collect();
    // Wait for the event: both calls are running.
    while runs("limit-2") < 2 {
        tokio::task::yield_now().await;
    }
    let third = executor
        .execute_with(
            call("third", "read_number", json!({"key": "limit-3rd", "n": 3})),
            CallOptions::new().timeout(Duration::from_millis(100)),
        )
        .await
        .result;
    assert_eq!(
        third.error.as_deref(),
        Some(
            "tool `read_number` could not start within 100 ms: the executor is already running \
             its limit of 2 concurrent calls; try again later (the application can raise \
             `ExecutorBuilder::max_concurrent_calls`)"
        )
    );
    assert_eq!(runs("limit-3rd"), 0);
    for task in running {
        task.abort();
    }
    // The aborted calls gave their slots back.
    let after = executor
        .execute(call(
            "after",
            "read_number",
            json!({"key": "limit-after", "n": 4}),
        ))
        .await;
    assert!(after.success, "{after:?}");
}
