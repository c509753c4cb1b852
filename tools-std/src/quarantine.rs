//! What a command may not leave behind: a git repository that would run its configuration
//! later, outside the sandbox.
//!
//! Git runs programs named in a repository's configuration (`core.fsmonitor`, hooks,
//! `core.pager`, ...) whenever a person works in it. A repository is told by its content,
//! as git does, not by its name: an entry named `.git` (a directory, or a file saying
//! `gitdir: <elsewhere>`), and any directory that holds a `HEAD` beside `objects` or
//! `commondir` (a bare repository: `git init --bare src` with `core.worktree=..` makes
//! `cd src && git status` run its `core.fsmonitor`). Every such entry that exists before a
//! command is read-only to it (the confinement binds them read-only); one the command
//! creates anywhere in the workspace, or one it makes out of an existing directory, replaces
//! or moves there, is found after the command ends by [`GitEntries::sweep`], moved into a
//! quarantine folder the person can inspect, renamed so git no longer finds it (its `HEAD`
//! too), and reported. Where the workspace's root itself is a repository by content, its
//! `HEAD`, `config`, `commondir`, `config.worktree` and `hooks` are the entries.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The name git looks for.
const GIT: &str = ".git";
/// The name a quarantined `.git` gets (git does not look for it).
const QUARANTINED_NAME: &str = "dot-git";
/// What a quarantined repository's `HEAD` is renamed to: without a `HEAD`, git does not
/// take a directory for a repository, so a person may inspect it with git at hand.
const QUARANTINED_HEAD: &str = "HEAD.quarantined";
/// What makes a directory a repository to git: a `HEAD` and ...
const HEAD: &str = "HEAD";
/// ... one of these (its objects, or a file naming the directory that holds them).
const REPOSITORY_MARKS: &[&str] = &["objects", "commondir"];
/// The entries of a root that is a repository by content that decide what git runs there.
const ROOT_REPOSITORY_ENTRIES: &[&str] =
    &["HEAD", "commondir", "config", "config.worktree", "hooks"];

/// The repositories of a workspace (entries named `.git`, directories that are
/// repositories by content), by path, with their identity (device and inode), so a replaced
/// one is told from the one that was there.
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

/// A repository a command left behind (a `.git`, or a directory that is one by content),
/// moved aside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Quarantined {
    /// Where it was, relative to the workspace root.
    pub path: String,
    /// Where it is now: the quarantine folder (or beside it, renamed, when it could not be
    /// moved there).
    pub moved_to: String,
}

/// The entries of `dir`; when it cannot be listed, after giving its owner (us, for what a
/// command made) read, write and search on it again, since a command may take them away to
/// hide what is inside.
fn read_dir_of_own(dir: &Path) -> Option<std::fs::ReadDir> {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(read) = std::fs::read_dir(dir) {
        return Some(read);
    }
    let meta = dir.symlink_metadata().ok()?;
    if !meta.is_dir() {
        return None;
    }
    let mode = meta.permissions().mode() | 0o700;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).ok()?;
    std::fs::read_dir(dir).ok()
}

/// Whether a directory whose entries are named `names` is a repository to git.
fn is_repository(names: &[std::ffi::OsString]) -> bool {
    let has = |name: &str| names.iter().any(|n| n == OsStr::new(name));
    has(HEAD) && REPOSITORY_MARKS.iter().any(|mark| has(mark))
}

