//! A `toolwright serve --http` of a test's own, on a free port, killed when dropped. Shared
//! by the test binaries that serve over HTTP (`#[path = "support/served.rs"] mod served;`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A `toolwright serve --http` on a free port; killed when dropped.
pub struct Served {
    child: Child,
    /// Its MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `toolwright serve --http 127.0.0.1:PORT --root ROOT ARGS...` (`bin`: the toolwright
/// binary), with `HOME` at `root`. Returns once the server says it listens (an event, not a
/// delay: a mount's report comes first); the rest of its stderr is relayed.
pub fn serve_http(bin: &str, root: &Path, args: &[&str]) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(bin)
        .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--root"])
        .arg(root)
        .args(args)
        .env("HOME", root)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            panic!("the server ended before listening: {seen}");
        }
        seen.push_str(&line);
        if line.contains(&format!("listening on {url}")) {
            break;
        }
    }
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            eprintln!("[served] {line}");
        }
    });
    Served { child, url }
}
