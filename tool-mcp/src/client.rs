//! The client's powers for a tool called over MCP: `ToolContext::log` becomes
//! `notifications/message` (at or above the session's `logging/setLevel`),
//! `ToolContext::elicit` an `elicitation/create` request, `ToolContext::sample` a
//! `sampling/createMessage` request, `ToolContext::roots` a `roots/list` request, each only
//! when the client declared the capability; `ToolContext::ask_all` asks several at once
//! (concurrent requests; one round for a 2026-07-28 client).

// rmcp marks logging and sampling deprecated (SEP-2577, a protocol version clients do not
// speak yet); they are what the protocol versions in use offer.
#![allow(deprecated)]

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::RoleServer;
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestParams, ElicitationSchema, GetExtensions, ListRootsRequest, LoggingLevel,
    LoggingMessageNotificationParam, RequestId, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, Peer, RequestContext, ServiceError};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolwright_core::client::{
    Answer, ClientFuture, ClientPowers, ElicitationRequest, Question, Role, Root, RootsRequest,
    SampledMessage, SamplingRequest, ask_one,
};
use toolwright_core::{ClientError, Elicitation, LogLevel};

use crate::ask::rounds::Round;

/// The level a session logs at until its client sends `logging/setLevel`.
pub(crate) const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

/// The lowest level of log message one session's client wants (per session: every HTTP
/// session and every stdio connection gets a fresh one).
#[derive(Clone)]
pub(crate) struct SessionLog(Arc<AtomicU8>);

impl Default for SessionLog {
    fn default() -> Self {
        SessionLog(Arc::new(AtomicU8::new(DEFAULT_LOG_LEVEL as u8)))
    }
}

impl SessionLog {
    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(from_rmcp(level) as u8, Ordering::Relaxed);
    }

    /// The level of one request of MCP 2026-07-28, which has no `logging/setLevel`: the
    /// `logLevel` of its `_meta`; without one, no log message at all.
    pub(crate) fn for_request(level: Option<LoggingLevel>) -> Self {
        let level = level.map_or(SessionLog::OFF, |level| from_rmcp(level) as u8);
        SessionLog(Arc::new(AtomicU8::new(level)))
    }

    /// No level: nothing is logged.
    const OFF: u8 = u8::MAX;

    fn get(&self) -> Option<LogLevel> {
        match self.0.load(Ordering::Relaxed) {
            SessionLog::OFF => None,
            index => Some(
                LogLevel::ALL
                    .get(usize::from(index))
                    .copied()
                    .unwrap_or(DEFAULT_LOG_LEVEL),
            ),
        }
    }
}

/// What one `tools/call` may ask of the MCP client that made it.
pub(crate) struct McpClient {
    /// The call's round of a multi round-trip request (a 2026-07-28 client): questions are
    /// answered from it or returned to the caller, never sent as requests.
    round: Option<Arc<Round>>,
    peer: Peer<RoleServer>,
    /// The `tools/call` request: the server's requests ride its stream over HTTP.
    call: RequestId,
    level: SessionLog,
    /// Log messages in order, to a task that sends them (started by the first message).
    logs: OnceLock<mpsc::UnboundedSender<Queued<LoggingMessageNotificationParam>>>,
    elicitation: bool,
    sampling: bool,
    roots: bool,
    /// Set for a task tool that asks first (`#[tool(ask_first)]`): the run stops at its
    /// first question, and this is set when the round already holds every answer (the call
    /// then becomes a task).
    ask_first: Option<Arc<AtomicBool>>,
    /// What kind of primitive asks: its questions are attributed to it.
    asker: Asker,
}

/// What kind of primitive asks the user (the question says "Tool `x` asks", "Prompt `x`
/// asks", "Resource `uri` asks").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Asker {
    Tool,
    Prompt,
    Resource,
}

impl Asker {
    fn label(self) -> &'static str {
        match self {
            Asker::Tool => "Tool",
            Asker::Prompt => "Prompt",
            Asker::Resource => "Resource",
        }
    }
}

/// The most characters of a name shown in a question's attribution: a resource URI comes
/// from the client and may be long; the rest is cut, with `…`.
const MAX_ASKER_CHARS: usize = 120;

