//! MCP's other primitives on the wire: `prompts/list|get`, `resources/list|read`,
//! `resources/templates/list`, `resources/subscribe|unsubscribe`, `completion/complete` and
//! the skills extension (SEP-2640: `skills/list`, `skills/get`), in both protocol eras.
//! The policy is the executor's (`Executor::get_prompt`, `read_resource`, `complete`); this
//! module reads who asks (the caller's ceiling, its share of calls in flight), turns the
//! model's values into rmcp's and the executor's refusals into MCP's error codes. A get's
//! or a read's handler asks its user as a tool does: over the session (handshake era), or
//! in the result with a sealed `requestState` (2026-07-28, `ask::rounds`).

use std::sync::Arc;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, GetSkillRequestParams, GetSkillResult, InputRequiredResult,
    InputResponses, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, PaginatedRequestParams, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, ResourceTemplate, Role,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Map, Value, json};
use toolwright_core::{CompletionRequest, PromptArguments, PromptRole, ResourceBody};
use toolwright_runtime::CallOptions;
use toolwright_runtime::executor::{CompletionReference, PrimitiveError};

use crate::ask::rounds::{Binding, Round, RoundApproval, RoundError};
use crate::caller::{ceiling, enter_share, owner, principal};
use crate::client::{Asker, McpClient};
use crate::principal::Principal;
use crate::server::setup::McpServer;

/// One page of `items` from `cursor` (the offset the previous page's `nextCursor` gave),
/// and the next page's cursor.
pub(crate) fn page<T: Clone>(
    items: &[T],
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|&offset| offset <= items.len())
            .ok_or_else(|| {
                McpError::invalid_params(
                    format!("invalid cursor `{cursor}`: use the nextCursor of the previous page"),
                    None,
                )
            })?,
    };
    let end = start.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((items[start..end].to_vec(), next))
}

/// The executor's refusal as MCP's error: `-32602` naming the prompt or the argument,
/// `-32002` for a resource it does not serve (rmcp turns it into `-32602` for a 2026-07-28
/// client, as SEP-2164 says), `-32000` for the policy's no, `-32603` for a failure.
pub(crate) fn mcp_error(error: PrimitiveError) -> McpError {
    let message = error.to_string();
    match error {
        PrimitiveError::UnknownPrompt { name } => {
            McpError::invalid_params(message, Some(json!({"prompt": name})))
        }
        PrimitiveError::ResourceNotFound { uri } => {
            McpError::resource_not_found(message, Some(json!({"uri": uri})))
        }
        PrimitiveError::InvalidArgument { argument, .. } => McpError::invalid_params(
            message,
            argument.map(|argument| json!({"argument": argument})),
        ),
        PrimitiveError::Denied(_) => McpError::new(rmcp::model::ErrorCode(-32000), message, None),
        _ => McpError::internal_error(message, None),
    }
}

/// `options` with who asks: a mounted server's limits count each caller's share of its
/// reads (the executor gives a handler the subject, never the token).
fn with_caller(options: CallOptions, context: &RequestContext<RoleServer>) -> CallOptions {
    match crate::caller::caller(&context.extensions) {
        Some(caller) => options.caller(caller),
        None => options,
    }
}

