//! `toolwright serve` against rmcp's client: over stdio (a child process) and streamable HTTP.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Value, json};

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap()
}

async fn exercise<S: rmcp::Service<rmcp::RoleClient>>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, S>,
    root: &std::path::Path,
) {
    let tools = client.list_all_tools().await.unwrap();
    // Every standard tool but run_code (offered with --code-mode).
    assert_eq!(tools.len(), toolwright_std::TOOL_NAMES.len() - 1);
    let read = tools.iter().find(|t| t.name == "read_file").unwrap();
    assert_eq!(
        read.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );

    let result = client
        .call_tool(
            CallToolRequestParams::new("read_file")
                .with_arguments(args(json!({"path": "hello.txt"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.content[0].as_text().unwrap().text, "hello\n");

    let result = client
        .call_tool(CallToolRequestParams::new("read_file").with_arguments(args(json!({"path": 3}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));

    let err = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await
        .unwrap_err();
    assert!(matches!(err, ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS));

    let result = client
        .call_tool(
            CallToolRequestParams::new("write_file")
                .with_arguments(args(json!({"path": "pwned.txt", "content": "x"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(!root.join("pwned.txt").exists());
}

#[tokio::test]
async fn over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello\n").unwrap();
    let root = dir.path().to_owned();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_toolwright")).configure(|command| {
            command.arg("serve").arg("--root").arg(&root);
        }),
    )
    .unwrap();
    let client = ().serve(transport).await.unwrap();
    exercise(&client, dir.path()).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_streamable_http() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello\n").unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--root"])
        .arg(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for "listening on ...".
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(
        line.contains(&format!("listening on http://127.0.0.1:{port}/mcp")),
        "{line}"
    );

    let client = ()
        .serve(StreamableHttpClientTransport::from_uri(format!(
            "http://127.0.0.1:{port}/mcp"
        )))
        .await
        .unwrap();
    exercise(&client, dir.path()).await;
    client.cancel().await.unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
}

/// A section of the book's chapter on desktop clients: from its heading to the next heading
/// of the same or a higher level (outside code blocks).
fn book_section(heading: &str) -> String {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../book/src/desktop-clients.md"
    ))
    .unwrap();
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = readme.lines().skip_while(|line| *line != heading);
    assert!(lines.next().is_some(), "the chapter has no `{heading}`");
    let mut in_code = false;
    let mut section = Vec::new();
    for line in lines {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !in_code && (1..=level).contains(&hashes) && line[hashes..].starts_with(' ') {
            break;
        }
        section.push(line);
    }
    section.join("\n")
}

/// The fenced code blocks of a piece of Markdown: (info string, text).
fn code_blocks(markdown: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let text: Vec<&str> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .collect();
            blocks.push((info.to_owned(), text.join("\n")));
        }
    }
    blocks
}

/// Sends one JSON-RPC message as a line.
fn send(stdin: &mut impl Write, message: Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

/// Reads lines until the response to `id` (skipping notifications the server may send).
fn response(stdout: &mut impl BufRead, id: u64) -> Value {
    loop {
        let mut line = String::new();
        assert_ne!(
            stdout.read_line(&mut line).unwrap(),
            0,
            "the server closed stdout"
        );
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            assert!(message.get("error").is_none(), "{message}");
            return message["result"].clone();
        }
    }
}

/// The book's "Claude Desktop and Cursor" (book/src/desktop-clients.md), run the way those clients run it:
/// the configured command by its absolute path, with the configured arguments (the project
/// swapped for a temporary one), in an unrelated empty directory, with only PATH and HOME,
/// speaking raw JSON-RPC lines over stdio; the tools listed are the ones the chapter shows.
#[test]
fn readme_client_config() {
    let section = book_section("# Claude Desktop and Cursor");
    let blocks = code_blocks(&section);
    let configs: Vec<Value> = blocks
        .iter()
        .filter(|(info, text)| info == "json" && text.contains("mcpServers"))
        .map(|(_, text)| serde_json::from_str(text).unwrap())
        .collect();
    assert_eq!(configs.len(), 2, "Claude Desktop's and Cursor's");
    let shown_names: Vec<&str> = blocks
        .iter()
        .find(|(info, _)| info == "text")
        .map(|(_, text)| text.split_whitespace().collect())
        .unwrap();
    let excerpt: Value = blocks
        .iter()
        .filter(|(info, text)| info == "json" && !text.contains("mcpServers"))
        .map(|(_, text)| serde_json::from_str(text).unwrap())
        .next()
        .unwrap();

    for config in configs {
        let server = &config["mcpServers"]["toolwright"];
        let command = server["command"].as_str().unwrap();
        assert!(std::path::Path::new(command).is_absolute(), "{command}");
        assert!(command.ends_with("/toolwright"), "{command}");
        let project = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let configured: Vec<&str> = server["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let root_at = configured.iter().position(|a| *a == "--root").unwrap() + 1;
        let mut args: Vec<std::ffi::OsString> = configured.iter().map(Into::into).collect();
        args[root_at] = project.path().into();

        let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(&args)
            .current_dir(cwd.path())
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        send(
            &mut stdin,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "claude-ai", "version": "0.1.0"}
            }}),
        );
        let initialized = response(&mut stdout, 1);
        assert_eq!(initialized["serverInfo"]["name"], "toolwright");
        assert!(
            initialized["instructions"]
                .as_str()
                .unwrap()
                .contains(&project.path().canonicalize().unwrap().display().to_string()),
            "{initialized}"
        );
        send(
            &mut stdin,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        let mut tools: Vec<Value> = Vec::new();
        let mut cursor = Value::Null;
        for id in 2.. {
            let params = if cursor.is_null() {
                json!({})
            } else {
                json!({"cursor": cursor})
            };
            send(
                &mut stdin,
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}),
            );
            let page = response(&mut stdout, id);
            tools.extend(page["tools"].as_array().unwrap().iter().cloned());
            cursor = page.get("nextCursor").cloned().unwrap_or(Value::Null);
            if cursor.is_null() {
                break;
            }
        }
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names, shown_names,
            "the book shows other tools than are listed"
        );

        let tool = tools.iter().find(|t| t["name"] == excerpt["name"]).unwrap();
        for (key, value) in excerpt.as_object().unwrap() {
            assert_eq!(
                &tool[key], value,
                "the book's excerpt of {}: {key}",
                excerpt["name"]
            );
        }

        // The client quits: stdin closes and the server ends.
        drop(stdin);
        assert!(child.wait().unwrap().success());
    }
}

