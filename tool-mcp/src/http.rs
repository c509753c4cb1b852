//! Streamable HTTP, mounted at `/mcp` on axum.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::{McpServer, ServeError};

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
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
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
