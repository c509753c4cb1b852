//! Protocol eras over streamable HTTP (feature `http`): a small HTTP MCP server written
//! here (axum, JSON answers, every request recorded) that speaks only MCP 2026-07-28 is
//! mounted with `Protocol::Discover` and called, sessionless, with each request carrying
//! its own metadata; the same server in its handshake-era form (it answers
//! `server/discover` with an HTTP error, as such servers do) is asked `initialize` next by
//! `Protocol::Auto` after a 400, refused after a 500 with an error naming the option, and
//! mounted by the default after either. Counted, never timed; every
//! wait has a deadline.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use toolwright_core::{Caller, SafetyLevel, ToolCall};
use toolwright_gateway::upstream::{MountOptions, MountUpstream, Protocol, Upstream};
use toolwright_runtime::{CallOptions, Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

/// What the server saw, and which era it is.
#[derive(Clone)]
struct Server {
    modern: bool,
    /// What a handshake-era one answers `server/discover` (an HTTP error).
    discover_status: StatusCode,
    /// `method` of every request, with `+meta` when it carried the 2026-07-28 metadata and
    /// `+session` when it carried a session id.
    seen: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn count(&self, what: &str) -> usize {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| *s == what)
            .count()
    }
}

fn json_body(body: &Value) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn reply(id: &Value, result: Value) -> Response {
    json_body(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

async fn handle(State(server): State<Server>, headers: HeaderMap, body: String) -> Response {
    let Ok(message) = serde_json::from_str::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let method = message["method"].as_str().unwrap_or_default().to_owned();
    let params = &message["params"];
    let meta = params["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28";
    let mut seen = method.clone();
    if meta {
        seen.push_str("+meta");
    }
    if headers.contains_key("mcp-session-id") {
        seen.push_str("+session");
    }
    if let Some(user) = headers.get("x-user").and_then(|v| v.to_str().ok()) {
        seen.push_str(&format!("@{user}"));
    }
    server.seen.lock().unwrap().push(seen);
    let Some(id) = message.get("id") else {
        return StatusCode::ACCEPTED.into_response();
    };
    match (server.modern, method.as_str()) {
        (true, "initialize") => json_body(&json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601, "message": "this server speaks only MCP 2026-07-28"
        }})),
        (true, "server/discover") => reply(
            id,
            json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "ttlMs": 0,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-http", "version": "1"}},
            }),
        ),
        // A handshake-era server knows no `server/discover`: an HTTP error, no JSON-RPC.
        (false, "server/discover") => server.discover_status.into_response(),
        (false, "initialize") => {
            let mut response = reply(
                id,
                json!({
                    "protocolVersion": params["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "legacy-http", "version": "1"},
                }),
            );
            response
                .headers_mut()
                .insert("mcp-session-id", "s-1".parse().unwrap());
            response
        }
        (_, "tools/list") => reply(
            id,
            json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        ),
        (_, "tools/call") => reply(
            id,
            json!({"content": [{"type": "text", "text": params["arguments"]["text"]}]}),
        ),
        _ => reply(id, json!({})),
    }
}

async fn serve(modern: bool) -> (Server, String) {
    serve_answering(modern, StatusCode::BAD_REQUEST).await
}

async fn serve_answering(modern: bool, discover_status: StatusCode) -> (Server, String) {
    let server = Server {
        modern,
        discover_status,
        seen: Arc::default(),
    };
    let app = Router::new()
        .route(
            "/mcp",
            post(handle).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
        )
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (server, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_http_upstream_is_mounted_and_called_without_a_session() {
    let (server, url) = serve(true).await;
    let upstream = within(
        "connect",
        Upstream::http(url).protocol(Protocol::Discover).connect(),
    )
    .await
    .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("web").default_safety(SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    let executor = Executor::builder(registry).build();
    for n in 0..3 {
        let call = ToolCall::new("1", "web_echo", json!({"text": format!("hi {n}")}));
        let result = within("web_echo", executor.execute(call)).await;
        assert!(result.success, "{result:?}");
        assert_eq!(result.content, format!("hi {n}"));
    }
    assert_eq!(server.count("tools/call+meta"), 3, "{:?}", server.seen);
    assert_eq!(server.count("initialize"), 0);
    // Every request after discover carried its metadata, and none a session.
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(
        seen.first().map(String::as_str),
        Some("server/discover+meta")
    );
    assert!(
        seen.iter()
            .all(|s| s.ends_with("+meta") || s.starts_with("notifications/")),
        "{seen:?}"
    );
    upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_falls_back_on_a_client_error_and_refuses_a_server_error_naming_the_option() {
    // A handshake-era server that answers `server/discover` 400 (or 404, 405, ...): `auto`
    // asks it `initialize` next.
    let (server, url) = serve(false).await;
    let upstream = within(
        "connect, auto",
        Upstream::http(url).protocol(Protocol::Auto).connect(),
    )
    .await
    .unwrap();
    assert_eq!(upstream.server_name(), "legacy-http");
    assert_eq!(server.count("initialize"), 1, "{:?}", server.seen);
    upstream.close().await;

    // One that answers it 500 is not taken for a handshake-era server.
    let (server, url) = serve_answering(false, StatusCode::INTERNAL_SERVER_ERROR).await;
    // The documented reason `auto` is not the default: the start fails, saying what to set.
    let error = within(
        "connect, auto",
        Upstream::http(url.clone())
            .protocol(Protocol::Auto)
            .connect(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(error.contains("`protocol = \"handshake\"`"), "{error}");
    assert_eq!(server.count("initialize"), 0, "{:?}", server.seen);
    // The default mounts it.
    let upstream = within("connect, handshake", Upstream::http(url).connect())
        .await
        .unwrap();
    assert_eq!(upstream.server_name(), "legacy-http");
    assert_eq!(server.count("initialize"), 1);
    upstream.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_only_http_server_refuses_the_default_and_the_error_names_the_option() {
    let (_server, url) = serve(true).await;
    let error = within("connect", Upstream::http(url).connect())
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("protocol = \"2026-07-28\""), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_caller_s_session_of_a_2026_upstream_is_opened_the_same_way() {
    let (server, url) = serve(true).await;
    let upstream = within(
        "connect",
        Upstream::http(url)
            .identity_header("x-user")
            .protocol(Protocol::Discover)
            .connect(),
    )
    .await
    .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("web").default_safety(SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    let executor = Executor::builder(registry).build();
    for user in ["alice", "bob"] {
        let call = ToolCall::new("1", "web_echo", json!({"text": user}));
        let options = CallOptions::new().caller(Caller::new(user.to_owned()));
        let result = within("web_echo", executor.execute_with(call, options)).await;
        assert!(result.result.success, "{:?}", result.result);
        assert_eq!(result.result.content, user);
    }
    // Each caller's session discovered, then called, with its metadata and its name;
    // nothing asked `initialize`.
    for user in ["alice", "bob"] {
        assert_eq!(
            server.count(&format!("server/discover+meta@{user}")),
            1,
            "{:?}",
            server.seen
        );
        assert_eq!(
            server.count(&format!("tools/call+meta@{user}")),
            1,
            "{:?}",
            server.seen
        );
    }
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .all(|s| !s.starts_with("initialize")),
        "{:?}",
        server.seen
    );
    upstream.close().await;
}
