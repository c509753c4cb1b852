//! Bridging protocol eras through the gateway (feature `http`), counted, never timed:
//!
//! - an HTTP upstream that keeps sessions forgets ours (it restarts behind the same URL and
//!   answers `404` for our session id): the next call re-initializes and succeeds, and the
//!   upstream runs it exactly once; the other upstream of the same gateway is not
//!   disturbed (no half-dead federated session). A proxy in front (`support/switch_proxy.rs`)
//!   switches to the new server, so the restart is seen as the upstream's answers only;
//! - a 2026-07-28 client (it answers a question by repeating the call) in front of an
//!   upstream that asks in rounds (input requests): the question reaches the client, the
//!   repeated call carries the answer upstream, and the upstream runs the call once (in
//!   the executor, and over the wire: raw 2026-07-28 requests to our HTTP server, with the
//!   sealed `requestState` and `inputResponses`);
//! - a handshake-era client (it answers while the call waits) in front of the same
//!   upstream: asked and answered within the one call.
//!
//! Every wait has a generous deadline that fails the test.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value, json};
use toolwright_core::{SafetyLevel, Tool, ToolCall};
use toolwright_gateway::upstream::{MountOptions, MountUpstream, Upstream};
use toolwright_mcp::{HttpServer, McpServer};
use toolwright_runtime::executor::Outcome;
use toolwright_runtime::{CallOptions, Executor, ToolRegistry};

#[path = "support/switch_proxy.rs"]
mod switch_proxy;
use switch_proxy::SwitchProxy;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{raw_upstream, registry_with, within};

#[path = "support/person.rs"]
mod person;
use person::Person;

