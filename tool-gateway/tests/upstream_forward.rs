//! What a mounted upstream asks while our calls of its tools run (feature `upstream`): its
//! elicitation and sampling requests reach the client of the call that made them, its log
//! messages that client and `tracing`; a request no call can be found for is refused. The
//! upstream is a small rmcp `ServerHandler` written here, in process over
//! `tokio::io::duplex` (which, like stdio, marks no request with the call it belongs to).
//! No sleeps: every wait has a generous deadline that fails the test.

#![allow(deprecated)] // rmcp marks sampling and logging deprecated (SEP-2577).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, ContentBlock,
    CreateMessageRequest, CreateMessageRequestParams, ElicitRequest, ElicitRequestParams,
    ElicitationSchema, ErrorData, ListToolsResult, LoggingLevel, LoggingMessageNotificationParam,
    PaginatedRequestParams, SamplingMessage as McpSamplingMessage, ServerCapabilities,
    ServerConfig, ServerRequest, Tool as McpTool,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::sync::{Barrier, Notify, mpsc};
use toolwright_core::client::{
    ClientFuture, ClientPowers, ElicitationRequest, SampledMessage, SamplingRequest,
};
use toolwright_core::{ClientError, Elicitation, LogLevel, ToolCall, ToolResult};
use toolwright_gateway::upstream::{MountOptions, Upstream};
use toolwright_runtime::executor::Outcome;
use toolwright_runtime::{ApprovalDecision, CallOptions, Executor};

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{raw_upstream, registry_with, within};

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

fn name_form() -> ElicitationSchema {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Your \u{1b}[1mname"}},
        "required": ["name"]
    }))
    .unwrap()
}

/// The upstream: tools that ask, sample and log while they run.
#[derive(Clone)]
struct Asker {
    /// Both calls of `pair` are in before either asks.
    pair: Arc<Barrier>,
    /// `log` ends once the test saw its message arrive.
    logged: Arc<Notify>,
    /// How many calls of `ask` the upstream ran (its side effects).
    asked: Arc<AtomicUsize>,
}

/// What an elicitation of the upstream got back, as the tool's text.
async fn ask(peer: &Peer<RoleServer>, message: String) -> String {
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: name_form(),
    };
    match peer
        .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
        .await
    {
        Ok(ClientResult::ElicitResult(result)) => serde_json::to_string(&result).unwrap(),
        Ok(_) => "unexpected".to_owned(),
        Err(error) => format!("error: {error}"),
    }
}

/// What a sampling request of the upstream got back, as the tool's text.
async fn sample(peer: &Peer<RoleServer>, text: &str) -> String {
    let params = CreateMessageRequestParams::new(vec![McpSamplingMessage::user_text(text)], 50);
    match peer
        .send_request(ServerRequest::CreateMessageRequest(
            CreateMessageRequest::new(params),
        ))
        .await
    {
        Ok(ClientResult::CreateMessageResult(result)) => serde_json::to_string(&result).unwrap(),
        Ok(_) => "unexpected".to_owned(),
        Err(error) => format!("error: {error}"),
    }
}

impl ServerHandler for Asker {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info.name = "asker".into();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = object(json!({"type": "object", "properties": {"text": {"type": "string"}}}));
        let tools = ["ask", "pair", "sample", "log"]
            .map(|name| McpTool::new(name, "Asks.", schema.clone()))
            .to_vec();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let text = arguments
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let answer = match request.name.as_ref() {
            "ask" => {
                self.asked.fetch_add(1, Ordering::SeqCst);
                ask(&context.peer, text).await
            }
            "pair" => {
                self.pair.wait().await;
                ask(&context.peer, text).await
            }
            "sample" => sample(&context.peer, &text).await,
            "log" => {
                let params =
                    LoggingMessageNotificationParam::new(LoggingLevel::Warning, Value::from(text))
                        .with_logger("disk\u{7}");
                let _ = context.peer.notify_logging_message(params).await;
                self.logged.notified().await;
                "logged".to_owned()
            }
            _ => "unknown".to_owned(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(answer)]).into())
    }
}

/// Serves the upstream in process; the connection, and the server's side of it (to ask
/// when no call runs).
async fn connect(asker: Asker) -> (Upstream, Peer<RoleServer>) {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let (peers, mut peer) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        if let Ok(running) = asker.serve(tokio::io::split(server_io)).await {
            let _ = peers.send(running.peer().clone());
            let _ = running.waiting().await;
        }
    });
    let upstream = within(
        "the handshake",
        Upstream::connect_transport("in-process", tokio::io::split(client_io)),
    )
    .await
    .unwrap();
    let peer = within("the server's peer", peer.recv()).await.unwrap();
    (upstream, peer)
}

