//! `McpServer` as rmcp's `ServerHandler`: what each request of a session does.

use std::sync::Arc;

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, Implementation, InputRequiredResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    Tool as McpTool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};
use toolwright_core::{SafetyLevel, ToolCall};
use toolwright_runtime::executor::{Outcome, Progress};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, CallOptions, ToolFilter};

use crate::ask::rounds::Binding;
use crate::caller::{caller, ceiling, enter_share, principal};
use crate::client::{Queued, flushed};
use crate::content::call_tool_result;
use crate::principal::Principal;
use crate::server::setup::McpServer;

impl ServerHandler for McpServer {
    #[allow(deprecated)] // `enable_logging`: rmcp marks logging deprecated (SEP-2577).
    fn get_info(&self) -> ServerConfig {
        // Prompts, resources (with subscriptions where the transport can notify), completions
        // and skills are declared whether or not the registry has any yet: it may gain some,
        // and a client that asks gets an empty list, not "method not found".
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .enable_prompts()
            .enable_resources()
            .enable_completions()
            .enable_skills()
            .build();
        let notifies = self.notifies.then_some(true);
        if let Some(tools) = capabilities.tools.as_mut() {
            tools.list_changed = notifies;
        }
        if let Some(prompts) = capabilities.prompts.as_mut() {
            prompts.list_changed = notifies;
        }
        if let Some(resources) = capabilities.resources.as_mut() {
            resources.list_changed = notifies;
            resources.subscribe = notifies;
        }
        crate::server::tasks::declare(self, &mut capabilities); // tasks (SEP-2663)
        let mut config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.options.name.clone(),
            self.options.version.clone(),
        ));
        if let Some(instructions) = &self.options.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Tell this client when the tools it may see change, for as long as it is connected:
        // only changes to tools under its ceiling (the executor's, and its token's when the
        // HTTP server authenticated the `initialized` notification).
        let ceiling = match principal(&context.extensions) {
            None => Some(SafetyLevel::Dangerous),
            Some(principal) => principal.max_safety(),
        };
        let Some(ceiling) = ceiling else {
            return; // a token that grants no tools sees no list to change
        };
        // One watcher per server tells every session (`watch.rs`): no task per session.
        self.list_watch.add(
            self.executor.registry(),
            context.peer,
            ceiling.min(self.executor.max_safety()),
        );
    }

    /// `subscriptions/listen` (a 2026-07-28 client): list changes of tools, prompts and
    /// resources, resource updates, unless the server cannot notify (stateless HTTP: method
    /// not found).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.notifies.then(|| {
            crate::server::listen::accepted(requested, self.subscription_hub.max_per_session())
        })
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        // The tools this client may see: as for a session's `initialized` (its token's
        // ceiling under the executor's; none for a token that grants no tools).
        let ceiling = match principal(&subscription.request_context().extensions) {
            None => Some(SafetyLevel::Dangerous),
            Some(principal) => principal.max_safety(),
        };
        let visible = ceiling
            .map(|ceiling| ToolFilter::new().max_safety(ceiling.min(self.executor.max_safety())));
        // The URIs it named that it may read: an update of another is not its to hear (nor
        // to learn that the resource exists).
        let options = CallOptions::new().max_safety(ceiling.unwrap_or(SafetyLevel::Safe));
        let readable: std::collections::HashSet<String> = subscription
            .accepted()
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| ceiling.is_some() && self.executor.may_read_resource(uri, &options))
            .cloned()
            .collect();
        // Held while the stream lasts: the readable URIs' subscription hooks (a mounted
        // upstream subscribed once per URI over sessions and streams).
        let hooked: Vec<(String, toolwright_core::Resource)> = readable
            .iter()
            .filter_map(|uri| {
                let resource = self.executor.readable_resource(uri, &options)?;
                resource
                    .has_subscription_hook()
                    .then(|| (uri.clone(), resource))
            })
            .collect();
        let _held = self
            .subscription_hub
            .hold_for_stream(
                self.executor.registry(),
                crate::caller::owner(principal(&subscription.request_context().extensions)),
                subscription.request_context().peer.clone(),
                hooked,
            )
            .await;
        // Boxed, as `call_tool` (a stream lives long; its future need not be in every session).
        Box::pin(crate::server::listen::tool_changes(
            self.executor.registry(),
            visible,
            readable,
            subscription,
        ))
        .await;
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let ceiling = ceiling(principal(&context.extensions))?;
        let tools = self.tools(ceiling);
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&offset| offset <= tools.len())
                .ok_or_else(|| {
                    McpError::invalid_params(
                        format!(
                            "invalid cursor `{cursor}`: use the nextCursor of the previous page"
                        ),
                        None,
                    )
                })?,
        };
        let end = (start + self.options.page_size).min(tools.len());
        let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
        result.next_cursor = (end < tools.len()).then(|| end.to_string());
        Ok(result)
    }

    /// rmcp asks for the one tool a 2026-07-28 request names (to check its `Mcp-Name` and
    /// parameter headers): that tool only, if a client may see it, not the whole list.
    fn get_tool(&self, name: &str) -> Option<McpTool> {
        let snapshot = self.views.snapshot(&self.executor);
        snapshot.get(name).map(|view| view.mcp.clone())
    }

    #[allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); clients use it today.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Boxed: the call's future (the executor's, the task path's) is kilobytes, and rmcp
        // keeps the dispatch of its `initialize` (whose future is as large as the largest
        // handler's) in every session's task for the session's life, and moves each
        // request's into a task of its own. One allocation per call instead.
        Box::pin(self.answer_call(request, context)).await
    }

    // ---- prompts, resources, completion, skills: primitives.rs ----
    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.answer_list_prompts(request, &context)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        // Boxed, as `call_tool`: a prompt's future need not be in every session's.
        Box::pin(self.answer_get_prompt(request, context)).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.answer_list_resources(request, &context)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.answer_list_resource_templates(request, &context)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Box::pin(self.answer_read_resource(request, context)).await
    }

    #[allow(deprecated)] // legacy-only in rmcp: the handshake-era revisions subscribe this way
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.answer_subscribe(&request.uri, &context).await
    }

    #[allow(deprecated)] // legacy-only in rmcp, as `subscribe`
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.answer_unsubscribe(&request.uri).await;
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.answer_complete(&request, &context).await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        self.answer_list_skills(request, &context)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        self.answer_get_skill(&request, &context)
    }
    // ---- end prompts, resources, completion, skills ----

    // ---- tasks (SEP-2663): tasks/get, tasks/update, tasks/cancel are tasks.rs's ----
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Box::pin(crate::server::tasks::get_task(self, request, &context)).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(crate::server::tasks::update_task(self, request, &context)).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(crate::server::tasks::cancel_task(self, request, &context)).await
    }
    // ---- end tasks ----
}

