//! What a stdio upstream writes to its stderr, passed on to ours a line at a time: named
//! after the upstream, escaped, bounded.

/// The longest line of an upstream's stderr we pass on; the rest of a longer one is left out.
const STDERR_LINE_LIMIT: usize = 4096;

/// Passes what an upstream writes to its stderr on to ours, a line at a time: each named
/// after the upstream, escaped (a server, even a confined one, must not drive the person's
/// terminal: set the clipboard, retitle the window, fake a prompt) and at most
/// [`STDERR_LINE_LIMIT`] bytes long, so that memory stays bounded whatever it writes.
pub(super) async fn relay_stderr(label: String, mut stderr: impl tokio::io::AsyncRead + Unpin) {
    use tokio::io::AsyncReadExt;
    let mut line = Vec::new();
    let mut cut = false;
    let mut chunk = [0u8; 8192];
    loop {
        let read = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        for byte in &chunk[..read] {
            if *byte == b'\n' {
                write_stderr_line(&label, &line, cut);
                line.clear();
                cut = false;
            } else if line.len() < STDERR_LINE_LIMIT {
                line.push(*byte);
            } else {
                cut = true;
            }
        }
    }
    if !line.is_empty() {
        write_stderr_line(&label, &line, cut);
    }
}

/// One line of an upstream's stderr on ours, escaped.
fn write_stderr_line(label: &str, line: &[u8], cut: bool) {
    use std::io::Write;
    let text = String::from_utf8_lossy(line);
    let text = toolwright_names::escape::escape(&text);
    let more = if cut { " [cut]" } else { "" };
    // Nowhere to say that our stderr is gone.
    let _ = writeln!(std::io::stderr().lock(), "upstream `{label}`: {text}{more}");
}
