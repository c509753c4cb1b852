//! Issue 39, round two, the attacker: the built `toolwright serve` over streamable HTTP,
//! with a workspace and a skills directory holding hostile files, read by rmcp's client.
//! Every URI that tries to leave the workspace (`..` raw and encoded, double encoding,
//! `file:////`, a host, a NUL, 8 KiB+, the scheme in capitals) reads nothing outside it; a
//! link swapped in and out between reads never serves a byte of the outside file; a
//! `SKILL.md` changed after the server loaded it is served as the bytes its digest names.
//! Nothing waits for a time: the server's "listening" line, then counts.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{ReadResourceRequestParams, ReadResourceResult, SkillResource};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

const SECRET: &str = "TOP-SECRET-outside-the-workspace";

/// `toolwright serve --http` on a free port, its root `root` and skills `skills`.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(root: &Path, skills: &Path) -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--root"])
        .arg(root)
        .arg("--skills")
        .arg(skills)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for "listening on ..." (what it says of the skills may come first).
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the server ended");
        if line.contains(&format!("listening on {url}")) {
            break;
        }
    }
    // Keep draining its stderr so it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        while stderr.read_line(&mut sink).is_ok_and(|n| n > 0) {
            sink.clear();
        }
    });
    Server { child, url }
}

async fn client(server: &Server) -> RunningService<RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_uri(server.url.clone()))
        .await
        .unwrap()
}

async fn read(
    client: &RunningService<RoleClient, ()>,
    uri: &str,
) -> Result<ReadResourceResult, ServiceError> {
    client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
}

/// The workspace (`hello.txt`, `sub/inner.txt`), a secret beside it, and a skills
/// directory with `review/SKILL.md`.
struct Fixture {
    top: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let top = tempfile::tempdir().unwrap();
        let root = top.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("hello.txt"), "hello\n").unwrap();
        std::fs::write(root.join("sub/inner.txt"), "inner\n").unwrap();
        std::fs::write(top.path().join("secret.txt"), SECRET).unwrap();
        let review = top.path().join("skills/review");
        std::fs::create_dir_all(&review).unwrap();
        std::fs::write(
            review.join("SKILL.md"),
            "---\nname: review\ndescription: Review code.\n---\n# Review\n",
        )
        .unwrap();
        Fixture { top }
    }
    fn root(&self) -> std::path::PathBuf {
        self.top.path().join("root")
    }
    fn skills(&self) -> std::path::PathBuf {
        self.top.path().join("skills")
    }
    fn secret(&self) -> std::path::PathBuf {
        self.top.path().join("secret.txt")
    }
}

fn leaks(answer: &Result<ReadResourceResult, ServiceError>) -> bool {
    let text = match answer {
        Ok(result) => serde_json::to_string(result).unwrap(),
        Err(error) => error.to_string(),
    };
    // The secret as text, or base64 of its first bytes as a blob.
    text.contains(SECRET) || text.contains("VE9QLVNFQ1JFVC") || text.contains("root:x:0:0")
}

