//! What a front end implements to offer a running tool its client's powers.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use super::elicitation::{Elicitation, ElicitationRequest};
use super::error::ClientError;
use super::log::{LogLevel, log_to_tracing};
use super::question::{Answer, Question, Root, RootsRequest};
use super::sampling::{SampledMessage, SamplingRequest};

/// The future a [`ClientPowers`] method returns.
pub type ClientFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// How many elicitation and sampling requests one call may make unless the executor says
/// otherwise (`ExecutorBuilder::max_client_requests`).
pub const DEFAULT_MAX_CLIENT_REQUESTS: u32 = 10;

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

    /// Asks the client for its roots (MCP `roots/list`).
    fn roots(&self, request: RootsRequest) -> ClientFuture<Result<Vec<Root>, ClientError>> {
        let _ = request;
        Box::pin(async {
            Err(ClientError::NotAvailable {
                what: "roots",
                why: "this front end has no roots to give".to_owned(),
            })
        })
    }

    /// Asks every question of `questions` in one round; the answers come back in the same
    /// order. The default asks them one after the other through [`elicit`](Self::elicit),
    /// [`sample`](Self::sample) and [`roots`](Self::roots), each made before the first is
    /// awaited (an implementation that collects questions when they are made, as an MCP
    /// server of the 2026-07-28 revision does, so gets them all in one round); an
    /// implementation that can ask them concurrently overrides it.
    fn ask_all(&self, questions: Vec<Question>) -> ClientFuture<Result<Vec<Answer>, ClientError>> {
        let asked: Vec<ClientFuture<Result<Answer, ClientError>>> = questions
            .into_iter()
            .map(|question| ask_one(self, question))
            .collect();
        Box::pin(async move {
            let mut answers = Vec::with_capacity(asked.len());
            for answer in asked {
                answers.push(answer.await?);
            }
            Ok(answers)
        })
    }
}

/// One question through `powers`' method for its kind, its answer made an [`Answer`].
pub fn ask_one<P: ClientPowers + ?Sized>(
    powers: &P,
    question: Question,
) -> ClientFuture<Result<Answer, ClientError>> {
    match question {
        Question::Elicit(request) => {
            let asked = powers.elicit(request);
            Box::pin(async move { asked.await.map(Answer::Elicit) })
        }
        Question::Sample(request) => {
            let asked = powers.sample(request);
            Box::pin(async move { asked.await.map(Answer::Sample) })
        }
        Question::Roots(request) => {
            let asked = powers.roots(request);
            Box::pin(async move { asked.await.map(Answer::Roots) })
        }
    }
}
