//! A tool using the client's powers (logging, elicitation, sampling) through the MCP server,
//! against rmcp's client over stdio (an in-memory pipe) and streamable HTTP.

#![allow(deprecated)] // rmcp marks logging and sampling deprecated (SEP-2577).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
    LoggingLevel, LoggingMessageNotificationParam, SamplingMessage, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolwright_core::client::{SamplingMessage as Message, SamplingOptions};
use toolwright_core::{Elicitation, LogLevel, ToolContext, tool};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, register_all_tools};

/// Log at three levels.
#[tool]
async fn chatty(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Debug, "debug detail");
    ctx.log(LogLevel::Info, "starting");
    ctx.log(LogLevel::Warning, "disk almost full");
    "logged".to_owned()
}

/// Where to deploy.
#[derive(Deserialize, schemars::JsonSchema)]
struct Target {
    /// The region.
    region: String,
    /// How many replicas.
    replicas: Option<u32>,
}

/// Ask the user where to deploy.
#[tool]
async fn ask_target(ctx: &ToolContext) -> String {
    match ctx.elicit::<Target>("Where should I deploy?").await {
        Ok(Elicitation::Accepted(target)) => {
            format!(
                "deploy to {} x{}",
                target.region,
                target.replicas.unwrap_or(1)
            )
        }
        Ok(Elicitation::Declined) => "declined".to_owned(),
        Ok(Elicitation::Cancelled) => "cancelled".to_owned(),
        Err(error) => format!("error: {error}"),
    }
}

/// Ask the client's model for a summary.
#[tool]
async fn summarize(ctx: &ToolContext, text: String) -> String {
    let options = SamplingOptions::new(50).system_prompt("One sentence.");
    match ctx.sample(vec![Message::user(text)], options).await {
        Ok(reply) => format!("{} ({})", reply.text, reply.model),
        Err(error) => format!("error: {error}"),
    }
}

/// Ask the user `times` times; what happened to each question.
#[tool]
async fn ask_often(ctx: &ToolContext, times: u32) -> String {
    let mut outcomes = Vec::new();
    for _ in 0..times {
        let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        outcomes.push(match ctx.elicit_json("Again?", schema).await {
            Ok(_) => "answered".to_owned(),
            Err(error) => error.to_string(),
        });
    }
    outcomes.join("\n")
}

/// What the test client saw.
#[derive(Clone, Default)]
struct Seen {
    questions: Arc<Mutex<Vec<(String, Value)>>>,
    samplings: Arc<Mutex<Vec<CreateMessageRequestParams>>>,
}

#[derive(Clone)]
struct Client {
    elicitation: bool,
    sampling: bool,
    /// The form to answer with; `None` declines.
    answer: Option<Value>,
    seen: Seen,
    logs: mpsc::UnboundedSender<LoggingMessageNotificationParam>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation {
            capabilities = ClientCapabilities::builder().enable_elicitation().build();
        }
        if self.sampling {
            let sampling = ClientCapabilities::builder().enable_sampling().build();
            capabilities.sampling = sampling.sampling;
        }
        ClientConfig::new(capabilities, Implementation::new("powers-client", "0.0.1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        {
            let schema = serde_json::to_value(requested_schema).unwrap_or_default();
            self.seen.questions.lock().unwrap().push((message, schema));
        }
        Ok(match &self.answer {
            Some(form) => ElicitResult::new(ElicitationAction::Accept).with_content(form.clone()),
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, rmcp::ErrorData> {
        let asked = params
            .messages
            .last()
            .and_then(|m| serde_json::to_value(m).ok())
            .and_then(|m| m["content"]["text"].as_str().map(str::to_owned))
            .unwrap_or_default();
        self.seen.samplings.lock().unwrap().push(params);
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text(format!("short: {asked}")),
            "test-model".to_owned(),
        ))
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.logs.send(params);
    }
}

fn client(
    elicitation: bool,
    sampling: bool,
    answer: Option<Value>,
) -> (
    Client,
    mpsc::UnboundedReceiver<LoggingMessageNotificationParam>,
) {
    let (logs, received) = mpsc::unbounded_channel();
    let client = Client {
        elicitation,
        sampling,
        answer,
        seen: Seen::default(),
        logs,
    };
    (client, received)
}

fn executor(max_client_requests: u32) -> Executor {
    Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_client_requests(max_client_requests)
        .build()
}

/// A server on an in-memory pipe (the stdio transport), and a client connected to it.
async fn over_stdio(executor: Executor, client: Client) -> RunningService<RoleClient, Client> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(McpServer::new(executor).serve_io(server_read, server_write));
    client.serve(tokio::io::split(client_end)).await.unwrap()
}

async fn over_http(
    executor: Executor,
    client: Client,
) -> (
    RunningService<RoleClient, Client>,
    toolwright_mcp::HttpServer,
) {
    let http = McpServer::new(executor)
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    let running = client
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap();
    (running, http)
}

async fn call(client: &RunningService<RoleClient, Client>, name: &str, args: Value) -> String {
    let request = CallToolRequestParams::new(name.to_owned())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    let result = client.call_tool(request).await.unwrap();
    result.content[0].as_text().unwrap().text.clone()
}

/// The next log message; a deadline only so a regression fails instead of hanging.
async fn next_log(
    logs: &mut mpsc::UnboundedReceiver<LoggingMessageNotificationParam>,
) -> (LoggingLevel, Option<String>, Value) {
    let message = tokio::time::timeout(Duration::from_secs(120), logs.recv())
        .await
        .expect("no log message reached the client")
        .expect("the client is gone");
    (message.level, message.logger, message.data)
}

