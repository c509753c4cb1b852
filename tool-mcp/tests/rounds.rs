//! MCP 2026-07-28 clients over streamable HTTP: approvals and a tool's questions through
//! multi round-trip requests (`InputRequiredResult`, `inputResponses`, `requestState`), and
//! what an attacker does with the state: replay it, change it, present it as someone else,
//! for other arguments, after the preview changed.

#![allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How many times `to` was sent money.
fn sent(to: &str) -> usize {
    TRANSFERS
        .lock()
        .unwrap()
        .iter()
        .filter(|t| *t == to)
        .count()
}

use common::{message, post};
use serde_json::{Value, json};
use toolwright_core::client::{SamplingMessage, SamplingOptions};
use toolwright_core::{Elicitation, Preview, SafetyLevel, ToolContext, ToolError, tool};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

const ALICE: &str = "alice-approver-token-0123456789abcdef";
const BOB: &str = "bob-approver-token-0123456789abcdef";

/// Who was sent money, once per run (the tests run at once: each uses its own names).
static TRANSFERS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static RATE: AtomicUsize = AtomicUsize::new(1);

/// Send money to someone.
#[tool(safety = "dangerous", preview = transfer_preview)]
fn transfer(
    /// Who gets it.
    to: String,
) -> String {
    TRANSFERS.lock().unwrap().push(to.clone());
    format!("sent to {to}")
}

fn transfer_preview(_ctx: &ToolContext, to: &str) -> Result<Preview, ToolError> {
    // Only frank's rate moves (the tests run at once; the others' previews stay put).
    let rate = if to == "frank" {
        RATE.load(Ordering::SeqCst)
    } else {
        1
    };
    Ok(Preview::text(format!("send 100 to {to} at rate {rate}")))
}

/// A yes or no.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    /// Yes?
    ok: bool,
}

/// Ask two questions, one after the other.
#[tool]
async fn ask_twice(ctx: &ToolContext) -> Result<String, ToolError> {
    let first = ctx.elicit::<Answer>("First question?").await?;
    let second = ctx.elicit::<Answer>("Second question?").await?;
    let said = |answer: Elicitation<Answer>| match answer {
        Elicitation::Accepted(answer) => answer.ok.to_string(),
        Elicitation::Declined => "declined".to_owned(),
        Elicitation::Cancelled => "cancelled".to_owned(),
    };
    Ok(format!("{} {}", said(first), said(second)))
}

/// Change something, then ask.
#[tool]
async fn write_then_ask(ctx: &ToolContext) -> Result<String, ToolError> {
    ctx.record_side_effect("wrote report.txt");
    ctx.elicit::<Answer>("Keep it?").await?;
    Ok("asked".to_owned())
}

/// Ask the client's model.
#[tool]
async fn summarize(ctx: &ToolContext) -> Result<String, ToolError> {
    let reply = ctx
        .sample(
            vec![SamplingMessage::user("Summarize: a b c")],
            SamplingOptions::new(50),
        )
        .await?;
    Ok(format!("model said: {}", reply.text))
}

async fn start() -> HttpServer {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    let auth = AuthConfig::new()
        .token(ALICE, ["tools:dangerous", "tools:approve"])
        .unwrap()
        .token(BOB, ["tools:dangerous", "tools:approve"])
        .unwrap();
    McpServer::new(executor)
        .serve_http_with(([127, 0, 0, 1], 0).into(), HttpOptions::new().auth(auth))
        .await
        .unwrap()
}

/// One `tools/call` of a 2026-07-28 client that can answer elicitation and sampling; the
/// JSON-RPC response.
async fn call(
    server: &HttpServer,
    token: &str,
    tool: &str,
    arguments: Value,
    state: Option<&str>,
    responses: Option<Value>,
) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "rounds-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}},
        },
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let response = post(&reqwest::Client::new(), &server.url(), &body)
        .bearer_auth(token)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .send()
        .await
        .unwrap();
    message(&response.text().await.unwrap())
}

