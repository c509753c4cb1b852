//! A confined upstream stopped by the kernel: what it may read, write and connect to, its
//! environment, our terminal, and its processes once the gateway ends.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{BIN, HOSTILE, call_tool, dirs, hostile, run, stderr, toml_string};

/// The audit log's lines.
fn audit_lines(audit: &Path) -> Vec<Value> {
    std::fs::read_to_string(audit)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn a_confined_upstream_is_stopped_by_the_kernel_and_the_attempts_are_audited() {
    let d = dirs();
    let outside = tempfile::tempdir().unwrap();
    let secret = format!("gateway-secret-{}", std::process::id());
    std::fs::write(outside.path().join("secret"), &secret).unwrap();
    let granted = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret"),
        granted.path().join("link-to-secret"),
    )
    .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script_dir = Path::new(HOSTILE).parent().unwrap().display().to_string();
    let config = hostile(
        &d.config,
        &format!(
            "sandbox = {{ read = [{}], write = [{}] }}",
            toml_string(&script_dir),
            toml_string(&granted.path().display().to_string())
        ),
    );
    let audit = d.config.join("audit.jsonl");
    let o = outside.path().display().to_string();
    let g = granted.path().display().to_string();

    // What it was given works: the server runs, and writes where it may.
    let allowed = call_tool(
        &config,
        &audit,
        "hostile_write_file",
        json!({"path": format!("{g}/mine"), "text": "mine"}),
        &d.workspace,
    );
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert_eq!(
        std::fs::read_to_string(granted.path().join("mine")).unwrap(),
        "mine"
    );

    let attempts = [
        ("hostile_read_file", json!({"path": "/etc/shadow"})),
        ("hostile_read_file", json!({"path": format!("{o}/secret")})),
        (
            "hostile_read_file",
            json!({"path": format!("{g}/link-to-secret")}),
        ),
        (
            "hostile_write_file",
            json!({"path": format!("{o}/written"), "text": "pwned"}),
        ),
        (
            "hostile_write_file",
            json!({"path": "/etc/toolwright-hostile", "text": "pwned"}),
        ),
        (
            "hostile_connect",
            json!({"host": "127.0.0.1", "port": port}),
        ),
    ];
    for (tool, arguments) in &attempts {
        let output = call_tool(&config, &audit, tool, arguments.clone(), &d.workspace);
        let shown = String::from_utf8_lossy(&output.stdout).into_owned() + &stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{tool} {arguments}: {shown}");
        assert!(shown.contains("refused:"), "{tool} {arguments}: {shown}");
        assert!(!shown.contains(&secret), "{tool} read the secret: {shown}");
        assert!(!shown.contains("root:"), "{tool} read /etc/shadow: {shown}");
    }
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        1,
        "the server wrote outside its box"
    );
    assert!(!Path::new("/etc/toolwright-hostile").exists());
    listener.set_nonblocking(true).unwrap();
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the confined server opened a TCP connection"
    );

    // Every attempt is in the audit log, with what the kernel answered.
    let lines = audit_lines(&audit);
    assert_eq!(lines.len(), attempts.len() + 1, "{lines:#?}");
    for (line, (tool, _)) in lines[1..].iter().zip(&attempts) {
        assert_eq!(line["tool"], *tool, "{line}");
        assert_eq!(line["outcome"], "failure", "{line}");
        let error = line["error"].as_str().unwrap_or_default();
        assert!(
            [
                "No such file or directory",
                "Permission denied",
                "Read-only file system",
                "Network is unreachable",
                "Operation not permitted",
            ]
            .iter()
            .any(|refusal| error.contains(refusal)),
            "{line}"
        );
    }
}

#[test]
fn the_same_server_unconfined_reads_what_the_confined_one_could_not() {
    // The control: the refusals above are the kernel's, not the server's.
    let d = dirs();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "readable unconfined").unwrap();
    let config = hostile(&d.config, "unconfined = true");
    let audit = d.config.join("audit.jsonl");
    let output = call_tool(
        &config,
        &audit,
        "hostile_read_file",
        json!({"path": outside.path().join("secret")}),
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("readable unconfined"));
}

