//! The safety policy on the command line: dangerous calls ask (and are denied without a
//! terminal or `--yes`), commands run only when allowed.

use serde_json::Value;

use crate::support::{stderr, stdout, toolwright};

#[test]
fn dangerous_calls_ask_and_are_denied_without_a_terminal_or_yes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let output = toolwright(&[
        "call",
        "write_file",
        r#"{"path": "out.txt", "content": "hi"}"#,
        "--root",
        root,
    ]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("`write_file` is dangerous and needs your approval"),
        "{err}"
    );
    assert!(err.contains("create `out.txt` (2 bytes, 1 line)"), "{err}");
    assert!(!dir.path().join("out.txt").exists());

    let output = toolwright(&[
        "call",
        "write_file",
        r#"{"path": "out.txt", "content": "hi"}"#,
        "--root",
        root,
        "--yes",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "hi"
    );
}

#[test]
fn commands_run_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let output = toolwright(&[
        "call",
        "run_command",
        r#"{"program": "echo", "args": ["hi"]}"#,
        "--root",
        root,
        "--yes",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("`echo` is not an allowed program"),
        "{}",
        stderr(&output)
    );
    let output = toolwright(&[
        "call",
        "run_command",
        r#"{"program": "echo", "args": ["hi"]}"#,
        "--root",
        root,
        "--yes",
        "--allow-command",
        "echo",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["stdout"], "hi\n");
}
