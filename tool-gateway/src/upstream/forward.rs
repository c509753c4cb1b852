//! What an upstream asks of us while our mounted tools' calls run on its connection: its
//! `elicitation/create` and `sampling/createMessage` requests go to the client of the call
//! they belong to (through that call's `ToolContext`), its `notifications/message` to
//! `tracing` and to that call's client. The input requests of a multi round-trip request
//! (MCP 2026-07-28) go to the client of the call that got them, answered the same way.
//!
//! Which call a request belongs to: the one whose `tools/call` response stream it arrived on
//! (streamable HTTP marks it, SEP-2260); else, when exactly one mounted call is in flight on
//! the connection, that one. With none, or several and nothing to tell them apart, the
//! request is refused (an elicitation declined): a question of one call never reaches the
//! person of another. A log message goes to a call's client only by the second rule (a
//! notification carries no mark); to `tracing` always.
//!
//! Everything the upstream wrote that a person reads is bounded ([`MAX_TEXT`] characters)
//! and escaped with `toolwright_names::escape`, and a question says which upstream asks it.

// rmcp marks logging and sampling deprecated (SEP-2577, a protocol version clients do not
// speak yet); they are what the protocol versions in use offer.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, InputRequest, InputRequests, InputResponses,
    LoggingMessageNotificationParam, RequestId, Role, SamplingMessage as McpSamplingMessage,
    SamplingMessageContentBlock,
};
use rmcp::service::InboundStreamOrigin;
use serde_json::Value;
use toolwright_core::client::{SampledMessage, SamplingMessage, SamplingOptions};
use toolwright_core::{ClientError, Elicitation, LogLevel, ToolContext};

/// The most characters of one question or log message of an upstream shown to a person;
/// the rest is cut, and the cut said.
pub(crate) const MAX_TEXT: usize = 2_000;

/// The largest elicitation schema forwarded, in bytes of JSON.
const MAX_SCHEMA_BYTES: usize = 32 * 1024;

/// The most text, in bytes, of the messages of one sampling request forwarded.
const MAX_SAMPLING_BYTES: usize = 256 * 1024;

/// The most input requests of one round of a multi round-trip request answered.
const MAX_INPUT_REQUESTS: usize = 16;

/// The most log messages of an upstream forwarded to the client of one call; later ones
/// go to `tracing` only.
const MAX_LOGS_PER_CALL: u32 = 200;

/// The mounted tools' calls in flight on one connection, by the id of their `tools/call`.
#[derive(Default)]
pub(super) struct Calls {
    /// Held while a call sends its request and registers its id, so a request of the
    /// upstream that arrives in between waits to see it.
    gate: tokio::sync::Mutex<()>,
    table: Arc<Mutex<HashMap<RequestId, Arc<CallRoute>>>>,
}

/// One call in flight: its context, how many log messages reached its client, and, for a
/// tool call, the side effect recorded on its context once the upstream shows it runs the
/// call (it asks mid-call).
struct CallRoute {
    ctx: ToolContext,
    logs: AtomicU32,
    running: Option<String>,
}

impl CallRoute {
    /// The upstream asks while it runs our call: the call is a side effect now, so a
    /// question that could only be answered by repeating it (a 2026-07-28 client's round)
    /// is refused instead (`ToolContext::record_side_effect`).
    fn runs(&self) {
        if let Some(what) = &self.running {
            self.ctx.record_side_effect(what.clone());
        }
    }
}

/// Which call a request of the upstream belongs to.
enum Route {
    Call(Arc<CallRoute>),
    /// No call of ours is in flight, or the request names a stream that is none of them.
    NoCall,
    /// Several calls are in flight and nothing tells which one asks.
    Ambiguous(usize),
}

/// A call's place in [`Calls`]; removed when dropped.
pub(super) struct Registered {
    table: Arc<Mutex<HashMap<RequestId, Arc<CallRoute>>>>,
    id: RequestId,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let removed = self
            .table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
        drop(removed);
    }
}

impl Calls {
    /// Holds the gate while the caller sends its request; then [`register`](Self::register).
    pub(super) async fn gate(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.gate.lock().await
    }

