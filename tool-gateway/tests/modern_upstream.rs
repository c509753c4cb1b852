//! An upstream that speaks only MCP 2026-07-28 (answers `server/discover`, refuses
//! `initialize`, refuses any request without its own metadata): a real child process
//! (`support/modern_server.py`) started from a `gateway.toml` by the supervising
//! [`Gateway`]. With `protocol = "2026-07-28"` its tools are listed (two pages) and called,
//! its rounds of input requests reach the caller, a crash restarts it the same way, and a
//! handshake-era client in front of the gateway calls it; with the default it is not
//! mounted and the error names the option. Counted from the server's log, never timed;
//! every wait has a generous deadline that fails the test.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use toolwright_core::ToolCall;
use toolwright_gateway::{Checks, Gateway, GatewayConfig, UpstreamState, UpstreamStatus};
use toolwright_mcp::McpServer;
use toolwright_runtime::executor::Outcome;
use toolwright_runtime::{CallOptions, Executor, ToolRegistry};

#[path = "support/person.rs"]
mod person;
use person::Person;

const DEADLINE: Duration = Duration::from_secs(120);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

struct Setup {
    dir: tempfile::TempDir,
    registry: Arc<ToolRegistry>,
    gateway: Gateway,
    executor: Executor,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let registry = Arc::new(ToolRegistry::new());
        let gateway = Gateway::new(Arc::clone(&registry));
        let executor = Executor::builder(Arc::clone(&registry))
            .shared_hook(gateway.hook())
            .build();
        Setup {
            dir,
            registry,
            gateway,
            executor,
        }
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    /// A configuration of the modern server as `m`, unconfined (the confinement has its own
    /// tests), with `extra` lines in its table.
    fn config(&self, extra: &str) -> String {
        let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/modern_server.py");
        let args = [
            server.display().to_string(),
            "--log".to_owned(),
            self.log().display().to_string(),
        ];
        format!(
            "[[upstream]]\nnamespace = \"m\"\ncommand = \"python3\"\nargs = {}\n\
             unconfined = true\ntools = {{ \"*\" = \"safe\" }}\n{extra}\n",
            serde_json::to_string(&args).unwrap()
        )
    }

    fn load(&self, text: &str) -> GatewayConfig {
        let path = self.dir.path().join("gateway.toml");
        std::fs::write(&path, text).unwrap();
        Checks::new().load(&path).unwrap()
    }

    async fn start(&self, extra: &str) {
        self.gateway
            .start(self.load(&self.config(extra)))
            .await
            .unwrap();
    }

    async fn until(&self, what: &str, ready: impl FnMut(&[UpstreamStatus]) -> bool) {
        within(what, self.gateway.wait_for(ready)).await;
    }

    fn status(&self) -> UpstreamStatus {
        self.gateway
            .upstreams()
            .into_iter()
            .find(|u| u.namespace == "m")
            .unwrap()
    }

    /// How many lines of the server's log start with `what ` (each line ends with its pid).
    fn logged(&self, what: &str) -> usize {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        text.lines()
            .filter(|line| line.rsplit_once(' ').is_some_and(|(head, _)| head == what))
            .count()
    }

    async fn echo(&self, text: &str) -> toolwright_core::ToolResult {
        let call = ToolCall::new("1", "m_echo", json!({ "text": text }));
        within("m_echo", self.executor.execute(call)).await
    }
}

fn up(statuses: &[UpstreamStatus]) -> bool {
    statuses
        .iter()
        .any(|u| u.namespace == "m" && u.state == UpstreamState::Up)
}

