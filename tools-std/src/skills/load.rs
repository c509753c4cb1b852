//! Reading a directory of skills through directory handles: finding the folders that hold a
//! `SKILL.md`, and reading each one's files beneath its own folder, within the limits.

use std::collections::BTreeSet;
use std::io::Read;
use std::sync::Arc;

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;
use sha2::{Digest, Sha256};

use super::frontmatter::{self, Frontmatter};
use crate::mime;
use crate::walk::open_options_nonblocking;

/// The file that makes a folder a skill.
pub(super) const SKILL_MD: &str = "SKILL.md";

/// Limits of a load; see [`super::SkillLimits`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) file_bytes: u64,
    pub(super) skill_bytes: u64,
    pub(super) skill_files: usize,
    pub(super) total_bytes: u64,
    pub(super) skills: usize,
    pub(super) depth: usize,
    pub(super) entries: usize,
}

/// One file of a skill, read.
#[derive(Debug, Clone)]
pub(super) struct File {
    /// Its path inside the skill's folder, `/`-separated.
    pub(super) relative: String,
    pub(super) bytes: Arc<[u8]>,
    pub(super) mime: &'static str,
    /// `sha256:` and 64 lowercase hex digits.
    pub(super) digest: String,
}

/// One skill, read.
#[derive(Debug, Clone)]
pub(super) struct Loaded {
    /// The folder's path from the skills directory, one name per segment.
    pub(super) path: Vec<String>,
    pub(super) frontmatter: Frontmatter,
    /// `SKILL.md` first, then the rest by path.
    pub(super) files: Vec<File>,
}

/// What was left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    /// The path from the skills directory.
    pub(super) path: String,
    pub(super) reason: String,
    /// Whether the whole skill was left out (otherwise only this entry).
    pub(super) skill_skipped: bool,
}

/// Every skill below `root`, and what was left out.
pub(super) fn load(root: &Dir, limits: Limits) -> (Vec<Loaded>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut folders = Vec::new();
    let mut seen = 0;
    find(
        root,
        &mut Vec::new(),
        0,
        limits,
        &mut seen,
        &mut folders,
        &mut problems,
    );
    let folder_set: BTreeSet<Vec<String>> = folders.iter().cloned().collect();
    let mut skills = Vec::new();
    let mut total = 0_u64;
    for path in folders {
        let shown = path.join("/");
        if path.is_empty() {
            problems.push(skipped(
                SKILL_MD,
                "a SKILL.md at the top of the skills directory is not a skill: each skill is a \
                 folder of its own (move it into `<name>/SKILL.md`)",
            ));
            continue;
        }
        if skills.len() == limits.skills {
            problems.push(skipped(
                &shown,
                &format!("more than {} skills; the rest are left out", limits.skills),
            ));
            continue;
        }
        match read_skill(root, &path, &folder_set, limits, &mut problems) {
            Ok(skill) => {
                let bytes: u64 = skill.files.iter().map(|f| f.bytes.len() as u64).sum();
                if total + bytes > limits.total_bytes {
                    problems.push(skipped(
                        &shown,
                        &format!(
                            "the skills together would hold more than {} bytes",
                            limits.total_bytes
                        ),
                    ));
                    continue;
                }
                total += bytes;
                skills.push(skill);
            }
            Err(reason) => problems.push(skipped(&shown, &reason)),
        }
    }
    (skills, problems)
}

fn skipped(path: &str, reason: &str) -> Problem {
    Problem {
        path: path.to_owned(),
        reason: reason.to_owned(),
        skill_skipped: true,
    }
}

fn left_out(path: String, reason: &str) -> Problem {
    Problem {
        path,
        reason: reason.to_owned(),
        skill_skipped: false,
    }
}

/// The names in `dir`, sorted, hidden ones (`.git`, `.DS_Store`) left out; a name that is not
/// UTF-8 is reported (a URI cannot name it faithfully).
fn names(dir: &Dir, at: &[String], problems: &mut Vec<Problem>) -> Vec<(String, bool, bool)> {
    let Ok(entries) = dir.entries() else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        match entry.file_name().into_string() {
            Ok(name) if name.starts_with('.') => {}
            Ok(name) if name.chars().any(char::is_control) => problems.push(left_out(
                join(at, &name.escape_debug().to_string()),
                "the name holds a control character; left out",
            )),
            Ok(name) => names.push((name, kind.is_dir(), kind.is_symlink())),
            Err(name) => problems.push(left_out(
                join(at, &name.to_string_lossy()),
                "the name is not UTF-8, so no URI can name it",
            )),
        }
    }
    names.sort();
    names
}