impl McpServer {
    /// The options of one prompt get, resource read or completion: the caller's ceiling,
    /// the request's cancellation, the caller.
    fn primitive_options(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallOptions, McpError> {
        let ceiling = ceiling(principal(&context.extensions))?;
        let options = CallOptions::new()
            .max_safety(ceiling)
            .cancellation(context.ct.clone());
        Ok(with_caller(options, context))
    }

    /// `prompts/list`: the prompts this caller may see, by name, one page.
    pub(crate) fn answer_list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let options = self.primitive_options(context)?;
        let prompts: Vec<rmcp::model::Prompt> = self
            .executor
            .available_prompts(&options)
            .iter()
            .map(|prompt| {
                let arguments: Vec<rmcp::model::PromptArgument> = prompt
                    .arguments()
                    .iter()
                    .map(|argument| {
                        let mut mcp = rmcp::model::PromptArgument::new(argument.name.clone())
                            .with_required(argument.required);
                        if let Some(title) = &argument.title {
                            mcp = mcp.with_title(title.clone());
                        }
                        if let Some(description) = &argument.description {
                            mcp = mcp.with_description(description.clone());
                        }
                        mcp
                    })
                    .collect();
                let description = prompt.description();
                let mut mcp = rmcp::model::Prompt::new(
                    prompt.name(),
                    description,
                    (!arguments.is_empty()).then_some(arguments),
                );
                if let Some(title) = prompt.title() {
                    mcp = mcp.with_title(title);
                }
                mcp
            })
            .collect();
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = page(&prompts, cursor.as_deref(), self.options.page_size)?;
        let mut result = ListPromptsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    /// The options of a get or a read: [`primitive_options`](Self::primitive_options), and
    /// the client's powers, its questions attributed to `asker`. A client of the handshake
    /// era is asked through the session; a 2026-07-28 one in the result, as tools are: the
    /// round opened here from the request's `requestState` (sealed to `binding`: the
    /// method, the prompt or URI, the arguments and the caller) holds the answers its
    /// repeated request brings.
    async fn running_options(
        &self,
        context: &RequestContext<RoleServer>,
        asking: Asking<'_>,
    ) -> Result<Running, McpError> {
        let options = self.primitive_options(context)?;
        let handshake = context
            .protocol_version()
            .is_none_or(|version| version.has_initialize());
        let round = if handshake {
            None
        } else {
            let owner = principal(&context.extensions).map(Principal::owner);
            let binding = match asking.what {
                Asked::Prompt(name, arguments) => Binding::for_prompt(owner, name, arguments),
                Asked::Resource(uri) => Binding::for_resource(owner, uri),
            };
            let round = self
                .options
                .seal
                .open(&binding, asking.request_state, asking.input_responses)
                .await
                .map_err(|error| {
                    if matches!(error, RoundError::Claims(_)) {
                        crate::refused::LimitRefusals::count(&self.refused.request_states);
                    }
                    tracing::warn!(%error, "refused a prompt's or a read's requestState");
                    McpError::invalid_params(error.to_string(), None)
                })?;
            Some(Arc::new(round))
        };
        let asker = match asking.what {
            Asked::Prompt(..) => Asker::Prompt,
            Asked::Resource(_) => Asker::Resource,
        };
        let client = Arc::new(
            self.client_for_call(context, round.clone())
                .asking_for(asker),
        );
        // Who approves a dangerous one: the caller, in the result of a 2026-07-28 request
        // (never deferred to a task: a read has nothing to wait in), else as for a tool.
        let principal = principal(&context.extensions);
        let can_ask = principal.is_none_or(Principal::can_approve)
            && self.options.elicitation
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.elicitation.is_some());
        let approval = match &round {
            Some(round) if can_ask => Some(CallOptions::new().approval(RoundApproval {
                round: Arc::clone(round),
            })),
            _ => self.approval_for(context, principal, None),
        };
        let options = match approval {
            Some(approval) => with_caller(
                approval
                    .max_safety(ceiling(principal)?)
                    .cancellation(context.ct.clone()),
                context,
            ),
            None => options,
        };
        Ok(Running {
            options: options.shared_client(client.clone()),
            client,
            round,
        })
    }

    /// What a get or a read ended with: the result, or, when its handler stopped at a
    /// question of a 2026-07-28 round, the questions and the sealed state (`None`: the
    /// result as it is).
    fn input_required<T>(
        &self,
        running: &Running,
        output: &Result<T, PrimitiveError>,
    ) -> Option<Result<InputRequiredResult, McpError>> {
        let (Err(PrimitiveError::InputRequired(_)), Some(round)) = (output, &running.round) else {
            return None;
        };
        let questions = round.questions();
        if questions.is_empty() {
            return None;
        }
        Some(match self.options.seal.seal(round, &questions) {
            Some(state) => Ok(InputRequiredResult::new(Some(questions), Some(state))),
            None => Err(McpError::internal_error(
                "the server could not seal the state of this request's questions (no \
                 randomness or no key)",
                None,
            )),
        })
    }

