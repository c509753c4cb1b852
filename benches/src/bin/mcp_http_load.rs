//! A keep-alive load client for a streamable HTTP MCP server, used by `serve_http.sh`.
//! It takes answers as JSON (`application/json`) or as server-sent events, and works with
//! servers that hand out a session (`mcp-session-id`) and with stateless ones.
//!
//! Usage:
//! - `mcp_http_load URL CONCURRENCY SECONDS [--session-per-worker] [--protocol 2026-07-28]
//!   [--pid PID] [--label NAME]`:
//!   opens one session, then sends `tools/call calculate {"expression": "1+2"}` from
//!   CONCURRENCY workers, each on its own keep-alive connection, for SECONDS, and prints
//!   one JSON line: requests per second, p50 and p99 latency, calls that failed or got no
//!   answer within 10 s, and (with `--pid`) the server's resident memory afterwards.
//!   With `--session-per-worker` each worker opens its own session.
//!   With `--protocol 2026-07-28` it is a client of that revision: no `initialize` and no
//!   session; each call carries the protocol version, the client's info and capabilities in
//!   its `_meta`, and the headers `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`.
//! - `mcp_http_load URL --idle-sessions N --pid PID [--label NAME]`: opens one session and
//!   calls the tool once (so that what a server sets up on first use is not counted), reads
//!   the server's resident memory, opens N more sessions (`initialize` and
//!   `notifications/initialized` each, then nothing), reads it again, and prints one JSON
//!   line with the difference per session opened (sessions the server refuses are counted,
//!   not measured).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use benches::serving::{
    PROTOCOL, PROTOCOL_2026, calculate_call, calculate_call_2026, check_calculate_answer,
    initialize, initialized, labelled, latency_summary, message_id, response_messages, rss_kib,
};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// A request with no answer by then counts as failed (and the worker goes on).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How many connections open the idle sessions.
const OPENERS: usize = 8;
/// After the idle sessions are open, before memory is read again.
const SETTLE: Duration = Duration::from_millis(500);

/// Which revision of MCP the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// 2025-06-18: `initialize`, then calls in the session the server hands out (if any).
    Handshake,
    /// 2026-07-28: no handshake, no session; each request says who and what it is.
    Stateless2026,
}

impl Protocol {
    fn version(self) -> &'static str {
        match self {
            Protocol::Handshake => PROTOCOL,
            Protocol::Stateless2026 => PROTOCOL_2026,
        }
    }
}

/// How one request is sent: its protocol version, and for a 2026-07-28 request the method
/// and tool name headers (SEP-2243: a server answers `400` without `Mcp-Method`).
struct Headers<'a> {
    protocol: Protocol,
    session: Option<&'a str>,
    method: &'a str,
    tool: Option<&'a str>,
}

/// Why a call did not count.
enum CallError {
    /// No answer, or an HTTP error status: counted as failed; the worker goes on.
    Failed(String),
    /// An answer that is not the expected one: the run stops.
    Wrong(String),
}

/// Posts one JSON-RPC message and returns the JSON-RPC messages of the response.
async fn post(
    client: &reqwest::Client,
    url: &str,
    headers: Headers<'_>,
    message: &Value,
) -> Result<(reqwest::header::HeaderMap, Vec<Value>), CallError> {
    let mut request = client
        .post(url)
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("mcp-protocol-version", headers.protocol.version())
        .body(message.to_string());
    if let Some(session) = headers.session {
        request = request.header("mcp-session-id", session);
    }
    if headers.protocol == Protocol::Stateless2026 {
        request = request.header("mcp-method", headers.method);
        if let Some(tool) = headers.tool {
            request = request.header("mcp-name", tool);
        }
    }
    let response = request
        .send()
        .await
        .map_err(|e| CallError::Failed(e.to_string()))?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = response
        .text()
        .await
        .map_err(|e| CallError::Failed(e.to_string()))?;
    if !status.is_success() {
        return Err(CallError::Failed(format!("HTTP {status}: {body}")));
    }
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let messages = response_messages(content_type, &body).map_err(CallError::Wrong)?;
    Ok((headers, messages))
}

fn fatal(what: &str) -> impl Fn(CallError) -> String + '_ {
    move |error| match error {
        CallError::Failed(e) | CallError::Wrong(e) => format!("{what}: {e}"),
    }
}

