//! OAuth 2.0 client credentials for an HTTP upstream (feature `oauth`): the secret
//! read from a file or an environment variable, the authorization server found from the MCP
//! server's metadata by rmcp (or a token URL given), the token fetched by rmcp's
//! `AuthorizationManager`, and [`CredentialsHttpClient`], rmcp's HTTP client with the token on
//! every request (`bearer`), fetched again when it has expired or the server rejects it.
//!
//! rmcp's own `AuthClient` refreshes with a refresh token only, which a client credentials
//! grant does not give: once its token expired it would send requests without one. Here a
//! new token is asked for with the same credentials instead.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource,
    ClientCredentialsConfig,
};
use tokio::sync::Mutex;

use super::bearer::{Authorised, BearerHttpClient, BearerSource};
use super::error::UpstreamError;
use toolwright_mcp::secret::SecretSource;

/// OAuth 2.0 client credentials (RFC 6749 §4.4) for an HTTP upstream, given to
/// [`HttpUpstream::client_credentials`](super::HttpUpstream::client_credentials).
///
/// The client id is given; the secret is read from a file or an environment variable when
/// connecting, never from the command line, and never shown: `Debug` names where it comes
/// from, not what it is. The token endpoint is the one the MCP server's metadata names
/// (RFC 9728 protected resource metadata, then the authorization server's RFC 8414
/// metadata), or [`token_url`](Self::token_url). The upstream does not choose where the
/// secret goes: a token endpoint found in its metadata must be on the upstream's own origin
/// or on the origin of an [`authorization_server`](Self::authorization_server) the
/// configuration names; any other is refused before the secret is sent. The secret is sent in the request body
/// (`client_secret_post`), or with HTTP Basic when the authorization server offers only
/// `client_secret_basic`.
///
/// ```no_run
/// # async fn run() -> Result<(), toolwright_gateway::upstream::UpstreamError> {
/// use toolwright_gateway::upstream::{ClientCredentials, Upstream};
///
/// let upstream = Upstream::http("https://tools.example.com/mcp")
///     .client_credentials(
///         ClientCredentials::secret_env("toolwright-gateway", "TOOLS_CLIENT_SECRET")
///             .scopes(["tools:read"]),
///     )
///     .connect()
///     .await?;
/// # let _ = upstream;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ClientCredentials {
    client: OAuthClient,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.client.debug_struct(f, "ClientCredentials").finish()
    }
}

/// The gateway as a client of an authorization server, and where that server may be: what
/// the client credentials grant ([`ClientCredentials`]) and the token exchange
/// (`exchange::TokenExchange`) both are, read and checked the same way ([`Self::prepare`]).
#[derive(Clone)]
pub(super) struct OAuthClient {
    pub(super) client_id: String,
    secret: SecretSource,
    pub(super) scopes: Vec<String>,
    pub(super) resource: Option<String>,
    pub(super) token_url: Option<String>,
    pub(super) authorization_servers: Vec<String>,
}

impl OAuthClient {
    /// The client `client_id` whose secret is read from `secret`; no scope, resource, token
    /// URL or authorization server yet.
    pub(super) fn new(client_id: String, secret: SecretSource) -> Self {
        OAuthClient {
            client_id,
            secret,
            scopes: Vec::new(),
            resource: None,
            token_url: None,
            authorization_servers: Vec::new(),
        }
    }

    /// The resource indicator (RFC 8707) asked for at the upstream `url`: the one given, by
    /// default the upstream's URL, as the MCP authorization specification asks.
    pub(super) fn resource_for(&self, url: &str) -> String {
        self.resource.clone().unwrap_or_else(|| url.to_owned())
    }

