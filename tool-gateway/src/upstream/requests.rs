//! An upstream's prompts, resources and completions asked for on behalf of one of our
//! clients: `prompts/get` and `resources/read` (with the input rounds of an MCP 2026-07-28
//! upstream answered through the client, as a call's are), `completion/complete`,
//! `resources/subscribe` and `resources/unsubscribe`. The names and URIs here are the
//! upstream's own; the mount translates.

// rmcp marks `resources/subscribe` legacy-only (MCP 2026-07-28 listens instead); it is what
// the upstreams in use (2025-11-25) speak.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompleteResult,
    CompletionContext, GetPromptRequest, GetPromptRequestParams, GetPromptResult,
    ReadResourceRequest, ReadResourceRequestParams, ReadResourceResult, Reference, ServerResult,
    SubscribeRequest, SubscribeRequestParams, UnsubscribeRequest, UnsubscribeRequestParams,
};
use rmcp::service::PeerRequestOptions;
use serde_json::{Map, Value};
use toolwright_core::{ToolContext, ToolError};

use super::forward;
use super::session::{MAX_INPUT_ROUNDS, Upstream};

/// How long a completion, a subscription or an unsubscription may take upstream: they
/// answer at once or not at all.
const QUICK_TIMEOUT: Duration = Duration::from_secs(30);

/// The MCP error code of a resource that does not exist (SEP-2164).
pub(crate) const RESOURCE_NOT_FOUND: i32 = -32002;

/// Why a request of ours failed upstream.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The upstream said the resource does not exist (`-32002`, SEP-2164).
    NotFound(String),
    /// Anything else, said for a person (escaped).
    Failed(ToolError),
}

impl From<ToolError> for Failure {
    fn from(error: ToolError) -> Self {
        Failure::Failed(error)
    }
}

fn escaped(text: &impl std::fmt::Display) -> String {
    toolwright_names::escape::escape(&text.to_string()).into_owned()
}

impl Upstream {
    fn failed(&self, what: &str, reason: impl std::fmt::Display) -> ToolError {
        ToolError::new(format!(
            "the upstream MCP server `{}` could not {what}: {reason}",
            self.server_name()
        ))
    }

    /// A request that may answer with input requests (`prompts/get`, `resources/read`):
    /// each round answered through `ctx`'s client, at most [`MAX_INPUT_ROUNDS`].
    async fn with_rounds(
        &self,
        ctx: &ToolContext,
        what: &str,
        mut request: impl FnMut(Option<rmcp::model::InputResponses>, Option<String>) -> ClientRequest,
    ) -> Result<ServerResult, Failure> {
        let failed = |reason: String| self.failed(what, reason);
        let (mut responses, mut state) = (None, None);
        for _ in 0..=MAX_INPUT_ROUNDS {
            let result = self
                .request_once(ctx, None, request(responses.take(), state.take()), &failed)
                .await?;
            match result {
                Ok(ServerResult::InputRequiredResult(asked)) => {
                    let answers = forward::answer_input_requests(
                        ctx,
                        self.server_name(),
                        asked.input_requests.unwrap_or_default(),
                    )
                    .await
                    .map_err(|reason| failed(format!("it asked for input: {reason}")))?;
                    responses = Some(answers);
                    state = asked.request_state;
                }
                Ok(result) => return Ok(result),
                Err(rmcp::ServiceError::McpError(error)) if error.code.0 == RESOURCE_NOT_FOUND => {
                    return Err(Failure::NotFound(escaped(&error.message)));
                }
                Err(error) => return Err(Failure::Failed(failed(escaped(&error)))),
            }
        }
        Err(Failure::Failed(failed(format!(
            "it still asked for input after {MAX_INPUT_ROUNDS} rounds of answers, the most \
             forwarded"
        ))))
    }

    /// `prompts/get` of the upstream's prompt `name` with `arguments`, for `ctx`'s client.
    pub(crate) async fn get_prompt(
        &self,
        ctx: &ToolContext,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult, Failure> {
        let what = format!("give its prompt `{}`", escaped(&name));
        let result = self
            .with_rounds(ctx, &what, |responses, state| {
                let mut params =
                    GetPromptRequestParams::new(name).with_arguments(arguments.clone());
                params.input_responses = responses;
                params.request_state = state;
                ClientRequest::GetPromptRequest(GetPromptRequest::new(params))
            })
            .await?;
        match result {
            ServerResult::GetPromptResult(result) => Ok(result),
            _ => Err(Failure::Failed(
                self.failed(&what, "it answered with another kind of result"),
            )),
        }
    }

    /// `resources/read` of the upstream's `uri`, for `ctx`'s client.
    pub(crate) async fn read_resource(
        &self,
        ctx: &ToolContext,
        uri: &str,
    ) -> Result<ReadResourceResult, Failure> {
        let what = format!("read its resource `{}`", escaped(&uri));
        let result = self
            .with_rounds(ctx, &what, |responses, state| {
                let mut params = ReadResourceRequestParams::new(uri);
                params.input_responses = responses;
                params.request_state = state;
                ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params))
            })
            .await?;
        match result {
            ServerResult::ReadResourceResult(result) => Ok(result),
            _ => Err(Failure::Failed(
                self.failed(&what, "it answered with another kind of result"),
            )),
        }
    }

    /// One request that answers at once (no input rounds, no call of ours to route the
    /// upstream's questions to).
    async fn quick(&self, what: &str, request: ClientRequest) -> Result<ServerResult, ToolError> {
        let handle = self
            .inner
            .peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(QUICK_TIMEOUT))
            .await
            .map_err(|e| self.failed(what, escaped(&e)))?;
        handle
            .await_response()
            .await
            .map_err(|e| self.failed(what, escaped(&e)))
    }

    /// `completion/complete` of the upstream: `reference` is the upstream's (its prompt's
    /// name or its resource template).
    pub(crate) async fn complete(
        &self,
        reference: Reference,
        argument: &str,
        value: &str,
        context: Option<std::collections::HashMap<String, String>>,
    ) -> Result<CompleteResult, ToolError> {
        let what = "complete an argument";
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if let Some(arguments) = context {
            params = params.with_context(CompletionContext::with_arguments(arguments));
        }
        match self
            .quick(
                what,
                ClientRequest::CompleteRequest(CompleteRequest::new(params)),
            )
            .await?
        {
            ServerResult::CompleteResult(result) => Ok(result),
            _ => Err(self.failed(what, "it answered with another kind of result")),
        }
    }

    /// `resources/subscribe` (`subscribe: true`) or `resources/unsubscribe` of the
    /// upstream's `uri`.
    pub(crate) async fn subscribe(&self, uri: &str, subscribe: bool) -> Result<(), ToolError> {
        let (what, request) = if subscribe {
            (
                "subscribe to a resource",
                ClientRequest::SubscribeRequest(SubscribeRequest::new(
                    SubscribeRequestParams::new(uri),
                )),
            )
        } else {
            (
                "unsubscribe from a resource",
                ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(
                    UnsubscribeRequestParams::new(uri),
                )),
            )
        };
        self.quick(what, request).await.map(drop)
    }
}
