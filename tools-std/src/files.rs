//! Files, confined to the [`Workspace`]: read, list, inspect, search, find,
//! write (atomically), edit (with a diff), create directories, delete.
//!
//! Every access goes through the workspace's directory handle: a path is checked for its
//! form (no `..`, not absolute), then resolved beneath the root by the kernel (`openat2` with
//! `RESOLVE_BENEATH`, through `cap-std`), so a symbolic link or a directory swapped for one
//! while a tool runs cannot lead outside. Only regular files and directories are opened;
//! FIFOs, sockets and devices are refused without blocking. Files with more than one hard
//! link are not read (the other link may be outside the workspace, where no path check can
//! see it); writing to one replaces the link atomically and never writes through it.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::num::{NonZeroU32, NonZeroU64};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_fs_ext::DirExt;
use cap_std::fs::{Dir, OpenOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwright_runtime::file_change::{ApprovedChange, FileChange};
use toolwright_runtime::{ApprovalNeed, Json, Preview, ToolContext, ToolError, tool};

use crate::names::{count, escape, escape_line};
use crate::walk::{Kind, Step, WalkOptions, open_options_nonblocking, walk};
use crate::{PathError, Workspace, workspace};

/// How much of a file is sniffed for NUL bytes to tell binary from text.
const SNIFF_BYTES: usize = 8192;
/// Longest line `search_files` prints whole.
const MAX_MATCH_LINE: usize = 300;
/// Deepest `list_directory` goes.
const MAX_DEPTH: u32 = 10;
/// How many lines a loop reads between looks at the call's cancellation.
const CANCEL_CHECK_LINES: u64 = 1024;
/// Read buffer: large enough for few system calls, small enough to keep memory bounded.
const READ_BUFFER: usize = 64 * 1024;

/// `relative` as the cap-std calls take it: `.` for the root itself.
fn in_root(relative: &Path) -> &Path {
    if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    }
}

/// The directory part of `relative` (empty for the root) and its last name.
fn split_parent(relative: &Path) -> Option<(&Path, OsString)> {
    let name = relative.file_name()?.to_os_string();
    Some((relative.parent().unwrap_or(Path::new("")), name))
}

/// `relative` as the tools print it: `.` for the root, control characters escaped.
fn display(relative: &Path) -> String {
    if relative.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        escape(relative.as_os_str())
    }
}

fn io_error(relative: &Path, action: &str, error: std::io::Error) -> ToolError {
    ToolError::new(format!("cannot {action} `{}`: {error}", display(relative)))
}

fn cancelled(ctx: &ToolContext, what: &str) -> ToolError {
    ToolError::new(format!("{what} (call `{}`) was cancelled", ctx.call_id()))
}

/// Whether the start of a file looks binary.
fn looks_binary(start: &[u8]) -> bool {
    start.contains(&0)
}

/// A regular file of the workspace, open for reading, with its metadata.
struct OpenFile {
    file: std::fs::File,
    size: u64,
}

/// Opens the regular file at `path` for reading, beneath the root, without blocking.
/// Directories, FIFOs, sockets, devices and hard-linked files are refused with a message that
/// says why.
fn open_for_reading(ws: &Workspace, path: &str) -> Result<OpenFile, ToolError> {
    let relative = ws.locate(path, true)?;
    if relative.as_os_str().is_empty() {
        return Err(ToolError::new(format!(
            "`{path}` is a directory; use list_directory to see what it holds"
        )));
    }
    let file = ws
        .dir()
        .open_with(&relative, &open_options_nonblocking())
        .map_err(|error| open_error(ws, path, error))?
        .into_std();
    let metadata = file
        .metadata()
        .map_err(|e| io_error(&relative, "read", e))?;
    check_regular(path, &metadata)?;
    Ok(OpenFile {
        file,
        size: metadata.len(),
    })
}

fn open_error(ws: &Workspace, path: &str, error: std::io::Error) -> ToolError {
    // ENXIO: opening a socket; EISDIR / ENOTDIR: the wrong kind for the path.
    if error.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) {
        return not_regular(path);
    }
    ToolError::from(ws.path_error(path, error))
}

fn not_regular(path: &str) -> ToolError {
    ToolError::new(format!(
        "`{path}` is not a regular file (it is a FIFO, a socket or a device); the file tools \
         read and write regular files only"
    ))
}