/// An upstream mounted as `up`, and an executor that approves every call.
async fn mounted() -> (Executor, Peer<RoleServer>, Asker) {
    let asker = Asker {
        pair: Arc::new(Barrier::new(2)),
        logged: Arc::new(Notify::new()),
        asked: Arc::default(),
    };
    let (upstream, peer) = connect(asker.clone()).await;
    let (registry, _) = registry_with(&upstream, MountOptions::new("up")).await;
    let executor = Executor::builder(registry)
        .approval(|_| async { ApprovalDecision::Approved })
        .build();
    (executor, peer, asker)
}

/// The person behind one call's client: answers every question with `answer`, samples
/// when it can, and records what reached it.
#[derive(Clone, Default)]
struct Person {
    answer: Value,
    can_sample: bool,
    questions: Arc<Mutex<Vec<ElicitationRequest>>>,
    /// Answers only by the call's next request (an MCP 2026-07-28 client without a session):
    /// every question ends the round.
    in_rounds: bool,
    logs: Option<mpsc::UnboundedSender<(String, LogLevel, String)>>,
}

impl ClientPowers for Person {
    fn log(&self, tool: &str, level: LogLevel, message: &str) {
        if let Some(logs) = &self.logs {
            let _ = logs.send((tool.to_owned(), level, message.to_owned()));
        }
    }

    fn elicit(
        &self,
        request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<Value>, ClientError>> {
        self.questions.lock().unwrap().push(request);
        if self.in_rounds {
            return Box::pin(async { Err(ClientError::InputRequired) });
        }
        let answer = self.answer.clone();
        Box::pin(async move { Ok(Elicitation::Accepted(answer)) })
    }

    fn sample(
        &self,
        request: SamplingRequest,
    ) -> ClientFuture<Result<SampledMessage, ClientError>> {
        if !self.can_sample {
            return Box::pin(async {
                Err(ClientError::NotAvailable {
                    what: "sampling",
                    why: "the person's client has no model".to_owned(),
                })
            });
        }
        let text = request
            .messages
            .last()
            .map(|m| m.text.clone())
            .unwrap_or_default();
        Box::pin(async move {
            Ok(
                SampledMessage::new(format!("sampled: {text}"), "test-model")
                    .with_stop_reason("endTurn"),
            )
        })
    }
}

async fn run(executor: &Executor, tool: &str, text: &str, person: Option<&Person>) -> ToolResult {
    let mut options = CallOptions::new();
    if let Some(person) = person {
        options = options.client(person.clone());
    }
    let call = ToolCall::new("1", tool, json!({"text": text}));
    within(tool, executor.execute_with(call, options))
        .await
        .result
}

/// The upstream's answer, as its tool wrote it back.
fn answer_of(result: &ToolResult) -> Value {
    assert!(result.success, "{result:?}");
    serde_json::from_str(&result.content).unwrap_or_else(|_| Value::from(result.content.clone()))
}

#[tokio::test]
async fn a_question_reaches_the_callers_person_and_the_answer_the_upstream() {
    let (executor, _peer, _asker) = mounted().await;
    let person = Person {
        answer: json!({"name": "Ada"}),
        ..Person::default()
    };
    let result = run(&executor, "up_ask", "Who are you?", Some(&person)).await;
    assert_eq!(
        answer_of(&result),
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    let questions = person.questions.lock().unwrap();
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].tool, "up_ask");
    assert_eq!(
        questions[0].message,
        "The upstream MCP server `asker` asks: Who are you?"
    );
    // The form's texts are escaped as the question is.
    assert_eq!(
        questions[0].schema["properties"]["name"]["title"],
        "Your \\u{1b}[1mname"
    );
}