/// `--skills DIR`: the skills listed and read over stdio, beside the workspace's files as
/// resources; a link out of a skill's folder is left out (and said so), never served.
#[tokio::test]
async fn serves_the_skills_of_a_directory_and_the_workspaces_files() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("hello.txt"), "hello\n").unwrap();
    let skills = tempfile::tempdir().unwrap();
    let review = skills.path().join("review");
    std::fs::create_dir(&review).unwrap();
    std::fs::write(
        review.join("SKILL.md"),
        "---\nname: review\ndescription: Review code the team's way.\n---\n# Review\n",
    )
    .unwrap();
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret.path(), "the secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(secret.path(), review.join("leak.md")).unwrap();

    let (root_path, skills_path) = (root.path().to_owned(), skills.path().to_owned());
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_toolwright")).configure(|command| {
            command
                .arg("serve")
                .arg("--root")
                .arg(&root_path)
                .arg("--skills")
                .arg(&skills_path);
        }),
    )
    .unwrap();
    let client = ().serve(transport).await.unwrap();
    let capabilities = &client.peer_info().unwrap().capabilities;
    assert!(capabilities.supports_skills(), "{capabilities:?}");

    let listed: Value = client
        .send_request(rmcp::model::ClientRequest::ListSkillsRequest(
            rmcp::model::ListSkillsRequest::default(),
        ))
        .await
        .map(|result| serde_json::to_value(result).unwrap())
        .unwrap();
    assert_eq!(
        listed["skills"][0]["uri"], "skill://review/SKILL.md",
        "{listed}"
    );
    assert!(!listed.to_string().contains("leak.md"), "{listed}");

    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "skill://review/SKILL.md",
        ))
        .await
        .unwrap();
    let text = serde_json::to_value(&read.contents[0]).unwrap();
    assert!(
        text["text"].as_str().unwrap().contains("# Review"),
        "{text}"
    );
    let leak = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "skill://review/leak.md",
        ))
        .await;
    assert!(leak.is_err(), "{leak:?}");

    let file = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "file:///hello.txt",
        ))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&file.contents[0]).unwrap()["text"],
        "hello\n"
    );
    client.cancel().await.unwrap();
}
