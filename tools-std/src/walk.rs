//! Walking a directory of the workspace through directory handles: each subdirectory is
//! opened beneath its parent's handle without following symbolic links, so a directory swapped
//! for a link while the walk runs cannot lead it outside the root. `.gitignore` files (and
//! `.git/info/exclude`) found on the way are honoured, as `git` would.
//!
//! Ignore files are input like any other file of the workspace, so what a walk takes from
//! them is capped, and a walk's memory stays bounded whatever they hold:
//!
//! - of each ignore file, the first 64 KiB ([`MAX_IGNORE_FILE`]) and at most 1,000 rules
//!   ([`MAX_RULES_PER_FILE`]) are read; a line longer than 4 KiB ([`MAX_RULE_LINE`]) is
//!   skipped;
//! - over a whole walk, at most 10,000 rules ([`MAX_RULES_PER_WALK`]) and 128 KiB of rule
//!   text ([`MAX_RULE_BYTES_PER_WALK`]) are taken; ignore files met after that add none;
//! - the rules of a directory compile to one regular-expression set with bounded sizes
//!   ([`SET_SIZE_LIMIT`], [`SET_CACHE_LIMIT`]); a directory whose rules do not fit adds none.
//!   (Lines are read as the `ignore` crate reads them and translated by `globset`, but not
//!   matched with its `Gitignore`: that gives each `*.ext` rule a regex of its own, with a
//!   cache of up to 10 MiB, and a few hundred rules made for it filled gigabytes.)
//!
//! Rules past these caps are ignored: files they would have left out are walked. Real ignore
//! files are far below them.
//!
//! A walk takes a check for whether it must stop (the call's cancellation, which its timeout
//! also sets) and looks at it between entries and between the rules it reads, so that a
//! cancelled call ends promptly instead of working on in the background.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};

use cap_fs_ext::{DirExt, OpenOptionsMaybeDirExt};
use cap_std::fs::{Dir, Metadata, OpenOptions};
use regex::bytes::{RegexSet, RegexSetBuilder};

/// Deepest a walk descends, whatever was asked: each level holds a directory handle open.
const MAX_WALK_DEPTH: usize = 64;
/// Largest part of an ignore file read; the rest of a larger one is ignored.
const MAX_IGNORE_FILE: u64 = 64 * 1024;
/// Most rules taken from one ignore file; later ones are ignored.
const MAX_RULES_PER_FILE: usize = 1_000;
/// Longest rule line taken; a longer one is skipped (a long glob compiles to a large
/// automaton, and no real rule is near this).
const MAX_RULE_LINE: usize = 4 * 1024;
/// Most rules one walk takes over all its ignore files.
const MAX_RULES_PER_WALK: usize = 10_000;
/// Most bytes of rule text one walk takes over all its ignore files. Compiled rules cost up to
/// about 300 bytes of memory per byte of text, so this bounds them to some 40 MB.
const MAX_RULE_BYTES_PER_WALK: usize = 128 * 1024;
/// Size limit of one directory's compiled rules; what a full ignore file compiles to fits.
const SET_SIZE_LIMIT: usize = 10 << 20;
/// Cache of the lazy DFA that matches one directory's rules: small, and one per directory
/// rather than one per rule.
const SET_CACHE_LIMIT: usize = 256 << 10;

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