impl McpServer {
    /// `tools/call`: the body of [`ServerHandler::call_tool`], boxed there.
    async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // What the call needs to know of its tool, described once per registry generation;
        // `None` for a tool a client cannot see (the executor then says why).
        let view = self
            .views
            .snapshot(&self.executor)
            .get(&request.name)
            .cloned();
        // ---- tasks (SEP-2663): a call of a tool that runs as a task is tasks.rs's ----
        if view.as_ref().is_none_or(|view| view.may_be_task)
            && let Some(answer) = crate::server::tasks::call_tool(self, &request, &context).await
        {
            return answer;
        }
        // ---- end tasks ----
        // The caller's share of calls in flight (with authentication): over it, refused at
        // once, so one token cannot take every slot of the executor.
        let _share = enter_share(&context.extensions)?;
        let _running = self.calls.enter();
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let principal = principal(&context.extensions);
        let ceiling = ceiling(principal)?;
        // A 2026-07-28 client is asked through the call's result (multi round-trip
        // requests): the round holds the answers its repeated call brings.
        let round = if context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize())
        {
            let binding = Binding::new(principal.map(Principal::owner), &name, &arguments);
            let round = self
                .options
                .seal
                .open(
                    &binding,
                    request.request_state.as_deref(),
                    request.input_responses.as_ref(),
                )
                .await
                .map_err(|error| {
                    if matches!(error, crate::ask::rounds::RoundError::Claims(_)) {
                        crate::refused::LimitRefusals::count(&self.refused.request_states);
                    }
                    tracing::warn!(tool = %name, %error, "refused a call's requestState");
                    McpError::invalid_params(error.to_string(), Some(json!({"tool": name})))
                })?;
            Some(Arc::new(round))
        } else {
            None
        };
        // ---- tasks: a task tool that asks first runs here up to its first question ----
        let asks_first = round.is_some()
            && view.as_ref().is_some_and(|view| view.may_be_task)
            && crate::server::tasks::asks_first(self, &name, &context);
        let first_answered = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let task_arguments = asks_first.then(|| arguments.clone());
        // ---- end tasks ----
        let arguments = Value::Object(arguments);
        // A tool that never asks (not dangerous, no approval rule) needs no approver, no
        // owner and no deferral: none of them is built for its calls.
        let may_ask = view.as_ref().is_none_or(|view| view.may_ask);
        let mut options = CallOptions::new();
        let mut server_defers = false;
        // Whether the server deferred the approval: a call then not pending was refused by
        // a limit of the waiting approvals.
        let mut deferred = None;
        if may_ask {
            // Who approves if the tool is dangerous: the executor asks only for dangerous calls.
            if let Some(approval) = self.approval_for(&context, principal, round.as_ref()) {
                options = approval;
            }
            server_defers = self.defers_to_a_task(&context, principal, round.as_ref());
            if server_defers {
                let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
                deferred = Some(Arc::clone(&flag));
                options = options.approval(move |_: ApprovalRequest| {
                    flag.store(true, std::sync::atomic::Ordering::Relaxed);
                    async { ApprovalDecision::Defer }
                });
            }
            // Whose call it is: a deferred approval counts against its owner's share.
            options = options.owner(crate::caller::owner(principal));
        }
        let mut client = self.client_for_call(&context, round.clone());
        if asks_first {
            client = client.asking_first(Arc::clone(&first_answered));
        }
        let client = Arc::new(client);
        options = options
            .cancellation(context.ct.clone())
            .max_safety(ceiling)
            .shared_client(client.clone());
        if let Some(caller) = caller(&context.extensions) {
            options = options.caller(caller);
        }
        if let Some(counts) = &self.call_counts {
            options = options.call_counts(Arc::clone(counts));
        }
        let mut progress_queue = None;
        if let Some(token) = context.meta.get_progress_token() {
            let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Queued<Progress>>();
            let peer = context.peer.clone();
            tokio::spawn(async move {
                while let Some(item) = receiver.recv().await {
                    let report = match item {
                        Queued::Send(report) => report,
                        Queued::Flush(done) => {
                            let _ = done.send(());
                            continue;
                        }
                    };
                    let mut params = ProgressNotificationParam::new(token.clone(), report.progress);
                    if let Some(total) = report.total {
                        params = params.with_total(total);
                    }
                    if let Some(message) = report.message {
                        params = params.with_message(message);
                    }
                    if peer.notify_progress(params).await.is_err() {
                        break;
                    }
                }
            });
            progress_queue = Some(sender.clone());
            options = options.progress(move |report| {
                let _ = sender.send(Queued::Send(report));
            });
        }

        let call = ToolCall::new(context.id.to_string(), name.clone(), arguments);
        // Boxed: the executor's future is kilobytes, and rmcp moves the handler's future
        // (into its task, through its wrappers); moved here, it stays put on the heap.
        let report = Box::pin(self.executor.execute_with(call, options)).await;
        if deferred
            .as_ref()
            .is_some_and(|flag| flag.load(std::sync::atomic::Ordering::Relaxed))
            && report.outcome != Outcome::Pending
        {
            crate::refused::LimitRefusals::count(&self.refused.pending_approvals);
        }
        // The progress and log notifications the tool sent go out before its result (or the
        // wait ends with the request's cancellation).
        let notifications_sent = async {
            if let Some(queue) = &progress_queue {
                flushed(queue).await;
            }
            client.flush().await;
        };
        tokio::select! {
            () = notifications_sent => {}
            () = context.ct.cancelled() => {}
        }
        if report.outcome == Outcome::InputRequired
            && let Some(round) = &round
        {
            let questions = round.questions();
            if !questions.is_empty() {
                let Some(state) = self.options.seal.seal(round, &questions) else {
                    return Err(McpError::internal_error(
                        "the server could not seal the state of this call's questions (no \
                         randomness or no key)",
                        None,
                    ));
                };
                return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                    Some(questions),
                    Some(state),
                )));
            }
            // ---- tasks: the first question was answered; the call becomes a task ----
            if first_answered.load(std::sync::atomic::Ordering::Relaxed)
                && let Some(arguments) = task_arguments
            {
                // The task takes its own share of calls in flight (a share releases on drop
                // only with `auth`; without it there is nothing to release).
                #[allow(clippy::drop_non_drop)]
                drop(_share);
                drop(_running);
                return crate::server::tasks::start_after_questions(
                    self,
                    &name,
                    arguments,
                    &context,
                    Arc::clone(round),
                )
                .await;
            }
            // ---- end tasks ----
        }
        // ---- tasks (SEP-2663): a deferred approval becomes a task the client answers ----
        if let Some(answer) =
            crate::server::tasks::deferred(self, &context, &report, server_defers).await
        {
            return answer;
        }
        if server_defers && report.outcome == Outcome::Pending {
            // Deferred here only to become a task, which it did not: nobody could ever
            // answer it, so it must not wait (and fill the caller's share) for an hour.
            if let Some(pending) = &report.result.metadata.pending {
                let _ = self.executor.take_pending(&pending.token);
            }
            return Err(McpError::new(
                rmcp::model::ErrorCode(-32000),
                format!(
                    "tool `{}` needs the user's approval, and this call could not become a \
                     task to ask it (see the server's log); try again later",
                    crate::ask::approval::printable(&name)
                ),
                None,
            ));
        }
        // ---- end tasks ----
        let result = report.result;
        if report.outcome == Outcome::UnknownTool {
            // The tool does not exist (or the name is not a tool name): a protocol error.
            let message = result
                .error
                .unwrap_or_else(|| format!("unknown tool `{name}`"));
            return Err(McpError::invalid_params(
                message,
                Some(json!({"tool": name})),
            ));
        }
        // Structured content only where the tool declares an (object) output schema.
        // (Checked in place: `mcp_output_schema` would clone the schema to say yes.)
        let structured = report.tool.as_ref().is_some_and(|tool| {
            tool.output_schema()
                .and_then(|schema| schema.get("type"))
                .and_then(Value::as_str)
                == Some("object")
        });
        Ok(call_tool_result(result, structured).into())
    }
}
