//! `toolwright serve --http` as a team deploys it: the safe default, authentication flags, the
//! HTTP options, JSON logs, and the drain on SIGTERM. Real processes, real HTTP on loopback;
//! every wait is for an event (a line on stderr, the process ending).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};

use reqwest::StatusCode;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use toolwright_core::SafetyLevel;
use toolwright_runtime::ToolFilter;

const SAFE_TOKEN: &str = "safe-token-0123456789abcdef";
const ALL_TOKEN: &str = "all-token-0123456789abcdef";

/// A running `toolwright serve --http`.
struct Server {
    child: Child,
    stderr: BufReader<ChildStderr>,
    /// `http://host:port`, as the server printed it.
    base: String,
    /// What it logged before it listened.
    early: Vec<String>,
}

impl Server {
    fn start(args: &[&str], env: &[(&str, &str)], root: &Path) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command
            .arg("serve")
            .args(args)
            .arg("--root")
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        // Owned by `Server` from here, so a failing test still ends the process.
        let mut server = Server {
            child,
            stderr,
            base: String::new(),
            early: Vec::new(),
        };
        loop {
            let mut line = String::new();
            let read = server.stderr.read_line(&mut line).unwrap();
            assert_ne!(
                read, 0,
                "the server stopped before listening: {:?}",
                server.early
            );
            if let Some((_, url)) = line.split_once("listening on ") {
                let url = url.split_whitespace().next().unwrap();
                server.base = url.trim_end_matches("/mcp").to_owned();
                return server;
            }
            server.early.push(line);
        }
    }

    /// The base URL on 127.0.0.1 (the server may listen on 0.0.0.0).
    fn local(&self) -> String {
        self.base.replace("0.0.0.0", "127.0.0.1")
    }

    fn mcp(&self) -> String {
        format!("{}/mcp", self.local())
    }

    /// Sends SIGTERM; the exit code and the rest of stderr.
    fn terminate(mut self) -> (Option<i32>, String) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        (self.child.wait().unwrap().code(), rest)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // After `terminate` the process has ended and this does nothing.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize_body() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "deploy-test", "version": "0.0.1"}
        }
    })
}

fn post(web: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
    web.post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string())
}

fn token_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("tokens");
    std::fs::write(
        &path,
        format!("# the team\n{SAFE_TOKEN} tools:safe\n{ALL_TOKEN}\n"),
    )
    .unwrap();
    path
}

#[test]
fn a_non_loopback_address_without_authentication_exits_2() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["serve", "--http", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for needle in [
        "refusing to serve 0.0.0.0:0 without authentication",
        "--auth-token-file",
        "--jwks-file",
        "--insecure-no-auth",
    ] {
        assert!(stderr.contains(needle), "no `{needle}` in {stderr}");
    }
}

#[test]
fn http_flags_need_http_and_tokens_never_come_from_the_command_line() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["serve", "--auth-token-file", "tokens"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--http <ADDR>"));
    let output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--auth-token-env",
            "TOOLWRIGHT_TEST_NO_SUCH_VARIABLE",
        ])
        .env_remove("TOOLWRIGHT_TEST_NO_SUCH_VARIABLE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("the environment variable TOOLWRIGHT_TEST_NO_SUCH_VARIABLE is not set")
    );
}

#[tokio::test]
async fn insecure_no_auth_serves_with_a_json_warning_and_drains_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        &[
            "--http",
            "0.0.0.0:0",
            "--insecure-no-auth",
            "--log-format",
            "json",
        ],
        &[],
        dir.path(),
    );
    let warning = server
        .early
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|log| log["level"] == "WARN")
        .unwrap_or_else(|| panic!("no JSON warning in {:?}", server.early));
    let message = warning["fields"]["message"].as_str().unwrap();
    assert!(message.contains("without authentication"), "{warning}");

    let web = reqwest::Client::new();
    let health = web
        .get(format!("{}/healthz", server.local()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let served = post(&web, &server.mcp(), &initialize_body())
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), StatusCode::OK);

    let (code, rest) = server.terminate();
    assert_eq!(code, Some(0), "{rest}");
    assert!(rest.contains("SIGTERM: draining"), "{rest}");
    assert!(rest.contains("toolwright: stopped"), "{rest}");
}

