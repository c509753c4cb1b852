//! Streamable HTTP, mounted at `/mcp` on axum.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::serve::{Listener, ListenerExt};
use tokio::net::{TcpListener, TcpStream};

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::{McpServer, ServeError};

/// The largest request body taken.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// A running streamable HTTP server.
///
/// ```no_run
/// # async fn run(executor: tool_runtime::Executor) -> Result<(), tool_mcp::ServeError> {
/// let server = tool_mcp::serve_http(executor, "127.0.0.1:8080".parse().unwrap()).await?;
/// println!("MCP endpoint: {}", server.url());
/// server.wait().await
/// # }
/// ```
pub struct HttpServer {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    // Read by the tests only: the regression test of TCP_NODELAY.
    #[cfg_attr(not(test), allow(dead_code))]
    accepted: Arc<AcceptedConnections>,
}

/// Counts of accepted connections, read back from the sockets themselves (so a test can
/// tell that `TCP_NODELAY` really is on, without measuring latency).
#[derive(Debug, Default)]
struct AcceptedConnections {
    total: AtomicU64,
    with_nodelay: AtomicU64,
}

/// Wraps a TCP listener so that every accepted connection has `TCP_NODELAY` set.
///
/// A streamable HTTP response is written in several small pieces (the SSE priming event,
/// the message, the end of the chunked body). With Nagle's algorithm on, the last piece
/// waits for the client's delayed ACK, about 40 ms on Linux, on every call of a keep-alive
/// connection. `axum::serve` does not set `TCP_NODELAY`; [`serve_http`](crate::serve_http)
/// does, and so should anyone who mounts [`McpServer`] on their own axum router:
///
/// ```no_run
/// # async fn run(router: axum::Router) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(tool_mcp::nodelay_listener(listener), router).await
/// # }
/// ```
pub fn nodelay_listener(listener: TcpListener) -> impl Listener<Io = TcpStream, Addr = SocketAddr> {
    listener.tap_io(|stream: &mut TcpStream| set_nodelay(stream))
}

fn set_nodelay(stream: &TcpStream) {
    if let Err(error) = stream.set_nodelay(true) {
        // The connection still works, only slower for keep-alive clients.
        tracing::warn!(%error, "could not set TCP_NODELAY on an accepted connection");
    }
}

impl HttpServer {
    pub(crate) async fn start(server: McpServer, addr: SocketAddr) -> Result<Self, ServeError> {
        let shutdown = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(shutdown.child_token())
            .with_sse_keep_alive(Some(Duration::from_secs(15)));
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(
                move || Ok(server.clone()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
        let router =
            axum::Router::new()
                .nest_service("/mcp", service)
                .layer(axum::middleware::from_fn(|request, next| {
                    crate::http_guard::check_post(MAX_BODY_BYTES, request, next)
                }));
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let accepted = Arc::new(AcceptedConnections::default());
        let counts = Arc::clone(&accepted);
        let listener = listener.tap_io(move |stream: &mut TcpStream| {
            set_nodelay(stream);
            counts.total.fetch_add(1, Ordering::Relaxed);
            if stream.nodelay().unwrap_or(false) {
                counts.with_nodelay.fetch_add(1, Ordering::Relaxed);
            }
        });
        let stop = shutdown.clone();
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled_owned().await })
                .await
        });
        tracing::info!(%local_addr, "MCP server listening on http://{local_addr}/mcp");
        Ok(HttpServer {
            local_addr,
            shutdown,
            task,
            accepted,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The MCP endpoint, `http://{addr}/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.local_addr)
    }

    /// Stops accepting connections and ends every session.
    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }

    /// Waits until the server stops (after [`shutdown`](Self::shutdown), or on an error).
    ///
    /// # Errors
    ///
    /// When the server failed.
    pub async fn wait(self) -> Result<(), ServeError> {
        match self.task.await {
            Ok(result) => result.map_err(ServeError::Io),
            Err(error) => Err(ServeError::Protocol(format!(
                "the server task failed: {error}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// Accepted sockets have `TCP_NODELAY`, read back with `getsockopt` on the server side.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn accepted_connections_have_nodelay() {
        let registry = tool_runtime::ToolRegistry::new();
        let executor = tool_runtime::Executor::builder(Arc::new(registry)).build();
        let server = HttpServer::start(McpServer::new(executor), "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let addr = server.local_addr();
        // Three connections, each answered, so each was accepted (and tapped) first.
        let answers = tokio::task::spawn_blocking(move || {
            (0..3)
                .map(|_| {
                    let mut stream = std::net::TcpStream::connect(addr).unwrap();
                    stream
                        .write_all(
                            b"GET /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                        )
                        .unwrap();
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer).unwrap();
                    answer
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap();
        assert!(answers.iter().all(|answer| answer.starts_with("HTTP/1.1 ")));
        assert_eq!(server.accepted.total.load(Ordering::Relaxed), 3);
        assert_eq!(server.accepted.with_nodelay.load(Ordering::Relaxed), 3);
        server.shutdown();
        server.wait().await.unwrap();
    }

    /// The public helper sets it too.
    #[tokio::test]
    async fn nodelay_listener_sets_the_option() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut listener = nodelay_listener(listener);
        let client = tokio::spawn(async move { TcpStream::connect(addr).await.unwrap() });
        let (stream, _) = listener.accept().await;
        assert!(stream.nodelay().unwrap());
        drop(client.await.unwrap());
    }
}
