//! An upstream over streamable HTTP (rmcp's reqwest client): a bearer token from a file or
//! the environment (`toolwright_mcp::secret::SecretSource`) or, with `oauth`,
//! OAuth 2.0 client credentials (`oauth`, its token source); every message bounded before
//! it is decoded; connections kept alive with `TCP_NODELAY` (`client`).

use std::path::PathBuf;

use toolwright_mcp::secret::SecretSource;

use super::client;
use super::error::UpstreamError;
use super::session::Upstream;

/// The default of [`HttpUpstream::max_message_bytes`]: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// An upstream over streamable HTTP; made by [`Upstream::http`].
#[derive(Debug, Clone)]
pub struct HttpUpstream {
    url: String,
    token: Option<SecretSource>,
    max_message_bytes: usize,
    #[cfg(feature = "oauth")]
    credentials: Option<super::oauth::ClientCredentials>,
}

impl HttpUpstream {
    /// Sends `Authorization: Bearer <token>` with the token read from `path` (surrounding
    /// whitespace trimmed) when connecting.
    pub fn bearer_token_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.token = Some(SecretSource::File(path.into()));
        #[cfg(feature = "oauth")]
        {
            self.credentials = None;
        }
        self
    }

    /// The most bytes of one message read from the upstream (a JSON response body, or one
    /// event of a stream), counted before it is decoded; default
    /// [`DEFAULT_MAX_MESSAGE_BYTES`], 16 MiB. A larger one fails its request (a page of
    /// `tools/list` among them) rather than being held.
    ///
    /// ```
    /// use toolwright_gateway::upstream::Upstream;
    /// let upstream = Upstream::http("https://tools.example.com/mcp").max_message_bytes(1 << 20);
    /// # let _ = upstream;
    /// ```
    pub fn max_message_bytes(mut self, max: usize) -> Self {
        self.max_message_bytes = max;
        self
    }

    /// Sends `Authorization: Bearer <token>` with the token read from the environment
    /// variable `name` when connecting.
    pub fn bearer_token_env(mut self, name: impl Into<String>) -> Self {
        self.token = Some(SecretSource::Env(name.into()));
        #[cfg(feature = "oauth")]
        {
            self.credentials = None;
        }
        self
    }

    /// Authorises with an OAuth 2.0 client credentials grant instead of a static token
    /// (feature `oauth`): when connecting, the secret is read, the token endpoint
    /// found (the MCP server's RFC 9728 metadata, then its authorization server's RFC 8414
    /// metadata, or [`ClientCredentials::token_url`](super::ClientCredentials::token_url))
    /// and a token fetched; every request carries it. A token that has expired, or that the
    /// server answers with 401, is replaced by a new one from the same credentials (once per
    /// request). Replaces a bearer token set before, as they replace this.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolwright_gateway::upstream::UpstreamError> {
    /// use toolwright_gateway::upstream::{ClientCredentials, Upstream};
    ///
    /// let upstream = Upstream::http("https://tools.example.com/mcp")
    ///     .client_credentials(
    ///         ClientCredentials::secret_file("toolwright-gateway", "/run/secrets/tools-client")
    ///             .scopes(["tools:read", "tools:write"]),
    ///     )
    ///     .connect()
    ///     .await?;
    /// # let _ = upstream;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn client_credentials(mut self, credentials: super::oauth::ClientCredentials) -> Self {
        self.token = None;
        self.credentials = Some(credentials);
        self
    }

    /// Reads the token, if any, and makes the MCP handshake.
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Token`] when the token cannot be read or is empty,
    /// [`UpstreamError::ClientSecret`] and [`UpstreamError::OAuth`] when client credentials
    /// give no token, [`UpstreamError::Handshake`] when the server does not answer
    /// `initialize`.
    pub async fn connect(self) -> Result<Upstream, UpstreamError> {
        let upstream = self.open().await?;
        // Whichever the token source: a closed transport is then said to be maybe the
        // limit's doing.
        upstream.set_message_limit(self.max_message_bytes);
        Ok(upstream)
    }

    /// The handshake over rmcp's HTTP client, with the message bounds and the credentials.
    async fn open(&self) -> Result<Upstream, UpstreamError> {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

        let label = toolwright_names::escape::escape(&self.url).into_owned();
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.clone());
        // Bounded before decoding: the upstream chooses how much it sends.
        config.max_json_response_size = self.max_message_bytes;
        config.max_sse_event_size = self.max_message_bytes;
        // An upstream that forgot our session (it restarted, or expired it) answers 404 for
        // its id: the request was refused before it ran, so the handshake is made again
        // and that request sent once more (`tests/bridging.rs` counts the runs).
        config.reinit_on_expired_session = true;
        #[cfg(feature = "oauth")]
        if let Some(credentials) = &self.credentials {
            let client = super::oauth::authorise(&self.url, &label, credentials).await?;
            let transport = StreamableHttpClientTransport::with_client(client, config);
            return Upstream::connect_transport(label, transport).await;
        }
        if let Some(source) = &self.token {
            let token = source.read().map_err(|error| UpstreamError::Token {
                upstream: label.clone(),
                from: toolwright_names::escape::escape(&error.from).into_owned(),
                reason: error.reason,
            })?;
            config = config.auth_header(token);
        }
        // rmcp's `from_config` would open a connection per request (pooling off): ours keeps
        // them, with the same redirects, and `TCP_NODELAY` against the stall rmcp avoids.
        let http = client::pooled(client::same_origin_redirects()).map_err(|error| {
            UpstreamError::Handshake {
                upstream: label.clone(),
                reason: format!("could not make its HTTP client: {error}"),
            }
        })?;
        let transport = StreamableHttpClientTransport::with_client(http, config);
        Upstream::connect_transport(label, transport).await
    }
}

impl Upstream {
    /// An upstream at a streamable HTTP `url` (`https://host/mcp`); give it a bearer token
    /// on the [`HttpUpstream`], then [`connect`](HttpUpstream::connect).
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http(url: impl Into<String>) -> HttpUpstream {
        HttpUpstream {
            url: url.into(),
            token: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            #[cfg(feature = "oauth")]
            credentials: None,
        }
    }
}
