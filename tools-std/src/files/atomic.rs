//! The shared write machinery: where a write lands, atomic writes through temporary files, the
//! text a preview is made from, and applying an approved preview.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, OpenOptions};
use toolwright_core::file_change::ApprovedChange;
use toolwright_core::{ToolContext, ToolError};

use super::access::{
    OpenFile, check_regular, display, in_root, io_error, open_error, open_for_reading, read_error,
    split_parent,
};
use crate::names::{count, escape};
use crate::walk::open_options_nonblocking;
use crate::workspace::Workspace;

/// Where a write lands: the directory that holds the file, opened beneath the root, and the
/// file's name in it.
pub(super) struct WriteTarget {
    pub(super) parent: Dir,
    pub(super) name: OsString,
    /// The path relative to the root, for messages.
    pub(super) relative: PathBuf,
}

/// Resolves the file `path` names for writing. A symbolic link inside the workspace is
/// followed to its target (beneath the root); its parent directory is opened (created first
/// when `create_parents`), and everything after happens relative to that handle.
pub(super) fn write_target(
    ws: &Workspace,
    path: &str,
    create_parents: bool,
) -> Result<WriteTarget, ToolError> {
    // Links are followed beneath the root only: one that leads outside is refused.
    let relative = ws.locate(path, true)?;
    if relative.as_os_str().is_empty() {
        return Err(ToolError::new(format!("`{path}` is a directory")));
    }
    let (parent_relative, name) =
        split_parent(&relative).ok_or_else(|| ToolError::new(format!("`{path}` names no file")))?;
    let at = in_root(parent_relative);
    let parent = match ws.dir().open_dir(at) {
        Ok(parent) => parent,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if !create_parents {
                return Err(ToolError::new(format!(
                    "the directory `{}` does not exist; pass `create_parents: true` to create it",
                    display(parent_relative)
                )));
            }
            ws.dir()
                .create_dir_all(at)
                .map_err(|e| ToolError::from(ws.path_error(path, e)))?;
            ws.dir()
                .open_dir(at)
                .map_err(|e| ToolError::from(ws.path_error(path, e)))?
        }
        Err(error) => return Err(ws.path_error(path, error).into()),
    };
    Ok(WriteTarget {
        parent,
        name,
        relative,
    })
}

/// When `path` reaches the file it names through a symbolic link (the last name, or a
/// directory on the way): the path as asked, to show beside the file really written. A link
/// into a `.git` directory is refused: it would change what git runs, under a name that
/// does not say so.
pub(super) fn through_link(
    ws: &Workspace,
    path: &str,
    resolved: &Path,
) -> Result<Option<String>, ToolError> {
    let asked = ws.check(path)?;
    if asked == resolved {
        return Ok(None);
    }
    if resolved.components().any(|part| part.as_os_str() == ".git") {
        return Err(ToolError::new(format!(
            "`{}` is a link to `{}`, inside a `.git` directory; writing through a link into \
             `.git` is refused (it would change what git runs, under a name that does not say \
             so); nothing was written",
            escape(OsStr::new(path)),
            display(resolved)
        )));
    }
    Ok(Some(escape(OsStr::new(path))))
}

/// ` (`notes.txt` is a link to it)` after a file's name, when the call named a link.
pub(super) fn link_note(link: Option<&str>) -> String {
    link.map(|link| format!(" (`{link}` is a link to it)"))
        .unwrap_or_default()
}

/// A temporary file being written; removed when dropped unless it was published.
struct TempFile<'a> {
    dir: &'a Dir,
    name: String,
    published: bool,
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.published {
            let _ = self.dir.remove_file(&self.name);
        }
    }
}

