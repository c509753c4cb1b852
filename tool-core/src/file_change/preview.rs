//! What a call would do, shown to whoever approves it.

use serde::{Deserialize, Serialize};

use super::change::FileChange;
use crate::error::ToolError;

/// What a call would do, shown to whoever approves it: text (a diff, a summary), and for a
/// file edit the change as hunks that can be approved one by one.
///
/// A preview function may return a `String` (text only) or a `Preview`. It must depend only
/// on the arguments and on what the call would change: the executor computes it again once
/// the call is approved and runs the call only if it is the same as the one the approver
/// saw (a file that changed while a person decided is not overwritten).
///
/// ```
/// use toolwright_core::Preview;
///
/// let preview = Preview::from("rename a -> b");
/// assert_eq!(preview.text, "rename a -> b");
/// assert!(preview.change.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Preview {
    /// The preview as text (for a file change, its unified diff).
    pub text: String,
    /// The file change, hunk by hunk, when the call edits a text file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<FileChange>,
    /// Whether the approver may accept some hunks of `change` and not others
    /// ([`Preview::hunks`]): only for a tool that writes
    /// [`ToolContext::approved_change`](crate::ToolContext::approved_change). Otherwise the
    /// change is approved or denied whole.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hunks_selectable: bool,
}

impl Preview {
    /// A preview that is only text.
    ///
    /// ```
    /// assert_eq!(toolwright_core::Preview::text("delete 3 files").text, "delete 3 files");
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Preview {
            text: text.into(),
            change: None,
            hunks_selectable: false,
        }
    }

    /// The preview of a file change, approved or denied whole: its unified diff as text.
    /// For a tool that does not read
    /// [`ToolContext::approved_change`](crate::ToolContext::approved_change); a tool that
    /// does returns [`Preview::hunks`].
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// use toolwright_core::Preview;
    /// use toolwright_core::file_change::FileChange;
    ///
    /// let preview = Preview::change(FileChange::between("notes.txt", "a\n", "b\n"));
    /// assert!(preview.text.contains("-a\n+b"));
    /// assert!(!preview.hunks_selectable);
    /// # }
    /// ```
    pub fn change(change: FileChange) -> Self {
        Preview {
            text: change.unified_diff(),
            change: Some(change),
            hunks_selectable: false,
        }
    }

    /// The preview of a file change whose hunks the approver may take one by one: the
    /// `ApprovalRequest` carries them, and the tool **must** write
    /// exactly [`ToolContext::approved_change`](crate::ToolContext::approved_change)'s
    /// [`ApprovedChange::apply`](crate::file_change::ApprovedChange::apply) (the hunks accepted, applied to the file as previewed), not
    /// its arguments' whole change.
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// use toolwright_core::Preview;
    /// use toolwright_core::file_change::FileChange;
    ///
    /// let preview = Preview::hunks(FileChange::between("notes.txt", "a\n", "b\n"));
    /// assert!(preview.hunks_selectable);
    /// assert_eq!(preview.change.unwrap().hunks.len(), 1);
    /// # }
    /// ```
    pub fn hunks(change: FileChange) -> Self {
        Preview {
            hunks_selectable: true,
            ..Preview::change(change)
        }
    }
}

impl From<String> for Preview {
    fn from(text: String) -> Self {
        Preview::text(text)
    }
}

impl From<&str> for Preview {
    fn from(text: &str) -> Self {
        Preview::text(text)
    }
}

impl From<FileChange> for Preview {
    fn from(change: FileChange) -> Self {
        Preview::change(change)
    }
}

/// What a `#[tool(preview = f)]` function may return: text, a [`Preview`], or either in a
/// `Result` with [`ToolError`]. Named by generated code; not implemented outside this crate.
#[diagnostic::on_unimplemented(
    message = "a preview returns `String`, `Preview` or a `Result` of one with `ToolError`, not `{Self}`",
    label = "this preview returns `{Self}`",
    note = "write the preview as `fn(&ToolContext, &P1, ..., &Pn) -> Result<String, ToolError>` (or `-> Result<Preview, ToolError>`), over the tool's parameters by reference, in order"
)]
pub trait IntoPreview {
    /// The preview, or why there is none.
    fn into_preview(self) -> Result<Preview, ToolError>;
}

impl IntoPreview for Preview {
    fn into_preview(self) -> Result<Preview, ToolError> {
        Ok(self)
    }
}

impl IntoPreview for String {
    fn into_preview(self) -> Result<Preview, ToolError> {
        Ok(Preview::text(self))
    }
}

impl<P: Into<Preview>> IntoPreview for Result<P, ToolError> {
    fn into_preview(self) -> Result<Preview, ToolError> {
        self.map(Into::into)
    }
}
