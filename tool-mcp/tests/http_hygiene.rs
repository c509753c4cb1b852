//! JSON-RPC hygiene over streamable HTTP: malformed bodies get `400` with a JSON-RPC error
//! (rmcp alone answers a plain-text `415`), non-object tool arguments get `-32602`.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolwright_runtime::{Executor, ToolRegistry};

/// One raw HTTP/1.1 POST to `/mcp`; the status and the body.
async fn post(addr: std::net::SocketAddr, body: &str) -> (u16, String) {
    let (status, _, body) = send(addr, "POST", "", body).await;
    (status, body)
}

/// One raw HTTP/1.1 request to `/mcp` with extra header lines; status, head and body.
async fn send(
    addr: std::net::SocketAddr,
    method: &str,
    headers: &str,
    body: &str,
) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        addr.port(),
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (status, head.to_owned(), body.to_owned())
}

fn error_code(body: &str) -> Value {
    let json: Value = serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"));
    json["error"]["code"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_bodies_are_json_rpc_errors() {
    let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    let server = toolwright_mcp::serve_http(executor, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let addr = server.local_addr();

    let (status, body) = post(addr, "{not json").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_code(&body), json!(-32700));

    let (status, body) = post(addr, r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_code(&body), json!(-32600));

    let (status, body) = post(addr, r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_code(&body), json!(-32600));

    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "anything", "arguments": [1, 2]}});
    let (status, body) = post(addr, &call.to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(error_code(&body), json!(-32602));

    // A well-formed initialize still reaches rmcp.
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}});
    let (status, body) = post(addr, &initialize.to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("serverInfo"), "{body}");
    server.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_an_unknown_session_is_not_found() {
    let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    let server = toolwright_mcp::serve_http(executor, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let addr = server.local_addr();
    let version = "MCP-Protocol-Version: 2025-06-18\r\n";
    let unknown = format!("{version}Mcp-Session-Id: no-such-session\r\n");
    let (status, _, body) = send(addr, "DELETE", &unknown, "").await;
    assert_eq!(status, 404, "{body}");

    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}});
    let (status, head, body) = send(addr, "POST", "", &initialize.to_string()).await;
    assert_eq!(status, 200, "{body}");
    let session = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id in {head}"));
    let known = format!("{version}Mcp-Session-Id: {session}\r\n");
    let (status, _, body) = send(addr, "DELETE", &known, "").await;
    assert_eq!(status, 200, "{body}");
    // Gone now: deleting it again is not found.
    let (status, _, body) = send(addr, "DELETE", &known, "").await;
    assert_eq!(status, 404, "{body}");
    server.shutdown();
}
