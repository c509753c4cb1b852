//! The streamable HTTP entrance of `McpServer`.

use std::net::SocketAddr;

use toolwright_runtime::Executor;

use crate::error::ServeError;
use crate::http::options::HttpOptions;
use crate::http::server::HttpServer;
use crate::server::setup::McpServer;

impl McpServer {
    /// Serves over streamable HTTP at `http://{addr}/mcp` with the default
    /// [`HttpOptions`] (no authentication, so a loopback address only); returns once
    /// listening.
    ///
    /// # Errors
    ///
    /// When the address cannot be bound, or is not a loopback address.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http(self, addr: std::net::SocketAddr) -> Result<HttpServer, ServeError> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// Serves over streamable HTTP at `http://{addr}/mcp` as `options` say; returns once
    /// listening. The same listener answers `/healthz`, `/readyz` and `/metrics`.
    ///
    /// ```no_run
    /// # #[cfg(feature = "auth")]
    /// # async fn run(executor: toolwright_runtime::Executor) -> Result<(), Box<dyn std::error::Error>> {
    /// use toolwright_mcp::{AuthConfig, HttpOptions, McpServer};
    ///
    /// let options = HttpOptions::new()
    ///     .auth(AuthConfig::new().tokens_from_file("/etc/toolwright/tokens")?)
    ///     .resource_url("https://tools.example.com")
    ///     .allow_host("tools.example.com");
    /// let server = McpServer::new(executor)
    ///     .serve_http_with("0.0.0.0:8080".parse()?, options)
    ///     .await?;
    /// server.wait().await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the address cannot be bound; a non-loopback address without authentication
    /// (unless [`HttpOptions::insecure_no_auth`]); authentication that accepts no token; a
    /// resource URL that is not a URL.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http_with(
        self,
        addr: std::net::SocketAddr,
        options: HttpOptions,
    ) -> Result<HttpServer, ServeError> {
        HttpServer::start(self, addr, options).await
    }
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
