//! The executor's side of the channel: line-delimited JSON-RPC over the socket the program
//! holds as its standard input. This side is the authority: it reads every request as
//! untrusted input, bounds its size, checks the tool against the set offered to the caller
//! of `run_code` and the call count against the bound, and only then makes the call,
//! through the executor ([`NestedCalls`]). The program holds one end of one socket pair; it
//! cannot reach the executor any other way.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use toolwright_core::{NestedCalls, ToolCall};

/// JSON-RPC's "invalid request" and "method not found" codes, and ours for a refusal.
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const REFUSED: i64 = -32001;

/// What the host holds for one run.
pub(crate) struct Host {
    /// The offered tools: Python's name for each is the program's business; the real name
    /// is what counts here.
    pub(crate) offered: std::collections::HashSet<String>,
    pub(crate) calls: Option<Arc<dyn NestedCalls>>,
    pub(crate) max_calls: u32,
    pub(crate) max_request_bytes: usize,
}

/// One call the program asked for.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema, PartialEq)]
pub struct ProgramCall {
    /// The tool it named.
    pub tool: String,
    /// Whether the call ran and succeeded (false: it failed, or was refused, as `error` says).
    pub success: bool,
    /// Why it failed or was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What went over the channel in one run.
#[derive(Debug, Default)]
pub(crate) struct Transcript {
    /// Every call request, in order (refused ones too), up to the bound and a few more.
    pub(crate) calls: Vec<ProgramCall>,
    /// How many calls reached the executor.
    pub(crate) made: u32,
    /// How many requests were refused here (not offered, over the bound, malformed).
    pub(crate) refused: u32,
    /// The value the program ended with.
    pub(crate) result: Option<Value>,
    /// Bytes read from and written to the program.
    pub(crate) bytes_in: u64,
    pub(crate) bytes_out: u64,
}

/// The most calls listed one by one in a transcript past the bound: the rest are counted.
const MAX_LISTED_PAST_BOUND: usize = 16;

/// Serves the program on `stream` until it closes its end (or the future is dropped).
pub(crate) async fn serve(
    stream: impl AsyncRead + AsyncWrite + Unpin,
    host: &Host,
    transcript: &mut Transcript,
) {
    let (mut reader, mut writer) = tokio::io::split(stream);
    let mut pending: Vec<u8> = Vec::new();
    let mut discarding = false;
    let mut chunk = vec![0_u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        transcript.bytes_in += n as u64;
        let mut rest = &chunk[..n];
        while let Some(end) = rest.iter().position(|b| *b == b'\n') {
            let answer = if discarding || pending.len() + end > host.max_request_bytes {
                if !discarding {
                    transcript.refused = transcript.refused.saturating_add(1);
                }
                discarding = false;
                Some(too_long(host))
            } else {
                pending.extend_from_slice(&rest[..end]);
                handle(&pending, host, transcript).await
            };
            pending.clear();
            rest = &rest[end + 1..];
            if let Some(answer) = answer {
                let mut line = answer.to_string().into_bytes();
                line.push(b'\n');
                transcript.bytes_out += line.len() as u64;
                if writer.write_all(&line).await.is_err() {
                    return;
                }
            }
        }
        if !discarding {
            pending.extend_from_slice(rest);
            // A line longer than the bound is not kept: its end is awaited, then refused.
            if pending.len() > host.max_request_bytes {
                pending.clear();
                discarding = true;
                transcript.refused = transcript.refused.saturating_add(1);
            }
        }
    }
}

fn too_long(host: &Host) -> Value {
    error(
        Value::Null,
        INVALID_REQUEST,
        &format!(
            "a request over {} bytes was refused unread (the code-mode limit max_request_bytes)",
            host.max_request_bytes
        ),
    )
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to one request line (none to a notification).
async fn handle(line: &[u8], host: &Host, transcript: &mut Transcript) -> Option<Value> {
    let request: Map<String, Value> = match serde_json::from_slice(line) {
        Ok(Value::Object(map)) => map,
        _ => {
            transcript.refused = transcript.refused.saturating_add(1);
            return Some(error(
                Value::Null,
                INVALID_REQUEST,
                "a request must be one JSON-RPC object on one line",
            ));
        }
    };
    // An id is echoed only when it is a number or a string.
    let id = match request.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => Some(id.clone()),
        _ => None,
    };
    let params = request.get("params").and_then(Value::as_object);
    match request.get("method").and_then(Value::as_str) {
        Some("result") if id.is_none() => {
            transcript.result = params.and_then(|p| p.get("value")).cloned();
            None
        }
        Some("tools/call") => {
            let id = id.unwrap_or(Value::Null);
            let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
            let arguments = params
                .and_then(|p| p.get("arguments"))
                .cloned()
                .unwrap_or_else(|| json!({}));
            Some(call(id, name, arguments, host, transcript).await)
        }
        _ => {
            transcript.refused = transcript.refused.saturating_add(1);
            Some(error(
                id.unwrap_or(Value::Null),
                METHOD_NOT_FOUND,
                "the methods are `tools/call` and the `result` notification",
            ))
        }
    }
}

async fn call(
    id: Value,
    name: Option<&str>,
    arguments: Value,
    host: &Host,
    transcript: &mut Transcript,
) -> Value {
    let Some(name) = name else {
        transcript.refused = transcript.refused.saturating_add(1);
        return error(id, INVALID_REQUEST, "`tools/call` needs `params.name`");
    };
    let refusal = if !host.offered.contains(name) {
        Some(format!(
            "tool `{name}` is not offered to this program; it may call only the tools \
             offered to the caller of `run_code` (`tools.__dict__` lists them)"
        ))
    } else if transcript.made >= host.max_calls {
        Some(format!(
            "tool `{name}` was not run: this program may make at most {} tool calls \
             (the code-mode limit max_calls) and has made them",
            host.max_calls
        ))
    } else {
        None
    };
    let calls = host.calls.as_ref().filter(|_| refusal.is_none());
    let Some(calls) = calls else {
        let message = refusal.unwrap_or_default();
        transcript.refused = transcript.refused.saturating_add(1);
        if transcript.calls.len() < host.max_calls as usize + MAX_LISTED_PAST_BOUND {
            transcript.calls.push(ProgramCall {
                tool: name.to_owned(),
                success: false,
                error: Some(message.clone()),
            });
        }
        return error(id, REFUSED, &message);
    };
    transcript.made += 1;
    // The executor names the nested call; this id is only the program's.
    let result = calls.call(ToolCall::new("", name, arguments)).await;
    transcript.calls.push(ProgramCall {
        tool: name.to_owned(),
        success: result.success,
        error: result.error.clone(),
    });
    let mut answer = BTreeMap::new();
    answer.insert("isError", Value::Bool(!result.success));
    answer.insert("content", Value::String(result.content));
    if let Some(error) = result.error {
        answer.insert("error", Value::String(error));
    }
    if let Some(structured) = result.structured_content {
        answer.insert("structuredContent", structured);
    }
    json!({"jsonrpc": "2.0", "id": id, "result": answer})
}