fn join(at: &[String], name: &str) -> String {
    let mut parts = at.to_vec();
    parts.push(name.to_owned());
    parts.join("/")
}

/// Collects the folders (paths from the root) that hold a `SKILL.md`, depth first. Directories
/// are opened without following links, so a link to a directory is never walked into.
#[allow(clippy::too_many_arguments)] // one recursive walk; a struct would only rename them
fn find(
    dir: &Dir,
    at: &mut Vec<String>,
    depth: usize,
    limits: Limits,
    seen: &mut usize,
    folders: &mut Vec<Vec<String>>,
    problems: &mut Vec<Problem>,
) {
    let entries = names(dir, at, problems);
    if entries.iter().any(|(name, _, _)| name == SKILL_MD) {
        folders.push(at.clone());
    }
    for (name, is_dir, is_link) in entries {
        *seen += 1;
        if *seen > limits.entries {
            // Reported once, where the walk stopped; every level above stops too.
            if *seen == limits.entries + 1 {
                problems.push(left_out(
                    at.join("/"),
                    &format!(
                        "more than {} entries under the skills directory; the rest are not \
                         looked at",
                        limits.entries
                    ),
                ));
            }
            return;
        }
        if is_link && name != SKILL_MD {
            // Links are looked at only inside a skill, beneath its folder.
            continue;
        }
        if !is_dir {
            continue;
        }
        if depth + 1 >= limits.depth {
            problems.push(left_out(
                join(at, &name),
                &format!("deeper than {} folders; not looked into", limits.depth),
            ));
            continue;
        }
        let Ok(child) = dir.open_dir_nofollow(&name) else {
            continue;
        };
        at.push(name);
        find(&child, at, depth + 1, limits, seen, folders, problems);
        at.pop();
    }
}

/// Opens the folder at `path` from `root`, one name at a time without following links, so a
/// folder swapped for a link since the walk is not entered.
fn open_folder(root: &Dir, path: &[String]) -> std::io::Result<Dir> {
    let mut dir = root.open_dir(".")?;
    for name in path {
        dir = dir.open_dir_nofollow(name)?;
    }
    Ok(dir)
}

/// Reads the skill in the folder at `path`: its `SKILL.md` (frontmatter checked) and every
/// other file beneath the folder, nested skills' folders left to them.
fn read_skill(
    root: &Dir,
    path: &[String],
    skill_folders: &BTreeSet<Vec<String>>,
    limits: Limits,
    problems: &mut Vec<Problem>,
) -> Result<Loaded, String> {
    let folder = open_folder(root, path).map_err(|e| format!("cannot open the folder: {e}"))?;
    let mut listed = Vec::new();
    let mut walk = FileWalk {
        skill: path,
        skill_folders,
        limits,
        problems,
        listed: &mut listed,
        seen: 0,
    };
    walk.collect(&folder, &mut Vec::new(), 0)?;
    let mut files = Vec::new();
    let mut bytes = 0_u64;
    for relative in listed {
        let Some(file) = read_file(&folder, &relative, path, limits, problems)? else {
            continue;
        };
        bytes += file.bytes.len() as u64;
        if bytes > limits.skill_bytes {
            return Err(format!(
                "its files hold more than {} bytes (the limit per skill)",
                limits.skill_bytes
            ));
        }
        files.push(file);
    }
    let Some(at) = files.iter().position(|f| f.relative == SKILL_MD) else {
        return Err("its SKILL.md is not a regular file of the folder".to_owned());
    };
    let manifest = files.remove(at);
    let frontmatter = frontmatter::parse(&manifest.bytes)?;
    let folder_name = path.last().map_or("", String::as_str);
    frontmatter::check_name(&frontmatter.name, folder_name)?;
    files.insert(0, manifest);
    Ok(Loaded {
        path: path.to_vec(),
        frontmatter,
        files,
    })
}

/// The walk over one skill's folder, listing the paths of its files.
struct FileWalk<'a> {
    skill: &'a [String],
    skill_folders: &'a BTreeSet<Vec<String>>,
    limits: Limits,
    problems: &'a mut Vec<Problem>,
    listed: &'a mut Vec<String>,
    /// Entries looked at so far, files and folders.
    seen: usize,
}

