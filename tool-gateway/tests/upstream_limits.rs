//! Per-upstream limits in the gateway: `max_concurrent` and `rate`, each with a caller's
//! share. Callers are the calls' authenticated subjects (`CallOptions::caller`); the
//! upstream holds every call until the test lets it go, so counts (not timing) say what
//! was admitted: N callers over the limit see exactly the excess refused, at once and
//! without reaching the upstream; one caller flooding leaves another its share. Every wait
//! has a generous deadline that fails the test.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, json};
use tokio::sync::{Semaphore, mpsc};
use toolwright_core::{Caller, SafetyLevel, ToolCall, ToolResult};
use toolwright_gateway::upstream::{MountOptions, Rate};
use toolwright_runtime::{CallOptions, Executor};

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{registry_with, upstream_of, within};

/// An upstream whose one tool `hold` waits for a permit the test gives.
#[derive(Clone)]
struct Hold {
    release: Arc<Semaphore>,
    started: mpsc::UnboundedSender<()>,
    calls: Arc<AtomicUsize>,
}

impl ServerHandler for Hold {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {}});
        let serde_json::Value::Object(schema) = schema else {
            unreachable!()
        };
        Ok(ListToolsResult::with_all_items(vec![McpTool::new(
            "hold",
            "Wait until released.",
            schema,
        )]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let _ = self.started.send(());
        if let Ok(permit) = self.release.acquire().await {
            permit.forget();
        }
        Ok(CallToolResult::success(vec![ContentBlock::text("released")]).into())
    }
}

struct Bench {
    _mount: toolwright_gateway::upstream::Mount,
    executor: Executor,
    release: Arc<Semaphore>,
    started: mpsc::UnboundedReceiver<()>,
    calls: Arc<AtomicUsize>,
}

async fn bench(options: MountOptions) -> Bench {
    let (started_tx, started) = mpsc::unbounded_channel();
    let hold = Hold {
        release: Arc::new(Semaphore::new(0)),
        started: started_tx,
        calls: Arc::default(),
    };
    let (release, calls) = (hold.release.clone(), hold.calls.clone());
    let upstream = upstream_of("hold", hold).await;
    let (registry, mount) =
        registry_with(&upstream, options.default_safety(SafetyLevel::Safe)).await;
    assert_eq!(mount.tools().len(), 1);
    Bench {
        _mount: mount,
        executor: Executor::builder(registry).concurrency(64).build(),
        release,
        started,
        calls,
    }
}

impl Bench {
    /// Starts a call of `caller` (`None`: the local user).
    fn call(&self, caller: Option<&str>) -> tokio::task::JoinHandle<ToolResult> {
        let executor = self.executor.clone();
        let mut options = CallOptions::new();
        if let Some(caller) = caller {
            options = options.caller(Caller::new(caller.to_owned()));
        }
        tokio::spawn(async move {
            executor
                .execute_with(
                    ToolCall::new("1", "up_hold", serde_json::Value::Object(Map::new())),
                    options,
                )
                .await
                .result
        })
    }

    /// Waits until the upstream has started `n` more calls.
    async fn started(&mut self, n: usize) {
        for _ in 0..n {
            within("an upstream call to start", self.started.recv())
                .await
                .unwrap();
        }
    }
}

async fn refused(handle: tokio::task::JoinHandle<ToolResult>, names: &str) {
    let result = within("a refusal", handle).await.unwrap();
    assert!(!result.success, "admitted over the limit: {result:?}");
    assert!(result.content.contains("`up`"), "{}", result.content);
    assert!(result.content.contains(names), "{}", result.content);
}