impl GitEntries {
    /// Every repository beneath `root`: each entry named `.git` and each directory that is a
    /// repository by content (the root's own entries that decide what git runs, where the
    /// root is one), without following symbolic links and without looking inside one.
    pub(crate) fn scan(root: &Path) -> GitEntries {
        let mut entries = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Some(read) = read_dir_of_own(&dir) else {
                // A directory that cannot be listed may hide a repository that git reaches by
                // path (`chmod 0311` of its parent): it counts as one, so a command's is
                // quarantined and one that was there before is read-only.
                if dir != root
                    && let Ok(meta) = dir.symlink_metadata()
                {
                    entries.insert(dir, identity(&meta));
                }
                continue;
            };
            let children: Vec<(PathBuf, std::fs::Metadata)> = read
                .flatten()
                .filter_map(|entry| {
                    let path = entry.path();
                    let meta = path.symlink_metadata().ok()?;
                    Some((path, meta))
                })
                .collect();
            let names: Vec<_> = children
                .iter()
                .filter_map(|(path, _)| path.file_name().map(OsStr::to_os_string))
                .collect();
            if is_repository(&names) {
                if dir == root {
                    for (path, meta) in &children {
                        let name = path.file_name().unwrap_or_default();
                        if ROOT_REPOSITORY_ENTRIES
                            .iter()
                            .any(|n| name == OsStr::new(n))
                        {
                            entries.insert(path.clone(), identity(meta));
                        }
                    }
                } else if let Ok(meta) = dir.symlink_metadata() {
                    entries.insert(dir, identity(&meta));
                    continue;
                }
            }
            for (path, meta) in children {
                if path.file_name() == Some(OsStr::new(GIT)) {
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

    /// After a command: every repository beneath `root` that was not in `self` as it was,
    /// moved into `quarantine` (created when needed).
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
                "a command left a git repository behind; it was moved into quarantine"
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

/// The name a quarantined entry gets: `.git` becomes `dot-git`, `HEAD` `HEAD.quarantined`,
/// other names stay.
fn quarantined_name(path: &Path) -> std::ffi::OsString {
    match path.file_name() {
        Some(name) if name == OsStr::new(GIT) => QUARANTINED_NAME.into(),
        Some(name) if name == OsStr::new(HEAD) => QUARANTINED_HEAD.into(),
        Some(name) => name.to_os_string(),
        None => QUARANTINED_NAME.into(),
    }
}

/// Moves `path` into a new folder of `quarantine` (a `.git` as `dot-git`); where that fails
/// (another file system), renames it in place so git no longer finds it. A moved directory's
/// `HEAD` is renamed too, so that it is no repository where it lands. Returns where it went.
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
    let target = folder.join(quarantined_name(path));
    if std::fs::create_dir_all(&folder).is_ok() && std::fs::rename(path, &target).is_ok() {
        defuse_head(&target);
        return target.display().to_string();
    }
    let _ = std::fs::remove_dir(&folder);
    let mut beside_name = quarantined_name(path);
    beside_name.push(format!(".quarantined-{stamp}"));
    let beside = path.with_file_name(beside_name);
    match std::fs::rename(path, &beside) {
        Ok(()) => {
            defuse_head(&beside);
            beside.display().to_string()
        }
        Err(_) => {
            // Last resort: it must not stay where git finds it.
            let _ = std::fs::remove_dir_all(path).or_else(|_| std::fs::remove_file(path));
            "(removed: it could not be moved)".to_owned()
        }
    }
}

/// Renames the `HEAD` of the directory `dir` (not a link), if it has one.
fn defuse_head(dir: &Path) {
    if dir.symlink_metadata().is_ok_and(|meta| meta.is_dir()) {
        let _ = std::fs::rename(dir.join(HEAD), dir.join(QUARANTINED_HEAD));
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

    /// A bare repository: `HEAD`, `config`, `objects/`.
    fn bare(dir: &Path) {
        std::fs::create_dir_all(dir.join("objects")).unwrap();
        std::fs::create_dir_all(dir.join("refs")).unwrap();
        std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(dir.join("config"), "[core]\n\tfsmonitor = x\n").unwrap();
    }

    #[test]
    fn a_repository_under_a_directory_that_cannot_be_listed_is_found() {
        use std::os::unix::fs::PermissionsExt;
        let ws = tempfile::tempdir().unwrap();
        let quarantine = tempfile::tempdir().unwrap();
        let root = ws.path();
        let before = GitEntries::scan(root);
        // Git reaches `x/y/repo` by path through a directory nobody may list.
        bare(&root.join("x/y/repo"));
        std::fs::set_permissions(root.join("x"), std::fs::Permissions::from_mode(0o311)).unwrap();
        let moved = before.sweep(root, quarantine.path());
        let paths: Vec<&str> = moved.iter().map(|q| q.path.as_str()).collect();
        assert!(
            paths == ["x/y/repo"] || paths == ["x"],
            "the hidden repository was not quarantined: {paths:?}"
        );
        assert!(!root.join("x/y/repo/HEAD").exists());
    }

    #[test]
    fn a_repository_by_content_is_quarantined_whatever_its_name() {
        let ws = tempfile::tempdir().unwrap();
        let quarantine = tempfile::tempdir().unwrap();
        let root = ws.path();
        bare(&root.join("vendor/kept.git"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        let before = GitEntries::scan(root);
        assert_eq!(before.protectable(), [root.join("vendor/kept.git")]);

        // An existing directory made a bare repository, one made elsewhere and moved, and one
        // whose objects are another's (`commondir`).
        bare(&root.join("src"));
        bare(&root.join("tmp/made"));
        std::fs::create_dir_all(root.join("deep")).unwrap();
        std::fs::rename(root.join("tmp/made"), root.join("deep/moved")).unwrap();
        std::fs::create_dir_all(root.join("linked")).unwrap();
        std::fs::write(root.join("linked/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(root.join("linked/commondir"), "../vendor/kept.git\n").unwrap();

        let moved = before.sweep(root, quarantine.path());
        let paths: Vec<&str> = moved.iter().map(|q| q.path.as_str()).collect();
        assert_eq!(paths, ["deep/moved", "linked", "src"]);
        for gone in ["src", "deep/moved", "linked"] {
            assert!(!root.join(gone).exists(), "{gone} is still there");
        }
        assert!(root.join("vendor/kept.git/HEAD").is_file());
        // Kept for inspection, no repository where it is: its `HEAD` renamed.
        let src = Path::new(&moved[2].moved_to);
        assert!(src.starts_with(quarantine.path()));
        assert!(src.join("main.rs").is_file());
        assert!(!src.join(HEAD).exists());
        assert!(src.join(QUARANTINED_HEAD).is_file());
        assert!(
            GitEntries::scan(root)
                .sweep(root, quarantine.path())
                .is_empty()
        );
    }

    #[test]
    fn a_root_made_a_repository_loses_what_would_run() {
        let ws = tempfile::tempdir().unwrap();
        let quarantine = tempfile::tempdir().unwrap();
        let root = ws.path();
        std::fs::write(root.join("README"), "").unwrap();
        let before = GitEntries::scan(root);
        assert!(before.protectable().is_empty());
        bare(root);
        let moved = before.sweep(root, quarantine.path());
        let paths: Vec<&str> = moved.iter().map(|q| q.path.as_str()).collect();
        assert_eq!(paths, ["HEAD", "config"]);
        assert!(!root.join(HEAD).exists() && !root.join("config").exists());
        assert!(root.join("README").is_file());
    }
}