/// The questions of an `InputRequiredResult` and its state.
fn questions(response: &Value) -> (Vec<(String, Value)>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let asked = result["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("no inputRequests: {response}"))
        .iter()
        .map(|(key, request)| (key.clone(), request.clone()))
        .collect();
    (asked, result["requestState"].as_str().unwrap().to_owned())
}

fn text(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {response}"))
        .to_owned()
}

fn error(response: &Value) -> String {
    response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {response}"))
        .to_owned()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test]
async fn a_dangerous_call_runs_once_after_its_approval_and_a_replay_is_refused() {
    let server = start().await;
    let args = json!({"to": "carol"});
    let first = call(&server, ALICE, "transfer", args.clone(), None, None).await;
    let (asked, state) = questions(&first);
    assert_eq!(asked.len(), 1);
    let (key, request) = &asked[0];
    assert_eq!(request["method"], "elicitation/create");
    let shown = request["params"]["message"].as_str().unwrap();
    assert!(
        shown.contains("`transfer`") && shown.contains("send 100 to carol"),
        "{shown}"
    );
    assert_eq!(sent("carol"), 0, "ran before approval");

    let answer = json!({ key.as_str(): accept(json!({"approve": true})) });
    let done = call(
        &server,
        ALICE,
        "transfer",
        args.clone(),
        Some(&state),
        Some(answer.clone()),
    )
    .await;
    assert_eq!(text(&done), "sent to carol");
    assert_eq!(done["result"]["isError"], false);
    assert_eq!(sent("carol"), 1);

    // The same state and answer again: refused, not run a second time.
    let replay = call(
        &server,
        ALICE,
        "transfer",
        args.clone(),
        Some(&state),
        Some(answer.clone()),
    )
    .await;
    assert!(error(&replay).contains("already used"), "{replay}");
    // The answer without the state answers nothing: asked again.
    let planted = call(&server, ALICE, "transfer", args, None, Some(answer)).await;
    questions(&planted);
    assert_eq!(sent("carol"), 1);
}

#[tokio::test]
async fn a_declined_or_malformed_approval_denies_the_call() {
    let server = start().await;
    let args = json!({"to": "dave"});
    for answer in [
        json!({"action": "decline"}),
        accept(json!({"approve": "true"})),
        accept(json!({})),
        json!("yes"),
    ] {
        let (asked, state) =
            questions(&call(&server, ALICE, "transfer", args.clone(), None, None).await);
        let responses = json!({ asked[0].0.as_str(): answer });
        let done = call(
            &server,
            ALICE,
            "transfer",
            args.clone(),
            Some(&state),
            Some(responses),
        )
        .await;
        assert_eq!(done["result"]["isError"], true, "{done}");
        assert!(text(&done).contains("was not run"), "{done}");
    }
    assert_eq!(sent("dave"), 0);
}

#[tokio::test]
async fn a_state_presented_by_another_caller_for_other_arguments_or_changed_is_refused() {
    let server = start().await;
    let args = json!({"to": "erin"});
    let (asked, state) =
        questions(&call(&server, ALICE, "transfer", args.clone(), None, None).await);
    let yes = json!({ asked[0].0.as_str(): accept(json!({"approve": true})) });

    let as_bob = call(
        &server,
        BOB,
        "transfer",
        args.clone(),
        Some(&state),
        Some(yes.clone()),
    )
    .await;
    assert!(error(&as_bob).contains("not issued for it"), "{as_bob}");
    let elsewhere = json!({"to": "mallory"});
    let other_args = call(
        &server,
        ALICE,
        "transfer",
        elsewhere,
        Some(&state),
        Some(yes.clone()),
    )
    .await;
    assert!(
        error(&other_args).contains("not issued for it"),
        "{other_args}"
    );
    let other_tool = call(
        &server,
        ALICE,
        "ask_twice",
        json!({}),
        Some(&state),
        Some(yes.clone()),
    )
    .await;
    assert!(
        error(&other_tool).contains("not issued for it"),
        "{other_tool}"
    );
    let mut changed = state.clone();
    changed.insert(changed.len() / 2, 'A');
    let tampered = call(
        &server,
        ALICE,
        "transfer",
        args.clone(),
        Some(&changed),
        Some(yes.clone()),
    )
    .await;
    assert!(error(&tampered).contains("not issued for it"), "{tampered}");
    assert_eq!(sent("erin"), 0);

    // None of that used the state up: its owner still can.
    let done = call(&server, ALICE, "transfer", args, Some(&state), Some(yes)).await;
    assert_eq!(text(&done), "sent to erin");
}

#[tokio::test]
async fn an_approval_answers_only_the_preview_it_was_given_for() {
    let server = start().await;
    let args = json!({"to": "frank"});
    let (asked, state) =
        questions(&call(&server, ALICE, "transfer", args.clone(), None, None).await);
    // What the call would do changes before the answer comes back.
    RATE.fetch_add(1, Ordering::SeqCst);
    let yes = json!({ asked[0].0.as_str(): accept(json!({"approve": true})) });
    let again = call(&server, ALICE, "transfer", args, Some(&state), Some(yes)).await;
    let (asked_again, _) = questions(&again);
    assert_ne!(
        asked_again[0].0, asked[0].0,
        "the new preview is a new question"
    );
    let shown = asked_again[0].1["params"]["message"].as_str().unwrap();
    assert!(
        shown.contains(&format!("rate {}", RATE.load(Ordering::SeqCst))),
        "{shown}"
    );
    assert_eq!(sent("frank"), 0);
}

#[tokio::test]
async fn a_tool_that_asks_twice_gets_both_answers_on_the_third_round() {
    let server = start().await;
    let first = call(&server, ALICE, "ask_twice", json!({}), None, None).await;
    let (asked, state) = questions(&first);
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].1["params"]["message"]
            .as_str()
            .unwrap()
            .contains("First question?")
    );
    let second = call(
        &server,
        ALICE,
        "ask_twice",
        json!({}),
        Some(&state),
        Some(json!({ asked[0].0.as_str(): accept(json!({"ok": true})) })),
    )
    .await;
    let (asked, state) = questions(&second);
    assert_eq!(asked.len(), 1);
    let shown = asked[0].1["params"]["message"].as_str().unwrap();
    assert!(
        shown.contains("Tool `ask_twice` asks: Second question?"),
        "{shown}"
    );
    let third = call(
        &server,
        ALICE,
        "ask_twice",
        json!({}),
        Some(&state),
        Some(json!({ asked[0].0.as_str(): {"action": "decline"} })),
    )
    .await;
    assert_eq!(text(&third), "true declined");
}

#[tokio::test]
async fn a_question_after_a_side_effect_is_refused() {
    let server = start().await;
    let done = call(&server, ALICE, "write_then_ask", json!({}), None, None).await;
    assert_eq!(done["result"]["isError"], true, "{done}");
    let said = text(&done);
    assert!(
        said.contains("already changed something in this run (wrote report.txt)"),
        "{said}"
    );
}

#[tokio::test]
async fn sampling_goes_through_the_rounds_too() {
    let server = start().await;
    let (asked, state) = questions(&call(&server, ALICE, "summarize", json!({}), None, None).await);
    assert_eq!(asked[0].1["method"], "sampling/createMessage");
    assert_eq!(asked[0].1["params"]["maxTokens"], 50);
    let reply = json!({
        "role": "assistant", "model": "test-model", "stopReason": "endTurn",
        "content": {"type": "text", "text": "abc"},
    });
    let done = call(
        &server,
        ALICE,
        "summarize",
        json!({}),
        Some(&state),
        Some(json!({ asked[0].0.as_str(): reply })),
    )
    .await;
    assert_eq!(text(&done), "model said: abc");
}
