//! Running a deferred call once a person decided: [`Executor::resume`] and its variants.

use std::sync::Arc;

use super::approval::ApprovalDecision;
use super::handle::Executor;
use super::options::CallOptions;
use super::outcome::{CallReport, Outcome};
use super::pending::{PendingCall, ResumeError};
use toolwright_core::Preview;
use toolwright_core::ToolResult;

impl Executor {
    /// The calls waiting for approval (deferred by the approval handler and not yet resumed,
    /// taken or expired), soonest to expire first: what an application shows a person.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwright_runtime::{Executor, ToolRegistry};
    ///
    /// let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    /// assert!(executor.pending_approvals().is_empty());
    /// ```
    pub fn pending_approvals(&self) -> Vec<super::pending::PendingCall> {
        self.inner.pending.list()
    }

    /// Removes the call waiting under `token` and returns it, to keep it elsewhere (it
    /// serializes to JSON) and run it later with [`resume_call`](Self::resume_call), here or
    /// in another process whose executor has the same
    /// [`pending_key`](crate::executor::ExecutorBuilder::pending_key). `None` when no call waits under
    /// the token.
    pub fn take_pending(&self, token: &str) -> Option<PendingCall> {
        self.inner.pending.take(token)
    }

    /// Runs or refuses the call waiting under `token` with a person's `decision`; the result
    /// carries the original call's id. See [`resume_with`](Self::resume_with).
    ///
    /// # Errors
    ///
    /// [`ResumeError`]: no call waits under the token, it expired, or `decision` is `Defer`.
    pub async fn resume(
        &self,
        token: &str,
        decision: ApprovalDecision,
    ) -> Result<ToolResult, ResumeError> {
        self.resume_with(token, decision, CallOptions::new())
            .await
            .map(|report| report.result)
    }

    /// As [`resume`](Self::resume), with options for the run (a timeout, a cancellation
    /// token, a client for the tool's logging and questions) and the report of how it ended.
    ///
    /// The call goes through the whole policy again, as the model sent it: it must still be
    /// registered, enabled and under the ceilings (the caller's, kept from the first call, and
    /// these options'); guardrails check it again, and the arguments (`Modified` ones too)
    /// are read again by the tool. `Denied` refuses it without running anything, whatever
    /// the tool's rule says now. Each token runs at most once: it is removed first.
    ///
    /// # Errors
    ///
    /// [`ResumeError`]: no call waits under the token, it expired, or `decision` is `Defer`;
    /// and, as for [`resume_call`](Self::resume_call), a call that does not verify or was
    /// already resumed.
    pub async fn resume_with(
        &self,
        token: &str,
        decision: ApprovalDecision,
        options: CallOptions,
    ) -> Result<CallReport, ResumeError> {
        if matches!(
            decision,
            ApprovalDecision::Defer | ApprovalDecision::InputRequired
        ) {
            return Err(ResumeError::DeferredAgain);
        }
        let pending = self.take_pending(token).ok_or(ResumeError::UnknownToken)?;
        self.resume_call(pending, decision, options).await
    }

