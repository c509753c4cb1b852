//! Writing and editing: `write_file` and `edit_file`, with their previews and approvals.

use toolwright_core::file_change::FileChange;
use toolwright_core::{ApprovalNeed, Preview, ToolContext, ToolError, tool};

use super::access::{display, io_error};
use super::atomic::{
    approved_edit, is_stale, link_note, read_text, read_text_at, stale, through_link,
    unchanged_since_approval, write_atomically, write_target,
};
use crate::names::count;
use crate::workspace::{Workspace, workspace};

/// What `write_file` would do: the change to the current file, hunk by hunk (each can be
/// approved on its own), or the new file's size. Takes `write_file`'s parameters, read once
/// for both.
pub fn write_file_preview(
    ctx: &ToolContext,
    path: &str,
    content: &str,
    overwrite: &Option<bool>,
    _create_parents: &Option<bool>,
) -> Result<Preview, ToolError> {
    let ws = workspace(ctx)?;
    let size = || {
        format!(
            "{}, {}",
            count(content.len(), "byte", "bytes"),
            count(content.lines().count(), "line", "lines")
        )
    };
    // The file really written, named as such: a link is shown as what it leads to.
    let resolved = ws.locate(path, true)?;
    let link = through_link(ws, path, &resolved)?;
    let shown = format!("`{}`{}", display(&resolved), link_note(link.as_deref()));
    match read_text(ws, path) {
        Ok(old) => Ok(Preview::hunks(
            FileChange::between(display(&resolved), &old, content).requested_as(link),
        )),
        // "Create" only for a file that is not there: a file that cannot be shown as text
        // (binary, too large, unreadable) would be replaced by a call approved as a creation.
        Err(unreadable) => match existing_kind(ws, path) {
            None => Ok(Preview::text(format!("create {shown} ({})", size()))),
            Some(_) if !overwrite.unwrap_or(false) => Ok(Preview::text(format!(
                "nothing: {shown} exists and `overwrite` is not true, so the call fails \
                 without writing"
            ))),
            Some(true) => Ok(Preview::text(format!(
                "nothing: {shown} is a directory, so the call fails without writing"
            ))),
            Some(false) => Ok(Preview::text(format!(
                "REPLACE the existing file {shown} with new content ({}); its current \
                 content cannot be shown: {}",
                size(),
                unreadable
            ))),
        },
    }
}

/// Whether `path` names something in the workspace, without following a final symbolic
/// link: `None` when nothing is there (or its directory is missing), else whether it is a
/// directory.
fn existing_kind(ws: &Workspace, path: &str) -> Option<bool> {
    let target = write_target(ws, path, false).ok()?;
    let metadata = target.parent.symlink_metadata(&target.name).ok()?;
    Some(metadata.is_dir())
}

/// Whether a `write_file` call needs approval: not when the file it writes matches the
/// workspace's [`writable_without_approval`](Workspace::writable_without_approval) globs.
/// A path the write would refuse is refused here too. Takes `write_file`'s parameters.
pub fn write_file_approval(
    ctx: &ToolContext,
    path: &str,
    _content: &str,
    _overwrite: &Option<bool>,
    _create_parents: &Option<bool>,
) -> Result<ApprovalNeed, ToolError> {
    Ok(workspace(ctx)?.write_approval(path)?)
}

/// Whether an `edit_file` call needs approval: as for [`write_file_approval`]. Takes
/// `edit_file`'s parameters.
pub fn edit_file_approval(
    ctx: &ToolContext,
    path: &str,
    _old_text: &Option<String>,
    _new_text: &Option<String>,
    _diff: &Option<String>,
) -> Result<ApprovalNeed, ToolError> {
    Ok(workspace(ctx)?.write_approval(path)?)
}

