//! What a caller sees and who approves its dangerous calls: the tool list under its
//! ceiling, and the approval a call gets (the executor's, the client's user, a round, a
//! task, or a refusal).

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::Tool as McpTool;
use rmcp::service::RequestContext;
use toolwright_core::SafetyLevel;
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, CallOptions};

use crate::ask::approval::ElicitationApproval;
use crate::ask::rounds::{Round, RoundApproval};
use crate::principal::Principal;
use crate::principal::SCOPE_APPROVE;
use crate::server::setup::McpServer;

impl McpServer {
    /// The tools a client is listed, as MCP tool entries (from the views cached per registry
    /// generation: nothing is exported or parsed per request): all it may call, or in a
    /// search-first list the core and the meta-tools.
    pub(super) fn tools(&self, ceiling: SafetyLevel) -> Vec<McpTool> {
        self.views
            .snapshot(&self.executor)
            .listed
            .iter()
            .filter(|view| view.safety <= ceiling)
            .map(|view| view.mcp.clone())
            .collect()
    }

    /// Whether the server itself defers this call's approval so that it becomes a task the
    /// client answers: a 2026-07-28 client that declared the tasks extension and form
    /// elicitation, may approve, and no executor handler decides. Such a deferred call
    /// never outlives its request unless it became a task (`call_tool` takes it back).
    pub(super) fn defers_to_a_task(
        &self,
        context: &RequestContext<RoleServer>,
        principal: Option<&Principal>,
        round: Option<&Arc<Round>>,
    ) -> bool {
        round.is_some()
            && self.options.elicitation
            && self.tasks.enabled
            && !self.executor.has_approval_handler()
            && principal.is_none_or(Principal::can_approve)
            && crate::server::tasks::declared_tasks(context)
            && crate::server::tasks::declared_elicitation(context)
    }

    /// The approval to use for a dangerous call from this client, if not the executor's.
    /// A caller authenticated without `tools:approve` is not asked: its own approval would
    /// not count.
    ///
    /// A client of the 2026-07-28 revision (`round`) is asked in the call's result; an
    /// earlier one with an `elicitation/create` request while the call waits.
    pub(super) fn approval_for(
        &self,
        context: &RequestContext<RoleServer>,
        principal: Option<&Principal>,
        round: Option<&Arc<Round>>,
    ) -> Option<CallOptions> {
        let may_approve = principal.is_none_or(Principal::can_approve);
        let can_ask = may_approve
            && self.options.elicitation
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.elicitation.is_some());
        if can_ask {
            // A 2026-07-28 client that polls tasks approves through a task: the call is
            // deferred (by the executor's own handler when it has one, which may also decide
            // at once), and `tasks::deferred` turns the waiting call into an `input_required`
            // task whose input request is the approval form. The state stays on the server,
            // shared by the replicas with the task store.
            if round.is_some()
                && self.tasks.enabled
                && crate::server::tasks::declared_tasks(context)
            {
                if self.executor.has_approval_handler() {
                    return None;
                }
                if self.defers_to_a_task(context, principal, round) {
                    return Some(
                        CallOptions::new()
                            .approval(|_: ApprovalRequest| async { ApprovalDecision::Defer }),
                    );
                }
            }
            return Some(match round {
                Some(round) => CallOptions::new().approval(RoundApproval {
                    round: Arc::clone(round),
                }),
                None => CallOptions::new().approval(ElicitationApproval {
                    peer: context.peer.clone(),
                }),
            });
        }
        if self.options.allow_dangerous {
            return Some(
                CallOptions::new()
                    .approval(|_: ApprovalRequest| async { ApprovalDecision::Approved }),
            );
        }
        if self.executor.has_approval_handler() {
            return None;
        }
        // The closures are called once per call: each takes its own copy of the hint.
        let hint = self.options.allow_dangerous_hint.clone();
        if !may_approve {
            return Some(
                CallOptions::new().approval(move |request: ApprovalRequest| {
                    let hint = hint.clone();
                    async move {
                    ApprovalDecision::Denied {
                        reason: format!(
                            "`{}` is dangerous, and your access token lacks the `{SCOPE_APPROVE}` \
                         scope needed to approve it; ask for a token with that scope (the \
                         server refuses dangerous tools to such callers unless its operator \
                         allows them: {hint})",
                            request.tool
                        ),
                    }
                    }
                }),
            );
        }
        Some(CallOptions::new().approval(move |request: ApprovalRequest| {
            let hint = hint.clone();
            async move {
            ApprovalDecision::Denied {
                reason: format!(
                    "`{}` is dangerous, and this MCP client cannot ask you to approve it (it does \
                     not support elicitation); the server refuses dangerous tools unless its \
                     operator allows them: {hint}",
                    request.tool
                ),
            }
            }
        }))
    }
}
