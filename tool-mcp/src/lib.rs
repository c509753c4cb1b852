#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The server's core, for every transport.
mod answers;
mod approval;
mod caller;
mod client;
mod content;
mod in_flight;
mod jsonrpc;
mod listen;
mod principal;
mod refused;
mod rounds;
pub mod secret;
mod server;
mod stdio;
pub mod tasks;

// The streamable HTTP server (feature `http`) and what it may add.
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub mod auth;
#[cfg(feature = "http")]
mod conn;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod http_guard;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "http")]
mod ops;
#[cfg(feature = "http")]
mod options;
#[cfg(feature = "http")]
mod owners;
#[cfg(feature = "redis")]
mod session_store;
#[cfg(feature = "http")]
mod sessions;

#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use auth::{AuthConfig, AuthError, JwtConfig, TokenRejected};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::{DrainReport, HttpServer, nodelay_listener};
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub use metrics::PrometheusMetrics;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use options::HttpOptions;
pub use principal::Principal;
pub use rounds::{
    DEFAULT_MAX_CLAIMS_PER_OWNER, DEFAULT_MAX_MEMORY_CLAIMS, MemoryClaims, StateClaims,
};
pub use server::McpServer;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use session_store::{
    DEFAULT_KEY_PREFIX, DEFAULT_STATE_KEY_PREFIX, DEFAULT_TTL, RedisSessionStore, RedisStoreError,
    redis_url_has_password,
};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use tasks::RedisTaskStore;
pub use tasks::{MemoryTaskStore, TaskStore};
// The gateway (toolwright-gateway) turns what an upstream server logs into ours with the
// same mapping as a client's level; not part of the API.
#[doc(hidden)]
pub use client::from_rmcp as log_level_from_rmcp;

#[cfg(feature = "http")]
use std::net::SocketAddr;

use toolwright_runtime::Executor;

/// Why a server could not start or stopped with an error.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A socket or stream failed.
    #[error("MCP server I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The client and server could not agree (initialization failed, transport closed).
    #[error("MCP protocol error: {0}")]
    Protocol(String),
    /// The tool registry could not be built.
    #[error(transparent)]
    Registry(#[from] toolwright_runtime::RegistryError),
    /// The server's options cannot be used as given (the message says what to change).
    #[error("cannot serve MCP: {0}")]
    Config(String),
    /// An authentication setting could not be used.
    #[cfg(feature = "auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    #[error(transparent)]
    Auth(#[from] AuthError),
}

/// Serves `executor` over stdio (the process's stdin and stdout) until the client
/// disconnects. Log to stderr only: stdout carries the protocol.
///
/// # Errors
///
/// When the client does not complete initialization, or the streams fail.
pub async fn serve_stdio(executor: Executor) -> Result<(), ServeError> {
    McpServer::new(executor).serve_stdio().await
}

/// Serves `executor` over streamable HTTP at `http://{addr}/mcp` with the default
/// [`HttpOptions`]: a loopback address, no authentication, requests for `localhost`,
/// `127.0.0.1` and `::1` only, none from web pages of other origins. Returns once the server
/// listens; the [`HttpServer`] handle gives its address, drains it and shuts it down.
///
/// # Errors
///
/// When the address cannot be bound, or is not a loopback address (serving others needs
/// authentication: [`serve_http_with`]).
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub async fn serve_http(executor: Executor, addr: SocketAddr) -> Result<HttpServer, ServeError> {
    McpServer::new(executor).serve_http(addr).await
}

/// Serves `executor` over streamable HTTP at `http://{addr}/mcp` as `options` say.
///
/// ```no_run
/// # #[cfg(feature = "auth")]
/// # async fn run(executor: toolwright_runtime::Executor) -> Result<(), Box<dyn std::error::Error>> {
/// use toolwright_mcp::{AuthConfig, HttpOptions, JwtConfig};
///
/// let jwt = JwtConfig::from_jwks_file(
///     "/etc/toolwright/jwks.json", "https://login.example.com", "https://tools.example.com")?;
/// let options = HttpOptions::new()
///     .auth(AuthConfig::new().jwt(jwt))
///     .resource_url("https://tools.example.com")
///     .allow_host("tools.example.com");
/// let server = toolwright_mcp::serve_http_with(executor, "0.0.0.0:8080".parse()?, options).await?;
/// server.wait().await?;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// As [`McpServer::serve_http_with`].
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub async fn serve_http_with(
    executor: Executor,
    addr: SocketAddr,
    options: HttpOptions,
) -> Result<HttpServer, ServeError> {
    McpServer::new(executor)
        .serve_http_with(addr, options)
        .await
}

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