/// Refuses what is not a regular file, and (on Unix) a file with more than one hard link.
fn check_regular(path: &str, metadata: &std::fs::Metadata) -> Result<(), ToolError> {
    if metadata.is_dir() {
        return Err(ToolError::new(format!(
            "`{path}` is a directory; use list_directory to see what it holds"
        )));
    }
    if !metadata.is_file() {
        return Err(not_regular(path));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if metadata.nlink() > 1 {
            return Err(ToolError::new(format!(
                "`{path}` has {} hard links, and another link may be outside the workspace, so \
                 it is not read; write_file with `overwrite: true` replaces this link with a \
                 file of its own",
                metadata.nlink()
            )));
        }
    }
    Ok(())
}

/// How one line was read by [`read_line_capped`].
#[derive(Debug, Clone, Copy)]
struct LineRead {
    /// Bytes of the line consumed from the reader (0 at the end of the file).
    consumed: u64,
    /// Whether the whole line (through its `\n`, or the end of the file) was consumed.
    complete: bool,
}

/// Reads one line, through its `\n`, keeping at most `cap` bytes of it in `line` and
/// discarding the rest, so memory stays bounded whatever the file holds. With `finish` false
/// it stops once `cap` bytes are kept, leaving the rest of the line unread.
fn read_line_capped(
    reader: &mut impl BufRead,
    cap: usize,
    finish: bool,
    line: &mut Vec<u8>,
) -> std::io::Result<LineRead> {
    line.clear();
    let mut consumed = 0_u64;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(LineRead {
                consumed,
                complete: true,
            });
        }
        let (length, ends) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        let take = if finish { length } else { length.min(room) };
        line.extend_from_slice(&available[..length.min(room)]);
        reader.consume(take);
        consumed += take as u64;
        if take == length && ends {
            return Ok(LineRead {
                consumed,
                complete: true,
            });
        }
        if !finish && line.len() >= cap {
            return Ok(LineRead {
                consumed,
                complete: false,
            });
        }
    }
}

/// The UTF-8 text of `bytes`; a character cut at the end (by a cap) is dropped.
fn utf8_prefix(bytes: &[u8], cut: bool) -> Option<&str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(error) if cut && error.error_len().is_none() => {
            std::str::from_utf8(&bytes[..error.valid_up_to()]).ok()
        }
        Err(_) => None,
    }
}

/// Read a UTF-8 text file in the workspace. Returns the text as is. Large files are cut at a
/// byte limit with a note saying how to read on (use `offset` and `limit` to page through
/// lines); a line longer than the limit is shown cut, with a marker. Binary files, FIFOs,
/// devices and hard-linked files are refused.
#[tool(categories(filesystem), tags("files", "read"))]
pub fn read_file(
    ctx: &ToolContext,
    /// Path relative to the workspace root
    path: String,
    /// First line to return, counting from 1 as `search_files` and the notes of this tool
    /// number lines (default 1)
    offset: Option<NonZeroU64>,
    /// Most lines to return, at least 1 (default: as many as fit in the byte limit)
    limit: Option<NonZeroU64>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let opened = open_for_reading(ws, &path)?;
    let size = opened.size;
    let mut reader = BufReader::with_capacity(READ_BUFFER, opened.file);
    let sniff = reader.fill_buf().map_err(|e| read_error(&path, e))?;
    if looks_binary(&sniff[..sniff.len().min(SNIFF_BYTES)]) {
        return Err(ToolError::new(format!(
            "`{path}` is a binary file ({}); read_file returns text only (file_info describes it)",
            count(size, "byte", "bytes")
        )));
    }
    let not_utf8 = || {
        ToolError::new(format!(
            "`{path}` is not UTF-8 text ({}); read_file returns text only",
            count(size, "byte", "bytes")
        ))
    };
    let first = offset.map_or(1, NonZeroU64::get);
    let limit = limit.map(NonZeroU64::get);
    let budget = usize::try_from(ws.read_limit()).unwrap_or(usize::MAX);
    let mut out = String::new();
    let mut shown = 0_u64;
    let mut line_number = 0_u64;
    let mut more = false;
    let mut cut_note = None;
    let mut line = Vec::new();
    loop {
        if line_number.is_multiple_of(CANCEL_CHECK_LINES) && ctx.is_cancelled() {
            return Err(cancelled(ctx, "read_file"));
        }
        let skipping = line_number + 1 < first;
        if !skipping && out.len() >= budget {
            // The budget is spent: say so only if there is more to read.
            more = !reader
                .fill_buf()
                .map_err(|e| read_error(&path, e))?
                .is_empty();
            break;
        }
        // Lines before `offset` are skipped without keeping a byte of them.
        let cap = if skipping { 0 } else { budget - out.len() };
        let read = read_line_capped(&mut reader, cap, skipping, &mut line)
            .map_err(|e| read_error(&path, e))?;
        if read.consumed == 0 {
            break;
        }
        line_number += 1;
        if skipping {
            continue;
        }
        if limit.is_some_and(|limit| shown >= limit) {
            more = true;
            break;
        }
        if !read.complete {
            // Longer than what is left of the budget: shown cut when it is the first line,
            // otherwise left for the next call.
            if shown > 0 {
                more = true;
                break;
            }
            let text = utf8_prefix(&line, true).ok_or_else(not_utf8)?;
            out.push_str(text);
            shown = 1;
            cut_note = Some(format!(
                "\n[line {line_number} is longer than {} and was cut here; call \
                 read_file with offset={} to read the lines after it, or use search_files to \
                 find text in it]",
                count(budget, "byte", "bytes"),
                line_number + 1
            ));
            break;
        }
        let text = utf8_prefix(&line, false).ok_or_else(not_utf8)?;
        out.push_str(text);
        shown += 1;
    }
    if line_number < first && first > 1 {
        return Err(ToolError::new(format!(
            "`{path}` has {}; offset {first} is past the end",
            count(line_number, "line", "lines")
        )));
    }
    if let Some(note) = cut_note {
        out.push_str(&note);
    } else if more {
        let last = first + shown.saturating_sub(1);
        let showing = if last == first {
            format!("line {first}")
        } else {
            format!("lines {first}-{last}")
        };
        out.push_str(&format!(
            "\n[showing {showing}; the file continues: call read_file with offset={} to read on]",
            last + 1
        ));
    }
    Ok(out)
}

