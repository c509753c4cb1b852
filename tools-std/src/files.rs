//! Files, confined to the [`Workspace`](crate::Workspace): read, list, inspect, search, find,
//! write (atomically), edit (with a diff), create directories, delete.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tool_runtime::{Json, ToolContext, ToolError, tool};

use crate::{Workspace, workspace};

/// How much of a file is sniffed for NUL bytes to tell binary from text.
const SNIFF_BYTES: usize = 8192;
/// Longest line `search_files` prints whole.
const MAX_MATCH_LINE: usize = 300;
/// Deepest `list_directory` goes.
const MAX_DEPTH: u32 = 10;

fn io_error(ws: &Workspace, path: &Path, action: &str, error: std::io::Error) -> ToolError {
    ToolError::new(format!("cannot {action} `{}`: {error}", ws.relative(path)))
}

/// Whether the start of a file looks binary.
fn looks_binary(start: &[u8]) -> bool {
    start.contains(&0)
}

/// Read a UTF-8 text file in the workspace. Returns the text as is. Large files are cut at a
/// byte limit with a note saying how to read on (use `offset` and `limit` to page through
/// lines). Binary files are refused.
#[tool(categories(filesystem), tags("files", "read"))]
pub fn read_file(
    ctx: &ToolContext,
    /// Path relative to the workspace root
    path: String,
    /// First line to return, counting from 1 (default 1)
    offset: Option<u64>,
    /// Most lines to return (default: as many as fit in the byte limit)
    limit: Option<u64>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let real = ws.resolve(&path)?;
    if real.is_dir() {
        return Err(ToolError::new(format!(
            "`{path}` is a directory; use list_directory to see what it holds"
        )));
    }
    let mut file = fs::File::open(&real).map_err(|e| io_error(ws, &real, "read", e))?;
    let mut start = vec![0; SNIFF_BYTES];
    let sniffed = read_up_to(&mut file, &mut start).map_err(|e| io_error(ws, &real, "read", e))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if looks_binary(&start[..sniffed]) {
        return Err(ToolError::new(format!(
            "`{path}` is a binary file ({size} bytes); read_file returns text only (file_info describes it)"
        )));
    }
    let reader = BufReader::new(std::io::Cursor::new(start[..sniffed].to_vec()).chain(file));
    let first = offset.unwrap_or(1).max(1);
    let budget = ws.read_limit();
    let mut out = String::new();
    let mut shown = 0_u64;
    let mut line_number = 0_u64;
    let mut truncated = false;
    for line in split_lines_keeping_ends(reader) {
        let line = line.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => ToolError::new(format!(
                "`{path}` is not UTF-8 text ({size} bytes); read_file returns text only"
            )),
            _ => io_error(ws, &real, "read", e),
        })?;
        line_number += 1;
        if line_number < first {
            continue;
        }
        if limit.is_some_and(|limit| shown >= limit) {
            truncated = true;
            break;
        }
        if out.len() as u64 + line.len() as u64 > budget {
            truncated = true;
            break;
        }
        out.push_str(&line);
        shown += 1;
    }
    if line_number < first && first > 1 {
        return Err(ToolError::new(format!(
            "`{path}` has {line_number} lines; offset {first} is past the end"
        )));
    }
    if truncated {
        let last = first + shown.saturating_sub(1);
        out.push_str(&format!(
            "\n[showing lines {first}-{last}; the file continues: call read_file with offset={} to read on]",
            last + 1
        ));
    }
    Ok(out)
}

/// Reads until `buffer` is full or the file ends; returns how much was read.
fn read_up_to(file: &mut fs::File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Lines with their `\n` kept (so the text reads back exactly), UTF-8 checked.
fn split_lines_keeping_ends(
    mut reader: impl BufRead,
) -> impl Iterator<Item = std::io::Result<String>> {
    std::iter::from_fn(move || {
        let mut bytes = Vec::new();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) => None,
            Ok(_) => Some(
                String::from_utf8(bytes)
                    .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8")),
            ),
            Err(error) => Some(Err(error)),
        }
    })
}

/// A walker over the workspace that respects `.gitignore` (also outside git repositories)
/// and skips hidden files unless asked.
fn walker(root: &Path, depth: Option<usize>, hidden: bool) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(!hidden)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .parents(false)
        .follow_links(false)
        .max_depth(depth)
        .sort_by_file_name(|a, b| a.cmp(b));
    builder
}