    /// `f.debug_struct(name)` with its fields: the secret by where it comes from, never
    /// what it is.
    pub(super) fn debug_struct<'a, 'b: 'a>(
        &self,
        f: &'a mut std::fmt::Formatter<'b>,
        name: &str,
    ) -> std::fmt::DebugStruct<'a, 'b> {
        let mut debug = f.debug_struct(name);
        debug
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &format_args!("<{}>", self.secret.describe()),
            )
            .field("scopes", &self.scopes)
            .field("resource", &self.resource)
            .field("token_url", &self.token_url)
            .field("authorization_servers", &self.authorization_servers);
        debug
    }

    /// For the upstream at `url` (`label` escaped): the secret, read now, and the metadata of
    /// the one authorization server it may be sent to ([`token_endpoint`]), refused before
    /// anything is sent when the configuration does not trust it.
    pub(super) async fn prepare(
        &self,
        url: &str,
        label: &str,
    ) -> Result<(String, AuthorizationMetadata), UpstreamError> {
        let secret = self
            .secret
            .read()
            .map_err(|error| UpstreamError::ClientSecret {
                upstream: label.to_owned(),
                from: toolwright_names::escape::escape(&error.from).into_owned(),
                reason: error.reason,
            })?;
        let metadata = token_endpoint(
            url,
            label,
            self.token_url.as_deref(),
            &self.authorization_servers,
        )
        .await?;
        Ok((secret, metadata))
    }
}

impl ClientCredentials {
    /// The client `client_id`, whose secret is the content of the file at `path` (without
    /// the surrounding whitespace), read when connecting.
    pub fn secret_file(client_id: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        ClientCredentials::with_secret(client_id.into(), SecretSource::File(path.into()))
    }

    /// The client `client_id`, whose secret is the value of the environment variable `name`,
    /// read when connecting.
    pub fn secret_env(client_id: impl Into<String>, name: impl Into<String>) -> Self {
        ClientCredentials::with_secret(client_id.into(), SecretSource::Env(name.into()))
    }

    fn with_secret(client_id: String, secret: SecretSource) -> Self {
        ClientCredentials {
            client: OAuthClient::new(client_id, secret),
        }
    }

    /// An authorization server (its issuer URL; only its origin counts) trusted to receive
    /// the secret when the upstream's metadata names it. By default none: the upstream's
    /// metadata may only point to a token endpoint on the upstream's own origin, since a
    /// hostile upstream would otherwise have the secret sent wherever it likes. Once one is
    /// named, the named ones are the only places the secret goes (not the upstream's origin
    /// any more: the secret is the authorization server's). May be given more than once.
    ///
    /// ```
    /// use toolwright_gateway::upstream::ClientCredentials;
    ///
    /// let credentials = ClientCredentials::secret_env("toolwright", "TOOLS_CLIENT_SECRET")
    ///     .authorization_server("https://login.example.com");
    /// assert!(format!("{credentials:?}").contains("login.example.com"));
    /// ```
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.client.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes to ask for (none by default: the authorization server's choice).
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.client.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The resource indicator (RFC 8707) of the token request; by default the upstream's
    /// URL, as the MCP authorization specification asks.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.client.resource = Some(resource.into());
        self
    }

    /// The authorization server's token endpoint, for an MCP server that does not publish
    /// where it is (no RFC 9728 or RFC 8414 metadata). Without it, an upstream whose
    /// metadata cannot be found is refused rather than sent the secret at a guessed URL.
    /// Whichever it is, the token endpoint must be `https://` (`http://` only on this
    /// machine: `localhost` or a loopback address).
    pub fn token_url(mut self, url: impl Into<String>) -> Self {
        self.client.token_url = Some(url.into());
        self
    }

    /// The client id.
    pub fn client_id(&self) -> &str {
        &self.client.client_id
    }
}

/// An [`UpstreamError::OAuth`] for `upstream`.
pub(super) fn oauth_error(upstream: &str, reason: impl std::fmt::Display) -> UpstreamError {
    UpstreamError::OAuth {
        upstream: upstream.to_owned(),
        reason: toolwright_names::escape::escape(&reason.to_string()).into_owned(),
    }
}