fn read_error(path: &str, error: std::io::Error) -> ToolError {
    ToolError::new(format!("cannot read `{path}`: {error}"))
}

/// Opens the directory at `path` beneath the root, with its checked relative path.
fn open_directory(ws: &Workspace, path: &str) -> Result<(Dir, PathBuf), ToolError> {
    let relative = ws.locate(path, true)?;
    let at = in_root(&relative);
    match ws.dir().open_dir(at) {
        Ok(dir) => Ok((dir, relative)),
        Err(error) if error.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) => {
            Err(ToolError::new(format!(
                "`{path}` is a file, not a directory; use read_file or file_info"
            )))
        }
        Err(error) => Err(ws.path_error(path, error).into()),
    }
}

/// List a directory of the workspace: one entry per line, directories ending in `/`, files
/// with their size. Files ignored by `.gitignore` (the first 1,000 rules of each ignore file,
/// 10,000 in all) and hidden files are left out unless asked for. Names with control
/// characters are shown escaped (`\n`).
#[tool(categories(filesystem), tags("files", "list"))]
pub fn list_directory(
    ctx: &ToolContext,
    /// Directory relative to the workspace root (default: the root)
    path: Option<String>,
    /// How many levels to descend, at least 1 (default 1: just the directory's entries); at
    /// most 10, a larger depth counts as 10
    depth: Option<NonZeroU32>,
    /// Include hidden files (names starting with `.`)
    include_hidden: Option<bool>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let path = path.unwrap_or_else(|| ".".to_owned());
    let (dir, base) = open_directory(ws, &path)?;
    let depth = depth.map_or(1, NonZeroU32::get).min(MAX_DEPTH) as usize;
    let limit = ws.entry_limit();
    let mut lines = Vec::new();
    let mut more = 0_usize;
    let options = WalkOptions {
        max_depth: Some(depth),
        hidden: include_hidden.unwrap_or(false),
        respect_ignores: true,
    };
    let walked = walk(&dir, options, &|| ctx.is_cancelled(), &mut |entry| {
        if lines.len() >= limit {
            more += 1;
            return Step::Continue;
        }
        let shown = display(&base.join(entry.relative));
        lines.push(match entry.kind {
            Kind::Dir => format!("{shown}/"),
            Kind::Symlink => format!("{shown} (symbolic link)"),
            Kind::Other => format!("{shown} (FIFO, socket or device)"),
            Kind::File => {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                format!("{shown} ({})", count(size, "byte", "bytes"))
            }
        });
        Step::Continue
    });
    if walked.is_err() {
        return Err(cancelled(ctx, "list_directory"));
    }
    if lines.is_empty() {
        return Ok(format!("`{path}` is empty"));
    }
    if more > 0 {
        lines.push(format!(
            "[... and {more} more {}: list a subdirectory or lower the depth]",
            if more == 1 { "entry" } else { "entries" }
        ));
    }
    Ok(lines.join("\n"))
}