    /// Registers the call of request `id`, run with `ctx`, until the returned guard drops;
    /// `running` is the side effect a tool call records once the upstream asks mid-call.
    pub(super) fn register(
        &self,
        id: RequestId,
        ctx: &ToolContext,
        running: Option<String>,
    ) -> Registered {
        let route = Arc::new(CallRoute {
            ctx: ctx.clone(),
            logs: AtomicU32::new(0),
            running,
        });
        self.table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), route);
        Registered {
            table: self.table.clone(),
            id,
        }
    }

    /// The call a request of the upstream belongs to, by the stream it arrived on, else by
    /// being the only call in flight.
    async fn route(&self, origin: Option<&InboundStreamOrigin>) -> Route {
        // A call still sending its request registers before this goes on.
        drop(self.gate.lock().await);
        let table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(InboundStreamOrigin::OutboundRequest(id)) = origin {
            return match table.get(id) {
                Some(call) => Route::Call(call.clone()),
                // The stream of another request (a `tools/list`): no call of ours asks.
                None => Route::NoCall,
            };
        }
        Self::only(&table)
    }

    /// The only call in flight, for a message that carries no mark.
    fn only(table: &HashMap<RequestId, Arc<CallRoute>>) -> Route {
        let mut calls = table.values();
        match (calls.next(), calls.next()) {
            (None, _) => Route::NoCall,
            (Some(call), None) => Route::Call(call.clone()),
            (Some(_), Some(_)) => Route::Ambiguous(table.len()),
        }
    }

    /// The only call in flight now, without waiting for one being sent.
    fn only_now(&self) -> Route {
        Self::only(&self.table.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Whether no call is in flight (for tests of the routing).
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }
}

/// Why a request of the upstream was not forwarded, for `tracing` and the upstream.
fn unrouted(route: &Route) -> Option<String> {
    match route {
        Route::Call(_) => None,
        Route::NoCall => Some("no call of a mounted tool is in flight to answer it".to_owned()),
        Route::Ambiguous(n) => Some(format!(
            "{n} calls of mounted tools are in flight and the request does not say which one it \
             belongs to"
        )),
    }
}