/// Write a text file in the workspace, atomically (the old content stays whole if anything
/// fails). Refuses to replace an existing file unless `overwrite` is true, and to create
/// missing directories unless `create_parents` is true.
#[tool(
    safety = "dangerous",
    categories(filesystem),
    tags("files", "write"),
    preview = write_file_preview,
    approval = write_file_approval
)]
pub fn write_file(
    ctx: &ToolContext,
    /// Path relative to the workspace root
    path: String,
    /// The complete new content of the file
    content: String,
    /// Replace the file if it exists (default false)
    overwrite: Option<bool>,
    /// Create missing parent directories (default false)
    create_parents: Option<bool>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    if content.len() as u64 > ws.write_limit() {
        return Err(ToolError::new(format!(
            "the content is {}; files are limited to {}",
            count(content.len(), "byte", "bytes"),
            count(ws.write_limit(), "byte", "bytes")
        )));
    }
    // Resolved once: the directory handle and final name the rest works through.
    let target = write_target(ws, &path, create_parents.unwrap_or(false))?;
    let link = through_link(ws, &path, &target.relative)?;
    // Approved hunk by hunk: exactly the accepted hunks, on the file as it was previewed.
    let approved = approved_edit(ws, ctx, &path, &target, link.as_deref())?;
    let content = match &approved {
        Some(edit) => edit.new.clone(),
        None => content,
    };
    let overwrite = overwrite.unwrap_or(false);
    let existing = target.parent.symlink_metadata(&target.name).ok();
    match &existing {
        Some(metadata) if metadata.is_dir() => {
            return Err(ToolError::new(format!("`{path}` is a directory")));
        }
        Some(_) if !overwrite => {
            return Err(ToolError::new(format!(
                "`{path}` already exists; pass `overwrite: true` to replace it, or use edit_file to change part of it"
            )));
        }
        _ => {}
    }
    write_atomically(
        &target.parent,
        &target.name,
        content.as_bytes(),
        overwrite,
        |dir, _| unchanged_since_approval(dir, &target.name, approved.as_ref()),
    )
    .map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => ToolError::new(format!(
            "`{path}` already exists; pass `overwrite: true` to replace it"
        )),
        _ if is_stale(&e) => stale(&path),
        _ => io_error(&target.relative, "write", e),
    })?;
    if let Some(edit) = approved.as_ref().filter(|edit| edit.approved.is_partial()) {
        return Ok(format!(
            "{}\n{}",
            edit.approved.summary(),
            FileChange::between(display(&target.relative), &edit.old, &edit.new)
                .requested_as(link)
                .unified_diff()
        ));
    }
    Ok(format!(
        "{} `{}`{} ({})",
        if existing.is_some() {
            "replaced"
        } else {
            "created"
        },
        display(&target.relative),
        link_note(link.as_deref()),
        count(content.len(), "byte", "bytes")
    ))
}

/// The edit `edit_file` was asked for: an exact replacement or a unified diff.
struct EditRequest<'a> {
    path: &'a str,
    old_text: Option<&'a str>,
    new_text: Option<&'a str>,
    diff: Option<&'a str>,
}

/// The file's text after the edit of its current text `old`.
fn plan_edit(
    ws: &Workspace,
    args: &EditRequest<'_>,
    old: String,
) -> Result<(String, String), ToolError> {
    let new = match (args.old_text, args.new_text, args.diff) {
        (Some(old_text), Some(new_text), None) => {
            if old_text.is_empty() {
                return Err(ToolError::new(
                    "`old_text` is empty; give the exact text to replace (use write_file to write a whole file)",
                ));
            }
            match old.matches(old_text).count() {
                0 => {
                    return Err(ToolError::new(format!(
                        "`old_text` was not found in `{}`; read the file and copy the text exactly, whitespace included",
                        args.path
                    )));
                }
                1 => old.replacen(old_text, new_text, 1),
                n => {
                    return Err(ToolError::new(format!(
                        "`old_text` occurs {n} times in `{}`; include more surrounding lines so it matches once",
                        args.path
                    )));
                }
            }
        }
        (None, None, Some(diff)) => {
            let patch = diffy::Patch::from_str(diff)
                .map_err(|e| ToolError::new(format!("`diff` is not a unified diff: {e}")))?;
            if patch.hunks().is_empty() {
                return Err(ToolError::new(
                    "`diff` is not a unified diff: it has no `@@` hunks (expected `--- a/file`, `+++ b/file`, then hunks)",
                ));
            }
            diffy::apply(&old, &patch).map_err(|e| {
                ToolError::new(format!(
                    "the diff does not apply to `{}` as it is now ({e}); read the file again and make a fresh diff",
                    args.path
                ))
            })?
        }
        _ => {
            return Err(ToolError::new(
                "give either `old_text` and `new_text` (an exact replacement), or `diff` (a unified diff), not both",
            ));
        }
    };
    if new.len() as u64 > ws.write_limit() {
        return Err(ToolError::new(format!(
            "the edited file would be {}; files are limited to {}",
            count(new.len(), "byte", "bytes"),
            count(ws.write_limit(), "byte", "bytes")
        )));
    }
    Ok((old, new))
}