/// What `file_info` reports.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FileInfo {
    /// The path, relative to the workspace root.
    pub path: String,
    /// `file`, `directory`, `symlink`, or `special` (a FIFO, socket or device).
    pub kind: String,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time, RFC 3339.
    pub modified: Option<String>,
    /// Whether the file is read-only.
    pub readonly: bool,
    /// Whether the file looks like text (regular files with one link only).
    pub text: Option<bool>,
}

/// Describe a file or directory in the workspace: kind, size, modification time, whether it
/// is read-only and whether it is text.
#[tool(categories(filesystem), tags("files"))]
pub fn file_info(
    ctx: &ToolContext,
    /// Path relative to the workspace root
    path: String,
) -> Result<Json<FileInfo>, ToolError> {
    let ws = workspace(ctx)?;
    let link = ws
        .locate(&path, false)
        .ok()
        .filter(|at| !at.as_os_str().is_empty())
        .and_then(|at| ws.dir().symlink_metadata(at).ok());
    let relative = ws.locate(&path, true)?;
    let at = in_root(&relative);
    let metadata = ws
        .dir()
        .metadata(at)
        .map_err(|e| ToolError::from(ws.path_error(&path, e)))?;
    let kind = if link.is_some_and(|m| m.file_type().is_symlink()) {
        "symlink"
    } else if metadata.is_dir() {
        "directory"
    } else if metadata.is_file() {
        "file"
    } else {
        "special"
    };
    let modified = metadata
        .modified()
        .ok()
        .map(cap_std::time::SystemTime::into_std)
        .and_then(|time| jiff::Timestamp::try_from(time).ok())
        .map(|time| time.to_string());
    let text = if metadata.is_file() {
        open_for_reading(ws, &path).ok().map(|mut opened| {
            let mut start = vec![0; SNIFF_BYTES];
            let read = read_up_to(&mut opened.file, &mut start).unwrap_or(0);
            !looks_binary(&start[..read]) && utf8_prefix(&start[..read], true).is_some()
        })
    } else {
        None
    };
    Ok(Json(FileInfo {
        // Located with its links resolved: the path of what was described.
        path: display(&relative),
        kind: kind.to_owned(),
        size: metadata.len(),
        modified,
        readonly: metadata.permissions().readonly(),
        text,
    }))
}

/// Reads until `buffer` is full or the file ends; returns how much was read.
fn read_up_to(file: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Search file contents in the workspace with a regular expression (Rust `regex` syntax).
/// Returns `path:line: text` for each matching line (names with control characters escaped).
/// Respects `.gitignore` (the first 1,000 rules of each ignore file, 10,000 in all); skips
/// binary, special and hard-linked files; matches each line on
/// its first bytes up to the read limit; stops at a match limit.
#[tool(categories(filesystem), tags("files", "search"))]
pub fn search_files(
    ctx: &ToolContext,
    /// Regular expression to look for, e.g. `fn main` or `TODO|FIXME`
    pattern: String,
    /// Directory or file to search, relative to the root (default: the root)
    path: Option<String>,
    /// Only files whose path matches this glob, e.g. `*.rs` or `src/**/*.toml`
    glob: Option<String>,
    /// Ignore case
    case_insensitive: Option<bool>,
    /// Most matches to return, at least 1 (default and maximum: the workspace's limit; a
    /// larger number counts as the limit)
    max_matches: Option<NonZeroU32>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let path = path.unwrap_or_else(|| ".".to_owned());
    let regex = regex::bytes::RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive.unwrap_or(false))
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ToolError::new(format!("`pattern` is not a valid regular expression: {e}")))?;
    let filter = glob.as_deref().map(compile_glob).transpose()?;
    let mut search = Search {
        ctx,
        regex,
        limit: max_matches.map_or(ws.match_limit(), |m| {
            (m.get() as usize).min(ws.match_limit())
        }),
        budget: usize::try_from(ws.read_limit()).unwrap_or(usize::MAX),
        out: String::new(),
        matches: 0,
        stopped: false,
        cancelled: false,
        line: Vec::new(),
    };
    let relative = ws.locate(&path, true)?;
    let is_file = !relative.as_os_str().is_empty()
        && ws
            .dir()
            .metadata(&relative)
            .map_err(|e| ToolError::from(ws.path_error(&path, e)))?
            .is_file();
    if is_file {
        // One file: searched as named, whatever the ignore files say.
        let opened = open_for_reading(ws, &path)?;
        search.file(&display(&relative), opened.file);
    } else {
        let (dir, base) = open_directory(ws, &path)?;
        let options = WalkOptions {
            max_depth: None,
            hidden: false,
            respect_ignores: true,
        };
        let walked = walk(&dir, options, &|| ctx.is_cancelled(), &mut |entry| {
            if entry.kind != Kind::File {
                return Step::Continue;
            }
            let full = base.join(entry.relative);
            if filter.as_ref().is_some_and(|glob| !glob.is_match(&full)) {
                return Step::Continue;
            }
            let Some(file) = open_entry(entry.parent, entry.name) else {
                return Step::Continue;
            };
            search.file(&display(&full), file)
        });
        search.cancelled |= walked.is_err();
    }
    if search.cancelled {
        return Err(cancelled(ctx, "search_files"));
    }
    if search.matches == 0 {
        return Ok(format!("no matches for `{pattern}` in `{path}`"));
    }
    let mut out = search.out;
    if search.stopped {
        out.push_str(&format!(
            "[stopped after {}: narrow the pattern, the path or the glob]\n",
            count(search.matches, "match", "matches")
        ));
    }
    Ok(out)
}