/// A walk ended early because its stop check said so (the call was cancelled or timed out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the walk was interrupted")]
pub(crate) struct Interrupted;

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
///
/// `interrupted` is asked between entries and between ignore rules; once it says yes the walk
/// ends with [`Interrupted`]. A visitor's [`Step::Stop`] ends it with `Ok`.
pub(crate) fn walk(
    start: &Dir,
    options: WalkOptions,
    interrupted: &dyn Fn() -> bool,
    visit: &mut dyn FnMut(&Entry<'_>) -> Step,
) -> Result<(), Interrupted> {
    let mut walker = Walker {
        max_depth: options
            .max_depth
            .unwrap_or(MAX_WALK_DEPTH)
            .min(MAX_WALK_DEPTH),
        options,
        ignores: Vec::new(),
        budget: Budget {
            rules: MAX_RULES_PER_WALK,
            bytes: MAX_RULE_BYTES_PER_WALK,
        },
        interrupted,
        visit,
    };
    walker.dir(start, Path::new(""), 1).map(|_| ())
}

/// One walk: its limits, the ignore rules of the directories it is in, and its visitor.
struct Walker<'v> {
    max_depth: usize,
    options: WalkOptions,
    /// The rules of each directory on the way down that has any, outermost first.
    ignores: Vec<Rules>,
    /// What is left of the walk's allowance of ignore rules.
    budget: Budget,
    interrupted: &'v dyn Fn() -> bool,
    visit: &'v mut dyn FnMut(&Entry<'_>) -> Step,
}

