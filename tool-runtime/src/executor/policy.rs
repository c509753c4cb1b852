//! The executor's policy: which tool a call names, which arguments it runs with, whether
//! it may run at all (enabled, under the safety ceiling, approved), and the context it
//! runs in.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::approval::{ApprovalDecision, ApprovalRequest};
use super::guardrail::{CallVerdict, GuardedCall, OutputVerdict};
use super::handle::{CallRecord, Executor, REDACTED, no_runtime};
use super::hooks::{self, HookEvent};
use super::lenient;
use super::options::CallOptions;
use super::outcome::{Outcome, Stopped};
use super::running::{AbortOnDrop, cancelled, failed};
use crate::registry::{Lookup, ToolFilter};
use toolwright_core::__runtime::summarize_value;
use toolwright_core::ApprovalNeed;
use toolwright_core::Preview;
use toolwright_core::SafetyLevel;
use toolwright_core::Tool;
use toolwright_core::ToolCall;
use toolwright_core::ToolContext;
use toolwright_core::ToolOutput;
use toolwright_core::file_change::ApprovedChange;

impl Executor {
    /// Everything between receiving a call and having its output: the registry read, the
    /// arguments, the policy, approval, hooks, the run itself.
    pub(super) async fn admit_and_run(
        &self,
        record: &mut CallRecord,
        arguments: Value,
        options: &CallOptions,
    ) -> Result<ToolOutput, Stopped> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(Stopped::failed(no_runtime(&record.id).content));
        }
        let name = record.name.as_str();
        // A search-first list's `search_tools` and `describe_tool` come before the registry's.
        let lookup = match self.inner.discovery.built_in(name) {
            Some(tool) => Lookup::Enabled(tool.clone()),
            None => self.inner.registry.lookup(name),
        };
        let (tool, enabled) = match lookup {
            Lookup::Enabled(tool) => (tool, true),
            Lookup::Disabled(tool) => (tool, false),
            Lookup::Unknown => return Err(self.unknown_tool(name, options)),
        };
        // A tool not offered for this request is, to the model, a tool that does not exist.
        if let Some(offered) = &options.allowed
            && !offered.matches(&tool, true)
        {
            return Err(self.unknown_tool(name, options));
        }
        record.tool = Some(tool.clone());
        record.event.safety = Some(tool.safety());
        record.event.caller = options
            .caller
            .as_ref()
            .map(|caller| caller.subject().to_owned());
        tracing::Span::current().record("safety", tool.safety().as_str());

        // The model's own arguments, kept for a deferral when guardrails may rewrite them
        // (a resumed call goes through the guardrails again).
        let sent = (!self.inner.guardrails.is_empty()).then(|| arguments.clone());
        let mut arguments = self.arguments_object(name, arguments, &mut record.coerced)?;
        if self.inner.lenient {
            record
                .coerced
                .extend(lenient::coerce(&tool, &mut arguments));
        }
        if self.needs_event_arguments(&tool, options) {
            record.event.arguments = redact(&tool, &arguments);
        }

        if !enabled {
            return Err(Stopped::denied(format!(
                "tool `{name}` is disabled and cannot be called now"
            )));
        }
        if tool.safety() > self.inner.max_safety {
            return Err(Stopped::denied(format!(
                "tool `{name}` is {}, above this executor's limit of {}; it was not run",
                tool.safety(),
                self.inner.max_safety
            )));
        }
        if let Some(limit) = options.max_safety
            && tool.safety() > limit
        {
            return Err(Stopped::denied(format!(
                "tool `{name}` is {}, above this caller's limit of {limit}; it was not run",
                tool.safety(),
            )));
        }
        // The rare paths are boxed, so the future of a plain call stays small; each box is
        // bound first, as a temporary in the awaiting statement would live in this future.
        if !self.inner.guardrails.is_empty() {
            let guarding =
                Box::pin(self.guard_call(&tool, &record.id, arguments, &mut record.event, options));
            arguments = guarding.await?;
        }
        let mut approved_change = None;
        // The policy: the ceiling (above), then the tool's rule, then the safety level's
        // default (only dangerous tools are asked about). A resumed call carries a person's
        // decision about a preview: it applies (their hunks, their check of the preview)
        // even if the rule would no longer ask.
        let ask = if options.previewed.is_some() {
            true
        } else if tool.has_approval_rule() {
            let ruling = Box::pin(self.needs_approval(&tool, &record.id, &arguments, options));
            ruling.await?
        } else {
            tool.safety() == SafetyLevel::Dangerous
        };
        if ask {
            let sent = sent.unwrap_or_else(|| Value::Object(arguments.clone()));
            let approved_arguments;
            let approving = Box::pin(self.approve(
                &tool,
                &record.id,
                arguments,
                sent,
                &mut record.event,
                options,
            ));
            (approved_arguments, approved_change) = approving.await?;
            arguments = approved_arguments;
        } else if tool.safety() > SafetyLevel::Safe {
            tracing::info!(
                tool = name,
                call_id = record.id,
                arguments = %record.event.arguments,
                "running a {} tool without approval",
                tool.safety()
            );
        }
        record.event.approved = Some(true);
        self.count_call(&tool, options)?;

        if !self.inner.hooks.is_empty() {
            let event = record.named_event();
            hooks::run_all(&self.inner.hooks, "before", |hook| hook.before(event));
        }
        // Output guardrails see the arguments the tool ran with.
        let ran_with = (!self.inner.guardrails.is_empty()).then(|| arguments.clone());
        record.event.hunks = approved_change.as_ref().map(ApprovedChange::selection);
        let running = self.run_tool(&tool, &record.id, arguments, approved_change, options);
        let output = running.await?;
        let output = self.check_output(&tool, output)?;
        match ran_with {
            Some(arguments) => {
                let guarding =
                    Box::pin(self.guard_output(&tool, &record.id, arguments, output, options));
                let output = guarding.await?;
                // A replacement is held to the same size limit as the tool's own output.
                self.check_output(&tool, output)
            }
            None => Ok(output),
        }
    }

    /// Runs the guardrails' call checks in order: the arguments to go on with, or why not.
    async fn guard_call(
        &self,
        tool: &Tool,
        id: &str,
        mut arguments: Map<String, Value>,
        event: &mut HookEvent,
        options: &CallOptions,
    ) -> Result<Map<String, Value>, Stopped> {
        let name = tool.name();
        for guardrail in &self.inner.guardrails {
            let call = GuardedCall::new(id, name, tool.safety(), Value::Object(arguments.clone()));
            let guardrail = Arc::clone(guardrail);
            // On a task of its own, so a panic is caught (and denies) and a dropped call stops it.
            let verdict = AbortOnDrop(tokio::spawn(
                async move { guardrail.check_call(call).await }.in_current_span(),
            ));
            let verdict = tokio::select! {
                joined = verdict.join() => joined,
                () = cancelled(options.cancellation.as_ref()) => {
                    return Err(Stopped::new(Outcome::Cancelled, format!(
                        "the call of `{name}` was cancelled while its guardrails checked it"
                    )));
                }
            };
            match verdict {
                Err(panic) => {
                    tracing::error!(tool = name, call_id = id, "a guardrail {panic}");
                    return Err(Stopped::denied(format!(
                        "tool `{name}` was not run: a guardrail failed"
                    )));
                }
                Ok(CallVerdict::Allow) => {}
                Ok(CallVerdict::Deny { reason }) => {
                    return Err(Stopped::denied(format!(
                        "tool `{name}` was not run: {reason}"
                    )));
                }
                Ok(CallVerdict::Rewrite {
                    arguments: rewritten,
                }) => {
                    let Value::Object(rewritten) = rewritten else {
                        return Err(Stopped::denied(format!(
                            "tool `{name}` was not run: a guardrail's rewritten arguments are \
                             not a JSON object"
                        )));
                    };
                    arguments = rewritten;
                    event.arguments = redact(tool, &arguments);
                }
            }
        }
        Ok(arguments)
    }

    /// Runs the guardrails' output checks in order: the output the model gets, or why none.
    async fn guard_output(
        &self,
        tool: &Tool,
        id: &str,
        arguments: Map<String, Value>,
        mut output: ToolOutput,
        options: &CallOptions,
    ) -> Result<ToolOutput, Stopped> {
        let name = tool.name();
        let call = GuardedCall::new(id, name, tool.safety(), Value::Object(arguments));
        for guardrail in &self.inner.guardrails {
            let (guardrail, call, given) = (Arc::clone(guardrail), call.clone(), output.clone());
            let verdict = AbortOnDrop(tokio::spawn(
                async move { guardrail.check_output(call, given).await }.in_current_span(),
            ));
            let verdict = tokio::select! {
                joined = verdict.join() => joined,
                () = cancelled(options.cancellation.as_ref()) => {
                    return Err(Stopped::new(Outcome::Cancelled, format!(
                        "the call of `{name}` was cancelled while its guardrails checked its output"
                    )));
                }
            };
            match verdict {
                Err(panic) => {
                    tracing::error!(tool = name, call_id = id, "an output guardrail {panic}");
                    return Err(Stopped::new(
                        Outcome::Denied,
                        format!(
                            "tool `{name}` ran, but its output was withheld: a guardrail failed"
                        ),
                    ));
                }
                Ok(OutputVerdict::Keep) => {}
                Ok(OutputVerdict::Replace(replacement)) => output = replacement,
                Ok(OutputVerdict::Withhold { reason }) => {
                    return Err(Stopped::new(
                        Outcome::Denied,
                        format!("tool `{name}` ran, but its output was withheld: {reason}"),
                    ));
                }
            }
        }
        Ok(output)
    }

    /// Whether the call must be approved: the tool's approval rule when it has one, else its
    /// safety level's default (dangerous tools are asked about). The rule runs off the async
    /// workers (it may read files); one that fails fails the call, one that panics denies it.
    async fn needs_approval(
        &self,
        tool: &Tool,
        id: &str,
        arguments: &Map<String, Value>,
        options: &CallOptions,
    ) -> Result<bool, Stopped> {
        let by_default = tool.safety() == SafetyLevel::Dangerous;
        if !tool.has_approval_rule() {
            return Ok(by_default);
        }
        let (rule_tool, context, rule_arguments) = (
            tool.clone(),
            self.context(tool, id, CancellationToken::new(), options),
            arguments.clone(),
        );
        let joined =
            tokio::task::spawn_blocking(move || rule_tool.approval(&context, &rule_arguments))
                .await;
        let name = tool.name();
        match joined {
            Ok(None) => Ok(by_default),
            Ok(Some(Ok(ApprovalNeed::Required))) => Ok(true),
            Ok(Some(Ok(ApprovalNeed::NotRequired))) => Ok(false),
            Ok(Some(Err(error))) => Err(failed(name, &error)),
            Err(_) => Err(Stopped::denied(format!(
                "tool `{name}` was not run: its approval rule crashed"
            ))),
        }
    }

    /// Whether anything will read the call's redacted arguments: hooks, a log line for a
    /// tool above safe, an approval (a rule, a dangerous tool, a resumed call), guardrails.
    fn needs_event_arguments(&self, tool: &Tool, options: &CallOptions) -> bool {
        !self.inner.hooks.is_empty()
            || !self.inner.guardrails.is_empty()
            || tool.safety() > SafetyLevel::Safe
            || tool.has_approval_rule()
            || options.previewed.is_some()
    }

    /// Counts the call against the tool's call limit, or refuses it when the limit is reached.
    fn count_call(&self, tool: &Tool, options: &CallOptions) -> Result<(), Stopped> {
        let name = tool.name();
        let Some(limit) = self.inner.max_calls.get(name).copied().or(tool.max_calls()) else {
            return Ok(());
        };
        let (counts, scope) = match &options.call_counts {
            Some(counts) => (counts, "session"),
            None => (&self.inner.call_counts, "executor"),
        };
        counts.take(name, limit).map_err(|count| {
            Stopped::denied(format!(
                "tool `{name}` was not run: it may run at most {limit} {} per {scope} and has \
                 run {count} {}; go on without it",
                times(u64::from(limit)),
                times(u64::from(count)),
            ))
        })
    }

    /// The call's arguments as a JSON object, or why they are not one.
    fn arguments_object(
        &self,
        name: &str,
        arguments: Value,
        coerced: &mut Vec<String>,
    ) -> Result<Map<String, Value>, Stopped> {
        match arguments {
            Value::Object(map) => Ok(map),
            // Providers send arguments as JSON text; a provider parser passes text that is not
            // JSON through unchanged, so the model learns what was wrong with it.
            Value::String(text) => match serde_json::from_str::<Value>(&text) {
                Err(error) => Err(Stopped::failed(format!(
                    "the arguments for tool `{name}` are not valid JSON ({error}); send a JSON \
                     object of named parameters"
                ))),
                Ok(Value::Object(map)) if self.inner.lenient => {
                    coerced.push("arguments: a JSON string -> the object it contains".to_owned());
                    Ok(map)
                }
                Ok(_) => Err(not_an_object(name, &Value::String(text))),
            },
            Value::Null if self.inner.lenient => {
                coerced.push("arguments: null -> {}".to_owned());
                Ok(Map::new())
            }
            other => Err(not_an_object(name, &other)),
        }
    }

    /// The failure for a name the registry does not have: a suggestion among the tools the
    /// model may call, or the list of them when it is short.
    pub(super) fn unknown_tool(&self, name: &str, options: &CallOptions) -> Stopped {
        let visible: Vec<String> = self
            .inner
            .registry
            .list(&ToolFilter::new().max_safety(self.ceiling(options)))
            .iter()
            .filter(|tool| {
                options
                    .allowed
                    .as_ref()
                    .is_none_or(|offered| offered.matches(tool, true))
            })
            .map(|tool| tool.name().to_owned())
            .collect();
        // No suggestion for a name no tool could have: an edit distance from a huge name
        // to every tool would cost the caller nothing and the server seconds.
        let normalized = match name.len() <= 2 * toolwright_names::MAX_NAME_LEN {
            true => toolwright_names::normalize(name),
            false => String::new(),
        };
        let suggestion = if normalized.is_empty() {
            None
        } else if visible.contains(&normalized) {
            Some(normalized.as_str())
        } else {
            toolwright_names::did_you_mean(&normalized, visible.iter().map(String::as_str))
        };
        let mut message = if toolwright_names::check_tool_name(name).is_ok() {
            format!("unknown tool `{name}`")
        } else {
            format!(
                "invalid tool name `{}`: tool names are lowercase letters, digits and `_`, \
                 starting with a letter",
                shorten(name)
            )
        };
        match suggestion {
            Some(close) => message.push_str(&format!("; did you mean `{close}`?")),
            None if visible.is_empty() => message.push_str("; no tools are available"),
            None if visible.len() <= 20 => message.push_str(&format!(
                "; available tools: {}",
                visible
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => message.push_str(&format!(
                "; none of the {} available tools has a similar name",
                visible.len()
            )),
        }
        Stopped::new(Outcome::UnknownTool, message)
    }

    /// Asks the approval handler; the arguments to run with and, for a file edit, the hunks
    /// of its change the approver accepted; or why not.
    async fn approve(
        &self,
        tool: &Tool,
        id: &str,
        arguments: Map<String, Value>,
        sent: Value,
        event: &mut HookEvent,
        options: &CallOptions,
    ) -> Result<(Map<String, Value>, Option<ApprovedChange>), Stopped> {
        let name = tool.name();
        let Some(handler) = options
            .approval
            .clone()
            .or_else(|| self.inner.approval.clone())
        else {
            let why = if tool.safety() == SafetyLevel::Dangerous {
                "is dangerous and needs approval"
            } else {
                "needs approval for these arguments (its approval rule says so)"
            };
            return Err(Stopped::denied(format!(
                "tool `{name}` {why}, but no approval handler is configured; it was not run"
            )));
        };
        let seen = self
            .preview(tool, id, &arguments, options)
            .await?
            .map(shown);
        // A resumed call: the person decided on what they saw; if the file or the edit is
        // not the same now, their decision is not about this call.
        if let Some(before) = &options.previewed
            && seen.as_ref() != Some(before)
        {
            return Err(changed_since_preview(name));
        }
        let (preview, change) = match seen.clone() {
            Some(seen) => (Some(seen.text), seen.change),
            None => (None, None),
        };
        let request = ApprovalRequest {
            call_id: id.to_owned(),
            tool: name.to_owned(),
            description: tool.description().to_owned(),
            safety: tool.safety(),
            arguments: event.arguments.clone(),
            preview,
            change: change.clone(),
        };
        let asked = request.clone();
        // On a task of its own, so a panicking handler is caught and a dropped call stops it.
        let decision = AbortOnDrop(tokio::spawn(
            async move { handler.approve(request).await }.in_current_span(),
        ));
        let cancelled = cancelled(options.cancellation.as_ref());
        let decision = tokio::select! {
            joined = decision.join() => joined,
            () = cancelled => return Err(Stopped::failed(format!("the call of `{name}` was cancelled while waiting for approval"))),
        };
        let decision = match decision {
            // Approved as shown: still as shown? The person may have taken minutes; the file
            // may have changed under them. A preview computed again must be the same.
            Ok(
                decision @ (ApprovalDecision::Approved | ApprovalDecision::ApprovedHunks { .. }),
            ) if seen.is_some() => {
                let again = self
                    .preview(tool, id, &arguments, options)
                    .await?
                    .map(shown);
                if again != seen {
                    return Err(changed_since_preview(name));
                }
                Ok(decision)
            }
            other => other,
        };
        match decision {
            Err(panic) => {
                tracing::error!(
                    tool = name,
                    call_id = id,
                    "approval handler panicked: {panic}"
                );
                Err(Stopped::denied(format!(
                    "tool `{name}` was not run: the approval handler failed"
                )))
            }
            Ok(ApprovalDecision::Approved) => Ok((arguments, change.map(ApprovedChange::all))),
            Ok(ApprovalDecision::ApprovedHunks { hunks }) => {
                let Some(change) = change else {
                    return Err(Stopped::denied(format!(
                        "tool `{name}` was not run: the approver accepted hunks, but this call's \
                         preview has none"
                    )));
                };
                if hunks.is_empty() {
                    return Err(Stopped::denied(format!(
                        "tool `{name}` was not run: approval denied (the approver rejected every \
                         hunk of the change to `{}`)",
                        change.path
                    )));
                }
                match ApprovedChange::new(change, hunks) {
                    Ok(approved) => Ok((arguments, Some(approved))),
                    Err(error) => Err(Stopped::denied(format!(
                        "tool `{name}` was not run: the approval named a hunk the change does not \
                         have ({error})"
                    ))),
                }
            }
            // A nested call is never left waiting: nothing would resume it inside its
            // program, and a deferred one would run later, outside the program.
            Ok(ApprovalDecision::Defer | ApprovalDecision::InputRequired) if options.nested => Err(
                Stopped::denied(super::nested::cannot_wait(name, "an approval given later")),
            ),
            Ok(ApprovalDecision::Defer) => {
                let call = ToolCall::new(id, name, sent);
                let owner = options.owner.as_deref().unwrap_or("");
                match self
                    .inner
                    .pending
                    .insert(owner, call, asked, options.max_safety)
                {
                    Ok(pending) => Err(Stopped {
                        message: format!(
                            "tool `{name}` is waiting for a person's approval and has not run; \
                             tell the user it needs their approval, and do not call it again \
                             for this"
                        ),
                        outcome: Outcome::Pending,
                        approved: None,
                        pending: Some(pending),
                        crashed: false,
                    }),
                    Err(refused) => {
                        tracing::warn!(tool = %name, %refused, "refused to defer a call");
                        Err(Stopped::denied(format!(
                            "tool `{name}` was not run: {refused}"
                        )))
                    }
                }
            }
            Ok(ApprovalDecision::InputRequired) => Err(Stopped::new(
                Outcome::InputRequired,
                format!(
                    "tool `{name}` has not run: it waits for its caller's approval (the call is \
                     repeated with the answer)"
                ),
            )),
            Ok(ApprovalDecision::Denied { reason }) => Err(Stopped::denied(format!(
                "tool `{name}` was not run: approval denied ({reason})"
            ))),
            Ok(ApprovalDecision::Modified {
                arguments: modified,
            }) => {
                let Value::Object(mut modified) = modified else {
                    return Err(Stopped::denied(format!(
                        "tool `{name}` was not run: the approver's modified arguments are not a JSON object"
                    )));
                };
                // A secret the approver saw redacted and left alone keeps its value.
                for param in tool.params().iter().filter(|p| p.is_secret()) {
                    if modified.get(param.name()).and_then(Value::as_str) == Some(REDACTED)
                        && let Some(original) = arguments.get(param.name())
                    {
                        modified.insert(param.name().to_owned(), original.clone());
                    }
                }
                event.arguments = redact(tool, &modified);
                // Other arguments, another change: no previewed hunks apply.
                Ok((modified, None))
            }
        }
    }

    /// The tool's preview of the call, computed off the async workers (it may read files). A
    /// preview that fails fails the call: there is nothing sensible to approve.
    async fn preview(
        &self,
        tool: &Tool,
        id: &str,
        arguments: &Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Option<Preview>, Stopped> {
        if !tool.has_preview() {
            return Ok(None);
        }
        let (tool_for_task, context, arguments) = (
            tool.clone(),
            self.context(tool, id, CancellationToken::new(), options),
            arguments.clone(),
        );
        let joined =
            tokio::task::spawn_blocking(move || tool_for_task.preview(&context, &arguments)).await;
        let name = tool.name();
        match joined {
            Ok(Some(Ok(preview))) => Ok(Some(preview)),
            Ok(None) => Ok(None),
            Ok(Some(Err(error))) => Err(failed(name, &error)),
            Err(_) => Err(Stopped::failed(format!(
                "tool `{name}` was not run: its preview crashed"
            ))),
        }
    }

    /// The highest safety level a call with `options` may run: the lower of the executor's
    /// ceiling and the call's own.
    pub(super) fn ceiling(&self, options: &CallOptions) -> SafetyLevel {
        options.max_safety.map_or(self.inner.max_safety, |limit| {
            limit.min(self.inner.max_safety)
        })
    }

    /// The context a call of this executor runs with.
    pub(super) fn context(
        &self,
        tool: &Tool,
        id: &str,
        token: CancellationToken,
        options: &CallOptions,
    ) -> ToolContext {
        let ceiling = self.ceiling(options);
        // A view, not a listing: the tools are read only if the tool asks.
        let catalog = if ceiling == self.inner.max_safety && options.allowed.is_none() {
            self.inner.catalog.clone()
        } else {
            self.inner
                .registry
                .call_catalog(ceiling, options.allowed.as_ref())
        };
        let mut context =
            ToolContext::for_call(id, &tool.meta().name, Arc::clone(&self.inner.state), token)
                .with_max_safety(ceiling)
                .with_catalog(catalog);
        if let Some(reporter) = &options.progress {
            context = context.with_progress(Arc::clone(reporter));
        }
        if let Some(client) = &options.client {
            context = context.with_client_limit(Arc::clone(client), self.inner.max_client_requests);
        }
        if self.inner.nested_calls_for.contains(tool.name()) {
            let token = context.cancellation_token().clone();
            let nested = super::nested::NestedCaller::shared(self, id, options, token);
            context = context.with_nested_calls(nested);
        }
        if let Some(caller) = &options.caller {
            // The caller's token only to a tool that asked for it.
            context = context.with_caller(if tool.receives_caller_token() {
                caller.clone()
            } else {
                caller.without_token()
            });
        }
        context
    }
}

/// The arguments with every secret parameter's value replaced by [`REDACTED`].
fn redact(tool: &Tool, arguments: &Map<String, Value>) -> Value {
    let mut redacted = arguments.clone();
    for param in tool.params().iter().filter(|p| p.is_secret()) {
        if let Some(value) = redacted.get_mut(param.name())
            && !value.is_null()
        {
            *value = Value::String(REDACTED.to_owned());
        }
    }
    Value::Object(redacted)
}

fn not_an_object(name: &str, arguments: &Value) -> Stopped {
    Stopped::failed(format!(
        "arguments for tool `{name}` must be a JSON object of named parameters, got {}",
        summarize_value(arguments)
    ))
}

/// `1 time`, `3 times`.
fn times(count: u64) -> String {
    if count == 1 {
        "time".to_owned()
    } else {
        "times".to_owned()
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        format!("{}...", text.chars().take(MAX).collect::<String>())
    }
}

/// What of a preview the approver is shown: its text, and its change's hunks when the tool
/// lets them be taken one by one ([`Preview::hunks`]); a change approved whole is only text.
fn shown(preview: Preview) -> Preview {
    if preview.hunks_selectable {
        preview
    } else {
        Preview::text(preview.text)
    }
}

/// A call whose preview is no longer the one approved: the decision was about something
/// else.
fn changed_since_preview(name: &str) -> Stopped {
    Stopped::failed(format!(
        "tool `{name}` was not run: what it would do changed since the preview the approver \
         saw (a file it edits changed, or the state it reads), so nothing was done; call it \
         again for a fresh preview"
    ))
}