/// Opens a session: its id, or `None` from a stateless server (no `mcp-session-id`).
async fn open_session(client: &reqwest::Client, url: &str) -> Result<Option<String>, String> {
    let handshake = |method| Headers {
        protocol: Protocol::Handshake,
        session: None,
        method,
        tool: None,
    };
    let (headers, messages) = post(
        client,
        url,
        handshake("initialize"),
        &initialize(0, "mcp_http_load"),
    )
    .await
    .map_err(fatal("initialize"))?;
    if !messages.iter().any(|m| m.get("result").is_some()) {
        return Err(format!("initialize: no result in {messages:?}"));
    }
    let session = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let headers = Headers {
        session: session.as_deref(),
        ..handshake("notifications/initialized")
    };
    post(client, url, headers, &initialized())
        .await
        .map_err(fatal("notifications/initialized"))?;
    Ok(session)
}

/// One `tools/call calculate`, checked.
async fn call(
    client: &reqwest::Client,
    url: &str,
    protocol: Protocol,
    session: Option<&str>,
) -> Result<(), CallError> {
    // Ids are unique across workers: they may share a session.
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let message = match protocol {
        Protocol::Handshake => calculate_call(id),
        Protocol::Stateless2026 => calculate_call_2026(id, "mcp_http_load"),
    };
    let headers = Headers {
        protocol,
        session,
        method: "tools/call",
        tool: Some("calculate"),
    };
    let (_, messages) = post(client, url, headers, &message).await?;
    let answer = messages
        .iter()
        .find(|m| message_id(m) == Some(id))
        .ok_or_else(|| CallError::Wrong(format!("no answer to request {id} in {messages:?}")))?;
    check_calculate_answer(answer).map_err(CallError::Wrong)
}

fn keep_alive_client() -> Result<reqwest::Client, String> {
    // One idle connection per client: one keep-alive connection per worker.
    reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(REQUEST_TIMEOUT)
        .build()
        .map_err(|e| e.to_string())
}

struct WorkerResult {
    latencies: Vec<Duration>,
    failed: usize,
    first_failure: Option<String>,
}

/// One worker's calls until `deadline`. `session`: the shared session (`Some`, holding
/// `None` for a stateless server or a 2026-07-28 client), or `None` to open its own.
async fn worker(
    url: String,
    protocol: Protocol,
    session: Option<Option<String>>,
    deadline: Instant,
) -> Result<WorkerResult, String> {
    let client = keep_alive_client()?;
    let session = match session {
        Some(session) => session,
        None => open_session(&client, &url).await?,
    };
    let mut result = WorkerResult {
        latencies: Vec::new(),
        failed: 0,
        first_failure: None,
    };
    while Instant::now() < deadline {
        let start = Instant::now();
        match call(&client, &url, protocol, session.as_deref()).await {
            Ok(()) => result.latencies.push(start.elapsed()),
            Err(CallError::Failed(e)) => {
                result.failed += 1;
                result.first_failure.get_or_insert(e);
            }
            Err(CallError::Wrong(e)) => return Err(e),
        }
    }
    Ok(result)
}

async fn load(
    url: &str,
    concurrency: usize,
    seconds: f64,
    protocol: Protocol,
    per_worker: bool,
    pid: Option<u32>,
) -> Result<Value, String> {
    let shared = match (protocol, per_worker) {
        (Protocol::Stateless2026, _) => Some(None),
        (Protocol::Handshake, true) => None,
        (Protocol::Handshake, false) => Some(open_session(&keep_alive_client()?, url).await?),
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);
    let workers: Vec<_> = (0..concurrency)
        .map(|_| tokio::spawn(worker(url.to_owned(), protocol, shared.clone(), deadline)))
        .collect();
    let mut latencies = Vec::new();
    let mut failed = 0;
    let mut first_failure = None;
    for handle in workers {
        let result = handle.await.map_err(|e| e.to_string())??;
        latencies.extend(result.latencies);
        failed += result.failed;
        first_failure = first_failure.or(result.first_failure);
    }
    let mut line = latency_summary(&mut latencies, start.elapsed());
    line["concurrency"] = json!(concurrency);
    line["protocol"] = json!(protocol.version());
    line["sessions"] = json!(match (protocol, per_worker) {
        (Protocol::Stateless2026, _) => "none",
        (Protocol::Handshake, true) => "per worker",
        (Protocol::Handshake, false) => "shared",
    });
    line["failed_or_timed_out"] = json!(failed);
    if let Some(failure) = first_failure {
        line["first_failure"] = json!(failure);
    }
    if let Some(pid) = pid {
        line["server_rss_kib"] = json!(rss_kib(pid)?);
    }
    Ok(line)
}

