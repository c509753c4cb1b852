//! The workspace's files as MCP resources: the template `file:///{+path}`, read whole under
//! the same confinement as `read_file`, with completions of the path.
//!
//! The path is relative to the workspace root (MCP lets a server's `file://` resources be a
//! virtual file system, and this one is the workspace as the file tools see it): the host's
//! own paths are never shown to a client, and a URI means the same file whatever the root.

use std::io::Read;

use toolwright_core::{
    CompletionRequest, Completions, Resource, ResourceContents, ResourceRequest, ToolContext,
    ToolError,
};

use super::access::{OpenFile, cancelled, check_regular, open_error, read_error};
use crate::mime;
use crate::walk::open_options_nonblocking;
use crate::workspace::{PathError, Workspace, workspace};

/// The URI template of the workspace's files: `file:///` and the path relative to the
/// workspace root, `/`-separated (percent-encoded as RFC 3986 says).
pub const FILES_URI_TEMPLATE: &str = "file:///{+path}";

/// The name the workspace's files are listed under.
const NAME: &str = "workspace-files";

/// How much is read between looks at the call's cancellation.
const CHUNK: usize = 64 * 1024;

/// Most directory entries a completion looks at (it answers at most 100 of them).
const MAX_COMPLETION_ENTRIES: usize = 1000;

/// The workspace's files as one resource template, [`FILES_URI_TEMPLATE`], read through the
/// [`Workspace`] in the executor's state. `resources/list` lists none of them (a workspace
/// can hold more files than a listing should walk): clients find them through the template,
/// the completions of [`workspace_files_completing`], or the file tools.
///
/// A read is the whole file, opened as `read_file` opens it: the path checked for its form
/// (no `..`, not absolute), links followed only while they stay inside the root, the file
/// opened beneath the root's directory handle by the kernel (`openat2` with
/// `RESOLVE_BENEATH`) without blocking; directories, FIFOs, sockets, devices and files with
/// more than one hard link are refused. The URI is percent-decoded once, by the template: a
/// decoded `/` is a path separator like any other, so `%2F..%2F` is refused as `/../` is. A
/// file larger than [`Workspace::max_read_bytes`] is refused rather than cut (`read_file`
/// pages through it). Text (UTF-8 without a NUL, as `read_file` tells it) goes out as text,
/// anything else as a blob; the media type comes from the extension. A path that names
/// nothing is MCP's resource-not-found.
///
/// ```
/// use toolwright_core::{ResourceBody, ResourceRequest, ToolContext, ToolState};
/// use toolwright_std::Workspace;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("notes.md"), "# Notes").unwrap();
/// let mut state = ToolState::new();
/// state.insert(Workspace::new(dir.path()).unwrap());
/// let files = toolwright_std::files::workspace_files();
/// let uri = "file:///notes.md";
/// let request = ResourceRequest { uri: uri.into(), variables: files.matches(uri).unwrap() };
/// let contents = files.read(request, ToolContext::for_primitive(uri).with_state(state)).await.unwrap();
/// assert_eq!(contents[0].body, ResourceBody::Text("# Notes".into()));
/// assert_eq!(contents[0].mime_type.as_deref(), Some("text/markdown"));
/// assert!(files.matches("file:///../etc/passwd").is_none());
/// # }
/// ```
pub fn workspace_files() -> Resource {
    builder().build().unwrap_or_else(|error| {
        // The template and handler are constants: a failure here is a bug of this crate.
        unreachable!("the workspace files resource is invalid: {error}")
    })
}

/// [`workspace_files`] with completions of `path` from `workspace` (the one in the executor's
/// state): the entries of the directory the value names so far whose names start with its
/// last part, directories with a trailing `/`, hidden ones only when that part starts with
/// `.`; at most 100, from the first 1,000 entries of the directory. Only the workspace
/// itself is ever listed, through its directory handle.
///
/// ```
/// use toolwright_core::CompletionRequest;
/// use toolwright_std::Workspace;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir(dir.path().join("src")).unwrap();
/// std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
/// let files = toolwright_std::files::workspace_files_completing(Workspace::new(dir.path()).unwrap());
/// let done = files.complete(&CompletionRequest::new("path", "src/m")).unwrap();
/// assert_eq!(done.values, ["src/main.rs"]);
/// assert_eq!(files.complete(&CompletionRequest::new("path", "s")).unwrap().values, ["src/"]);
/// ```
pub fn workspace_files_completing(workspace: Workspace) -> Resource {
    builder()
        .completion("path", move |request: &CompletionRequest| {
            complete_path(&workspace, &request.value)
        })
        .build()
        .unwrap_or_else(|error| unreachable!("the workspace files resource is invalid: {error}"))
}