/// Creates a new temporary file in `dir` with mode `0666 & !umask` (the kernel applies the
/// umask, as for any new file).
fn create_temp(dir: &Dir) -> std::io::Result<(TempFile<'_>, std::fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.finish()
    };
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.mode(0o666);
    }
    let mut last = None;
    for _ in 0..16 {
        let name = format!(
            ".tool-write-{:016x}",
            seed ^ COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        match dir.open_with(&name, &options) {
            Ok(file) => {
                let guard = TempFile {
                    dir,
                    name,
                    published: false,
                };
                return Ok((guard, file.into_std()));
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => last = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// Writes `content` to `name` in `dir` atomically: a temporary file in the same directory,
/// written and synced, then renamed over the target (or, when it must not exist yet, renamed
/// only if nothing is there), then the directory synced. Every step is relative to `dir`'s
/// handle. A failure at any point leaves the old file as it was and removes the temporary
/// file. A replaced file keeps its permissions; a new one gets `0666 & !umask`. A hard link
/// is replaced, never written through. `before_commit` runs between the write and the
/// rename (tests use it to fail there).
pub(crate) fn write_atomically(
    dir: &Dir,
    name: &OsStr,
    content: &[u8],
    overwrite: bool,
    before_commit: impl FnOnce(&Dir, &str) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (mut temp, mut file) = create_temp(dir)?;
    file.write_all(content)?;
    if let Ok(existing) = dir.symlink_metadata(name)
        && existing.is_file()
    {
        let permissions = existing.permissions().into_std(&file)?;
        file.set_permissions(permissions)?;
    }
    file.sync_all()?;
    drop(file);
    before_commit(dir, &temp.name)?;
    if overwrite {
        dir.rename(&temp.name, dir, name)?;
    } else {
        rename_no_replace(dir, &temp.name, name)?;
    }
    temp.published = true;
    // Durability of the rename; not every file system can sync a directory.
    #[cfg(unix)]
    let _ = rustix::fs::fsync(dir);
    Ok(())
}

/// Renames `from` to `to` in `dir`, failing with `AlreadyExists` if `to` exists.
fn rename_no_replace(dir: &Dir, from: &str, to: &OsStr) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        match rustix::fs::renameat_with(dir, from, dir, to, rustix::fs::RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            // Some file systems cannot; a hard link gives the same guarantee.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {}
            Err(error) => return Err(error.into()),
        }
    }
    dir.hard_link(from, dir, to)?;
    dir.remove_file(from)
}

/// The whole text of a regular file, up to the write limit.
pub(super) fn read_text(ws: &Workspace, path: &str) -> Result<String, ToolError> {
    let opened = open_for_reading(ws, path)?;
    text_of(ws, path, opened)
}

/// The whole text of the file `target` resolved to, opened through its directory handle by
/// its final name without following a link there: the file the preview showed is the one
/// read, whatever was swapped in between.
pub(super) fn read_text_at(
    ws: &Workspace,
    path: &str,
    target: &WriteTarget,
) -> Result<String, ToolError> {
    use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
    let mut options = open_options_nonblocking();
    options.follow(FollowSymlinks::No);
    let file = target
        .parent
        .open_with(&target.name, &options)
        .map_err(|error| open_error(ws, path, error))?
        .into_std();
    let metadata = file
        .metadata()
        .map_err(|e| io_error(&target.relative, "read", e))?;
    check_regular(path, &metadata)?;
    text_of(
        ws,
        path,
        OpenFile {
            file,
            size: metadata.len(),
        },
    )
}

/// The text of an open file, up to the write limit.
fn text_of(ws: &Workspace, path: &str, opened: OpenFile) -> Result<String, ToolError> {
    if opened.size > ws.write_limit() {
        return Err(ToolError::new(format!(
            "`{path}` is {}; files are limited to {}",
            count(opened.size, "byte", "bytes"),
            count(ws.write_limit(), "byte", "bytes")
        )));
    }
    let mut bytes = Vec::new();
    opened
        .file
        .take(ws.write_limit() + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| read_error(path, e))?;
    String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "`{path}` is not UTF-8 text; edit_file edits text only"
        ))
    })
}

/// A change approved hunk by hunk, applied to the file as it is now (which must be as it was
/// previewed).
pub(super) struct ApprovedEdit<'a> {
    pub(super) approved: &'a ApprovedChange,
    pub(super) old: String,
    pub(super) new: String,
}

/// The text to write when a person approved the call's previewed change: the accepted hunks
/// applied to the file's current text, or an error (writing nothing) when the file changed
/// since the preview. `None` when no change was approved (the call needed no approval, or
/// the approver rewrote its arguments).
pub(super) fn approved_edit<'a>(
    ws: &Workspace,
    ctx: &'a ToolContext,
    path: &str,
    target: &WriteTarget,
    link: Option<&str>,
) -> Result<Option<ApprovedEdit<'a>>, ToolError> {
    let Some(approved) = ctx.approved_change() else {
        return Ok(None);
    };
    // The file the person approved is the file written: the same one, reached the same way.
    let resolved = display(&target.relative);
    let change = approved.change();
    if change.path != resolved || change.requested.as_deref() != link {
        return Err(ToolError::new(format!(
            "the approved change is to `{}`{}, but `{}` now leads to `{resolved}`{}; nothing \
             was written",
            change.path,
            link_note(change.requested.as_deref()),
            escape(OsStr::new(path)),
            link_note(link)
        )));
    }
    let old = read_text_at(ws, path, target).map_err(|_| stale(path))?;
    let new = approved.apply(&old)?;
    // Some hunks of a change within the limit can still make a file over it (the ones that
    // add lines, without the ones that remove them).
    if new.len() as u64 > ws.write_limit() {
        return Err(ToolError::new(format!(
            "the approved hunks would make `{}` {}; files are limited to {}; nothing was written",
            escape(OsStr::new(path)),
            count(new.len(), "byte", "bytes"),
            count(ws.write_limit(), "byte", "bytes")
        )));
    }
    Ok(Some(ApprovedEdit { approved, old, new }))
}