async fn succeeded(handle: tokio::task::JoinHandle<ToolResult>) {
    let result = within("a call", handle).await.unwrap();
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "released");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_over_max_concurrent_see_exactly_the_excess_refused() {
    let mut bench = bench(MountOptions::new("up").max_concurrent(4)).await;
    // Four callers fill the upstream (each within a share of 2).
    let admitted: Vec<_> = (0..4)
        .map(|i| bench.call(Some(&format!("caller-{i}"))))
        .collect();
    bench.started(4).await;
    // Six more, from six callers: every one refused at once, none sent upstream.
    for i in 4..10 {
        refused(
            bench.call(Some(&format!("caller-{i}"))),
            "`max_concurrent` = 4 calls at once",
        )
        .await;
    }
    assert_eq!(bench.calls.load(Ordering::SeqCst), 4);
    bench.release.add_permits(4);
    for handle in admitted {
        succeeded(handle).await;
    }
    // Their places are given back: four more go through.
    let again: Vec<_> = (0..4).map(|_| bench.call(None)).collect();
    bench.started(4).await;
    bench.release.add_permits(4);
    for handle in again {
        succeeded(handle).await;
    }
    assert_eq!(bench.calls.load(Ordering::SeqCst), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_caller_flooding_leaves_another_its_share() {
    let mut bench = bench(MountOptions::new("up").max_concurrent(4)).await;
    // Alice sends ten at once: her share (half of 4) runs, the other eight are refused
    // while those two are still held upstream.
    let (results, mut alice) = mpsc::unbounded_channel();
    for _ in 0..10 {
        let handle = bench.call(Some("alice"));
        let results = results.clone();
        tokio::spawn(async move {
            if let Ok(result) = handle.await {
                let _ = results.send(result);
            }
        });
    }
    bench.started(2).await;
    for _ in 0..8 {
        let result = within("alice's refusals", alice.recv()).await.unwrap();
        assert!(!result.success, "alice got more than her share: {result:?}");
        assert!(
            result
                .content
                .contains("`max_concurrent_per_caller` = 2 calls at once"),
            "{}",
            result.content
        );
    }
    // Bob still gets his two.
    let bob: Vec<_> = (0..2).map(|_| bench.call(Some("bob"))).collect();
    bench.started(2).await;
    // The upstream is full: Carol is refused by the upstream's own limit.
    refused(
        bench.call(Some("carol")),
        "`max_concurrent` = 4 calls at once",
    )
    .await;
    assert_eq!(bench.calls.load(Ordering::SeqCst), 4);
    bench.release.add_permits(4);
    for _ in 0..2 {
        let result = within("alice's calls", alice.recv()).await.unwrap();
        assert!(result.success, "{result:?}");
    }
    for handle in bob {
        succeeded(handle).await;
    }
    assert_eq!(bench.calls.load(Ordering::SeqCst), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_refuses_the_excess_with_when_to_retry() {
    // 6 an hour: nothing comes back within any test's run.
    let rate: Rate = "6/h".parse().unwrap();
    let mut bench = bench(MountOptions::new("up").rate(rate)).await;
    bench.release.add_permits(100);
    let mut results = Vec::new();
    for caller in ["alice"; 5].into_iter().chain(["bob"; 5]) {
        results.push(within("a call", bench.call(Some(caller))).await.unwrap());
    }
    let ok = results.iter().filter(|r| r.success).count();
    assert_eq!(ok, 6, "alice's 3 (half of 6/h) and bob's 3");
    bench.started(6).await;
    // Alice's fourth and fifth are over her share; Bob's, after his three, over the
    // upstream's (all six are gone by then).
    let refusals: Vec<(&str, &ToolResult)> = ["alice"; 5]
        .into_iter()
        .chain(["bob"; 5])
        .zip(&results)
        .filter(|(_, r)| !r.success)
        .collect();
    assert_eq!(refusals.len(), 4);
    for (caller, refusal) in refusals {
        let names = if caller == "alice" {
            "`rate_per_caller` = 3/h"
        } else {
            "`rate` = 6/h"
        };
        assert!(
            refusal.content.contains(names),
            "{caller}: {}",
            refusal.content
        );
        assert!(
            refusal.content.contains("try again in"),
            "{}",
            refusal.content
        );
    }
    // The upstream's own bucket is empty: the local user (no share) is refused by it.
    let local = within("a call", bench.call(None)).await.unwrap();
    assert!(!local.success);
    assert!(local.content.contains("`rate` = 6/h"), "{}", local.content);
    assert_eq!(bench.calls.load(Ordering::SeqCst), 6);
}

/// The limits in `gateway.toml`: parsed, and refused with the upstream's line when they
/// cannot hold.
#[test]
fn the_configuration_takes_the_limits_and_refuses_bad_ones() {
    use toolwright_gateway::{ConfigError, GatewayConfig};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.toml");
    let load = |upstream: &str| {
        std::fs::write(
            &path,
            format!(
                "\n[[upstream]]\nnamespace = \"up\"\nurl = \"http://127.0.0.1:9/mcp\"\n{upstream}\n"
            ),
        )
        .unwrap();
        GatewayConfig::load(&path)
    };
    let good = load(
        "max_concurrent = 8\nmax_concurrent_per_caller = 3\nrate = \"600/min\"\nrate_per_caller = \"5/s\"",
    );
    assert!(good.is_ok(), "{good:?}");
    for (keys, says) in [
        ("rate = \"fast\"", "`rate`: `fast` is not a rate"),
        ("rate_per_caller = \"0/s\"", "zero calls"),
        ("max_concurrent = 0", "at least 1"),
        (
            "max_concurrent = 2\nmax_concurrent_per_caller = 3",
            "`max_concurrent_per_caller` (3) is over `max_concurrent` (2)",
        ),
        (
            "rate = \"10/min\"\nrate_per_caller = \"1/s\"",
            "`rate_per_caller` (1/s) is over `rate` (10/min)",
        ),
    ] {
        match load(keys) {
            Err(ConfigError::Invalid { line, message, .. }) => {
                assert_eq!(line, Some(2), "{keys}: {message}");
                assert!(message.contains(says), "{keys}: {message}");
            }
            other => panic!("{keys}: {other:?}"),
        }
    }
}
