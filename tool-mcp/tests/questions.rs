//! What a tool may ask since issue 39, in both protocol eras: a question under a key of its
//! choosing, several questions in one round, the client's roots, a task tool that asks first,
//! and a parameter sent in an HTTP header; and what an attacker does with them: an answer
//! kept for a key the tool reuses for another question, a forged key, a replayed state, more
//! questions than the call may ask, a header that disagrees with the argument.

#![allow(deprecated)] // rmcp marks sampling and roots deprecated (SEP-2577).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{message, post};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
    ListRootsResult, Root as McpRoot, SamplingMessage as McpMessage,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Barrier;
use toolwright_core::client::{Answer, Ask, SamplingMessage, SamplingOptions};
use toolwright_core::{ClientError, Elicitation, ToolContext, ToolError, tool};
use toolwright_mcp::{HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

/// Long enough for any machine; only so a regression fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(120);

/// A name.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

/// A yes or no.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Yes?
    ok: bool,
}

/// The version `deploy_version` asks about (changed by one test between its rounds).
static VERSION: AtomicUsize = AtomicUsize::new(1);

/// Ask for a name under the key `user_name`.
#[tool]
async fn greet_by_key(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .ask(Ask::form::<Name>("What is your name?").key("user_name"))
        .await?;
    Ok(match answer.form::<Name>()? {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        _ => "no name".to_owned(),
    })
}

/// Ask to confirm the current version, under the key `confirm`.
#[tool]
async fn deploy_version(ctx: &ToolContext) -> Result<String, ToolError> {
    let version = VERSION.load(Ordering::SeqCst);
    let question = Ask::form::<Confirm>(format!("Deploy version {version}?")).key("confirm");
    Ok(match ctx.ask(question).await?.form::<Confirm>()? {
        Elicitation::Accepted(Confirm { ok: true }) => format!("deployed version {version}"),
        _ => "not deployed".to_owned(),
    })
}

/// Ask two different questions under one key, one after the other.
#[tool]
async fn two_under_one_key(ctx: &ToolContext) -> Result<String, ToolError> {
    let first = ctx
        .ask(Ask::form::<Name>("First name?").key("k"))
        .await?
        .form::<Name>()?;
    let second = ctx
        .ask(Ask::form::<Name>("Last name?").key("k"))
        .await?
        .form::<Name>()?;
    let name = |answer: Elicitation<Name>| answer.accepted().map(|n| n.name).unwrap_or_default();
    Ok(format!("{} {}", name(first), name(second)))
}

/// Ask a name, the client's model and the client's roots, in one round.
#[tool]
async fn three_at_once(ctx: &ToolContext) -> String {
    let asked = ctx
        .ask_all([
            Ask::form::<Name>("What is your name?").key("user_name"),
            Ask::sample(
                vec![SamplingMessage::user("Generate a greeting")],
                SamplingOptions::new(50),
            )
            .key("greeting"),
            Ask::roots().key("client_roots"),
        ])
        .await;
    let answers = match asked {
        Ok(answers) => answers,
        Err(ClientError::InputRequired) => return "input required".to_owned(),
        Err(error) => return format!("error: {error}"),
    };
    let Ok([name, greeting, roots]) = <[Answer; 3]>::try_from(answers) else {
        return "not three answers".to_owned();
    };
    let name = name.form::<Name>().ok().and_then(Elicitation::accepted);
    let roots = roots.roots().unwrap_or_default();
    format!(
        "{} / {} / {}",
        name.map(|n| n.name).unwrap_or_default(),
        greeting.sampled().map(|m| m.text).unwrap_or_default(),
        roots
            .iter()
            .map(|r| r.uri.as_str())
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The client's roots.
#[tool]
async fn list_roots(ctx: &ToolContext) -> String {
    match ctx.roots().await {
        Ok(roots) => roots
            .iter()
            .map(|r| format!("{} ({})", r.uri, r.name.as_deref().unwrap_or("-")))
            .collect::<Vec<_>>()
            .join(", "),
        Err(error) => format!("error: {error}"),
    }
}

/// Greet someone; a task, which asks first.
#[tool(task = "required", ask_first)]
async fn greet_as_task(ctx: &ToolContext) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<Name>("Who is it for?").await? {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        _ => "no name".to_owned(),
    })
}