#[tokio::test]
async fn log_messages_reach_the_client_at_or_above_its_level() {
    let (handler, mut logs) = client(false, false, None);
    let client = over_stdio(executor(10), handler).await;
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.logging.is_some(), "{info:?}");

    // Until the client sets a level: info and above.
    assert_eq!(call(&client, "chatty", json!({})).await, "logged");
    let first = next_log(&mut logs).await;
    assert_eq!(
        first,
        (
            LoggingLevel::Info,
            Some("chatty".to_owned()),
            json!("starting")
        )
    );
    let second = next_log(&mut logs).await;
    assert_eq!(second.0, LoggingLevel::Warning);
    assert_eq!(second.2, json!("disk almost full"));

    // At warning, the info message is not sent: the next message (sent in order) is the warning.
    client
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .unwrap();
    assert_eq!(call(&client, "chatty", json!({})).await, "logged");
    assert_eq!(next_log(&mut logs).await.0, LoggingLevel::Warning);

    // At debug, all three.
    client
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap();
    call(&client, "chatty", json!({})).await;
    let levels = [
        next_log(&mut logs).await.0,
        next_log(&mut logs).await.0,
        next_log(&mut logs).await.0,
    ];
    assert_eq!(
        levels,
        [
            LoggingLevel::Debug,
            LoggingLevel::Info,
            LoggingLevel::Warning
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn elicitation_asks_as_the_tool_and_reads_a_typed_answer() {
    let (handler, _logs) = client(
        true,
        false,
        Some(json!({"region": "eu-west", "replicas": 3})),
    );
    let seen = handler.seen.clone();
    let (client, http) = over_http(executor(10), handler).await;
    assert_eq!(
        call(&client, "ask_target", json!({})).await,
        "deploy to eu-west x3"
    );
    let questions = seen.questions.lock().unwrap().clone();
    assert_eq!(questions.len(), 1);
    let (message, schema) = &questions[0];
    assert_eq!(message, "Tool `ask_target` asks: Where should I deploy?");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["region"]["type"], "string");
    assert_eq!(schema["properties"]["region"]["description"], "The region.");
    assert_eq!(schema["properties"]["replicas"]["type"], "integer");
    assert_eq!(schema["required"], json!(["region"]));
    client.cancel().await.unwrap();

    // A user who declines.
    let (handler, _logs) = client_declining();
    let client = handler
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap();
    assert_eq!(call(&client, "ask_target", json!({})).await, "declined");
    client.cancel().await.unwrap();
    http.shutdown();
}

fn client_declining() -> (
    Client,
    mpsc::UnboundedReceiver<LoggingMessageNotificationParam>,
) {
    client(true, false, None)
}

#[tokio::test]
async fn sampling_asks_the_clients_model() {
    let (handler, _logs) = client(false, true, None);
    let seen = handler.seen.clone();
    let client = over_stdio(executor(10), handler).await;
    let reply = call(&client, "summarize", json!({"text": "a long log"})).await;
    assert_eq!(reply, "short: a long log (test-model)");
    let samplings = seen.samplings.lock().unwrap().clone();
    assert_eq!(samplings.len(), 1);
    assert_eq!(samplings[0].max_tokens, 50);
    assert_eq!(samplings[0].system_prompt.as_deref(), Some("One sentence."));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_http_sampling_and_logging_work_too() {
    let (handler, mut logs) = client(false, true, None);
    let (client, http) = over_http(executor(10), handler).await;
    let reply = call(&client, "summarize", json!({"text": "x"})).await;
    assert_eq!(reply, "short: x (test-model)");
    call(&client, "chatty", json!({})).await;
    assert_eq!(next_log(&mut logs).await.2, json!("starting"));
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_client_without_the_capability_is_not_asked() {
    let (handler, _logs) = client(false, false, Some(json!({"region": "x"})));
    let seen = handler.seen.clone();
    let client = over_stdio(executor(10), handler).await;
    assert_eq!(
        call(&client, "ask_target", json!({})).await,
        "error: elicitation is not available here: the MCP client did not declare the \
         elicitation capability"
    );
    assert_eq!(
        call(&client, "summarize", json!({"text": "x"})).await,
        "error: sampling is not available here: the MCP client did not declare the sampling \
         capability"
    );
    assert!(seen.questions.lock().unwrap().is_empty());
    assert!(seen.samplings.lock().unwrap().is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn one_call_may_ask_only_so_often() {
    let (handler, _logs) = client(true, false, Some(json!({"ok": true})));
    let seen = handler.seen.clone();
    let client = over_stdio(executor(2), handler).await;
    let outcomes = call(&client, "ask_often", json!({"times": 3})).await;
    let outcomes: Vec<&str> = outcomes.lines().collect();
    assert_eq!(outcomes[..2], ["answered", "answered"]);
    assert!(
        outcomes[2].starts_with("this call already made 2 requests to the client"),
        "{outcomes:?}"
    );
    assert_eq!(seen.questions.lock().unwrap().len(), 2);
    // The limit is per call: the next call may ask again.
    call(&client, "ask_often", json!({"times": 1})).await;
    assert_eq!(seen.questions.lock().unwrap().len(), 3);
    client.cancel().await.unwrap();
}