#[test]
fn a_stdio_upstream_is_confined_unless_the_configuration_says_otherwise() {
    // No `sandbox`: the server sees the system and nothing else, not even its own script.
    let d = dirs();
    let config = hostile(&d.config, "");
    let output = run(
        &["list", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the upstream `hostile` did not start")
            && stderr(&output).contains("it ran confined: it could read only the system's")
            && stderr(&output).contains("unconfined = true"),
        "{}",
        stderr(&output)
    );
    let mistakes = [
        (
            "sandbox = { read = [\"/nonexistent/dir\"] }",
            "`sandbox.read` names `/nonexistent/dir`, which cannot be granted",
        ),
        ("sandbox = { write = [\"/\"] }", "the whole file system"),
        (
            "sandbox = { read = [\".\"] }\nunconfined = true",
            "not both",
        ),
        ("sandbox = { reed = [\".\"] }", "unknown field `reed`"),
    ];
    for (confinement, expected) in mistakes {
        let config = hostile(&d.config, confinement);
        let output = run(
            &["list", "--config", config.to_str().unwrap()],
            &d.workspace,
        );
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains(expected),
            "{confinement}: {}",
            stderr(&output)
        );
    }
}

/// The hostile server confined to its script and nothing else.
fn confined_hostile(config_dir: &Path, more: &str) -> PathBuf {
    let script_dir = Path::new(HOSTILE).parent().unwrap().display().to_string();
    hostile(
        config_dir,
        &format!(
            "sandbox = {{ read = [{}] }}\n{more}",
            toml_string(&script_dir)
        ),
    )
}

#[test]
fn a_confined_upstream_sees_none_of_our_environment_but_its_own() {
    let d = dirs();
    let config = confined_hostile(&d.config, "env = { GIVEN = \"given-value\" }");
    let audit = d.config.join("audit.jsonl");
    let secret = format!("token-{}", std::process::id());
    let output = Command::new(BIN)
        .args(["call", "hostile_environ", "{}", "--config"])
        .arg(&config)
        .arg("--root")
        .arg(&d.workspace)
        .arg("--audit-log")
        .arg(&audit)
        .env("HOME", &d.workspace)
        .env("TOOLWRIGHT_AUTH_TOKEN", &secret)
        .env("GITHUB_TOKEN", &secret)
        .env("AWS_SECRET_ACCESS_KEY", &secret)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&output.stdout).into_owned() + &stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}");
    assert!(shown.contains("given-value"), "{shown}");
    assert!(
        !shown.contains(&secret),
        "our environment reached it: {shown}"
    );
    assert!(!shown.contains("TOOLWRIGHT_"), "{shown}");
}

#[test]
fn an_upstream_cannot_write_escape_sequences_to_our_terminal() {
    // Its stderr would be ours, a person's terminal: what it writes there reaches them
    // escaped, a line at a time, named.
    let d = dirs();
    let config = confined_hostile(&d.config, "");
    let audit = d.config.join("audit.jsonl");
    let output = call_tool(&config, &audit, "hostile_terminal", json!({}), &d.workspace);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for (name, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        assert!(
            !bytes
                .iter()
                .any(|b| *b == 0x1b || *b == 0x07 || *b == b'\r'),
            "a raw control character on our {name}: {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    // (Whether the escaped line is shown before the gateway exits is not waited for: the
    // gateway ends when it has the answer.)
}

/// The processes whose command line has `argument`.
fn processes_with_argument(argument: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline
            .split(|byte| *byte == 0)
            .any(|part| part == argument.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

/// Waits for `done`, failing the test after a minute.
fn wait_until(done: impl Fn() -> bool, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "waited for {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn nothing_of_a_confined_upstream_outlives_the_gateway_however_it_ends() {
    let d = dirs();
    let config = confined_hostile(&d.config, "");
    let audit = d.config.join("audit.jsonl");
    // The gateway ends normally: the server's daemon goes with it.
    let marker = format!("{}{}", 400_000, std::process::id());
    let output = call_tool(
        &config,
        &audit,
        "hostile_daemon",
        json!({"marker": marker}),
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    wait_until(
        || processes_with_argument(&marker).is_empty(),
        "the daemon to end with the gateway",
    );
    // The gateway is killed with SIGKILL while the server works: the same.
    let marker = format!("{}{}", 500_000, std::process::id());
    let mut gateway = Command::new(BIN)
        .args(["call", "hostile_daemon"])
        .arg(json!({"marker": marker, "hang": true}).to_string())
        .arg("--config")
        .arg(&config)
        .arg("--root")
        .arg(&d.workspace)
        .arg("--audit-log")
        .arg(&audit)
        .env("HOME", &d.workspace)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until(
        || processes_with_argument(&marker).len() == 1,
        "the daemon to start",
    );
    gateway.kill().unwrap();
    gateway.wait().unwrap();
    wait_until(
        || processes_with_argument(&marker).is_empty(),
        "the daemon to end with the killed gateway",
    );
}
