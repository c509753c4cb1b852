//! A file change computed from two texts with the `similar` diff crate (the `diff` feature).

use std::ops::Range;
use std::sync::Arc;

use super::change::{ChangeTexts, FileChange, Hunk, HunkLine, LineKind};

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
