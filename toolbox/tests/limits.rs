//! run_command's resource limits from the command line and from `[serve]`: given limits
//! reach the kernel, nonsense is refused with the file and line.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_toolwright");

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn call_runs_commands_under_the_flags_limits() {
    let root = tempfile::tempdir().unwrap();
    let script = "import resource; print(*[resource.getrlimit(r)[0] for r in \
                  (resource.RLIMIT_FSIZE, resource.RLIMIT_CPU)])";
    let arguments = serde_json::json!({"program": "python3", "args": ["-c", script]});
    let output = Command::new(BIN)
        .args(["call", "--root"])
        .arg(root.path())
        .args([
            "--allow-command",
            "python3",
            "--command-write",
            "1MiB",
            "--command-cpu-time",
            "9",
            "--yes",
            "--json",
            "run_command",
        ])
        .arg(arguments.to_string())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains(&format!("{} 9", 1 << 20)), "{said}");
}

#[test]
fn nonsense_limits_are_refused_on_the_command_line_and_in_serve() {
    let root = tempfile::tempdir().unwrap();
    for (flag, value) in [
        ("--command-memory", "512XB"),
        ("--command-write", "0"),
        ("--command-processes", "0"),
        ("--command-cpu", "-1"),
    ] {
        let output = Command::new(BIN)
            .args(["call", "--root"])
            .arg(root.path())
            .arg(format!("{flag}={value}"))
            .args(["read_file", "{}"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{flag} {value}");
        assert!(stderr(&output).contains(flag), "{}", stderr(&output));
    }
    let config = root.path().join("gateway.toml");
    std::fs::write(&config, "\n[serve]\ncommand_memory = \"512XB\"\n").unwrap();
    let output = Command::new(BIN)
        .args(["serve", "--root"])
        .arg(root.path())
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("gateway.toml:3:"), "{said}");
    assert!(said.contains("command_memory"), "{said}");
    assert!(said.contains("512XB"), "{said}");
}
