//! Why a request to the client did not get an answer.

use crate::error::ToolError;

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
    /// The question itself cannot be asked (a key that is not a short name, two different
    /// questions under one key in one round).
    #[error("this question cannot be asked: {0}")]
    InvalidQuestion(String),
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
    /// [`ClientPowers`](crate::client::ClientPowers) implementation returns this; under an executor the tool never sees
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
