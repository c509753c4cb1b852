//! MCP's other primitives under the executor's policy: getting a prompt, reading a
//! resource, completing an argument. The same layers as a tool call, in the same order
//! where they apply: offered -> enabled -> ceilings -> approval (a dangerous resource or
//! prompt) -> the run (timeout, cancellation, panic capture). Nothing escapes: every end is
//! a [`PrimitiveError`] a front end maps to its protocol's code.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::approval::{ApprovalDecision, ApprovalRequest};
use super::handle::Executor;
use super::options::CallOptions;
use super::running::{AbortOnDrop, cancelled};
use toolwright_core::SafetyLevel;
use toolwright_core::ToolContext;
use toolwright_core::ToolError;
use toolwright_core::{
    CompletionRequest, Completions, Prompt, PromptArguments, PromptOutput, Resource,
    ResourceContents,
};

/// Why a prompt, a resource read or a completion gave nothing: what a front end answers
/// with (an MCP server: `-32602` naming the argument, `-32002` for a resource it does not
/// serve, an error message otherwise).
///
/// ```
/// use toolwright_runtime::executor::PrimitiveError;
///
/// let error = PrimitiveError::ResourceNotFound { uri: "notes://7".into() };
/// assert_eq!(error.to_string(), "no resource at `notes://7`; list the resources to see what exists");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PrimitiveError {
    /// No prompt by that name is offered to this caller.
    #[error("no prompt `{name}`; list the prompts to see what exists")]
    UnknownPrompt {
        /// The name asked for.
        name: String,
    },
    /// No resource (fixed or from a template) answers that URI for this caller.
    #[error("no resource at `{uri}`; list the resources to see what exists")]
    ResourceNotFound {
        /// The URI asked for.
        uri: String,
    },
    /// An argument is missing or does not fit.
    #[error("{message}")]
    InvalidArgument {
        /// The argument's name, when one is at fault.
        argument: Option<String>,
        /// What is wrong and what to send instead.
        message: String,
    },
    /// The policy refused it: disabled, above a ceiling, not approved.
    #[error("{0}")]
    Denied(String),
    /// The handler failed or panicked.
    #[error("{0}")]
    Failed(String),
    /// It ran out of time.
    #[error("{0}")]
    TimedOut(String),
    /// The caller cancelled it.
    #[error("{0}")]
    Cancelled(String),
    /// The handler (or the approval of a dangerous one) asked the caller a question only
    /// the caller's next request answers (MCP 2026-07-28: the front end returns the
    /// questions in an input-required result). The run was stopped at the question.
    #[error("{0}")]
    InputRequired(String),
}

/// What a completion is for: a prompt's argument, or a resource template's variable
/// (MCP's `ref/prompt` and `ref/resource`).
///
/// ```
/// use toolwright_runtime::executor::CompletionReference;
///
/// let reference = CompletionReference::Prompt("review".into());
/// # let _ = reference;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionReference {
    /// The prompt of that name.
    Prompt(String),
    /// The resource with that URI or URI template.
    Resource(String),
}

/// What kind of primitive a policy message is about.
#[derive(Clone, Copy)]
enum Kind {
    Prompt,
    Resource,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }
}

impl Executor {
    /// The prompts a client may list under `options`: enabled, offered, at or under both
    /// ceilings; sorted by name.
    pub fn available_prompts(&self, options: &CallOptions) -> Vec<Prompt> {
        self.inner.registry.prompts(&self.primitive_filter(options))
    }

    /// The fixed-URI resources a client may list under `options` (as
    /// [`available_prompts`](Self::available_prompts)).
    pub fn available_resources(&self, options: &CallOptions) -> Vec<Resource> {
        self.inner
            .registry
            .resources(&self.primitive_filter(options))
    }

    /// The resource templates a client may list under `options` (as
    /// [`available_prompts`](Self::available_prompts)).
    pub fn available_resource_templates(&self, options: &CallOptions) -> Vec<Resource> {
        self.inner
            .registry
            .resource_templates(&self.primitive_filter(options))
    }

    /// Whether `uri` names a resource this caller may read (what it may subscribe to).
    pub fn may_read_resource(&self, uri: &str, options: &CallOptions) -> bool {
        self.readable_resource(uri, options).is_some()
    }

    /// The resource `uri` names that this caller may read, if any: the one a read would
    /// run (what a subscription's hook belongs to).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{CallOptions, Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// assert!(executor.readable_resource("notes://1", &CallOptions::new()).is_none());
    /// ```
    pub fn readable_resource(&self, uri: &str, options: &CallOptions) -> Option<Resource> {
        self.inner
            .registry
            .resolve_resource_filtered(uri, &self.primitive_filter(options))
            .map(|(resource, _)| resource)
    }