#[tokio::test]
async fn tokens_from_a_file_set_what_a_client_sees() {
    let dir = tempfile::tempdir().unwrap();
    // Outside the workspace: `serve` refuses a token file its tools could read.
    let secrets = tempfile::tempdir().unwrap();
    let tokens = token_file(secrets.path());
    let server = Server::start(
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-token-file",
            tokens.to_str().unwrap(),
        ],
        &[],
        dir.path(),
    );
    let web = reqwest::Client::new();
    let refused = post(&web, &server.mcp(), &initialize_body())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
            server.base
        )
    );

    let config =
        StreamableHttpClientTransportConfig::with_uri(server.mcp()).auth_header(SAFE_TOKEN);
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    let mut seen: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    seen.sort();
    let mut safe: Vec<String> = toolwright_std::registry()
        .unwrap()
        .list(&ToolFilter::new().max_safety(SafetyLevel::Safe))
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    safe.sort();
    assert_eq!(seen, safe);
    let result = client
        .call_tool(
            CallToolRequestParams::new("write_file").with_arguments(
                json!({"path": "pwned.txt", "content": "x"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.contains("above this caller's limit of safe"), "{text}");
    assert!(!dir.path().join("pwned.txt").exists());
    client.cancel().await.unwrap();

    let (code, rest) = server.terminate();
    assert_eq!(code, Some(0), "{rest}");
}

#[tokio::test]
async fn a_token_from_the_environment_and_the_public_resource_url() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-token-env",
            "TOOLWRIGHT_TEST_TOKEN",
            "--resource-url",
            "https://tools.example.test",
        ],
        &[("TOOLWRIGHT_TEST_TOKEN", ALL_TOKEN)],
        dir.path(),
    );
    let web = reqwest::Client::new();
    let served = post(&web, &server.mcp(), &initialize_body())
        .bearer_auth(ALL_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    // The resource URL's host is accepted as Host (a proxy forwards it).
    let refused = post(&web, &server.mcp(), &initialize_body())
        .header("host", "tools.example.test")
        .bearer_auth(SAFE_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        refused.headers()["www-authenticate"].to_str().unwrap(),
        "Bearer error=\"invalid_token\", error_description=\"the token is not valid for this \
         server\", resource_metadata=\"https://tools.example.test/.well-known/oauth-protected-resource\""
    );
    let metadata: Value = web
        .get(format!(
            "{}/.well-known/oauth-protected-resource",
            server.local()
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], "https://tools.example.test");
    let (code, rest) = server.terminate();
    assert_eq!(code, Some(0), "{rest}");
}

#[tokio::test]
async fn jwts_checked_against_a_jwks_file_with_the_resource_as_audience() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-mcp/tests/data");
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        &[
            "--http",
            "127.0.0.1:0",
            "--jwks-file",
            data.join("jwks.json").to_str().unwrap(),
            "--jwt-issuer",
            "https://login.example.test",
            "--resource-url",
            "https://tools.example.test",
        ],
        &[],
        dir.path(),
    );
    let now = jsonwebtoken::get_current_timestamp();
    let sign = |audience: &str| {
        let key =
            jsonwebtoken::EncodingKey::from_ec_pem(&std::fs::read(data.join("ec-1.pem")).unwrap())
                .unwrap();
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some("ec-1".to_owned());
        let claims = json!({
            "iss": "https://login.example.test",
            "aud": audience,
            "sub": "bob",
            "exp": now + 600,
            "scope": "tools:safe",
        });
        jsonwebtoken::encode(&header, &claims, &key).unwrap()
    };
    let web = reqwest::Client::new();
    let served = post(&web, &server.mcp(), &initialize_body())
        .bearer_auth(sign("https://tools.example.test"))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    let refused = post(&web, &server.mcp(), &initialize_body())
        .bearer_auth(sign("https://elsewhere.example.test"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let (code, rest) = server.terminate();
    assert_eq!(code, Some(0), "{rest}");
}

#[tokio::test]
async fn http_flags_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        &[
            "--http",
            "127.0.0.1:0",
            "--stateless",
            "--max-body-bytes",
            "2048",
            "--allow-origin",
            "http://app.example.test:8080",
            "--allow-host",
            "tools.example.test",
            "--max-sessions",
            "4",
            "--session-idle-secs",
            "60",
            "--drain-timeout",
            "5",
        ],
        &[],
        dir.path(),
    );
    let web = reqwest::Client::new();
    let call = json!({
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "calculate", "arguments": {"expression": "6 * 7"}}
    });
    let served = post(&web, &server.mcp(), &call)
        .header("host", "tools.example.test")
        .header("origin", "http://app.example.test:8080")
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    assert!(served.headers().get("mcp-session-id").is_none());
    let answer: Value = served.json().await.unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("42"),
        "{answer}"
    );

    let evil_origin = post(&web, &server.mcp(), &call)
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(evil_origin.status(), StatusCode::FORBIDDEN);
    let evil_host = post(&web, &server.mcp(), &call)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(evil_host.status(), StatusCode::FORBIDDEN);
    let mut big = call.clone();
    big["params"]["arguments"]["expression"] = json!("1".repeat(4096));
    let too_big = post(&web, &server.mcp(), &big).send().await.unwrap();
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);

    let (code, rest) = server.terminate();
    assert_eq!(code, Some(0), "{rest}");
    assert!(rest.contains("up to 5s"), "{rest}");
}

