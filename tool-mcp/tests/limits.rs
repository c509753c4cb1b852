//! The HTTP server's limits, from outside on 127.0.0.1: connections that send half a header
//! are closed and do not keep others out; one caller (token) cannot take every session or
//! every call slot from another.
//!
//! Nothing here is asserted on durations: each wait is for an event (a connection closed, a
//! call entered), with a generous deadline that fails the test instead of hanging.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{initialize, message, post, session_id};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Notify, Semaphore};
use toolwright_core::tool;
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

/// How long anything may take before a test gives up.
const DEADLINE: Duration = Duration::from_secs(120);

const TOKEN_A: &str = "limits-token-a-0123456789abcdef";
const TOKEN_B: &str = "limits-token-b-0123456789abcdef";

/// Calls of `hold` that have started.
static HELD: AtomicUsize = AtomicUsize::new(0);
static HELD_CHANGED: Notify = Notify::const_new();
/// `hold` returns once it gets a permit here.
static RELEASE: Semaphore = Semaphore::const_new(0);

/// Wait until the test lets go.
#[tool]
async fn hold() -> String {
    HELD.fetch_add(1, Ordering::SeqCst);
    HELD_CHANGED.notify_waiters();
    if let Ok(permit) = RELEASE.acquire().await {
        permit.forget();
    }
    "released".to_owned()
}

/// Answer at once.
#[tool]
fn quick() -> String {
    "quick".to_owned()
}

async fn start(executor: Executor, options: HttpOptions) -> HttpServer {
    McpServer::new(executor)
        .serve_http_with(([127, 0, 0, 1], 0).into(), options)
        .await
        .unwrap()
}

fn two_tokens() -> AuthConfig {
    AuthConfig::new()
        .token(TOKEN_A, ["tools:safe"])
        .unwrap()
        .token(TOKEN_B, ["tools:safe"])
        .unwrap()
}

async fn metrics(http: &HttpServer) -> String {
    reqwest::get(format!("http://{}/metrics", http.local_addr()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Reads what the server sends on `stream` until it closes it; `None` if it does not close
/// it within the deadline.
async fn until_closed(mut stream: tokio::net::TcpStream) -> Option<String> {
    let mut answer = Vec::new();
    let read = tokio::time::timeout(DEADLINE, async {
        let mut buffer = [0u8; 1024];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&answer).into_owned())
}

/// One complete `GET /healthz` on a connection of its own; the status line, or why none came.
async fn health(addr: std::net::SocketAddr) -> Result<String, String> {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .map_err(|e| e.to_string())?;
    let answer = until_closed(stream)
        .await
        .ok_or("no answer before the deadline")?;
    answer
        .lines()
        .next()
        .filter(|line| line.starts_with("HTTP/1.1 "))
        .map(str::to_owned)
        .ok_or_else(|| format!("not an HTTP answer: {answer:?}"))
}

/// More connections than the limit each send half a request header and stop. Every one of
/// them is closed by the server (those over the limit at once with `503`, the others when
/// their header does not come in time), a request sent meanwhile is answered (with `503` or
/// `200`, never left waiting), and a complete request afterwards is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_open_connections_are_closed_and_others_still_answered() {
    const LIMIT: usize = 4;
    const ATTACKERS: usize = 3 * LIMIT;
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    let http = start(
        executor,
        HttpOptions::new()
            .max_connections(LIMIT)
            .header_read_timeout(Duration::from_secs(1)),
    )
    .await;
    let addr = http.local_addr();

    let mut attackers = Vec::new();
    for _ in 0..ATTACKERS {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        // Half a header, and then nothing.
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0")
            .await
            .unwrap();
        attackers.push(stream);
    }
    // A request while they hold their connections: answered one way or the other.
    let during = health(addr).await.unwrap();
    assert!(
        during == "HTTP/1.1 200 OK" || during == "HTTP/1.1 503 Service Unavailable",
        "{during}"
    );

    // Every attacker is closed; those the limit turned away were told why.
    for stream in attackers {
        let answer = until_closed(stream)
            .await
            .expect("the server left a half-open connection open");
        assert!(
            answer.is_empty() || answer.contains("maximum of open connections"),
            "{answer}"
        );
    }

    // The attackers are gone: a complete request is served.
    assert_eq!(health(addr).await.unwrap(), "HTTP/1.1 200 OK");
    let text = metrics(&http).await;
    assert!(
        text.contains("mcp_refusals_total{reason=\"connections\"}"),
        "{text}"
    );
    http.shutdown();
}

/// One token opens sessions up to its share; more get `429` while another token still gets
/// sessions (before, every other caller got `503` once one token had taken them all).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_token_cannot_take_every_session() {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    let http = start(
        executor,
        HttpOptions::new()
            .auth(two_tokens())
            .max_sessions(3)
            .max_sessions_per_principal(2),
    )
    .await;
    let web = reqwest::Client::builder()
        .timeout(DEADLINE)
        .build()
        .unwrap();
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let response = initialize(&web, &http.url(), Some(TOKEN_A)).await;
        assert_eq!(response.status(), StatusCode::OK);
        sessions.push(session_id(&response).unwrap());
    }
    let over = initialize(&web, &http.url(), Some(TOKEN_A)).await;
    assert_eq!(over.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(over.headers().contains_key("retry-after"));
    let text = over.text().await.unwrap();
    assert!(text.contains("share of 2 open sessions"), "{text}");

    let other = initialize(&web, &http.url(), Some(TOKEN_B)).await;
    assert_eq!(other.status(), StatusCode::OK);

    // A closes one of its sessions and may open another.
    let ended = web
        .delete(http.url())
        .bearer_auth(TOKEN_A)
        .header("mcp-session-id", &sessions[0])
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert!(ended.status().is_success(), "{}", ended.status());
    let again = initialize(&web, &http.url(), Some(TOKEN_A)).await;
    assert_eq!(again.status(), StatusCode::OK);

    let text = metrics(&http).await;
    assert!(
        text.contains("mcp_refusals_total{reason=\"principal_sessions\"} 1"),
        "{text}"
    );
    http.shutdown();
}

