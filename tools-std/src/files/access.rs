//! Opening and reading the workspace's files: the checks and bounded reads every file tool
//! shares.

use std::ffi::OsString;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use toolwright_core::{ToolContext, ToolError};

use crate::names::escape;
use crate::walk::open_options_nonblocking;
use crate::workspace::Workspace;

/// How much of a file is sniffed for NUL bytes to tell binary from text.
pub(super) const SNIFF_BYTES: usize = 8192;

/// How many lines a loop reads between looks at the call's cancellation.
pub(super) const CANCEL_CHECK_LINES: u64 = 1024;
/// Read buffer: large enough for few system calls, small enough to keep memory bounded.
pub(super) const READ_BUFFER: usize = 64 * 1024;

/// `relative` as the cap-std calls take it: `.` for the root itself.
pub(super) fn in_root(relative: &Path) -> &Path {
    if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    }
}

/// The directory part of `relative` (empty for the root) and its last name.
pub(super) fn split_parent(relative: &Path) -> Option<(&Path, OsString)> {
    let name = relative.file_name()?.to_os_string();
    Some((relative.parent().unwrap_or(Path::new("")), name))
}

/// `relative` as the tools print it: `.` for the root, control characters escaped.
pub(super) fn display(relative: &Path) -> String {
    if relative.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        escape(relative.as_os_str())
    }
}

pub(super) fn io_error(relative: &Path, action: &str, error: std::io::Error) -> ToolError {
    ToolError::new(format!("cannot {action} `{}`: {error}", display(relative)))
}

pub(super) fn cancelled(ctx: &ToolContext, what: &str) -> ToolError {
    ToolError::new(format!("{what} (call `{}`) was cancelled", ctx.call_id()))
}

/// Whether the start of a file looks binary.
pub(super) fn looks_binary(start: &[u8]) -> bool {
    start.contains(&0)
}

/// A regular file of the workspace, open for reading, with its metadata.
pub(super) struct OpenFile {
    pub(super) file: std::fs::File,
    pub(super) size: u64,
}

/// Opens the regular file at `path` for reading, beneath the root, without blocking.
/// Directories, FIFOs, sockets, devices and hard-linked files are refused with a message that
/// says why.
pub(super) fn open_for_reading(ws: &Workspace, path: &str) -> Result<OpenFile, ToolError> {
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

pub(super) fn open_error(ws: &Workspace, path: &str, error: std::io::Error) -> ToolError {
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
pub(super) fn check_regular(path: &str, metadata: &std::fs::Metadata) -> Result<(), ToolError> {
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
pub(super) struct LineRead {
    /// Bytes of the line consumed from the reader (0 at the end of the file).
    pub(super) consumed: u64,
    /// Whether the whole line (through its `\n`, or the end of the file) was consumed.
    pub(super) complete: bool,
}

/// Reads one line, through its `\n`, keeping at most `cap` bytes of it in `line` and
/// discarding the rest, so memory stays bounded whatever the file holds. With `finish` false
/// it stops once `cap` bytes are kept, leaving the rest of the line unread.
pub(super) fn read_line_capped(
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
pub(super) fn utf8_prefix(bytes: &[u8], cut: bool) -> Option<&str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(error) if cut && error.error_len().is_none() => {
            std::str::from_utf8(&bytes[..error.valid_up_to()]).ok()
        }
        Err(_) => None,
    }
}

pub(super) fn read_error(path: &str, error: std::io::Error) -> ToolError {
    ToolError::new(format!("cannot read `{path}`: {error}"))
}

/// Opens the directory at `path` beneath the root, with its checked relative path.
pub(super) fn open_directory(ws: &Workspace, path: &str) -> Result<(Dir, PathBuf), ToolError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

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
