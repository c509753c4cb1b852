//! A proposed change to a text file as data: its hunks, for approval one by one, and how to
//! apply exactly the hunks a person accepted to the file as it was previewed.
//!
//! A tool that edits files returns a [`Preview`] holding a [`FileChange`] from its preview
//! function; the executor puts the hunks in the `ApprovalRequest`,
//! the approver answers with the hunks it accepts
//! (`ApprovalDecision::ApprovedHunks`), and the tool
//! finds them in [`ToolContext::approved_change`](crate::ToolContext::approved_change) and
//! writes [`ApprovedChange::apply`]'s text.

use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

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
    /// [`ApprovedChange::apply`] (the hunks accepted, applied to the file as previewed), not
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

/// A proposed change to one text file: the hunks of its unified diff, as data.
///
/// It serializes to JSON for approval front ends (`path`, `hunks`, `base_sha256`). The texts
/// it applies to (the file as previewed and as proposed) stay in memory and are not
/// serialized: a change read back from JSON describes, but cannot be applied.
///
/// ```
/// # #[cfg(feature = "diff")] {
/// use toolwright_core::file_change::{FileChange, LineKind};
///
/// let change = FileChange::between("a.txt", "one\ntwo\nthree\n", "one\n2\nthree\n");
/// let hunk = &change.hunks[0];
/// assert_eq!(hunk.header, "@@ -1,3 +1,3 @@");
/// let kinds: Vec<_> = hunk.lines.iter().map(|line| line.kind).collect();
/// assert_eq!(kinds, [LineKind::Context, LineKind::Removed, LineKind::Added, LineKind::Context]);
/// # }
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileChange {
    /// The file's path, as the tool names it.
    pub path: String,
    /// The hunks, in file order; `hunks[i].index == i`.
    pub hunks: Vec<Hunk>,
    /// SHA-256 of the file's text the hunks apply to, hex: two changes with the same hunks
    /// and the same base are the same change.
    pub base_sha256: String,
    /// The path the call named, when that is a symbolic link (or goes through one) to
    /// `path`, the file really changed; front ends say so ("`notes.txt` is a link to
    /// `docs/notes.md`"). `None` when the call named `path` itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
    #[serde(skip)]
    texts: Option<Arc<ChangeTexts>>,
}

/// Two changes are equal when they change the same file's same text in the same way.
impl PartialEq for FileChange {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && self.requested == other.requested
            && self.base_sha256 == other.base_sha256
            && self.hunks == other.hunks
    }
}

/// The texts a change applies to, and where each hunk's changes are in them.
#[derive(Debug)]
struct ChangeTexts {
    base: String,
    new: String,
    /// For each hunk, its changed line ranges: (in the base's lines, in the new text's).
    changes: Vec<Vec<(Range<usize>, Range<usize>)>>,
}

/// One hunk of a [`FileChange`]: a run of changed lines with up to three lines of context.
///
/// ```
/// use toolwright_core::file_change::{Hunk, HunkLine, LineKind};
///
/// let hunk: Hunk = serde_json::from_value(serde_json::json!({
///     "index": 0, "header": "@@ -1 +1 @@", "old_start": 1, "old_lines": 1,
///     "new_start": 1, "new_lines": 1,
///     "lines": [{"kind": "removed", "text": "a"}, {"kind": "added", "text": "b"}]
/// })).unwrap();
/// assert_eq!(hunk.lines[1], HunkLine { kind: LineKind::Added, text: "b".into(), no_newline: false });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Hunk {
    /// Its place in [`FileChange::hunks`], from 0: what an approver names to accept it.
    pub index: usize,
    /// The unified diff header, `@@ -old_start,old_lines +new_start,new_lines @@`.
    pub header: String,
    /// First line of the old text it covers, from 1 (the line before, when it covers none).
    pub old_start: usize,
    /// How many lines of the old text it covers.
    pub old_lines: usize,
    /// First line of the new text it covers, from 1 (the line before, when it covers none).
    pub new_start: usize,
    /// How many lines of the new text it covers.
    pub new_lines: usize,
    /// Its lines: context, removed and added, in order.
    pub lines: Vec<HunkLine>,
}

