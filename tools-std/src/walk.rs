//! Walking a directory of the workspace through directory handles: each subdirectory is
//! opened beneath its parent's handle without following symbolic links, so a directory swapped
//! for a link while the walk runs cannot lead it outside the root. `.gitignore` files (and
//! `.git/info/exclude`) found on the way are honoured, as `git` would.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader};
use std::path::Path;

use cap_fs_ext::{DirExt, OpenOptionsMaybeDirExt};
use cap_std::fs::{Dir, Metadata, OpenOptions};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Deepest a walk descends, whatever was asked: each level holds a directory handle open.
const MAX_WALK_DEPTH: usize = 64;
/// Largest ignore file read; the rest of a larger one is ignored.
const MAX_IGNORE_FILE: u64 = 1 << 20;
/// Where ignore matchers pretend the walk starts (they match paths, not handles).
const VIRTUAL_ROOT: &str = "/walk";

/// What a walk found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device: listed, never opened.
    Other,
}

/// One entry of a walk.
pub(crate) struct Entry<'a> {
    /// The directory that holds it (open it through this handle, by `name`).
    pub(crate) parent: &'a Dir,
    pub(crate) name: &'a OsStr,
    /// Its path relative to the walk's start.
    pub(crate) relative: &'a Path,
    pub(crate) kind: Kind,
}

impl Entry<'_> {
    /// Its metadata, without following a symbolic link.
    pub(crate) fn metadata(&self) -> Option<Metadata> {
        self.parent.symlink_metadata(self.name).ok()
    }
}

/// Whether a walk goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Continue,
    Stop,
}

/// How to walk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WalkOptions {
    /// How many levels to descend (1: the start's entries only); `None` for no limit.
    pub(crate) max_depth: Option<usize>,
    /// Include names starting with `.`.
    pub(crate) hidden: bool,
    /// Leave out what `.gitignore` files ignore.
    pub(crate) respect_ignores: bool,
}

/// Walks `start` depth-first, entries of each directory in name order, calling `visit` for
/// each entry that is neither hidden (unless asked) nor ignored. Symbolic links are reported,
/// never followed. Directories that cannot be opened are skipped.
pub(crate) fn walk(start: &Dir, options: WalkOptions, visit: &mut dyn FnMut(&Entry<'_>) -> Step) {
    let mut walker = Walker {
        max_depth: options
            .max_depth
            .unwrap_or(MAX_WALK_DEPTH)
            .min(MAX_WALK_DEPTH),
        options,
        ignores: Vec::new(),
        visit,
    };
    let _ = walker.dir(start, Path::new(""), 1);
}

/// One walk: its limits, the ignore rules of the directories it is in, and its visitor.
struct Walker<'v> {
    max_depth: usize,
    options: WalkOptions,
    /// The rules of each directory on the way down that has any, outermost first.
    ignores: Vec<Gitignore>,
    visit: &'v mut dyn FnMut(&Entry<'_>) -> Step,
}

impl Walker<'_> {
    /// Walks the entries of `dir` (at `relative`, `depth` levels down) with its ignore rules.
    fn dir(&mut self, dir: &Dir, relative: &Path, depth: usize) -> Step {
        let rules = if self.options.respect_ignores {
            ignore_rules(dir, relative)
        } else {
            None
        };
        let pushed = rules.map(|rules| self.ignores.push(rules)).is_some();
        let step = self.entries(dir, relative, depth);
        if pushed {
            self.ignores.pop();
        }
        step
    }

    fn entries(&mut self, dir: &Dir, relative: &Path, depth: usize) -> Step {
        let Ok(entries) = dir.entries() else {
            return Step::Continue;
        };
        let mut names: Vec<(OsString, Kind)> = entries
            .filter_map(Result::ok)
            .map(|entry| {
                let kind = match entry.file_type() {
                    Ok(kind) if kind.is_dir() => Kind::Dir,
                    Ok(kind) if kind.is_file() => Kind::File,
                    Ok(kind) if kind.is_symlink() => Kind::Symlink,
                    _ => Kind::Other,
                };
                (entry.file_name(), kind)
            })
            .collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in names {
            if !self.options.hidden && name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let path = relative.join(&name);
            if is_ignored(&self.ignores, &path, kind == Kind::Dir) {
                continue;
            }
            let entry = Entry {
                parent: dir,
                name: &name,
                relative: &path,
                kind,
            };
            if (self.visit)(&entry) == Step::Stop {
                return Step::Stop;
            }
            if kind == Kind::Dir && depth < self.max_depth {
                // Not following links: a directory swapped for a link since it was listed fails
                // to open here, and is skipped.
                let Ok(child) = dir.open_dir_nofollow(&name) else {
                    continue;
                };
                if self.dir(&child, &path, depth + 1) == Step::Stop {
                    return Step::Stop;
                }
            }
        }
        Step::Continue
    }
}

/// Whether the deepest rule that matches `path` ignores it.
fn is_ignored(ignores: &[Gitignore], path: &Path, is_dir: bool) -> bool {
    let full = Path::new(VIRTUAL_ROOT).join(path);
    for rules in ignores.iter().rev() {
        let matched = rules.matched(&full, is_dir);
        if matched.is_ignore() {
            return true;
        }
        if matched.is_whitelist() {
            return false;
        }
    }
    false
}

/// The ignore rules a directory adds: its `.gitignore`, and `.git/info/exclude` when it holds
/// a repository. Read through the directory's handle, never by path.
fn ignore_rules(dir: &Dir, relative: &Path) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(Path::new(VIRTUAL_ROOT).join(relative));
    let mut any = false;
    for file in [".gitignore", ".git/info/exclude"] {
        let Ok(handle) = dir.open_with(file, &open_options_nonblocking()) else {
            continue;
        };
        if !handle.metadata().is_ok_and(|m| m.is_file()) {
            continue;
        }
        let reader = BufReader::new(std::io::Read::take(handle, MAX_IGNORE_FILE));
        for line in reader.lines() {
            let Ok(line) = line else { break };
            any |= builder.add_line(None, &line).is_ok();
        }
    }
    if !any {
        return None;
    }
    builder.build().ok()
}

/// Options that open a file for reading without blocking: a FIFO opens at once (and is then
/// refused by type), a terminal does not become the controlling one.
pub(crate) fn open_options_nonblocking() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true).maybe_dir(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
        options.custom_flags(flags.bits() as i32);
    }
    options
}
