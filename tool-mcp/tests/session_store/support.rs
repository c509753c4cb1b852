//! What the session store tests share: a `redis-server` of their own, sessions to store,
//! and two rmcp servers (replicas) with a client that can send each request to either.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use toolwright_core::tool;
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, register_all_tools};

/// How long anything may take before a test gives up: generous, so a loaded machine
/// does not fail a test; nothing is asserted on durations.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// Say a greeting back, twice.
#[tool]
fn echo_twice(text: String) -> String {
    format!("{text} {text}")
}

// A redis-server of our own: the one tests/common/redis.rs starts.
pub use crate::redis_server::Redis;

pub fn session_state(client_name: &str) -> SessionState {
    SessionState::new(InitializeRequestParams::new(
        ClientCapabilities::default(),
        Implementation::new(client_name, "1.0.0"),
    ))
}

pub fn json_of(state: &SessionState) -> Value {
    serde_json::to_value(state).unwrap()
}

// ---------------------------------------------------------------------------------------
// Two rmcp servers, one session.

/// An rmcp streamable HTTP server (no toolwright) serving `McpServer` at `/mcp`.
pub struct Replica {
    addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Replica {
    pub async fn start(store: Option<Arc<dyn SessionStore>>) -> Replica {
        let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
        let server = McpServer::new(executor);
        let stop = CancellationToken::new();
        let mut config =
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
        config.session_store = store;
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(
                move || Ok(server.clone()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let until = stop.clone();
        let task = tokio::spawn(async move {
            axum::serve(toolwright_mcp::nodelay_listener(listener), router)
                .with_graceful_shutdown(async move { until.cancelled_owned().await })
                .await
        });
        Replica { addr, stop, task }
    }

    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops it and waits until it no longer serves.
    pub async fn shut_down(self) {
        self.stop.cancel();
        tokio::time::timeout(DEADLINE, self.task)
            .await
            .expect("the replica did not stop")
            .unwrap()
            .unwrap();
    }
}

/// A client speaking JSON-RPC over plain POSTs, so each request can go to any replica.
pub struct RawClient {
    pub http: reqwest::Client,
    next_id: u64,
    /// The bearer token sent with every request, if any.
    token: Option<String>,
}

pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// One answer: its status, its session id header, and the JSON-RPC message in its body.
pub struct Answer {
    pub status: reqwest::StatusCode,
    pub session_id: Option<String>,
    pub body: String,
}

impl Answer {
    /// The JSON-RPC response carried by the body (JSON, or the SSE event holding it).
    pub fn message(&self) -> Value {
        if let Ok(value) = serde_json::from_str::<Value>(&self.body) {
            return value;
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC response in: {}", self.body))
    }
}

impl RawClient {
    pub fn new() -> RawClient {
        RawClient {
            http: reqwest::Client::builder()
                .timeout(DEADLINE)
                .build()
                .unwrap(),
            next_id: 1,
            token: None,
        }
    }

    pub fn with_token(token: &str) -> RawClient {
        RawClient {
            token: Some(token.to_owned()),
            ..RawClient::new()
        }
    }

    /// A `DELETE` or `GET` of `session`, with this client's token; its status.
    pub async fn send(
        &self,
        method: reqwest::Method,
        url: &str,
        session: &str,
    ) -> reqwest::StatusCode {
        let mut request = self
            .http
            .request(method, url)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", PROTOCOL_VERSION);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        request.send().await.unwrap().status()
    }

    pub async fn post(&self, url: &str, session_id: Option<&str>, body: &Value) -> Answer {
        let mut request = self
            .http
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", PROTOCOL_VERSION)
            .body(body.to_string());
        if let Some(id) = session_id {
            request = request.header("Mcp-Session-Id", id);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let session_id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.text().await.unwrap();
        Answer {
            status,
            session_id,
            body,
        }
    }

    pub async fn request(
        &mut self,
        url: &str,
        session_id: Option<&str>,
        method: &str,
        params: Value,
    ) -> Answer {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post(url, session_id, &body).await
    }

    /// `initialize` and `notifications/initialized`; returns the session id.
    pub async fn initialize(&mut self, url: &str) -> String {
        let answer = self
            .request(
                url,
                None,
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "replica-test", "version": "1.0.0"}
                }),
            )
            .await;
        assert_eq!(answer.status, 200, "initialize: {}", answer.body);
        // Named after the program by default: this test's, `session_store-<hash>`.
        assert!(
            answer.message()["result"]["serverInfo"]["name"]
                .as_str()
                .is_some_and(|name| name.starts_with("session_store-")),
            "{}",
            answer.body
        );
        let session_id = answer
            .session_id
            .expect("initialize gave no Mcp-Session-Id");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = self.post(url, Some(&session_id), &initialized).await;
        assert_eq!(answer.status, 202, "initialized: {}", answer.body);
        session_id
    }

    pub async fn list_tools(&mut self, url: &str, session_id: &str) -> Answer {
        self.request(url, Some(session_id), "tools/list", json!({}))
            .await
    }

    pub async fn echo(&mut self, url: &str, session_id: &str, text: &str) -> Answer {
        self.request(
            url,
            Some(session_id),
            "tools/call",
            json!({"name": "echo_twice", "arguments": {"text": text}}),
        )
        .await
    }
}

pub fn assert_tools_listed(answer: &Answer, server: &str) {
    assert_eq!(
        answer.status, 200,
        "tools/list on {server}: {}",
        answer.body
    );
    let message = answer.message();
    let names: Vec<&str> = message["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list on {server}: {message}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["echo_twice"], "tools/list on {server}");
}

pub fn assert_echoed(answer: &Answer, text: &str, server: &str) {
    assert_eq!(
        answer.status, 200,
        "tools/call on {server}: {}",
        answer.body
    );
    let message = answer.message();
    assert_eq!(
        message["result"]["isError"], false,
        "tools/call on {server}: {message}"
    );
    assert_eq!(
        message["result"]["content"][0]["text"],
        format!("{text} {text}"),
        "tools/call on {server}: {message}"
    );
}