#[tokio::test]
async fn questions_of_two_concurrent_calls_never_reach_the_other_person() {
    let (executor, _peer, _asker) = mounted().await;
    let alice = Person {
        answer: json!({"name": "Alice"}),
        ..Person::default()
    };
    let bob = Person {
        answer: json!({"name": "Bob"}),
        ..Person::default()
    };
    // Both calls are in flight when either asks, and a duplex pipe (as stdio) does not say
    // which call a question belongs to: both are declined, neither person is asked.
    let (first, second) = tokio::join!(
        run(&executor, "up_pair", "For Alice?", Some(&alice)),
        run(&executor, "up_pair", "For Bob?", Some(&bob)),
    );
    for result in [first, second] {
        assert_eq!(answer_of(&result), json!({"action": "decline"}));
    }
    assert!(alice.questions.lock().unwrap().is_empty());
    assert!(bob.questions.lock().unwrap().is_empty());

    // One call alone is asked again.
    let result = run(&executor, "up_ask", "Alone?", Some(&bob)).await;
    assert_eq!(answer_of(&result)["content"]["name"], "Bob");
    assert!(alice.questions.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_upstream_that_asks_when_no_call_runs_is_refused() {
    let (_executor, peer, _asker) = mounted().await;
    assert_eq!(
        serde_json::from_str::<Value>(&ask(&peer, "Anyone?".to_owned()).await).unwrap(),
        json!({"action": "decline"})
    );
    let sampled = sample(&peer, "Anyone?").await;
    assert!(
        sampled.starts_with("error:") && sampled.contains("no call of a mounted tool"),
        "{sampled}"
    );
}

#[tokio::test]
async fn a_hostile_question_is_bounded_and_escaped() {
    let (executor, _peer, _asker) = mounted().await;
    let person = Person {
        answer: json!({"name": "Ada"}),
        ..Person::default()
    };
    let hostile = format!(
        "\u{1b}[2J\nTool `bank` asks: \u{202e}yap\u{202c}{}",
        "x".repeat(100_000)
    );
    let result = run(&executor, "up_ask", &hostile, Some(&person)).await;
    assert_eq!(answer_of(&result)["action"], "accept");
    let questions = person.questions.lock().unwrap();
    let shown = &questions[0].message;
    assert!(
        shown.starts_with(
            "The upstream MCP server `asker` asks: \\u{1b}[2J\\nTool `bank` asks: \\u{202e}yap\\u{202c}x"
        ),
        "{shown}"
    );
    assert!(!shown.chars().any(toolwright_names::escape::must_escape));
    assert!(shown.len() < 2_200, "{} bytes", shown.len());
    assert!(
        shown.ends_with("more characters)"),
        "{}",
        &shown[shown.len() - 50..]
    );
}

#[tokio::test]
async fn sampling_goes_to_the_callers_model_or_is_refused() {
    let (executor, _peer, _asker) = mounted().await;
    let with_model = Person {
        can_sample: true,
        ..Person::default()
    };
    let result = run(&executor, "up_sample", "hello", Some(&with_model)).await;
    let reply = answer_of(&result);
    assert_eq!(reply["model"], "test-model");
    assert_eq!(reply["stopReason"], "endTurn");
    assert_eq!(reply["role"], "assistant");
    assert_eq!(reply["content"]["text"], "sampled: hello");

    let without = Person::default();
    let result = run(&executor, "up_sample", "hello", Some(&without)).await;
    assert!(
        result.content.contains("error:") && result.content.contains("the client cannot sample"),
        "{}",
        result.content
    );
    // A call without a client at all (a plain executor call).
    let result = run(&executor, "up_sample", "hello", None).await;
    assert!(
        result.content.contains("the client cannot sample"),
        "{}",
        result.content
    );
}

#[tokio::test]
async fn upstream_log_messages_reach_the_callers_client_escaped() {
    let (executor, _peer, asker) = mounted().await;
    let (logs, mut received) = mpsc::unbounded_channel();
    let person = Person {
        logs: Some(logs),
        ..Person::default()
    };
    let running = tokio::spawn({
        let executor = executor.clone();
        async move {
            run(
                &executor,
                "up_log",
                &format!("disk \u{1b}[31mfull{}", "!".repeat(10_000)),
                Some(&person),
            )
            .await
        }
    });
    let (tool, level, message) = within("the log message", received.recv()).await.unwrap();
    asker.logged.notify_one();
    assert_eq!(tool, "up_log");
    assert_eq!(level, LogLevel::Warning);
    assert!(
        message
            .starts_with("[the upstream MCP server `asker` (disk\\u{7})] disk \\u{1b}[31mfull!!!"),
        "{message}"
    );
    assert!(message.len() < 2_200, "{} bytes", message.len());
    let result = within("the call", running).await.unwrap();
    assert_eq!(result.content, "logged");
}

/// A raw upstream over newline-delimited JSON-RPC that answers `tools/call` with MCP
/// 2026-07-28's input requests (which rmcp's server sends only to a client of that
/// revision): `book` asks for a name once, then answers with what it got; `again` asks for
/// ever.
async fn connect_rounds() -> Upstream {
    raw_upstream("in-process", "rounds", |method, params| match method {
        "tools/list" => json!({"tools": [
            {"name": "book", "inputSchema": {"type": "object"}},
            {"name": "again", "inputSchema": {"type": "object"}}
        ]}),
        "tools/call" if params["name"] == "book" && params.get("inputResponses").is_some() => {
            json!({"content": [{"type": "text", "text": json!({
                "state": params["requestState"],
                "responses": params["inputResponses"]
            }).to_string()}]})
        }
        "tools/call" => json!({
            "resultType": "input_required",
            "inputRequests": {"who": {
                "method": "elicitation/create",
                "params": {"mode": "form", "message": "Name?\u{1b}[2K",
                           "requestedSchema": {"type": "object",
                               "properties": {"name": {"type": "string"}}}}
            }},
            "requestState": "s1"
        }),
        _ => json!({}),
    })
    .await
}

#[tokio::test]
async fn input_requests_are_answered_by_the_callers_person_and_the_call_repeated() {
    let upstream = connect_rounds().await;
    let (registry, _) = registry_with(&upstream, MountOptions::new("r")).await;
    let executor = Executor::builder(registry)
        .approval(|_| async { ApprovalDecision::Approved })
        .build();
    let person = Person {
        answer: json!({"name": "Ada"}),
        ..Person::default()
    };
    let result = run(&executor, "r_book", "", Some(&person)).await;
    assert_eq!(
        answer_of(&result),
        json!({"state": "s1", "responses": {"who": {"action": "accept", "content": {"name": "Ada"}}}})
    );
    let questions = person.questions.lock().unwrap().clone();
    assert_eq!(questions.len(), 1);
    assert_eq!(
        questions[0].message,
        "The upstream MCP server `rounds` asks: Name?\\u{1b}[2K"
    );

    // Without a client to ask, the call fails with why.
    let result = run(&executor, "r_book", "", None).await;
    assert!(!result.success);
    assert!(
        result.content.contains("elicitation is not available"),
        "{}",
        result.content
    );

    // A client that answers only by repeating the call (2026-07-28) is asked in rounds
    // too: the upstream's input requests ended its run without effect, so our round ends
    // with the question, and the repeated call carries the answer upstream
    // (`tests/bridging.rs` counts the upstream's runs).
    let rounds = Person {
        in_rounds: true,
        ..Person::default()
    };
    let ended = within(
        "r_book in rounds",
        executor.execute_with(
            ToolCall::new("1", "r_book", json!({})),
            CallOptions::new().client(rounds.clone()),
        ),
    )
    .await;
    assert_eq!(ended.outcome, Outcome::InputRequired, "{:?}", ended.result);
    assert_eq!(rounds.questions.lock().unwrap().len(), 1);

    // An upstream that never stops asking: the rounds are bounded. The person's client
    // allows 10 questions a call, more than the 8 rounds.
    let result = run(&executor, "r_again", "", Some(&person)).await;
    assert!(!result.success);
    assert!(
        result.content.contains("after 8 rounds"),
        "{}",
        result.content
    );
}

/// The attack: a 2026-07-28 client (it answers a question by repeating the call) calls a
/// mounted tool once, approved once; the upstream asks a question mid-call. The gateway
/// used to end its round (the client got an InputRequiredResult) while the upstream's first
/// run went on, and the client's retry with the answer called the upstream again: two runs
/// of the side effect for one approval. Now the question is refused to the upstream (its
/// one call goes on and ends), and our call ends with that call's result.
#[tokio::test]
async fn one_approval_is_one_upstream_call_when_the_upstream_asks_mid_call() {
    let (executor, _peer, asker) = mounted().await;
    let rounds = Person {
        in_rounds: true,
        ..Person::default()
    };
    let call = ToolCall::new("1", "up_ask", json!({"text": "Delete everything?"}));
    let first = within(
        "the first request",
        executor.execute_with(call.clone(), CallOptions::new().client(rounds.clone())),
    )
    .await;
    if first.outcome == Outcome::InputRequired {
        // The client answers by repeating the call, as that revision does.
        let answering = Person {
            answer: json!({"name": "yes"}),
            ..Person::default()
        };
        let retry = within(
            "the retry",
            executor.execute_with(call, CallOptions::new().client(answering)),
        )
        .await;
        assert!(retry.result.success, "{:?}", retry.result);
    }
    assert_eq!(
        asker.asked.load(Ordering::SeqCst),
        1,
        "one approval ran the upstream's call more than once"
    );
    // The upstream's question was refused, saying why, and its one call finished.
    assert_ne!(first.outcome, Outcome::InputRequired);
    assert!(first.result.success, "{:?}", first.result);
    assert!(
        first.result.content.contains("question was not forwarded"),
        "{}",
        first.result.content
    );
    assert_eq!(rounds.questions.lock().unwrap().len(), 1);
}