    /// Gets the prompt `name` with `arguments`, under the policy (offered, enabled,
    /// ceilings: a prompt above one is, to this caller, no prompt; approval for a dangerous
    /// prompt) and the call's timeout and cancellation. A missing required argument or an
    /// unknown one is refused before the prompt runs, naming it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_runtime::executor::PrimitiveError;
    /// use toolwright_runtime::{CallOptions, Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let got = executor.get_prompt("missing", Default::default(), &CallOptions::new()).await;
    /// assert!(matches!(got, Err(PrimitiveError::UnknownPrompt { .. })));
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`PrimitiveError`]: unknown, refused, a missing argument (named), a failure.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: PromptArguments,
        options: &CallOptions,
    ) -> Result<PromptOutput, PrimitiveError> {
        let unknown = || PrimitiveError::UnknownPrompt {
            name: name.to_owned(),
        };
        let prompt = self.available_prompt(name, options).ok_or_else(unknown)?;
        check_prompt_arguments(&prompt, &arguments)?;
        self.admit(
            Kind::Prompt,
            name,
            prompt.safety(),
            options,
            || serde_json::json!({"arguments": arguments}),
        )
        .await?;
        let (context, asked) = self.primitive_context(name, options);
        let token = context.cancellation_token().clone();
        let getting = prompt.get(arguments, context);
        let span = tracing::info_span!("get_prompt", prompt = name);
        self.run_primitive(Kind::Prompt, name, getting, (token, asked), options)
            .instrument(span)
            .await
    }

    /// Reads the resource at `uri` (a fixed URI first, then the templates, most specific
    /// first), under the policy: a resource is `safe` unless it says otherwise; one above a
    /// ceiling or not offered is, to this caller, no resource (a template it may not read
    /// falls to the next that matches); a dangerous one needs approval like a tool.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_runtime::executor::PrimitiveError;
    /// use toolwright_runtime::{CallOptions, Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let read = executor.read_resource("notes://1", &CallOptions::new()).await;
    /// assert!(matches!(read, Err(PrimitiveError::ResourceNotFound { .. })));
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`PrimitiveError`]: not found, refused, a failure.
    pub async fn read_resource(
        &self,
        uri: &str,
        options: &CallOptions,
    ) -> Result<Vec<ResourceContents>, PrimitiveError> {
        let not_found = || PrimitiveError::ResourceNotFound {
            uri: uri.to_owned(),
        };
        let (resource, variables) = self
            .inner
            .registry
            .resolve_resource_filtered(uri, &self.primitive_filter(options))
            .ok_or_else(not_found)?;
        let name = resource.name().to_owned();
        self.admit(
            Kind::Resource,
            &name,
            resource.safety(),
            options,
            || serde_json::json!({"uri": uri}),
        )
        .await?;
        let (context, asked) = self.primitive_context(uri, options);
        let token = context.cancellation_token().clone();
        let mut request = toolwright_core::ResourceRequest::new(uri);
        request.variables = variables;
        let reading = resource.read(request, context);
        let span = tracing::info_span!("read_resource", resource = %name);
        self.run_primitive(Kind::Resource, &name, reading, (token, asked), options)
            .instrument(span)
            .await
    }

    /// Completes an argument of a prompt or a variable of a resource template. A
    /// reference the caller may not see (unknown, or hidden by the policy: the two look the
    /// same), or one without a completion function, completes to nothing (MCP's empty
    /// completion), not an error.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_core::CompletionRequest;
    /// use toolwright_runtime::executor::CompletionReference;
    /// use toolwright_runtime::{CallOptions, Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// let request = CompletionRequest::new("id", "4");
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let completions = executor.complete(&CompletionReference::Prompt("p".into()), &request, &CallOptions::new()).await;
    /// assert!(completions.unwrap().values.is_empty());
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// [`PrimitiveError::Failed`] for a completion function that panicked.
    pub async fn complete(
        &self,
        reference: &CompletionReference,
        request: &CompletionRequest,
        options: &CallOptions,
    ) -> Result<Completions, PrimitiveError> {
        // Whose completion it is: the options', never what the request says.
        let request = &CompletionRequest {
            caller: options
                .caller
                .as_ref()
                .map(|caller| caller.subject().to_owned()),
            ..request.clone()
        };
        let (kind, name, starting) = match reference {
            CompletionReference::Prompt(name) => {
                let Some(prompt) = self.available_prompt(name, options) else {
                    return Ok(Completions::none());
                };
                let starting = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    prompt.complete(request)
                }));
                (Kind::Prompt, name, starting)
            }
            CompletionReference::Resource(key) => {
                let filter = self.primitive_filter(options);
                let registry = &self.inner.registry;
                let Some(resource) = registry.resource(key).filter(|resource| {
                    filter.matches_resource(resource, registry.is_resource_enabled(key))
                }) else {
                    return Ok(Completions::none());
                };
                let starting = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    resource.complete(request)
                }));
                (Kind::Resource, key, starting)
            }
        };
        let crashed =
            || PrimitiveError::Failed(format!("the completion of `{}` crashed", request.argument));
        match starting {
            Ok(None) => Ok(Completions::none()),
            Err(_) => Err(crashed()),
            // An async completion (a mounted server's) runs like a handler: on a task of its
            // own, under the call's timeout and cancellation, a panic a failure. Capped at
            // MCP's 100 values by the model (`Completions::capped`).
            Ok(Some(completing)) => {
                let future: toolwright_core::BoxFuture<Result<Completions, ToolError>> =
                    Box::pin(async move { Ok(completing.await) });
                match self
                    .run_primitive(
                        kind,
                        name,
                        future,
                        (CancellationToken::new(), None),
                        options,
                    )
                    .await
                {
                    Err(PrimitiveError::Failed(_)) => Err(crashed()),
                    other => other,
                }
            }
        }
    }

    /// The prompt `name` if this caller may see it: enabled, offered, under both ceilings.
    fn available_prompt(&self, name: &str, options: &CallOptions) -> Option<Prompt> {
        let registry = &self.inner.registry;
        registry.prompt(name).filter(|prompt| {
            self.primitive_filter(options)
                .matches_prompt(prompt, registry.is_prompt_enabled(name))
        })
    }

    /// The registry filter of what a caller may list: the offered set, if any.
    fn primitive_filter(&self, options: &CallOptions) -> crate::registry::ToolFilter {
        options
            .allowed
            .as_deref()
            .cloned()
            .unwrap_or_default()
            .max_safety(self.ceiling(options))
    }

    /// The policy after the lookup: both ceilings, then approval for a dangerous one.
    async fn admit(
        &self,
        kind: Kind,
        name: &str,
        safety: SafetyLevel,
        options: &CallOptions,
        arguments: impl FnOnce() -> serde_json::Value,
    ) -> Result<(), PrimitiveError> {
        let what = kind.as_str();
        if safety > self.inner.max_safety {
            return Err(PrimitiveError::Denied(format!(
                "{what} `{name}` is {safety}, above this server's limit of {}",
                self.inner.max_safety
            )));
        }
        if let Some(limit) = options.max_safety
            && safety > limit
        {
            return Err(PrimitiveError::Denied(format!(
                "{what} `{name}` is {safety}, above this caller's limit of {limit}"
            )));
        }
        if safety < SafetyLevel::Dangerous {
            return Ok(());
        }
        let Some(handler) = options
            .approval
            .clone()
            .or_else(|| self.inner.approval.clone())
        else {
            return Err(PrimitiveError::Denied(format!(
                "{what} `{name}` is dangerous and needs approval, but no approval handler is \
                 configured"
            )));
        };
        let request = ApprovalRequest {
            call_id: format!("{what}:{name}"),
            tool: name.to_owned(),
            description: format!("the {what} `{name}`"),
            safety,
            arguments: arguments(),
            preview: None,
            change: None,
        };
        // On a task of its own, so a panicking handler denies and a dropped request stops it.
        let decision = AbortOnDrop(tokio::spawn(
            async move { handler.approve(request).await }.in_current_span(),
        ));
        let decision = tokio::select! {
            joined = decision.join() => joined,
            () = cancelled(options.cancellation.as_ref()) => {
                return Err(PrimitiveError::Cancelled(format!(
                    "the {what} `{name}` was cancelled while waiting for approval"
                )));
            }
        };
        match decision {
            Ok(ApprovalDecision::Approved) => Ok(()),
            Ok(ApprovalDecision::Denied { reason }) => Err(PrimitiveError::Denied(format!(
                "the {what} `{name}` was not approved: {reason}"
            ))),
            // Asked in the request's result (MCP 2026-07-28): the caller answers by repeating it.
            Ok(ApprovalDecision::InputRequired) => Err(PrimitiveError::InputRequired(format!(
                "the {what} `{name}` needs the user's approval, asked in the result"
            ))),
            // Nothing to modify, no hunks, no later resumption for a read: only a yes runs it.
            Ok(_) => Err(PrimitiveError::Denied(format!(
                "the {what} `{name}` was not approved (only a plain yes approves a {what})"
            ))),
            Err(panic) => {
                tracing::error!("{what} `{name}`: the approval handler {panic}");
                Err(PrimitiveError::Denied(format!(
                    "the {what} `{name}` was not approved: the approval handler failed"
                )))
            }
        }
    }

    /// The context a prompt's or a resource's handler runs with: the executor's state,
    /// the caller's ceiling and client, a token cancelled with the request; and, with a
    /// client, the token the context cancels when the run stops at a question its caller
    /// answers only by repeating the request.
    fn primitive_context(
        &self,
        name: &str,
        options: &CallOptions,
    ) -> (ToolContext, Option<CancellationToken>) {
        let token = options
            .cancellation
            .as_ref()
            .map_or_else(CancellationToken::new, CancellationToken::child_token);
        let mut context = ToolContext::for_primitive(name)
            .with_state(std::sync::Arc::clone(&self.inner.state))
            .with_cancellation(token)
            .with_max_safety(self.ceiling(options));
        // Who asks (never their token: a prompt or a resource does not ask for it), so a
        // shared resource behind it can count the caller's share.
        if let Some(caller) = &options.caller {
            context = context.with_caller(caller.without_token());
        }
        let asked = options.client.is_some().then(CancellationToken::new);
        if let Some(client) = &options.client {
            context = context.with_client_limit(
                std::sync::Arc::clone(client),
                self.inner.max_client_requests,
            );
        }
        if let Some(asked) = &asked {
            context = context.with_question_signal(asked.clone());
        }
        (context, asked)
    }

    /// Runs a handler's future on a task of its own: a panic is a failure, the timeout and
    /// the cancellation stop it (dropping the task aborts it).
    async fn run_primitive<T: Send + 'static>(
        &self,
        kind: Kind,
        name: &str,
        future: toolwright_core::BoxFuture<Result<T, ToolError>>,
        (token, asked): (CancellationToken, Option<CancellationToken>),
        options: &CallOptions,
    ) -> Result<T, PrimitiveError> {
        let what = kind.as_str();
        let running = AbortOnDrop(tokio::spawn(future.in_current_span()));
        let timeout = options.timeout.or(self.inner.timeout);
        let timed_out = async {
            match timeout {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending::<()>().await,
            }
        };
        let joined = tokio::select! {
            joined = running.join() => joined,
            () = cancelled(options.cancellation.as_ref()) => {
                token.cancel();
                return Err(PrimitiveError::Cancelled(format!("the {what} `{name}` was cancelled")));
            }
            () = timed_out => {
                token.cancel();
                return Err(PrimitiveError::TimedOut(format!(
                    "the {what} `{name}` took longer than {}",
                    seconds(timeout.unwrap_or_default())
                )));
            }
            // The run stopped at a question for its caller: the request ends here (dropping
            // the task stops the run), and the front end returns the question.
            () = cancelled(asked.as_ref()) => {
                token.cancel();
                return Err(PrimitiveError::InputRequired(format!(
                    "the {what} `{name}` stopped at a question for its caller; the request \
                     runs again with the answer"
                )));
            }
        };
        match joined {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(primitive_error(kind, name, error)),
            Err(panic) => {
                tracing::error!("{what} `{name}` {panic}");
                Err(PrimitiveError::Failed(format!(
                    "the {what} `{name}` failed (it crashed)"
                )))
            }
        }
    }
}

