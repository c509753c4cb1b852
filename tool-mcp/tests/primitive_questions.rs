//! A prompt's and a resource's handler asks its user as a tool does, in both protocol eras:
//! over a session (handshake era) as requests, and for a 2026-07-28 client in the result of
//! `prompts/get` / `resources/read` (an `InputRequiredResult` with a sealed `requestState`).
//! The question names what asks ("Prompt `x` asks", "Resource `uri` asks"). And what an
//! attacker does with the states: a tool call's state replayed on `prompts/get`, a state
//! for one prompt (or URI, or arguments) used on another, a state used twice, an answer
//! sent without a state. (Another caller's state: the seal's unit tests, `ask::rounds`.)

#![allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{message, post};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    GetPromptRequestParams, Implementation, ReadResourceRequestParams,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwright_core::client::Ask;
use toolwright_core::{Elicitation, ToolContext, ToolError, prompt, resource, tool};
use toolwright_mcp::{HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

/// Long enough for any machine; only so a regression (a run that does not stop at its
/// question) fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(120);

/// A topic.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Topic {
    /// The topic
    topic: String,
}

/// A yes or no.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Yes?
    ok: bool,
}

/// Asks for the topic of a review, under the key `topic`.
#[prompt]
async fn review(
    ctx: &ToolContext,
    /// The reviewer's tone
    tone: String,
) -> Result<String, ToolError> {
    let answer = ctx
        .ask(Ask::form::<Topic>("Which topic?").key("topic"))
        .await?;
    Ok(match answer.form::<Topic>()? {
        Elicitation::Accepted(Topic { topic }) => format!("Review {topic}, {tone}."),
        _ => "No topic.".to_owned(),
    })
}

/// Asks the same question as `review`, under the same key: a different prompt.
#[prompt]
async fn summary(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask(Ask::form::<Topic>("Which topic?").key("topic"))
        .await?;
    Ok(match answer.form::<Topic>()? {
        Elicitation::Accepted(Topic { topic }) => format!("Summarize {topic}."),
        _ => "No topic.".to_owned(),
    })
}

/// A vault entry: asks to unlock it first.
#[resource(uri = "vault://{id}", mime_type = "text/plain")]
async fn vault(ctx: &ToolContext, id: String) -> Result<String, ToolError> {
    let answer = ctx
        .ask(Ask::form::<Confirm>(format!("Unlock entry {id}?")).key("unlock"))
        .await?;
    Ok(match answer.form::<Confirm>()? {
        Elicitation::Accepted(Confirm { ok: true }) => format!("secret {id}"),
        _ => "locked".to_owned(),
    })
}

/// A dangerous resource: its read needs the user's approval.
#[resource(uri = "launch://codes", mime_type = "text/plain", safety = "dangerous")]
fn launch_codes() -> &'static str {
    "0000"
}

/// A tool named as the prompt `summary`, asking the same question under the same key, with
/// the same (no) arguments: only the method tells their states apart.
#[tool(name = "summary")]
async fn summary_tool(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask(Ask::form::<Topic>("Which topic?").key("topic"))
        .await?;
    Ok(match answer.form::<Topic>()? {
        Elicitation::Accepted(Topic { topic }) => topic,
        _ => "none".to_owned(),
    })
}

fn executor() -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap())).build()
}

async fn start() -> HttpServer {
    McpServer::new(executor())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap()
}

// ---- MCP 2026-07-28: questions in the result ----

/// One request of a 2026-07-28 client that declared elicitation.
async fn request(server: &HttpServer, method: &str, mut params: Value, name: &str) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "primitive-questions", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
    let sent = post(&reqwest::Client::new(), &server.url(), &body)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .timeout(DEADLINE)
        .send();
    let response = tokio::time::timeout(DEADLINE, sent)
        .await
        .expect("no answer before the deadline")
        .unwrap();
    message(&response.text().await.unwrap())
}

/// `params` with the state and the answers of a repeated request.
fn retried(mut params: Value, state: Option<&str>, responses: Option<Value>) -> Value {
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    params
}