/// List a directory of the workspace: one entry per line, directories ending in `/`, files
/// with their size. Files ignored by `.gitignore` and hidden files are left out unless
/// asked for.
#[tool(categories(filesystem), tags("files", "list"))]
pub fn list_directory(
    ctx: &ToolContext,
    /// Directory relative to the workspace root (default: the root)
    path: Option<String>,
    /// How many levels to descend, 1 to 10 (default 1: just the directory's entries)
    depth: Option<u32>,
    /// Include hidden files (names starting with `.`)
    include_hidden: Option<bool>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let path = path.unwrap_or_else(|| ".".to_owned());
    let real = ws.resolve(&path)?;
    if !real.is_dir() {
        return Err(ToolError::new(format!(
            "`{path}` is a file, not a directory; use read_file or file_info"
        )));
    }
    let depth = depth.unwrap_or(1).clamp(1, MAX_DEPTH) as usize;
    let limit = ws.entry_limit();
    let mut lines = Vec::new();
    let mut more = 0_usize;
    for entry in walker(&real, Some(depth), include_hidden.unwrap_or(false))
        .build()
        .flatten()
    {
        if entry.depth() == 0 {
            continue;
        }
        if lines.len() >= limit {
            more += 1;
            continue;
        }
        let relative = ws.relative(entry.path());
        let line = match entry.file_type() {
            Some(kind) if kind.is_dir() => format!("{relative}/"),
            Some(kind) if kind.is_symlink() => format!("{relative} (symbolic link)"),
            _ => {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                format!("{relative} ({size} bytes)")
            }
        };
        lines.push(line);
    }
    if lines.is_empty() {
        return Ok(format!("`{path}` is empty"));
    }
    if more > 0 {
        lines.push(format!(
            "[... and {more} more entries: list a subdirectory or lower the depth]"
        ));
    }
    Ok(lines.join("\n"))
}

/// What `file_info` reports.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FileInfo {
    /// The path, relative to the workspace root.
    pub path: String,
    /// `file`, `directory` or `symlink`.
    pub kind: String,
    /// Size in bytes.
    pub size: u64,
    /// Last modification time, RFC 3339.
    pub modified: Option<String>,
    /// Whether the file is read-only.
    pub readonly: bool,
    /// Whether the file looks like text (files only).
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
    let real = ws.resolve(&path)?;
    let link = fs::symlink_metadata(ws.root().join(path.trim_start_matches("./"))).ok();
    let metadata = fs::metadata(&real).map_err(|e| io_error(ws, &real, "inspect", e))?;
    let kind = if link.is_some_and(|m| m.file_type().is_symlink()) {
        "symlink"
    } else if metadata.is_dir() {
        "directory"
    } else {
        "file"
    };
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| jiff::Timestamp::try_from(time).ok())
        .map(|time| time.to_string());
    let text = if metadata.is_file() {
        let mut start = vec![0; SNIFF_BYTES];
        let read = fs::File::open(&real)
            .and_then(|mut f| read_up_to(&mut f, &mut start))
            .unwrap_or(0);
        Some(!looks_binary(&start[..read]) && std::str::from_utf8(&start[..read]).is_ok())
    } else {
        None
    };
    Ok(Json(FileInfo {
        path: ws.relative(&real),
        kind: kind.to_owned(),
        size: metadata.len(),
        modified,
        readonly: metadata.permissions().readonly(),
        text,
    }))
}

