//! Asking the user: the request a tool makes and the answer it gets.

use serde_json::Value;

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

/// An elicitation a tool makes: what [`ClientPowers::elicit`](crate::client::ClientPowers::elicit) is asked to show the user.
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
    /// The key the tool named for the question
    /// ([`Ask::key`](crate::client::Ask::key)), if it named one.
    pub key: Option<String>,
}

impl ElicitationRequest {
    /// A request from `tool`.
    pub fn new(tool: impl Into<String>, message: impl Into<String>, schema: Value) -> Self {
        ElicitationRequest {
            tool: tool.into(),
            message: message.into(),
            schema,
            key: None,
        }
    }
}