/// One line of a [`Hunk`].
///
/// ```
/// use toolwright_core::file_change::{HunkLine, LineKind};
///
/// let line = HunkLine { kind: LineKind::Removed, text: "old".into(), no_newline: false };
/// assert_eq!(serde_json::to_string(&line).unwrap(), r#"{"kind":"removed","text":"old"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HunkLine {
    /// Context, removed or added.
    pub kind: LineKind,
    /// The line without its line ending.
    pub text: String,
    /// The line is the last of its text and has no line ending.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_newline: bool,
}

/// What a [`HunkLine`] is.
///
/// ```
/// assert_eq!(toolwright_core::file_change::LineKind::Added.prefix(), '+');
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// Unchanged, shown around a change.
    Context,
    /// In the old text only.
    Removed,
    /// In the new text only.
    Added,
}

impl LineKind {
    /// Its prefix in a unified diff: ` `, `-` or `+`.
    pub fn prefix(self) -> char {
        match self {
            LineKind::Context => ' ',
            LineKind::Removed => '-',
            LineKind::Added => '+',
        }
    }
}

impl FileChange {
    /// The change from `old` to `new` of the file at `path`, in hunks with three lines of
    /// context (as `diff -u` and git make them).
    ///
    /// ```
    /// use toolwright_core::file_change::FileChange;
    ///
    /// let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    /// let new = "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n";
    /// let change = FileChange::between("n.txt", old, new);
    /// assert_eq!(change.hunks.len(), 2);
    /// assert_eq!(change.hunks[1].header, "@@ -7,4 +7,4 @@");
    /// ```
    #[cfg(feature = "diff")]
    #[cfg_attr(docsrs, doc(cfg(feature = "diff")))]
    pub fn between(path: impl Into<String>, old: &str, new: &str) -> Self {
        use sha2::Digest as _;

        const CONTEXT: usize = 3;
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines);
        let mut hunks = Vec::new();
        let mut changes = Vec::new();
        for (index, group) in similar::group_diff_ops(ops, CONTEXT)
            .into_iter()
            .enumerate()
        {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let mut lines = Vec::new();
            let mut hunk_changes = Vec::new();
            for op in &group {
                let (tag, old_at, new_at) = op.as_tag_tuple();
                if tag == similar::DiffTag::Equal {
                    lines.extend(old_at.map(|i| hunk_line(LineKind::Context, &old_lines, i)));
                    continue;
                }
                lines.extend(
                    old_at
                        .clone()
                        .map(|i| hunk_line(LineKind::Removed, &old_lines, i)),
                );
                lines.extend(
                    new_at
                        .clone()
                        .map(|i| hunk_line(LineKind::Added, &new_lines, i)),
                );
                hunk_changes.push((old_at, new_at));
            }
            let (old_start, old_count) = unified_range(&old_range);
            let (new_start, new_count) = unified_range(&new_range);
            hunks.push(Hunk {
                index,
                header: format!(
                    "@@ -{} +{} @@",
                    range_text(old_start, old_count),
                    range_text(new_start, new_count)
                ),
                old_start,
                old_lines: old_count,
                new_start,
                new_lines: new_count,
                lines,
            });
            changes.push(hunk_changes);
        }
        let base_sha256 = crate::encoding::hex(&sha2::Sha256::digest(old.as_bytes()));
        FileChange {
            path: path.into(),
            hunks,
            base_sha256,
            requested: None,
            texts: Some(Arc::new(ChangeTexts {
                base: old.to_owned(),
                new: new.to_owned(),
                changes,
            })),
        }
    }

    /// Whether the change changes nothing.
    ///
    /// ```
    /// # #[cfg(feature = "diff")]
    /// assert!(toolwright_core::file_change::FileChange::between("a", "same\n", "same\n").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    /// The same change, made through `requested`, a path that is a symbolic link (or goes
    /// through one) to [`path`](Self::path); `None` when the call named `path` itself.
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// use toolwright_core::file_change::FileChange;
    ///
    /// let change = FileChange::between("docs/notes.md", "x\n", "y\n").requested_as(Some("notes.txt"));
    /// assert_eq!(change.requested.as_deref(), Some("notes.txt"));
    /// assert!(change.unified_diff().starts_with("`notes.txt` is a link to `docs/notes.md`\n---"));
    /// # }
    /// ```
    pub fn requested_as(mut self, requested: Option<impl Into<String>>) -> Self {
        self.requested = requested.map(Into::into);
        self
    }

    /// The change as a unified diff (`--- a/path`, `+++ b/path`, then the hunks), after a
    /// line naming the link when the call named one ([`requested`](Self::requested)).
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// let change = toolwright_core::file_change::FileChange::between("a.txt", "x\n", "y\n");
    /// assert_eq!(change.unified_diff(), "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n");
    /// # }
    /// ```
    pub fn unified_diff(&self) -> String {
        if self.hunks.is_empty() {
            return format!("no change to `{}`", self.path);
        }
        let mut text = match &self.requested {
            // Before the `---` line, where tools that apply patches skip text.
            Some(requested) => format!("`{requested}` is a link to `{}`\n", self.path),
            None => String::new(),
        };
        text.push_str(&format!("--- a/{0}\n+++ b/{0}\n", self.path));
        for hunk in &self.hunks {
            text.push_str(&hunk.to_string());
        }
        text
    }
}