async fn idle_sessions(url: &str, count: usize, pid: u32) -> Result<Value, String> {
    let warm_up = keep_alive_client()?;
    let session = open_session(&warm_up, url).await?;
    call(&warm_up, url, Protocol::Handshake, session.as_deref())
        .await
        .map_err(fatal("the warm-up call"))?;
    let before = rss_kib(pid)?;
    let start = Instant::now();
    let openers: Vec<_> = (0..OPENERS)
        .map(|i| {
            let url = url.to_owned();
            tokio::spawn(async move {
                let client = keep_alive_client()?;
                let mut opened = Opened::default();
                for _ in (i..count).step_by(OPENERS) {
                    match open_session(&client, &url).await {
                        Ok(Some(_)) => opened.with_id += 1,
                        Ok(None) => opened.without_id += 1,
                        Err(e) => {
                            opened.refused += 1;
                            opened.first_refusal.get_or_insert(e);
                        }
                    }
                }
                Ok::<_, String>(opened)
            })
        })
        .collect();
    let mut opened = Opened::default();
    for opener in openers {
        let more = opener.await.map_err(|e| e.to_string())??;
        opened.with_id += more.with_id;
        opened.without_id += more.without_id;
        opened.refused += more.refused;
        opened.first_refusal = opened.first_refusal.or(more.first_refusal);
    }
    let opened_in = start.elapsed();
    let accepted = opened.with_id + opened.without_id;
    if accepted == 0 {
        return Err(format!(
            "no session opened: {}",
            opened.first_refusal.unwrap_or_default()
        ));
    }
    tokio::time::sleep(SETTLE).await;
    let after = rss_kib(pid)?;
    let mut line = json!({
        "idle_sessions": accepted,
        "without_session_id": opened.without_id,
        "refused": opened.refused,
        "opened_in_s": (opened_in.as_secs_f64() * 100.0).round() / 100.0,
        "server_rss_before_kib": before,
        "server_rss_after_kib": after,
        "bytes_per_session": ((after as f64 - before as f64) * 1024.0 / accepted as f64).round(),
    });
    if let Some(refusal) = opened.first_refusal {
        line["first_refusal"] = json!(refusal);
    }
    Ok(line)
}

/// The sessions opened by the idle-session openers: with an `mcp-session-id`, without one
/// (a stateless server), and refused (an error, or no answer).
#[derive(Default)]
struct Opened {
    with_id: usize,
    without_id: usize,
    refused: usize,
    first_refusal: Option<String>,
}

/// The value after `flag` in `args`, parsed.
fn option<T: std::str::FromStr>(args: &[String], flag: &str) -> Result<Option<T>, String> {
    match args.iter().position(|a| a == flag) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .map(Some)
            .ok_or_else(|| format!("{flag}: a value")),
    }
}

const USAGE: &str = "usage: mcp_http_load URL CONCURRENCY SECONDS [--session-per-worker] \
                     [--protocol 2025-06-18|2026-07-28] [--pid PID] [--label NAME]\n   \
                     or: mcp_http_load URL --idle-sessions N --pid PID [--label NAME]";

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pid: Option<u32> = option(&args, "--pid")?;
    let label: Option<String> = option(&args, "--label")?;
    let line = if let Some(count) = option::<usize>(&args, "--idle-sessions")? {
        let (Some(url), Some(pid)) = (args.first(), pid) else {
            return Err(USAGE.into());
        };
        if count == 0 {
            return Err("--idle-sessions: at least 1".into());
        }
        idle_sessions(url, count, pid).await?
    } else {
        let [url, concurrency, seconds, ..] = args.as_slice() else {
            return Err(USAGE.into());
        };
        let concurrency: usize = concurrency.parse().map_err(|_| USAGE)?;
        let seconds: f64 = seconds.parse().map_err(|_| USAGE)?;
        let per_worker = args.iter().any(|a| a == "--session-per-worker");
        let protocol = match option::<String>(&args, "--protocol")?.as_deref() {
            None | Some(PROTOCOL) => Protocol::Handshake,
            Some(PROTOCOL_2026) => Protocol::Stateless2026,
            Some(other) => {
                return Err(format!(
                    "--protocol: {PROTOCOL} or {PROTOCOL_2026}, not {other}"
                ));
            }
        };
        if per_worker && protocol == Protocol::Stateless2026 {
            return Err(format!(
                "--session-per-worker: a {PROTOCOL_2026} client has no session"
            ));
        }
        load(url, concurrency, seconds, protocol, per_worker, pid).await?
    };
    println!("{}", labelled(label.as_deref(), line));
    Ok(())
}
