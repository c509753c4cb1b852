//! Serving tools over streamable HTTP to callers who authenticate: each bearer token has
//! scopes, and a caller sees and may call only the tools its scopes allow (`tools:safe`:
//! safe tools; `tools:dangerous`: every tool, dangerous ones still approved by a person).
//!
//! `cargo run -p toolwright --example serve_with_auth --features mcp-auth` serves on
//! 127.0.0.1:8080 until Ctrl-C: point an MCP client at `http://127.0.0.1:8080/mcp` with
//! `Authorization: Bearer <token>`, a token read from `TOOLWRIGHT_EXAMPLE_TOKEN` (every
//! scope) or the read-only one printed at start. With `--check` it serves on a free port,
//! checks what each caller gets over plain HTTP, and exits (CI runs it so).

use std::sync::Arc;

use toolwright::mcp::{AuthConfig, HttpOptions, McpServer};
use toolwright::serde_json::{Value, json};
use toolwright::{Executor, register_all_tools, tool};

/// Look up the opening hours of a shop.
#[tool(safety = "safe")]
fn opening_hours(
    /// The shop's name
    shop: String,
) -> String {
    format!("{shop}: 9:00-18:00")
}

/// Close a shop for the day.
#[tool(safety = "dangerous")]
fn close_shop(shop: String) -> String {
    format!("{shop} is closed")
}

/// One JSON-RPC request over streamable HTTP; the reply's JSON (plain or one SSE event).
async fn rpc(
    http: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    session: Option<&str>,
    body: Value,
) -> Result<(u16, Option<String>, Value), Box<dyn std::error::Error>> {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await?;
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await?;
    // An SSE stream carries the reply in a `data:` line (after a priming event with no
    // data); plain JSON is the reply itself.
    let reply = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .chain([text.as_str()])
        .find_map(|data| toolwright::serde_json::from_str::<Value>(data.trim()).ok())
        .unwrap_or(Value::Null);
    Ok((status, session, reply))
}

/// The tool names a caller with `token` is shown.
async fn tools_seen(
    http: &reqwest::Client,
    url: &str,
    token: &str,
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "example", "version": "0"}}});
    let (status, session, _) = rpc(http, url, Some(token), None, initialize).await?;
    assert_eq!(status, 200);
    let session = session.ok_or("no session id")?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    rpc(http, url, Some(token), Some(&session), initialized).await?;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (_, _, reply) = rpc(http, url, Some(token), Some(&session), list).await?;
    let mut names: Vec<String> = reply["result"]["tools"]
        .as_array()
        .ok_or_else(|| format!("no tool list in {reply}"))?
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect();
    names.sort();
    Ok(names)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let check = std::env::args().any(|arg| arg == "--check");
    // Tokens are secrets: in production read them from a file only the server can read
    // (`AuthConfig::token_file`) or use JWTs (`JwtConfig`).
    let admin = std::env::var("TOOLWRIGHT_EXAMPLE_TOKEN")
        .unwrap_or_else(|_| "admin-token-0123456789abcdef".to_owned());
    let reader = "reader-token-0123456789abcdef";
    let auth = AuthConfig::new()
        .token(
            admin.clone(),
            [
                "tools:safe",
                "tools:cautious",
                "tools:dangerous",
                "tools:approve",
            ],
        )?
        .token(reader, ["tools:safe"])?;

    let executor = Executor::builder(Arc::new(register_all_tools()?)).build();
    let server = McpServer::new(executor).name(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    let addr = if check {
        "127.0.0.1:0"
    } else {
        "127.0.0.1:8080"
    };
    let http_server = server
        .serve_http_with(addr.parse()?, HttpOptions::new().auth(auth))
        .await?;
    let url = http_server.url();
    println!("serving {url}; a read-only token: {reader}");
    if !check {
        http_server.wait().await?;
        return Ok(());
    }

    let http = reqwest::Client::new();
    // No token: refused, with where to get one.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let (status, _, _) = rpc(&http, &url, None, None, ping.clone()).await?;
    assert_eq!(status, 401);
    let (status, _, _) = rpc(&http, &url, Some("a-token-nobody-issued-0123"), None, ping).await?;
    assert_eq!(status, 401);
    // Each caller sees what its scopes allow.
    assert_eq!(tools_seen(&http, &url, reader).await?, ["opening_hours"]);
    assert_eq!(
        tools_seen(&http, &url, &admin).await?,
        ["close_shop", "opening_hours"]
    );
    println!("checked: no token 401, reader sees 1 tool, admin sees 2");
    http_server.shutdown();
    Ok(())
}
