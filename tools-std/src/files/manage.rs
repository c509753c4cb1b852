//! Creating directories and deleting paths: `create_directory` and `delete_path`.

use std::ffi::OsString;
use std::path::PathBuf;

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;
use toolwright_core::{ToolContext, ToolError, tool};

use super::access::{cancelled, display, in_root, io_error, split_parent};
use crate::names::count;
use crate::walk::{Kind, Step, WalkOptions, walk};
use crate::workspace::{PathError, Workspace, workspace};

/// Create a directory in the workspace, with any missing parents. Creating one that exists is
/// not an error.
#[tool(safety = "cautious", categories(filesystem), tags("files", "write"))]
pub fn create_directory(
    ctx: &ToolContext,
    /// Directory path relative to the workspace root
    path: String,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let relative = ws.locate(&path, true)?;
    if relative.as_os_str().is_empty() {
        return Ok("`.` already exists".to_owned());
    }
    match ws.dir().metadata(&relative) {
        Ok(metadata) if metadata.is_dir() => {
            return Ok(format!("`{}` already exists", display(&relative)));
        }
        Ok(_) => return Err(ToolError::new(format!("`{path}` exists and is a file"))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(ws.path_error(&path, error).into()),
    }
    ws.dir()
        .create_dir_all(&relative)
        .map_err(|e| match ws.path_error(&path, e) {
            PathError::Io { message, .. } => {
                ToolError::new(format!("cannot create `{}`: {message}", display(&relative)))
            }
            other => other.into(),
        })?;
    Ok(format!("created `{}`", display(&relative)))
}

/// What `delete_path` would remove: the directory that holds it and its name there.
struct DeleteTarget {
    parent: Dir,
    name: OsString,
    relative: PathBuf,
    kind: Kind,
}

/// Resolves what `path` names for deletion: its parent directory beneath the root (links in
/// the parent part are followed inside the root), and the last name itself, never followed
/// (with or without a trailing slash).
fn delete_target(ws: &Workspace, path: &str) -> Result<DeleteTarget, ToolError> {
    let relative = ws.locate(path, false)?;
    let Some((parent_relative, name)) = split_parent(&relative) else {
        return Err(ToolError::new("refusing to delete the workspace root"));
    };
    let at = in_root(parent_relative);
    let parent = ws
        .dir()
        .open_dir(at)
        .map_err(|e| ToolError::from(ws.path_error(path, e)))?;
    let metadata = parent
        .symlink_metadata(&name)
        .map_err(|e| ToolError::from(ws.path_error(path, e)))?;
    let kind = if metadata.file_type().is_symlink() {
        Kind::Symlink
    } else if metadata.is_dir() {
        Kind::Dir
    } else if metadata.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    Ok(DeleteTarget {
        parent,
        name,
        relative,
        kind,
    })
}

/// What `delete_path` would delete. Takes `delete_path`'s parameters, read once for both.
pub fn delete_path_preview(
    ctx: &ToolContext,
    path: &str,
    _recursive: &Option<bool>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let target = delete_target(ws, path)?;
    let shown = display(&target.relative);
    Ok(match target.kind {
        Kind::Symlink => format!("delete the symbolic link `{shown}` (not what it points to)"),
        Kind::Dir => {
            let mut entries = 0_usize;
            if let Ok(dir) = target.parent.open_dir_nofollow(&target.name) {
                let options = WalkOptions {
                    max_depth: None,
                    hidden: true,
                    respect_ignores: false,
                };
                let walked = walk(&dir, options, &|| ctx.is_cancelled(), &mut |_| {
                    entries += 1;
                    Step::Continue
                });
                if walked.is_err() {
                    return Err(cancelled(ctx, "delete_path"));
                }
            }
            match entries {
                0 => format!("delete the empty directory `{shown}`"),
                1 => format!("delete the directory `{shown}` and the entry inside it"),
                _ => format!("delete the directory `{shown}` and the {entries} entries inside it"),
            }
        }
        Kind::File | Kind::Other => {
            let size = target
                .parent
                .symlink_metadata(&target.name)
                .map(|m| m.len())
                .unwrap_or(0);
            format!(
                "delete the file `{shown}` ({})",
                count(size, "byte", "bytes")
            )
        }
    })
}

/// Delete a file, or a directory (with `recursive: true` when it is not empty), in the
/// workspace. A symbolic link is deleted itself, never what it points to, with or without a
/// trailing slash. The workspace root itself is never deleted.
#[tool(safety = "dangerous", categories(filesystem), tags("files", "write"), preview = delete_path_preview)]
pub fn delete_path(
    ctx: &ToolContext,
    /// Path relative to the workspace root
    path: String,
    /// Delete a non-empty directory and everything in it (default false)
    recursive: Option<bool>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let target = delete_target(ws, &path)?;
    let shown = display(&target.relative);
    let failed = |e| io_error(&target.relative, "delete", e);
    match target.kind {
        Kind::Symlink => {
            target
                .parent
                .remove_file_or_symlink(&target.name)
                .map_err(failed)?;
            Ok(format!("deleted the symbolic link `{shown}`"))
        }
        Kind::Dir => {
            match target.parent.remove_dir(&target.name) {
                Ok(()) => {}
                Err(error)
                    if error.raw_os_error() == Some(rustix::io::Errno::NOTEMPTY.raw_os_error()) =>
                {
                    if !recursive.unwrap_or(false) {
                        return Err(ToolError::new(format!(
                            "`{path}` is a directory that is not empty; pass `recursive: true` to delete it and everything in it"
                        )));
                    }
                    // Removes beneath the parent's handle without following links.
                    target.parent.remove_dir_all(&target.name).map_err(failed)?;
                }
                Err(error) => return Err(failed(error)),
            }
            Ok(format!("deleted the directory `{shown}`"))
        }
        Kind::File | Kind::Other => {
            target.parent.remove_file(&target.name).map_err(failed)?;
            Ok(format!("deleted `{shown}`"))
        }
    }
}
