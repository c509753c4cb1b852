//! What the client that made a call offers a running tool: logging to it, asking its user
//! (elicitation), asking its model (sampling). An MCP server implements [`ClientPowers`]
//! for its sessions; a tool reaches it through [`ToolContext::log`](crate::ToolContext::log),
//! [`ToolContext::elicit`](crate::ToolContext::elicit) and
//! [`ToolContext::sample`](crate::ToolContext::sample). Elsewhere (a plain executor, a
//! direct `Tool::call`) those say [`ClientError::NotAvailable`].
//!
//! `toolwright_core::client` (this module, re-exported) adds a whole example, run
//! through the executor.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::error::ToolError;

/// The future a [`ClientPowers`] method returns.
pub type ClientFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// How many elicitation and sampling requests one call may make unless the executor says
/// otherwise (`ExecutorBuilder::max_client_requests`).
pub const DEFAULT_MAX_CLIENT_REQUESTS: u32 = 10;

/// The severity of a log message: the eight syslog levels MCP uses, lowest first.
///
/// ```
/// use toolwright_core::LogLevel;
///
/// assert!(LogLevel::Warning > LogLevel::Info);
/// assert_eq!("notice".parse::<LogLevel>().unwrap(), LogLevel::Notice);
/// assert_eq!(LogLevel::Emergency.as_str(), "emergency");
/// assert!("loud".parse::<LogLevel>().is_err());
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Something happened.
    Info,
    /// Something normal but worth noticing.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A part stopped working.
    Critical,
    /// Someone must act now.
    Alert,
    /// Nothing works.
    Emergency,
}

impl LogLevel {
    /// Every level, lowest first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name as MCP spells it (`"warning"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A log level name that is not one of the eight.
///
/// ```
/// let err = "loud".parse::<toolwright_core::LogLevel>().unwrap_err();
/// assert!(err.to_string().contains("debug, info"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown log level `{0}`: use one of debug, info, notice, warning, error, critical, alert, \
     emergency"
)]
pub struct ParseLogLevelError(String);

impl FromStr for LogLevel {
    type Err = ParseLogLevelError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        LogLevel::ALL
            .into_iter()
            .find(|level| level.as_str().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| ParseLogLevelError(text.to_owned()))
    }
}

/// The user's answer to an elicitation.
///
/// ```
/// use toolwright_core::Elicitation;
///
/// let answer: Elicitation<u32> = Elicitation::Accepted(3);
/// assert_eq!(answer.accepted(), Some(3));
/// assert_eq!(Elicitation::<u32>::Declined.accepted(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user answered.
    Accepted(T),
    /// The user explicitly refused to answer.
    Declined,
    /// The user dismissed the question without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The answer, if the user gave one.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(value) => Some(value),
            Elicitation::Declined | Elicitation::Cancelled => None,
        }
    }

    /// The same outcome with the answer changed by `f`.
    ///
    /// ```
    /// use toolwright_core::Elicitation;
    /// assert_eq!(Elicitation::Accepted(2).map(|n| n * 2), Elicitation::Accepted(4));
    /// ```
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Elicitation<U> {
        match self {
            Elicitation::Accepted(value) => Elicitation::Accepted(f(value)),
            Elicitation::Declined => Elicitation::Declined,
            Elicitation::Cancelled => Elicitation::Cancelled,
        }
    }
}

