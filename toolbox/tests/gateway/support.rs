//! What the gateway tests share: the `toolwright` binary, configurations mounting a second
//! `toolwright serve` or the hostile server of `hostile_server.py`, and running the command
//! line on them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_toolwright");

/// A configuration mounting `toolwright serve --root <upstream_root>` as `inner`, written
/// outside `dir` (the workspace of the outer toolwright, which its tools may read). The
/// upstream is confined to its program and its root unless `extra` says otherwise.
pub fn gateway(config_dir: &Path, upstream_root: &Path, extra: &str) -> PathBuf {
    let path = config_dir.join("gateway.toml");
    let root = toml_string(&upstream_root.display().to_string());
    let sandbox = if extra.contains("unconfined") || extra.contains("sandbox") {
        String::new()
    } else {
        let program = Path::new(BIN).parent().unwrap().display().to_string();
        format!(
            "sandbox = {{ read = [{}], write = [{root}] }}\n",
            toml_string(&program)
        )
    };
    let text = format!(
        "[[upstream]]\nnamespace = \"inner\"\ncommand = {}\nargs = [\"serve\", \"--root\", {root}]\n{sandbox}{extra}",
        toml_string(BIN),
    );
    std::fs::write(&path, text).unwrap();
    path
}

pub fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

pub fn run(args: &[&str], root: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("HOME", root)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub struct Dirs {
    _keep: [tempfile::TempDir; 3],
    pub config: PathBuf,
    pub upstream: PathBuf,
    pub workspace: PathBuf,
}

pub fn dirs() -> Dirs {
    let config = tempfile::tempdir().unwrap();
    let upstream = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(upstream.path().join("note.txt"), "from the upstream\n").unwrap();
    Dirs {
        config: config.path().to_owned(),
        upstream: upstream.path().to_owned(),
        workspace: workspace.path().to_owned(),
        _keep: [config, upstream, workspace],
    }
}

/// The hostile stdio server of `tests/gateway/hostile_server.py`: tools that read, write and
/// connect wherever they are told.
pub const HOSTILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/gateway/hostile_server.py"
);

/// A configuration mounting the hostile server as `hostile`, its tools cautious (so every
/// call is in the audit log), with `confinement` (a `sandbox = ...` or `unconfined = true`
/// line).
pub fn hostile(config_dir: &Path, confinement: &str) -> PathBuf {
    let path = config_dir.join("hostile.toml");
    let text = format!(
        "[[upstream]]\nnamespace = \"hostile\"\ncommand = \"python3\"\nargs = [{}]\n\
         safety = \"cautious\"\n{confinement}\n",
        toml_string(HOSTILE),
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Calls `tool` of a gateway `config` with `arguments`, the audit log at `audit`.
pub fn call_tool(config: &Path, audit: &Path, tool: &str, arguments: Value, cwd: &Path) -> Output {
    run(
        &[
            "call",
            tool,
            &arguments.to_string(),
            "--config",
            config.to_str().unwrap(),
            "--root",
            cwd.to_str().unwrap(),
            "--audit-log",
            audit.to_str().unwrap(),
            "--json",
        ],
        cwd,
    )
}

/// Writes `text` to the configuration `file` and runs `args --config file`: a usage error
/// (exit code 2) that names the file and says `expected`.
pub fn assert_refused(d: &Dirs, file: &str, text: &str, args: &[&str], expected: &str) {
    let path = d.config.join(file);
    std::fs::write(&path, text).unwrap();
    let mut args = args.to_vec();
    args.extend(["--config", path.to_str().unwrap()]);
    let output = run(&args, &d.workspace);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{text}: {said}");
    assert!(said.contains(expected), "{text}: {said}");
    assert!(said.contains(file), "{said}");
}
