//! `sandbox.network = ["host:port", ...]`: a confined upstream reaches the listed hosts
//! through its egress proxy and nothing else, and every refusal reaches the sink the
//! serving program gives (its audit log). Traffic goes only to a loopback server of this
//! test; the refused addresses are refused before any connection is made.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use toolwright_gateway::{ConfigError, GatewayConfig};
use toolwright_runtime::ToolRegistry;
use toolwright_std::egress::Refusal;

fn config(dir: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("gateway.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A loopback server answering one HTTP request per connection.
fn serve_hello() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                match stream.read(&mut byte) {
                    Ok(1) => head.push(byte[0]),
                    _ => break,
                }
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-length: 12\r\nconnection: close\r\n\r\nhello listed",
            );
        }
    });
    port
}

#[test]
fn a_malformed_host_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for (entry, says) in [
        ("api.github.com", "names no port"),
        ("::1:443", "not a host name"),
        ("10.0.0.0/40:5432", "prefix length"),
    ] {
        let path = config(
            dir.path(),
            &format!(
                "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n\
                 sandbox = {{ network = [\"{entry}\"] }}\n"
            ),
        );
        match GatewayConfig::load(&path).unwrap_err() {
            ConfigError::Invalid { line, message, .. } => {
                assert_eq!(line, Some(1), "{message}");
                assert!(message.contains("sandbox.network"), "{message}");
                assert!(message.contains(says), "{entry}: {message}");
            }
            other => panic!("{other:?}"),
        }
    }
    let path = config(
        dir.path(),
        "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n\
         sandbox = { network = [\"api.github.com:443\", \"*.npmjs.org:443\", \"[::1]:8080\"] }\n",
    );
    GatewayConfig::load(&path).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confined_upstream_reaches_only_its_listed_hosts_and_refusals_are_audited() {
    if !toolwright_std::sandbox::supported() {
        panic!("this test needs a kernel that confines programs (CI's does)");
    }
    let port = serve_hello();
    let unlisted = TcpListener::bind("127.0.0.1:0").unwrap();
    let unlisted_port = unlisted.local_addr().unwrap().port();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().display().to_string();
    // Not an MCP server: it fetches, writes what it got, and exits, so the mount fails at
    // once and what it could reach is in its files.
    let script = format!(
        "curl -sS http://127.0.0.1:{port}/ > {dir}/listed 2>&1; \
         curl -sS -f http://127.0.0.1:{unlisted_port}/ > {dir}/unlisted 2>&1; \
         curl -sS -f http://169.254.169.254/latest/meta-data/ > {dir}/metadata 2>&1; \
         curl -sS --noproxy '*' http://127.0.0.1:{port}/ > {dir}/direct 2>&1; exit 0"
    );
    let conf = tempfile::tempdir().unwrap();
    let path = config(
        conf.path(),
        &format!(
            "[[upstream]]\nnamespace = \"fetcher\"\ncommand = \"sh\"\nargs = [\"-c\", {script:?}]\n\
             sandbox = {{ write = [{dir:?}], network = [\"127.0.0.1:{port}\"] }}\n"
        ),
    );
    let mut gateway = GatewayConfig::load(&path).unwrap();
    let refusals = Arc::new(Mutex::new(Vec::<Refusal>::new()));
    let sink = refusals.clone();
    gateway.on_egress_refusal(move |refusal| sink.lock().unwrap().push(refusal.clone()));
    let registry = Arc::new(ToolRegistry::new());
    let upstream = gateway.upstreams().next().unwrap();
    let mounted = tokio::time::timeout(
        std::time::Duration::from_secs(300),
        upstream.mount(&registry),
    )
    .await
    .expect("the upstream exits at once");
    assert!(mounted.is_err(), "it is no MCP server");
    let read = |name: &str| std::fs::read_to_string(out.path().join(name)).unwrap();
    assert_eq!(read("listed"), "hello listed");
    assert!(read("unlisted").contains("403"), "{}", read("unlisted"));
    assert!(read("metadata").contains("403"), "{}", read("metadata"));
    assert!(!read("direct").contains("hello"), "{}", read("direct"));
    let refusals = refusals.lock().unwrap();
    let targets: Vec<&str> = refusals.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(
        targets,
        [
            format!("127.0.0.1:{unlisted_port}").as_str(),
            "169.254.169.254:80"
        ],
        "{refusals:?}"
    );
    assert!(refusals.iter().all(|r| r.program == "upstream fetcher"));
    unlisted.set_nonblocking(true).unwrap();
    assert!(matches!(unlisted.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock));
}