/// A notification queued for a session's peer, or a marker the sending task answers once
/// everything queued before it is sent.
pub(crate) enum Queued<T> {
    Send(T),
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// Waits until everything queued on `queue` before now has been sent (or the peer is gone).
pub(crate) async fn flushed<T>(queue: &mpsc::UnboundedSender<Queued<T>>) {
    let (done, sent) = tokio::sync::oneshot::channel();
    if queue.send(Queued::Flush(done)).is_ok() {
        // An error means the sending task ended (the peer is gone): nothing more to wait for.
        let _ = sent.await;
    }
}

impl McpClient {
    /// The client powers of one `tools/call`: the session's peer, with what it declared
    /// (in the handshake, or in the request's `_meta` from a 2026-07-28 client). With a
    /// `round`, questions go to the caller in the call's result instead of as requests.
    pub(crate) fn for_call(
        context: &RequestContext<RoleServer>,
        round: Option<Arc<Round>>,
        session_log: &SessionLog,
    ) -> McpClient {
        let capabilities = context.client_capabilities();
        let capabilities = capabilities.as_ref();
        McpClient {
            round,
            peer: context.peer.clone(),
            call: context.id.clone(),
            // A 2026-07-28 request names its level itself (there is no `logging/setLevel`).
            level: match context.protocol_version() {
                Some(version) if !version.has_initialize() => {
                    SessionLog::for_request(context.meta.log_level())
                }
                _ => session_log.clone(),
            },
            logs: OnceLock::new(),
            // Form elicitation: declared, or implied by an empty `elicitation: {}` (before the
            // specification split forms from URLs).
            elicitation: capabilities
                .and_then(|c| c.elicitation.as_ref())
                .is_some_and(|e| e.form.is_some() || e.url.is_none()),
            sampling: capabilities.is_some_and(|c| c.sampling.is_some()),
            roots: capabilities.is_some_and(|c| c.roots.is_some()),
            ask_first: None,
            asker: Asker::Tool,
        }
    }

    /// The same client for a prompt's or a resource's handler: its questions name it.
    pub(crate) fn asking_for(mut self, asker: Asker) -> McpClient {
        self.asker = asker;
        self
    }

    /// The same client for a task tool that asks first: its run stops at its first
    /// question; `answered` is set when the call's round answered it (the call becomes a
    /// task, whose run finds the answer).
    pub(crate) fn asking_first(mut self, answered: Arc<AtomicBool>) -> McpClient {
        self.ask_first = Some(answered);
        self
    }

    /// A round's answer, unless the tool asks first: then the run stops at the answered
    /// question, noted, to run again as a task.
    fn first<T>(&self, answer: Result<T, ClientError>) -> Result<T, ClientError> {
        match (&self.ask_first, answer) {
            (Some(answered), Ok(_)) => {
                answered.store(true, Ordering::Relaxed);
                Err(ClientError::InputRequired)
            }
            (_, answer) => answer,
        }
    }

    /// Waits until the log messages of the call so far have been sent, so a result is never
    /// sent before the logs that came before it.
    pub(crate) async fn flush(&self) {
        if let Some(logs) = self.logs.get() {
            flushed(logs).await;
        }
    }

    fn not_declared(&self, what: &'static str) -> ClientError {
        ClientError::NotAvailable {
            what,
            why: format!("the MCP client did not declare the {what} capability"),
        }
    }

    /// `request` marked as made while serving this call (rmcp sends it on the call's own
    /// response stream over HTTP, even from a task of its own).
    fn marked_as_this_calls(&self, mut request: ServerRequest) -> ServerRequest {
        request
            .extensions_mut()
            .insert(OriginatingRequestId(self.call.clone()));
        request
    }
}

impl ClientPowers for McpClient {
    fn log(&self, tool: &str, level: LogLevel, message: &str) {
        if self.level.get().is_none_or(|lowest| level < lowest) {
            return;
        }
        let sender = self.logs.get_or_init(|| {
            let (sender, mut receiver) = mpsc::unbounded_channel();
            let peer = self.peer.clone();
            tokio::spawn(async move {
                while let Some(item) = receiver.recv().await {
                    match item {
                        Queued::Send(params) => {
                            if peer.notify_logging_message(params).await.is_err() {
                                break;
                            }
                        }
                        Queued::Flush(done) => {
                            let _ = done.send(());
                        }
                    }
                }
            });
            sender
        });
        let mut params =
            LoggingMessageNotificationParam::new(to_rmcp(level), Value::String(message.to_owned()));
        if !tool.is_empty() {
            params = params.with_logger(tool);
        }
        // The sending task ends only when the client is gone; a message then is lost with it.
        let _ = sender.send(Queued::Send(params));
    }