/// A regular file with a single link, opened through its directory's handle without
/// following a link; `None` for anything else.
fn open_entry(parent: &Dir, name: &OsStr) -> Option<std::fs::File> {
    let mut options = open_options_nonblocking();
    cap_fs_ext::OpenOptionsFollowExt::follow(&mut options, cap_fs_ext::FollowSymlinks::No);
    let file = parent.open_with(name, &options).ok()?.into_std();
    let metadata = file.metadata().ok()?;
    check_regular("", &metadata).ok()?;
    Some(file)
}

/// The state of one `search_files` call.
struct Search<'a> {
    ctx: &'a ToolContext,
    regex: regex::bytes::Regex,
    limit: usize,
    budget: usize,
    out: String,
    matches: usize,
    stopped: bool,
    cancelled: bool,
    line: Vec<u8>,
}

impl Search<'_> {
    /// Searches one file line by line, keeping at most `budget` bytes of any line.
    fn file(&mut self, shown_path: &str, file: std::fs::File) -> Step {
        let mut reader = BufReader::with_capacity(READ_BUFFER, file);
        match reader.fill_buf() {
            Ok(start) if !looks_binary(&start[..start.len().min(SNIFF_BYTES)]) => {}
            _ => return Step::Continue,
        }
        let mut number = 0_u64;
        loop {
            if number.is_multiple_of(CANCEL_CHECK_LINES) && self.ctx.is_cancelled() {
                self.cancelled = true;
                return Step::Stop;
            }
            let Ok(read) = read_line_capped(&mut reader, self.budget, true, &mut self.line) else {
                return Step::Continue;
            };
            if read.consumed == 0 {
                return Step::Continue;
            }
            number += 1;
            let mut text = self.line.as_slice();
            while let [rest @ .., b'\n' | b'\r'] = text {
                text = rest;
            }
            if !self.regex.is_match(text) {
                continue;
            }
            if self.matches >= self.limit || self.out.len() >= self.budget {
                self.stopped = true;
                return Step::Stop;
            }
            let cut_by_cap = read.consumed as usize > self.line.len();
            let lossy = String::from_utf8_lossy(text);
            let mut shown = escape_line(&lossy, MAX_MATCH_LINE);
            if shown.1 || cut_by_cap {
                shown.0.push_str(" [line cut]");
            }
            self.out
                .push_str(&format!("{shown_path}:{number}: {}\n", shown.0));
            self.matches += 1;
        }
    }
}

fn compile_glob(glob: &str) -> Result<globset::GlobMatcher, ToolError> {
    globset::GlobBuilder::new(glob)
        .literal_separator(false)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| ToolError::new(format!("`{glob}` is not a valid glob: {e}")))
}