async fn get_prompt(
    server: &HttpServer,
    name: &str,
    arguments: Value,
    state: Option<&str>,
    responses: Option<Value>,
) -> Value {
    let params = retried(
        json!({"name": name, "arguments": arguments}),
        state,
        responses,
    );
    request(server, "prompts/get", params, name).await
}

async fn read(
    server: &HttpServer,
    uri: &str,
    state: Option<&str>,
    responses: Option<Value>,
) -> Value {
    let params = retried(json!({"uri": uri}), state, responses);
    request(server, "resources/read", params, uri).await
}

/// The questions of an `InputRequiredResult`, by key, and its state.
fn questions(response: &Value) -> (serde_json::Map<String, Value>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let asked = result["inputRequests"].as_object().cloned().unwrap();
    (asked, result["requestState"].as_str().unwrap().to_owned())
}

fn refusal(response: &Value) -> String {
    response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not refused: {response}"))
        .to_owned()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn prompt_text(response: &Value) -> String {
    response["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no message: {response}"))
        .to_owned()
}

#[tokio::test]
async fn a_prompt_asks_in_its_result_and_the_answer_is_read_once() {
    let server = start().await;
    let tone = json!({"tone": "kind"});
    let first = get_prompt(&server, "review", tone.clone(), None, None).await;
    let (asked, state) = questions(&first);
    assert_eq!(asked.keys().collect::<Vec<_>>(), ["topic"], "{first}");
    assert_eq!(asked["topic"]["method"], "elicitation/create");
    assert_eq!(
        asked["topic"]["params"]["message"],
        "Prompt `review` asks: Which topic?"
    );

    let answer = json!({"topic": accept(json!({"topic": "tests"}))});
    let done = get_prompt(
        &server,
        "review",
        tone.clone(),
        Some(&state),
        Some(answer.clone()),
    )
    .await;
    assert_eq!(prompt_text(&done), "Review tests, kind.", "{done}");

    // The same state again: refused, the handler does not run on a replayed answer.
    let replayed = get_prompt(&server, "review", tone.clone(), Some(&state), Some(answer)).await;
    assert!(refusal(&replayed).contains("already used"), "{replayed}");

    // An answer under the key with no state the server sealed answers nothing: asked again.
    let forged = json!({"topic": accept(json!({"topic": "Mallory's"}))});
    let again = get_prompt(&server, "review", tone, None, Some(forged)).await;
    assert!(questions(&again).0.contains_key("topic"), "{again}");
}

#[tokio::test]
async fn a_resource_read_asks_in_its_result_naming_the_uri() {
    let server = start().await;
    let first = read(&server, "vault://7", None, None).await;
    let (asked, state) = questions(&first);
    assert_eq!(
        asked["unlock"]["params"]["message"],
        "Resource `vault://7` asks: Unlock entry 7?"
    );
    let answer = json!({"unlock": accept(json!({"ok": true}))});
    let done = read(&server, "vault://7", Some(&state), Some(answer)).await;
    assert_eq!(done["result"]["contents"][0]["text"], "secret 7", "{done}");
}

#[tokio::test]
async fn a_dangerous_read_is_approved_in_the_result_and_a_refusal_is_kept() {
    let server = start().await;
    let first = read(&server, "launch://codes", None, None).await;
    let (asked, state) = questions(&first);
    let [(key, question)] = <[(String, Value); 1]>::try_from(asked.into_iter().collect::<Vec<_>>())
        .unwrap_or_else(|_| panic!("not one question: {first}"));
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let approve = json!({key.clone(): accept(json!({"approve": true}))});
    let done = read(&server, "launch://codes", Some(&state), Some(approve)).await;
    assert_eq!(done["result"]["contents"][0]["text"], "0000", "{done}");

    let (asked, state) = questions(&read(&server, "launch://codes", None, None).await);
    let key = asked.keys().next().unwrap().clone();
    let deny = json!({key: accept(json!({"approve": false}))});
    let denied = read(&server, "launch://codes", Some(&state), Some(deny)).await;
    assert!(refusal(&denied).contains("not approved"), "{denied}");
}