/// Why a request to the client did not get an answer.
///
/// A `ClientError` converts into a [`ToolError`], so a tool can use `?`:
///
/// ```
/// use toolwright_core::{ClientError, ToolError};
///
/// let err = ClientError::NotAvailable { what: "sampling", why: "this call is not served over MCP".into() };
/// assert_eq!(err.to_string(), "sampling is not available here: this call is not served over MCP");
/// let for_the_model: ToolError = err.into();
/// assert!(for_the_model.to_string().starts_with("sampling is not available here"));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Nobody can answer this kind of request for this call.
    #[error("{what} is not available here: {why}")]
    NotAvailable {
        /// `"elicitation"` or `"sampling"`.
        what: &'static str,
        /// Why (not served over MCP, the client did not declare the capability...).
        why: String,
    },
    /// The client's user refused the request (a sampling request they did not allow).
    #[error("the user declined the {what} request{}", reason_suffix(.reason))]
    Declined {
        /// `"elicitation"` or `"sampling"`.
        what: &'static str,
        /// What the client said, if anything.
        reason: Option<String>,
    },
    /// The call already made as many requests to the client as it may.
    #[error(
        "this call already made {limit} requests to the client (elicitation and sampling), the \
         most one call may make; finish with what you have (the limit is the executor's \
         `max_client_requests`)"
    )]
    LimitReached {
        /// The limit.
        limit: u32,
    },
    /// What the tool asks for cannot be asked through elicitation (MCP allows only a flat
    /// object of strings, numbers, integers, booleans and string enums).
    #[error("cannot ask the user for this through elicitation: {0}")]
    UnsupportedSchema(String),
    /// The client's answer does not fit what was asked.
    #[error("the client's answer does not fit what was asked: {0}")]
    InvalidAnswer(String),
    /// The client could not be reached or answered with an error.
    #[error("the client did not answer: {0}")]
    Protocol(String),
    /// The call was cancelled while waiting for the client.
    #[error("the call was cancelled while waiting for the client")]
    Cancelled,
    /// The question goes to the caller with the call's result, and the caller repeats the
    /// call with the answer (MCP's multi round-trip requests, revision 2026-07-28). A
    /// [`ClientPowers`] implementation returns this; under an executor the tool never sees
    /// it: its run stops at the question (`Outcome::InputRequired`),
    /// and the repeated call runs the tool again with the answer.
    #[error(
        "the question goes to the caller, who answers it by repeating the call; this run of the \
         tool stops here"
    )]
    InputRequired,
    /// The tool asked a question after it changed something
    /// ([`ToolContext::record_side_effect`](crate::ToolContext::record_side_effect)), and the
    /// question can only be answered by repeating the call, which would run that change
    /// again. Ask every question before the first change.
    #[error(
        "this question cannot be asked: the tool already changed something in this run ({0}), \
         and the answer arrives only when the call is repeated, which would do that again; the \
         tool must ask its questions before it changes anything"
    )]
    AfterSideEffect(String),
}

fn reason_suffix(reason: &Option<String>) -> String {
    reason
        .as_deref()
        .map(|reason| format!(" ({reason})"))
        .unwrap_or_default()
}

impl From<ClientError> for ToolError {
    fn from(error: ClientError) -> Self {
        ToolError::from_error(error)
    }
}

/// An elicitation a tool makes: what [`ClientPowers::elicit`] is asked to show the user.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::client::ElicitationRequest;
///
/// let request = ElicitationRequest::new("deploy", "Which region?", json!({"type": "object", "properties": {}}));
/// assert_eq!(request.tool, "deploy");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// The tool that asks (show the question as the tool's, not the server's).
    pub tool: String,
    /// The question, as the tool wrote it.
    pub message: String,
    /// What to ask for: a flat object schema of primitive properties (already checked).
    pub schema: Value,
}

impl ElicitationRequest {
    /// A request from `tool`.
    pub fn new(tool: impl Into<String>, message: impl Into<String>, schema: Value) -> Self {
        ElicitationRequest {
            tool: tool.into(),
            message: message.into(),
            schema,
        }
    }
}

/// Who wrote a message of a sampling conversation.
///
/// ```
/// use toolwright_core::client::Role;
/// assert_ne!(Role::User, Role::Assistant);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (or the tool, speaking for it).
    User,
    /// The model.
    Assistant,
}

/// One message of the conversation a tool sends the client's model.
///
/// ```
/// use toolwright_core::client::{Role, SamplingMessage};
///
/// let question = SamplingMessage::user("Summarize: ...");
/// assert_eq!(question.role, Role::User);
/// assert_eq!(SamplingMessage::assistant("Sure.").text, "Sure.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SamplingMessage {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub text: String,
}

impl SamplingMessage {
    /// A message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::User,
            text: text.into(),
        }
    }

    /// A message from the model.
    pub fn assistant(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::Assistant,
            text: text.into(),
        }
    }
}

