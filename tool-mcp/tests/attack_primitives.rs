//! Issue 39, round two, the attacker: `completion/complete`, `resources/list` cursors and
//! `skills/*` over authenticated HTTP, as a hostile caller would send them. A flood of
//! completions from one caller fills only its share of calls in flight (the excess is
//! refused at once, another caller goes on); a forged cursor is refused, never a panic.
//! Nothing waits for a time: each test waits on events under a generous deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;
use toolwright_core::completion::{CompletionRequest, Completions};
use toolwright_core::{
    Prompt, PromptArgument, Resource, ResourceRequest, SafetyLevel, Skill, SkillFile, ToolContext,
};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);
const MALLORY: &str = "mallory-completer-token-0123456789abcdef";
const ALICE: &str = "alice-completer-token-0123456789abcdef";
const CAUTIOUS: &str = "cautious-reader-token-0123456789abcdef";

fn auth() -> AuthConfig {
    AuthConfig::new()
        .token(MALLORY, ["tools:safe"])
        .unwrap()
        .token(ALICE, ["tools:safe"])
        .unwrap()
        .token(CAUTIOUS, ["tools:cautious"])
        .unwrap()
}

/// Completions that have started, and the gate that holds them.
struct Gate {
    entered: AtomicUsize,
    started: Notify,
    release: Notify,
}

/// A server with the prompt `city` whose argument `name` completes asynchronously and
/// waits at `gate`, and the prompt `quick` whose completion answers at once.
async fn start(gate: Arc<Gate>, options: HttpOptions) -> HttpServer {
    let registry = ToolRegistry::new();
    let held = Arc::clone(&gate);
    let city = Prompt::builder("city")
        .argument(PromptArgument::new("name"))
        .handler(|_, _| async { Ok("a city") })
        .completion_async("name", move |request: CompletionRequest| {
            let gate = Arc::clone(&held);
            async move {
                gate.entered.fetch_add(1, Ordering::SeqCst);
                gate.started.notify_one();
                gate.release.notified().await;
                Completions::matching(["Lisbon", "London"], &request.value)
            }
        })
        .build()
        .unwrap();
    let quick = Prompt::builder("quick")
        .argument(PromptArgument::new("name"))
        .handler(|_, _| async { Ok("quick") })
        .completion("name", |request: &CompletionRequest| {
            Completions::matching(["Lisbon", "London"], &request.value)
        })
        .build()
        .unwrap();
    // A skill whose `SKILL.md` only a cautious caller may read, and one anyone may.
    for (name, safety) in [
        ("internal", SafetyLevel::Cautious),
        ("public", SafetyLevel::Safe),
    ] {
        let uri = format!("skill://{name}/SKILL.md");
        let text = format!("---\nname: {name}\ndescription: The {name} skill.\n---\n");
        let listed = rmcp::model::SkillResource::from_bytes(uri.clone(), text.as_bytes());
        let file = SkillFile {
            uri: uri.clone(),
            mime_type: Some("text/markdown".to_owned()),
            size: text.len() as u64,
            digest: listed.digest,
        };
        let resource = Resource::builder("SKILL.md", uri.as_str())
            .safety(safety)
            .mime_type("text/markdown")
            .handler(move |_: ResourceRequest, _: ToolContext| {
                let text = text.clone();
                async move { Ok::<_, toolwright_core::ToolError>(text) }
            })
            .build()
            .unwrap();
        registry.register_resource(resource).unwrap();
        registry
            .register_skill(Skill {
                files: vec![file],
                ..Skill::new(uri, name, format!("The {name} skill."))
            })
            .unwrap();
    }
    registry.register_prompt(city).unwrap();
    registry.register_prompt(quick).unwrap();
    let executor = Executor::builder(Arc::new(registry))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    McpServer::new(executor)
        .serve_http_with(([127, 0, 0, 1], 0).into(), options.auth(auth()))
        .await
        .unwrap()
}

