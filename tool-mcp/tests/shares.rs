//! Attack round 4 (issue 36), as an attacker would write it: every pool one caller can fill
//! through approvals (waiting approvals, tasks, used request states, calls in flight after a
//! task's approval) is refused to that caller at once, with the limit named, while another
//! caller's genuine approval still goes through. Each limit is lowered so the tests stay
//! small; none waits for a time: each waits for an event (a tool that signals, a task status)
//! under a generous deadline that fails it.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{message, post};
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolwright_core::{SafetyLevel, tool};
use toolwright_mcp::tasks::TaskLimits;
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer, MemoryClaims};
use toolwright_runtime::{Executor, register_all_tools};

/// How long anything may take before a test gives up; nothing is asserted on durations.
const DEADLINE: Duration = Duration::from_secs(60);

const MALLORY: &str = "mallory-approver-token-0123456789abcdef";
const ALICE: &str = "alice-approver-token-0123456789abcdef";

/// Wipe a disk (does nothing: only its approval matters).
#[tool(safety = "dangerous")]
fn wipe(disk: String) -> String {
    format!("wiped {disk}")
}

static HELD: AtomicUsize = AtomicUsize::new(0);
static HOLD_ENTERED: Notify = Notify::const_new();
static HOLD_RELEASE: Notify = Notify::const_new();

/// A dangerous call that runs until released (it stays in flight).
#[tool(safety = "dangerous")]
async fn hold_approved() -> String {
    HELD.fetch_add(1, Ordering::SeqCst);
    HOLD_ENTERED.notify_one();
    HOLD_RELEASE.notified().await;
    "released".to_owned()
}

/// Add two numbers.
#[tool]
fn plus(a: i64, b: i64) -> i64 {
    a + b
}

fn auth() -> AuthConfig {
    AuthConfig::new()
        .token(MALLORY, ["tools:dangerous", "tools:approve"])
        .unwrap()
        .token(ALICE, ["tools:dangerous", "tools:approve"])
        .unwrap()
}

async fn serve(server: McpServer, options: HttpOptions) -> HttpServer {
    server
        .serve_http_with(([127, 0, 0, 1], 0).into(), options.auth(auth()))
        .await
        .unwrap()
}

/// What a 2026-07-28 client declares.
const TASKS_AND_FORMS: &str =
    r#"{"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}"#;
/// Tasks, but elicitation by URL only: no approval form can be answered through a task.
const TASKS_AND_URLS: &str =
    r#"{"elicitation": {"url": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}"#;
const FORMS: &str = r#"{"elicitation": {}}"#;

/// One request of a 2026-07-28 client (no session; its capabilities in `_meta`); the
/// JSON-RPC response.
async fn request(
    server: &HttpServer,
    token: &str,
    capabilities: &str,
    method: &str,
    mut params: Value,
) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "shares-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities":
            serde_json::from_str::<Value>(capabilities).unwrap(),
    });
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let mut post = post(&reqwest::Client::new(), &server.url(), &body)
        .bearer_auth(token)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
        post = post.header("mcp-name", name);
    }
    let response = post.send().await.unwrap();
    message(&response.text().await.unwrap())
}

async fn call(
    server: &HttpServer,
    token: &str,
    capabilities: &str,
    tool: &str,
    arguments: Value,
) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    request(server, token, capabilities, "tools/call", params).await
}

/// The id of the task a call answered with.
fn task_id(response: &Value) -> String {
    assert_eq!(response["result"]["resultType"], "task", "{response}");
    response["result"]["taskId"].as_str().unwrap().to_owned()
}

fn error(response: &Value) -> String {
    response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {response}"))
        .to_owned()
}

/// Answers a task's approval form with yes.
async fn approve(server: &HttpServer, token: &str, id: &str) {
    let params = json!({
        "taskId": id,
        "inputResponses": {"approval-1": {"action": "accept", "content": {"approve": true}}},
    });
    let answered = request(server, token, TASKS_AND_FORMS, "tasks/update", params).await;
    assert!(answered.get("error").is_none(), "{answered}");
}

