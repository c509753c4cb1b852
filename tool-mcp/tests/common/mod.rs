//! Plain HTTP against the server, for what an MCP client library hides: status codes,
//! headers, raw bodies.

#![allow(dead_code)] // Each test binary uses part of it.

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};

/// An `initialize` request.
pub fn initialize_body() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-test-client", "version": "0.0.1"}
        }
    })
}

/// A POST to the MCP endpoint with the headers streamable HTTP asks for.
pub fn post(client: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header(ACCEPT, "application/json, text/event-stream")
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_string())
}

/// Sends `initialize`; the response as it came.
pub async fn initialize(
    client: &reqwest::Client,
    url: &str,
    token: Option<&str>,
) -> reqwest::Response {
    let mut request = post(client, url, &initialize_body());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

/// The session id a response gave, if any.
pub fn session_id(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get("mcp-session-id")
        .map(|value| value.to_str().unwrap().to_owned())
}

/// The JSON-RPC message of a response body: the body itself (JSON), or the last `data:` line
/// of an event stream that holds JSON.
pub fn message(body: &str) -> Value {
    if let Ok(value) = serde_json::from_str(body) {
        return value;
    }
    body.lines()
        .rev()
        .filter_map(|line| line.strip_prefix("data:"))
        .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC message in {body:?}"))
}
