//! The hunks a person approved, applied only to the text that was previewed.

use serde::{Deserialize, Serialize};

use super::change::FileChange;
use crate::error::ToolError;

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
