//! An upstream over streamable HTTP (rmcp's reqwest client): a bearer token from a file or
//! the environment (`toolwright_mcp::secret::SecretSource`) or, with `oauth`,
//! OAuth 2.0 client credentials (`oauth`, its token source); every message bounded before
//! it is decoded; connections kept alive with `TCP_NODELAY` (`client`).

use std::path::PathBuf;

use toolwright_mcp::secret::SecretSource;

use super::client;
use super::era::Protocol;
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
    /// Each caller's own credentials (`callers`).
    per_caller: PerCallerConfig,
    /// How the session (and each caller's) is opened.
    protocol: Protocol,
    /// How long the gateway's own session has to open.
    handshake: std::time::Duration,
}

/// How an upstream is called as each caller (`callers`); nothing set: as the gateway.
#[derive(Debug, Clone)]
struct PerCallerConfig {
    #[cfg(feature = "oauth")]
    exchange: Option<super::exchange::TokenExchange>,
    principal_tokens: Option<PathBuf>,
    identity_header: Option<String>,
    max_sessions: usize,
}

impl PerCallerConfig {
    fn is_set(&self) -> bool {
        #[cfg(feature = "oauth")]
        if self.exchange.is_some() {
            return true;
        }
        self.principal_tokens.is_some() || self.identity_header.is_some()
    }
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

