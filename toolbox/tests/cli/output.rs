//! Where the output goes: a reader that goes away, a pipe (whole descriptions), `COLUMNS`,
//! `--wide`, a terminal's width, a full disk.

use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{stderr, stdout, toolwright};

/// Runs toolwright with stdout a pipe whose reader is already gone, as `toolwright list | head -1`
/// is once `head` has its line: every write to stdout fails with EPIPE, whatever the timing.
fn toolbox_into_a_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Ended as coreutils and ripgrep end when their reader goes away: status 0 (or killed by
/// SIGPIPE), nothing on stderr, above all no panic.
fn assert_ended_quietly(args: &[&str], output: &Output) {
    #[cfg(unix)]
    let by_sigpipe = std::os::unix::process::ExitStatusExt::signal(&output.status) == Some(13);
    #[cfg(not(unix))]
    let by_sigpipe = false;
    assert!(
        output.status.code() == Some(0) || by_sigpipe,
        "{args:?}: {:?}; stderr: {}",
        output.status,
        stderr(output)
    );
    assert!(
        output.stderr.is_empty(),
        "{args:?} wrote to stderr: {}",
        stderr(output)
    );
}

#[test]
fn every_command_ends_quietly_when_its_reader_goes_away() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "remember the milk\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let commands: &[&[&str]] = &[
        &["list"],
        &["list", "--wide"],
        &["list", "--json"],
        &["list", "--search", "read a file"],
        &["schema", "--format", "openai"],
        &["schema", "--format", "mcp"],
        &["call", "calculate", r#"{"expression": "6*7"}"#],
        &["call", "calculate", r#"{"expression": "6*7"}"#, "--json"],
        &[
            "call",
            "read_file",
            r#"{"path": "notes.txt"}"#,
            "--root",
            root,
        ],
        &["completions", "bash"],
        &["completions", "zsh"],
        &["man"],
        &["man", "serve"],
        &["--help"],
        &["list", "--help"],
        &["--version"],
    ];
    for args in commands {
        assert_ended_quietly(args, &toolbox_into_a_closed_pipe(args));
    }
}

#[test]
fn a_reader_that_stops_after_a_line_ends_it_quietly() {
    // `toolwright schema --format openai | head -1`: whether toolwright had written everything into
    // the pipe before the reader left, or not, it ends quietly.
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["schema", "--format", "openai"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    assert_eq!(first, "[\n");
    let output = child.wait_with_output().unwrap();
    assert_ended_quietly(&["schema", "--format", "openai"], &output);
}

/// `toolwright list` into a pipe, with `COLUMNS` as given (or unset).
fn list_piped(columns: Option<&str>, extra: &[&str]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
    command.arg("list").args(extra).stdin(Stdio::null());
    match columns {
        Some(columns) => command.env("COLUMNS", columns),
        None => command.env_remove("COLUMNS"),
    };
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    stdout(&output)
}

/// Every tool's name and its whole description, on one line, from `list --json`.
fn names_and_descriptions() -> Vec<(String, String)> {
    let tools: Vec<Value> =
        serde_json::from_str(&stdout(&toolwright(&["list", "--json"]))).unwrap();
    // Every standard tool but run_code (listed with --code-mode).
    assert_eq!(tools.len(), toolwright_std::TOOL_NAMES.len() - 1);
    tools
        .iter()
        .map(|tool| {
            let description = tool["description"].as_str().unwrap();
            (
                tool["name"].as_str().unwrap().to_owned(),
                description.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect()
}

fn assert_whole_descriptions(table: &str) {
    for (name, description) in names_and_descriptions() {
        let row = table
            .lines()
            .find(|line| line.split_whitespace().next() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no row for {name}:\n{table}"));
        assert!(
            row.ends_with(&format!("  {description}")),
            "the description of {name} is cut:\n{row}"
        );
    }
}

#[test]
fn list_into_a_pipe_prints_whole_descriptions() {
    let table = list_piped(None, &[]);
    assert_whole_descriptions(&table);
    // Still a table: the descriptions start in one column.
    let column = table.lines().next().unwrap().find("DESCRIPTION").unwrap();
    for (line, (_, description)) in table.lines().skip(1).zip(names_and_descriptions()) {
        assert_eq!(line.find(&description), Some(column), "{line}");
    }
}

#[test]
fn list_fits_columns_when_set() {
    let table = list_piped(Some("60"), &["--code-mode"]);
    assert_eq!(table.lines().count(), 1 + toolwright_std::TOOL_NAMES.len());
    for line in table.lines() {
        assert!(line.chars().count() <= 60, "wider than 60 columns: {line}");
    }
    assert!(table.lines().skip(1).all(|line| line.ends_with("...")));
    for name in toolwright_std::TOOL_NAMES {
        assert!(
            table
                .lines()
                .any(|line| line.starts_with(&format!("{name} "))),
            "{name}:\n{table}"
        );
    }
}

#[test]
fn list_wide_never_cuts() {
    assert_whole_descriptions(&list_piped(Some("60"), &["--wide"]));
    assert_whole_descriptions(&list_piped(None, &["--wide"]));
    assert_eq!(
        toolwright(&["list", "--wide", "--json"]).status.code(),
        Some(2)
    );
}

/// In a terminal 70 columns wide (a pseudo-terminal from util-linux's `script`), `list` fits
/// the terminal; and a terminal on stderr (coloured logs) does not make toolwright panic.
#[test]
#[cfg(target_os = "linux")]
fn list_in_a_terminal_fits_its_width() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("`script` (util-linux) is not installed: no terminal to run toolwright in");
        return;
    }
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command"])
        .arg(format!(
            "stty rows 24 cols 70 && exec '{}' list --code-mode",
            env!("CARGO_BIN_EXE_toolwright")
        ))
        .arg("/dev/null")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = stdout(&output).replace('\r', "");
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert_eq!(
        text.lines().count(),
        1 + toolwright_std::TOOL_NAMES.len(),
        "{text}"
    );
    for line in text.lines() {
        assert!(
            line.chars().count() <= 70,
            "wider than the terminal: {line}"
        );
    }
    assert!(text.lines().any(|line| line.ends_with("...")), "{text}");
}

/// Another error writing stdout than a closed pipe (here a full disk) is an error that says
/// so, with status 1, not a panic.
#[test]
#[cfg(target_os = "linux")]
fn a_full_disk_is_reported() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["schema", "--format", "mcp"])
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.starts_with("error: cannot write the output to stdout: ") && !err.contains("panicked"),
        "{err}"
    );
}
