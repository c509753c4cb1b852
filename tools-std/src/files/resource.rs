//! The workspace's files as MCP resources: reading one whole file for `resources/read`, under
//! the same confinement as `read_file`.

use std::io::Read;

use toolwright_core::{ToolContext, ToolError};

use super::access::{cancelled, open_for_reading, read_error};
use crate::mime;
use crate::workspace::Workspace;

/// How much is read between looks at the call's cancellation.
const CHUNK: usize = 64 * 1024;

/// One file of the workspace, read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileBody {
    /// From the extension, else `text/plain` for text and `application/octet-stream` for the
    /// rest.
    pub(crate) mime: &'static str,
    pub(crate) body: Body,
}

/// Text (UTF-8 without a NUL, as `read_file` tells text) or bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    Text(String),
    Blob(Vec<u8>),
}

/// Reads the file at `path` (relative to the root, already percent-decoded once) whole.
/// It is opened as `read_file` opens it: the path checked for its form, links followed only
/// while they stay inside the root, the file opened beneath the root's handle by the kernel,
/// without blocking; directories, FIFOs, sockets, devices and hard-linked files are refused.
/// A file larger than the workspace's read limit is refused, not cut: a resource is the whole
/// file or nothing (`read_file` pages through a larger one).
pub(crate) fn read_whole(
    ws: &Workspace,
    ctx: &ToolContext,
    path: &str,
) -> Result<FileBody, ToolError> {
    let opened = open_for_reading(ws, path)?;
    let limit = ws.read_limit();
    let too_large = |size: u64| {
        ToolError::new(format!(
            "`{path}` is {size} bytes, more than the {limit} bytes a resource read returns; \
             read_file pages through it with `offset` and `limit`"
        ))
    };
    if opened.size > limit {
        return Err(too_large(opened.size));
    }
    // The size can change after the open: read at most one byte past the limit to tell.
    let mut reader = opened.file.take(limit.saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(opened.size).unwrap_or(0));
    let mut chunk = vec![0_u8; CHUNK];
    loop {
        if ctx.is_cancelled() {
            return Err(cancelled(ctx, "the resource read"));
        }
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(read_error(path, error)),
        }
    }
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let text = mime::is_text(&bytes);
    let mime = mime::of(name, text);
    let body = if text && mime::is_textual(mime) {
        match String::from_utf8(bytes) {
            Ok(text) => Body::Text(text),
            Err(error) => Body::Blob(error.into_bytes()),
        }
    } else {
        Body::Blob(bytes)
    };
    Ok(FileBody { mime, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap().max_read_bytes(16);
        (dir, ws)
    }

    #[test]
    fn text_binary_and_the_limit() {
        let (dir, ws) = workspace();
        let ctx = ToolContext::new();
        std::fs::write(dir.path().join("a.md"), "# hi").unwrap();
        std::fs::write(dir.path().join("b.bin"), b"\0\x01").unwrap();
        std::fs::write(dir.path().join("c"), b"\xff\xfe").unwrap();
        std::fs::write(dir.path().join("big.txt"), "x".repeat(17)).unwrap();
        std::fs::write(dir.path().join("fits.txt"), "x".repeat(16)).unwrap();
        let read = |path: &str| read_whole(&ws, &ctx, path);
        assert_eq!(
            read("a.md").unwrap(),
            FileBody {
                mime: "text/markdown",
                body: Body::Text("# hi".into())
            }
        );
        assert_eq!(read("b.bin").unwrap().body, Body::Blob(vec![0, 1]));
        assert_eq!(read("c").unwrap().mime, "application/octet-stream");
        assert!(read("fits.txt").is_ok());
        let error = read("big.txt").unwrap_err().to_string();
        assert!(error.contains("17 bytes, more than the 16"), "{error}");
    }
}
