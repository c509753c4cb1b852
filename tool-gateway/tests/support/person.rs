//! A person behind an MCP client, for the tests of questions an upstream asks: answers in
//! the call (the handshake era) or only by the call's next request (2026-07-28).

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use serde_json::Value;
use toolwright_core::client::{ClientFuture, ClientPowers, ElicitationRequest};
use toolwright_core::{ClientError, Elicitation};

/// A person's client: answers in the call (the handshake era) or only by the call's next
/// request (2026-07-28, `in_rounds`); records the questions.
#[derive(Clone, Default)]
pub struct Person {
    pub answer: Option<Value>,
    pub in_rounds: bool,
    pub questions: Arc<Mutex<Vec<String>>>,
}

impl ClientPowers for Person {
    fn elicit(
        &self,
        request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<Value>, ClientError>> {
        self.questions.lock().unwrap().push(request.message.clone());
        if self.in_rounds || self.answer.is_none() {
            return Box::pin(async { Err(ClientError::InputRequired) });
        }
        let answer = self.answer.clone().unwrap_or_default();
        Box::pin(async move { Ok(Elicitation::Accepted(answer)) })
    }
}