impl Walker<'_> {
    /// `Err` once the walk must stop.
    fn check(&self) -> Result<(), Interrupted> {
        if (self.interrupted)() {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }

    /// Walks the entries of `dir` (at `relative`, `depth` levels down) with its ignore rules.
    fn dir(&mut self, dir: &Dir, relative: &Path, depth: usize) -> Result<Step, Interrupted> {
        self.check()?;
        let rules = if self.options.respect_ignores {
            self.ignore_rules(dir, relative)?
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

    fn entries(&mut self, dir: &Dir, relative: &Path, depth: usize) -> Result<Step, Interrupted> {
        let Ok(entries) = dir.entries() else {
            return Ok(Step::Continue);
        };
        let mut names: Vec<(OsString, Kind)> = Vec::new();
        for entry in entries {
            self.check()?;
            let Ok(entry) = entry else { continue };
            let kind = match entry.file_type() {
                Ok(kind) if kind.is_dir() => Kind::Dir,
                Ok(kind) if kind.is_file() => Kind::File,
                Ok(kind) if kind.is_symlink() => Kind::Symlink,
                _ => Kind::Other,
            };
            names.push((entry.file_name(), kind));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in names {
            self.check()?;
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
                return Ok(Step::Stop);
            }
            if kind == Kind::Dir && depth < self.max_depth {
                // Not following links: a directory swapped for a link since it was listed fails
                // to open here, and is skipped.
                let Ok(child) = dir.open_dir_nofollow(&name) else {
                    continue;
                };
                if self.dir(&child, &path, depth + 1)? == Step::Stop {
                    return Ok(Step::Stop);
                }
            }
        }
        Ok(Step::Continue)
    }

    /// The ignore rules a directory adds: its `.git/info/exclude` when it holds a repository,
    /// then its `.gitignore` (later rules win, so `.gitignore` overrides the exclude file, as
    /// in git). Read through the directory's handle, never by path, within the caps.
    fn ignore_rules(&mut self, dir: &Dir, relative: &Path) -> Result<Option<Rules>, Interrupted> {
        let mut patterns = Vec::new();
        let mut rules = Vec::new();
        for file in [".git/info/exclude", ".gitignore"] {
            if self.budget.is_spent() {
                break;
            }
            let Some(text) = read_ignore_file(dir, file) else {
                continue;
            };
            self.parse(&text, &mut patterns, &mut rules)?;
        }
        if patterns.is_empty() {
            return Ok(None);
        }
        self.check()?;
        // `.` matches any byte, as in globset (names may hold a newline).
        let set = RegexSetBuilder::new(&patterns)
            .dot_matches_new_line(true)
            .size_limit(SET_SIZE_LIMIT)
            .dfa_size_limit(SET_CACHE_LIMIT)
            .build();
        // Rules that do not compile within the limits are left out, as an invalid one is.
        Ok(set.ok().map(|set| Rules {
            dir: relative.to_path_buf(),
            set,
            rules,
        }))
    }

    /// Adds the rules of one ignore file's `text`, within the caps of a file and what is left
    /// of the walk's budget.
    fn parse(
        &mut self,
        text: &[u8],
        patterns: &mut Vec<String>,
        rules: &mut Vec<Rule>,
    ) -> Result<(), Interrupted> {
        let mut taken = 0;
        for (number, line) in text.split(|&byte| byte == b'\n').enumerate() {
            if taken == MAX_RULES_PER_FILE || self.budget.is_spent() {
                break;
            }
            self.check()?;
            if line.len() > MAX_RULE_LINE {
                continue;
            }
            let Ok(line) = std::str::from_utf8(line) else {
                continue;
            };
            let line = line.strip_suffix('\r').unwrap_or(line);
            // Git skips a byte-order mark at the start of the file.
            let line = if number == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            let Some((pattern, rule)) = parse_rule(line) else {
                continue;
            };
            if !self.budget.take(line.len()) {
                break;
            }
            patterns.push(pattern);
            rules.push(rule);
            taken += 1;
        }
        Ok(())
    }
}

/// What is left of a walk's allowance of ignore rules.
struct Budget {
    rules: usize,
    bytes: usize,
}

impl Budget {
    fn is_spent(&self) -> bool {
        self.rules == 0 || self.bytes == 0
    }

    /// Takes one rule of `bytes` bytes; `false` (and nothing taken) when it does not fit.
    fn take(&mut self, bytes: usize) -> bool {
        if self.rules == 0 || bytes > self.bytes {
            self.bytes = 0;
            return false;
        }
        self.rules -= 1;
        self.bytes -= bytes;
        true
    }
}

/// How one rule applies once its pattern matched.
#[derive(Debug, Clone, Copy)]
struct Rule {
    /// `!pattern`: un-ignores what an earlier rule ignored.
    whitelist: bool,
    /// `pattern/`: matches directories only.
    only_dir: bool,
}

/// The compiled ignore rules of one directory.
struct Rules {
    /// The directory, relative to the walk's start; its rules match paths relative to it.
    dir: PathBuf,
    /// One pattern per rule, in the order of the files.
    set: RegexSet,
    rules: Vec<Rule>,
}

/// Whether the deepest rule that matches `path` ignores it: the last matching rule of the
/// deepest directory that has one decides, as in git.
fn is_ignored(ignores: &[Rules], path: &Path, is_dir: bool) -> bool {
    for rules in ignores.iter().rev() {
        let Ok(inside) = path.strip_prefix(&rules.dir) else {
            continue;
        };
        let matches = rules.set.matches(inside.as_os_str().as_encoded_bytes());
        let decided = matches
            .iter()
            .rev()
            .filter_map(|index| rules.rules.get(index))
            .find(|rule| is_dir || !rule.only_dir);
        if let Some(rule) = decided {
            return !rule.whitelist;
        }
    }
    false
}

/// One line of an ignore file as a regular expression over paths relative to the file's
/// directory, with how it applies; `None` for a comment, a blank line or a glob that does not
/// parse. Follows `git help gitignore` as the `ignore` crate reads it.
fn parse_rule(line: &str) -> Option<(String, Rule)> {
    if line.starts_with('#') {
        return None;
    }
    // Trailing spaces are dropped unless escaped.
    let mut line = if line.ends_with("\\ ") {
        line
    } else {
        line.trim_end()
    };
    if line.is_empty() {
        return None;
    }
    let mut rule = Rule {
        whitelist: false,
        only_dir: false,
    };
    let mut anchored = false;
    if line.starts_with("\\!") || line.starts_with("\\#") {
        line = &line[1..];
        anchored = line.starts_with('/');
    } else {
        if let Some(rest) = line.strip_prefix('!') {
            rule.whitelist = true;
            line = rest;
        }
        // A leading slash anchors the pattern to the file's directory.
        if let Some(rest) = line.strip_prefix('/') {
            line = rest;
            anchored = true;
        }
    }
    if let Some(rest) = line.strip_suffix('/') {
        rule.only_dir = true;
        line = rest.strip_suffix('\\').unwrap_or(rest);
    }
    // Without a slash, a pattern matches at any depth.
    let mut glob = if !anchored && !line.contains('/') && !line.starts_with("**/") && line != "**" {
        format!("**/{line}")
    } else {
        line.to_owned()
    };
    // `dir/**` matches what is inside, not the directory itself.
    if glob.ends_with("/**") {
        glob.push_str("/*");
    }
    let glob = globset::GlobBuilder::new(&glob)
        .literal_separator(true)
        .backslash_escape(true)
        .allow_unclosed_class(true)
        .build()
        .ok()?;
    Some((glob.regex().to_owned(), rule))
}

/// The start of the ignore file `name` in `dir`, read through the handle: at most
/// [`MAX_IGNORE_FILE`] bytes, and the line that limit cuts left out whole (taken cut, it could
/// ignore more than it says). `None` when there is no regular file there.
fn read_ignore_file(dir: &Dir, name: &str) -> Option<Vec<u8>> {
    let handle = dir.open_with(name, &open_options_nonblocking()).ok()?;
    if !handle.metadata().is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut text = Vec::new();
    handle
        .take(MAX_IGNORE_FILE + 1)
        .read_to_end(&mut text)
        .ok()?;
    if text.len() as u64 > MAX_IGNORE_FILE {
        let end = text
            .iter()
            .take(MAX_IGNORE_FILE as usize)
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |at| at + 1);
        text.truncate(end);
    }
    Some(text)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `rules` (one ignore file at the root) ignore `path`.
    fn ignored(rules: &str, path: &str, is_dir: bool) -> bool {
        let (patterns, kinds): (Vec<_>, Vec<_>) = rules.lines().filter_map(parse_rule).unzip();
        let set = RegexSetBuilder::new(&patterns)
            .dot_matches_new_line(true)
            .build()
            .unwrap();
        let rules = Rules {
            dir: PathBuf::new(),
            set,
            rules: kinds,
        };
        is_ignored(&[rules], Path::new(path), is_dir)
    }

    #[test]
    fn rules_read_as_git_reads_them() {
        assert!(ignored("*.log", "a.log", false));
        assert!(ignored("*.log", "deep/er/a.log", false));
        assert!(!ignored("*.log", "a.txt", false));
        // Anchored to the file's directory.
        assert!(ignored("/build", "build", true));
        assert!(!ignored("/build", "src/build", true));
        // Directories only.
        assert!(ignored("target/", "target", true));
        assert!(!ignored("target/", "target", false));
        // The last matching rule wins.
        assert!(!ignored("*.log\n!keep.log", "keep.log", false));
        assert!(ignored("!keep.log\n*.log", "keep.log", false));
        // A slash inside: matched from the directory.
        assert!(ignored("doc/*.md", "doc/a.md", false));
        assert!(!ignored("doc/*.md", "x/doc/a.md", false));
        assert!(!ignored("doc/*.md", "doc/sub/a.md", false));
        // `dir/**`: what is inside, not the directory.
        assert!(ignored("out/**", "out/a/b", false));
        assert!(!ignored("out/**", "out", true));
        // Comments, escapes, trailing spaces.
        assert!(!ignored("# a.txt", "# a.txt", false));
        assert!(ignored("\\#a.txt", "#a.txt", false));
        assert!(ignored("\\!a.txt", "!a.txt", false));
        assert!(ignored("a.txt   ", "a.txt", false));
        // Names may hold any byte, a newline too.
        assert!(ignored("a*b", "a\nb", false));
        assert!(ignored("x", "a\nb/x", false));
    }

    #[test]
    fn the_budget_takes_what_fits_then_nothing() {
        let mut budget = Budget {
            rules: 2,
            bytes: 10,
        };
        assert!(budget.take(4));
        assert!(!budget.take(7));
        assert!(budget.is_spent());
        let mut budget = Budget {
            rules: 1,
            bytes: 10,
        };
        assert!(budget.take(1));
        assert!(budget.is_spent());
        assert!(!budget.take(1));
    }
}
