//! Media types by file extension, and percent-encoding of paths into URIs: what the workspace's
//! file resources and the skills share.

/// The media type a file's extension says, or `None` for an extension not known here (the
/// caller falls back on what the bytes are: `text/plain` or `application/octet-stream`).
pub(crate) fn from_extension(name: &str) -> Option<&'static str> {
    let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
    let mime = match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" | "log" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "xml" => "application/xml",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "c" | "h" => "text/x-c",
        "go" => "text/x-go",
        "java" => "text/x-java",
        "sh" => "application/x-sh",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "wasm" => "application/wasm",
        _ => return None,
    };
    Some(mime)
}

/// The media type of a file named `name` whose bytes are text (`is_text`) or not.
pub(crate) fn of(name: &str, is_text: bool) -> &'static str {
    match from_extension(name) {
        Some(mime) => mime,
        None if is_text => "text/plain",
        None => "application/octet-stream",
    }
}

/// Whether a body of this media type may go out as text (when its bytes are UTF-8 without a
/// NUL); everything else goes out as a blob.
pub(crate) fn is_textual(mime: &str) -> bool {
    mime.starts_with("text/")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/yaml"
                | "application/toml"
                | "application/x-sh"
                | "image/svg+xml"
        )
}

/// Whether `bytes` are text: UTF-8 with no NUL (the NUL is how `read_file` tells binary).
pub(crate) fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

/// `segment` percent-encoded for a URI path: unreserved characters kept, every other byte
/// (a `/` too) encoded, so a name always stays one segment.
#[cfg_attr(not(feature = "skills"), allow(dead_code))] // the skills' URIs
pub(crate) fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_by_extension_then_by_content() {
        assert_eq!(of("README.MD", true), "text/markdown");
        assert_eq!(of("data.bin", false), "application/octet-stream");
        assert_eq!(of("Makefile", true), "text/plain");
        assert!(is_textual("application/json") && !is_textual("image/png"));
        assert!(is_text("héllo".as_bytes()) && !is_text(b"a\0b") && !is_text(b"\xff"));
    }

    #[test]
    fn a_segment_never_holds_a_slash() {
        assert_eq!(encode_segment("a b/c%"), "a%20b%2Fc%25");
        assert_eq!(encode_segment("été"), "%C3%A9t%C3%A9");
    }
}