/// Index the client's roots and ask the client's model; a task, which asks both first.
#[tool(task = "optional", ask_first)]
async fn index_as_task(ctx: &ToolContext) -> Result<String, ToolError> {
    let answers = ctx
        .ask_all([
            Ask::roots(),
            Ask::sample(
                vec![SamplingMessage::user("Label?")],
                SamplingOptions::new(9),
            ),
        ])
        .await?;
    let [roots, label] =
        <[Answer; 2]>::try_from(answers).map_err(|_| ToolError::new("not two answers"))?;
    Ok(format!(
        "{} roots, {}",
        roots.roots()?.len(),
        label.sampled()?.text
    ))
}

/// Route to a region, sent in a header too.
#[tool]
fn route(
    /// Where.
    #[arg(header = "Region")]
    region: String,
) -> String {
    format!("routed to {region}")
}

fn executor(max_client_requests: u32) -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_client_requests(max_client_requests)
        .build()
}

async fn start(max_client_requests: u32) -> HttpServer {
    McpServer::new(executor(max_client_requests))
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap()
}

// ---- MCP 2026-07-28: questions in the call's result ----

/// What a 2026-07-28 client declares in each request.
fn capabilities(roots: bool) -> Value {
    let mut declared = json!({
        "elicitation": {}, "sampling": {},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    });
    if roots {
        declared["roots"] = json!({});
    }
    declared
}

/// One request of a 2026-07-28 client; the JSON-RPC response and the HTTP status.
async fn request(server: &HttpServer, method: &str, mut params: Value, name: &str) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "questions-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities(params.get("noRoots").is_none()),
    });
    if let Some(object) = params.as_object_mut() {
        object.remove("noRoots");
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let response = post(&reqwest::Client::new(), &server.url(), &body)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, message(&response.text().await.unwrap()))
}

/// A `tools/call` of a 2026-07-28 client that declared elicitation, sampling, roots and
/// tasks.
async fn call(
    server: &HttpServer,
    tool: &str,
    state: Option<&str>,
    responses: Option<Value>,
) -> Value {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    request(server, "tools/call", params, tool).await.1
}

/// The questions of an `InputRequiredResult`, by key, and its state.
fn questions(response: &Value) -> (serde_json::Map<String, Value>, String) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let asked = result["inputRequests"].as_object().cloned().unwrap();
    (asked, result["requestState"].as_str().unwrap().to_owned())
}

fn text(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {response}"))
        .to_owned()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test]
async fn a_named_key_is_on_the_wire_and_its_answer_is_read_once() {
    let server = start(10).await;
    let first = call(&server, "greet_by_key", None, None).await;
    let (asked, state) = questions(&first);
    assert_eq!(asked.keys().collect::<Vec<_>>(), ["user_name"], "{first}");
    assert_eq!(asked["user_name"]["method"], "elicitation/create");

    let answer = json!({"user_name": accept(json!({"name": "Ada"}))});
    let done = call(&server, "greet_by_key", Some(&state), Some(answer.clone())).await;
    assert_eq!(text(&done), "Hello, Ada!");

    // The same state again: refused, the tool does not run on a replayed answer.
    let replayed = call(&server, "greet_by_key", Some(&state), Some(answer)).await;
    assert!(
        replayed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already used"),
        "{replayed}"
    );

    // An answer under the key without a state the server sealed answers nothing: asked again.
    let forged = json!({"user_name": accept(json!({"name": "Mallory"}))});
    let again = call(&server, "greet_by_key", None, Some(forged)).await;
    assert!(questions(&again).0.contains_key("user_name"), "{again}");
}

