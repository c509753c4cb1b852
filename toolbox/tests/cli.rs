//! The `toolwright` command line, run as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn toolwright(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn toolbox_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
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

#[test]
fn help_and_version() {
    let output = toolwright(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    for command in ["list", "schema", "call", "serve"] {
        assert!(stdout(&output).contains(command));
    }
    assert_eq!(toolwright(&["--version"]).status.code(), Some(0));
}

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

/// The subcommands `toolwright --help` lists (but `help`).
fn subcommands() -> Vec<String> {
    let help = stdout(&toolwright(&["--help"]));
    let names: Vec<String> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    for expected in ["list", "schema", "call", "serve", "completions", "man"] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {help}");
    }
    names
}

#[test]
fn completions_for_every_shell() {
    let subcommands = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = toolwright(&["completions", shell]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{shell}: {}",
            stderr(&output)
        );
        let script = stdout(&output);
        assert!(!script.trim().is_empty(), "{shell}");
        for subcommand in &subcommands {
            assert!(
                script.contains(subcommand.as_str()),
                "{shell}: {subcommand}"
            );
        }
        // Options of subcommands too (fish spells them `-l wide`).
        assert!(
            script.contains("max-safety") && script.contains("wide"),
            "{shell}"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwright.bash");
    std::fs::write(&path, stdout(&toolwright(&["completions", "bash"]))).unwrap();
    let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(check.status.success(), "bash -n: {}", stderr(&check));

    let output = toolwright(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2));
}

/// The first macro of a man page, after the roff preamble (`.ie`/`.el`, comments).
fn first_macro(page: &str) -> &str {
    page.lines()
        .find(|line| {
            !(line.starts_with(".ie") || line.starts_with(".el") || line.starts_with(".\\\""))
        })
        .unwrap_or("")
}

#[test]
fn man_pages() {
    let output = toolwright(&["man"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let page = stdout(&output);
    assert!(first_macro(&page).starts_with(".TH toolwright 1"), "{page}");
    assert!(page.contains(".SH SUBCOMMANDS"));
    for subcommand in subcommands() {
        assert!(
            page.contains(&format!("toolwright\\-{subcommand}(1)")),
            "{subcommand}: {page}"
        );
        let output = toolwright(&["man", &subcommand]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let sub_page = stdout(&output);
        assert!(
            first_macro(&sub_page).starts_with(&format!(".TH toolwright-{subcommand} 1")),
            "{sub_page}"
        );
    }
    let output = toolwright(&["man", "lst"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no subcommand `lst`"),
        "{}",
        stderr(&output)
    );

    // man renders it, where man is installed.
    if Command::new("man").arg("--version").output().is_err() {
        eprintln!("man is not installed: the page is not rendered");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwright.1");
    std::fs::write(&path, &page).unwrap();
    let rendered = Command::new("man")
        .arg("-l")
        .arg(&path)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    let text = stdout(&rendered);
    assert!(
        text.contains("SUBCOMMANDS") && text.contains("toolwright-serve(1)"),
        "{text}"
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