/// What `edit_file` would do: the change, hunk by hunk (each can be approved on its own).
/// Takes `edit_file`'s parameters, read once for both.
pub fn edit_file_preview(
    ctx: &ToolContext,
    path: &str,
    old_text: &Option<String>,
    new_text: &Option<String>,
    diff: &Option<String>,
) -> Result<Preview, ToolError> {
    let ws = workspace(ctx)?;
    let request = EditRequest {
        path,
        old_text: old_text.as_deref(),
        new_text: new_text.as_deref(),
        diff: diff.as_deref(),
    };
    // The file really edited, named as such: a link is shown as what it leads to.
    let target = write_target(ws, path, false)?;
    let link = through_link(ws, path, &target.relative)?;
    let (old, new) = plan_edit(ws, &request, read_text_at(ws, path, &target)?)?;
    Ok(Preview::hunks(
        FileChange::between(display(&target.relative), &old, &new).requested_as(link),
    ))
}

/// Edit a text file in the workspace, either by replacing an exact piece of text that must
/// occur exactly once (`old_text` -> `new_text`), or by applying a unified diff (`diff`).
/// Returns the diff of what changed. The write is atomic.
#[tool(
    safety = "dangerous",
    categories(filesystem),
    tags("files", "write", "diff"),
    preview = edit_file_preview,
    approval = edit_file_approval
)]
pub fn edit_file(
    ctx: &ToolContext,
    /// Path relative to the workspace root
    path: String,
    /// The exact text to replace; it must occur exactly once
    old_text: Option<String>,
    /// The text to put in its place
    new_text: Option<String>,
    /// A unified diff to apply instead (`--- a/file`, `+++ b/file`, `@@` hunks)
    diff: Option<String>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let args = EditRequest {
        path: &path,
        old_text: old_text.as_deref(),
        new_text: new_text.as_deref(),
        diff: diff.as_deref(),
    };
    // Resolved once: the directory handle and final name the rest works through.
    let target = write_target(ws, args.path, false)?;
    let link = through_link(ws, args.path, &target.relative)?;
    // Approved hunk by hunk: exactly the accepted hunks, on the file as it was previewed.
    let approved = approved_edit(ws, ctx, &path, &target, link.as_deref())?;
    let (old, new) = match &approved {
        Some(edit) => (edit.old.clone(), edit.new.clone()),
        None => plan_edit(ws, &args, read_text_at(ws, args.path, &target)?)?,
    };
    if old == new {
        return Ok(format!(
            "`{}` is unchanged: the edit changes nothing",
            args.path
        ));
    }
    write_atomically(
        &target.parent,
        &target.name,
        new.as_bytes(),
        true,
        |dir, _| unchanged_since_approval(dir, &target.name, approved.as_ref()),
    )
    .map_err(|e| {
        if is_stale(&e) {
            stale(args.path)
        } else {
            io_error(&target.relative, "write", e)
        }
    })?;
    let what = match approved.as_ref().filter(|edit| edit.approved.is_partial()) {
        Some(edit) => edit.approved.summary(),
        None => format!(
            "edited `{}`{}",
            display(&target.relative),
            link_note(link.as_deref())
        ),
    };
    let diff = FileChange::between(display(&target.relative), &old, &new).requested_as(link);
    Ok(format!("{what}\n{}", diff.unified_diff()))
}