/// Every required argument given, none unknown: else the one at fault, named.
fn check_prompt_arguments(
    prompt: &Prompt,
    arguments: &PromptArguments,
) -> Result<(), PrimitiveError> {
    let name = prompt.name();
    if let Some(missing) = prompt
        .arguments()
        .iter()
        .find(|argument| argument.required && !arguments.contains_key(&argument.name))
    {
        return Err(PrimitiveError::InvalidArgument {
            argument: Some(missing.name.clone()),
            message: format!(
                "prompt `{name}` needs the argument `{}`; give it and get the prompt again",
                missing.name
            ),
        });
    }
    if let Some(unknown) = arguments
        .keys()
        .find(|given| !prompt.arguments().iter().any(|a| &a.name == *given))
    {
        let known: Vec<&str> = prompt.arguments().iter().map(|a| a.name.as_str()).collect();
        return Err(PrimitiveError::InvalidArgument {
            argument: Some(unknown.clone()),
            message: format!(
                "prompt `{name}` has no argument `{unknown}`; its arguments: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        });
    }
    Ok(())
}

/// A handler's error as the front end answers it.
fn primitive_error(kind: Kind, name: &str, error: ToolError) -> PrimitiveError {
    match error {
        ToolError::ResourceNotFound { uri } => PrimitiveError::ResourceNotFound { uri },
        ToolError::InvalidArguments(invalid) => PrimitiveError::InvalidArgument {
            argument: invalid
                .errors()
                .first()
                .and_then(|problem| problem.param())
                .map(str::to_owned),
            message: invalid.to_string(),
        },
        error => PrimitiveError::Failed(format!("the {} `{name}` failed: {error}", kind.as_str())),
    }
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}