#[tokio::test]
async fn an_answer_under_a_key_does_not_answer_another_question_under_that_key() {
    let server = start(10).await;
    // Round 1 asks "version 1?" under `confirm`.
    let first = call(&server, "deploy_version", None, None).await;
    let (asked, state) = questions(&first);
    let shown = asked["confirm"]["params"]["message"].as_str().unwrap();
    assert!(shown.contains("version 1"), "{shown}");

    // The question changes before the answer comes back: the answer was for version 1, so
    // the run asks again, under the same key, about version 2.
    VERSION.store(2, Ordering::SeqCst);
    let answer = json!({"confirm": accept(json!({"ok": true}))});
    let second = call(&server, "deploy_version", Some(&state), Some(answer)).await;
    let (asked, state) = questions(&second);
    let shown = asked["confirm"]["params"]["message"].as_str().unwrap();
    assert!(
        shown.contains("version 2"),
        "the old answer was used: {second}"
    );

    let answer = json!({"confirm": accept(json!({"ok": true}))});
    let done = call(&server, "deploy_version", Some(&state), Some(answer)).await;
    assert_eq!(text(&done), "deployed version 2");
}

#[tokio::test]
async fn a_key_reused_for_the_next_question_gets_that_question_asked() {
    let server = start(10).await;
    let first = call(&server, "two_under_one_key", None, None).await;
    let (asked, state) = questions(&first);
    let shown = asked["k"]["params"]["message"].as_str().unwrap();
    assert!(shown.contains("First name?"), "{first}");

    let answer = json!({"k": accept(json!({"name": "Ada"}))});
    let second = call(&server, "two_under_one_key", Some(&state), Some(answer)).await;
    let (asked, state) = questions(&second);
    assert!(
        asked["k"]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("Last name?"),
        "the first answer answered the second question: {second}"
    );

    let answer = json!({"k": accept(json!({"name": "Lovelace"}))});
    let done = call(&server, "two_under_one_key", Some(&state), Some(answer)).await;
    assert_eq!(text(&done), "Ada Lovelace");
}

#[tokio::test]
async fn three_questions_are_asked_in_one_round_and_answered_together() {
    let server = start(10).await;
    let first = call(&server, "three_at_once", None, None).await;
    let (asked, state) = questions(&first);
    let methods: Vec<&str> = ["user_name", "greeting", "client_roots"]
        .iter()
        .map(|key| asked[*key]["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"]
    );

    let answers = json!({
        "user_name": accept(json!({"name": "Ada"})),
        "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hi!"}, "model": "m"},
        "client_roots": {"roots": [{"uri": "file:///work", "name": "work"}]},
        "not_asked": accept(json!({"name": "Mallory"})),
    });
    let done = call(&server, "three_at_once", Some(&state), Some(answers)).await;
    assert_eq!(text(&done), "Ada / Hi! / file:///work");
}

#[tokio::test]
async fn more_questions_than_the_call_may_ask_are_refused_before_any_is_asked() {
    let server = start(2).await;
    let refused = call(&server, "three_at_once", None, None).await;
    let said = text(&refused);
    assert!(said.contains("already made 2 requests"), "{refused}");
    assert_ne!(refused["result"]["resultType"], "input_required");
}

#[tokio::test]
async fn roots_are_refused_cleanly_to_a_client_that_did_not_declare_them() {
    let server = start(10).await;
    let params = json!({"name": "list_roots", "arguments": {}, "noRoots": true});
    let (_, response) = request(&server, "tools/call", params, "list_roots").await;
    assert_eq!(
        text(&response),
        "error: roots is not available here: the MCP client did not declare the roots capability"
    );
    // With roots declared: asked, then answered.
    let first = call(&server, "list_roots", None, None).await;
    let (asked, state) = questions(&first);
    let key = asked.keys().next().unwrap().clone();
    assert_eq!(asked[&key]["method"], "roots/list");
    let answer = json!({ key: {"roots": [{"uri": "file:///a"}]} });
    let done = call(&server, "list_roots", Some(&state), Some(answer)).await;
    assert_eq!(text(&done), "file:///a (-)");
}