impl FileWalk<'_> {
    fn collect(&mut self, dir: &Dir, at: &mut Vec<String>, depth: usize) -> Result<(), String> {
        let mut here: Vec<String> = self.skill.to_vec();
        here.extend(at.iter().cloned());
        for (name, is_dir, _) in names(dir, &here, self.problems) {
            self.seen += 1;
            if self.seen > self.limits.entries {
                return Err(format!(
                    "its folder holds more than {} entries",
                    self.limits.entries
                ));
            }
            at.push(name.clone());
            let relative = at.join("/");
            if is_dir {
                let mut full = self.skill.to_vec();
                full.extend(at.iter().cloned());
                // A nested skill's files are its own, not its parent's.
                if !self.skill_folders.contains(&full) {
                    if depth + 1 >= self.limits.depth {
                        return Err(format!(
                            "`{relative}` is deeper than {} folders",
                            self.limits.depth
                        ));
                    }
                    let child = dir
                        .open_dir_nofollow(&name)
                        .map_err(|e| format!("cannot open `{relative}`: {e}"))?;
                    self.collect(&child, at, depth + 1)?;
                }
            } else {
                if self.listed.len() == self.limits.skill_files {
                    return Err(format!(
                        "it has more than {} files (the limit per skill)",
                        self.limits.skill_files
                    ));
                }
                self.listed.push(relative);
            }
            at.pop();
        }
        Ok(())
    }
}

/// Reads the file at `relative` beneath the skill's `folder`: the kernel resolves it beneath
/// that handle (`openat2` with `RESOLVE_BENEATH` through cap-std), so a link inside the folder
/// is followed and one that leads out of it fails to open. `Ok(None)` when the entry is left
/// out (a link out, a directory link, a special or hard-linked file), reported; `Err` when the
/// whole skill must be (a file over the limit, or a `SKILL.md` that cannot be read).
fn read_file(
    folder: &Dir,
    relative: &str,
    skill: &[String],
    limits: Limits,
    problems: &mut Vec<Problem>,
) -> Result<Option<File>, String> {
    let shown = join(skill, relative);
    let is_manifest = relative == SKILL_MD;
    let leave_out = |problems: &mut Vec<Problem>, reason: &str| {
        if is_manifest {
            Err(format!("its SKILL.md {reason}"))
        } else {
            problems.push(left_out(shown.clone(), reason));
            Ok(None)
        }
    };
    let file = match folder.open_with(relative, &open_options_nonblocking()) {
        Ok(file) => file.into_std(),
        Err(error) if is_escape(&error) => {
            return leave_out(
                problems,
                "is a link that leads outside the skill's folder; left out",
            );
        }
        Err(error) => return leave_out(problems, &format!("cannot be opened: {error}")),
    };
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot inspect `{shown}`: {e}"))?;
    if metadata.is_dir() {
        return leave_out(
            problems,
            "is a link to a directory, which is not followed; left out",
        );
    }
    if !metadata.is_file() {
        return leave_out(
            problems,
            "is not a regular file (a FIFO, a socket or a device); left out",
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if metadata.nlink() > 1 {
            return leave_out(
                problems,
                "has more than one hard link (another may be outside the skills directory); left out",
            );
        }
    }
    let mut bytes = Vec::new();
    file.take(limits.file_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    if bytes.len() as u64 > limits.file_bytes {
        return Err(format!(
            "`{relative}` is larger than {} bytes (the limit per file)",
            limits.file_bytes
        ));
    }
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let text = mime::is_text(&bytes);
    Ok(Some(File {
        relative: relative.to_owned(),
        mime: mime::of(name, text),
        digest: digest(&bytes),
        bytes: bytes.into(),
    }))
}

/// Whether an open failed because the path leads outside the handle's directory.
fn is_escape(error: &std::io::Error) -> bool {
    // The kernel's `RESOLVE_BENEATH` answers EXDEV; cap-std's own resolution a
    // permission error with no OS code; a loop of links ELOOP.
    error.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error())
        || error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
        || (error.kind() == std::io::ErrorKind::PermissionDenied && error.raw_os_error().is_none())
}

/// The `sha256:` digest SEP-2640 lists a skill's files with.
pub(super) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}