/// How the client's model should answer a sampling request.
///
/// ```
/// use toolwright_core::client::SamplingOptions;
///
/// let options = SamplingOptions::new(200)
///     .system_prompt("You summarize logs in one sentence.")
///     .temperature(0.2)
///     .model_hint("claude")
///     .intelligence_priority(0.8);
/// assert_eq!(options.max_tokens, 200);
/// assert_eq!(options.model_hints, ["claude"]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct SamplingOptions {
    /// The most tokens the reply may have.
    pub max_tokens: u32,
    /// The system prompt the tool asks for (the client may change or ignore it).
    pub system_prompt: Option<String>,
    /// The sampling temperature, 0.0 to 1.0.
    pub temperature: Option<f32>,
    /// Sequences that end the reply.
    pub stop_sequences: Vec<String>,
    /// Model names or families to prefer, best first (`"claude"`, `"gpt-4o"`).
    pub model_hints: Vec<String>,
    /// How much to prefer a cheap model, 0.0 to 1.0.
    pub cost_priority: Option<f32>,
    /// How much to prefer a fast model, 0.0 to 1.0.
    pub speed_priority: Option<f32>,
    /// How much to prefer a capable model, 0.0 to 1.0.
    pub intelligence_priority: Option<f32>,
}

impl SamplingOptions {
    /// A reply of at most `max_tokens` tokens, everything else the client's choice.
    pub fn new(max_tokens: u32) -> Self {
        SamplingOptions {
            max_tokens,
            ..SamplingOptions::default()
        }
    }

    /// The system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a sequence that ends the reply.
    pub fn stop_sequence(mut self, sequence: impl Into<String>) -> Self {
        self.stop_sequences.push(sequence.into());
        self
    }

    /// Adds a model name or family to prefer.
    pub fn model_hint(mut self, hint: impl Into<String>) -> Self {
        self.model_hints.push(hint.into());
        self
    }

    /// How much to prefer a cheap model.
    pub fn cost_priority(mut self, priority: f32) -> Self {
        self.cost_priority = Some(priority);
        self
    }

    /// How much to prefer a fast model.
    pub fn speed_priority(mut self, priority: f32) -> Self {
        self.speed_priority = Some(priority);
        self
    }

    /// How much to prefer a capable model.
    pub fn intelligence_priority(mut self, priority: f32) -> Self {
        self.intelligence_priority = Some(priority);
        self
    }
}

/// A sampling request a tool makes: what [`ClientPowers::sample`] is asked to send the
/// client's model.
///
/// ```
/// use toolwright_core::client::{SamplingMessage, SamplingOptions, SamplingRequest};
///
/// let request = SamplingRequest::new("summarize", vec![SamplingMessage::user("hi")], SamplingOptions::new(50));
/// assert_eq!(request.messages.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The tool that asks.
    pub tool: String,
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// How to answer.
    pub options: SamplingOptions,
}

impl SamplingRequest {
    /// A request from `tool`.
    pub fn new(
        tool: impl Into<String>,
        messages: Vec<SamplingMessage>,
        options: SamplingOptions,
    ) -> Self {
        SamplingRequest {
            tool: tool.into(),
            messages,
            options,
        }
    }
}

/// The client's model's reply to a sampling request.
///
/// ```
/// use toolwright_core::client::{Role, SampledMessage};
///
/// let reply = SampledMessage::new("Three errors, all from the disk.", "claude-sonnet");
/// assert_eq!(reply.role, Role::Assistant);
/// assert_eq!(reply.stop_reason, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SampledMessage {
    /// Who wrote it (the model: [`Role::Assistant`]).
    pub role: Role,
    /// The reply's text.
    pub text: String,
    /// The model that wrote it, as the client names it.
    pub model: String,
    /// Why the model stopped (`"endTurn"`, `"maxTokens"`...), if the client said.
    pub stop_reason: Option<String>,
}

impl SampledMessage {
    /// A reply from the model `model`.
    pub fn new(text: impl Into<String>, model: impl Into<String>) -> Self {
        SampledMessage {
            role: Role::Assistant,
            text: text.into(),
            model: model.into(),
            stop_reason: None,
        }
    }

    /// The same reply with why the model stopped.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }
}

