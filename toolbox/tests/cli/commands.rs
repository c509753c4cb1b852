//! `list`, `schema` and `call`: what they print, their usage errors (status 2) and the
//! names they suggest, and `--help`/`--version`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{stderr, stdout, toolwright};

fn toolbox_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn list_prints_a_table() {
    let output = toolwright(&["list"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("NAME")
            && header.contains("SAFETY")
            && header.contains("CATEGORIES")
            && header.contains("DESCRIPTION")
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("read_file") && l.contains("safe") && l.contains("filesystem"))
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("write_file") && l.contains("dangerous"))
    );
    // The header and every standard tool but run_code (listed with --code-mode).
    assert_eq!(text.lines().count(), toolwright_std::TOOL_NAMES.len());
    assert!(!text.contains("run_code"));
}

#[test]
fn list_filters_and_prints_json() {
    let output = toolwright(&[
        "list",
        "--json",
        "--max-safety",
        "safe",
        "--category",
        "data",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let tools: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["calculate", "current_time", "json_query"]);
    assert_eq!(tools[0]["safety"], "safe");

    let output = toolwright(&["list", "--json", "--max-safety", "cautious"]);
    let tools: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(tools.iter().all(|t| t["safety"] != "dangerous"));
    assert!(tools.iter().any(|t| t["name"] == "create_directory"));

    let output = toolwright(&["list", "--search", "replace text in a file"]);
    assert_eq!(output.status.code(), Some(0));
    let first_row = stdout(&output).lines().nth(1).unwrap().to_owned();
    assert!(first_row.starts_with("edit_file"), "{first_row}");
}

#[test]
fn list_usage_errors_exit_2() {
    let output = toolwright(&["list", "--max-safety", "risky"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unknown safety level `risky`"),
        "{}",
        stderr(&output)
    );
    assert_eq!(toolwright(&["lst"]).status.code(), Some(2));
    assert_eq!(toolwright(&[]).status.code(), Some(2));
}

#[test]
fn schema_in_every_format() {
    for format in ["openai", "openai-responses", "anthropic", "gemini", "mcp"] {
        let output = toolwright(&[
            "schema",
            "--format",
            format,
            "--tool",
            "read_file",
            "--tool",
            "calculate",
        ]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{format}: {}",
            stderr(&output)
        );
        let exported: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(exported.len(), 2, "{format}");
    }
    let output = toolwright(&["schema", "--format", "openai", "--strict", "--code-mode"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let exported: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(exported.len(), toolwright_std::TOOL_NAMES.len());
    assert!(exported.iter().all(|t| t["function"]["strict"] == true));
    let output = toolwright(&["schema", "--format", "mcp", "--tool", "write_file"]);
    let exported: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(exported[0]["annotations"]["destructiveHint"], true);
}

#[test]
fn schema_usage_errors_exit_2() {
    let output = toolwright(&["schema", "--format", "cohere"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unknown schema format `cohere`"),
        "{}",
        stderr(&output)
    );
    let output = toolwright(&["schema", "--format", "openai", "--tool", "read"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no tool named `read`; did you mean `read_file`"),
        "{}",
        stderr(&output)
    );
    let output = toolwright(&["schema", "--format", "anthropic", "--strict"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("strict mode is an OpenAI feature"));
}

#[test]
fn call_runs_a_tool_and_sets_the_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "remember the milk\n").unwrap();
    let root = dir.path().to_str().unwrap();

    let output = toolwright(&[
        "call",
        "read_file",
        r#"{"path": "notes.txt"}"#,
        "--root",
        root,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "remember the milk\n");

    // The default root is the current directory.
    let output = toolbox_in(
        dir.path(),
        &["call", "read_file", r#"{"path": "notes.txt"}"#],
    );
    assert_eq!(stdout(&output), "remember the milk\n");

    let output = toolwright(&[
        "call",
        "read_file",
        r#"{"path": "missing.txt"}"#,
        "--root",
        root,
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("`missing.txt` does not exist"),
        "{}",
        stderr(&output)
    );

    let output = toolwright(&[
        "call",
        "read_file",
        r#"{"path": "../etc/passwd"}"#,
        "--root",
        root,
    ]);
    assert_eq!(output.status.code(), Some(1));

    let output = toolwright(&["call", "calculate", r#"{"expression": "6*7"}"#, "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["content"], "42");
    assert_eq!(result["success"], true);
    assert_eq!(result["metadata"]["safety_level"], "safe");
}

#[test]
fn call_reads_arguments_from_a_file_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("args.json");
    std::fs::write(&file, r#"{"expression": "1 + 1"}"#).unwrap();
    let output = toolwright(&["call", "calculate", &format!("@{}", file.display())]);
    assert_eq!(stdout(&output), "2\n");

    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", "calculate", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"expression": "2 + 2"}"#)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(stdout(&output), "4\n");
}

#[test]
fn call_usage_errors_exit_2() {
    let output = toolwright(&["call", "calculat", r#"{"expression": "1"}"#]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unknown tool `calculat`; did you mean `calculate`?"),
        "{}",
        stderr(&output)
    );
    let output = toolwright(&["call", "calculate", "{not json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("are not valid JSON"),
        "{}",
        stderr(&output)
    );
    let output = toolwright(&["call", "calculate", "[1, 2]"]);
    assert_eq!(output.status.code(), Some(2));
    let output = toolwright(&["call", "calculate", "@/nonexistent/args.json"]);
    assert_eq!(output.status.code(), Some(2));
    let output = toolwright(&["call", "read_file", "{}", "--root", "/nonexistent/dir"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_transposed_name_suggests_its_tool_first() {
    let output = toolwright(&["call", "raed_file", "{}"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("unknown tool `raed_file`; did you mean `read_file`?"),
        "{}",
        stderr(&output)
    );
    let output = toolwright(&["schema", "--format", "mcp", "--tool", "raed_file"]);
    assert!(
        stderr(&output).contains("did you mean `read_file`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_category_no_tool_has_is_named_with_the_closest() {
    let output = toolwright(&["list", "--category", "fielsystem"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    assert!(
        stderr(&output)
            .contains("no tool has the category `fielsystem`; did you mean `filesystem`?"),
        "{}",
        stderr(&output)
    );
    let output = toolwright(&["list", "--category", "weather"]);
    assert!(
        stderr(&output).contains("no tool has the category `weather`; the categories are `"),
        "{}",
        stderr(&output)
    );
    // A category that exists but matches nothing with the other filters gets no hint.
    let output = toolwright(&[
        "list",
        "--category",
        "filesystem",
        "--max-safety",
        "safe",
        "--search",
        "zzzzqqq",
    ]);
    assert!(
        !stderr(&output).contains("no tool has the category"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn help_and_version() {
    let output = toolwright(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    for command in ["list", "schema", "call", "serve"] {
        assert!(stdout(&output).contains(command));
    }
    assert_eq!(toolwright(&["--version"]).status.code(), Some(0));
}
