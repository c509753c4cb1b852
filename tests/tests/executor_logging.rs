//! The log line of a cautious call, in a test binary of its own: tracing decides once per
//! call site whether anyone listens, and a test on another thread reaching the same call site
//! while this test installs its subscriber can leave the call's span unrecorded. Alone in
//! its process, nothing races it.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::json;

// The executor tests' tools; this test uses a few of them.
#[path = "executor/tools.rs"]
#[allow(dead_code)]
mod tools;

use tools::{call, executor, runs};

/// A writer the test can read back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Buffer {
    type Writer = Buffer;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[test]
fn cautious_calls_are_logged_with_tool_call_id_and_arguments() {
    let buffer = Buffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(buffer.clone())
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .finish();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async {
            let result = executor()
                .build()
                .execute(call(
                    "call_log",
                    "change_setting",
                    json!({"key": "log", "value": 3}),
                ))
                .await;
            assert!(result.success);
        });
    });
    let output = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let line = output
        .lines()
        .find(|line| line.contains("running a cautious tool"))
        .unwrap_or_else(|| panic!("no log line in {output:?}"));
    assert!(line.contains("INFO"), "{line}");
    assert!(
        line.contains("tool=\"change_setting\"") || line.contains("tool=change_setting"),
        "{line}"
    );
    assert!(line.contains("call_log"), "{line}");
    assert!(line.contains(r#""value":3"#), "{line}");
    // Inside the call's span, named per the OpenTelemetry GenAI conventions, which names the
    // tool, the call and the safety level.
    assert!(line.contains("execute_tool{"), "{line}");
    assert!(line.contains("gen_ai.tool.name=change_setting"), "{line}");
    assert!(line.contains("gen_ai.tool.call.id=call_log"), "{line}");
    assert!(
        line.contains("safety=cautious") || line.contains("safety=\"cautious\""),
        "{line}"
    );
    assert_eq!(runs("log"), 1);
}