/// A Redis URL with a password on the command line (visible to every user through `ps`) is
/// refused, saying how to pass it instead, and the password is not echoed.
#[test]
fn a_redis_password_on_the_command_line_is_refused() {
    for url in [
        "redis://:hunter2-secret@127.0.0.1:1/0",
        "redis+unix:///run/redis.sock?db=0&pass=hunter2-secret",
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["serve", "--http", "127.0.0.1:0", "--session-store", url])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{url}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        for needle in ["password", "--session-store-file", "--session-store-env"] {
            assert!(stderr.contains(needle), "no `{needle}` in {stderr}");
        }
        assert!(!stderr.contains("hunter2"), "{stderr}");
    }
}

/// A `redis-server` with a password on a Unix socket in a temporary directory, killed on
/// drop; `None` (after saying so) when it is not installed and TOOLWRIGHT_REQUIRE_SERVICES is
/// not `1`.
struct Redis {
    child: Child,
    dir: tempfile::TempDir,
}

impl Redis {
    fn start(password: &str) -> Option<Redis> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let Some(binary) = std::env::split_paths(&path)
            .map(|dir| dir.join("redis-server"))
            .find(|candidate| candidate.is_file())
        else {
            assert_ne!(
                std::env::var("TOOLWRIGHT_REQUIRE_SERVICES").as_deref(),
                Ok("1"),
                "redis-server is not installed and TOOLWRIGHT_REQUIRE_SERVICES=1: install it \
                 (`apt-get install redis-server`)"
            );
            eprintln!("SKIPPED: redis-server is not installed (`apt-get install redis-server`)");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        // The password goes in a configuration file, not redis-server's own arguments.
        let config = dir.path().join("redis.conf");
        std::fs::write(
            &config,
            format!(
                "port 0\nunixsocket {}\nunixsocketperm 700\nsave \"\"\nappendonly no\n\
                 requirepass {password}\ndir {}\n",
                dir.path().join("redis.sock").display(),
                dir.path().display()
            ),
        )
        .unwrap();
        let child = Command::new(binary)
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut redis = Redis { child, dir };
        redis.wait_until_it_answers();
        Some(redis)
    }

    fn socket(&self) -> std::path::PathBuf {
        self.dir.path().join("redis.sock")
    }

    /// Waits until the socket answers PING (`-NOAUTH`, with a password: an answer), failing
    /// if the server exits or the deadline passes.
    fn wait_until_it_answers(&mut self) {
        use std::io::Write;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        loop {
            if let Ok(mut stream) = std::os::unix::net::UnixStream::connect(self.socket()) {
                let mut line = String::new();
                if stream.write_all(b"PING\r\n").is_ok()
                    && BufReader::new(stream).read_line(&mut line).is_ok()
                    && !line.is_empty()
                {
                    return;
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("redis-server exited ({status}) before answering");
            }
            assert!(
                std::time::Instant::now() < deadline,
                "redis-server did not answer"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The session store's URL, password and all, comes from a file or an environment variable:
/// the server connects with it, and neither its arguments (what `ps` shows) nor its logs hold
/// the password.
#[tokio::test]
async fn the_session_store_url_comes_from_a_file_or_the_environment_never_argv() {
    const PASSWORD: &str = "hunter2-store-secret";
    let Some(redis) = Redis::start(PASSWORD) else {
        return;
    };
    let url = format!("redis+unix://{}?pass={PASSWORD}", redis.socket().display());
    let dir = tempfile::tempdir().unwrap();
    let secrets = tempfile::tempdir().unwrap();
    let file = secrets.path().join("session-store-url");
    std::fs::write(&file, format!("{url}\n")).unwrap();
    // The flags, and the environment, of each way.
    type Way<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>);
    let ways: [Way; 2] = [
        (
            vec!["--session-store-file", file.to_str().unwrap()],
            Vec::new(),
        ),
        (
            vec!["--session-store-env", "TOOLWRIGHT_TEST_STORE_URL"],
            vec![("TOOLWRIGHT_TEST_STORE_URL", url.as_str())],
        ),
    ];
    for (flags, env) in ways {
        let mut args = vec!["--http", "127.0.0.1:0"];
        args.extend(flags.iter().copied());
        let server = Server::start(&args, &env, dir.path());
        let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.child.id()))
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        assert!(!cmdline.contains(PASSWORD), "{flags:?}: {cmdline}");
        let early = server.early.join("");
        assert!(!early.contains(PASSWORD), "{flags:?}: {early}");
        // It connected with the password (the store PINGs Redis before the server listens),
        // and serves.
        let web = reqwest::Client::new();
        let opened = post(&web, &server.mcp(), &initialize_body())
            .send()
            .await
            .unwrap();
        assert_eq!(opened.status(), StatusCode::OK, "{flags:?}");
        let (code, rest) = server.terminate();
        assert_eq!(code, Some(0), "{rest}");
        assert!(!rest.contains(PASSWORD), "{flags:?}: {rest}");
    }
}
