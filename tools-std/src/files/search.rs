//! Listing and searching: `list_directory`, `search_files` and `find_files`.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::num::NonZeroU32;

use cap_std::fs::Dir;
use toolwright_core::{ToolContext, ToolError, tool};

use super::access::{
    CANCEL_CHECK_LINES, READ_BUFFER, SNIFF_BYTES, cancelled, check_regular, display, looks_binary,
    open_directory, open_for_reading, read_line_capped,
};
use crate::names::{count, escape_line};
use crate::walk::{Kind, Step, WalkOptions, open_options_nonblocking, walk};
use crate::workspace::workspace;

/// Longest line `search_files` prints whole.
const MAX_MATCH_LINE: usize = 300;
/// Deepest `list_directory` goes.
const MAX_DEPTH: u32 = 10;

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
