//! A keep-alive load client for a streamable HTTP MCP server: opens one session, then
//! sends `tools/call calculate {"expression": "1+2"}` from C workers, each on its own
//! keep-alive connection, for a fixed time, and prints requests per second and latency
//! percentiles. Used by `serve_http.sh`.
//!
//! Usage: `mcp_http_load URL CONCURRENCY SECONDS [--session-per-worker]`

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";
const PROTOCOL: &str = "2025-06-18";
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// A request with no answer by then counts as failed (and the worker goes on).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

async fn open_session(client: &reqwest::Client, url: &str) -> Result<String, String> {
    let init = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "mcp_http_load", "version": "0"}}
    });
    let response = client
        .post(url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .body(init.to_string())
        .send()
        .await
        .map_err(|e| format!("initialize: {e}"))?;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .ok_or("no mcp-session-id header in the initialize response")?
        .to_owned();
    let _ = response.bytes().await;
    client
        .post(url)
        .header("accept", ACCEPT)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", PROTOCOL)
        .header("content-type", "application/json")
        .body(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
        .send()
        .await
        .map_err(|e| format!("initialized: {e}"))?
        .bytes()
        .await
        .map_err(|e| format!("initialized: {e}"))?;
    Ok(session)
}

/// Latencies of the answered calls, and how many calls failed or got no answer in time.
async fn worker(
    url: String,
    session: Option<String>,
    deadline: Instant,
) -> Result<(Vec<Duration>, usize), String> {
    // One client per worker, one idle connection each: one keep-alive connection per worker.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(REQUEST_TIMEOUT)
        .build()
        .map_err(|e| e.to_string())?;
    let session = match session {
        Some(session) => session,
        None => open_session(&client, &url).await?,
    };
    let mut latencies = Vec::new();
    let mut failed = 0;
    while Instant::now() < deadline {
        // Ids are unique across workers: they may share a session.
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "calculate", "arguments": {"expression": "1+2"}}
        });
        let start = Instant::now();
        let answer = async {
            client
                .post(&url)
                .header("accept", ACCEPT)
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", PROTOCOL)
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await?
                .text()
                .await
        }
        .await;
        match answer {
            Ok(text) if text.contains("text\":\"3") => latencies.push(start.elapsed()),
            Ok(text) => return Err(format!("unexpected answer: {text}")),
            Err(_) => failed += 1,
        }
    }
    Ok((latencies, failed))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, concurrency, seconds, rest @ ..] = args.as_slice() else {
        return Err("usage: mcp_http_load URL CONCURRENCY SECONDS [--session-per-worker]".into());
    };
    let concurrency: usize = concurrency.parse().map_err(|_| "CONCURRENCY: a number")?;
    let seconds: f64 = seconds.parse().map_err(|_| "SECONDS: a number")?;
    let per_worker = rest.iter().any(|a| a == "--session-per-worker");
    let shared = if per_worker {
        None
    } else {
        Some(open_session(&reqwest::Client::new(), url).await?)
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);
    let workers: Vec<_> = (0..concurrency)
        .map(|_| tokio::spawn(worker(url.clone(), shared.clone(), deadline)))
        .collect();
    let mut all = Vec::new();
    let mut failed = 0;
    for handle in workers {
        let (latencies, failures) = handle.await.map_err(|e| e.to_string())??;
        all.extend(latencies);
        failed += failures;
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let summary: Value = json!({
        "concurrency": concurrency,
        "requests": all.len(),
        "failed_or_timed_out": failed,
        "rps": (all.len() as f64 / elapsed * 10.0).round() / 10.0,
        "p50_ms": (ms(percentile(&all, 0.50)) * 100.0).round() / 100.0,
        "p99_ms": (ms(percentile(&all, 0.99)) * 100.0).round() / 100.0,
    });
    println!("{summary}");
    Ok(())
}
