//! Tools the executor tests call. Each counts its runs under a `key` argument, so tests
//! running in parallel do not share counters.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use serde_json::Value;
use toolwright::model::{BoxFuture, ToolOutput};
use toolwright::runtime::executor::{CallVerdict, GuardedCall, Guardrail, OutputVerdict};
use toolwright::runtime::{ApprovalDecision, ApprovalRequest, ExecutorBuilder};
use toolwright::{
    Executor, SafetyLevel, ToolCall, ToolContext, ToolError, ToolRegistry, register_all_tools, tool,
};

static RUNS: LazyLock<Mutex<HashMap<String, usize>>> = LazyLock::new(Mutex::default);

/// Counts one run under `key` (for tools defined in other test modules).
pub fn count_run(key: &str) {
    count(key);
}

fn count(key: &str) {
    *RUNS.lock().unwrap().entry(key.to_owned()).or_default() += 1;
}

/// How many times a tool ran with `key`.
pub fn runs(key: &str) -> usize {
    RUNS.lock().unwrap().get(key).copied().unwrap_or(0)
}

/// Permanently delete everything under a path.
#[tool(safety = "dangerous", categories(danger))]
pub fn wipe_path(
    /// Counter key
    key: String,
    /// What to wipe
    path: String,
    /// A credential
    #[arg(secret)]
    token: Option<String>,
) -> String {
    count(&key);
    format!("wiped {path} with {}", token.unwrap_or_default())
}

/// Change a setting (logged).
#[tool(safety = "cautious")]
pub fn change_setting(key: String, value: i64) -> String {
    count(&key);
    format!("set to {value}")
}

/// Read a number back.
#[tool]
pub fn read_number(key: String, n: i64) -> i64 {
    count(&key);
    n
}

/// Sleep asynchronously, then answer.
#[tool]
pub async fn sleep_async(key: String, ms: u64) -> String {
    count(&key);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Sleep on a blocking thread, then answer.
#[tool]
pub fn sleep_sync(key: String, ms: u64) -> String {
    count(&key);
    std::thread::sleep(Duration::from_millis(ms));
    format!("slept {ms} ms")
}

/// Never return.
#[tool]
pub fn hang_forever(key: String) -> String {
    count(&key);
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Panic.
#[tool]
pub fn explode(key: String) -> String {
    count(&key);
    panic!("boom from explode");
}

/// Panic in async code.
#[tool]
pub async fn explode_async(key: String) -> String {
    count(&key);
    tokio::task::yield_now().await;
    panic!("async boom");
}

/// Fail with a message.
#[tool]
pub fn fail_politely(key: String) -> Result<String, ToolError> {
    count(&key);
    Err(ToolError::new("the service is down; try again in a minute"))
}

/// Greeting configured by the application.
pub struct Greeting(pub String);

/// Greet using application state and report the call id.
#[tool]
pub fn greet(ctx: &ToolContext, name: String) -> Result<String, ToolError> {
    let greeting = ctx.require_state::<Greeting>()?;
    Ok(format!("{} {name} (call {})", greeting.0, ctx.call_id()))
}

/// Counts when it is dropped.
struct CountOnDrop(String);

impl Drop for CountOnDrop {
    fn drop(&mut self) {
        count(&self.0);
    }
}

/// Wait forever; record when the future is dropped.
#[tool]
pub async fn wait_async(key: String) -> String {
    count(&key);
    let _dropped = CountOnDrop(format!("{key}:dropped"));
    std::future::pending::<()>().await;
    unreachable!()
}

/// Poll for cancellation on a blocking thread, and record that it saw it.
#[tool]
pub fn wait_for_cancel(ctx: &ToolContext, key: String) -> String {
    count(&key);
    while !ctx.is_cancelled() {
        std::thread::sleep(Duration::from_millis(5));
    }
    count(&format!("{key}:saw-cancel"));
    "cancelled".to_owned()
}

/// Take a list and a flag, to test lenient arguments.
#[tool]
pub fn take_list(
    /// Counter key
    key: String,
    /// Numbers
    numbers: Vec<i64>,
    /// A flag
    flag: bool,
    /// A count
    count_to: Option<u32>,
) -> String {
    count(&key);
    format!("{numbers:?} {flag} {count_to:?}")
}

pub fn registry() -> Arc<ToolRegistry> {
    Arc::new(register_all_tools().unwrap())
}

pub fn executor() -> ExecutorBuilder {
    Executor::builder(registry()).max_safety(SafetyLevel::Dangerous)
}

pub fn approve_all()
-> impl Fn(ApprovalRequest) -> std::future::Ready<ApprovalDecision> + Send + Sync + 'static {
    |_| std::future::ready(ApprovalDecision::Approved)
}

pub fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// A guardrail built from closures, recording what it saw (for the guardrail tests and the
/// deferred approvals that meet one).
pub struct Rule<C, O> {
    call: C,
    output: O,
    /// How many calls it checked.
    pub seen: Arc<AtomicUsize>,
}

/// A guardrail that judges calls with `call` and keeps every output.
pub fn guard(
    call: impl Fn(&GuardedCall) -> CallVerdict + Send + Sync + 'static,
) -> Rule<impl Fn(&GuardedCall) -> CallVerdict, impl Fn(&ToolOutput) -> OutputVerdict> {
    Rule {
        call,
        output: |_: &ToolOutput| OutputVerdict::Keep,
        seen: Arc::default(),
    }
}

/// A guardrail that allows every call and judges outputs with `output`.
pub fn guard_output(
    output: impl Fn(&ToolOutput) -> OutputVerdict + Send + Sync + 'static,
) -> Rule<impl Fn(&GuardedCall) -> CallVerdict, impl Fn(&ToolOutput) -> OutputVerdict> {
    Rule {
        call: |_: &GuardedCall| CallVerdict::Allow,
        output,
        seen: Arc::default(),
    }
}

impl<C, O> Guardrail for Rule<C, O>
where
    C: Fn(&GuardedCall) -> CallVerdict + Send + Sync + 'static,
    O: Fn(&ToolOutput) -> OutputVerdict + Send + Sync + 'static,
{
    fn check_call(&self, call: GuardedCall) -> BoxFuture<CallVerdict> {
        self.seen.fetch_add(1, Ordering::SeqCst);
        let verdict = (self.call)(&call);
        Box::pin(async move { verdict })
    }

    fn check_output(&self, _call: GuardedCall, output: ToolOutput) -> BoxFuture<OutputVerdict> {
        let verdict = (self.output)(&output);
        Box::pin(async move { verdict })
    }
}