#[tokio::test]
async fn a_state_for_one_uri_does_not_open_another() {
    let server = start().await;
    let (_, state) = questions(&read(&server, "vault://7", None, None).await);
    let answer = json!({"unlock": accept(json!({"ok": true}))});
    let other = read(&server, "vault://8", Some(&state), Some(answer.clone())).await;
    assert!(refusal(&other).contains("not issued for it"), "{other}");
    // Refused before it was claimed: still good for the URI it was sealed for.
    let done = read(&server, "vault://7", Some(&state), Some(answer)).await;
    assert_eq!(done["result"]["contents"][0]["text"], "secret 7", "{done}");
}

#[tokio::test]
async fn a_state_for_prompt_a_or_other_arguments_does_not_answer_prompt_b() {
    let server = start().await;
    let tone = json!({"tone": "kind"});
    let (_, state) = questions(&get_prompt(&server, "review", tone.clone(), None, None).await);
    let answer = json!({"topic": accept(json!({"topic": "tests"}))});
    // The same question under the same key, by another prompt: refused.
    let other = get_prompt(
        &server,
        "summary",
        json!({}),
        Some(&state),
        Some(answer.clone()),
    )
    .await;
    assert!(refusal(&other).contains("not issued for it"), "{other}");
    // The same prompt with other arguments: refused.
    let harsh = json!({"tone": "harsh"});
    let changed = get_prompt(&server, "review", harsh, Some(&state), Some(answer.clone())).await;
    assert!(refusal(&changed).contains("not issued for it"), "{changed}");
    // A resource read: refused.
    let read_it = read(&server, "vault://7", Some(&state), Some(answer)).await;
    assert!(refusal(&read_it).contains("not issued for it"), "{read_it}");
}

#[tokio::test]
async fn a_tool_calls_state_replayed_on_prompts_get_is_refused() {
    let server = start().await;
    let call = request(
        &server,
        "tools/call",
        json!({"name": "summary", "arguments": {}}),
        "summary",
    )
    .await;
    let (asked, state) = questions(&call);
    assert_eq!(
        asked["topic"]["params"]["message"],
        "Tool `summary` asks: Which topic?"
    );
    let answer = json!({"topic": accept(json!({"topic": "tests"}))});
    let replayed = get_prompt(&server, "summary", json!({}), Some(&state), Some(answer)).await;
    assert!(
        refusal(&replayed).contains("not issued for it"),
        "{replayed}"
    );
}

// ---- the handshake era: questions as requests over the session ----

/// A client that answers every form with `answer` and notes the messages it was shown.
#[derive(Clone)]
struct Client {
    answer: Value,
    shown: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("primitive-questions", "0.0.1"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let message = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. } => message.clone(),
            _ => String::new(),
        };
        self.shown.lock().unwrap().push(message);
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(self.answer.clone()))
    }
}

/// A server on an in-memory pipe (the stdio transport), and a client connected to it.
async fn over_stdio(client: Client) -> RunningService<RoleClient, Client> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(McpServer::new(executor()).serve_io(server_read, server_write));
    client.serve(tokio::io::split(client_end)).await.unwrap()
}

#[tokio::test]
async fn over_a_session_a_prompt_and_a_resource_ask_as_requests_naming_themselves() {
    let shown = Arc::default();
    let client = over_stdio(Client {
        answer: json!({"topic": "tests", "ok": true}),
        shown: Arc::clone(&shown),
    })
    .await;
    let mut arguments = serde_json::Map::new();
    arguments.insert("tone".to_owned(), json!("kind"));
    let got = tokio::time::timeout(
        DEADLINE,
        client.get_prompt(GetPromptRequestParams::new("review").with_arguments(arguments)),
    )
    .await
    .expect("no answer before the deadline")
    .unwrap();
    let text = serde_json::to_value(&got.messages[0]).unwrap();
    assert_eq!(text["content"]["text"], "Review tests, kind.", "{text}");
    let contents = tokio::time::timeout(
        DEADLINE,
        client.read_resource(ReadResourceRequestParams::new("vault://3")),
    )
    .await
    .expect("no answer before the deadline")
    .unwrap();
    let contents = serde_json::to_value(&contents).unwrap();
    assert_eq!(contents["contents"][0]["text"], "secret 3", "{contents}");
    assert_eq!(
        *shown.lock().unwrap(),
        [
            "Prompt `review` asks: Which topic?",
            "Resource `vault://3` asks: Unlock entry 3?"
        ]
    );
}