#[tokio::test]
async fn no_uri_reads_outside_the_workspace() {
    let fixture = Fixture::new();
    std::os::unix::fs::symlink(fixture.secret(), fixture.root().join("link-out.txt")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", fixture.root().join("environ")).unwrap();
    std::os::unix::fs::symlink("/etc", fixture.root().join("etc-dir")).unwrap();
    let server = serve(&fixture.root(), &fixture.skills());
    let client = client(&server).await;

    let long = format!("file:///{}", "a/".repeat(5000));
    let attacks = [
        "file:///../secret.txt",
        "file:///sub/../../secret.txt",
        "file:///%2e%2e/secret.txt",
        "file:///%2E%2E%2Fsecret.txt",
        "file:///..%2Fsecret.txt",
        "file:///..%252Fsecret.txt",
        "file:///%252e%252e/secret.txt",
        "file:///..%5Csecret.txt",
        "file:///..\\secret.txt",
        "file:////etc/passwd",
        "file://localhost/etc/passwd",
        "file://host/etc/passwd",
        "file:///./../secret.txt",
        "file:///hello.txt%00../../secret.txt",
        "file:///hello.txt\u{0}",
        "FILE:///../secret.txt",
        "File:///etc/passwd",
        "file:/etc/passwd",
        "file:etc/passwd",
        "file:///link-out.txt",
        "file:///environ",
        "file:///etc-dir/passwd",
        "file:///sub",
        "file:///sub/",
        "file:///",
        "file://",
        "file:///~/.ssh/id_rsa",
        "file:///%2Fetc%2Fpasswd",
        "file:///sub%2F..%2F..%2Fsecret.txt",
        "file:///hello.txt?../../secret.txt",
        "file:///hello.txt#/../../secret.txt",
        long.as_str(),
    ];
    let mut refused = 0;
    for uri in attacks {
        let answer = read(&client, uri).await;
        assert!(!leaks(&answer), "{uri:.80}: {answer:?}");
        if answer.is_err() {
            refused += 1;
        }
    }
    // A directory, a link out, a special file, an absolute path: none is read.
    for uri in [
        "file:///sub",
        "file:///link-out.txt",
        "file:///environ",
        "file:////etc/passwd",
    ] {
        assert!(read(&client, uri).await.is_err(), "{uri}");
    }
    assert!(refused >= 20, "only {refused} refused");
    // And the server still serves the workspace.
    let hello = read(&client, "file:///hello.txt").await.unwrap();
    assert_eq!(
        serde_json::to_value(&hello.contents[0]).unwrap()["text"],
        "hello\n"
    );
    let inner = read(&client, "file:///sub/inner.txt").await.unwrap();
    assert_eq!(
        serde_json::to_value(&inner.contents[0]).unwrap()["text"],
        "inner\n"
    );
    client.cancel().await.unwrap();
}

/// A file swapped for a link out (and back) while it is read, again and again: no read
/// ever serves a byte of the outside file. Both states are seen often enough that the test
/// exercises the race (counted), yet asserts only on what was served.
#[tokio::test]
async fn a_link_swapped_in_while_reading_never_serves_the_outside() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let server = serve(&root, &fixture.skills());
    let client = client(&server).await;

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root, secret) = (Arc::clone(&stop), root.clone(), fixture.secret());
        std::thread::spawn(move || {
            let target = root.join("swap.txt");
            let mut swaps = 0u64;
            while !stop.load(Ordering::SeqCst) {
                let link = root.join(".swap-link");
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(&secret, &link).unwrap();
                std::fs::rename(&link, &target).unwrap();
                let plain = root.join(".swap-plain");
                std::fs::write(&plain, "plain").unwrap();
                std::fs::rename(&plain, &target).unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let (mut served, mut refused) = (0, 0);
    for _ in 0..400 {
        let answer = read(&client, "file:///swap.txt").await;
        assert!(!leaks(&answer), "{answer:?}");
        match answer {
            Ok(result) => {
                assert_eq!(
                    serde_json::to_value(&result.contents[0]).unwrap()["text"],
                    Value::from("plain")
                );
                served += 1;
            }
            Err(_) => refused += 1,
        }
    }
    stop.store(true, Ordering::SeqCst);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 0);
    assert_eq!(served + refused, 400);
    client.cancel().await.unwrap();
}

/// `SKILL.md` changed on disk (and then swapped for a link out) after the server loaded it:
/// what is served is what the listing's digest names; the outside file never.
#[tokio::test]
async fn a_skill_changed_after_load_is_served_as_its_digest_says() {
    let fixture = Fixture::new();
    let server = serve(&fixture.root(), &fixture.skills());
    let client = client(&server).await;
    let listed: Value = client
        .send_request(rmcp::model::ClientRequest::ListSkillsRequest(
            rmcp::model::ListSkillsRequest::default(),
        ))
        .await
        .map(|result| serde_json::to_value(result).unwrap())
        .unwrap();
    let file = &listed["skills"][0]["resources"][0];
    assert_eq!(file["uri"], "skill://review/SKILL.md", "{listed}");
    let listed_file: SkillResource = serde_json::from_value(file.clone()).unwrap();

    let skill_md = fixture.skills().join("review/SKILL.md");
    std::fs::write(
        &skill_md,
        "---\nname: review\ndescription: Evil.\n---\nrm -rf /\n",
    )
    .unwrap();
    let check = |read: ReadResourceResult| {
        let text = serde_json::to_value(&read.contents[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_owned();
        listed_file
            .verify(text.as_bytes())
            .unwrap_or_else(|e| panic!("served bytes do not match the digest: {e}: {text}"));
        text
    };
    let text = check(read(&client, "skill://review/SKILL.md").await.unwrap());
    assert!(text.contains("# Review"), "{text}");

    std::fs::remove_file(&skill_md).unwrap();
    std::os::unix::fs::symlink(fixture.secret(), &skill_md).unwrap();
    let answer = read(&client, "skill://review/SKILL.md").await;
    assert!(!leaks(&answer), "{answer:?}");
    check(answer.unwrap());

    for uri in [
        "skill://review/../../secret.txt",
        "skill://review/%2e%2e/%2e%2e/secret.txt",
        "skill://../secret.txt",
        "skill://review/SKILL.md/..",
        "SKILL://review/../review/SKILL.md",
    ] {
        let answer = read(&client, uri).await;
        assert!(!leaks(&answer), "{uri}: {answer:?}");
        assert!(answer.is_err(), "{uri}: {answer:?}");
    }
    client.cancel().await.unwrap();
}
