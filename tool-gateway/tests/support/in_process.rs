//! What the tests of upstreams in process share: the deadline every wait has, an rmcp
//! `ServerHandler` served over `tokio::io::duplex` (an upstream, or our gateway's own
//! `McpServer`), an upstream mounted in a registry of its own, and a raw upstream over
//! newline-delimited JSON-RPC for what rmcp's server would not send (MCP 2026-07-28's
//! input requests to a handshake-era client).

#![allow(dead_code)]

use std::future::Future;
use std::time::Duration;

use rmcp::{RoleServer, Service, ServiceExt};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{DuplexStream, ReadHalf, WriteHalf};

use toolwright_gateway::upstream::{Mount, MountOptions, MountUpstream, Upstream};
use toolwright_runtime::ToolRegistry;

/// How long any wait may take before it fails the test: generous, never a measure.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// `future`, or a panic naming `what` when it is not done within [`DEADLINE`].
pub async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

/// Serves `server` on a task over an in-process pipe; the client's end of the pipe.
pub fn serve<S: Service<RoleServer>>(
    server: S,
) -> (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>) {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    tokio::io::split(client_io)
}

/// `server` served in process, connected as the upstream `name` (the handshake within
/// [`DEADLINE`]).
pub async fn upstream_of<S: Service<RoleServer>>(name: &str, server: S) -> Upstream {
    within(
        "the upstream handshake",
        Upstream::connect_transport(name, serve(server)),
    )
    .await
    .unwrap()
}

/// A new registry with `upstream` mounted in it as `options` say (the mount within
/// [`DEADLINE`]), and the mount.
pub async fn registry_with(
    upstream: &Upstream,
    options: MountOptions,
) -> (Arc<ToolRegistry>, Mount) {
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(upstream, options))
        .await
        .unwrap();
    (registry, mount)
}

/// A raw upstream over newline-delimited JSON-RPC, in process, connected as the upstream
/// `name`: it says it is the server `server` with tools, in the protocol version asked
/// for; `answer` gives the result of every other request from its method and params (a
/// notification is not answered).
pub async fn raw_upstream(
    name: &str,
    server: &'static str,
    mut answer: impl FnMut(&str, &Value) -> Value + Send + 'static,
) -> Upstream {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, mut write) = tokio::io::split(server_io);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            let Some(id) = message.get("id").cloned() else {
                continue;
            };
            let (method, params) = (
                message["method"].as_str().unwrap_or_default(),
                &message["params"],
            );
            let result = match method {
                "initialize" => json!({
                    "protocolVersion": params["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": server, "version": "1"}
                }),
                _ => answer(method, params),
            };
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
            let mut bytes = serde_json::to_vec(&reply).unwrap();
            bytes.push(b'\n');
            if write.write_all(&bytes).await.is_err() {
                break;
            }
        }
    });
    within(
        "the handshake",
        Upstream::connect_transport(name, tokio::io::split(client_io)),
    )
    .await
    .unwrap()
}
