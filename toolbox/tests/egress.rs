//! `--allow-network-host HOST:PORT` (and `[serve]`'s `allow_network_host`): `run_command`
//! reaches the listed hosts through the egress proxy and nothing else; each refusal is a
//! JSON line of the audit log. Traffic goes only to a loopback server of this test.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn toolwright(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
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
fn allow_network_host_lets_commands_reach_that_host_only_and_audits_refusals() {
    let port = serve_hello();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let audit = dir.path().join("audit.jsonl");
    let listed = format!("127.0.0.1:{port}");
    let call = |url: &str| {
        let arguments = serde_json::json!({"program": "curl", "args": ["-sS", "-f", url]});
        toolwright(&[
            "call",
            "run_command",
            &arguments.to_string(),
            "--root",
            root.to_str().unwrap(),
            "--yes",
            "--allow-command",
            "curl",
            "--allow-network-host",
            &listed,
            "--audit-log",
            audit.to_str().unwrap(),
        ])
    };
    let output = call(&format!("http://{listed}/"));
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["stdout"], "hello listed", "{result}");
    let output = call("http://169.254.169.254/latest/meta-data/");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    assert!(!result.to_string().contains("hello listed"), "{output:?}");
    let text = std::fs::read_to_string(&audit).unwrap();
    let refusals: Vec<Value> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["event"] == "egress_refused")
        .collect();
    assert_eq!(refusals.len(), 1, "{text}");
    assert_eq!(refusals[0]["target"], "169.254.169.254:80");
    assert_eq!(refusals[0]["program"], "run_command");
    assert!(
        refusals[0]["reason"].as_str().unwrap().contains("metadata"),
        "{text}"
    );
}

#[test]
fn a_malformed_allow_network_host_is_a_usage_error_from_the_flag_and_from_serve_s_section() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolwright(&[
        "call",
        "calculate",
        r#"{"expression": "1+1"}"#,
        "--root",
        dir.path().to_str().unwrap(),
        "--allow-network-host",
        "api.github.com",
    ]);
    assert_ne!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--allow-network-host") && stderr.contains("names no port"),
        "{stderr}"
    );
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        "[serve]\nallow_network_host = [\"localhost:99999\"]\n",
    )
    .unwrap();
    let output = toolwright(&[
        "serve",
        "--config",
        config.to_str().unwrap(),
        "--root",
        dir.path().to_str().unwrap(),
    ]);
    assert_ne!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--allow-network-host") && stderr.contains("valid port"),
        "{stderr}"
    );
}