/// What the client that made a call can do for the tool: the front end (an MCP server, the
/// command line) implements it and gives it to each call with
/// `CallOptions::client`. Every method has a default: `log`
/// goes to `tracing`, `elicit` and `sample` are [`ClientError::NotAvailable`], so a front
/// end implements only what it offers.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::client::{ClientFuture, ClientPowers, ElicitationRequest};
/// use toolwright_core::{ClientError, Elicitation};
///
/// /// Answers every question with the same form.
/// struct Canned(serde_json::Value);
///
/// impl ClientPowers for Canned {
///     fn elicit(&self, _request: ElicitationRequest) -> ClientFuture<Result<Elicitation<serde_json::Value>, ClientError>> {
///         let answer = self.0.clone();
///         Box::pin(async move { Ok(Elicitation::Accepted(answer)) })
///     }
/// }
/// # let _ = Canned(json!({}));
/// ```
pub trait ClientPowers: Send + Sync + 'static {
    /// Sends a log message from `tool` (fire and forget; the implementation filters by the
    /// level the client asked for).
    fn log(&self, tool: &str, level: LogLevel, message: &str) {
        log_to_tracing(tool, level, message);
    }

    /// Asks the user the request's question; the answer is an object of the schema's shape.
    fn elicit(
        &self,
        request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<Value>, ClientError>> {
        let _ = request;
        Box::pin(async {
            Err(ClientError::NotAvailable {
                what: "elicitation",
                why: "this front end cannot ask its user".to_owned(),
            })
        })
    }

    /// Asks the client's model for a reply to the request's conversation.
    fn sample(
        &self,
        request: SamplingRequest,
    ) -> ClientFuture<Result<SampledMessage, ClientError>> {
        let _ = request;
        Box::pin(async {
            Err(ClientError::NotAvailable {
                what: "sampling",
                why: "this front end has no model to ask".to_owned(),
            })
        })
    }
}

/// A log message sent to `tracing` at the closest of its levels (`tracing` has five).
pub(crate) fn log_to_tracing(tool: &str, level: LogLevel, message: &str) {
    match level {
        LogLevel::Debug => tracing::debug!(tool, level = level.as_str(), "{message}"),
        LogLevel::Info | LogLevel::Notice => {
            tracing::info!(tool, level = level.as_str(), "{message}");
        }
        LogLevel::Warning => tracing::warn!(tool, level = level.as_str(), "{message}"),
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => {
            tracing::error!(tool, level = level.as_str(), "{message}");
        }
    }
}

/// The types elicitation may ask for.
const PRIMITIVES: [&str; 4] = ["string", "number", "integer", "boolean"];

/// The keywords of a property MCP's elicitation schemas know; others are left out.
const PROPERTY_KEYWORDS: [&str; 11] = [
    "type",
    "title",
    "description",
    "default",
    "enum",
    "enumNames",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
];

