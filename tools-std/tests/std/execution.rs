//! run_command: allow-list, no shell by default, cleared environment, caps, timeouts that
//! kill the whole process group.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::Harness;

fn parse(content: &str) -> Value {
    serde_json::from_str(content).unwrap()
}

#[tokio::test]
async fn runs_allowed_programs_and_reports_exit_status() {
    let h = Harness::with(|ws| ws.allow_commands(["echo", "sh", "false"]));
    let out = parse(
        &h.ok(
            "run_command",
            json!({"program": "echo", "args": ["hello", "$HOME", "*"]}),
        )
        .await,
    );
    assert_eq!(out["stdout"], "hello $HOME *\n", "no shell: no expansion");
    assert_eq!(out["exit_code"], 0);
    assert_eq!(out["success"], true);
    let out = parse(&h.ok("run_command", json!({"program": "false"})).await);
    assert_eq!(out["exit_code"], 1);
    assert_eq!(out["success"], false);
}

#[tokio::test]
async fn refuses_programs_not_allowed_and_shells_unless_allowed() {
    let h = Harness::new();
    let error = h.err("run_command", json!({"program": "ls"})).await;
    assert!(
        error.contains("`ls` is not an allowed program: no programs are allowed in this workspace"),
        "{error}"
    );
    let h = Harness::with(|ws| ws.allow_commands(["ls"]));
    let error = h
        .err(
            "run_command",
            json!({"program": "rm", "args": ["-rf", "."]}),
        )
        .await;
    assert!(
        error.contains("`rm` is not an allowed program: the allowed programs are `ls`"),
        "{error}"
    );
    let error = h
        .err(
            "run_command",
            json!({"program": "ls; rm -rf .", "shell": true}),
        )
        .await;
    assert!(
        error.contains("shell scripts are not allowed in this workspace"),
        "{error}"
    );
    let h = Harness::with(|ws| ws.allow_shell(true));
    let out = parse(
        &h.ok(
            "run_command",
            json!({"program": "echo $((2+3)) | tr 5 6", "shell": true}),
        )
        .await,
    );
    assert_eq!(out["stdout"], "6\n");
}

#[tokio::test]
async fn runs_in_the_workspace_with_a_cleared_environment() {
    let h = Harness::with(|ws| {
        ws.allow_commands(["pwd", "env"])
            .keep_env(["TOOLS_STD_TEST_KEPT"])
    });
    h.write("sub/x.txt", "");
    // SAFETY-free: set_var is only unsafe in multi-threaded programs reading the env
    // concurrently; the variables are read by the child process.
    let out = parse(
        &h.ok("run_command", json!({"program": "pwd", "cwd": "sub"}))
            .await,
    );
    assert_eq!(
        out["stdout"].as_str().unwrap().trim(),
        std::fs::canonicalize(h.root().join("sub"))
            .unwrap()
            .to_str()
            .unwrap()
    );
    let out = parse(&h.ok("run_command", json!({"program": "env"})).await);
    let names: Vec<&str> = out["stdout"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| l.split('=').next())
        .collect();
    let allowed = [
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TERM",
        "TZ",
        "USER",
        "TMPDIR",
        "TOOLS_STD_TEST_KEPT",
        // Set to /dev/null by the confinement, which keeps ~/.gitconfig out of reach.
        "GIT_CONFIG_GLOBAL",
    ];
    assert!(names.iter().all(|n| allowed.contains(n)), "{names:?}");
    assert!(!names.contains(&"CARGO"), "cargo's variables are gone");
}

#[tokio::test]
async fn caps_output_and_passes_stdin() {
    let h = Harness::with(|ws| ws.allow_commands(["cat", "head"]).max_output_bytes(10));
    let out = parse(
        &h.ok(
            "run_command",
            json!({"program": "cat", "stdin": "0123456789abcdef"}),
        )
        .await,
    );
    assert_eq!(out["stdout"], "0123456789");
    assert_eq!(out["stdout_truncated"], true);
    let out = parse(
        &h.ok(
            "run_command",
            json!({"program": "head", "args": ["-c", "100000000", "/dev/zero"]}),
        )
        .await,
    );
    assert_eq!(out["stdout"].as_str().unwrap().len(), 10);
    assert_eq!(out["stdout_truncated"], true);
    assert_eq!(out["exit_code"], 0);
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group() {
    let h = Harness::with(|ws| {
        ws.allow_shell(true)
            .command_timeout(Duration::from_secs(1), Duration::from_secs(2))
    });
    let marker = h.root().join("child-survived");
    // The shell starts a grandchild that would write a marker after 3 s.
    let script = format!("(sleep 3; touch {}) & sleep 60", marker.display());
    let started = Instant::now();
    let out = parse(
        &h.ok(
            "run_command",
            json!({"program": script, "shell": true, "timeout_secs": 1}),
        )
        .await,
    );
    // The command sleeps 60 s: returning well before proves the timeout ended it.
    assert!(started.elapsed() < Duration::from_secs(50));
    assert_eq!(out["timed_out"], true);
    assert_eq!(out["success"], false);
    tokio::time::sleep(Duration::from_millis(3500)).await;
    assert!(!marker.exists(), "the grandchild was killed with the group");
}

#[tokio::test]
async fn asked_timeouts_are_capped_by_the_workspace() {
    let h = Harness::with(|ws| {
        ws.allow_commands(["sleep"])
            .command_timeout(Duration::from_millis(200), Duration::from_millis(300))
    });
    let started = Instant::now();
    let out = parse(
        &h.ok(
            "run_command",
            json!({"program": "sleep", "args": ["600"], "timeout_secs": 3600}),
        )
        .await,
    );
    assert_eq!(out["timed_out"], true);
    // The workspace caps the asked hour at 300 ms; `sleep 600` would take ten minutes.
    assert!(started.elapsed() < Duration::from_secs(300));
}

#[tokio::test]
async fn missing_programs_say_so() {
    let h = Harness::with(|ws| ws.allow_commands(["definitely-not-a-program-xyz"]));
    let error = h
        .err(
            "run_command",
            json!({"program": "definitely-not-a-program-xyz"}),
        )
        .await;
    assert!(
        error.contains("cannot start `definitely-not-a-program-xyz`"),
        "{error}"
    );
}
