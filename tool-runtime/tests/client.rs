//! The client's powers through the executor: not available without a client, a limit per
//! call, cancellation while waiting for the client, the tool's name on every request.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::Notify;
use toolwright_core::client::{
    ClientFuture, ClientPowers, ElicitationRequest, SampledMessage, SamplingMessage,
    SamplingOptions, SamplingRequest,
};
use toolwright_core::{
    CancellationToken, ClientError, Elicitation, LogLevel, Tool, ToolCall, ToolContext,
};
use toolwright_runtime::{CallOptions, Executor, ToolRegistry};

/// A client that records what it is asked; its elicitation waits for `release` when given.
#[derive(Default)]
struct Recorder {
    asked: Mutex<Vec<String>>,
    logged: Mutex<Vec<(String, LogLevel, String)>>,
    /// Told when a request arrives.
    arrived: Arc<Notify>,
    /// Never answers when set.
    hang: bool,
}

impl ClientPowers for Recorder {
    fn log(&self, tool: &str, level: LogLevel, message: &str) {
        self.logged
            .lock()
            .unwrap()
            .push((tool.to_owned(), level, message.to_owned()));
    }

    fn elicit(
        &self,
        request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<Value>, ClientError>> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("{}: {}", request.tool, request.message));
        self.arrived.notify_one();
        let hang = self.hang;
        Box::pin(async move {
            if hang {
                std::future::pending::<()>().await;
            }
            Ok(Elicitation::Accepted(json!({"ok": true})))
        })
    }

    fn sample(
        &self,
        request: SamplingRequest,
    ) -> ClientFuture<Result<SampledMessage, ClientError>> {
        let text = format!("{} messages", request.messages.len());
        Box::pin(async move { Ok(SampledMessage::new(text, "fake")) })
    }
}

/// A tool that logs, then asks `times` times and samples once; it reports each outcome.
fn asking_tool() -> Tool {
    Tool::builder("asker")
        .description("Ask the client several times.")
        .handler_with_context(|ctx, args| async move {
            ctx.log(LogLevel::Notice, "about to ask");
            let times = args.get("times").and_then(Value::as_u64).unwrap_or(1);
            let mut outcomes = Vec::new();
            for _ in 0..times {
                let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
                outcomes.push(match ctx.elicit_json("Go on?", schema).await {
                    Ok(answer) => format!("{answer:?}"),
                    Err(error) => error.to_string(),
                });
            }
            let sampled = ctx
                .sample(vec![SamplingMessage::user("hi")], SamplingOptions::new(5))
                .await;
            outcomes.push(match sampled {
                Ok(reply) => reply.text,
                Err(error) => error.to_string(),
            });
            outcomes.join("\n")
        })
        .build()
        .unwrap()
}

fn executor(limit: u32) -> Executor {
    let registry = ToolRegistry::new();
    registry.register(asking_tool()).unwrap();
    Executor::builder(Arc::new(registry))
        .max_client_requests(limit)
        .build()
}

fn call(times: u64) -> ToolCall {
    ToolCall::new("1", "asker", json!({"times": times}))
}

#[tokio::test]
async fn without_a_client_the_tool_hears_not_available() {
    let result = executor(10).execute(call(1)).await;
    assert_eq!(
        result.content,
        "elicitation is not available here: this call is not served over MCP (no client to \
         ask)\nsampling is not available here: this call is not served over MCP (no client to \
         ask)"
    );
}

#[tokio::test]
async fn requests_carry_the_tool_and_stop_at_the_limit() {
    let client = Arc::new(Recorder::default());
    let options = CallOptions::new().shared_client(client.clone());
    let report = executor(2).execute_with(call(2), options).await;
    let outcomes: Vec<&str> = report.result.content.lines().collect();
    assert_eq!(outcomes[0], r#"Accepted(Object {"ok": Bool(true)})"#);
    assert_eq!(outcomes[1], outcomes[0]);
    // Elicitation and sampling share the limit: the sampling is the third request.
    assert!(
        outcomes[2].starts_with("this call already made 2 requests to the client"),
        "{outcomes:?}"
    );
    assert_eq!(
        *client.asked.lock().unwrap(),
        ["asker: Go on?", "asker: Go on?"]
    );
    assert_eq!(
        *client.logged.lock().unwrap(),
        [(
            "asker".to_owned(),
            LogLevel::Notice,
            "about to ask".to_owned()
        )]
    );

    // Each call has its own count.
    let options = CallOptions::new().shared_client(client.clone());
    let report = executor(2).execute_with(call(0), options).await;
    assert_eq!(report.result.content, "1 messages");
}

#[tokio::test]
async fn a_call_cancelled_while_the_client_thinks_ends() {
    let client = Arc::new(Recorder {
        hang: true,
        ..Recorder::default()
    });
    let arrived = Arc::clone(&client.arrived);
    let token = CancellationToken::new();
    let options = CallOptions::new()
        .shared_client(client.clone())
        .cancellation(token.clone());
    let executor = executor(10);
    let running = tokio::spawn(async move { executor.execute_with(call(1), options).await });
    // Cancel once the question is with the client (an event, not a delay).
    arrived.notified().await;
    token.cancel();
    let report = running.await.unwrap();
    assert!(!report.result.success);
    assert!(
        report.result.content.contains("cancelled"),
        "{}",
        report.result.content
    );
}

#[tokio::test]
async fn waiting_for_the_client_stops_when_the_call_is_cancelled() {
    let client = Arc::new(Recorder {
        hang: true,
        ..Recorder::default()
    });
    let arrived = Arc::clone(&client.arrived);
    let token = CancellationToken::new();
    let ctx = ToolContext::new()
        .with_cancellation(token.clone())
        .with_client(client);
    let asking = tokio::spawn(async move {
        let schema = json!({"type": "object", "properties": {}});
        ctx.elicit_json("Still there?", schema).await
    });
    arrived.notified().await;
    token.cancel();
    assert_eq!(asking.await.unwrap(), Err(ClientError::Cancelled));
}