/// Search file contents in the workspace with a regular expression (Rust `regex` syntax).
/// Returns `path:line: text` for each matching line. Respects `.gitignore`; skips binary
/// files; stops at a match limit.
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
    /// Most matches to return (default and maximum: the workspace's limit)
    max_matches: Option<u32>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let path = path.unwrap_or_else(|| ".".to_owned());
    let real = ws.resolve(&path)?;
    let regex = regex::RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive.unwrap_or(false))
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ToolError::new(format!("`pattern` is not a valid regular expression: {e}")))?;
    let filter = glob.as_deref().map(compile_glob).transpose()?;
    let limit = max_matches.map_or(ws.match_limit(), |m| {
        (m as usize).clamp(1, ws.match_limit())
    });
    let budget = ws.read_limit() as usize;
    let mut out = String::new();
    let mut matches = 0_usize;
    let mut stopped = false;
    'files: for entry in walker(&real, None, false).build().flatten() {
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let relative = ws.relative(entry.path());
        if filter
            .as_ref()
            .is_some_and(|glob| !glob.is_match(&relative))
        {
            continue;
        }
        let Ok(file) = fs::File::open(entry.path()) else {
            continue;
        };
        let mut reader = BufReader::new(file);
        if reader
            .fill_buf()
            .map(|start| looks_binary(&start[..start.len().min(SNIFF_BYTES)]))
            .unwrap_or(true)
        {
            continue;
        }
        for (number, line) in split_lines_keeping_ends(reader).enumerate() {
            let Ok(line) = line else { continue 'files };
            let line = line.trim_end_matches(['\n', '\r']);
            if !regex.is_match(line) {
                continue;
            }
            if matches >= limit || out.len() >= budget {
                stopped = true;
                break 'files;
            }
            let shown: String = line.chars().take(MAX_MATCH_LINE).collect();
            let cut = if shown.len() < line.len() {
                " [line cut]"
            } else {
                ""
            };
            out.push_str(&format!("{relative}:{}: {shown}{cut}\n", number + 1));
            matches += 1;
        }
    }
    if matches == 0 {
        return Ok(format!("no matches for `{pattern}` in `{path}`"));
    }
    if stopped {
        out.push_str(&format!(
            "[stopped after {matches} matches: narrow the pattern, the path or the glob]\n"
        ));
    }
    Ok(out)
}

fn compile_glob(glob: &str) -> Result<globset::GlobMatcher, ToolError> {
    globset::GlobBuilder::new(glob)
        .literal_separator(false)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| ToolError::new(format!("`{glob}` is not a valid glob: {e}")))
}

/// Find files in the workspace whose path matches a glob (`*.rs`, `src/**/mod.rs`,
/// `**/*test*`). Returns one path per line. Respects `.gitignore`.
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
    let real = ws.resolve(&path)?;
    let matcher = compile_glob(&pattern)?;
    let file_name_only = !pattern.contains('/');
    let limit = ws.entry_limit();
    let mut found = Vec::new();
    let mut more = 0_usize;
    for entry in walker(&real, None, false).build().flatten() {
        if entry.depth() == 0 || entry.file_type().is_some_and(|kind| kind.is_dir()) {
            continue;
        }
        let relative = ws.relative(entry.path());
        let name = entry.file_name().to_string_lossy();
        if matcher.is_match(&relative) || (file_name_only && matcher.is_match(name.as_ref())) {
            if found.len() < limit {
                found.push(relative);
            } else {
                more += 1;
            }
        }
    }
    if found.is_empty() {
        return Ok(format!("no files match `{pattern}` in `{path}`"));
    }
    if more > 0 {
        found.push(format!("[... and {more} more: use a narrower pattern]"));
    }
    Ok(found.join("\n"))
}

/// Writes `content` to `target` atomically: a temporary file in the same directory, written
/// and synced, then renamed over the target (or linked, when it must not exist yet), then the
/// directory synced. A failure at any point leaves the old file as it was. `before_commit`
/// runs between the write and the rename (tests use it to fail there).
pub(crate) fn write_atomically(
    target: &Path,
    content: &[u8],
    overwrite: bool,
    before_commit: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(".tool-write-")
        .tempfile_in(dir)?;
    temp.write_all(content)?;
    if let Ok(existing) = fs::metadata(target) {
        temp.as_file().set_permissions(existing.permissions())?;
    }
    temp.as_file().sync_all()?;
    before_commit(temp.path())?;
    if overwrite {
        temp.persist(target).map_err(|e| e.error)?;
    } else {
        temp.persist_noclobber(target).map_err(|e| e.error)?;
    }
    if let Ok(dir) = fs::File::open(dir) {
        // Durability of the rename; not every platform can sync a directory.
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The arguments of `write_file`, for its preview.
#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

/// What `write_file` would do: a diff against the current file, or the new file's size.
pub fn write_file_preview(
    ctx: &ToolContext,
    args: &Map<String, Value>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let args: WriteArgs = serde_json::from_value(Value::Object(args.clone()))?;
    let target = ws.resolve_new(&args.path)?;
    match fs::read_to_string(&target) {
        Ok(old) => Ok(unified_diff(&args.path, &old, &args.content)),
        Err(_) => Ok(format!(
            "create `{}` ({} bytes, {} lines)",
            args.path,
            args.content.len(),
            args.content.lines().count()
        )),
    }
}

/// Write a text file in the workspace, atomically (the old content stays whole if anything
/// fails). Refuses to replace an existing file unless `overwrite` is true, and to create
/// missing directories unless `create_parents` is true.
#[tool(safety = "dangerous", categories(filesystem), tags("files", "write"), preview = write_file_preview)]
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
            "the content is {} bytes; files are limited to {} bytes",
            content.len(),
            ws.write_limit()
        )));
    }
    let target = ws.resolve_new(&path)?;
    let overwrite = overwrite.unwrap_or(false);
    match fs::metadata(&target) {
        Ok(metadata) if metadata.is_dir() => {
            return Err(ToolError::new(format!("`{path}` is a directory")));
        }
        Ok(_) if !overwrite => {
            return Err(ToolError::new(format!(
                "`{path}` already exists; pass `overwrite: true` to replace it, or use edit_file to change part of it"
            )));
        }
        _ => {}
    }
    let parent = target
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| ws.root().to_path_buf());
    if !parent.is_dir() {
        if create_parents.unwrap_or(false) {
            fs::create_dir_all(&parent).map_err(|e| io_error(ws, &parent, "create", e))?;
        } else {
            return Err(ToolError::new(format!(
                "the directory `{}` does not exist; pass `create_parents: true` to create it",
                ws.relative(&parent)
            )));
        }
    }
    let existed = target.exists();
    write_atomically(&target, content.as_bytes(), overwrite, |_| Ok(()))
        .map_err(|e| io_error(ws, &target, "write", e))?;
    Ok(format!(
        "{} `{}` ({} bytes)",
        if existed { "replaced" } else { "created" },
        ws.relative(&target),
        content.len()
    ))
}

