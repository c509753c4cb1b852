//! A tool's own rule for whether one call needs approval: [`Approval`], what the rule says,
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
/// use toolwright_runtime::Approval;
///
/// let needs_asking = |path: &str| if path.starts_with("docs/") { Approval::NotRequired } else { Approval::Required };
/// assert_eq!(needs_asking("docs/guide.md"), Approval::NotRequired);
/// assert_eq!(needs_asking("src/main.rs"), Approval::Required);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Approval {
    /// Ask the approval handler first.
    Required,
    /// Run without asking.
    NotRequired,
}

/// What an approval rule function may return: an [`Approval`], or a
/// `Result<Approval, ToolError>` when deciding can fail. Not meant to be implemented outside
/// the runtime; generated code names it.
#[diagnostic::on_unimplemented(
    message = "an approval rule returns `Approval` or `Result<Approval, ToolError>`, not `{Self}`",
    label = "this rule returns `{Self}`",
    note = "write the rule as `fn(&ToolContext, &P1, ..., &Pn) -> Approval` (or `-> Result<Approval, ToolError>`), over the tool's parameters by reference, in order"
)]
pub trait IntoApproval {
    /// The rule's answer, or why it could not decide.
    fn into_approval(self) -> Result<Approval, ToolError>;
}

impl IntoApproval for Approval {
    fn into_approval(self) -> Result<Approval, ToolError> {
        Ok(self)
    }
}

impl IntoApproval for Result<Approval, ToolError> {
    fn into_approval(self) -> Result<Approval, ToolError> {
        self
    }
}

/// A tool's approval rule over the call's JSON arguments, as a [`Tool`](crate::Tool) keeps it.
pub(crate) type ApprovalRule =
    Arc<dyn Fn(&ToolContext, &Map<String, Value>) -> Result<Approval, ToolError> + Send + Sync>;