    fn elicit(
        &self,
        request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<Value>, ClientError>> {
        if !self.elicitation {
            let error = self.not_declared("elicitation");
            return Box::pin(async move { Err(error) });
        }
        let schema = match serde_json::from_value::<ElicitationSchema>(request.schema) {
            Ok(schema) => schema,
            Err(error) => {
                return Box::pin(async move {
                    Err(ClientError::UnsupportedSchema(format!(
                        "MCP's elicitation schema does not accept it ({error})"
                    )))
                });
            }
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: attributed(self.asker, &request.tool, &request.message),
            requested_schema: schema,
        };
        if let Some(round) = &self.round {
            let answer = self.first(round.elicit(params, request.key.as_deref()));
            return Box::pin(async move { answer });
        }
        let request =
            self.marked_as_this_calls(ServerRequest::ElicitRequest(ElicitRequest::new(params)));
        let peer = self.peer.clone();
        Box::pin(async move {
            match peer.send_request(request).await {
                Ok(ClientResult::ElicitResult(result)) => {
                    Ok(crate::ask::answers::elicitation_of(result))
                }
                Ok(_) => Err(ClientError::Protocol(
                    "the client answered the elicitation request with something else".to_owned(),
                )),
                Err(error) => Err(ClientError::Protocol(error.to_string())),
            }
        })
    }

    fn sample(
        &self,
        request: SamplingRequest,
    ) -> ClientFuture<Result<SampledMessage, ClientError>> {
        if !self.sampling {
            let error = self.not_declared("sampling");
            return Box::pin(async move { Err(error) });
        }
        let params = match sampling_params(&request) {
            Ok(params) => params,
            Err(error) => return Box::pin(async move { Err(error) }),
        };
        if let Some(round) = &self.round {
            let answer = self.first(
                round
                    .sample(CreateMessageRequest::new(params), request.key.as_deref())
                    .and_then(|result| sampled(&result)),
            );
            return Box::pin(async move { answer });
        }
        let request = self.marked_as_this_calls(ServerRequest::CreateMessageRequest(
            CreateMessageRequest::new(params),
        ));
        let peer = self.peer.clone();
        Box::pin(async move {
            match peer.send_request(request).await {
                Ok(ClientResult::CreateMessageResult(result)) => sampled(&result),
                Ok(_) => Err(ClientError::Protocol(
                    "the client answered the sampling request with something else".to_owned(),
                )),
                Err(ServiceError::McpError(error)) if is_rejection(&error) => {
                    Err(ClientError::Declined {
                        what: "sampling",
                        reason: Some(error.message.to_string()),
                    })
                }
                Err(error) => Err(ClientError::Protocol(error.to_string())),
            }
        })
    }

    fn roots(&self, request: RootsRequest) -> ClientFuture<Result<Vec<Root>, ClientError>> {
        if !self.roots {
            let error = self.not_declared("roots");
            return Box::pin(async move { Err(error) });
        }
        if let Some(round) = &self.round {
            let answer = self.first(round.list_roots(request.key.as_deref()));
            return Box::pin(async move { answer });
        }
        let request =
            self.marked_as_this_calls(ServerRequest::ListRootsRequest(ListRootsRequest::default()));
        let peer = self.peer.clone();
        Box::pin(async move {
            match peer.send_request(request).await {
                Ok(ClientResult::ListRootsResult(result)) => Ok(result
                    .roots
                    .into_iter()
                    .map(|root| {
                        let mine = Root::new(root.uri);
                        match root.name {
                            Some(name) => mine.with_name(name),
                            None => mine,
                        }
                    })
                    .collect()),
                Ok(_) => Err(ClientError::Protocol(
                    "the client answered the roots/list request with something else".to_owned(),
                )),
                Err(error) => Err(ClientError::Protocol(error.to_string())),
            }
        })
    }

    fn ask_all(&self, questions: Vec<Question>) -> ClientFuture<Result<Vec<Answer>, ClientError>> {
        // What the client cannot answer refuses the whole batch before anything is asked.
        for question in &questions {
            let declared = match question {
                Question::Elicit(_) => self.elicitation,
                Question::Sample(_) => self.sampling,
                Question::Roots(_) => self.roots,
                _ => false,
            };
            if !declared {
                let error = self.not_declared(question.kind());
                return Box::pin(async move { Err(error) });
            }
        }
        // Each question is made now: a round collects them all (one `InputRequiredResult`);
        // over a session each is a request of its own, sent concurrently below.
        let asked: Vec<ClientFuture<Result<Answer, ClientError>>> = questions
            .into_iter()
            .map(|question| ask_one(self, question))
            .collect();
        if self.round.is_some() {
            return Box::pin(async move {
                let mut answers = Vec::with_capacity(asked.len());
                let mut first_error = None;
                for answer in asked {
                    match answer.await {
                        Ok(answer) => answers.push(answer),
                        Err(error) => {
                            // A question still to ask wins over another error: the caller
                            // answers them all, and the repeated call reads the rest.
                            if matches!(error, ClientError::InputRequired) || first_error.is_none()
                            {
                                first_error = Some(error);
                            }
                        }
                    }
                }
                match first_error {
                    Some(error) => Err(error),
                    None => Ok(answers),
                }
            });
        }
        Box::pin(async move {
            // A set, so the requests still waiting are dropped with the call (cancelled, or
            // one question failed).
            let mut running = tokio::task::JoinSet::new();
            let count = asked.len();
            for (index, answer) in asked.into_iter().enumerate() {
                running.spawn(async move { (index, answer.await) });
            }
            let mut answers: Vec<Option<Answer>> = (0..count).map(|_| None).collect();
            while let Some(joined) = running.join_next().await {
                let (index, answer) =
                    joined.map_err(|error| ClientError::Protocol(error.to_string()))?;
                if let Some(slot) = answers.get_mut(index) {
                    *slot = Some(answer?);
                }
            }
            answers
                .into_iter()
                .map(|answer| {
                    answer.ok_or_else(|| {
                        ClientError::Protocol("a question of the batch got no answer".to_owned())
                    })
                })
                .collect()
        })
    }
}

/// The question as the user sees it: said to come from the tool, so a tool (or the model
/// driving it) cannot pass its words off as the client's or the server's, and written as
/// [`printable`](crate::approval::printable) shows text (line breaks and tabs kept, terminal
/// escapes, bidirectional controls and invisible characters escaped), since it may quote a
/// file or a model.
fn attributed(asker: Asker, name: &str, message: &str) -> String {
    let message = crate::ask::approval::printable(message);
    if name.is_empty() {
        return message.into_owned();
    }
    let mut shown: String = name.chars().take(MAX_ASKER_CHARS).collect();
    if shown.len() < name.len() {
        shown.push('…');
    }
    // Backticks would end the quote early: escaped like the other characters that mislead.
    let shown = crate::ask::approval::printable(&shown).replace('`', "\\u{60}");
    format!("{} `{shown}` asks: {message}", asker.label())
}

/// A client's error for a sampling request its user refused (the specification's example
/// is code -1, "User rejected sampling request").
fn is_rejection(error: &rmcp::ErrorData) -> bool {
    let message = error.message.to_lowercase();
    error.code.0 == -1 || message.contains("reject") || message.contains("declin")
}

/// The `sampling/createMessage` parameters for `request`.
pub(crate) fn sampling_params(
    request: &SamplingRequest,
) -> Result<CreateMessageRequestParams, ClientError> {
    let options = &request.options;
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| {
            json!({
                "role": role(message.role),
                "content": {"type": "text", "text": message.text},
            })
        })
        .collect();
    let mut params = Map::new();
    params.insert("messages".to_owned(), Value::Array(messages));
    params.insert("maxTokens".to_owned(), json!(options.max_tokens));
    if let Some(prompt) = &options.system_prompt {
        params.insert("systemPrompt".to_owned(), json!(prompt));
    }
    if let Some(temperature) = options.temperature {
        params.insert("temperature".to_owned(), json!(temperature));
    }
    if !options.stop_sequences.is_empty() {
        params.insert("stopSequences".to_owned(), json!(options.stop_sequences));
    }
    let mut preferences = Map::new();
    if !options.model_hints.is_empty() {
        let hints: Vec<Value> = options
            .model_hints
            .iter()
            .map(|name| json!({"name": name}))
            .collect();
        preferences.insert("hints".to_owned(), Value::Array(hints));
    }
    for (key, value) in [
        ("costPriority", options.cost_priority),
        ("speedPriority", options.speed_priority),
        ("intelligencePriority", options.intelligence_priority),
    ] {
        if let Some(value) = value {
            preferences.insert(key.to_owned(), json!(value));
        }
    }
    if !preferences.is_empty() {
        params.insert("modelPreferences".to_owned(), Value::Object(preferences));
    }
    serde_json::from_value(Value::Object(params)).map_err(|error| {
        ClientError::Protocol(format!("could not write the sampling request: {error}"))
    })
}

fn role(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The model's reply: its text blocks joined (images and other content left out).
pub(crate) fn sampled(result: &impl serde::Serialize) -> Result<SampledMessage, ClientError> {
    let value = serde_json::to_value(result)
        .map_err(|error| ClientError::Protocol(format!("unreadable sampling answer: {error}")))?;
    let blocks = match value.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(block) => vec![block.clone()],
        None => Vec::new(),
    };
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() && !blocks.is_empty() {
        return Err(ClientError::InvalidAnswer(
            "the client's model answered without text (only text replies are read)".to_owned(),
        ));
    }
    let model = value
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut message = SampledMessage::new(texts.join("\n"), model);
    if value.get("role").and_then(Value::as_str) == Some("user") {
        message.role = Role::User;
    }
    if let Some(reason) = value.get("stopReason").and_then(Value::as_str) {
        message = message.with_stop_reason(reason);
    }
    Ok(message)
}

fn to_rmcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// rmcp's logging level as ours (also for what an upstream logs).
pub fn from_rmcp(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_core::client::{SamplingMessage, SamplingOptions};

    #[test]
    fn levels_round_trip_through_rmcp() {
        for level in LogLevel::ALL {
            assert_eq!(from_rmcp(to_rmcp(level)), level);
        }
    }

    #[test]
    fn sampling_requests_carry_every_option() {
        let request = SamplingRequest::new(
            "summarize",
            vec![SamplingMessage::user("a"), SamplingMessage::assistant("b")],
            SamplingOptions::new(20)
                .system_prompt("be short")
                .temperature(0.5)
                .stop_sequence("END")
                .model_hint("claude")
                .speed_priority(1.0),
        );
        let params = serde_json::to_value(sampling_params(&request).unwrap()).unwrap();
        assert_eq!(params["messages"][1]["role"], "assistant");
        assert_eq!(params["messages"][0]["content"]["text"], "a");
        assert_eq!(params["maxTokens"], 20);
        assert_eq!(params["systemPrompt"], "be short");
        assert_eq!(params["stopSequences"], json!(["END"]));
        assert_eq!(params["modelPreferences"]["hints"][0]["name"], "claude");
        assert_eq!(params["modelPreferences"]["speedPriority"], 1.0);
    }

    #[test]
    fn questions_are_attributed_to_their_tool() {
        assert_eq!(
            attributed(Asker::Tool, "deploy", "Where?"),
            "Tool `deploy` asks: Where?"
        );
        assert_eq!(
            attributed(Asker::Prompt, "review", "Which file?"),
            "Prompt `review` asks: Which file?"
        );
        assert_eq!(
            attributed(Asker::Resource, "notes://7", "Unlock?"),
            "Resource `notes://7` asks: Unlock?"
        );
    }

    #[test]
    fn a_hostile_uri_is_escaped_and_cut_in_the_attribution() {
        let uri = format!("notes://`x`\u{202e}{}", "a".repeat(500));
        let shown = attributed(Asker::Resource, &uri, "Sure?");
        assert!(
            shown.starts_with("Resource `notes://\\u{60}x\\u{60}\\u{202e}aaa"),
            "{shown}"
        );
        assert!(shown.ends_with("…` asks: Sure?"), "{shown}");
        assert!(shown.chars().count() < 200, "{shown}");
    }

    #[test]
    fn a_hostile_question_shows_escaped() {
        assert_eq!(
            attributed(
                Asker::Tool,
                "deploy",
                "Deploy to \u{202e}dorp\u{202c}?\u{200b}\u{e0041}\u{1b}[2K\u{2028}\nSure?"
            ),
            "Tool `deploy` asks: Deploy to \\u{202e}dorp\\u{202c}?\\u{200b}\\u{e0041}\\u{1b}[2K\\u{2028}\nSure?"
        );
    }
}
