//! What a command may not leave behind: a git repository that would run its configuration
//! later, outside the sandbox.
//!
//! Git runs programs named in a repository's configuration (`core.fsmonitor`, hooks,
//! `core.pager`, ...) whenever a person works in it. Every `.git` that exists before a
//! command is read-only to it (the confinement binds them read-only); a `.git` the command
//! creates anywhere in the workspace (a nested repository, or the root's where the workspace
//! had none), or one it replaces, is found after the command ends by [`GitEntries::sweep`],
//! moved into a quarantine folder the person can inspect, renamed so git no longer finds it,
//! and reported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The name git looks for.
const GIT: &str = ".git";
/// The name a quarantined `.git` gets (git does not look for it).
const QUARANTINED_NAME: &str = "dot-git";

/// The `.git` entries of a workspace, by path, with their identity (device and inode), so a
/// replaced one is told from the one that was there.
#[derive(Debug, Clone, Default)]
pub(crate) struct GitEntries {
    entries: BTreeMap<PathBuf, Identity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    device: u64,
    inode: u64,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Other,
}

/// A `.git` a command left behind, moved aside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Quarantined {
    /// Where it was, relative to the workspace root.
    pub path: String,
    /// Where it is now: the quarantine folder (or beside it, renamed, when it could not be
    /// moved there).
    pub moved_to: String,
}

impl GitEntries {
    /// Every entry named `.git` beneath `root`, without following symbolic links and without
    /// looking inside a `.git`.
    pub(crate) fn scan(root: &Path) -> GitEntries {
        let mut entries = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in read.flatten() {
                let Ok(meta) = entry.path().symlink_metadata() else {
                    continue;
                };
                let path = entry.path();
                if entry.file_name() == GIT {
                    entries.insert(path, identity(&meta));
                } else if meta.is_dir() {
                    stack.push(path);
                }
            }
        }
        GitEntries { entries }
    }

    /// The entries a confinement can bind read-only: directories and regular files (a link
    /// is not followed).
    pub(crate) fn protectable(&self) -> Vec<PathBuf> {
        self.entries
            .iter()
            .filter(|(_, id)| id.kind != Kind::Other)
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// After a command: every `.git` beneath `root` that was not in `self` as it was, moved
    /// into `quarantine` (created when needed).
    pub(crate) fn sweep(&self, root: &Path, quarantine: &Path) -> Vec<Quarantined> {
        let now = GitEntries::scan(root);
        let mut moved = Vec::new();
        for (path, id) in &now.entries {
            if self.entries.get(path) == Some(id) {
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string();
            let moved_to = move_aside(path, &relative, quarantine);
            tracing::warn!(
                target: "toolwright_std::quarantine",
                path = %relative,
                moved_to = %moved_to,
                "a command left a `.git` behind; it was moved into quarantine"
            );
            moved.push(Quarantined {
                path: relative,
                moved_to,
            });
        }
        moved
    }
}

fn identity(meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    let kind = if meta.file_type().is_dir() {
        Kind::Dir
    } else if meta.file_type().is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    Identity {
        device: meta.dev(),
        inode: meta.ino(),
        kind,
    }
}

/// Moves `path` into a new folder of `quarantine`, as `dot-git`; where that fails (another
/// file system), renames it in place so git no longer finds it. Returns where it went.
fn move_aside(path: &Path, relative: &str, quarantine: &Path) -> String {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let folder_name: String = relative
        .chars()
        .map(|c| if c == '/' { '_' } else { c })
        .collect();
    let folder = quarantine.join(format!("{stamp}-{}-{folder_name}", std::process::id()));
    let target = folder.join(QUARANTINED_NAME);
    if std::fs::create_dir_all(&folder).is_ok() && std::fs::rename(path, &target).is_ok() {
        return target.display().to_string();
    }
    let _ = std::fs::remove_dir(&folder);
    let beside = path.with_file_name(format!("{QUARANTINED_NAME}.quarantined-{stamp}"));
    match std::fs::rename(path, &beside) {
        Ok(()) => beside.display().to_string(),
        Err(_) => {
            // Last resort: it must not stay where git finds it.
            let _ = std::fs::remove_dir_all(path).or_else(|_| std::fs::remove_file(path));
            "(removed: it could not be moved)".to_owned()
        }
    }
}

/// The default quarantine folder: `$XDG_STATE_HOME/tools-std/quarantine`, else
/// `~/.local/state/tools-std/quarantine`, else one in the system's temporary directory.
pub(crate) fn default_folder() -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".local/state"))
        });
    match state {
        Some(state) => state.join("tools-std/quarantine"),
        None => std::env::temp_dir().join("tools-std-quarantine"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_or_replaced_git_is_moved_into_quarantine_and_the_old_one_stays() {
        let ws = tempfile::tempdir().unwrap();
        let quarantine = tempfile::tempdir().unwrap();
        let root = ws.path();
        std::fs::create_dir_all(root.join("kept/.git")).unwrap();
        std::fs::create_dir_all(root.join("replaced/.git")).unwrap();
        let before = GitEntries::scan(root);
        assert_eq!(before.protectable().len(), 2);

        std::fs::create_dir_all(root.join("a/b/.git")).unwrap();
        std::fs::write(root.join("a/b/.git/config"), "[core]\n\tfsmonitor = x\n").unwrap();
        std::fs::write(root.join(".git"), "gitdir: /elsewhere\n").unwrap();
        // Replaced by a file (a new directory could get the old inode number back).
        std::fs::remove_dir(root.join("replaced/.git")).unwrap();
        std::fs::write(root.join("replaced/.git"), "gitdir: /elsewhere\n").unwrap();

        let moved = before.sweep(root, quarantine.path());
        let paths: Vec<&str> = moved.iter().map(|q| q.path.as_str()).collect();
        assert_eq!(paths, [".git", "a/b/.git", "replaced/.git"]);
        assert!(root.join("kept/.git").is_dir());
        assert!(!root.join("a/b/.git").exists());
        assert!(!root.join(".git").exists());
        let config = Path::new(&moved[1].moved_to).join("config");
        assert!(
            std::fs::read_to_string(config)
                .unwrap()
                .contains("fsmonitor")
        );
        assert!(
            GitEntries::scan(root)
                .sweep(root, quarantine.path())
                .is_empty()
        );
    }
}
