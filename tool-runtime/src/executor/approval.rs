//! Asking whether a dangerous call may run.

use std::future::Future;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use toolwright_core::BoxFuture;
use toolwright_core::SafetyLevel;
use toolwright_core::file_change::FileChange;

/// What an approval handler is asked: which tool, how dangerous, with which arguments
/// (`#[arg(secret)]` values redacted), for which call.
///
/// ```
/// use toolwright_runtime::{ApprovalDecision, ApprovalRequest};
///
/// fn decide(request: &ApprovalRequest) -> ApprovalDecision {
///     if request.tool == "delete_path" && request.arguments["path"] == "/" {
///         ApprovalDecision::Denied { reason: "never delete the root".into() }
///     } else {
///         ApprovalDecision::Approved
///     }
/// }
/// # let _ = decide;
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The id of the call.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The tool's description.
    pub description: String,
    /// The tool's safety level.
    pub safety: SafetyLevel,
    /// The arguments, with secret parameters' values replaced by `"[redacted]"`.
    pub arguments: Value,
    /// What the call would do, when the tool can tell (a diff for an edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// For a file edit, the change as hunks: show them and answer with
    /// [`ApprovalDecision::ApprovedHunks`] to accept some and not others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<FileChange>,
}

/// An approval handler's answer.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_runtime::ApprovalDecision;
///
/// let narrowed = ApprovalDecision::Modified { arguments: json!({"path": "build/"}) };
/// # let _ = narrowed;
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run the call as asked.
    Approved,
    /// Do not run it; the model is told `reason`.
    Denied {
        /// Why, for the model.
        reason: String,
    },
    /// Run it with these arguments instead (they are validated again; a secret left as
    /// `"[redacted]"` keeps its original value).
    Modified {
        /// The arguments to run with.
        arguments: Value,
    },
    /// Run the call with only these hunks of its file change
    /// ([`ApprovalRequest::change`], indices into its `hunks`): the tool writes exactly them
    /// to the file as it was previewed, or fails without writing if the file changed since.
    /// The result tells the model which hunks were applied and which were rejected. No
    /// hunks denies the call; every hunk is [`Approved`](Self::Approved). Only for a request
    /// that has a change; otherwise, or for an index it does not have, the call is denied.
    ///
    /// ```
    /// use toolwright_runtime::{ApprovalDecision, ApprovalRequest};
    ///
    /// // Keep the first and the last hunk of an edit, drop the others.
    /// fn first_and_last(request: ApprovalRequest) -> ApprovalDecision {
    ///     match &request.change {
    ///         Some(change) if change.hunks.len() > 1 => ApprovalDecision::ApprovedHunks {
    ///             hunks: vec![0, change.hunks.len() - 1],
    ///         },
    ///         _ => ApprovalDecision::Approved,
    ///     }
    /// }
    /// # let _ = first_and_last;
    /// ```
    ApprovedHunks {
        /// The accepted hunks' indices ([`Hunk::index`](toolwright_core::file_change::Hunk::index)).
        hunks: Vec<usize>,
    },
    /// Decide later: the call ends now with a pending result
    /// ([`Outcome::Pending`](crate::executor::Outcome::Pending), the token in
    /// [`ResultMetadata::pending`](toolwright_core::ResultMetadata::pending)); the application shows
    /// the request to a person and runs or refuses the call with
    /// [`Executor::resume`](crate::executor::Executor::resume).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use toolwright_core::serde_json::json;
    /// use toolwright_runtime::executor::Outcome;
    /// use toolwright_core::{tool, ToolCall};
    /// use toolwright_runtime::{register_all_tools, ApprovalDecision, ApprovalRequest, CallOptions, Executor};
    ///
    /// /// Transfer money.
    /// #[tool(safety = "dangerous")]
    /// fn transfer(amount: u32) -> String { format!("sent {amount}") }
    ///
    /// let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
    ///     .approval(|_: ApprovalRequest| async { ApprovalDecision::Defer })
    ///     .build();
    /// let report = executor
    ///     .execute_with(ToolCall::new("c7", "transfer", json!({"amount": 5})), CallOptions::new())
    ///     .await;
    /// assert_eq!(report.outcome, Outcome::Pending);
    /// let token = report.result.metadata.pending.unwrap().token;
    ///
    /// // Later, a person said yes in a web page.
    /// let done = executor.resume(&token, ApprovalDecision::Approved).await.unwrap();
    /// assert_eq!((done.id.as_str(), done.content.as_str()), ("c7", "sent 5"));
    /// # }
    /// ```
    Defer,
    /// The approver asked the call's caller, who answers in the call's next request (an MCP
    /// client of the 2026-07-28 revision approves through a multi round-trip request): the
    /// call ends now, not run, with
    /// [`Outcome::InputRequired`](crate::executor::Outcome::InputRequired). The front end
    /// that returned this holds the question and returns it to the caller; the repeated call
    /// is asked again, and the approver then decides with the answer.
    InputRequired,
}

/// Decides whether dangerous calls run. Any
/// `Fn(ApprovalRequest) -> impl Future<Output = ApprovalDecision>` closure is one.
///
/// ```
/// use toolwright_runtime::{ApprovalDecision, ApprovalHandler, ApprovalRequest};
/// use toolwright_core::BoxFuture;
///
/// /// Approves only tools on a list.
/// struct AllowList(Vec<String>);
///
/// impl ApprovalHandler for AllowList {
///     fn approve(&self, request: ApprovalRequest) -> BoxFuture<ApprovalDecision> {
///         let allowed = self.0.contains(&request.tool);
///         Box::pin(async move {
///             if allowed {
///                 ApprovalDecision::Approved
///             } else {
///                 ApprovalDecision::Denied { reason: format!("`{}` is not on the allow list", request.tool) }
///             }
///         })
///     }
/// }
/// ```
pub trait ApprovalHandler: Send + Sync + 'static {
    /// Decides on one request.
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<ApprovalDecision>;
}

impl<F, Fut> ApprovalHandler for F
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ApprovalDecision> + Send + 'static,
{
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<ApprovalDecision> {
        Box::pin(self(request))
    }
}
