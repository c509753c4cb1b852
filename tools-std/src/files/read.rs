//! Reading: `read_file` and `file_info`.

use std::io::{BufRead, BufReader, Read};
use std::num::NonZeroU64;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwright_core::{Json, ToolContext, ToolError, tool};

use super::access::{
    CANCEL_CHECK_LINES, READ_BUFFER, SNIFF_BYTES, cancelled, display, in_root, looks_binary,
    open_for_reading, read_error, read_line_capped, utf8_prefix,
};
use crate::names::count;
use crate::workspace::workspace;

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