/// A registry with one tool, `count`, that counts its runs.
fn counting() -> (Arc<ToolRegistry>, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Arc::new(ToolRegistry::new());
    let counter = runs.clone();
    registry
        .register(
            Tool::builder("count")
                .description("Count a run.")
                .handler(move |_: Map<String, Value>| {
                    let counter = counter.clone();
                    async move { (counter.fetch_add(1, Ordering::SeqCst) + 1).to_string() }
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    (registry, runs)
}

/// Our own server over HTTP (the handshake era keeps a session per client) at `addr`.
async fn serve(registry: &Arc<ToolRegistry>, addr: SocketAddr) -> HttpServer {
    McpServer::new(Executor::builder(registry.clone()).build())
        .serve_http(addr)
        .await
        .unwrap()
}

/// The `http://IP:PORT` origin of a server.
fn origin(server: &HttpServer) -> String {
    format!("http://{}", server.local_addr())
}

async fn call(executor: &Executor, tool: &str) -> toolwright_core::ToolResult {
    within(tool, executor.execute(ToolCall::new("1", tool, json!({})))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_upstream_session_is_recreated_and_the_call_runs_once() {
    let (registry, runs) = counting();
    let first = serve(&registry, ([127, 0, 0, 1], 0).into()).await;
    let proxy = SwitchProxy::start(&origin(&first)).await;
    let (other_registry, other_runs) = counting();
    let other = serve(&other_registry, ([127, 0, 0, 1], 0).into()).await;

    let gateway = Arc::new(ToolRegistry::new());
    let upstream = within("connect", Upstream::http(proxy.url()).connect())
        .await
        .unwrap();
    let other_upstream = within("connect the other", Upstream::http(other.url()).connect())
        .await
        .unwrap();
    let options = |namespace: &str| MountOptions::new(namespace).default_safety(SafetyLevel::Safe);
    let _mount = within("mount", gateway.mount(&upstream, options("up")))
        .await
        .unwrap();
    let _other_mount = within(
        "mount the other",
        gateway.mount(&other_upstream, options("other")),
    )
    .await
    .unwrap();
    let executor = Executor::builder(gateway).build();
    let result = call(&executor, "up_count").await;
    assert!(result.success, "{result:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(first.open_sessions(), 1);

    // The upstream restarts: the new one knows no session, ours included.
    let second = serve(&registry, ([127, 0, 0, 1], 0).into()).await;
    proxy.switch(&origin(&second));
    first.shutdown();
    within("the upstream to stop", first.wait()).await.unwrap();
    assert_eq!(second.open_sessions(), 0);

    for n in 2..=4 {
        let result = call(&executor, "up_count").await;
        assert!(result.success, "call {n} after the restart: {result:?}");
        assert_eq!(result.content, n.to_string());
        assert_eq!(runs.load(Ordering::SeqCst), n, "each call ran exactly once");
    }
    // One new session, made by the gateway's re-initialization.
    assert_eq!(second.open_sessions(), 1);
    // The other upstream of the federation never noticed.
    for n in 1..=3 {
        let result = call(&executor, "other_count").await;
        assert!(result.success, "{result:?}");
        assert_eq!(other_runs.load(Ordering::SeqCst), n);
    }
    upstream.close().await;
    other_upstream.close().await;
    second.shutdown();
    other.shutdown();
}

/// A sessionless upstream (our server `--stateless`: every POST answered on its own, as a
/// 2026-07-28 server is) behind the gateway's handshake-era client: calls run once each,
/// before and after it restarts, with no session to lose.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessionless_upstream_serves_the_gateway_across_its_restart() {
    let (registry, runs) = counting();
    let stateless = |addr: SocketAddr| {
        let registry = registry.clone();
        async move {
            McpServer::new(Executor::builder(registry).build())
                .serve_http_with(addr, toolwright_mcp::HttpOptions::new().stateless(true))
                .await
                .unwrap()
        }
    };
    let first = stateless(([127, 0, 0, 1], 0).into()).await;
    let proxy = SwitchProxy::start(&origin(&first)).await;
    let gateway = Arc::new(ToolRegistry::new());
    let upstream = within("connect", Upstream::http(proxy.url()).connect())
        .await
        .unwrap();
    let _mount = within(
        "mount",
        gateway.mount(
            &upstream,
            MountOptions::new("up").default_safety(SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    let executor = Executor::builder(gateway).build();
    let result = call(&executor, "up_count").await;
    assert!(result.success, "{result:?}");
    assert_eq!(first.open_sessions(), 0, "no session was made");
    let second = stateless(([127, 0, 0, 1], 0).into()).await;
    proxy.switch(&origin(&second));
    first.shutdown();
    within("the upstream to stop", first.wait()).await.unwrap();
    for n in 2..=4 {
        let result = call(&executor, "up_count").await;
        assert!(result.success, "{result:?}");
        assert_eq!(runs.load(Ordering::SeqCst), n, "each call ran exactly once");
    }
    upstream.close().await;
    second.shutdown();
}

/// An upstream over newline-delimited JSON-RPC whose `book` asks for a name in rounds
/// (MCP 2026-07-28's input requests), counting its requests and its runs (a request that
/// carries the answers).
struct Rounds {
    requests: Arc<AtomicUsize>,
    runs: Arc<AtomicUsize>,
}

async fn connect_rounds() -> (Upstream, Rounds) {
    let requests = Arc::new(AtomicUsize::new(0));
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Rounds {
        requests: requests.clone(),
        runs: runs.clone(),
    };
    let upstream = raw_upstream("rounds", "rounds", move |method, params| match method {
        "tools/list" => json!({"tools": [
            {"name": "book", "inputSchema": {"type": "object"}}
        ]}),
        "tools/call" => {
            requests.fetch_add(1, Ordering::SeqCst);
            match params.get("inputResponses") {
                Some(responses) => {
                    runs.fetch_add(1, Ordering::SeqCst);
                    let name = &responses["who"]["content"]["name"];
                    json!({"content": [{"type": "text", "text": format!(
                        "booked for {}", name.as_str().unwrap_or("?")
                    )}]})
                }
                None => json!({
                    "resultType": "input_required",
                    "inputRequests": {"who": {
                        "method": "elicitation/create",
                        "params": {"mode": "form", "message": "Name?",
                                   "requestedSchema": {"type": "object",
                                       "properties": {"name": {"type": "string"}}}}
                    }},
                    "requestState": "s1"
                }),
            }
        }
        _ => json!({}),
    })
    .await;
    (upstream, counted)
}

#[tokio::test]
async fn a_2026_client_answers_an_upstreams_rounds_and_the_upstream_runs_once() {
    let (upstream, counted) = connect_rounds().await;
    let (registry, _mount) = registry_with(
        &upstream,
        MountOptions::new("r").default_safety(SafetyLevel::Safe),
    )
    .await;
    let executor = Executor::builder(registry).build();
    let book = ToolCall::new("1", "r_book", json!({}));

    // The client's first request: the upstream's question ends our round too.
    let rounds = Person {
        in_rounds: true,
        ..Person::default()
    };
    let first = within(
        "the first round",
        executor.execute_with(book.clone(), CallOptions::new().client(rounds.clone())),
    )
    .await;
    assert_eq!(first.outcome, Outcome::InputRequired, "{:?}", first.result);
    assert_eq!(
        *rounds.questions.lock().unwrap(),
        ["The upstream MCP server `rounds` asks: Name?"]
    );
    assert_eq!(counted.runs.load(Ordering::SeqCst), 0, "nothing ran yet");

    // The client repeats the call with the answer (the executor replays it as the
    // person's): the upstream gets it in its own round and runs once.
    let answering = Person {
        answer: Some(json!({"name": "Ada"})),
        ..Person::default()
    };
    let second = within(
        "the repeated call",
        executor.execute_with(book.clone(), CallOptions::new().client(answering)),
    )
    .await;
    assert!(second.result.success, "{:?}", second.result);
    assert_eq!(second.result.content, "booked for Ada");
    assert_eq!(
        counted.runs.load(Ordering::SeqCst),
        1,
        "one answer, one run"
    );
    // Its rounds: the first request's, the repeated call's first, and the answered one.
    assert_eq!(counted.requests.load(Ordering::SeqCst), 3);

    // A handshake-era client answers within the one call.
    let waiting = Person {
        answer: Some(json!({"name": "Grace"})),
        ..Person::default()
    };
    let result = within(
        "a handshake-era call",
        executor.execute_with(book, CallOptions::new().client(waiting.clone())),
    )
    .await;
    assert!(result.result.success, "{:?}", result.result);
    assert_eq!(result.result.content, "booked for Grace");
    assert_eq!(waiting.questions.lock().unwrap().len(), 1);
    assert_eq!(counted.runs.load(Ordering::SeqCst), 2);
}

/// The JSON-RPC message of a response body (JSON, or the last `data:` of an SSE stream).
fn message(body: &str) -> Value {
    if let Ok(value) = serde_json::from_str(body) {
        return value;
    }
    body.lines()
        .rev()
        .filter_map(|line| line.strip_prefix("data:"))
        .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC message in {body:?}"))
}

/// One `tools/call` of a 2026-07-28 client (no session, everything in the request).
async fn modern_call(server: &HttpServer, tool: &str, round: Option<(&str, Value)>) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "bridging-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        },
    });
    if let Some((state, responses)) = round {
        params["requestState"] = json!(state);
        params["inputResponses"] = responses;
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let response = within(
        "a 2026-07-28 request",
        reqwest::Client::new()
            .post(server.url())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", tool)
            .body(body.to_string())
            .send(),
    )
    .await
    .unwrap();
    message(&within("the body", response.text()).await.unwrap())
}

/// The same, over the wire: a 2026-07-28 client of `toolwright`'s own HTTP server, in front
/// of the upstream that asks in rounds, gets an `InputRequiredResult` with a sealed state,
/// answers by repeating the call, and the upstream runs once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_2026_client_answers_an_upstreams_rounds() {
    let (upstream, counted) = connect_rounds().await;
    let (registry, _mount) = registry_with(
        &upstream,
        MountOptions::new("r").default_safety(SafetyLevel::Safe),
    )
    .await;
    let gateway = McpServer::new(Executor::builder(registry).build())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();

    let first = modern_call(&gateway, "r_book", None).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let asked = result["inputRequests"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert_eq!(asked.len(), 1, "{first}");
    let (key, question) = asked.into_iter().next().unwrap();
    assert_eq!(
        question["params"]["message"],
        "Tool `r_book` asks: The upstream MCP server `rounds` asks: Name?",
        "{first}"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    assert_eq!(counted.runs.load(Ordering::SeqCst), 0);

    let answers = json!({ key: {"action": "accept", "content": {"name": "Ada"}} });
    let second = modern_call(&gateway, "r_book", Some((&state, answers))).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "booked for Ada",
        "{second}"
    );
    assert_eq!(
        counted.runs.load(Ordering::SeqCst),
        1,
        "one answer, one run"
    );
    gateway.shutdown();
}
