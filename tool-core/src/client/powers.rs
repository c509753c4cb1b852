//! What a front end implements to offer a running tool its client's powers.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use super::elicitation::{Elicitation, ElicitationRequest};
use super::error::ClientError;
use super::log::{LogLevel, log_to_tracing};
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
}