/// `schema` made into what MCP elicitation accepts (`{"type": "object", "properties":
/// {...}, "required": [...]}`, each property a string, number, integer, boolean, string
/// enum, or array of choices of a string enum), or why it cannot be: a nested object, an
/// array of free values, a union of types. Optional properties (`Option<T>` in Rust: a type
/// with `null`) lose their `null`.
///
/// Enums take the forms of MCP 2025-11-25: a plain `enum` when no value has a title;
/// `oneOf: [{"const", "title"}]` when values have titles (from `title`, or the Rust
/// variant's doc comment, which schemars writes as `description`); a legacy `enumNames`
/// kept as given; for several choices (`Vec<AnEnum>`), `items` with `enum` or, with titles,
/// `anyOf: [{"const", "title"}]`.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::client::elicitation_schema;
///
/// let schema = json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "type": "object",
///     "properties": {"name": {"type": "string"}, "age": {"type": ["integer", "null"]}},
///     "required": ["name"]
/// });
/// let flat = elicitation_schema(&schema).unwrap();
/// assert_eq!(flat["properties"]["age"], json!({"type": "integer"}));
///
/// let nested = json!({"type": "object", "properties": {"tags": {"type": "array"}}});
/// let err = elicitation_schema(&nested).unwrap_err();
/// assert!(err.to_string().contains("`tags` is an array"));
///
/// // Titled choices, one or several.
/// let choices = json!({"type": "object", "properties": {
///     "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
///     "toppings": {"type": "array", "items": {"type": "string", "enum": ["ham", "olives"]}}
/// }});
/// assert_eq!(elicitation_schema(&choices).unwrap(), choices);
/// ```
///
/// # Errors
///
/// [`ClientError::UnsupportedSchema`], naming the property and what elicitation allows.
pub fn elicitation_schema(schema: &Value) -> Result<Value, ClientError> {
    let unsupported = |what: String| {
        ClientError::UnsupportedSchema(format!(
            "{what}; elicitation asks only for a flat object whose properties are strings, \
             numbers, integers, booleans, string enums or several values of a string enum \
             (ask for nested data in several questions, or as text)"
        ))
    };
    let Some(root) = schema.as_object() else {
        return Err(unsupported("the schema is not an object".to_owned()));
    };
    match root.get("type") {
        Some(Value::String(kind)) if kind == "object" => {}
        None if root.contains_key("properties") => {}
        _ => return Err(unsupported("the answer is not an object".to_owned())),
    }
    let mut properties = Map::new();
    if let Some(given) = root.get("properties") {
        let Some(given) = given.as_object() else {
            return Err(unsupported("`properties` is not an object".to_owned()));
        };
        for (name, property) in given {
            let property = flat_property(property)
                .map_err(|kind| unsupported(format!("the property `{name}` is {kind}")))?;
            properties.insert(name.clone(), property);
        }
    }
    let mut flat = Map::new();
    flat.insert("type".to_owned(), Value::from("object"));
    if let Some(description) = root.get("description").filter(|d| d.is_string()) {
        flat.insert("description".to_owned(), description.clone());
    }
    flat.insert("properties".to_owned(), Value::Object(properties));
    if let Some(required) = root.get("required").and_then(Value::as_array) {
        let names: Vec<Value> = required.iter().filter(|n| n.is_string()).cloned().collect();
        if !names.is_empty() {
            flat.insert("required".to_owned(), Value::Array(names));
        }
    }
    Ok(Value::Object(flat))
}

/// One property made flat, or what kind of thing it is (for the error).
fn flat_property(property: &Value) -> Result<Value, String> {
    let Some(object) = property.as_object() else {
        return Err("not a schema".to_owned());
    };
    // `Option<T>` as schemars writes it for a referenced type: `anyOf: [T, {type: null}]`;
    // a documented enum: `oneOf: [{const: "a", description}, ...]`.
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(union) {
            let mut merged = object.clone();
            merged.remove(union);
            if let Some(choices) = titled_choices(branches) {
                merged.insert("type".to_owned(), Value::from("string"));
                let mut flat = flat_property(&Value::Object(merged))?;
                set_choices(&mut flat, choices, "oneOf");
                return Ok(flat);
            }
            let others: Vec<&Value> = branches.iter().filter(|b| !is_null_type(b)).collect();
            let [only] = others.as_slice() else {
                return Err("a union of several types".to_owned());
            };
            let Some(inner) = only.as_object() else {
                return Err("not a schema".to_owned());
            };
            for (key, value) in inner {
                merged.entry(key.clone()).or_insert_with(|| value.clone());
            }
            return flat_property(&Value::Object(merged));
        }
    }
    let kind = match object.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => {
            let kinds: Vec<&str> = kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| *k != "null")
                .collect();
            match kinds.as_slice() {
                [kind] => (*kind).to_owned(),
                _ => return Err("a union of several types".to_owned()),
            }
        }
        None if object
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().all(|v| v.is_string() || v.is_null())) =>
        {
            "string".to_owned()
        }
        _ => return Err("of no single type".to_owned()),
    };
    if kind == "array" {
        return multi_select(object);
    }
    if !PRIMITIVES.contains(&kind.as_str()) {
        let article = if kind == "object" { "an" } else { "a" };
        return Err(format!("{article} {kind}"));
    }
    let mut flat = Map::new();
    for keyword in PROPERTY_KEYWORDS {
        if let Some(value) = object.get(keyword) {
            flat.insert(keyword.to_owned(), value.clone());
        }
    }
    flat.insert("type".to_owned(), Value::String(kind.clone()));
    if let Some(Value::Array(values)) = flat.get_mut("enum") {
        values.retain(|v| !v.is_null());
        if values.iter().any(|v| !v.is_string()) {
            return Err("an enum of values that are not strings".to_owned());
        }
        if kind != "string" {
            return Err(format!("an enum of type `{kind}` (enums are of strings)"));
        }
    }
    if let Some(names) = flat.get("enumNames") {
        let count = flat.get("enum").and_then(Value::as_array).map(Vec::len);
        if names.as_array().map(Vec::len) != count {
            return Err("an enum whose `enumNames` do not match its values one to one".to_owned());
        }
    }
    if flat.get("default").is_some_and(Value::is_null) {
        flat.remove("default");
    }
    Ok(Value::Object(flat))
}

