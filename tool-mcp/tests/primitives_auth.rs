//! Prompts and resources over authenticated HTTP: a token's ceiling hides what is above it
//! (listed nowhere, read as not found), and reads and gets count in the caller's share of
//! calls in flight like tool calls (over it, refused at once; another caller goes on).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;
use toolwright_core::{SafetyLevel, ToolContext, prompt, resource};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

const DEADLINE: Duration = Duration::from_secs(60);
const SAFE: &str = "safe-reader-token-0123456789abcdef";
const CAUTIOUS: &str = "cautious-reader-token-0123456789abcdef";
const MALLORY: &str = "mallory-reader-token-0123456789abcdef";
const ALICE: &str = "alice-reader-token-0123456789abcdef";

/// The public notes
#[resource(uri = "docs://public", mime_type = "text/plain")]
fn public_notes() -> &'static str {
    "public"
}

/// What only a cautious token may read
#[resource(uri = "docs://internal", mime_type = "text/plain", safety = "cautious")]
fn internal_notes() -> &'static str {
    "internal"
}

/// An internal checklist
#[prompt(safety = "cautious")]
fn internal_checklist() -> &'static str {
    "check everything"
}

/// A greeting anyone may get
#[prompt]
fn public_greeting() -> &'static str {
    "hello"
}

static HOLD_ENTERED: Notify = Notify::const_new();
static HOLD_RELEASE: Notify = Notify::const_new();

/// A read that waits until the test lets it go
#[resource(uri = "hold://{id}", mime_type = "text/plain")]
async fn held(id: String) -> String {
    HOLD_ENTERED.notify_one();
    HOLD_RELEASE.notified().await;
    format!("held {id}")
}

/// Who reads: the caller's subject, and whether its token came along
#[resource(uri = "whoami://{id}", mime_type = "text/plain")]
async fn whoami(ctx: &ToolContext, id: String) -> String {
    match ctx.caller() {
        Some(caller) => format!(
            "{id}: {} {}",
            caller.subject(),
            if caller.token().is_some() {
                "with its token"
            } else {
                "without its token"
            }
        ),
        None => format!("{id}: nobody"),
    }
}

fn auth() -> AuthConfig {
    AuthConfig::new()
        .token(SAFE, ["tools:safe"])
        .unwrap()
        .token(CAUTIOUS, ["tools:cautious"])
        .unwrap()
        .token(MALLORY, ["tools:safe"])
        .unwrap()
        .token(ALICE, ["tools:safe"])
        .unwrap()
}

