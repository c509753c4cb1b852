//! Asking the client's model: the conversation, the options and the reply.

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

/// A sampling request a tool makes: what [`ClientPowers::sample`](crate::client::ClientPowers::sample) is asked to send the
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
    /// The key the tool named for the question
    /// ([`Ask::key`](crate::client::Ask::key)), if it named one.
    pub key: Option<String>,
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
            key: None,
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