/// Polls `tasks/get` until the task ended; the task.
async fn ended(server: &HttpServer, token: &str, id: &str) -> Value {
    let started = tokio::time::Instant::now();
    loop {
        let task = request(
            server,
            token,
            TASKS_AND_FORMS,
            "tasks/get",
            json!({"taskId": id}),
        )
        .await;
        let status = task["result"]["status"].as_str().unwrap_or_default();
        if ["completed", "failed", "cancelled"].contains(&status) {
            return task["result"].clone();
        }
        assert!(
            started.elapsed() < DEADLINE,
            "task {id} never ended: {task}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The server's Prometheus text.
async fn metrics(server: &HttpServer) -> String {
    reqwest::get(format!("http://{}/metrics", server.local_addr()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

fn refusals(text: &str, reason: &str) -> u64 {
    let prefix = format!("mcp_refusals_total{{reason=\"{reason}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .and_then(|count| count.trim().parse().ok())
        .unwrap_or_else(|| panic!("no refusals for {reason}: {text}"))
}

fn executor() -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .max_pending_approvals(4)
        .build()
}

/// A client that declares tasks but only URL elicitation cannot answer an approval form:
/// its deferred calls could never become tasks, yet each waited an hour in the executor's
/// one list, until every other caller's approval was refused.
#[tokio::test]
async fn approvals_no_task_can_carry_do_not_wait_in_the_pending_list() {
    let executor = executor();
    let server = serve(McpServer::new(executor.clone()), HttpOptions::new()).await;
    for n in 0..8 {
        let answer = call(
            &server,
            MALLORY,
            TASKS_AND_URLS,
            "wipe",
            json!({"disk": format!("sd{n}")}),
        )
        .await;
        assert_eq!(
            answer["result"]["resultType"], "input_required",
            "asked in the call's result, never left waiting: {answer}"
        );
    }
    assert!(
        executor.pending_approvals().is_empty(),
        "{:?}",
        executor.pending_approvals()
    );
    // Alice's genuine approval goes through.
    let id = task_id(
        &call(
            &server,
            ALICE,
            TASKS_AND_FORMS,
            "wipe",
            json!({"disk": "alice"}),
        )
        .await,
    );
    approve(&server, ALICE, &id).await;
    let done = ended(&server, ALICE, &id).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "wiped alice",
        "{done}"
    );
    server.shutdown();
}

/// Over the caller's task limit, an approval that must become a task is refused at once,
/// naming the limit, and leaves no call waiting; another caller's approval goes through.
#[tokio::test]
async fn an_approval_over_the_task_limit_is_refused_at_once_and_leaves_nothing_waiting() {
    let executor = executor();
    let server = serve(
        McpServer::new(executor.clone()).task_limits(TaskLimits::default().max_per_owner(2)),
        HttpOptions::new(),
    )
    .await;
    for n in 0..2 {
        let answer = call(
            &server,
            MALLORY,
            TASKS_AND_FORMS,
            "wipe",
            json!({"disk": format!("sd{n}")}),
        )
        .await;
        task_id(&answer);
    }
    for n in 2..6 {
        let refused = call(
            &server,
            MALLORY,
            TASKS_AND_FORMS,
            "wipe",
            json!({"disk": format!("sd{n}")}),
        )
        .await;
        let said = error(&refused);
        assert!(
            said.contains("2 tasks") && said.contains("max_per_owner"),
            "{said}"
        );
        assert!(
            !said.contains("tasks/cancel"),
            "cancelling frees nothing: {said}"
        );
    }
    assert_eq!(
        executor.pending_approvals().len(),
        2,
        "only the two tasks wait"
    );
    assert_eq!(refusals(&metrics(&server).await, "tasks"), 4);
    let id = task_id(
        &call(
            &server,
            ALICE,
            TASKS_AND_FORMS,
            "wipe",
            json!({"disk": "alice"}),
        )
        .await,
    );
    approve(&server, ALICE, &id).await;
    let done = ended(&server, ALICE, &id).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "wiped alice",
        "{done}"
    );
    server.shutdown();
}

/// A task resumed after its approval is a call in flight like any: over its caller's share,
/// it is refused at once (the task fails, naming the share), not run beside the others.
#[tokio::test]
async fn a_resumed_task_counts_against_its_callers_share_of_calls() {
    let executor = executor();
    let server = serve(
        McpServer::new(executor.clone()),
        HttpOptions::new().max_calls_per_principal(1),
    )
    .await;
    let first = task_id(
        &call(
            &server,
            MALLORY,
            TASKS_AND_FORMS,
            "hold_approved",
            json!({}),
        )
        .await,
    );
    let second = task_id(
        &call(
            &server,
            MALLORY,
            TASKS_AND_FORMS,
            "hold_approved",
            json!({}),
        )
        .await,
    );
    approve(&server, MALLORY, &first).await;
    tokio::time::timeout(DEADLINE, HOLD_ENTERED.notified())
        .await
        .expect("the first approved call never started");
    // The first holds Mallory's share of one; the second, approved now, is refused.
    approve(&server, MALLORY, &second).await;
    let refused = ended(&server, MALLORY, &second).await;
    assert_eq!(refused["status"], "failed", "{refused}");
    let said = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("1 tool calls running") && said.contains("max_calls_per_principal"),
        "{said}"
    );
    assert_eq!(HELD.load(Ordering::SeqCst), 1);
    assert_eq!(refusals(&metrics(&server).await, "principal_calls"), 1);
    assert!(
        executor.pending_approvals().is_empty(),
        "the refused call does not wait"
    );
    // Alice's calls go through meanwhile.
    let sum = call(&server, ALICE, FORMS, "plus", json!({"a": 2, "b": 3})).await;
    assert_eq!(sum["result"]["content"][0]["text"], "5", "{sum}");
    HOLD_RELEASE.notify_one();
    let done = ended(&server, MALLORY, &first).await;
    assert_eq!(done["result"]["content"][0]["text"], "released", "{done}");
    server.shutdown();
}

/// The questions of an `InputRequiredResult` and its state.
fn questions(response: &Value) -> (Vec<String>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let keys = result["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("no inputRequests: {response}"))
        .keys()
        .cloned()
        .collect();
    (keys, result["requestState"].as_str().unwrap().to_owned())
}

/// A state sent back without answers is used up and answered with a new one: each such
/// request claims a state. One caller doing so exhausts only its own share of used states;
/// another caller's genuine approval still goes through.
#[tokio::test]
async fn states_sent_back_without_answers_exhaust_only_their_callers_share() {
    let executor = executor();
    let claims = MemoryClaims::default().max_per_owner(3).max_total(5);
    let server = serve(
        McpServer::new(executor).request_state_claims(Arc::new(claims)),
        HttpOptions::new(),
    )
    .await;
    let arguments = json!({"disk": "sda"});
    let (_, mut state) = questions(&call(&server, MALLORY, FORMS, "wipe", arguments.clone()).await);
    let mut refused = None;
    for _ in 0..10 {
        let params = json!({"name": "wipe", "arguments": arguments, "requestState": state});
        let answer = request(&server, MALLORY, FORMS, "tools/call", params).await;
        if answer.get("error").is_some() {
            refused = Some(error(&answer));
            break;
        }
        state = questions(&answer).1;
    }
    let said = refused.expect("Mallory was never refused");
    assert!(
        said.contains("3 multi round-trip requests") && said.contains("max_per_owner"),
        "{said}"
    );
    assert_eq!(refusals(&metrics(&server).await, "request_states"), 1);
    // Alice's approval: asked, answered, run.
    let alice = json!({"disk": "alice"});
    let (keys, state) = questions(&call(&server, ALICE, FORMS, "wipe", alice.clone()).await);
    let params = json!({
        "name": "wipe",
        "arguments": alice,
        "requestState": state,
        "inputResponses": {keys[0].as_str(): {"action": "accept", "content": {"approve": true}}},
    });
    let done = request(&server, ALICE, FORMS, "tools/call", params).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "wiped alice",
        "{done}"
    );
    server.shutdown();
}

/// One token deferring approvals with large arguments took every slot (and GBs) of the one
/// list of waiting approvals. Each caller now has a share in count and in bytes; over it,
/// its deferral is refused at once, naming the limit, and another caller's goes through.
#[tokio::test]
async fn one_callers_waiting_approvals_fill_only_its_share_in_count_and_bytes() {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .max_pending_approvals_per_owner(2)
        .max_pending_bytes_per_owner(16 * 1024)
        .build();
    let server = serve(McpServer::new(executor.clone()), HttpOptions::new()).await;
    // A large argument: refused by bytes, however few calls wait.
    let big = call(
        &server,
        MALLORY,
        TASKS_AND_FORMS,
        "wipe",
        json!({"disk": "x".repeat(32 * 1024)}),
    )
    .await;
    let said = big["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        said.contains("16384 bytes") && said.contains("max_pending_bytes_per_owner"),
        "{big}"
    );
    for n in 0..2 {
        task_id(
            &call(
                &server,
                MALLORY,
                TASKS_AND_FORMS,
                "wipe",
                json!({"disk": format!("sd{n}")}),
            )
            .await,
        );
    }
    let more = call(
        &server,
        MALLORY,
        TASKS_AND_FORMS,
        "wipe",
        json!({"disk": "sd9"}),
    )
    .await;
    let said = more["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        said.contains("2 calls waiting") && said.contains("max_pending_approvals_per_owner"),
        "{more}"
    );
    assert_eq!(executor.pending_approvals().len(), 2);
    assert_eq!(refusals(&metrics(&server).await, "pending_approvals"), 2);
    // Alice's approval goes through.
    let id = task_id(
        &call(
            &server,
            ALICE,
            TASKS_AND_FORMS,
            "wipe",
            json!({"disk": "alice"}),
        )
        .await,
    );
    approve(&server, ALICE, &id).await;
    let done = ended(&server, ALICE, &id).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "wiped alice",
        "{done}"
    );
    server.shutdown();
}
