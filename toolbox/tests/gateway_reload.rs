//! `toolwright serve --config` as an operator runs it all day: its upstreams supervised (a
//! crashed one comes back), the file reloaded on SIGHUP (an upstream added, a bad file
//! refused with the running configuration kept), seen by an MCP client over stdio. Every
//! wait is on an event (the client's `tools/list_changed`, a line on the server's stderr)
//! with a generous deadline.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::json;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

const BIN: &str = env!("CARGO_BIN_EXE_toolwright");
const DEADLINE: Duration = Duration::from_secs(120);

/// The test MCP server of the gateway library's supervision tests.
const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tool-gateway/tests/support/lifecycle_server.py"
);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

/// A client that says when the server's tool list changed.
struct Watcher(mpsc::UnboundedSender<()>);

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

struct Served {
    client: RunningService<RoleClient, Watcher>,
    changes: mpsc::UnboundedReceiver<()>,
    stderr: mpsc::UnboundedReceiver<String>,
    pid: u32,
}

impl Served {
    async fn start(config: &Path, root: &Path) -> Self {
        let mut command = tokio::process::Command::new(BIN);
        command
            .arg("serve")
            .arg("--root")
            .arg(root)
            .arg("--config")
            .arg(config);
        let (transport, stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = transport.id().unwrap();
        let (lines, stderr_rx) = mpsc::unbounded_channel();
        let mut reader = tokio::io::BufReader::new(stderr.unwrap()).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = reader.next_line().await {
                eprintln!("serve: {line}");
                let _ = lines.send(line);
            }
        });
        let (tx, changes) = mpsc::unbounded_channel();
        let client = within("connect", Watcher(tx).serve(transport))
            .await
            .unwrap();
        Served {
            client,
            changes,
            stderr: stderr_rx,
            pid,
        }
    }

    async fn tools(&self) -> Vec<String> {
        let tools = self.client.list_all_tools().await.unwrap();
        tools.iter().map(|t| t.name.to_string()).collect()
    }

    /// Waits until the listed tools satisfy `ready`, listing again after each
    /// `list_changed`.
    async fn until_tools(&mut self, what: &str, ready: impl Fn(&[String]) -> bool) {
        within(what, async {
            loop {
                while self.changes.try_recv().is_ok() {}
                if ready(&self.tools().await) {
                    return;
                }
                self.changes.recv().await.unwrap();
            }
        })
        .await;
    }

    /// Waits for a line of stderr that has `text`.
    async fn said(&mut self, text: &str) -> String {
        within(&format!("stderr: {text}"), async {
            loop {
                let line = self.stderr.recv().await.unwrap();
                if line.contains(text) {
                    return line;
                }
            }
        })
        .await
    }

    async fn echo(&self, tool: &str, text: &str) -> Result<String, String> {
        let result = self
            .client
            .call_tool(
                CallToolRequestParams::new(tool.to_owned())
                    .with_arguments(json!({"text": text}).as_object().unwrap().clone()),
            )
            .await
            .map_err(|error| error.to_string())?;
        let shown = serde_json::to_string(&result.content).unwrap();
        if result.is_error == Some(true) {
            Err(shown)
        } else {
            Ok(shown)
        }
    }

    fn hangup(&self) {
        let status = std::process::Command::new("kill")
            .args(["-HUP", &self.pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

fn upstream(namespace: &str) -> String {
    format!(
        "[[upstream]]\nnamespace = \"{namespace}\"\ncommand = \"python3\"\nargs = [\"{SERVER}\"]\n\
         unconfined = true\ntools = {{ \"*\" = \"safe\" }}\n"
    )
}

fn write(path: &PathBuf, upstreams: &[&str]) {
    let mut text = "[supervise]\nbackoff_initial = 0.01\nbackoff_max = 0.05\n\n".to_owned();
    for namespace in upstreams {
        text.push_str(&upstream(namespace));
    }
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_reloads_on_sighup_keeps_a_bad_file_out_and_brings_a_crashed_upstream_back() {
    let (config_dir, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = config_dir.path().join("gateway.toml");
    write(&config, &["a"]);
    let mut served = Served::start(&config, root.path()).await;
    served
        .until_tools("a mounted", |tools| tools.iter().any(|t| t == "a_echo"))
        .await;
    assert!(served.echo("a_echo", "one").await.unwrap().contains("one"));

    // SIGHUP with an upstream added: it is served beside the first, in the same session.
    write(&config, &["a", "b"]);
    served.hangup();
    let line = served.said("SIGHUP: reloaded").await;
    assert!(
        line.contains("started: b") && line.contains("unchanged: a"),
        "{line}"
    );
    served
        .until_tools("b mounted", |tools| tools.iter().any(|t| t == "b_echo"))
        .await;
    assert!(served.echo("b_echo", "two").await.unwrap().contains("two"));

    // A file that does not load: refused, with its reason; both still answer.
    std::fs::write(&config, "[[upstream]]\nnamespace = \"a\"\ncomm").unwrap();
    served.hangup();
    let line = served.said("SIGHUP: refused the new configuration").await;
    assert!(line.contains("gateway.toml"), "{line}");
    assert!(
        served
            .echo("a_echo", "three")
            .await
            .unwrap()
            .contains("three")
    );
    assert!(
        served
            .echo("b_echo", "four")
            .await
            .unwrap()
            .contains("four")
    );

    // An upstream that crashes is withdrawn and comes back after its backoff.
    assert!(served.echo("a_crash", "").await.is_err());
    served.said("upstream down").await;
    served
        .until_tools("a back", |tools| tools.iter().any(|t| t == "a_echo"))
        .await;
    assert!(
        served
            .echo("a_echo", "five")
            .await
            .unwrap()
            .contains("five")
    );
    served.client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_http_answers_for_the_others_while_one_upstream_is_mute() {
    let (config_dir, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = config_dir.path().join("gateway.toml");
    let mute_log = config_dir.path().join("mute.log");
    // The mute one first, with the longest handshake allowed: the old start waited for it,
    // then exited.
    let text = format!(
        "[[upstream]]\nnamespace = \"mute\"\ncommand = \"python3\"\n\
         args = [\"{SERVER}\", \"--mute\", \"--log\", \"{}\"]\nunconfined = true\n\
         supervise = {{ handshake_timeout = 60 }}\n\n{}",
        mute_log.display(),
        upstream("talker")
    );
    std::fs::write(&config, text).unwrap();
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let mut server = tokio::process::Command::new(BIN)
        .arg("serve")
        .arg("--http")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--root")
        .arg(root.path())
        .arg("--config")
        .arg(&config)
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = tokio::io::BufReader::new(server.stderr.take().unwrap()).lines();
    let base = format!("http://127.0.0.1:{port}");
    let web = reqwest::Client::new();
    // Accepting at once; ready only when every first start ended.
    let readyz = within("readyz", async {
        loop {
            if let Ok(response) = web.get(format!("{base}/readyz")).send().await {
                break response;
            }
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert_eq!(readyz.status(), reqwest::StatusCode::SERVICE_UNAVAILABLE);
    let (tx, mut changes) = mpsc::unbounded_channel();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(format!("{base}/mcp"));
    let client = within("connect", Watcher(tx).serve(transport))
        .await
        .unwrap();
    within("talker's tools", async {
        loop {
            while changes.try_recv().is_ok() {}
            let tools = client.list_all_tools().await.unwrap();
            if tools.iter().any(|t| t.name == "talker_echo") {
                return;
            }
            changes.recv().await.unwrap();
        }
    })
    .await;
    let result = client
        .call_tool(
            CallToolRequestParams::new("talker_echo")
                .with_arguments(json!({"text": "first"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    // The mute one got its `initialize` and is still in that handshake: /readyz says so.
    within("the mute one's initialize", async {
        // The server's log is a file: read again soon.
        while !std::fs::read_to_string(&mute_log)
            .unwrap_or_default()
            .contains("initialize")
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let readyz = web.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(readyz.status(), reqwest::StatusCode::SERVICE_UNAVAILABLE);
    let body = readyz.text().await.unwrap();
    assert!(body.contains("upstream mute: starting"), "{body}");
    assert!(body.contains("upstream talker: up"), "{body}");
    // Nor has the server announced itself yet (it does once every first start ended).
    while let Ok(Some(line)) = tokio::time::timeout(Duration::from_millis(1), stderr.next_line())
        .await
        .unwrap_or(Ok(None))
    {
        assert!(!line.contains("listening"), "{line}");
    }
    drop(client);
    server.kill().await.unwrap();
}

/// Runs `toolwright ARGS` to its end within the deadline: status, stdout, stderr.
async fn run_to_end(args: &[&str], root: &Path) -> (Option<i32>, String, String) {
    let child = tokio::process::Command::new(BIN)
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let output = within(
        &format!("toolwright {}", args.join(" ")),
        child.wait_with_output(),
    )
    .await
    .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_and_list_mount_concurrently_past_a_mute_and_a_broken_upstream() {
    let (config_dir, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = config_dir.path().join("gateway.toml");
    let mute_log = config_dir.path().join("mute.log");
    // The mute one first, with a handshake of ten minutes: mounting in the file's order
    // (as `call` did) waits for it far past this test's deadline.
    let mute = format!(
        "[[upstream]]\nnamespace = \"mute\"\ncommand = \"python3\"\n\
         args = [\"{SERVER}\", \"--mute\", \"--log\", \"{}\"]\nunconfined = true\n\
         supervise = {{ handshake_timeout = 600 }}\n\n",
        mute_log.display()
    );
    let ghost = "[[upstream]]\nnamespace = \"ghost\"\ncommand = \"/nonexistent/mcp-server\"\n\
                 unconfined = true\n\n";
    // The talker's `wait` answers once `gate` exists; the test makes it only when the
    // mute one has its `initialize`.
    let gate = config_dir.path().join("gate");
    let talker = format!(
        "[[upstream]]\nnamespace = \"talker\"\ncommand = \"python3\"\n\
         args = [\"{SERVER}\", \"--gate\", \"{}\"]\nunconfined = true\n\
         tools = {{ \"*\" = \"safe\" }}\n",
        gate.display()
    );
    std::fs::write(&config, format!("{mute}{ghost}{talker}")).unwrap();
    let config_arg = config.to_str().unwrap();
    let call = {
        let (config_arg, root) = (config_arg.to_owned(), root.path().to_owned());
        tokio::spawn(async move {
            run_to_end(
                &["call", "talker_wait", "{}", "--config", &config_arg],
                &root,
            )
            .await
        })
    };
    // The mute one got its `initialize` (it never answers it)...
    within("the mute one's initialize", async {
        // The server's log is a file: read again soon.
        while !std::fs::read_to_string(&mute_log)
            .unwrap_or_default()
            .contains("initialize")
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    // ...and while it is in that handshake, the talker's call completes. Mounted in the
    // file's order, the talker would not start before the mute one's ten minutes.
    std::fs::write(&gate, "").unwrap();
    let (status, stdout, stderr) = within("the call", call).await.unwrap();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("opened"), "{stdout}");

    let talker = upstream("talker");
    // `list` waits for every first start: the broken one fails at once; the talker's
    // tools are listed, the ghost is named on stderr with why, and the status says not
    // everything is there.
    std::fs::write(&config, format!("{ghost}{talker}")).unwrap();
    let (status, stdout, stderr) = run_to_end(&["list", "--config", config_arg], root.path()).await;
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stdout.contains("talker_echo"), "{stdout}");
    assert!(!stdout.contains("ghost_"), "{stdout}");
    let named: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("upstream `ghost` is not mounted:"))
        .collect();
    assert_eq!(named.len(), 1, "{stderr}");
    assert!(named[0].contains("did not start"), "{stderr}");
    assert!(!stderr.contains("upstream `talker`"), "{stderr}");

    // `call` of the broken one's tool: unknown, and the reason is said.
    let (status, _, stderr) = run_to_end(
        &["call", "ghost_echo", "{}", "--config", config_arg],
        root.path(),
    )
    .await;
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.contains("upstream `ghost` is not mounted:"),
        "{stderr}"
    );
}