/// A unified diff of `old` -> `new`, labelled with `path`.
pub(crate) fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    if text.is_empty() {
        format!("no change to `{path}`")
    } else {
        text
    }
}

/// The arguments of `edit_file`.
#[derive(Deserialize)]
struct EditArgs {
    path: String,
    old_text: Option<String>,
    new_text: Option<String>,
    diff: Option<String>,
}

/// The file's path, its current text, and its text after the edit.
fn plan_edit(ws: &Workspace, args: &EditArgs) -> Result<(PathBuf, String, String), ToolError> {
    let real = ws.resolve(&args.path)?;
    if real.is_dir() {
        return Err(ToolError::new(format!("`{}` is a directory", args.path)));
    }
    let old = fs::read_to_string(&real).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => ToolError::new(format!(
            "`{}` is not UTF-8 text; edit_file edits text only",
            args.path
        )),
        _ => io_error(ws, &real, "read", e),
    })?;
    let new = match (&args.old_text, &args.new_text, &args.diff) {
        (Some(old_text), Some(new_text), None) => {
            if old_text.is_empty() {
                return Err(ToolError::new(
                    "`old_text` is empty; give the exact text to replace (use write_file to write a whole file)",
                ));
            }
            match old.matches(old_text.as_str()).count() {
                0 => {
                    return Err(ToolError::new(format!(
                        "`old_text` was not found in `{}`; read the file and copy the text exactly, whitespace included",
                        args.path
                    )));
                }
                1 => old.replacen(old_text.as_str(), new_text, 1),
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
            "the edited file would be {} bytes; files are limited to {} bytes",
            new.len(),
            ws.write_limit()
        )));
    }
    Ok((real, old, new))
}

/// What `edit_file` would do: the unified diff of the change.
pub fn edit_file_preview(
    ctx: &ToolContext,
    args: &Map<String, Value>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let args: EditArgs = serde_json::from_value(Value::Object(args.clone()))?;
    let (_, old, new) = plan_edit(ws, &args)?;
    Ok(unified_diff(&args.path, &old, &new))
}

/// Edit a text file in the workspace, either by replacing an exact piece of text that must
/// occur exactly once (`old_text` -> `new_text`), or by applying a unified diff (`diff`).
/// Returns the diff of what changed. The write is atomic.
#[tool(safety = "dangerous", categories(filesystem), tags("files", "write", "diff"), preview = edit_file_preview)]
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
    let args = EditArgs {
        path,
        old_text,
        new_text,
        diff,
    };
    let (real, old, new) = plan_edit(ws, &args)?;
    if old == new {
        return Ok(format!(
            "`{}` is unchanged: the edit changes nothing",
            args.path
        ));
    }
    write_atomically(&real, new.as_bytes(), true, |_| Ok(()))
        .map_err(|e| io_error(ws, &real, "write", e))?;
    Ok(format!(
        "edited `{}`\n{}",
        args.path,
        unified_diff(&args.path, &old, &new)
    ))
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
    let target = ws.resolve_new(&path)?;
    if target.is_dir() {
        return Ok(format!("`{}` already exists", ws.relative(&target)));
    }
    if target.exists() {
        return Err(ToolError::new(format!("`{path}` exists and is a file")));
    }
    fs::create_dir_all(&target).map_err(|e| io_error(ws, &target, "create", e))?;
    Ok(format!("created `{}`", ws.relative(&target)))
}

