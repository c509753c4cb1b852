//! A proposed change to a text file as data: its hunks, for approval one by one, and how to
//! apply exactly the hunks a person accepted to the file as it was previewed.
//!
//! A tool that edits files returns a [`Preview`] holding a [`FileChange`] from its preview
//! function; the executor puts the hunks in the `ApprovalRequest`,
//! the approver answers with the hunks it accepts
//! (`ApprovalDecision::ApprovedHunks`), and the tool
//! finds them in [`ToolContext::approved_change`](crate::ToolContext::approved_change) and
//! writes [`ApprovedChange::apply`]'s text.

// The layers, lowest first (no module imports one listed after it): change, diff, approved,
// preview.
mod approved;
mod change;
#[cfg(feature = "diff")]
mod diff;
mod preview;

pub use approved::{ApprovedChange, ChangeError, HunkSelection};
pub use change::{FileChange, Hunk, HunkLine, LineKind};
pub use preview::{IntoPreview, Preview};