#[tokio::test]
async fn a_task_tool_that_asks_first_asks_in_the_call_then_becomes_a_task() {
    let server = start(10).await;
    let first = call(&server, "greet_as_task", None, None).await;
    assert!(first["result"].get("taskId").is_none(), "{first}");
    let (asked, state) = questions(&first);
    let key = asked.keys().next().unwrap().clone();

    let answer = json!({ key: accept(json!({"name": "Ada"})) });
    let second = call(&server, "greet_as_task", Some(&state), Some(answer)).await;
    let result = &second["result"];
    assert_eq!(result["resultType"], "task", "{second}");
    assert!(result.get("requestState").is_none() && result.get("inputRequests").is_none());
    let id = result["taskId"].as_str().unwrap().to_owned();

    // The task's run finds the answer: it completes without asking again.
    let task = finished(&server, &id).await;
    assert_eq!(
        task["status"], "completed",
        "asked again, or failed: {task}"
    );
    assert_eq!(
        task["result"]["content"][0]["text"], "Hello, Ada!",
        "{task}"
    );
}

/// Polls `tasks/get` until the task is no longer working; its `result`.
async fn finished(server: &HttpServer, id: &str) -> Value {
    let started = tokio::time::Instant::now();
    loop {
        let (_, task) = request(server, "tasks/get", json!({"taskId": id}), id).await;
        let task = task["result"].clone();
        if task["status"] != "working" {
            return task;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "the task never finished: {task}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_task_that_asks_first_finds_the_roots_and_the_models_answer_in_its_run() {
    let server = start(10).await;
    let first = call(&server, "index_as_task", None, None).await;
    let (asked, state) = questions(&first);
    assert_eq!(asked.len(), 2, "{first}");
    let answers: serde_json::Map<String, Value> = asked
        .iter()
        .map(|(key, request)| {
            let answer = match request["method"].as_str() {
                Some("roots/list") => json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
                _ => json!({"role": "assistant", "content": {"type": "text", "text": "docs"}, "model": "m"}),
            };
            (key.clone(), answer)
        })
        .collect();
    let second = call(
        &server,
        "index_as_task",
        Some(&state),
        Some(Value::Object(answers)),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "task", "{second}");
    let id = second["result"]["taskId"].as_str().unwrap().to_owned();
    let task = finished(&server, &id).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        task["result"]["content"][0]["text"], "2 roots, docs",
        "{task}"
    );
}

#[tokio::test]
async fn a_header_that_disagrees_with_its_argument_is_refused() {
    let server = start(10).await;
    let (listed_status, listed) = request(&server, "tools/list", json!({}), "").await;
    assert_eq!(listed_status, 200);
    let route = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "route")
        .unwrap()
        .clone();
    assert_eq!(
        route["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );

    let send = |header: Option<&'static str>| {
        let url = server.url();
        async move {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "route", "arguments": {"region": "eu"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            }});
            let mut post = post(&reqwest::Client::new(), &url, &body)
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "route");
            if let Some(value) = header {
                post = post.header("mcp-param-region", value);
            }
            let response = post.send().await.unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    };
    let (status, body) = send(Some("eu")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text(&message(&body)), "routed to eu");
    for header in [Some("us"), None, Some("=?base64?ZXU?=")] {
        let (status, body) = send(header).await;
        assert_eq!(status, 400, "{header:?}: {body}");
        assert_eq!(
            message(&body)["error"]["code"],
            -32020,
            "{header:?}: {body}"
        );
    }
    // The same value in Base64 is the same value.
    let (status, body) = send(Some("=?base64?ZXU=?=")).await;
    assert_eq!(status, 200, "{body}");
}

// ---- the handshake era: requests to the client while the call runs ----

/// A client that declares elicitation, sampling and roots; its elicitation and sampling
/// answers each wait until both requests arrived (so a server that sent them one after the
/// other would never see either answered).
#[derive(Clone)]
struct Client {
    roots: bool,
    /// Set for a batch of a form and a sampling request: each waits for the other.
    both_arrived: Option<Arc<Barrier>>,
    asked: Arc<Mutex<Vec<&'static str>>>,
}

