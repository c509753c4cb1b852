//! Our secrets and files out of a mounted server's reach: the configuration, OAuth client
//! secrets, token files and the audit log refused where a tool or a confined upstream could
//! read or replace them, and paths inside what another upstream may write.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::support::{
    BIN, HOSTILE, assert_refused, call_tool, dirs, gateway, hostile, run, stderr, toml_string,
};

#[test]
fn serve_refuses_a_configuration_its_tools_could_read() {
    let d = dirs();
    // The configuration names commands and their environment (API keys): inside the
    // workspace, a model could read them with read_file.
    let config = gateway(
        &d.workspace,
        &d.upstream,
        "env = { API_KEY = \"secret\" }\n",
    );
    let output = run(
        &[
            "serve",
            "--root",
            d.workspace.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("gateway configuration (--config)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn serve_refuses_an_oauth_client_secret_its_tools_could_read() {
    let d = dirs();
    let secret = d.workspace.join("client.secret");
    std::fs::write(&secret, "client-secret-0123456789\n").unwrap();
    let config = d.config.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[[upstream]]\nnamespace = \"web\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = {{ client_id = \"toolwright\", client_secret_file = {} }}\n",
            toml_string(&secret.display().to_string())
        ),
    )
    .unwrap();
    let output = run(
        &[
            "serve",
            "--root",
            d.workspace.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the upstream OAuth client secret file (in --config)"),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("client-secret-0123456789"));
}

#[test]
fn a_confined_upstream_may_not_be_granted_the_configuration_or_a_token_file() {
    let d = dirs();
    let granted = tempfile::tempdir().unwrap();
    let g = toml_string(&granted.path().display().to_string());
    let script_dir = toml_string(&Path::new(HOSTILE).parent().unwrap().display().to_string());
    // The configuration itself inside a directory the server may read.
    let config = hostile(
        granted.path(),
        &format!("sandbox = {{ read = [{script_dir}, {g}] }}"),
    );
    let output = run(
        &["list", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("gateway configuration")
            && stderr(&output).contains("readable by the upstream `hostile`"),
        "{}",
        stderr(&output)
    );
    // serve's own token file, where the server may write.
    let config = hostile(
        &d.config,
        &format!("sandbox = {{ read = [{script_dir}], write = [{g}] }}"),
    );
    let tokens = granted.path().join("tokens");
    std::fs::write(&tokens, "t0ken tools:safe\n").unwrap();
    let output = run(
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--auth-token-file",
            tokens.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--root",
            d.workspace.to_str().unwrap(),
        ],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("token file (--auth-token-file)")
            && stderr(&output).contains("readable by the upstream `hostile`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_audit_log_may_not_be_where_a_confined_upstream_can_reach_it() {
    // In its write grant, the server reads every call's arguments, rewrites the log, or
    // leaves a link where it is (from an earlier run, or as it starts): we would append
    // each call's line, its own error text in it, to the link's target (a `~/.bashrc`).
    let d = dirs();
    let granted = tempfile::tempdir().unwrap();
    let victim = d.config.join("victim");
    std::fs::write(&victim, "untouched\n").unwrap();
    let audit = granted.path().join("audit.jsonl");
    std::os::unix::fs::symlink(&victim, &audit).unwrap();
    let script_dir = toml_string(&Path::new(HOSTILE).parent().unwrap().display().to_string());
    let g = toml_string(&granted.path().display().to_string());
    let config = hostile(
        &d.config,
        &format!("sandbox = {{ read = [{script_dir}], write = [{g}] }}"),
    );
    for audit in [audit.clone(), granted.path().join("new.jsonl")] {
        let output = call_tool(&config, &audit, "hostile_environ", json!({}), &d.workspace);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("audit log")
                && stderr(&output).contains("readable by the upstream `hostile`"),
            "{}",
            stderr(&output)
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
    assert!(!granted.path().join("new.jsonl").exists());
}

#[test]
fn a_path_inside_a_directory_a_confined_upstream_may_write_is_refused() {
    // The writer could replace `data` by a link to anything of ours (as it starts, before
    // the next server is confined, or between two runs): the next server would be granted
    // that, or an unconfined one would run the writer's program.
    let d = dirs();
    let shared = tempfile::tempdir().unwrap();
    std::fs::create_dir(shared.path().join("data")).unwrap();
    std::fs::write(shared.path().join("server"), "#!/bin/sh\n").unwrap();
    let script_dir = toml_string(&Path::new(HOSTILE).parent().unwrap().display().to_string());
    let s = toml_string(&shared.path().display().to_string());
    let data = toml_string(&shared.path().join("data").display().to_string());
    let server = toml_string(&shared.path().join("server").display().to_string());
    let writer = format!(
        "[[upstream]]\nnamespace = \"writer\"\ncommand = \"python3\"\nargs = [{}]\n\
         sandbox = {{ read = [{script_dir}], write = [{s}] }}\n",
        toml_string(HOSTILE)
    );
    for (other, expected) in [
        (
            format!("sandbox = {{ read = [{script_dir}, {data}] }}"),
            "`sandbox.read` names",
        ),
        (
            format!("sandbox = {{ read = [{script_dir}], write = [{data}] }}"),
            "`sandbox.write` names",
        ),
    ] {
        let text = format!(
            "{writer}\n[[upstream]]\nnamespace = \"reader\"\ncommand = \"python3\"\n\
             args = [{}]\n{other}\n",
            toml_string(HOSTILE)
        );
        assert_refused(&d, "nested.toml", &text, &["list"], expected);
        assert_refused(
            &d,
            "nested.toml",
            &text,
            &["list"],
            "which the upstream `writer` may write",
        );
    }
    let unconfined = format!(
        "{writer}\n[[upstream]]\nnamespace = \"plain\"\ncommand = {server}\nunconfined = true\n"
    );
    assert_refused(&d, "nested.toml", &unconfined, &["list"], "`command` names");
    let script = format!(
        "{writer}\n[[upstream]]\nnamespace = \"plain\"\ncommand = \"sh\"\nargs = [{server}]\n\
         unconfined = true\n"
    );
    assert_refused(&d, "nested.toml", &script, &["list"], "`args` names");
    let cwd = format!(
        "{writer}\n[[upstream]]\nnamespace = \"plain\"\ncommand = \"python3\"\n\
         args = [\"-m\", \"server\"]\ncwd = {s}\nunconfined = true\n"
    );
    assert_refused(&d, "nested.toml", &cwd, &["list"], "`cwd` names");
    // A program looked up in a PATH that holds the writer's directory.
    let looked_up = format!(
        "{writer}\n[[upstream]]\nnamespace = \"plain\"\ncommand = \"server\"\n\
         unconfined = true\n"
    );
    let path = d.config.join("looked-up.toml");
    std::fs::write(&path, looked_up).unwrap();
    let output = Command::new(BIN)
        .args(["list", "--config", path.to_str().unwrap()])
        .env("HOME", &d.workspace)
        .env(
            "PATH",
            format!(
                "{}:{}",
                shared.path().display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("looked up in PATH"),
        "{}",
        stderr(&output)
    );
    // Side by side is fine (the configuration is accepted: the servers start).
    let side = tempfile::tempdir().unwrap();
    let text = format!(
        "{writer}\n[[upstream]]\nnamespace = \"reader\"\ncommand = \"python3\"\nargs = [{}]\n\
         sandbox = {{ read = [{script_dir}, {}] }}\n",
        toml_string(HOSTILE),
        toml_string(&side.path().display().to_string())
    );
    let path = d.config.join("side.toml");
    std::fs::write(&path, text).unwrap();
    let output = run(&["list", "--config", path.to_str().unwrap()], &d.workspace);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}