/// A `tools/call` in stateless mode (JSON answers, no session) with `token`; the JSON-RPC
/// message of the answer.
async fn call(web: &reqwest::Client, url: &str, token: &str, tool: &str) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": {}}
    });
    let response = post(web, url, &body)
        .bearer_auth(token)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    message(&response.text().await.unwrap())
}

/// One token keeps as many calls in flight as it may; one more is refused at once, and
/// another token's call is answered while they still run (before, it waited behind them for
/// a slot of the executor).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_token_cannot_take_every_call_slot() {
    // The executor runs three calls at once; each token may have two.
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_concurrent_calls(3)
        .build();
    let http = start(
        executor,
        HttpOptions::new()
            .auth(two_tokens())
            .stateless(true)
            .max_calls_per_principal(2),
    )
    .await;
    let web = reqwest::Client::builder()
        .timeout(DEADLINE)
        .build()
        .unwrap();
    let url = http.url();

    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..3 {
        let (web, url) = (web.clone(), url.clone());
        calls.spawn(async move { call(&web, &url, TOKEN_A, "hold").await });
    }
    // One of the three is refused at once; the other two run (and wait to be released).
    let first = tokio::time::timeout(DEADLINE, calls.join_next())
        .await
        .expect("no call of A was answered")
        .unwrap()
        .unwrap();
    assert_eq!(first["error"]["code"], -32000, "{first}");
    let reason = first["error"]["message"].as_str().unwrap_or_default();
    assert!(reason.contains("2 tool calls running"), "{first}");
    tokio::time::timeout(DEADLINE, async {
        loop {
            let changed = HELD_CHANGED.notified();
            if HELD.load(Ordering::SeqCst) >= 2 {
                return;
            }
            changed.await;
        }
    })
    .await
    .expect("A's two calls did not start");

    // B's call is answered while A's two are still running.
    let answer = tokio::time::timeout(DEADLINE, call(&web, &url, TOKEN_B, "quick"))
        .await
        .expect("B's call waited behind A's");
    assert_eq!(answer["result"]["content"][0]["text"], "quick", "{answer}");
    assert_eq!(HELD.load(Ordering::SeqCst), 2);
    assert_eq!(calls.len(), 2, "A's calls finished before B's was answered");

    RELEASE.add_permits(2);
    while let Some(done) = tokio::time::timeout(DEADLINE, calls.join_next())
        .await
        .expect("A's calls did not finish once released")
    {
        let done = done.unwrap();
        assert_eq!(done["result"]["content"][0]["text"], "released", "{done}");
    }
    let text = metrics(&http).await;
    assert!(
        text.contains("mcp_refusals_total{reason=\"principal_calls\"} 1"),
        "{text}"
    );
    http.shutdown();
}