impl Client {
    async fn both_arrived(&self) -> bool {
        let Some(barrier) = &self.both_arrived else {
            return true;
        };
        tokio::time::timeout(DEADLINE, barrier.wait()).await.is_ok()
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_sampling()
            .build();
        if self.roots {
            capabilities.roots = ClientCapabilities::builder().enable_roots().build().roots;
        }
        ClientConfig::new(
            capabilities,
            Implementation::new("questions-client", "0.0.1"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        self.asked.lock().unwrap().push("elicitation");
        if !self.both_arrived().await {
            return Err(rmcp::ErrorData::internal_error("sent one at a time", None));
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada"})))
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, rmcp::ErrorData> {
        self.asked.lock().unwrap().push("sampling");
        if !self.both_arrived().await {
            return Err(rmcp::ErrorData::internal_error("sent one at a time", None));
        }
        Ok(CreateMessageResult::new(
            McpMessage::assistant_text("Hi!"),
            "m".to_owned(),
        ))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, rmcp::ErrorData> {
        self.asked.lock().unwrap().push("roots");
        Ok(ListRootsResult::new(vec![McpRoot::new("file:///work")]))
    }
}

fn handshake_client(roots: bool) -> Client {
    Client {
        roots,
        both_arrived: Some(Arc::new(Barrier::new(2))),
        asked: Arc::default(),
    }
}

/// A server on an in-memory pipe (the stdio transport), and a client connected to it.
async fn over_stdio(executor: Executor, client: Client) -> RunningService<RoleClient, Client> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(McpServer::new(executor).serve_io(server_read, server_write));
    client.serve(tokio::io::split(client_end)).await.unwrap()
}

async fn call_over(client: &RunningService<RoleClient, Client>, name: &str) -> String {
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_owned()))
        .await
        .unwrap();
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test]
async fn over_a_session_a_batch_is_sent_as_concurrent_requests() {
    let handler = handshake_client(true);
    let asked = Arc::clone(&handler.asked);
    let client = over_stdio(executor(10), handler).await;
    assert_eq!(
        call_over(&client, "three_at_once").await,
        "Ada / Hi! / file:///work"
    );
    assert_eq!(asked.lock().unwrap().len(), 3);
    assert_eq!(call_over(&client, "list_roots").await, "file:///work (-)");
}

#[tokio::test]
async fn over_a_session_a_batch_the_client_cannot_answer_is_refused_whole() {
    let handler = handshake_client(false);
    let asked = Arc::clone(&handler.asked);
    let client = over_stdio(executor(10), handler).await;
    let said = call_over(&client, "three_at_once").await;
    assert!(
        said.contains("did not declare the roots capability"),
        "{said}"
    );
    let over = over_stdio(executor(2), handshake_client(true)).await;
    let said = call_over(&over, "three_at_once").await;
    assert!(said.contains("already made 2 requests"), "{said}");
    assert!(asked.lock().unwrap().is_empty(), "asked before refusing");
}

#[tokio::test]
async fn over_a_session_a_named_key_and_the_roots_are_asked_as_requests() {
    let mut handler = handshake_client(true);
    handler.both_arrived = None;
    let asked = Arc::clone(&handler.asked);
    let client = over_stdio(executor(10), handler).await;
    assert_eq!(call_over(&client, "greet_by_key").await, "Hello, Ada!");
    assert_eq!(call_over(&client, "list_roots").await, "file:///work (-)");
    assert_eq!(*asked.lock().unwrap(), ["elicitation", "roots"]);
    // A client that did not declare roots: refused, and nothing is sent.
    let mut handler = handshake_client(false);
    handler.both_arrived = None;
    let asked = Arc::clone(&handler.asked);
    let client = over_stdio(executor(10), handler).await;
    let said = call_over(&client, "list_roots").await;
    assert!(
        said.contains("did not declare the roots capability"),
        "{said}"
    );
    assert!(asked.lock().unwrap().is_empty());
}