/// The arguments of `delete_path`, for its preview.
#[derive(Deserialize)]
struct DeleteArgs {
    path: String,
}

/// What `delete_path` would delete.
pub fn delete_path_preview(
    ctx: &ToolContext,
    args: &Map<String, Value>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    let args: DeleteArgs = serde_json::from_value(Value::Object(args.clone()))?;
    let real = ws.resolve(&args.path)?;
    if real.is_dir() {
        let entries = walkdir_count(&real);
        Ok(format!(
            "delete the directory `{}` and the {entries} entries inside it",
            ws.relative(&real)
        ))
    } else {
        let size = fs::metadata(&real).map(|m| m.len()).unwrap_or(0);
        Ok(format!(
            "delete the file `{}` ({size} bytes)",
            ws.relative(&real)
        ))
    }
}

fn walkdir_count(dir: &Path) -> usize {
    ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.depth() > 0)
        .count()
}

/// Delete a file, or a directory (with `recursive: true` when it is not empty), in the
/// workspace. The workspace root itself is never deleted.
#[tool(safety = "dangerous", categories(filesystem), tags("files", "write"), preview = delete_path_preview)]
pub fn delete_path(
    ctx: &ToolContext,
    /// Path relative to the workspace root
    path: String,
    /// Delete a non-empty directory and everything in it (default false)
    recursive: Option<bool>,
) -> Result<String, ToolError> {
    let ws = workspace(ctx)?;
    // A symbolic link is deleted itself, not what it points to.
    let joined_link = ws.resolve_new(&path)?;
    let real = ws.resolve(&path)?;
    if real == ws.root() || joined_link == ws.root() {
        return Err(ToolError::new("refusing to delete the workspace root"));
    }
    let link = fs::symlink_metadata(ws.root().join(path.trim_start_matches("./")))
        .is_ok_and(|m| m.file_type().is_symlink());
    if link {
        let at = ws.root().join(path.trim_start_matches("./"));
        fs::remove_file(&at).map_err(|e| io_error(ws, &at, "delete", e))?;
        return Ok(format!("deleted the symbolic link `{path}`"));
    }
    if real.is_dir() {
        let empty = fs::read_dir(&real)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if empty {
            fs::remove_dir(&real).map_err(|e| io_error(ws, &real, "delete", e))?;
        } else if recursive.unwrap_or(false) {
            fs::remove_dir_all(&real).map_err(|e| io_error(ws, &real, "delete", e))?;
        } else {
            return Err(ToolError::new(format!(
                "`{path}` is a directory that is not empty; pass `recursive: true` to delete it and everything in it"
            )));
        }
        Ok(format!("deleted the directory `{}`", ws.relative(&real)))
    } else {
        fs::remove_file(&real).map_err(|e| io_error(ws, &real, "delete", e))?;
        Ok(format!("deleted `{}`", ws.relative(&real)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_content_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("data.txt");
        fs::write(&target, "old content").unwrap();
        let failure = write_atomically(&target, b"new content that never lands", true, |temp| {
            // The new bytes are fully on disk in the temporary file...
            assert_eq!(fs::read(temp).unwrap(), b"new content that never lands");
            // ...and the writer dies before the rename.
            Err(std::io::Error::other("killed mid-write"))
        });
        assert!(failure.is_err());
        assert_eq!(fs::read_to_string(&target).unwrap(), "old content");
        let leftovers: Vec<_> = fs::read_dir(dir.path())
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
    fn noclobber_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("data.txt");
        fs::write(&target, "old").unwrap();
        assert!(write_atomically(&target, b"new", false, |_| Ok(())).is_err());
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
    }

    #[cfg(unix)]
    #[test]
    fn replacing_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("script.sh");
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o750)).unwrap();
        write_atomically(&target, b"new", true, |_| Ok(())).unwrap();
        assert_eq!(
            fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o750
        );
    }
}