const MODERN: &str = "protocol = \"2026-07-28\"";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_upstream_is_listed_in_pages_and_called_without_initialize() {
    let setup = Setup::new();
    setup.start(MODERN).await;
    setup.until("m up", up).await;
    // Both pages were read: the second page's tool is there.
    for tool in ["m_echo", "m_crash", "m_ask"] {
        assert!(setup.registry.get(tool).is_some(), "{tool} is not mounted");
    }
    for n in 0..3 {
        let result = setup.echo(&format!("hello {n}")).await;
        assert!(result.success, "{result:?}");
        assert_eq!(result.content, format!("hello {n}"));
    }
    assert_eq!(setup.logged("call echo"), 3, "one call, one upstream call");
    assert_eq!(setup.logged("discover"), 1);
    assert_eq!(setup.logged("list -"), 1);
    assert_eq!(setup.logged("list 2"), 1);
    // It never saw `initialize`, and every request carried its own metadata.
    assert_eq!(setup.logged("initialize"), 0);
    assert_eq!(setup.logged("no-meta tools/list"), 0);
    assert_eq!(setup.logged("no-meta tools/call"), 0);
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_default_protocol_it_is_not_mounted_and_the_error_names_the_option() {
    let setup = Setup::new();
    setup.start("supervise = { backoff_initial = 60 }").await;
    setup
        .until("m's first start failed", |statuses| {
            statuses
                .iter()
                .any(|u| u.namespace == "m" && u.last_error.is_some())
        })
        .await;
    let status = setup.status();
    assert_ne!(status.state, UpstreamState::Up, "{status:?}");
    let error = status.last_error.unwrap_or_default();
    assert!(
        error.contains("`protocol = \"2026-07-28\"`") && error.contains("server/discover"),
        "{error}"
    );
    assert!(setup.registry.get("m_echo").is_none());
    assert_eq!(setup.logged("initialize"), 1);
    assert_eq!(setup.logged("discover"), 0);
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_2026_upstream_is_started_again_the_same_way() {
    let setup = Setup::new();
    let quick = format!("{MODERN}\nsupervise = {{ backoff_initial = 0.01, backoff_max = 0.05 }}");
    setup.start(&quick).await;
    setup.until("m up", up).await;
    assert!(setup.echo("before").await.success);
    let crashed = within(
        "m_crash",
        setup
            .executor
            .execute(ToolCall::new("2", "m_crash", json!({}))),
    )
    .await;
    assert!(!crashed.success, "{crashed:?}");
    setup
        .until("m restarted and up", |statuses| {
            statuses
                .iter()
                .any(|u| u.namespace == "m" && u.restarts >= 1 && u.state == UpstreamState::Up)
        })
        .await;
    let after = setup.echo("after").await;
    assert!(after.success, "{after:?}");
    assert_eq!(after.content, "after");
    let status = setup.status();
    assert_eq!((status.starts, status.restarts), (2, 1), "{status:?}");
    assert_eq!(setup.logged("start"), 2);
    assert_eq!(setup.logged("discover"), 2, "each start discovers");
    assert_eq!(setup.logged("initialize"), 0, "no start fell back");
    assert_eq!(setup.logged("call echo"), 2);
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_upstream_s_rounds_reach_either_kind_of_caller_and_it_runs_once_each() {
    let setup = Setup::new();
    setup.start(MODERN).await;
    setup.until("m up", up).await;
    let ask = ToolCall::new("1", "m_ask", json!({}));

    // A handshake-era client answers within the one call.
    let waiting = Person {
        answer: Some(json!({"name": "Ada"})),
        ..Person::default()
    };
    let result = within(
        "a handshake-era call",
        setup
            .executor
            .execute_with(ask.clone(), CallOptions::new().client(waiting.clone())),
    )
    .await;
    assert!(result.result.success, "{:?}", result.result);
    assert_eq!(result.result.content, "asked for Ada");
    assert_eq!(
        *waiting.questions.lock().unwrap(),
        ["The upstream MCP server `modern` asks: Name?"]
    );
    assert_eq!(setup.logged("run ask"), 1);

    // A 2026-07-28 client is asked in a round of its own, then repeats the call answered.
    let rounds = Person {
        in_rounds: true,
        ..Person::default()
    };
    let first = within(
        "the first round",
        setup
            .executor
            .execute_with(ask.clone(), CallOptions::new().client(rounds.clone())),
    )
    .await;
    assert_eq!(first.outcome, Outcome::InputRequired, "{:?}", first.result);
    assert_eq!(rounds.questions.lock().unwrap().len(), 1);
    assert_eq!(setup.logged("run ask"), 1, "nothing more ran yet");
    let answering = Person {
        answer: Some(json!({"name": "Grace"})),
        ..Person::default()
    };
    let second = within(
        "the repeated call",
        setup
            .executor
            .execute_with(ask, CallOptions::new().client(answering)),
    )
    .await;
    assert!(second.result.success, "{:?}", second.result);
    assert_eq!(second.result.content, "asked for Grace");
    assert_eq!(setup.logged("run ask"), 2, "one answer, one run");
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_era_client_in_front_calls_the_2026_upstream() {
    let setup = Setup::new();
    setup.start(MODERN).await;
    setup.until("m up", up).await;
    // The gateway as its clients see it: our MCP server over the registry.
    let server = McpServer::new(setup.executor.clone());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    // rmcp's client opens with `initialize` (the handshake era).
    let client = within("the handshake", ().serve(tokio::io::split(client_io)))
        .await
        .unwrap();
    let tools = within("tools/list", client.list_all_tools()).await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "m_echo"), "{tools:?}");
    let arguments = json!({"text": "through the front"});
    let result = within(
        "tools/call",
        client.call_tool(
            CallToolRequestParams::new("m_echo")
                .with_arguments(arguments.as_object().cloned().unwrap()),
        ),
    )
    .await
    .unwrap();
    let text = serde_json::to_value(&result).unwrap().to_string();
    assert!(text.contains("through the front"), "{text}");
    assert_eq!(setup.logged("call echo"), 1);
    assert_eq!(setup.logged("initialize"), 0);
    let _ = client.cancel().await;
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test]
async fn a_protocol_that_is_none_of_the_three_is_refused_with_its_line() {
    let setup = Setup::new();
    let path = setup.dir.path().join("gateway.toml");
    std::fs::write(&path, setup.config("protocol = \"2025-06-18\"")).unwrap();
    let error = Checks::new().load(&path).unwrap_err().to_string();
    assert!(
        error.contains("`protocol`") && error.contains("`2025-06-18` is not a protocol"),
        "{error}"
    );
    assert!(error.contains("\"2026-07-28\""), "{error}");
    assert!(error.contains("gateway.toml:1: "), "{error}");
    // The three values load.
    for value in ["handshake", "2026-07-28", "auto"] {
        std::fs::write(&path, setup.config(&format!("protocol = \"{value}\""))).unwrap();
        assert!(Checks::new().load(&path).is_ok(), "{value}");
    }
}
