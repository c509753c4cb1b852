//! `--config`: another MCP server's tools (here: a second `toolwright serve`, over stdio)
//! mounted beside the standard tools, listed, called and served under our policy.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_toolwright");

/// A configuration mounting `toolwright serve --root <upstream_root>` as `inner`, written
/// outside `dir` (the workspace of the outer toolwright, which its tools may read). The
/// upstream is confined to its program and its root unless `extra` says otherwise.
fn gateway(config_dir: &Path, upstream_root: &Path, extra: &str) -> PathBuf {
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

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn run(args: &[&str], root: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("HOME", root)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

struct Dirs {
    _keep: [tempfile::TempDir; 3],
    config: PathBuf,
    upstream: PathBuf,
    workspace: PathBuf,
}

fn dirs() -> Dirs {
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

#[test]
fn list_shows_the_upstreams_tools_namespaced_and_dangerous_unless_configured() {
    let d = dirs();
    let config = gateway(
        &d.config,
        &d.upstream,
        "tools = { \"read_*\" = \"safe\" }\n",
    );
    let output = run(
        &["list", "--json", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let tools: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let safety = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["safety"].as_str().unwrap().to_owned())
    };
    // Our own tools, and the upstream's under the namespace.
    assert_eq!(safety("read_file").as_deref(), Some("safe"));
    assert_eq!(safety("inner_read_file").as_deref(), Some("safe"));
    // What the configuration does not lower stays dangerous, whatever the upstream says.
    assert_eq!(safety("inner_calculate").as_deref(), Some("dangerous"));
    assert_eq!(safety("inner_list_directory").as_deref(), Some("dangerous"));
}

#[test]
fn call_runs_an_upstream_tool_only_when_approved() {
    let d = dirs();
    let config = gateway(&d.config, &d.upstream, "");
    let config = config.to_str().unwrap();
    let root = d.workspace.to_str().unwrap();
    let refused = run(
        &[
            "call",
            "inner_read_file",
            r#"{"path": "note.txt"}"#,
            "--config",
            config,
            "--root",
            root,
        ],
        &d.workspace,
    );
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("approval denied"),
        "{}",
        stderr(&refused)
    );
    assert!(!String::from_utf8_lossy(&refused.stdout).contains("from the upstream"));

    let approved = run(
        &[
            "call",
            "inner_read_file",
            r#"{"path": "note.txt"}"#,
            "--config",
            config,
            "--root",
            root,
            "--yes",
        ],
        &d.workspace,
    );
    assert_eq!(approved.status.code(), Some(0), "{}", stderr(&approved));
    assert!(String::from_utf8_lossy(&approved.stdout).contains("from the upstream"));
}

#[test]
fn configuration_mistakes_are_refused_with_their_line_before_anything_starts() {
    let d = dirs();
    let cases = [
        (
            "[[upstream]]\nnamespace = \"a\"\ncomand = \"x\"\n",
            ":3: unknown field `comand`",
        ),
        // Declared resources and prompts (issue 39): checked at load too.
        (
            "[[resources]]\nuri = \"test://x\"\nname = \"x\"\ntxt = \"a\"\n",
            ":4: unknown field `txt`",
        ),
        (
            "[[resources]]\nuri = \"test://x\"\nname = \"x\"\nfile = \"no-such.png\"\n",
            ":1: cannot read the file `no-such.png`",
        ),
        (
            "[[resources]]\nuri = \"test://x\"\nname = \"x\"\ntext = \"a\"\n\n\
             [[resources]]\nuri = \"test://x\"\nname = \"y\"\ntext = \"b\"\n",
            ":6: resource `test://x` is already registered",
        ),
        (
            "[[prompts]]\nname = \"p\"\nmessages = [{ text = \"{who}\" }]\n",
            ":1: `text` uses `{who}`, which names no argument of the prompt",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n\n[[upstream]]\nnamespace = \"b\"\ncommand = \"y\"\nurl = \"http://127.0.0.1:9/mcp\"\n",
            ":5: an upstream is a `command` (stdio) or a `url` (HTTP), not both",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\n",
            ":1: the upstream `a` needs a `command`",
        ),
        (
            "[[upstream]]\nnamespace = \"Git-Hub\"\ncommand = \"x\"\n",
            "did you mean `git_hub`?",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n[[upstream]]\nnamespace = \"a\"\ncommand = \"y\"\n",
            ":4: the namespace `a` is already used at",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\ntoken_env = \"T\"\n",
            ":1: `token_file`, `token_env`, `oauth` and `callers` are for an HTTP upstream",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\" }\n",
            ":1: `token_file`, `token_env`, `oauth` and `callers` are for an HTTP upstream",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             token_env = \"T\"\noauth = { client_id = \"c\", client_secret_env = \"S\" }\n",
            ":1: give the upstream's credentials in one of `token_file`, `token_env` or `oauth`",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", client_secret_file = \"f\" }\n",
            ":4: give the client secret in `oauth.client_secret_file` or `oauth.client_secret_env`, not both",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\n\
             [upstream.oauth]\nclient_id = \"c\"\n",
            ":5: `oauth` needs the client secret's file (`client_secret_file`) or environment \
             variable (`client_secret_env`)",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret = \"hunter2\" }\n",
            ":4: unknown field `client_secret`",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", scopes = [\"a b\"] }\n",
            ":4: `oauth.scopes` has `a b`, which is not one scope",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", token_url = \"/token\" }\n",
            ":4: `oauth.token_url` is `/token`, not an http:// or https:// URL",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = { client_id = \"c\", client_secret_env = \"S\", authorization_servers = [\"login\"] }\n",
            ":4: `oauth.authorization_servers` is `login`, not an http:// or https:// URL",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nmax_tool_bytes = \"big\"\n",
            ":4: invalid type: string",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nmax_message_bytes = 1024\n",
            ":1: `max_message_bytes` is for an HTTP upstream",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\npins = { t = \"zz\" }\n",
            "is not a tool fingerprint",
        ),
        (
            "[[upstream]]\nnamespace = \"a\"\ncommand = \"x\"\nsafety = \"harmless\"\n",
            ":4: unknown variant `harmless`",
        ),
    ];
    for (text, expected) in cases {
        // `x` and `y` would not start: a refusal must come from the file, not the spawn.
        assert_refused(&d, "bad.toml", text, &["list"], expected);
    }
    let missing = run(
        &["list", "--config", "/nonexistent/gateway.toml"],
        &d.workspace,
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read the configuration"));
}

#[test]
fn an_upstream_that_does_not_start_is_named() {
    let d = dirs();
    let path = d.config.join("gateway.toml");
    std::fs::write(
        &path,
        "[[upstream]]\nnamespace = \"ghost\"\ncommand = \"/nonexistent/mcp-server\"\n",
    )
    .unwrap();
    let output = run(&["list", "--config", path.to_str().unwrap()], &d.workspace);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the upstream `ghost` did not start"),
        "{}",
        stderr(&output)
    );
}

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
fn an_oauth_upstream_without_a_token_is_named_and_its_secret_is_not() {
    let d = dirs();
    let secret = d.config.join("client.secret");
    std::fs::write(&secret, "client-secret-0123456789\n").unwrap();
    let config = d.config.join("gateway.toml");
    // Nothing listens on port 9: no metadata, no token.
    std::fs::write(
        &config,
        format!(
            "[[upstream]]\nnamespace = \"web\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = {{ client_id = \"toolwright\", client_secret_file = {} }}\n\
             [[upstream]]\nnamespace = \"other\"\nurl = \"http://127.0.0.1:9/mcp\"\n\
             oauth = {{ client_id = \"toolwright\", client_secret_env = \"TOOLWRIGHT_TEST_UNSET\" }}\n",
            toml_string(&secret.display().to_string())
        ),
    )
    .unwrap();
    let output = run(
        &["list", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("the upstream `web` did not start"), "{text}");
    assert!(
        text.contains("OAuth client credentials for upstream `http://127.0.0.1:9/mcp`"),
        "{text}"
    );
    assert!(!text.contains("client-secret-0123456789"), "{text}");

    // The second upstream alone: its variable is not set.
    let text = std::fs::read_to_string(&config).unwrap();
    let second = &text[text.rfind("[[upstream]]").unwrap()..];
    std::fs::write(&config, second).unwrap();
    let output = run(
        &["list", "--config", config.to_str().unwrap()],
        &d.workspace,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "could not read the OAuth client secret for upstream `http://127.0.0.1:9/mcp` from \
             the environment variable TOOLWRIGHT_TEST_UNSET"
        ),
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

#[tokio::test]
async fn serve_offers_the_mounted_tools_to_an_mcp_client_under_our_policy() {
    let d = dirs();
    let config = gateway(
        &d.config,
        &d.upstream,
        "tools = { \"read_file\" = \"safe\" }\n",
    );
    let root = d.workspace.clone();
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|command| {
            command
                .arg("serve")
                .arg("--root")
                .arg(&root)
                .arg("--config")
                .arg(&config);
        }))
        .unwrap();
    let client = ().serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(names.contains(&"inner_read_file"), "{names:?}");
    assert!(names.contains(&"inner_write_file"), "{names:?}");

    let read = client
        .call_tool(
            CallToolRequestParams::new("inner_read_file")
                .with_arguments(json!({"path": "note.txt"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(read.is_error, Some(true), "{read:?}");
    assert!(
        serde_json::to_string(&read.content)
            .unwrap()
            .contains("from the upstream")
    );

    // Dangerous by default: this client cannot approve (no elicitation), so it is refused
    // and nothing is written upstream.
    let write = client
        .call_tool(
            CallToolRequestParams::new("inner_write_file").with_arguments(
                json!({"path": "pwned.txt", "content": "x"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(write.is_error, Some(true), "{write:?}");
    assert!(!d.upstream.join("pwned.txt").exists());
    client.cancel().await.unwrap();
}

/// The hostile stdio server of `tests/gateway/hostile_server.py`: tools that read, write and
/// connect wherever they are told.
const HOSTILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/gateway/hostile_server.py"
);

/// A configuration mounting the hostile server as `hostile`, its tools cautious (so every
/// call is in the audit log), with `confinement` (a `sandbox = ...` or `unconfined = true`
/// line).
fn hostile(config_dir: &Path, confinement: &str) -> PathBuf {
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
fn call_tool(config: &Path, audit: &Path, tool: &str, arguments: Value, cwd: &Path) -> Output {
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

/// `serve --config FILE` with `FILE`'s `[serve]` options, and `extra` arguments after
/// them; the tools an MCP client is offered.
async fn served_tools(config: &Path, root: &Path, extra: &[&str]) -> Vec<String> {
    let (config, root) = (config.to_owned(), root.to_owned());
    let extra: Vec<String> = extra.iter().map(|arg| (*arg).to_owned()).collect();
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|command| {
            command
                .arg("serve")
                .arg("--root")
                .arg(&root)
                .arg("--config")
                .arg(&config)
                .args(&extra);
        }))
        .unwrap();
    let client = ().serve(transport).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    client.cancel().await.unwrap();
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn serve_takes_its_options_from_the_configuration_and_the_command_line_wins() {
    let d = dirs();
    let config = gateway(
        &d.config,
        &d.upstream,
        "tools = { \"read_file\" = \"safe\" }\n\n[serve]\nmax_safety = \"safe\"\n",
    );
    let tools = served_tools(&config, &d.workspace, &[]).await;
    assert!(tools.iter().any(|t| t == "inner_read_file"), "{tools:?}");
    assert!(
        !tools
            .iter()
            .any(|t| t == "inner_write_file" || t == "run_command"),
        "the file's max_safety = safe was not applied: {tools:?}"
    );
    let tools = served_tools(&config, &d.workspace, &["--max-safety", "dangerous"]).await;
    assert!(
        tools.iter().any(|t| t == "inner_write_file"),
        "the command line did not win: {tools:?}"
    );
}

#[test]
fn serve_options_in_the_configuration_are_checked_with_their_line() {
    let d = dirs();
    let cases = [
        (
            "[serve]\nmax_safety = \"harmless\"\n",
            ":2: `[serve]` `max_safety`: invalid value 'harmless'",
        ),
        (
            "\n[serve]\nhtp = \"127.0.0.1:0\"\n",
            ":3: `serve` has no option `htp`; did you mean `http`?",
        ),
        (
            "[serve]\nallow_dangerous = \"yes\"\n",
            ":2: `allow_dangerous` takes true or false, not a string",
        ),
        (
            "[serve]\ntimeout = [1, 2]\n",
            ":2: `timeout` takes one value, not a list",
        ),
        (
            "[serve]\nconfig = \"other.toml\"\n",
            ":2: `[serve]` cannot name another configuration",
        ),
        (
            "[serve]\nallow_origin = [\"https://a\"]\n",
            "required arguments were not provided: --http",
        ),
    ];
    let root = d.workspace.to_str().unwrap().to_owned();
    for (text, expected) in cases {
        assert_refused(
            &d,
            "serve.toml",
            text,
            &["serve", "--root", &root],
            expected,
        );
    }
}

/// Writes `text` to the configuration `file` and runs `args --config file`: a usage error
/// (exit code 2) that names the file and says `expected`.
fn assert_refused(d: &Dirs, file: &str, text: &str, args: &[&str], expected: &str) {
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