async fn start(options: HttpOptions) -> HttpServer {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
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
        "io.modelcontextprotocol/clientInfo": {"name": "primitives-auth-test", "version": "1"},
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

fn uris(listed: &Value) -> Vec<String> {
    listed["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_tokens_ceiling_hides_the_resources_and_prompts_above_it() {
    let http = start(HttpOptions::new()).await;
    let safe = send(&http, SAFE, "resources/list", json!({})).await;
    assert_eq!(uris(&safe), ["docs://public"]);
    let cautious = send(&http, CAUTIOUS, "resources/list", json!({})).await;
    assert_eq!(uris(&cautious), ["docs://internal", "docs://public"]);

    // Read anyway: not found (SEP-2164: -32602 in this revision), not read.
    let refused = send(
        &http,
        SAFE,
        "resources/read",
        json!({"uri": "docs://internal"}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(!refused.to_string().contains("\"internal\""), "{refused}");
    let read = send(
        &http,
        CAUTIOUS,
        "resources/read",
        json!({"uri": "docs://internal"}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], "internal", "{read}");

    let prompts = send(&http, SAFE, "prompts/list", json!({})).await;
    assert!(
        !prompts.to_string().contains("internal_checklist"),
        "{prompts}"
    );
    let got = send(
        &http,
        SAFE,
        "prompts/get",
        json!({"name": "internal_checklist"}),
    )
    .await;
    assert_eq!(got["error"]["code"], -32602, "{got}");
    let got = send(
        &http,
        CAUTIOUS,
        "prompts/get",
        json!({"name": "internal_checklist"}),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "check everything",
        "{got}"
    );
    http.shutdown();
}

#[tokio::test]
async fn reads_count_in_the_callers_share_of_calls_in_flight() {
    let http = Arc::new(start(HttpOptions::new().max_calls_per_principal(1)).await);
    let first = {
        let http = Arc::clone(&http);
        tokio::spawn(async move {
            send(&http, MALLORY, "resources/read", json!({"uri": "hold://1"})).await
        })
    };
    tokio::time::timeout(DEADLINE, HOLD_ENTERED.notified())
        .await
        .expect("the first read never started");
    // Mallory's share of one is taken: her second read is refused at once.
    let refused = send(
        &http,
        MALLORY,
        "resources/read",
        json!({"uri": "docs://public"}),
    )
    .await;
    let said = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("max_calls_per_principal"), "{refused}");
    let refused = send(
        &http,
        MALLORY,
        "prompts/get",
        json!({"name": "internal_checklist"}),
    )
    .await;
    assert!(refused["error"].is_object(), "{refused}");
    // Alice's go through meanwhile.
    let read = send(
        &http,
        ALICE,
        "resources/read",
        json!({"uri": "docs://public"}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], "public", "{read}");
    HOLD_RELEASE.notify_one();
    let done = tokio::time::timeout(DEADLINE, first)
        .await
        .expect("the held read never ended")
        .unwrap();
    assert_eq!(done["result"]["contents"][0]["text"], "held 1", "{done}");
    // Released: Mallory reads again.
    let again = send(
        &http,
        MALLORY,
        "resources/read",
        json!({"uri": "docs://public"}),
    )
    .await;
    assert_eq!(again["result"]["contents"][0]["text"], "public", "{again}");
}

/// The next JSON-RPC message of an event stream still open, waiting at most a minute.
async fn next_message(response: &mut reqwest::Response, pending: &mut String) -> Value {
    loop {
        if let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            if let Some(value) = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            {
                return value;
            }
            continue;
        }
        let chunk = tokio::time::timeout(DEADLINE, response.chunk())
            .await
            .expect("no message on the stream within a minute")
            .unwrap()
            .expect("the stream ended");
        pending.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
    }
}

#[tokio::test]
async fn a_listener_hears_no_update_of_a_resource_above_its_ceiling() {
    let registry = Arc::new(register_all_tools().unwrap());
    let executor = Executor::builder(Arc::clone(&registry))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    let http = McpServer::new(executor)
        .serve_http_with(([127, 0, 0, 1], 0).into(), HttpOptions::new().auth(auth()))
        .await
        .unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["docs://internal", "docs://public"]},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "primitives-auth-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }});
    let mut stream = reqwest::Client::new()
        .post(http.url())
        .bearer_auth(SAFE)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .json(&body)
        .send()
        .await
        .unwrap();
    let mut pending = String::new();
    let ack = next_message(&mut stream, &mut pending).await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    // The internal one first: were it sent, it would be the first message.
    assert!(registry.notify_resource_updated("docs://internal"));
    assert!(registry.notify_resource_updated("docs://public"));
    let updated = next_message(&mut stream, &mut pending).await;
    assert_eq!(updated["params"]["uri"], "docs://public", "{updated}");
    http.shutdown();
}

#[tokio::test]
async fn a_read_knows_its_caller_and_never_holds_its_token() {
    // A shared pool behind a resource (a mounted server's limits) counts each caller's
    // share: the read must know who asks, and no resource needs the bearer token.
    let http = start(HttpOptions::new()).await;
    let mut seen = Vec::new();
    for token in [MALLORY, ALICE] {
        let read = send(&http, token, "resources/read", json!({"uri": "whoami://1"})).await;
        let text = read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(text.ends_with("without its token"), "{read}");
        assert!(!text.contains("nobody"), "{read}");
        assert!(!text.contains(token), "{read}");
        seen.push(text);
    }
    assert_ne!(seen[0], seen[1], "two tokens, two callers");
    http.shutdown();
}