    /// Calls the upstream as each caller, with a token exchanged for the caller's own
    /// (OAuth 2.0 Token Exchange, RFC 8693; feature `oauth`): each caller of a mounted tool
    /// gets its own session with the upstream, whose every request carries the caller's
    /// exchanged token, cached per caller until shortly before it expires. The gateway's own
    /// session (the mount's handshake and listings) keeps the gateway's credentials
    /// ([`bearer_token_file`](Self::bearer_token_file),
    /// [`client_credentials`](Self::client_credentials), or none). A call without a caller's
    /// token (a local call) is refused; the caller's own token goes only to the
    /// authorization server's token endpoint, never to the upstream. Replaces
    /// [`principal_tokens`](Self::principal_tokens).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolwright_gateway::upstream::UpstreamError> {
    /// use toolwright_gateway::upstream::{TokenExchange, Upstream};
    ///
    /// let upstream = Upstream::http("https://tools.example.com/mcp")
    ///     .token_exchange(TokenExchange::secret_file("gw", "/run/secrets/exchange"))
    ///     .connect()
    ///     .await?;
    /// # let _ = upstream;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn token_exchange(mut self, exchange: super::exchange::TokenExchange) -> Self {
        self.per_caller.principal_tokens = None;
        self.per_caller.exchange = Some(exchange);
        self
    }

    /// Calls the upstream as each caller, with the caller's token from the file at `path`:
    /// a TOML table (JSON for a `.json` file) of principal subject to token, `"*"` for every
    /// principal without an entry (only when the file has one: never the gateway's token).
    /// The file is read when connecting and again whenever it changes; a principal without
    /// a token, and every call while the file cannot be read, is refused. As with
    /// [`token_exchange`](Self::token_exchange), each caller gets its own session.
    ///
    /// ```
    /// use toolwright_gateway::upstream::Upstream;
    /// let upstream = Upstream::http("https://tools.example.com/mcp")
    ///     .principal_tokens("/run/secrets/tools-tokens.toml");
    /// # let _ = upstream;
    /// ```
    pub fn principal_tokens(mut self, path: impl Into<PathBuf>) -> Self {
        #[cfg(feature = "oauth")]
        {
            self.per_caller.exchange = None;
        }
        self.per_caller.principal_tokens = Some(path.into());
        self
    }

    /// Sends the caller's subject to the upstream in the header `name` on each request of
    /// the caller's session (visible ASCII kept, any other byte percent-encoded). Alone,
    /// the requests carry the gateway's token; each caller still gets its own session.
    ///
    /// ```
    /// use toolwright_gateway::upstream::Upstream;
    /// let upstream = Upstream::http("https://tools.example.com/mcp")
    ///     .identity_header("X-Forwarded-User");
    /// # let _ = upstream;
    /// ```
    pub fn identity_header(mut self, name: impl Into<String>) -> Self {
        self.per_caller.identity_header = Some(name.into());
        self
    }

    /// The most callers with a session of their own at once (default
    /// [`DEFAULT_MAX_CALLER_SESSIONS`](super::callers::DEFAULT_MAX_CALLER_SESSIONS)):
    /// a new caller takes the place of the session idle longest, and is refused at once
    /// when each has a call in flight.
    ///
    /// ```
    /// use toolwright_gateway::upstream::Upstream;
    /// let upstream = Upstream::http("https://tools.example.com/mcp")
    ///     .principal_tokens("/run/secrets/tools-tokens.toml")
    ///     .max_caller_sessions(32);
    /// # let _ = upstream;
    /// ```
    pub fn max_caller_sessions(mut self, max: usize) -> Self {
        self.per_caller.max_sessions = max;
        self
    }

    /// How the session is opened, the gateway's and each caller's (default
    /// [`Protocol::Handshake`], `initialize`): a server that speaks only MCP 2026-07-28
    /// needs [`Protocol::Discover`]. [`Protocol::Auto`] fails, rather than falling back,
    /// against a legacy server that answers `server/discover` with HTTP 500 (it falls back
    /// after a JSON-RPC error, or a 400, 404, 405, 406, 415).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolwright_gateway::upstream::UpstreamError> {
    /// use toolwright_gateway::upstream::{Protocol, Upstream};
    ///
    /// let upstream = Upstream::http("https://tools.example.com/mcp")
    ///     .protocol(Protocol::Discover)
    ///     .connect()
    ///     .await?;
    /// # let _ = upstream;
    /// # Ok(())
    /// # }
    /// ```
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// How long the server has to answer `initialize` (or `server/discover`) when the
    /// gateway connects (default 60 s), and each caller's own session
    /// ([`token_exchange`](Self::token_exchange) and the like) when it opens.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolwright_gateway::Upstream;
    ///
    /// let upstream = Upstream::http("https://mcp.example.com/mcp")
    ///     .handshake_timeout(Duration::from_secs(300));
    /// # let _ = upstream;
    /// ```
    pub fn handshake_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.handshake = timeout;
        self
    }

    /// Reads the token, if any, and opens the MCP session ([`protocol`](Self::protocol)).
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Token`] when the token cannot be read or is empty,
    /// [`UpstreamError::ClientSecret`] and [`UpstreamError::OAuth`] when client credentials
    /// give no token, [`UpstreamError::Handshake`] when the server does not answer
    /// `initialize`.
    pub async fn connect(self) -> Result<Upstream, UpstreamError> {
        // Each caller's credentials are checked before the handshake: a misconfiguration
        // fails the start.
        let per_caller = self.per_caller_sessions().await?;
        let upstream = self.open().await?;
        // Whichever the token source: a closed transport is then said to be maybe the
        // limit's doing.
        upstream.set_message_limit(self.max_message_bytes);
        if let Some(sessions) = per_caller {
            upstream.set_per_caller(std::sync::Arc::new(sessions));
        }
        Ok(upstream)
    }

    /// The callers' sessions, when the upstream is called as each caller.
    async fn per_caller_sessions(
        &self,
    ) -> Result<Option<super::callers::CallerSessions>, UpstreamError> {
        use super::callers::{CallerSessions, CallerTokens, TokenFile};
        let config = &self.per_caller;
        if !config.is_set() {
            return Ok(None);
        }
        let label = toolwright_names::escape::escape(&self.url).into_owned();
        let refused = |reason: String| UpstreamError::CallerCredentials {
            upstream: label.clone(),
            reason: toolwright_names::escape::escape(&reason).into_owned(),
        };
        let identity_header = match &config.identity_header {
            Some(name) => Some(
                http::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| refused(format!("`{name}` is not a valid HTTP header name")))?,
            ),
            None => None,
        };
        let mut tokens = None;
        #[cfg(feature = "oauth")]
        if let Some(exchange) = &config.exchange {
            let exchanger = super::exchange::prepare(&self.url, &label, exchange).await?;
            tokens = Some(CallerTokens::Exchange(exchanger));
        }
        if tokens.is_none()
            && let Some(path) = &config.principal_tokens
        {
            tokens = Some(CallerTokens::File(TokenFile::open(path).map_err(refused)?));
        }
        #[cfg(feature = "oauth")]
        if tokens.is_none() && self.credentials.is_some() {
            return Err(refused(
                "an identity header alone sends the gateway's static bearer token with each \
                 caller's name; with OAuth client credentials, give each caller its own token \
                 (`token_exchange` or `principal_tokens`)"
                    .to_owned(),
            ));
        }
        let tokens = match tokens {
            Some(tokens) => tokens,
            None => CallerTokens::Gateway(match &self.token {
                Some(source) => Some(source.read().map_err(|error| UpstreamError::Token {
                    upstream: label.clone(),
                    from: toolwright_names::escape::escape(&error.from).into_owned(),
                    reason: error.reason,
                })?),
                None => None,
            }),
        };
        Ok(Some(
            CallerSessions::new(
                self.url.clone(),
                label,
                self.max_message_bytes,
                tokens,
                identity_header,
                config.max_sessions,
            )
            .protocol(self.protocol)
            .handshake(self.handshake),
        ))
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
            return Upstream::connect_keeping(
                label,
                transport,
                None,
                self.protocol,
                self.handshake,
            )
            .await;
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
        Upstream::connect_keeping(label, transport, None, self.protocol, self.handshake).await
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
            per_caller: PerCallerConfig {
                #[cfg(feature = "oauth")]
                exchange: None,
                principal_tokens: None,
                identity_header: None,
                max_sessions: super::callers::DEFAULT_MAX_CALLER_SESSIONS,
            },
            protocol: Protocol::Handshake,
            handshake: super::era::HANDSHAKE,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::Upstream;

    /// Each caller's own session opens within the upstream's `handshake_timeout`, as the
    /// gateway's own session does (it was 60 s whatever the configuration said).
    #[tokio::test]
    async fn each_callers_session_opens_within_the_upstreams_handshake_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let tokens = dir.path().join("tokens.toml");
        std::fs::write(&tokens, "alice = \"a\"\n").unwrap();
        for within in [Duration::from_secs(600), Duration::from_millis(1500)] {
            let sessions = Upstream::http("http://127.0.0.1:9/mcp")
                .principal_tokens(&tokens)
                .handshake_timeout(within)
                .per_caller_sessions()
                .await
                .unwrap()
                .expect("called as each caller");
            assert_eq!(sessions.handshake_bound(), within);
        }
    }
}