fn builder() -> toolwright_core::ResourceBuilder {
    Resource::builder(NAME, FILES_URI_TEMPLATE)
        .title("Workspace files")
        .description(
            "The files of the workspace, by path relative to its root (file:///src/main.rs), \
             read whole: text as text, anything else as a blob. Confined to the workspace as \
             the file tools are.",
        )
        .tags(["files"])
        .handler(|request: ResourceRequest, ctx: ToolContext| async move {
            workspace(&ctx)?;
            let path = request.variable("path")?.to_owned();
            let uri = request.uri;
            // Blocking file I/O runs on the blocking pool, not on an async worker.
            let (read, uri) = tokio::task::spawn_blocking(move || {
                let read = workspace(&ctx).and_then(|ws| read_whole(ws, &ctx, &uri, &path));
                (read, uri)
            })
            .await
            .map_err(|error| ToolError::new(format!("the resource read failed: {error}")))?;
            let body = read?;
            let contents = match body.body {
                Body::Text(text) => ResourceContents::text(uri, text),
                Body::Blob(bytes) => ResourceContents::blob(uri, bytes),
            };
            Ok(contents.with_mime_type(body.mime))
        })
}

/// The completions of a partial path: see [`workspace_files_completing`].
fn complete_path(ws: &Workspace, value: &str) -> Completions {
    let (dir, prefix) = match value.rsplit_once('/') {
        Some((dir, prefix)) => (dir, prefix),
        None => ("", value),
    };
    let at = if dir.is_empty() { "." } else { dir };
    let Ok(relative) = ws.locate(at, true) else {
        return Completions::none();
    };
    let handle = if relative.as_os_str().is_empty() {
        ws.dir().open_dir(".")
    } else {
        ws.dir().open_dir(&relative)
    };
    let Ok(entries) = handle.and_then(|handle| handle.entries()) else {
        return Completions::none();
    };
    let mut found: Vec<String> = entries
        .take(MAX_COMPLETION_ENTRIES)
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if name.chars().any(char::is_control) {
                return None;
            }
            let hidden = name.starts_with('.') && !prefix.starts_with('.');
            if hidden || !name.starts_with(prefix) {
                return None;
            }
            let slash = if entry.file_type().ok()?.is_dir() {
                "/"
            } else {
                ""
            };
            Some(if dir.is_empty() {
                format!("{name}{slash}")
            } else {
                format!("{dir}/{name}{slash}")
            })
        })
        .collect();
    found.sort();
    Completions::new(found)
}

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

/// Opens the file at `path` as `read_file` does, but a path that names nothing is MCP's
/// resource-not-found for `uri`.
fn open(ws: &Workspace, uri: &str, path: &str) -> Result<OpenFile, ToolError> {
    let missing = |error: PathError| match error {
        PathError::NotFound(_) => ToolError::resource_not_found(uri),
        other => ToolError::from(other),
    };
    let relative = ws.locate(path, true).map_err(missing)?;
    if relative.as_os_str().is_empty() {
        return Err(ToolError::new(
            "the workspace root is a directory; a file resource names a file in it",
        ));
    }
    let file = ws
        .dir()
        .open_with(&relative, &open_options_nonblocking())
        .map_err(|error| {
            if error.kind() == std::io::ErrorKind::NotFound {
                ToolError::resource_not_found(uri)
            } else {
                open_error(ws, path, error)
            }
        })?
        .into_std();
    let metadata = file.metadata().map_err(|e| read_error(path, e))?;
    check_regular(path, &metadata)?;
    Ok(OpenFile {
        file,
        size: metadata.len(),
    })
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
    uri: &str,
    path: &str,
) -> Result<FileBody, ToolError> {
    let opened = open(ws, uri, path)?;
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
        let read = |path: &str| read_whole(&ws, &ctx, "file:///x", path);
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