/// Find files in the workspace whose path matches a glob (`*.rs`, `src/**/mod.rs`,
/// `**/*test*`). Returns one path per line (names with control characters escaped).
/// Respects `.gitignore` (the first 1,000 rules of each ignore file, 10,000 in all).
#[tool(categories(filesystem), tags("files", "search"))]
pub fn find_files(
    ctx: &ToolContext,
    /// Glob to match against paths relative to the root, e.g. `**/*.md`
    pattern: String,
    /// Directory to search, relative to the root (default: the root)
    path: Option<String>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let path = path.unwrap_or_else(|| ".".to_owned());
    let (dir, base) = open_directory(ws, &path)?;
    let matcher = compile_glob(&pattern)?;
    let file_name_only = !pattern.contains('/');
    let limit = ws.entry_limit();
    let mut found = Vec::new();
    let mut more = 0_usize;
    let options = WalkOptions {
        max_depth: None,
        hidden: false,
        respect_ignores: true,
    };
    let walked = walk(&dir, options, &|| ctx.is_cancelled(), &mut |entry| {
        if entry.kind == Kind::Dir {
            return Step::Continue;
        }
        let full = base.join(entry.relative);
        if matcher.is_match(&full) || (file_name_only && matcher.is_match(entry.name)) {
            if found.len() < limit {
                found.push(display(&full));
            } else {
                more += 1;
            }
        }
        Step::Continue
    });
    if walked.is_err() {
        return Err(cancelled(ctx, "find_files"));
    }
    if found.is_empty() {
        return Ok(format!("no files match `{pattern}` in `{path}`"));
    }
    if more > 0 {
        found.push(format!("[... and {more} more: use a narrower pattern]"));
    }
    Ok(found.join("\n"))
}

/// Where a write lands: the directory that holds the file, opened beneath the root, and the
/// file's name in it.
struct WriteTarget {
    parent: Dir,
    name: OsString,
    /// The path relative to the root, for messages.
    relative: PathBuf,
}

/// Resolves the file `path` names for writing. A symbolic link inside the workspace is
/// followed to its target (beneath the root); its parent directory is opened (created first
/// when `create_parents`), and everything after happens relative to that handle.
fn write_target(
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
fn through_link(ws: &Workspace, path: &str, resolved: &Path) -> Result<Option<String>, ToolError> {
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
fn link_note(link: Option<&str>) -> String {
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

/// The whole text of a regular file, up to the write limit.
fn read_text(ws: &Workspace, path: &str) -> Result<String, ToolError> {
    let opened = open_for_reading(ws, path)?;
    text_of(ws, path, opened)
}

/// The whole text of the file `target` resolved to, opened through its directory handle by
/// its final name without following a link there: the file the preview showed is the one
/// read, whatever was swapped in between.
fn read_text_at(ws: &Workspace, path: &str, target: &WriteTarget) -> Result<String, ToolError> {
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

/// A change approved hunk by hunk, applied to the file as it is now (which must be as it was
/// previewed).
struct ApprovedEdit<'a> {
    approved: &'a ApprovedChange,
    old: String,
    new: String,
}

/// The text to write when a person approved the call's previewed change: the accepted hunks
/// applied to the file's current text, or an error (writing nothing) when the file changed
/// since the preview. `None` when no change was approved (the call needed no approval, or
/// the approver rewrote its arguments).
fn approved_edit<'a>(
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
fn unchanged_since_approval(
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

fn is_stale(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::Other && error.to_string() == STALE
}

fn stale(path: &str) -> ToolError {
    toolwright_runtime::file_change::ChangeError::Stale {
        path: path.to_owned(),
    }
    .into()
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

#[cfg(test)]
mod tests {
    use super::*;
    use cap_std::ambient_authority;

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

    #[test]
    fn long_lines_are_read_with_bounded_memory() {
        let text = format!("{}\nshort\n", "x".repeat(100_000));
        let mut reader = BufReader::with_capacity(1024, text.as_bytes());
        let mut line = Vec::new();
        let read = read_line_capped(&mut reader, 10, true, &mut line).unwrap();
        assert_eq!(
            (read.consumed, read.complete, line.len()),
            (100_001, true, 10)
        );
        let read = read_line_capped(&mut reader, 10, true, &mut line).unwrap();
        assert_eq!((read.consumed, line.as_slice()), (6, b"short\n".as_slice()));
        let mut reader = BufReader::with_capacity(1024, text.as_bytes());
        let read = read_line_capped(&mut reader, 10, false, &mut line).unwrap();
        assert_eq!((read.consumed, read.complete, line.len()), (10, false, 10));
    }

    #[test]
    fn a_character_cut_by_the_cap_is_dropped() {
        let bytes = "aé".as_bytes();
        assert_eq!(utf8_prefix(&bytes[..2], true), Some("a"));
        assert_eq!(utf8_prefix(&bytes[..2], false), None);
        assert_eq!(utf8_prefix(b"a\xffb", true), None);
    }
}