    /// `prompts/get`: the prompt's messages, under the policy; counts in the caller's share
    /// of calls in flight.
    pub(crate) async fn answer_get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let _share = enter_share(&context.extensions)?;
        let _running = self.calls.enter();
        let no_arguments = Map::new();
        let asking = Asking {
            what: Asked::Prompt(
                &request.name,
                request.arguments.as_ref().unwrap_or(&no_arguments),
            ),
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.as_ref(),
        };
        let running = self.running_options(&context, asking).await?;
        let mut arguments = PromptArguments::new();
        for (name, value) in request.arguments.unwrap_or_default() {
            let Value::String(value) = value else {
                return Err(McpError::invalid_params(
                    format!(
                        "the argument `{name}` of prompt `{}` must be a string",
                        request.name
                    ),
                    Some(json!({"argument": name})),
                ));
            };
            arguments.insert(name, value);
        }
        let output = self
            .executor
            .get_prompt(&request.name, arguments, &running.options)
            .await;
        // What the handler logged goes out before the answer.
        tokio::select! {
            () = running.client.flush() => {}
            () = context.ct.cancelled() => {}
        }
        if let Some(asked) = self.input_required(&running, &output) {
            return asked.map(GetPromptResponse::InputRequired);
        }
        let output = output.map_err(mcp_error)?;
        let messages = output
            .messages
            .into_iter()
            .map(|message| {
                let role = match message.role {
                    PromptRole::Assistant => Role::Assistant,
                    _ => Role::User,
                };
                PromptMessage::new(role, crate::content::content_block(message.content))
            })
            .collect();
        let mut result = GetPromptResult::new(messages);
        if let Some(description) = output.description {
            result = result.with_description(description);
        }
        Ok(result.into())
    }

    /// `resources/list`: the fixed-URI resources this caller may see, one page.
    pub(crate) fn answer_list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let options = self.primitive_options(context)?;
        let resources: Vec<rmcp::model::Resource> = self
            .executor
            .available_resources(&options)
            .iter()
            .map(|resource| {
                let mut mcp = rmcp::model::Resource::new(resource.uri().as_str(), resource.name());
                if let Some(title) = resource.title() {
                    mcp = mcp.with_title(title);
                }
                if let Some(description) = resource.description() {
                    mcp = mcp.with_description(description);
                }
                if let Some(mime_type) = resource.mime_type() {
                    mcp = mcp.with_mime_type(mime_type);
                }
                if let Some(size) = resource.size() {
                    mcp = mcp.with_size(size);
                }
                mcp
            })
            .collect();
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = page(&resources, cursor.as_deref(), self.options.page_size)?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    /// `resources/templates/list`: the templates this caller may see, one page.
    pub(crate) fn answer_list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let options = self.primitive_options(context)?;
        let templates: Vec<ResourceTemplate> = self
            .executor
            .available_resource_templates(&options)
            .iter()
            .map(|resource| {
                let mut mcp = ResourceTemplate::new(resource.uri().as_str(), resource.name());
                if let Some(title) = resource.title() {
                    mcp = mcp.with_title(title);
                }
                if let Some(description) = resource.description() {
                    mcp = mcp.with_description(description);
                }
                if let Some(mime_type) = resource.mime_type() {
                    mcp = mcp.with_mime_type(mime_type);
                }
                mcp
            })
            .collect();
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = page(&templates, cursor.as_deref(), self.options.page_size)?;
        let mut result = ListResourceTemplatesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    /// `resources/read`: the resource's contents, under the policy; counts in the caller's
    /// share of calls in flight.
    pub(crate) async fn answer_read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let _share = enter_share(&context.extensions)?;
        let _running = self.calls.enter();
        let asking = Asking {
            what: Asked::Resource(&request.uri),
            request_state: request.request_state.as_deref(),
            input_responses: request.input_responses.as_ref(),
        };
        let running = self.running_options(&context, asking).await?;
        let contents = self
            .executor
            .read_resource(&request.uri, &running.options)
            .await;
        tokio::select! {
            () = running.client.flush() => {}
            () = context.ct.cancelled() => {}
        }
        if let Some(asked) = self.input_required(&running, &contents) {
            return asked.map(ReadResourceResponse::InputRequired);
        }
        let contents = contents.map_err(mcp_error)?;
        let contents = contents
            .into_iter()
            .map(|content| {
                let mcp = match content.body {
                    ResourceBody::Text(text) => {
                        rmcp::model::ResourceContents::text(text, content.uri)
                    }
                    ResourceBody::Blob(bytes) => {
                        rmcp::model::ResourceContents::blob(base64(bytes), content.uri)
                    }
                };
                match content.mime_type {
                    Some(mime_type) => mcp.with_mime_type(mime_type),
                    None => mcp,
                }
            })
            .collect();
        Ok(ReadResourceResult::new(contents).into())
    }

    /// `resources/subscribe`: one more URI this session hears about, in its pools. A
    /// well-formed URI is accepted whether or not it names a resource this caller may read
    /// now (one may appear later; a hidden one answers as an unknown one), and its updates
    /// go out only while the caller may read it.
    pub(crate) async fn answer_subscribe(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if !self.notifies {
            return Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "resources/subscribe: this server answers each request on its own (stateless) \
                 and cannot notify; read the resource again instead",
                None,
            ));
        }
        if !well_formed_uri(uri) {
            return Err(McpError::invalid_params(
                format!(
                    "resources/subscribe: `{}` is not a URI (it needs a scheme, as `file:///a`, \
                     at most {MAX_URI_LEN} bytes, no control characters)",
                    toolwright_names::escape::escape(truncated(uri, 200))
                ),
                None,
            ));
        }
        let ceiling = ceiling(principal(&context.extensions))?;
        // Without the request's cancellation: checked again at each update.
        let options = CallOptions::new().max_safety(ceiling);
        let readable = self.executor.readable_resource(uri, &options);
        let executor = self.executor.clone();
        let may_read: crate::server::subscriptions::MayRead =
            Arc::new(move |uri| executor.readable_resource(uri, &options));
        let owner = owner(principal(&context.extensions));
        self.subscription_hub
            .subscribe(
                self.executor.registry(),
                &self.subscriptions,
                crate::server::subscriptions::Subscriber {
                    owner,
                    peer: context.peer.clone(),
                    may_read,
                },
                uri,
                readable,
            )
            .await
            .map_err(|refused| {
                tracing::warn!(%refused, "refused a resource subscription");
                McpError::new(rmcp::model::ErrorCode(-32000), refused.to_string(), None)
            })
    }

    /// `resources/unsubscribe`.
    pub(crate) async fn answer_unsubscribe(&self, uri: &str) {
        self.subscription_hub
            .unsubscribe(&self.subscriptions, uri)
            .await;
    }

    /// `completion/complete`: values for a prompt's argument or a template's variable.
    pub(crate) async fn answer_complete(
        &self,
        request: &CompleteRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        // A completion may run long (async, a mounted server's): it counts like a read.
        let _share = enter_share(&context.extensions)?;
        let _running = self.calls.enter();
        let options = self.primitive_options(context)?;
        let reference = match &request.r#ref {
            Reference::Prompt(prompt) => CompletionReference::Prompt(prompt.name.clone()),
            Reference::Resource(resource) => CompletionReference::Resource(resource.uri.clone()),
            // A kind of reference this server does not know: nothing to complete.
            _ => return Ok(CompleteResult::new(CompletionInfo::default())),
        };
        let completion_request = CompletionRequest {
            argument: request.argument.name.clone(),
            value: request.argument.value.clone(),
            context: request
                .context
                .as_ref()
                .and_then(|context| context.arguments.clone())
                .unwrap_or_default()
                .into_iter()
                .collect(),
            // The executor sets it from the options.
            caller: None,
        };
        let completions = self
            .executor
            .complete(&reference, &completion_request, &options)
            .await
            .map_err(mcp_error)?;
        let mut info = CompletionInfo::default();
        info.values = completions.values;
        info.total = completions.total;
        info.has_more = Some(completions.has_more);
        Ok(CompleteResult::new(info))
    }

    /// `skills/list`: every skill, one page.
    pub(crate) fn answer_list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let options = self.primitive_options(context)?;
        let skills: Vec<rmcp::model::Skill> = self
            .executor
            .registry()
            .skills()
            .iter()
            .filter(|skill| self.may_see_skill(skill, &options))
            .map(mcp_skill)
            .collect();
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = page(&skills, cursor.as_deref(), self.options.page_size)?;
        let mut result = ListSkillsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    /// `skills/get`: the skill whose `SKILL.md` is at the URI (`-32602` when none is).
    pub(crate) fn answer_get_skill(
        &self,
        request: &GetSkillRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let options = self.primitive_options(context)?;
        let skill = self
            .executor
            .registry()
            .skill(&request.uri)
            .filter(|skill| self.may_see_skill(skill, &options))
            .ok_or_else(|| {
                McpError::invalid_params(
                    format!(
                        "no skill at `{}`; list the skills (skills/list) to see what exists",
                        request.uri
                    ),
                    Some(json!({"uri": request.uri})),
                )
            })?;
        Ok(GetSkillResult::new(mcp_skill(&skill)))
    }
}

