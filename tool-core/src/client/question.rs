//! Several questions at once, named keys, and the client's roots: what a tool asks with
//! [`ToolContext::ask_all`](crate::ToolContext::ask_all) and
//! [`ToolContext::roots`](crate::ToolContext::roots), and what comes back.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::elicitation::{Elicitation, ElicitationRequest};
use super::error::ClientError;
use super::sampling::{SampledMessage, SamplingMessage, SamplingOptions, SamplingRequest};

/// The longest key a tool may give a question (keys travel in every retry's
/// `inputResponses`).
pub const MAX_QUESTION_KEY_LEN: usize = 64;

/// A directory or file the client lets the server see (MCP `roots/list`; deprecated in the
/// 2026-07-28 revision, still answered by clients that declare `roots`).
///
/// ```
/// use toolwright_core::client::Root;
///
/// let root = Root::new("file:///home/me/project").with_name("project");
/// assert_eq!(root.name.as_deref(), Some("project"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI (a `file://` URI in the clients of today).
    pub uri: String,
    /// A name to show for it, if the client gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            name: None,
        }
    }

    /// The same root with a name to show.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// A request for the client's roots: what [`ClientPowers::roots`](crate::client::ClientPowers::roots)
/// is asked.
///
/// ```
/// use toolwright_core::client::RootsRequest;
/// assert_eq!(RootsRequest::new("index").tool, "index");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RootsRequest {
    /// The tool that asks.
    pub tool: String,
    /// The key the tool named for the question, if it named one.
    pub key: Option<String>,
}

impl RootsRequest {
    /// A request from `tool`, without a key.
    pub fn new(tool: impl Into<String>) -> Self {
        RootsRequest {
            tool: tool.into(),
            key: None,
        }
    }
}

/// One question of a batch, as the front end receives it (the tool's name filled in, the
/// form's schema checked): what [`ClientPowers::ask_all`](crate::client::ClientPowers::ask_all)
/// is given.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Question {
    /// Ask the user to fill in a form.
    Elicit(ElicitationRequest),
    /// Ask the client's model.
    Sample(SamplingRequest),
    /// Ask for the client's roots.
    Roots(RootsRequest),
}

impl Question {
    /// What kind of question it is, for messages: `"elicitation"`, `"sampling"`, `"roots"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Question::Elicit(_) => "elicitation",
            Question::Sample(_) => "sampling",
            Question::Roots(_) => "roots",
        }
    }
}

/// The client's answer to one [`Question`] (or one [`Ask`]), in the batch's order.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::Elicitation;
/// use toolwright_core::client::Answer;
///
/// #[derive(serde::Deserialize)]
/// struct Name { name: String }
///
/// let answer = Answer::Elicit(Elicitation::Accepted(json!({"name": "Ada"})));
/// let Elicitation::Accepted(Name { name }) = answer.form::<Name>().unwrap() else { panic!() };
/// assert_eq!(name, "Ada");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// The user's answer to a form.
    Elicit(Elicitation<Value>),
    /// The client's model's reply.
    Sample(SampledMessage),
    /// The client's roots.
    Roots(Vec<Root>),
}

impl Answer {
    /// The answer to a form, read as a `T`.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidAnswer`] when this is not a form's answer or the form's content
    /// is not a `T`.
    pub fn form<T: DeserializeOwned>(self) -> Result<Elicitation<T>, ClientError> {
        match self {
            Answer::Elicit(Elicitation::Accepted(value)) => serde_json::from_value(value)
                .map(Elicitation::Accepted)
                .map_err(|error| ClientError::InvalidAnswer(error.to_string())),
            Answer::Elicit(Elicitation::Declined) => Ok(Elicitation::Declined),
            Answer::Elicit(Elicitation::Cancelled) => Ok(Elicitation::Cancelled),
            other => Err(mismatch("a form", &other)),
        }
    }

    /// The model's reply.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidAnswer`] when this is not a sampling answer.
    pub fn sampled(self) -> Result<SampledMessage, ClientError> {
        match self {
            Answer::Sample(message) => Ok(message),
            other => Err(mismatch("a sampling request", &other)),
        }
    }

    /// The client's roots.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidAnswer`] when this is not an answer to a roots request.
    pub fn roots(self) -> Result<Vec<Root>, ClientError> {
        match self {
            Answer::Roots(roots) => Ok(roots),
            other => Err(mismatch("a roots request", &other)),
        }
    }
}

fn mismatch(expected: &str, got: &Answer) -> ClientError {
    let got = match got {
        Answer::Elicit(_) => "a form's answer",
        Answer::Sample(_) => "a sampling reply",
        Answer::Roots(_) => "a list of roots",
    };
    ClientError::InvalidAnswer(format!(
        "expected the answer to {expected}, got {got} (read each answer as what its question \
         asked, in the order asked)"
    ))
}

