//! `serve` refuses secrets its tools could read (token files, JWKS, the request state key)
//! and a request state key shared by replicas without a shared store.

use std::process::{Command, Stdio};

use crate::support::{stderr, toolwright};

/// `serve` will not start with its token file or JWKS where the tools it serves can read
/// them (issue 26): in the workspace, or under a directory confined commands read.
#[test]
fn serve_refuses_secrets_the_tools_can_read() {
    let root = tempfile::tempdir().unwrap();
    let tokens = root.path().join("tokens");
    std::fs::write(&tokens, "secret-token tools:approve\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    let jwks = outside.path().join("jwks.json");
    std::fs::write(&jwks, r#"{"keys": []}"#).unwrap();
    let root_arg = root.path().to_str().unwrap();
    let output = toolwright(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--root",
        root_arg,
        "--auth-token-file",
        tokens.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("refusing to serve"), "{text}");
    assert!(text.contains("inside the workspace"), "{text}");

    // A JWKS file in a directory commands read (a system directory; here, a toolchain
    // directory named by CARGO_HOME).
    let cargo_home = tempfile::tempdir().unwrap();
    let bin = cargo_home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(&jwks, bin.join("jwks.json")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--root",
            root_arg,
            "--jwt-issuer",
        ])
        .arg("https://issuer.example")
        .arg("--jwks-file")
        .arg(bin.join("jwks.json"))
        .env("CARGO_HOME", cargo_home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains("commands run by `run_command` may read"),
        "{text}"
    );
}

/// The key that seals approvals' request states is a secret like a token: whoever reads it
/// forges an approval. A key the tools could read, or one too short to be a key, is refused.
#[test]
fn serve_refuses_a_request_state_key_the_tools_can_read_or_too_short() {
    let root = tempfile::tempdir().unwrap();
    let key = root.path().join("state-key");
    std::fs::write(&key, "0123456789abcdef0123456789abcdef0123456789abcdef\n").unwrap();
    let root_arg = root.path().to_str().unwrap();
    let output = toolwright(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--root",
        root_arg,
        "--request-state-key-file",
        key.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("refusing to serve"), "{text}");
    assert!(text.contains("request state key file"), "{text}");

    let outside = tempfile::tempdir().unwrap();
    let short = outside.path().join("state-key");
    std::fs::write(&short, "too-short\n").unwrap();
    let output = toolwright(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--root",
        root_arg,
        "--request-state-key-file",
        short.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("it needs 32 or more"), "{text}");
}

/// Replicas given a shared request state key but no shared record of used states each
/// accept the same approval once, silently. `serve` refuses to start so, saying what to do.
/// (Before the fix it started and served: the child is waited for under a deadline that
/// fails the test instead of hanging.)
#[test]
fn serve_refuses_a_shared_request_state_key_without_a_shared_store() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let key = outside.path().join("state-key");
    std::fs::write(&key, "0123456789abcdef0123456789abcdef0123456789abcdef\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    for (flag, value, env) in [
        ("--request-state-key-file", key.to_str().unwrap(), None),
        (
            "--request-state-key-env",
            "TOOLWRIGHT_TEST_STATE_KEY",
            Some("0123456789abcdef0123456789abcdef0123456789abcdef"),
        ),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command
            .args(["serve", "--http", "127.0.0.1:0", "--root"])
            .arg(root.path())
            .args([flag, value])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(env) = env {
            command.env("TOOLWRIGHT_TEST_STATE_KEY", env);
        }
        let mut child = command.spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`serve {flag}` without a session store started instead of refusing");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let text = stderr(&output);
        assert!(
            text.contains("without a shared record of used states")
                && text.contains("--session-store"),
            "{text}"
        );
    }
}