/// Right before an approved edit replaces the file: it must still hold the text the edit was
/// applied to (another process may have written it since).
pub(super) fn unchanged_since_approval(
    dir: &Dir,
    name: &OsStr,
    approved: Option<&ApprovedEdit<'_>>,
) -> std::io::Result<()> {
    let Some(edit) = approved else {
        return Ok(());
    };
    let mut now = Vec::with_capacity(edit.old.len());
    let file = dir.open(name)?;
    file.into_std()
        .take(edit.old.len() as u64 + 1)
        .read_to_end(&mut now)?;
    if now == edit.old.as_bytes() {
        Ok(())
    } else {
        Err(std::io::Error::other(STALE))
    }
}

const STALE: &str = "changed since the preview";

pub(super) fn is_stale(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::Other && error.to_string() == STALE
}

pub(super) fn stale(path: &str) -> ToolError {
    toolwright_core::file_change::ChangeError::Stale {
        path: path.to_owned(),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cap_std::ambient_authority;
    use toolwright_core::file_change::FileChange;

    fn open(dir: &Path) -> Dir {
        Dir::open_ambient_dir(dir, ambient_authority()).unwrap()
    }

    #[test]
    fn a_failed_write_leaves_the_old_content_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("data.txt");
        std::fs::write(&target, "old content").unwrap();
        let handle = open(dir.path());
        let failure = write_atomically(
            &handle,
            OsStr::new("data.txt"),
            b"new content that never lands",
            true,
            |dir, temp| {
                // The new bytes are fully on disk in the temporary file...
                assert_eq!(dir.read(temp).unwrap(), b"new content that never lands");
                // ...and the writer dies before the rename.
                Err(std::io::Error::other("killed mid-write"))
            },
        );
        assert!(failure.is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old content");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            leftovers,
            [std::ffi::OsString::from("data.txt")],
            "the temporary file is removed"
        );
    }

    #[test]
    fn an_approved_edit_is_not_renamed_over_a_file_written_after_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("notes.txt");
        std::fs::write(&target, "a\nb\n").unwrap();
        let handle = open(dir.path());
        let change = FileChange::between("notes.txt", "a\nb\n", "A\nb\n");
        let approved = ApprovedChange::all(change);
        let edit = ApprovedEdit {
            approved: &approved,
            old: "a\nb\n".to_owned(),
            new: "A\nb\n".to_owned(),
        };
        // Unchanged: the write goes ahead.
        write_atomically(
            &handle,
            OsStr::new("notes.txt"),
            edit.new.as_bytes(),
            true,
            |dir, _| unchanged_since_approval(dir, OsStr::new("notes.txt"), Some(&edit)),
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "A\nb\n");

        // Another process writes between the stale check and the rename: refused, its text
        // stays, the temporary file is gone.
        std::fs::write(&target, "a\nb\n").unwrap();
        let error = write_atomically(
            &handle,
            OsStr::new("notes.txt"),
            edit.new.as_bytes(),
            true,
            |dir, _| {
                std::fs::write(&target, "theirs\n").unwrap();
                unchanged_since_approval(dir, OsStr::new("notes.txt"), Some(&edit))
            },
        )
        .unwrap_err();
        assert!(is_stale(&error), "{error}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn noclobber_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("data.txt");
        std::fs::write(&target, "old").unwrap();
        let handle = open(dir.path());
        let error = write_atomically(
            &handle,
            OsStr::new("data.txt"),
            b"new",
            false,
            |_, _| Ok(()),
        )
        .unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn replacing_keeps_permissions_and_new_files_follow_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("script.sh");
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o750)).unwrap();
        let handle = open(dir.path());
        write_atomically(
            &handle,
            OsStr::new("script.sh"),
            b"new",
            true,
            |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(
            std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o750
        );
        // A new file gets what `std::fs::write` (open with 0666, less the umask) gives.
        std::fs::write(dir.path().join("reference"), "x").unwrap();
        let expected = std::fs::metadata(dir.path().join("reference"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        write_atomically(&handle, OsStr::new("new.txt"), b"new", false, |_, _| Ok(())).unwrap();
        let mode = std::fs::metadata(dir.path().join("new.txt"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, expected);
        assert_ne!(mode, 0o600, "not tempfile's private mode");
    }
}
