//! What a client answered to an elicitation, read once for every way an answer arrives: an
//! rmcp `ElicitResult` (a session's request), or JSON (an MRTR `inputResponses` entry, a
//! task's `tasks/update`). Its own module so `client` (sessions) and `rounds` (MRTR) both
//! use it without importing each other.

use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{Map, Value};
use toolwright_core::client::{ClientError, Elicitation};

/// What a tool reads of the client's answer to its elicitation: accepted (with the form's
/// content, `{}` when the client sent none), declined, or cancelled.
pub(crate) fn elicitation_of(result: ElicitResult) -> Elicitation<Value> {
    match result.action {
        ElicitationAction::Accept => {
            Elicitation::Accepted(result.content.unwrap_or_else(|| Value::Object(Map::new())))
        }
        ElicitationAction::Decline => Elicitation::Declined,
        _ => Elicitation::Cancelled,
    }
}

/// An answer that came back as JSON (an `inputResponses` entry, a `tasks/update`), read as
/// an elicitation result.
pub(crate) fn read_elicitation(answer: Value) -> Result<Elicitation<Value>, ClientError> {
    let result: ElicitResult = serde_json::from_value(answer).map_err(|error| {
        ClientError::InvalidAnswer(format!("the answer is not an elicitation result ({error})"))
    })?;
    Ok(elicitation_of(result))
}
