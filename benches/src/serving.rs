//! Pieces shared by the serving benchmark's clients (`mcp_http_load`, `mcp_stdio_load`):
//! the MCP messages they send, how they check an answer, latency summaries, and a server's
//! resident memory.

use std::time::Duration;

use serde_json::{Value, json};

/// The protocol version the clients ask for in the handshake era (`initialize`, sessions).
pub const PROTOCOL: &str = "2025-06-18";

/// The revision without a handshake: no `initialize`, no session; every request carries
/// the protocol version, the client's name and capabilities in `_meta`, and says its method
/// (and tool) in HTTP headers.
pub const PROTOCOL_2026: &str = "2026-07-28";

/// The `initialize` request, with this id.
pub fn initialize(id: u64, client: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": client, "version": "0"}}
    })
}

/// The `notifications/initialized` notification.
pub fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// The measured call: `tools/call calculate {"expression": "1+2"}`.
pub fn calculate_call(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "calculate", "arguments": {"expression": "1+2"}}
    })
}

/// [`calculate_call`] as a 2026-07-28 client sends it: with the per-request `_meta` that
/// stands in for `initialize`.
pub fn calculate_call_2026(id: u64, client: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "calculate", "arguments": {"expression": "1+2"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": PROTOCOL_2026,
                "io.modelcontextprotocol/clientInfo": {"name": client, "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        }
    })
}

/// Checks the answer to [`calculate_call`]: a result, not an error, whose first content
/// item is the text `3`.
pub fn check_calculate_answer(answer: &Value) -> Result<(), String> {
    let result = answer
        .get("result")
        .ok_or_else(|| format!("not a result: {answer}"))?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Err(format!("the tool failed: {answer}"));
    }
    match result.pointer("/content/0/text").and_then(Value::as_str) {
        Some("3") => Ok(()),
        _ => Err(format!("unexpected answer: {answer}")),
    }
}

/// The JSON-RPC id of a message, if it is a number.
pub fn message_id(message: &Value) -> Option<u64> {
    message.get("id").and_then(Value::as_u64)
}

/// The JSON-RPC messages in a streamable HTTP response body: one JSON value
/// (`application/json`), or the `data` of each server-sent event (`text/event-stream`;
/// events without data, such as priming events, are skipped).
pub fn response_messages(content_type: &str, body: &str) -> Result<Vec<Value>, String> {
    let parse = |text: &str| {
        serde_json::from_str::<Value>(text).map_err(|e| format!("{e} in a response: {text:?}"))
    };
    if body.trim().is_empty() {
        // A notification's `202 Accepted`, whatever type it declares.
        Ok(Vec::new())
    } else if content_type.starts_with("text/event-stream") {
        // An event ends at a blank line; its data is its `data:` lines, joined.
        let mut messages = Vec::new();
        let mut data: Vec<&str> = Vec::new();
        for line in body.lines().chain([""]) {
            if line.is_empty() {
                let event = data.join("\n");
                if !event.trim().is_empty() {
                    messages.push(parse(&event)?);
                }
                data.clear();
            } else if let Some(value) = line.strip_prefix("data:") {
                data.push(value.strip_prefix(' ').unwrap_or(value));
            }
        }
        Ok(messages)
    } else if content_type.starts_with("application/json") {
        Ok(vec![parse(body)?])
    } else {
        Err(format!(
            "a response of type {content_type:?}, neither JSON nor an event stream: {body:?}"
        ))
    }
}

/// Requests per second, p50 and p99 latency in milliseconds, rounded for printing.
pub fn latency_summary(latencies: &mut [Duration], elapsed: Duration) -> Value {
    latencies.sort();
    let ms = |d: Duration| (d.as_secs_f64() * 1000.0 * 100.0).round() / 100.0;
    json!({
        "requests": latencies.len(),
        "rps": (latencies.len() as f64 / elapsed.as_secs_f64() * 10.0).round() / 10.0,
        "p50_ms": ms(percentile(latencies, 0.50)),
        "p99_ms": ms(percentile(latencies, 0.99)),
    })
}

/// The `p` quantile (0 to 1) of sorted durations, by nearest rank; zero if there are none.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// A process's resident set size in KiB (`VmRSS` in `/proc/PID/status`; Linux only).
pub fn rss_kib(pid: u32) -> Result<u64, String> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no VmRSS line in {path}"))
}

/// Adds `"server": label` to a JSON object (when a label was given).
pub fn labelled(label: Option<&str>, mut line: Value) -> Value {
    if let (Some(label), Some(object)) = (label, line.as_object_mut()) {
        object.insert("server".into(), Value::String(label.into()));
    }
    line
}