/// A choice of an enum: its value and, when it has one, the title the user sees.
struct Choice {
    value: Value,
    title: Option<Value>,
}

/// The choices of `oneOf`/`anyOf` branches that are each one string (`{"const": "a"}`, or a
/// one-value `enum`, as schemars writes a documented variant), with their `title` (or, from
/// a Rust doc comment, `description`); `None` when the branches are anything else.
fn titled_choices(branches: &[Value]) -> Option<Vec<Choice>> {
    if branches.is_empty() {
        return None;
    }
    branches
        .iter()
        .map(|branch| {
            let branch = branch.as_object()?;
            let value = match (branch.get("const"), branch.get("enum")) {
                (Some(value @ Value::String(_)), _) => value.clone(),
                (None, Some(Value::Array(values)))
                    if values.len() == 1 && values[0].is_string() =>
                {
                    values[0].clone()
                }
                _ => return None,
            };
            let title = branch
                .get("title")
                .or_else(|| branch.get("description"))
                .filter(|title| title.is_string())
                .cloned();
            Some(Choice { value, title })
        })
        .collect()
}

/// Writes `choices` into a flat string property: a plain `enum` when none has a title, else
/// `union` (`oneOf` for one choice, `anyOf` for an array's items) of `{const, title}`, the
/// forms MCP's elicitation schemas give titled choices.
fn set_choices(flat: &mut Value, choices: Vec<Choice>, union: &str) {
    let Some(flat) = flat.as_object_mut() else {
        return;
    };
    flat.remove("enum");
    flat.remove("enumNames");
    if choices.iter().all(|choice| choice.title.is_none()) {
        let values = choices.into_iter().map(|choice| choice.value).collect();
        flat.insert("enum".to_owned(), Value::Array(values));
        return;
    }
    let branches = choices
        .into_iter()
        .map(|Choice { value, title }| {
            let title = title.unwrap_or_else(|| value.clone());
            serde_json::json!({"const": value, "title": title})
        })
        .collect();
    flat.insert(union.to_owned(), Value::Array(branches));
}

/// An array property: allowed only as a multiple choice among strings (`Vec<AnEnum>`,
/// `HashSet<AnEnum>`), as `{"type": "array", "items": {"type": "string", "enum": [...]}}` or,
/// with titles, `{"type": "array", "items": {"anyOf": [{"const", "title"}, ...]}}`.
fn multi_select(object: &Map<String, Value>) -> Result<Value, String> {
    const NOT_CHOICES: &str = "an array whose items are not string choices (an array may only \
                               pick several values of a string enum)";
    let items = object
        .get("items")
        .filter(|items| items.is_object())
        .ok_or(NOT_CHOICES)?;
    let items = flat_property(items).map_err(|_| NOT_CHOICES)?;
    let items = match (items.get("enum"), items.get("oneOf")) {
        (Some(values), _) => serde_json::json!({"type": "string", "enum": values}),
        (None, Some(branches)) => serde_json::json!({"anyOf": branches}),
        (None, None) => return Err(NOT_CHOICES.to_owned()),
    };
    let mut flat = Map::new();
    flat.insert("type".to_owned(), Value::from("array"));
    for keyword in ["title", "description", "minItems", "maxItems", "default"] {
        if let Some(value) = object.get(keyword).filter(|value| !value.is_null()) {
            flat.insert(keyword.to_owned(), value.clone());
        }
    }
    flat.insert("items".to_owned(), items);
    Ok(Value::Object(flat))
}

fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemars_options_and_enums_become_flat() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Region {
            Eu,
            Us,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Answer {
            /// Where to deploy.
            region: Region,
            replicas: Option<u32>,
            confirm: bool,
        }
        let generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator();
        let schema = generator.into_root_schema_for::<Answer>().to_value();
        let flat = elicitation_schema(&schema).unwrap();
        assert_eq!(flat["properties"]["region"]["type"], "string");
        assert_eq!(flat["properties"]["region"]["enum"], json!(["Eu", "Us"]));
        assert_eq!(
            flat["properties"]["region"]["description"],
            "Where to deploy."
        );
        assert_eq!(flat["properties"]["replicas"]["type"], "integer");
        assert_eq!(flat["properties"]["confirm"]["type"], "boolean");
        assert_eq!(flat["required"], json!(["region", "confirm"]));
    }

    /// The schema of the conformance suite's `elicitation-sep1330-enums`: every enum form
    /// of MCP 2025-11-25 goes through as it is.
    #[test]
    fn every_enum_form_of_the_specification_is_kept() {
        let schema = json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"}
                ]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"],
                               "enumNames": ["Option One", "Option Two"]},
                "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 2,
                                  "items": {"type": "string", "enum": ["option1", "option2"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"}
                ]}, "default": ["value1"]}
            },
            "required": ["untitledSingle"]
        });
        assert_eq!(elicitation_schema(&schema).unwrap(), schema);
    }

    #[test]
    fn rust_enums_become_titled_choices_one_or_several() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Topping {
            /// Cured ham
            Ham,
            /// Black olives
            Olives,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Size {
            Small,
            Large,
        }
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Order {
            favourite: Topping,
            toppings: Vec<Topping>,
            sizes: std::collections::BTreeSet<Size>,
            maybe: Option<Topping>,
        }
        let generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator();
        let schema = generator.into_root_schema_for::<Order>().to_value();
        let flat = elicitation_schema(&schema).unwrap();
        let titled = json!([
            {"const": "Ham", "title": "Cured ham"},
            {"const": "Olives", "title": "Black olives"}
        ]);
        assert_eq!(flat["properties"]["favourite"]["type"], "string");
        assert_eq!(flat["properties"]["favourite"]["oneOf"], titled);
        assert_eq!(flat["properties"]["maybe"]["oneOf"], titled);
        assert_eq!(
            flat["properties"]["toppings"],
            json!({"type": "array", "items": {"anyOf": titled}})
        );
        assert_eq!(
            flat["properties"]["sizes"]["items"],
            json!({"type": "string", "enum": ["Small", "Large"]})
        );
        assert_eq!(flat["required"], json!(["favourite", "toppings", "sizes"]));
    }

    #[test]
    fn arrays_of_free_values_and_bad_enums_are_refused_by_name() {
        let refused = |property: Value| {
            let schema = json!({"type": "object", "properties": {"p": property}});
            elicitation_schema(&schema).unwrap_err().to_string()
        };
        let err = refused(json!({"type": "array", "items": {"type": "string"}}));
        assert!(
            err.contains("`p` is an array whose items are not string choices"),
            "{err}"
        );
        let err = refused(json!({"type": "array", "items": {"type": "array",
            "items": {"type": "string", "enum": ["a"]}}}));
        assert!(err.contains("`p` is an array whose items"), "{err}");
        let err = refused(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}));
        assert!(err.contains("`enumNames`"), "{err}");
        let err = refused(json!({"type": "integer", "enum": [1, 2]}));
        assert!(err.contains("not strings"), "{err}");
    }

    #[test]
    fn nested_objects_and_unions_are_refused_by_name() {
        let nested = json!({"type": "object", "properties": {"address": {"type": "object"}}});
        let err = elicitation_schema(&nested).unwrap_err().to_string();
        assert!(err.contains("`address` is an object"), "{err}");
        let union = json!({"type": "object", "properties": {"x": {"type": ["string", "integer"]}}});
        let err = elicitation_schema(&union).unwrap_err().to_string();
        assert!(err.contains("`x` is a union"), "{err}");
        let err = elicitation_schema(&json!({"type": "string"})).unwrap_err();
        assert!(err.to_string().contains("not an object"));
    }
}