/// A question a tool asks, built before it is asked: a form, a sampling request or the
/// client's roots, with an optional key of the tool's choosing. Give several to
/// [`ToolContext::ask_all`](crate::ToolContext::ask_all) to ask them in one round.
///
/// A key names the question on the wire (an MCP 2026-07-28 `inputRequests` entry; without
/// one the key is a digest of the question). The server still binds the key to the exact
/// question, so an answer given for one question never answers another asked under the same
/// key.
///
/// ```
/// use toolwright_core::client::{Ask, SamplingMessage, SamplingOptions};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Name { name: String }
///
/// let questions = [
///     Ask::form::<Name>("What is your name?").key("user_name"),
///     Ask::sample(vec![SamplingMessage::user("Say hello")], SamplingOptions::new(50)),
///     Ask::roots(),
/// ];
/// assert_eq!(questions[0].key_name(), Some("user_name"));
/// ```
#[derive(Debug, Clone)]
pub struct Ask {
    pub(crate) key: Option<String>,
    pub(crate) what: AskKind,
}

#[derive(Debug, Clone)]
pub(crate) enum AskKind {
    Form { message: String, schema: Value },
    Sample(Vec<SamplingMessage>, SamplingOptions),
    Roots,
}

impl Ask {
    /// A form whose fields are `T`'s (a flat object, as
    /// [`ToolContext::elicit`](crate::ToolContext::elicit) asks).
    pub fn form<T: schemars::JsonSchema>(message: impl Into<String>) -> Ask {
        Ask::form_json(message, crate::client::schema::schema_for::<T>())
    }

    /// A form given as a JSON Schema (checked when asked).
    pub fn form_json(message: impl Into<String>, schema: Value) -> Ask {
        Ask {
            key: None,
            what: AskKind::Form {
                message: message.into(),
                schema,
            },
        }
    }

    /// A request to the client's model.
    pub fn sample(messages: Vec<SamplingMessage>, options: SamplingOptions) -> Ask {
        Ask {
            key: None,
            what: AskKind::Sample(messages, options),
        }
    }

    /// A request for the client's roots.
    pub fn roots() -> Ask {
        Ask {
            key: None,
            what: AskKind::Roots,
        }
    }

    /// The same question under `key` (at most [`MAX_QUESTION_KEY_LEN`] characters of
    /// `[A-Za-z0-9_.-]`; checked when asked).
    #[must_use]
    pub fn key(mut self, key: impl Into<String>) -> Ask {
        self.key = Some(key.into());
        self
    }

    /// The key the tool named, if any.
    pub fn key_name(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The question as a front end receives it, from `tool`.
    pub(crate) fn resolve(self, tool: &str) -> Result<Question, ClientError> {
        if let Some(key) = &self.key {
            check_key(key)?;
        }
        Ok(match self.what {
            AskKind::Form { message, schema } => {
                let schema = crate::client::schema::elicitation_schema(&schema)?;
                let mut request = ElicitationRequest::new(tool, message, schema);
                request.key = self.key;
                Question::Elicit(request)
            }
            AskKind::Sample(messages, options) => {
                let mut request = SamplingRequest::new(tool, messages, options);
                request.key = self.key;
                Question::Sample(request)
            }
            AskKind::Roots => {
                let mut request = RootsRequest::new(tool);
                request.key = self.key;
                Question::Roots(request)
            }
        })
    }
}

/// A key a tool may name: short, and of characters that read the same everywhere.
fn check_key(key: &str) -> Result<(), ClientError> {
    let fits = !key.is_empty()
        && key.len() <= MAX_QUESTION_KEY_LEN
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if fits {
        Ok(())
    } else {
        Err(ClientError::InvalidQuestion(format!(
            "the key {key:?} is not 1 to {MAX_QUESTION_KEY_LEN} characters of letters, digits, \
             `_`, `-` and `.`"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_when_asked() {
        assert!(Ask::roots().key("client_roots").resolve("t").is_ok());
        for bad in ["", "a b", "ключ", &"k".repeat(MAX_QUESTION_KEY_LEN + 1)] {
            assert!(matches!(
                Ask::roots().key(bad).resolve("t"),
                Err(ClientError::InvalidQuestion(_))
            ));
        }
    }

    #[test]
    fn answers_are_read_as_what_was_asked() {
        assert!(Answer::Roots(vec![]).form::<Value>().is_err());
        assert_eq!(
            Answer::Roots(vec![Root::new("file:///a")]).roots().unwrap()[0].uri,
            "file:///a"
        );
    }
}