/// Reads the secret, finds the token endpoint and fetches the first token; the client that
/// then authorises every request. `label` is the upstream's escaped URL.
pub(crate) async fn authorise(
    url: &str,
    label: &str,
    credentials: &ClientCredentials,
) -> Result<CredentialsHttpClient, UpstreamError> {
    let client = &credentials.client;
    let (secret, metadata) = client.prepare(url, label).await?;
    let config = ClientCredentialsConfig::ClientSecret {
        client_id: client.client_id.clone(),
        client_secret: secret,
        scopes: client.scopes.clone(),
        resource: Some(client.resource_for(url)),
    };
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| oauth_error(label, e))?;
    manager.set_metadata(metadata);
    manager
        .validate_client_credentials_metadata(&config)
        .map_err(|e| oauth_error(label, e))?;
    manager
        .configure_client_credentials(&config)
        .map_err(|e| oauth_error(label, e))?;
    manager
        .exchange_client_credentials(&config)
        .await
        .map_err(|e| oauth_error(label, format!("the token request was refused: {e}")))?;

    // A request carrying the token goes where it was sent, nowhere else (no redirects);
    // connections kept alive, with `TCP_NODELAY` (`client`).
    let http = super::client::pooled(reqwest::redirect::Policy::none())
        .map_err(|e| oauth_error(label, e))?;
    Ok(BearerHttpClient::new(
        http,
        Arc::new(Tokens {
            manager: Mutex::new(manager),
            config,
        }),
    ))
}

/// The authorization server's metadata for the upstream at `url`: its token endpoint is
/// `token_url` when given, else the one the upstream's metadata names (RFC 9728, then RFC
/// 8414), which must be on one of `authorization_servers`' origins or, with none named, on
/// the upstream's own; `https://` either way (`http://` on this machine only). Shared by
/// the client credentials grant and the token exchange (`exchange`), through
/// [`OAuthClient::prepare`]: a secret or a caller's token goes nowhere else.
async fn token_endpoint(
    url: &str,
    label: &str,
    token_url: Option<&str>,
    authorization_servers: &[String],
) -> Result<AuthorizationMetadata, UpstreamError> {
    let metadata = match token_url {
        Some(token_url) => {
            let mut metadata = AuthorizationMetadata::default();
            metadata.token_endpoint = token_url.to_owned();
            // Required by rmcp's OAuth client, never used by these grants.
            metadata.authorization_endpoint = token_url.to_owned();
            metadata
        }
        None => {
            let manager = AuthorizationManager::new(url)
                .await
                .map_err(|e| oauth_error(label, e))?;
            let resolution = manager.resolve_metadata().await.map_err(|e| {
                oauth_error(
                    label,
                    format!("could not find its authorization server: {e}"),
                )
            })?;
            if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
                return Err(oauth_error(
                    label,
                    "it publishes no OAuth metadata (RFC 9728 or RFC 8414) naming its \
                     authorization server; give the token endpoint (`token_url`)",
                ));
            }
            resolution.metadata
        }
    };
    check_token_endpoint(&metadata.token_endpoint).map_err(|reason| oauth_error(label, reason))?;
    if token_url.is_none() {
        check_endpoint_trusted(url, &metadata.token_endpoint, authorization_servers)
            .map_err(|reason| oauth_error(label, reason))?;
    }
    Ok(metadata)
}

/// The secret goes to `endpoint` only over TLS, or to this machine.
fn check_token_endpoint(endpoint: &str) -> Result<(), String> {
    let url = reqwest::Url::parse(endpoint)
        .map_err(|e| format!("the token endpoint `{endpoint}` is not a URL: {e}"))?;
    let loopback = url.host_str().is_some_and(|host| {
        host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|address| address.is_loopback())
    });
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(format!(
            "the token endpoint `{endpoint}` is not an https:// URL (http:// only on this \
             machine): the client secret would cross the network readable"
        )),
    }
}

/// The origin (scheme, host, port) of `url`, if it has one.
fn origin_of(url: &str) -> Option<reqwest::Url> {
    let mut parsed = reqwest::Url::parse(url).ok()?;
    parsed.host_str()?;
    parsed.set_path("/");
    parsed.set_query(None);
    parsed.set_fragment(None);
    // The origin excludes credentials in the URL.
    parsed.set_username("").ok()?;
    parsed.set_password(None).ok()?;
    Some(parsed)
}