/// The upstream's `elicitation/create`: asked of the client of the call it belongs to, as
/// the upstream's question; declined when it belongs to none (or cannot be told).
pub(super) async fn elicit(
    calls: &Calls,
    server: &str,
    request: ElicitRequestParams,
    origin: Option<&InboundStreamOrigin>,
) -> Result<ElicitResult, McpError> {
    let (message, requested_schema) = match request {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => (message, requested_schema),
        // Only form elicitation is declared.
        _ => {
            tracing::warn!(
                upstream = server,
                "declined a URL elicitation of the upstream MCP server"
            );
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
    };
    let route = calls.route(origin).await;
    let Route::Call(call) = route else {
        let why = unrouted(&route).unwrap_or_default();
        tracing::warn!(
            upstream = server,
            "declined an elicitation of the upstream MCP server: {why}"
        );
        return Ok(ElicitResult::new(ElicitationAction::Decline));
    };
    let schema = serde_json::to_value(&requested_schema)
        .map_err(|e| McpError::invalid_params(format!("unreadable schema: {e}"), None))?;
    call.runs();
    answer_elicitation(&call.ctx, server, &message, schema).await
}

/// Asks `ctx`'s client the upstream's question `message` with the form `schema`; the
/// answer as the upstream reads it. Shared by `elicitation/create` and MRTR input requests.
pub(super) async fn answer_elicitation(
    ctx: &ToolContext,
    server: &str,
    message: &str,
    mut schema: Value,
) -> Result<ElicitResult, McpError> {
    let size = serde_json::to_string(&schema).map_or(usize::MAX, |json| json.len());
    if size > MAX_SCHEMA_BYTES {
        return Err(McpError::invalid_params(
            format!(
                "the elicitation's schema is {size} bytes of JSON; at most {MAX_SCHEMA_BYTES} \
                 are forwarded"
            ),
            None,
        ));
    }
    escape_schema_texts(&mut schema);
    let question = question(server, message);
    match ctx.elicit_json(question, schema).await {
        Ok(Elicitation::Accepted(content)) => {
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
        }
        Ok(Elicitation::Declined) => Ok(ElicitResult::new(ElicitationAction::Decline)),
        Ok(Elicitation::Cancelled) | Err(ClientError::Cancelled) => {
            Ok(ElicitResult::new(ElicitationAction::Cancel))
        }
        Err(error) => Err(McpError::invalid_request(
            format!("the question was not forwarded: {error}"),
            None,
        )),
    }
}

/// The question as our client's user sees it: said to come from the upstream, bounded and
/// escaped (an upstream cannot pass its words off as ours, nor break the line to).
pub(crate) fn question(server: &str, message: &str) -> String {
    format!(
        "The upstream MCP server `{server}` asks: {}",
        bounded(message, MAX_TEXT)
    )
}

/// `text` cut at `max` characters (the cut said) and escaped.
pub(crate) fn bounded(text: &str, max: usize) -> String {
    let mut chars = text.char_indices();
    let cut = chars.nth(max).map(|(at, _)| at);
    match cut {
        None => toolwright_names::escape::escape(text).into_owned(),
        Some(at) => {
            let rest = text[at..].chars().count();
            format!(
                "{}... ({rest} more characters)",
                toolwright_names::escape::escape(&text[..at])
            )
        }
    }
}

/// Escapes the texts of an elicitation schema a person reads (`title`, `description`,
/// `enumNames`), each bounded; values (`enum`, `const`, `default`) stay as they are, since
/// they are what the answer carries.
fn escape_schema_texts(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match (key.as_str(), item) {
                    ("title" | "description", Value::String(text)) => {
                        *text = bounded(text, MAX_TEXT);
                    }
                    ("enumNames", Value::Array(names)) => {
                        for name in names {
                            if let Value::String(text) = name {
                                *text = bounded(text, MAX_TEXT);
                            }
                        }
                    }
                    (_, item) => escape_schema_texts(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(escape_schema_texts),
        _ => {}
    }
}

/// The upstream's `sampling/createMessage`: sent to the sampling of the client of the call
/// it belongs to; an error when it belongs to none, or that client cannot sample.
pub(super) async fn sample(
    calls: &Calls,
    server: &str,
    params: CreateMessageRequestParams,
    origin: Option<&InboundStreamOrigin>,
) -> Result<CreateMessageResult, McpError> {
    let route = calls.route(origin).await;
    let Route::Call(call) = route else {
        let why = unrouted(&route).unwrap_or_default();
        tracing::warn!(
            upstream = server,
            "refused a sampling request of the upstream MCP server: {why}"
        );
        return Err(McpError::invalid_request(
            format!("sampling is refused: {why}"),
            None,
        ));
    };
    call.runs();
    answer_sampling(&call.ctx, params).await
}

/// Sends the upstream's sampling request to `ctx`'s client. Shared by
/// `sampling/createMessage` and MRTR input requests.
pub(super) async fn answer_sampling(
    ctx: &ToolContext,
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, McpError> {
    let (messages, options) = sampling_request(params)?;
    match ctx.sample(messages, options).await {
        Ok(reply) => Ok(sampling_result(reply)),
        Err(error @ ClientError::NotAvailable { .. }) => Err(McpError::invalid_request(
            format!("the client cannot sample: {error}"),
            None,
        )),
        Err(error) => Err(McpError::invalid_request(
            format!("the sampling request was not answered: {error}"),
            None,
        )),
    }
}

/// The upstream's request in our terms: text messages only (no tools, images or audio),
/// within [`MAX_SAMPLING_BYTES`].
fn sampling_request(
    params: CreateMessageRequestParams,
) -> Result<(Vec<SamplingMessage>, SamplingOptions), McpError> {
    let refused = |why: String| McpError::invalid_params(why, None);
    if params.tools.is_some() || params.tool_choice.is_some() {
        return Err(refused(
            "sampling with tools is not forwarded (not declared)".to_owned(),
        ));
    }
    let mut size = 0usize;
    let mut messages = Vec::with_capacity(params.messages.len());
    for message in params.messages {
        let mut texts = Vec::new();
        for block in message.content.into_vec() {
            match block {
                SamplingMessageContentBlock::Text(text) => texts.push(text.text),
                _ => {
                    return Err(refused(
                        "only text sampling messages are forwarded".to_owned(),
                    ));
                }
            }
        }
        let text = texts.join("\n");
        size = size.saturating_add(text.len());
        messages.push(match message.role {
            Role::User => SamplingMessage::user(text),
            Role::Assistant => SamplingMessage::assistant(text),
        });
    }
    if let Some(prompt) = &params.system_prompt {
        size = size.saturating_add(prompt.len());
    }
    if size > MAX_SAMPLING_BYTES {
        return Err(refused(format!(
            "the sampling request holds {size} bytes of text; at most {MAX_SAMPLING_BYTES} are \
             forwarded"
        )));
    }
    let mut options = SamplingOptions::new(params.max_tokens);
    if let Some(prompt) = params.system_prompt {
        options = options.system_prompt(prompt);
    }
    if let Some(temperature) = params.temperature {
        options = options.temperature(temperature);
    }
    for sequence in params.stop_sequences.unwrap_or_default() {
        options = options.stop_sequence(sequence);
    }
    if let Some(preferences) = params.model_preferences {
        for hint in preferences.hints.unwrap_or_default() {
            if let Some(name) = hint.name {
                options = options.model_hint(name);
            }
        }
        if let Some(priority) = preferences.cost_priority {
            options = options.cost_priority(priority);
        }
        if let Some(priority) = preferences.speed_priority {
            options = options.speed_priority(priority);
        }
        if let Some(priority) = preferences.intelligence_priority {
            options = options.intelligence_priority(priority);
        }
    }
    Ok((messages, options))
}

fn sampling_result(reply: SampledMessage) -> CreateMessageResult {
    let message = match reply.role {
        toolwright_core::client::Role::User => McpSamplingMessage::user_text(reply.text),
        toolwright_core::client::Role::Assistant => McpSamplingMessage::assistant_text(reply.text),
    };
    let mut result = CreateMessageResult::new(message, reply.model);
    result.stop_reason = reply.stop_reason;
    result
}

/// The upstream's input requests of one round of a multi round-trip request (MCP
/// 2026-07-28), answered through `ctx`'s client: the responses to send with the repeated
/// call, or why they cannot be given.
pub(super) async fn answer_input_requests(
    ctx: &ToolContext,
    server: &str,
    requests: InputRequests,
) -> Result<InputResponses, String> {
    if requests.len() > MAX_INPUT_REQUESTS {
        return Err(format!(
            "{} input requests in one round; at most {MAX_INPUT_REQUESTS} are answered",
            requests.len()
        ));
    }
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let key_shown = bounded(&key, 64);
        let unreadable = |e: serde_json::Error| format!("could not write the answer: {e}");
        let answer = match request {
            InputRequest::Elicitation(request) => match request.params {
                ElicitRequestParams::FormElicitationParams {
                    message,
                    requested_schema,
                    ..
                } => {
                    let schema = serde_json::to_value(&requested_schema).map_err(unreadable)?;
                    let answer = answer_elicitation(ctx, server, &message, schema)
                        .await
                        .map_err(|e| format!("`{key_shown}`: {}", e.message))?;
                    serde_json::to_value(answer).map_err(unreadable)?
                }
                _ => serde_json::to_value(ElicitResult::new(ElicitationAction::Decline))
                    .map_err(unreadable)?,
            },
            InputRequest::CreateMessage(request) => {
                let answer = answer_sampling(ctx, request.params)
                    .await
                    .map_err(|e| format!("`{key_shown}`: {}", e.message))?;
                serde_json::to_value(answer).map_err(unreadable)?
            }
            // No roots are declared: an empty list.
            InputRequest::ListRoots(_) => serde_json::json!({"roots": []}),
            _ => return Err(format!("`{key_shown}` is a kind of request not forwarded")),
        };
        responses.insert(key, answer);
    }
    Ok(responses)
}

/// The upstream's `notifications/message`: to `tracing` (naming the upstream, at the
/// closest level), and to the client of the only call in flight, if there is one, as
/// that call's tool (at most [`MAX_LOGS_PER_CALL`] a call).
pub(super) fn log(calls: &Calls, server: &str, params: LoggingMessageNotificationParam) {
    let level = toolwright_mcp::log_level_from_rmcp(params.level);
    let text = match &params.data {
        Value::String(text) => bounded(text, MAX_TEXT),
        other => bounded(&other.to_string(), MAX_TEXT),
    };
    let logger = params
        .logger
        .as_deref()
        .map(|logger| bounded(logger, 64))
        .unwrap_or_default();
    let level_name = level.as_str();
    match level {
        LogLevel::Debug => {
            tracing::debug!(upstream = server, logger, level = level_name, "{text}");
        }
        LogLevel::Info | LogLevel::Notice => {
            tracing::info!(upstream = server, logger, level = level_name, "{text}");
        }
        LogLevel::Warning => {
            tracing::warn!(upstream = server, logger, level = level_name, "{text}");
        }
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => {
            tracing::error!(upstream = server, logger, level = level_name, "{text}");
        }
    }
    let Route::Call(call) = calls.only_now() else {
        return;
    };
    if call.logs.fetch_add(1, Ordering::Relaxed) >= MAX_LOGS_PER_CALL {
        return;
    }
    let from = if logger.is_empty() {
        format!("the upstream MCP server `{server}`")
    } else {
        format!("the upstream MCP server `{server}` ({logger})")
    };
    call.ctx.log(level, format!("[{from}] {text}"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_and_hostile_text_is_cut_and_escaped() {
        assert_eq!(bounded("short", 10), "short");
        assert_eq!(bounded("abcdef", 3), "abc... (3 more characters)");
        assert_eq!(
            bounded("a\u{1b}[2K\nb\u{202e}c", 100),
            "a\\u{1b}[2K\\nb\\u{202e}c"
        );
        let question = question("srv", &"x".repeat(MAX_TEXT + 5));
        assert!(question.starts_with("The upstream MCP server `srv` asks: "));
        assert!(question.ends_with("... (5 more characters)"), "{question}");
    }

    #[test]
    fn schema_texts_are_escaped_and_values_kept() {
        let mut schema = json!({
            "type": "object",
            "description": "top\u{1b}[31m",
            "properties": {
                "region": {"type": "string", "title": "Re\ngion", "enum": ["e\nu"],
                           "enumNames": ["E\u{202e}U"]},
                "size": {"type": "string", "oneOf": [{"const": "s\n", "title": "S\u{200b}"}]}
            }
        });
        escape_schema_texts(&mut schema);
        assert_eq!(schema["description"], "top\\u{1b}[31m");
        assert_eq!(schema["properties"]["region"]["title"], "Re\\ngion");
        assert_eq!(schema["properties"]["region"]["enum"][0], "e\nu");
        assert_eq!(
            schema["properties"]["region"]["enumNames"][0],
            "E\\u{202e}U"
        );
        assert_eq!(schema["properties"]["size"]["oneOf"][0]["const"], "s\n");
        assert_eq!(
            schema["properties"]["size"]["oneOf"][0]["title"],
            "S\\u{200b}"
        );
    }

    #[tokio::test]
    async fn a_request_goes_to_the_only_call_or_none() {
        let calls = Calls::default();
        assert!(matches!(calls.route(None).await, Route::NoCall));
        let first = calls.register(RequestId::Number(1), &ToolContext::new(), None);
        assert!(matches!(calls.route(None).await, Route::Call(_)));
        let second = calls.register(RequestId::Number(2), &ToolContext::new(), None);
        assert!(matches!(calls.route(None).await, Route::Ambiguous(2)));
        assert!(matches!(calls.only_now(), Route::Ambiguous(2)));
        // Marked by its stream: the call of that stream, or none.
        let by_stream = InboundStreamOrigin::OutboundRequest(RequestId::Number(2));
        assert!(matches!(
            calls.route(Some(&by_stream)).await,
            Route::Call(_)
        ));
        let other_stream = InboundStreamOrigin::OutboundRequest(RequestId::Number(9));
        assert!(matches!(
            calls.route(Some(&other_stream)).await,
            Route::NoCall
        ));
        drop(first);
        drop(second);
        assert!(calls.is_empty());
    }
}
