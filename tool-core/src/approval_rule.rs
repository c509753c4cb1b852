//! A tool's own rule for whether one call needs approval: [`ApprovalNeed`], what the rule says,
//! and [`IntoApproval`], what a rule function may return.
//!
//! The rule is declared with the tool (`#[tool(approval = path::to::fn)]` or
//! [`ToolBuilder::approval`](crate::ToolBuilder::approval)) and read through
//! [`Tool::approval`](crate::Tool::approval); the executor decides what to do with it.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::ToolContext;
use crate::error::ToolError;

/// What a tool's approval rule says about one call.
///
/// ```
/// use toolwright_core::ApprovalNeed;
///
/// let needs_asking = |path: &str| if path.starts_with("docs/") { ApprovalNeed::NotRequired } else { ApprovalNeed::Required };
/// assert_eq!(needs_asking("docs/guide.md"), ApprovalNeed::NotRequired);
/// assert_eq!(needs_asking("src/main.rs"), ApprovalNeed::Required);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApprovalNeed {
    /// Ask the approval handler first.
    Required,
    /// Run without asking.
    NotRequired,
}

/// What an approval rule function may return: an [`ApprovalNeed`], or a
/// `Result<ApprovalNeed, ToolError>` when deciding can fail. Not meant to be implemented outside
/// the runtime; generated code names it.
#[diagnostic::on_unimplemented(
    message = "an approval rule returns `ApprovalNeed` or `Result<ApprovalNeed, ToolError>`, not `{Self}`",
    label = "this rule returns `{Self}`",
    note = "write the rule as `fn(&ToolContext, &P1, ..., &Pn) -> ApprovalNeed` (or `-> Result<ApprovalNeed, ToolError>`), over the tool's parameters by reference, in order"
)]
pub trait IntoApproval {
    /// The rule's answer, or why it could not decide.
    fn into_approval(self) -> Result<ApprovalNeed, ToolError>;
}

impl IntoApproval for ApprovalNeed {
    fn into_approval(self) -> Result<ApprovalNeed, ToolError> {
        Ok(self)
    }
}

impl IntoApproval for Result<ApprovalNeed, ToolError> {
    fn into_approval(self) -> Result<ApprovalNeed, ToolError> {
        self
    }
}

/// A tool's approval rule over the call's JSON arguments, as a [`Tool`](crate::Tool) keeps it.
pub(crate) type ApprovalRule =
    Arc<dyn Fn(&ToolContext, &Map<String, Value>) -> Result<ApprovalNeed, ToolError> + Send + Sync>;