impl std::fmt::Display for Hunk {
    /// The hunk as in a unified diff: its header, then each line with its prefix.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.header)?;
        for line in &self.lines {
            writeln!(f, "{}{}", line.kind.prefix(), line.text)?;
            if line.no_newline {
                writeln!(f, "\\ No newline at end of file")?;
            }
        }
        Ok(())
    }
}

#[cfg(feature = "diff")]
fn hunk_line(kind: LineKind, lines: &[&str], at: usize) -> HunkLine {
    let raw = lines.get(at).copied().unwrap_or_default();
    let (text, no_newline) = match raw.strip_suffix('\n') {
        Some(text) => (text.strip_suffix('\r').unwrap_or(text), false),
        None => (raw, true),
    };
    HunkLine {
        kind,
        text: text.to_owned(),
        no_newline,
    }
}

/// A unified diff's (start, count) for a range of 0-based lines.
#[cfg(feature = "diff")]
fn unified_range(range: &Range<usize>) -> (usize, usize) {
    let count = range.end - range.start;
    // An empty range names the line before it, as `diff -u` does.
    let start = if count == 0 {
        range.start
    } else {
        range.start + 1
    };
    (start, count)
}

#[cfg(feature = "diff")]
fn range_text(start: usize, count: usize) -> String {
    if count == 1 {
        start.to_string()
    } else {
        format!("{start},{count}")
    }
}

/// The hunks of a [`FileChange`] a person approved: what a tool writes, and what it tells the
/// model about the hunks it did not write.
///
/// ```
/// # #[cfg(feature = "diff")] {
/// use toolwright_core::file_change::{ApprovedChange, FileChange};
///
/// let old = "a\n1\n2\n3\n4\n5\n6\n7\nb\n";
/// let new = "A\n1\n2\n3\n4\n5\n6\n7\nB\n";
/// let approved = ApprovedChange::new(FileChange::between("f.txt", old, new), vec![1]).unwrap();
/// assert_eq!(approved.apply(old).unwrap(), "a\n1\n2\n3\n4\n5\n6\n7\nB\n");
/// assert_eq!(approved.rejected(), [0]);
/// // The file changed since the preview: nothing to write.
/// assert!(approved.apply("something else\n").is_err());
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovedChange {
    change: FileChange,
    accepted: Vec<usize>,
}

/// Which hunks of a previewed file change were approved: indices into its hunks, ascending.
///
/// ```
/// use toolwright_core::file_change::HunkSelection;
///
/// let selection = HunkSelection { applied: vec![0, 2], rejected: vec![1] };
/// assert_eq!(serde_json::to_string(&selection).unwrap(), r#"{"applied":[0,2],"rejected":[1]}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HunkSelection {
    /// The hunks approved (and, on success, written).
    pub applied: Vec<usize>,
    /// The hunks the approver rejected.
    pub rejected: Vec<usize>,
}

/// Why an approved change cannot be applied.
///
/// ```
/// use toolwright_core::file_change::ChangeError;
///
/// let error = ChangeError::Stale { path: "a.txt".into() };
/// assert!(error.to_string().contains("changed since"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChangeError {
    /// The file is not what the preview showed: someone changed it in between.
    #[error(
        "`{path}` changed since the preview was approved, so nothing was written; read it \
         again and propose the edit again"
    )]
    Stale {
        /// The file's path.
        path: String,
    },
    /// The change was read back from JSON: it has no texts to apply.
    #[error(
        "the change to `{path}` has no file text to apply (it was read back from JSON); apply \
         changes the executor previewed itself"
    )]
    Detached {
        /// The file's path.
        path: String,
    },
    /// A hunk index the change does not have.
    #[error("hunk {index} does not exist: the change to `{path}` has {count} hunks (0..{count})")]
    NoSuchHunk {
        /// The file's path.
        path: String,
        /// The index asked for.
        index: usize,
        /// How many hunks there are.
        count: usize,
    },
}