/// A 2026-07-28 request with `token`: its one JSON-RPC answer.
async fn send(http: &HttpServer, token: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "attack-primitives", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(http.url())
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    for key in ["name", "uri"] {
        if let Some(name) = params.get(key).and_then(Value::as_str) {
            request = request.header("mcp-name", name);
        }
    }
    let text = request
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let data = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .unwrap_or(text.as_str())
        .to_owned();
    serde_json::from_str(&data).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

fn complete(prompt: &str, value: &str) -> Value {
    json!({
        "ref": {"type": "ref/prompt", "name": prompt},
        "argument": {"name": "name", "value": value},
    })
}

/// A flood of completions from one caller: while one of its completions runs, every other
/// is refused at once naming the share (none runs), and another caller still completes.
/// Without the share around `completion/complete`, the flood's completions all start
/// (`entered` counts them) and each waits at the gate: the refusals never come, and the
/// test fails at its deadline.
#[tokio::test]
async fn a_completion_flood_fills_only_the_callers_share() {
    let gate = Arc::new(Gate {
        entered: AtomicUsize::new(0),
        started: Notify::new(),
        release: Notify::new(),
    });
    let http = Arc::new(
        start(
            Arc::clone(&gate),
            HttpOptions::new().max_calls_per_principal(1),
        )
        .await,
    );
    let first = {
        let http = Arc::clone(&http);
        tokio::spawn(async move {
            send(&http, MALLORY, "completion/complete", complete("city", "L")).await
        })
    };
    tokio::time::timeout(DEADLINE, gate.started.notified())
        .await
        .expect("the first completion never started");

    const FLOOD: usize = 50;
    let flood: Vec<_> = (0..FLOOD)
        .map(|_| {
            let http = Arc::clone(&http);
            tokio::spawn(async move {
                send(&http, MALLORY, "completion/complete", complete("city", "L")).await
            })
        })
        .collect();
    let mut refused = 0;
    for answer in flood {
        let answer = tokio::time::timeout(DEADLINE, answer)
            .await
            .expect("a completion over the share was not refused at once")
            .unwrap();
        let said = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(said.contains("max_calls_per_principal"), "{answer}");
        refused += 1;
    }
    assert_eq!(refused, FLOOD);
    assert_eq!(gate.entered.load(Ordering::SeqCst), 1, "only one ran");

    // Another caller's completion goes on.
    let alice = tokio::time::timeout(
        DEADLINE,
        send(&http, ALICE, "completion/complete", complete("quick", "Li")),
    )
    .await
    .expect("Alice's completion hung");
    assert_eq!(
        alice["result"]["completion"]["values"],
        json!(["Lisbon"]),
        "{alice}"
    );

    gate.release.notify_one();
    let first = tokio::time::timeout(DEADLINE, first)
        .await
        .expect("the held completion never finished")
        .unwrap();
    assert_eq!(
        first["result"]["completion"]["values"],
        json!(["Lisbon", "London"]),
        "{first}"
    );
    // Its share is free again.
    let again = send(
        &http,
        MALLORY,
        "completion/complete",
        complete("quick", "Lo"),
    )
    .await;
    assert_eq!(
        again["result"]["completion"]["values"],
        json!(["London"]),
        "{again}"
    );
    http.shutdown();
}

/// Forged cursors (negative, past the end, not a number, huge, control characters) are
/// refused as invalid params on every list; none panics or answers a page.
#[tokio::test]
async fn forged_list_cursors_are_refused() {
    let gate = Arc::new(Gate {
        entered: AtomicUsize::new(0),
        started: Notify::new(),
        release: Notify::new(),
    });
    let http = start(gate, HttpOptions::new()).await;
    let long = "9".repeat(10_000);
    for method in [
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "skills/list",
    ] {
        for cursor in [
            "-1",
            "3",
            "18446744073709551616",
            "abc",
            "1\u{0}",
            long.as_str(),
            "",
        ] {
            let answer = send(&http, MALLORY, method, json!({"cursor": cursor})).await;
            if cursor.is_empty() {
                // An empty cursor is no number: refused like the others, or the first page.
                assert!(answer.get("error").is_some() || answer.get("result").is_some());
                continue;
            }
            assert_eq!(
                answer["error"]["code"], -32602,
                "{method} {cursor:.20}: {answer}"
            );
        }
    }
    // A genuine walk still works: two prompts, page by page, the cursor each page gives.
    let listed = send(&http, MALLORY, "prompts/list", json!({})).await;
    assert_eq!(
        listed["result"]["prompts"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    http.shutdown();
}

/// A token's ceiling hides a skill whose `SKILL.md` is above it, in `skills/list` and
/// `skills/get` as in `resources/list` (its name, description and files are not shown).
#[tokio::test]
async fn a_skill_above_the_ceiling_is_not_listed_nor_got() {
    let gate = Arc::new(Gate {
        entered: AtomicUsize::new(0),
        started: Notify::new(),
        release: Notify::new(),
    });
    let http = start(gate, HttpOptions::new()).await;
    let uris = |listed: &Value| -> Vec<String> {
        let mut uris: Vec<String> = listed["result"]["skills"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"))
            .iter()
            .map(|s| s["uri"].as_str().unwrap().to_owned())
            .collect();
        uris.sort();
        uris
    };
    let safe = send(&http, MALLORY, "skills/list", json!({})).await;
    assert_eq!(uris(&safe), ["skill://public/SKILL.md"], "{safe}");
    assert!(!safe.to_string().contains("internal"), "{safe}");
    let got = send(
        &http,
        MALLORY,
        "skills/get",
        json!({"uri": "skill://internal/SKILL.md"}),
    )
    .await;
    assert_eq!(got["error"]["code"], -32602, "{got}");
    assert!(!got.to_string().contains("The internal skill"), "{got}");
    let read = send(
        &http,
        MALLORY,
        "resources/read",
        json!({"uri": "skill://internal/SKILL.md"}),
    )
    .await;
    assert!(read.get("error").is_some(), "{read}");

    let cautious = send(&http, CAUTIOUS, "skills/list", json!({})).await;
    assert_eq!(
        uris(&cautious),
        ["skill://internal/SKILL.md", "skill://public/SKILL.md"],
        "{cautious}"
    );
    let got = send(
        &http,
        CAUTIOUS,
        "skills/get",
        json!({"uri": "skill://internal/SKILL.md"}),
    )
    .await;
    assert!(got.to_string().contains("The internal skill"), "{got}");
    http.shutdown();
}