/// A token endpoint the upstream's metadata chose is trusted only on one of the configured
/// authorization servers' origins, or, with none configured, on the upstream's own origin.
fn check_endpoint_trusted(
    upstream: &str,
    endpoint: &str,
    trusted: &[String],
) -> Result<(), String> {
    let Some(origin) = origin_of(endpoint) else {
        return Err(format!(
            "the token endpoint `{endpoint}` is not a URL with a host"
        ));
    };
    // Named authorization servers are the whole list: the secret is theirs, and the
    // upstream (or another tenant of its origin) is not one of them. With none named, the
    // upstream's own origin is its authorization server.
    let allowed = if trusted.is_empty() {
        origin_of(upstream).is_some_and(|allowed| allowed == origin)
    } else {
        trusted
            .iter()
            .filter_map(|server| origin_of(server))
            .any(|allowed| allowed == origin)
    };
    if allowed {
        Ok(())
    } else {
        Err(format!(
            "its metadata names the token endpoint `{endpoint}`, which is neither on an \
             authorization server the configuration names nor, when it names none, on the \
             upstream's origin; the \
             client secret is not sent there. If that authorization server is yours, name it \
             (`authorization_server`, in the gateway's config `authorization_servers` of \
             `oauth` or `callers.token_exchange`)"
        ))
    }
}

/// rmcp's reqwest client for streamable HTTP, with a client credentials token on every
/// request. Not part of the API.
pub(crate) type CredentialsHttpClient = BearerHttpClient<Tokens>;

/// The token, held by rmcp's manager, and the credentials to ask for a new one.
pub(crate) struct Tokens {
    manager: Mutex<AuthorizationManager>,
    config: ClientCredentialsConfig,
}

impl Tokens {
    /// The current token, or a new one when it has expired (no refresh token comes with
    /// this grant).
    async fn current(&self) -> Result<String, AuthError> {
        let manager = self.manager.lock().await;
        match manager.get_access_token().await {
            Err(AuthError::AuthorizationRequired) => {
                tracing::debug!("the upstream's OAuth token expired; asking for a new one");
                Self::fetch(&manager, &self.config).await
            }
            other => other,
        }
    }

    /// A token other than `rejected`, which the server refused: the one another request
    /// already fetched, or a new one.
    async fn other_than(&self, rejected: &str) -> Result<String, AuthError> {
        let manager = self.manager.lock().await;
        if let Ok(token) = manager.get_access_token().await
            && token != rejected
        {
            return Ok(token);
        }
        tracing::debug!("the upstream refused its OAuth token; asking for a new one");
        Self::fetch(&manager, &self.config).await
    }

    async fn fetch(
        manager: &AuthorizationManager,
        config: &ClientCredentialsConfig,
    ) -> Result<String, AuthError> {
        use oauth2::TokenResponse as _;
        let response = manager.exchange_client_credentials(config).await?;
        Ok(response.access_token().secret().clone())
    }
}

/// The gateway's token, the same whoever the request is for.
impl BearerSource for Tokens {
    type Holder = ();

    async fn token(&self) -> Authorised<((), Option<String>)> {
        Ok(((), Some(self.current().await?)))
    }

    async fn instead_of(&self, _: &(), rejected: &str) -> Authorised<Option<String>> {
        Ok(Some(self.other_than(rejected).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::check_endpoint_trusted;

    #[test]
    fn the_secret_goes_to_the_named_servers_only_once_any_is_named() {
        let upstream = "https://tools.example.com/mcp";
        let named = ["https://login.example.com".to_owned()];
        // None named: the upstream's own origin is its authorization server.
        assert!(check_endpoint_trusted(upstream, "https://tools.example.com/token", &[]).is_ok());
        assert!(check_endpoint_trusted(upstream, "https://evil.example/token", &[]).is_err());
        assert!(check_endpoint_trusted(upstream, "https://tools.example.com:8443/t", &[]).is_err());
        // Named: only those, not the upstream (which chose the endpoint).
        assert!(
            check_endpoint_trusted(upstream, "https://login.example.com/oauth/token", &named)
                .is_ok()
        );
        assert!(
            check_endpoint_trusted(upstream, "https://tools.example.com/token", &named).is_err()
        );
        assert!(
            check_endpoint_trusted(upstream, "http://login.example.com/token", &named).is_err()
        );
        assert!(
            check_endpoint_trusted(upstream, "https://user:pw@login.example.com/token", &named)
                .is_ok(),
            "credentials in the URL are not part of the origin"
        );
    }
}