impl From<ChangeError> for ToolError {
    fn from(error: ChangeError) -> Self {
        ToolError::new(error.to_string())
    }
}

impl ApprovedChange {
    /// The hunks of `change` at `accepted` (indices into [`FileChange::hunks`]; order and
    /// repeats do not matter).
    ///
    /// # Errors
    ///
    /// [`ChangeError::NoSuchHunk`] for an index the change does not have.
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// use toolwright_core::file_change::{ApprovedChange, FileChange};
    /// let change = FileChange::between("f", "a\n", "b\n");
    /// assert!(ApprovedChange::new(change, vec![3]).is_err());
    /// # }
    /// ```
    pub fn new(change: FileChange, accepted: Vec<usize>) -> Result<Self, ChangeError> {
        let mut accepted = accepted;
        accepted.sort_unstable();
        accepted.dedup();
        if let Some(&index) = accepted.iter().find(|&&i| i >= change.hunks.len()) {
            return Err(ChangeError::NoSuchHunk {
                path: change.path.clone(),
                index,
                count: change.hunks.len(),
            });
        }
        Ok(ApprovedChange { change, accepted })
    }

    /// Every hunk of `change`.
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// use toolwright_core::file_change::{ApprovedChange, FileChange};
    /// let all = ApprovedChange::all(FileChange::between("f", "a\n", "b\n"));
    /// assert!(!all.is_partial());
    /// # }
    /// ```
    pub fn all(change: FileChange) -> Self {
        let accepted = (0..change.hunks.len()).collect();
        ApprovedChange { change, accepted }
    }

    /// The change that was previewed.
    pub fn change(&self) -> &FileChange {
        &self.change
    }

    /// The accepted hunks' indices, ascending.
    pub fn accepted(&self) -> &[usize] {
        &self.accepted
    }

    /// The rejected hunks' indices, ascending.
    pub fn rejected(&self) -> Vec<usize> {
        (0..self.change.hunks.len())
            .filter(|i| self.accepted.binary_search(i).is_err())
            .collect()
    }

    /// The selection, for a result's metadata and the audit log.
    pub fn selection(&self) -> HunkSelection {
        HunkSelection {
            applied: self.accepted.clone(),
            rejected: self.rejected(),
        }
    }

    /// Whether some hunks were rejected.
    pub fn is_partial(&self) -> bool {
        self.accepted.len() < self.change.hunks.len()
    }

    /// The file's text with exactly the accepted hunks applied, given its text now
    /// (`current`), which must be the text that was previewed.
    ///
    /// # Errors
    ///
    /// [`ChangeError::Stale`] when `current` is not the previewed text;
    /// [`ChangeError::Detached`] when the change was read back from JSON.
    pub fn apply(&self, current: &str) -> Result<String, ChangeError> {
        let path = || self.change.path.clone();
        let texts = self
            .change
            .texts
            .as_ref()
            .ok_or_else(|| ChangeError::Detached { path: path() })?;
        if current != texts.base {
            return Err(ChangeError::Stale { path: path() });
        }
        let old: Vec<&str> = texts.base.split_inclusive('\n').collect();
        let new: Vec<&str> = texts.new.split_inclusive('\n').collect();
        let mut out = String::with_capacity(texts.base.len().max(texts.new.len()));
        let mut at = 0;
        for (index, changes) in texts.changes.iter().enumerate() {
            let take = self.accepted.binary_search(&index).is_ok();
            for (old_range, new_range) in changes {
                push_lines(&mut out, old.get(at..old_range.start));
                let lines = if take {
                    new.get(new_range.clone())
                } else {
                    old.get(old_range.clone())
                };
                push_lines(&mut out, lines);
                at = old_range.end;
            }
        }
        push_lines(&mut out, old.get(at..));
        Ok(out)
    }

