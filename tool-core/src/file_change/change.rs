//! A proposed change to one text file as data: its hunks and their lines, and the texts it
//! applies to.

use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

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
    pub(super) texts: Option<Arc<ChangeTexts>>,
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
pub(super) struct ChangeTexts {
    pub(super) base: String,
    pub(super) new: String,
    /// For each hunk, its changed line ranges: (in the base's lines, in the new text's).
    pub(super) changes: Vec<Vec<(Range<usize>, Range<usize>)>>,
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