    /// Runs or refuses a call that waited somewhere else (taken with
    /// [`take_pending`](Self::take_pending) and stored, then read back), with a person's
    /// `decision`, as [`resume_with`](Self::resume_with) does.
    ///
    /// The call must be one an executor made: its `mac` must verify under this executor's
    /// [`pending_key`](crate::executor::ExecutorBuilder::pending_key) (by default a random key of the
    /// process, so a call resumes only in the process that deferred it; give replicas one
    /// key to resume each other's calls), so edited arguments, another call id, a different
    /// preview or a later expiry are refused. And it runs once: the token is recorded when it
    /// is resumed (by every executor of the process, until the call's expiry), and resuming it
    /// again is refused. Replicas sharing a key do not share that record: take a stored call
    /// out of the shared store atomically (a delete that returns it) before resuming it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_core::serde_json::json;
    /// use toolwright_runtime::executor::{PendingCall, ResumeError};
    /// use toolwright_core::{tool, ToolCall};
    /// use toolwright_runtime::{register_all_tools, ApprovalDecision, ApprovalRequest, CallOptions, Executor};
    ///
    /// /// Delete a branch.
    /// #[tool(safety = "dangerous")]
    /// fn delete_branch(branch: String) -> String { format!("deleted {branch}") }
    ///
    /// let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
    ///     .approval(|_: ApprovalRequest| async { ApprovalDecision::Defer })
    ///     .build();
    /// let pending = executor.execute(ToolCall::new("c1", "delete_branch", json!({"branch": "old"}))).await;
    /// let token = pending.metadata.pending.unwrap().token;
    ///
    /// // Kept in a database as JSON ...
    /// let stored = toolwright_core::serde_json::to_string(&executor.take_pending(&token).unwrap()).unwrap();
    /// // ... and run after a person approved (in another process: with the same pending key).
    /// let waiting: PendingCall = toolwright_core::serde_json::from_str(&stored).unwrap();
    ///
    /// // Edited on the way: refused, nothing runs.
    /// let mut forged = waiting.clone();
    /// forged.call.arguments = json!({"branch": "main"});
    /// let refused = executor.resume_call(forged, ApprovalDecision::Approved, CallOptions::new()).await;
    /// assert!(matches!(refused, Err(ResumeError::Unverified { .. })));
    ///
    /// let report = executor.resume_call(waiting.clone(), ApprovalDecision::Approved, CallOptions::new()).await.unwrap();
    /// assert_eq!(report.result.content, "deleted old");
    ///
    /// // Once only.
    /// let again = executor.resume_call(waiting, ApprovalDecision::Approved, CallOptions::new()).await;
    /// assert!(matches!(again, Err(ResumeError::AlreadyResumed { .. })));
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ResumeError`]: `decision` is `Defer`; the call does not verify
    /// ([`Unverified`](ResumeError::Unverified)); it expired; it was already resumed
    /// ([`AlreadyResumed`](ResumeError::AlreadyResumed)).
    pub async fn resume_call(
        &self,
        pending: PendingCall,
        decision: ApprovalDecision,
        options: CallOptions,
    ) -> Result<CallReport, ResumeError> {
        if matches!(
            decision,
            ApprovalDecision::Defer | ApprovalDecision::InputRequired
        ) {
            return Err(ResumeError::DeferredAgain);
        }
        // Only a call an executor with this key made, unchanged, is believed at all.
        if !self.inner.pending.key.verify(&pending) {
            return Err(ResumeError::Unverified {
                call_id: pending.call.id,
            });
        }
        if pending.expires_at <= jiff::Timestamp::now() {
            return Err(ResumeError::Expired {
                call_id: pending.call.id,
                expired_at: pending.expires_at,
            });
        }
        // A decided call runs once, whatever the decision.
        if !self.inner.pending.claim(&pending) {
            return Err(ResumeError::AlreadyResumed {
                call_id: pending.call.id,
            });
        }
        let PendingCall {
            call,
            max_safety,
            request,
            ..
        } = pending;
        if let ApprovalDecision::Denied { reason } = &decision {
            // A person said no: nothing runs, whatever the policy would say now.
            let mut result = ToolResult::failure(
                call.id.clone(),
                format!(
                    "tool `{}` was not run: approval denied ({reason})",
                    call.name
                ),
            );
            result.metadata.approved = Some(false);
            let tool = self.inner.registry.get(&call.name);
            result.metadata.safety_level = tool.as_ref().map(|tool| tool.safety());
            return Ok(CallReport {
                result,
                outcome: Outcome::Denied,
                tool,
                crashed: false,
            });
        }
        let mut options = options;
        // The person decided on what they saw: the call runs only if the preview is still
        // that.
        options.previewed = request.preview.map(|text| {
            let mut seen = Preview::text(text);
            seen.hunks_selectable = request.change.is_some();
            seen.change = request.change;
            seen
        });
        options.max_safety = match (options.max_safety, max_safety) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // The person's decision answers this call's approval, once.
        let decided = Arc::new(std::sync::Mutex::new(Some(decision)));
        options.approval = Some(Arc::new(move |_request| {
            let decision = decided
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            async move {
                decision.unwrap_or(ApprovalDecision::Denied {
                    reason: "the decision was already used".to_owned(),
                })
            }
        }));
        Ok(self.execute_with(call, options).await)
    }
}