    /// For the model (and the person reading along): which hunks were written and which the
    /// approver rejected, numbered from 1 as people count them, with their headers, so the
    /// model can follow up.
    ///
    /// ```
    /// # #[cfg(feature = "diff")] {
    /// use toolwright_core::file_change::{ApprovedChange, FileChange};
    /// let old = "a\n1\n2\n3\n4\n5\n6\n7\nb\n";
    /// let change = FileChange::between("f.txt", old, "A\n1\n2\n3\n4\n5\n6\n7\nB\n");
    /// let approved = ApprovedChange::new(change, vec![0]).unwrap();
    /// assert_eq!(
    ///     approved.summary(),
    ///     "applied 1 of 2 hunks to `f.txt` (hunk 1 @@ -1,4 +1,4 @@); the approver rejected \
    ///      hunk 2 @@ -6,4 +6,4 @@"
    /// );
    /// # }
    /// ```
    pub fn summary(&self) -> String {
        let name = |i: &usize| {
            let header = self.change.hunks.get(*i).map(|h| h.header.as_str());
            format!("hunk {} {}", i + 1, header.unwrap_or_default())
        };
        // A model needs the hunks' names to follow up, not a wall of them: at most
        // `NAMED_HUNKS` of each list, then how many more.
        let names = |indices: &[usize]| {
            let mut listed: Vec<String> = indices.iter().take(NAMED_HUNKS).map(name).collect();
            if indices.len() > NAMED_HUNKS {
                listed.push(format!("and {} more", indices.len() - NAMED_HUNKS));
            }
            listed
        };
        let applied = names(&self.accepted);
        let rejected = names(&self.rejected());
        let total = self.change.hunks.len();
        let mut text = format!(
            "applied {} of {total} {} to `{}`",
            self.accepted.len(),
            if total == 1 { "hunk" } else { "hunks" },
            self.change.path
        );
        if !applied.is_empty() {
            text.push_str(&format!(" ({})", applied.join(", ")));
        }
        if !rejected.is_empty() {
            text.push_str(&format!("; the approver rejected {}", rejected.join(", ")));
        }
        text
    }
}

/// How many hunks [`ApprovedChange::summary`] names in each of its lists.
const NAMED_HUNKS: usize = 20;

fn push_lines(out: &mut String, lines: Option<&[&str]>) {
    for line in lines.unwrap_or_default() {
        out.push_str(line);
    }
}

#[cfg(all(test, feature = "diff"))]
mod tests {
    use super::*;

    #[test]
    fn a_summary_of_many_hunks_names_twenty_of_each() {
        let old: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..1000)
            .map(|i| {
                if i % 10 == 0 {
                    format!("LINE {i}\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect();
        let change = FileChange::between("f", &old, &new);
        assert_eq!(change.hunks.len(), 100);
        let approved = ApprovedChange::new(change, (0..100).step_by(2).collect()).unwrap();
        let summary = approved.summary();
        assert!(
            summary.starts_with("applied 50 of 100 hunks to `f` (hunk 1 "),
            "{summary}"
        );
        assert_eq!(summary.matches("and 30 more").count(), 2, "{summary}");
        assert_eq!(summary.matches("hunk ").count(), 40, "{summary}");
        assert_eq!(approved.rejected().len(), 50);
    }

    #[test]
    fn endings_and_missing_newlines_survive() {
        let old = "a\r\nb\r\nc";
        let new = "a\r\nB\r\nc\nd";
        let change = FileChange::between("f", old, new);
        let all = ApprovedChange::all(change.clone());
        assert_eq!(all.apply(old).unwrap(), new);
        let none = ApprovedChange::new(change, vec![]).unwrap();
        assert_eq!(none.apply(old).unwrap(), old);
    }

    #[test]
    fn a_change_read_back_from_json_is_equal_but_detached() {
        let change = FileChange::between("f", "a\n", "b\n");
        let back: FileChange =
            serde_json::from_value(serde_json::to_value(&change).unwrap()).unwrap();
        assert_eq!(back, change);
        let approved = ApprovedChange::all(back);
        assert!(matches!(
            approved.apply("a\n"),
            Err(ChangeError::Detached { .. })
        ));
    }

    #[test]
    fn empty_files_and_whole_rewrites() {
        for (old, new) in [("", "x\n"), ("x\n", ""), ("", ""), ("a\nb\n", "c\nd\n")] {
            let change = FileChange::between("f", old, new);
            assert_eq!(ApprovedChange::all(change.clone()).apply(old).unwrap(), new);
            assert_eq!(
                ApprovedChange::new(change, vec![])
                    .unwrap()
                    .apply(old)
                    .unwrap(),
                old
            );
        }
    }
}
