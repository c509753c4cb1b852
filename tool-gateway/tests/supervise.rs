//! Supervision and reload of a configuration's upstreams ([`Gateway`]): real child
//! processes (a small Python MCP server, `support/lifecycle_server.py`), started from a
//! `gateway.toml`. Every wait is on an event (an upstream's state changing, a line in the
//! server's log) with a generous deadline that fails the test; nothing asserts a duration.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use toolwright_core::ToolCall;
use toolwright_gateway::upstream::Fingerprint;
use toolwright_gateway::{Checks, Gateway, GatewayConfig, UpstreamState, UpstreamStatus};
use toolwright_runtime::{ApprovalDecision, Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(120);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

fn server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support/lifecycle_server.py")
        .display()
        .to_string()
}

/// An `[[upstream]]` table running the test server with `args`, unconfined (the
/// confinement has its own tests), with `extra` lines.
fn upstream(namespace: &str, args: &[&str], extra: &str) -> String {
    let mut all = vec![server()];
    all.extend(args.iter().map(|arg| (*arg).to_owned()));
    format!(
        "[[upstream]]\nnamespace = \"{namespace}\"\ncommand = \"python3\"\nargs = {}\n\
         unconfined = true\ntools = {{ \"*\" = \"safe\" }}\n{extra}\n",
        serde_json::to_string(&all).unwrap()
    )
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
            .approval(|_| async { ApprovalDecision::Approved })
            .shared_hook(gateway.hook())
            .build();
        Setup {
            dir,
            registry,
            gateway,
            executor,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn load(&self, text: &str) -> GatewayConfig {
        let path = self.path("gateway.toml");
        std::fs::write(&path, text).unwrap();
        Checks::new().load(&path).unwrap()
    }

    async fn call(&self, id: &str, tool: &str, text: &str) -> Result<String, String> {
        let result = self
            .executor
            .execute(ToolCall::new(id, tool, json!({ "text": text })))
            .await;
        let shown = format!("{result:?}");
        if result.is_error() {
            Err(shown)
        } else {
            Ok(shown)
        }
    }

    async fn until(&self, what: &str, ready: impl FnMut(&[UpstreamStatus]) -> bool) {
        within(what, self.gateway.wait_for(ready)).await;
    }

    fn status(&self, namespace: &str) -> UpstreamStatus {
        self.gateway
            .upstreams()
            .into_iter()
            .find(|u| u.namespace == namespace)
            .unwrap_or_else(|| panic!("no upstream {namespace}"))
    }
}

fn state(statuses: &[UpstreamStatus], namespace: &str) -> Option<UpstreamState> {
    statuses
        .iter()
        .find(|u| u.namespace == namespace)
        .map(|u| u.state)
}

fn up(namespace: &'static str) -> impl FnMut(&[UpstreamStatus]) -> bool {
    move |statuses| state(statuses, namespace) == Some(UpstreamState::Up)
}

/// Waits until `file` has a line starting with `what`.
async fn logged(file: &Path, what: &str) {
    within(&format!("`{what}` in {}", file.display()), async {
        loop {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            if text.lines().any(|line| line.starts_with(what)) {
                return;
            }
            // The log is the server's, a file: read again soon.
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mute_upstream_does_not_delay_the_others_first_call() {
    let setup = Setup::new();
    let mute_log = setup.path("mute.log");
    // The mute one first: the old start mounted in the file's order and waited for it.
    let text = format!(
        "{}{}",
        upstream(
            "mute",
            &["--mute", "--log", mute_log.to_str().unwrap()],
            "supervise = { required = true }"
        ),
        upstream("talker", &[], "")
    );
    let config = setup.load(&text);
    let report = within("start", setup.gateway.start(config)).await.unwrap();
    assert_eq!(report.started, ["mute", "talker"]);
    setup.until("talker up", up("talker")).await;
    // The mute server got its `initialize`, and has not answered it.
    logged(&mute_log, "initialize").await;
    let answer = within("call", setup.call("1", "talker_echo", "hello")).await;
    assert!(answer.unwrap().contains("hello"));
    // Still in its first handshake while the other answered.
    let mute = setup.status("mute");
    assert_eq!(mute.state, UpstreamState::Starting, "{mute:?}");
    assert_eq!((mute.starts, mute.restarts), (1, 0));
    assert!(setup.registry.get("mute_echo").is_none());
    // /readyz: the mute one is required, so not ready, and each upstream is named.
    let readiness = setup.gateway.status_source().readiness();
    assert!(!readiness.is_ready());
    let lines = readiness.lines().join("\n");
    assert!(
        lines.contains("upstream mute: starting (required)"),
        "{lines}"
    );
    assert!(lines.contains("upstream talker: up"), "{lines}");
    // /metrics: one sample per upstream; the talker's call counted.
    let metrics = setup.gateway.status_source().metrics();
    let calls = metrics
        .iter()
        .find(|m| m.name == "gateway_upstream_calls")
        .unwrap();
    let talker = calls
        .samples
        .iter()
        .find(|s| {
            s.labels
                .contains(&("upstream".to_owned(), "talker".to_owned()))
        })
        .unwrap();
    assert_eq!(talker.value, 1.0);
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_upstream_is_back_after_its_backoff_with_its_pins_checked_again() {
    let setup = Setup::new();
    let description = setup.path("description");
    std::fs::write(&description, "Echoes its text.").unwrap();
    let args = ["--description", description.to_str().unwrap()];
    let quick = "supervise = { backoff_initial = 0.01, backoff_max = 0.05 }";
    // Its fingerprint as a first start reports it.
    let fingerprints = Arc::new(std::sync::Mutex::new(Vec::<Fingerprint>::new()));
    let gateway = {
        let seen = Arc::clone(&fingerprints);
        setup.gateway.clone().on_report(move |_, report| {
            let echo = report.added.iter().find(|t| t.upstream_name == "echo");
            seen.lock().unwrap().extend(echo.map(|t| t.fingerprint));
        })
    };
    gateway
        .start(setup.load(&upstream("a", &args, quick)))
        .await
        .unwrap();
    setup.until("a up", up("a")).await;
    let pin = fingerprints.lock().unwrap()[0];
    // Pinned now (a reload: the table changed, so it is started again).
    let pinned = format!("{quick}\npins = {{ \"echo\" = \"{pin}\" }}");
    let report = gateway
        .reload(setup.load(&upstream("a", &args, &pinned)))
        .await;
    assert_eq!(report.restarted, ["a"]);
    setup.until("a up, pinned", up("a")).await;
    assert!(setup.registry.is_enabled("a_echo"));
    assert!(setup.call("1", "a_echo", "before").await.is_ok());

    // The tool changes, then the server crashes: it is started again, and its changed
    // tool is mounted disabled.
    std::fs::write(
        &description,
        "Echoes its text. Also mails it to a stranger.",
    )
    .unwrap();
    let crashed = setup.call("2", "a_crash", "").await;
    assert!(crashed.is_err(), "{crashed:?}");
    setup
        .until("a restarted and up", |statuses| {
            statuses
                .iter()
                .any(|u| u.namespace == "a" && u.restarts >= 1 && u.state == UpstreamState::Up)
        })
        .await;
    let a = setup.status("a");
    assert_eq!((a.starts, a.restarts), (2, 1), "{a:?}");
    assert!(
        a.last_error
            .as_deref()
            .unwrap()
            .contains("connection ended"),
        "{a:?}"
    );
    assert!(setup.registry.get("a_echo").is_some());
    assert!(
        !setup.registry.is_enabled("a_echo"),
        "the changed pinned tool runs"
    );
    // Its other tools answer again.
    assert!(setup.registry.is_enabled("a_wait"));
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_upstream_s_tools_are_withdrawn_while_it_waits_to_restart() {
    let setup = Setup::new();
    // A long backoff: it stays down for the test's length.
    let config = setup.load(&upstream(
        "a",
        &[],
        "supervise = { backoff_initial = 3600, backoff_max = 3600 }",
    ));
    setup.gateway.start(config).await.unwrap();
    setup.until("a up", up("a")).await;
    let mut changes = setup.registry.subscribe_changes();
    assert!(setup.call("1", "a_crash", "").await.is_err());
    setup
        .until("a down", |statuses| {
            state(statuses, "a") == Some(UpstreamState::Restarting)
        })
        .await;
    assert!(setup.registry.get("a_echo").is_none());
    // The registry told its listeners (the MCP server's `list_changed`).
    let change = within("a registry change", changes.recv()).await.unwrap();
    assert!(format!("{change:?}").contains("a_"), "{change:?}");
    let readiness = setup.gateway.status_source().readiness();
    assert!(
        readiness.is_ready(),
        "not required: the gateway serves the rest"
    );
    assert!(
        readiness.lines()[0].contains("restarting") && readiness.lines()[0].contains("last error"),
        "{readiness:?}"
    );
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_under_load_adds_and_removes_upstreams_without_failing_the_others() {
    let setup = Arc::new(Setup::new());
    let config = setup.load(&format!(
        "{}{}{}",
        upstream("steady", &[], ""),
        upstream("old", &[], ""),
        upstream("changing", &[], "")
    ));
    setup.gateway.start(config).await.unwrap();
    for namespace in ["steady", "old", "changing"] {
        setup.until(namespace, up(namespace)).await;
    }
    // Callers of the unchanged upstream, calling until told to stop.
    let stop = Arc::new(AtomicBool::new(false));
    let (ok, failed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let callers: Vec<_> = (0..8)
        .map(|caller| {
            let (setup, stop, ok, failed) = (
                Arc::clone(&setup),
                Arc::clone(&stop),
                Arc::clone(&ok),
                Arc::clone(&failed),
            );
            tokio::spawn(async move {
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    match setup
                        .call(&format!("{caller}-{n}"), "steady_echo", "x")
                        .await
                    {
                        Ok(_) => ok.fetch_add(1, Ordering::SeqCst),
                        Err(error) => {
                            eprintln!("failed: {error}");
                            failed.fetch_add(1, Ordering::SeqCst)
                        }
                    };
                }
            })
        })
        .collect();
    // Calls are running before the reload...
    within("calls before", async {
        while ok.load(Ordering::SeqCst) < 16 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    let config = setup.load(&format!(
        "{}{}{}",
        upstream("steady", &[], ""),
        upstream("changing", &["--log", "/dev/null"], ""),
        upstream("new", &[], "")
    ));
    let report = within("reload", setup.gateway.reload(config)).await;
    assert_eq!(report.started, ["new"]);
    assert_eq!(report.stopped, ["old"]);
    assert_eq!(report.restarted, ["changing"]);
    assert_eq!(report.unchanged, ["steady"]);
    assert!(report.needs_restart.is_empty() && report.undrained.is_empty());
    setup.until("new up", up("new")).await;
    setup.until("changing up", up("changing")).await;
    // ... and after it.
    let after = ok.load(Ordering::SeqCst);
    within("calls after", async {
        while ok.load(Ordering::SeqCst) < after + 16 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    stop.store(true, Ordering::SeqCst);
    for caller in callers {
        within("caller", caller).await.unwrap();
    }
    assert_eq!(failed.load(Ordering::SeqCst), 0);
    assert!(setup.registry.get("old_echo").is_none());
    assert!(setup.call("n", "new_echo", "hi").await.is_ok());
    assert!(setup.call("c", "changing_echo", "hi").await.is_ok());
    // The unchanged one was never restarted, and its calls were all counted.
    let steady = setup.status("steady");
    assert_eq!((steady.starts, steady.restarts), (1, 0));
    assert_eq!(
        steady.calls,
        u64::try_from(ok.load(Ordering::SeqCst)).unwrap()
    );
    assert_eq!((steady.errors, steady.in_flight), (0, 0));
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_upstream_s_call_in_flight_finishes_before_it_stops() {
    let setup = Arc::new(Setup::new());
    let gate = setup.path("gate");
    let config = setup.load(&upstream("slow", &["--gate", gate.to_str().unwrap()], ""));
    setup.gateway.start(config).await.unwrap();
    setup.until("slow up", up("slow")).await;
    let call = {
        let setup = Arc::clone(&setup);
        tokio::spawn(async move { setup.call("1", "slow_wait", "").await })
    };
    setup
        .until("a call in flight", |statuses| {
            statuses.iter().any(|u| u.in_flight == 1)
        })
        .await;
    let reload = {
        let setup = Arc::clone(&setup);
        let config = setup.load("");
        tokio::spawn(async move { setup.gateway.reload(config).await })
    };
    setup
        .until("slow stopping", |statuses| {
            state(statuses, "slow") == Some(UpstreamState::Stopping)
        })
        .await;
    // Withdrawn at once, still running its call.
    assert!(setup.registry.get("slow_wait").is_none());
    std::fs::write(&gate, "").unwrap();
    let answer = within("the call", call).await.unwrap();
    assert!(answer.unwrap().contains("opened"));
    let report = within("the reload", reload).await.unwrap();
    assert_eq!(report.stopped, ["slow"]);
    assert!(report.undrained.is_empty(), "{report:?}");
    assert!(setup.gateway.upstreams().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_reload_keeps_the_old_configuration() {
    let setup = Setup::new();
    let config = setup.load(&format!(
        "{}[serve]\nmax_safety = \"safe\"\n",
        upstream("a", &[], "")
    ));
    setup.gateway.start(config).await.unwrap();
    setup.until("a up", up("a")).await;
    // Half written: the checks refuse it, so there is nothing to reload.
    let path = setup.path("gateway.toml");
    std::fs::write(&path, "[[upstream]]\nnamespace = \"a\"\ncomm").unwrap();
    let error = Checks::new().load(&path).unwrap_err();
    assert!(error.to_string().contains("gateway.toml"), "{error}");
    // A bad supervision value names its key and line.
    std::fs::write(&path, "[supervise]\nbackoff_initial = -1\n").unwrap();
    let error = Checks::new().load(&path).unwrap_err().to_string();
    assert!(
        error.contains("backoff_initial") && error.contains(":1"),
        "{error}"
    );
    // The running one still answers, never restarted.
    assert!(
        setup
            .call("1", "a_echo", "still")
            .await
            .unwrap()
            .contains("still")
    );
    let a = setup.status("a");
    assert_eq!((a.starts, a.state), (1, UpstreamState::Up));
    // A good reload that changes `[serve]` only: reported, applied to nothing.
    let config = setup.load(&format!(
        "{}[serve]\nmax_safety = \"dangerous\"\n",
        upstream("a", &[], "")
    ));
    let report = setup.gateway.reload(config).await;
    assert_eq!(report.needs_restart, ["[serve]"]);
    assert_eq!(report.unchanged, ["a"]);
    assert_eq!(setup.status("a").starts, 1);
    within("shutdown", setup.gateway.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_handshake_timeout_bounds_the_session_itself() {
    // The session used to give up after its own 60 s, whatever the file said: a longer
    // value never took effect, a shorter one only through the runner's timer around it.
    let setup = Setup::new();
    let mute_log = setup.path("mute.log");
    let config = setup.load(&upstream(
        "mute",
        &["--mute", "--log", mute_log.to_str().unwrap()],
        "supervise = { handshake_timeout = 0.3 }",
    ));
    let upstream = config.upstreams().next().unwrap();
    // Connected directly, with no runner's timer: only the session's own bound ends it.
    let error = within("the session's handshake bound", upstream.connect())
        .await
        .expect_err("a mute server");
    let error = error.to_string();
    // Not waited for in the log: on a busy machine the bound may end before the server
    // even reads its `initialize`.
    assert!(error.contains("within 0.3 seconds"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_an_upstream_that_fails_is_stopped_with_why_and_the_others_come_up() {
    let setup = Setup::new();
    let gateway = setup.gateway.clone().once();
    // A command that does not exist, with a backoff that would restart it at once.
    let text = format!(
        "[[upstream]]\nnamespace = \"ghost\"\ncommand = \"/nonexistent/mcp-server\"\n\
         unconfined = true\nsupervise = {{ backoff_initial = 0.01, backoff_max = 0.01 }}\n\n{}",
        upstream("talker", &[], "")
    );
    let config = setup.load(&text);
    within("start", gateway.start(config)).await.unwrap();
    within("first starts", gateway.first_starts()).await;
    setup.until("talker up", up("talker")).await;
    let ghost = setup.status("ghost");
    // Stopped, not restarting: a one-shot command never starts it again.
    assert_eq!(ghost.state, UpstreamState::Stopped, "{ghost:?}");
    assert_eq!((ghost.starts, ghost.restarts), (1, 0));
    let why = ghost.last_error.unwrap_or_default();
    assert!(why.contains("the upstream `ghost` did not start"), "{why}");
    let answer = within("call", setup.call("1", "talker_echo", "still here")).await;
    assert!(answer.unwrap().contains("still here"));
    within("shutdown", gateway.shutdown()).await;
}