/// What a get or a read asks for: the prompt and its arguments, or the resource's URI.
enum Asked<'a> {
    Prompt(&'a str, &'a Map<String, Value>),
    Resource(&'a str),
}

/// A get or a read, with the state and answers its request carries (2026-07-28).
struct Asking<'a> {
    what: Asked<'a>,
    request_state: Option<&'a str>,
    input_responses: Option<&'a InputResponses>,
}

/// The options a get or a read runs with, its client, and its round (2026-07-28).
struct Running {
    options: CallOptions,
    client: Arc<McpClient>,
    round: Option<Arc<Round>>,
}

impl McpServer {
    /// Whether the caller may see `skill`: a ceiling that hides its `SKILL.md` hides it (a
    /// skill with no such resource registered is shown).
    fn may_see_skill(&self, skill: &toolwright_core::Skill, options: &CallOptions) -> bool {
        self.executor
            .registry()
            .resolve_resource(&skill.uri)
            .is_none()
            || self.executor.may_read_resource(&skill.uri, options)
    }
}

/// A skill as the extension lists it: its `SKILL.md`'s URI, its frontmatter, its files.
fn mcp_skill(skill: &toolwright_core::Skill) -> rmcp::model::Skill {
    let mut frontmatter =
        rmcp::model::SkillFrontmatter::new(skill.name.clone(), skill.description.clone());
    for (key, value) in &skill.frontmatter {
        if key != "name" && key != "description" {
            frontmatter = frontmatter.with_field(key.clone(), value.clone());
        }
    }
    let files = skill
        .files
        .iter()
        .map(|file| {
            rmcp::model::SkillResource::new(file.uri.clone(), file.digest.clone(), file.size)
        })
        .collect();
    rmcp::model::Skill::new(
        skill.uri.clone(),
        frontmatter,
        rmcp::model::SkillResources::Files(files),
    )
}

/// Standard base64 with padding (a resource's `blob`).
fn base64(bytes: Vec<u8>) -> String {
    toolwright_core::ResourceData::Blob(bytes)
        .blob_base64()
        .unwrap_or_default()
}

/// The longest URI a subscription may name (a subscription is memory the server keeps).
const MAX_URI_LEN: usize = 4096;

/// Whether `uri` may be subscribed to: a scheme, bounded, no control characters.
fn well_formed_uri(uri: &str) -> bool {
    uri.len() <= MAX_URI_LEN
        && !uri.chars().any(char::is_control)
        && toolwright_names::uri_template::has_scheme(uri)
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn truncated(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
