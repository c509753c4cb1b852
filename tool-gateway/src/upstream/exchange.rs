//! OAuth 2.0 Token Exchange (RFC 8693) for an HTTP upstream that acts as each caller
//! (feature `oauth`): the bearer token a caller presented to us is exchanged, at the
//! authorization server the upstream names (found under the rules of the client credentials
//! grant, `oauth::OAuthClient::prepare`), for a token whose resource (RFC 8707) is the upstream;
//! the gateway authenticates as a client. The exchanged tokens are cached per caller until
//! shortly before they expire, in a bounded cache where each caller has one entry.
//!
//! The `oauth2` crate (already a dependency, through rmcp) has no token exchange grant
//! (its `BasicClient` offers the code, password, client credentials, device and refresh
//! grants), so the request is made here, with the gateway's reqwest client.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use toolwright_core::Caller;
use toolwright_mcp::secret::SecretSource;

use super::error::UpstreamError;
use super::oauth::{OAuthClient, oauth_error};

/// The default of [`TokenExchange::max_cached_tokens`]: 1024 callers.
pub const DEFAULT_MAX_CACHED_TOKENS: usize = 1024;

/// An exchanged token is used until this long before it expires (or half its life, for a
/// shorter one), so a request never carries one that expires on the way.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

/// How long an exchanged token is kept when the authorization server says nothing.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(60);

/// The most bytes of an authorization server's answer read.
const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// The grant type of RFC 8693.
const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// The token type of an access token (RFC 8693 §3).
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

/// OAuth 2.0 Token Exchange (RFC 8693) of each caller's token for one scoped to an HTTP
/// upstream, given to
/// [`HttpUpstream::token_exchange`](super::HttpUpstream::token_exchange).
///
/// The gateway is the client `client_id`, its secret read from a file or an environment
/// variable when connecting and never shown (`Debug` names where it comes from). The token
/// endpoint is the one the upstream's metadata names (RFC 9728, then RFC 8414), trusted
/// only on an [`authorization_server`](Self::authorization_server) the configuration names
/// or, with none named, on the upstream's own origin; or [`token_url`](Self::token_url).
/// The caller's token goes there and nowhere else: never to the upstream. The request asks
/// for an access token whose `resource` is the upstream's URL (RFC 8707), with the
/// configured `audience` and `scope`.
///
/// ```no_run
/// # async fn run() -> Result<(), toolwright_gateway::upstream::UpstreamError> {
/// use toolwright_gateway::upstream::{TokenExchange, Upstream};
///
/// let upstream = Upstream::http("https://tools.example.com/mcp")
///     .token_exchange(
///         TokenExchange::secret_env("toolwright-gateway", "EXCHANGE_CLIENT_SECRET")
///             .authorization_server("https://login.example.com")
///             .scopes(["tools:read"]),
///     )
///     .connect()
///     .await?;
/// # let _ = upstream;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct TokenExchange {
    client: OAuthClient,
    audience: Option<String>,
    max_cached_tokens: usize,
}

impl std::fmt::Debug for TokenExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.client
            .debug_struct(f, "TokenExchange")
            .field("audience", &self.audience)
            .field("max_cached_tokens", &self.max_cached_tokens)
            .finish()
    }
}

impl TokenExchange {
    /// The client `client_id`, whose secret is the content of the file at `path` (without
    /// the surrounding whitespace), read when connecting.
    pub fn secret_file(client_id: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        TokenExchange::with_secret(client_id.into(), SecretSource::File(path.into()))
    }

    /// The client `client_id`, whose secret is the value of the environment variable `name`,
    /// read when connecting.
    pub fn secret_env(client_id: impl Into<String>, name: impl Into<String>) -> Self {
        TokenExchange::with_secret(client_id.into(), SecretSource::Env(name.into()))
    }

    fn with_secret(client_id: String, secret: SecretSource) -> Self {
        TokenExchange {
            client: OAuthClient::new(client_id, secret),
            audience: None,
            max_cached_tokens: DEFAULT_MAX_CACHED_TOKENS,
        }
    }

    /// An authorization server (its issuer URL; only its origin counts) trusted to receive
    /// the callers' tokens when the upstream's metadata names it. With none named, only a
    /// token endpoint on the upstream's own origin is; once one is named, only the named
    /// ones. May be given more than once.
    ///
    /// ```
    /// use toolwright_gateway::upstream::TokenExchange;
    /// let exchange = TokenExchange::secret_env("gw", "SECRET").authorization_server("https://login.example.com");
    /// assert!(format!("{exchange:?}").contains("login.example.com"));
    /// ```
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.client.authorization_servers.push(issuer.into());
        self
    }

    /// The `audience` of the exchange request (RFC 8693 §2.1): the logical name of the
    /// upstream at its authorization server, when it needs one beside the `resource`. None
    /// by default.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
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

    /// The resource indicator (RFC 8707) asked for; by default the upstream's URL.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.client.resource = Some(resource.into());
        self
    }

    /// The authorization server's token endpoint, for an upstream that publishes no
    /// metadata. `https://` (`http://` only on this machine).
    pub fn token_url(mut self, url: impl Into<String>) -> Self {
        self.client.token_url = Some(url.into());
        self
    }

    /// The most callers whose exchanged token is cached (default
    /// [`DEFAULT_MAX_CACHED_TOKENS`]). Each caller has one entry, replaced when it presents
    /// another token; when the cache is full, an expired entry, else the one used longest
    /// ago, makes room: a caller cannot take more than its one entry.
    ///
    /// ```
    /// use toolwright_gateway::upstream::TokenExchange;
    /// let exchange = TokenExchange::secret_env("gw", "SECRET").max_cached_tokens(64);
    /// assert!(format!("{exchange:?}").contains("64"));
    /// ```
    pub fn max_cached_tokens(mut self, max: usize) -> Self {
        self.max_cached_tokens = max.max(1);
        self
    }
}

/// One caller's exchanged token.
struct Cached {
    /// SHA-256 of the caller's token it was exchanged for: another token of the same
    /// caller (fewer scopes, say) is exchanged again.
    digest: [u8; 32],
    token: String,
    fresh_until: Instant,
    last_used: u64,
}

/// The exchange of one upstream: where, as which client, and the cache.
pub(crate) struct Exchanger {
    label: String,
    endpoint: String,
    basic_auth: bool,
    client_id: String,
    secret: String,
    resource: String,
    audience: Option<String>,
    scope: Option<String>,
    max_cached: usize,
    http: reqwest::Client,
    cache: Mutex<HashMap<String, Cached>>,
    clock: AtomicU64,
}

/// Reads the secret and finds the token endpoint (refusing one the configuration does not
/// trust) when connecting: a misconfiguration fails the start, not a caller's call.
pub(crate) async fn prepare(
    url: &str,
    label: &str,
    exchange: &TokenExchange,
) -> Result<Exchanger, UpstreamError> {
    let client = &exchange.client;
    let (secret, metadata) = client.prepare(url, label).await?;
    let methods: Vec<String> = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(|methods| serde_json::from_value(methods.clone()).ok())
        .unwrap_or_default();
    let basic_auth = !methods.is_empty()
        && !methods.iter().any(|m| m == "client_secret_post")
        && methods.iter().any(|m| m == "client_secret_basic");
    // The caller's token goes where it was sent, nowhere else.
    let http = super::client::pooled(reqwest::redirect::Policy::none())
        .map_err(|e| oauth_error(label, e))?;
    Ok(Exchanger {
        label: label.to_owned(),
        endpoint: metadata.token_endpoint,
        basic_auth,
        client_id: client.client_id.clone(),
        secret,
        resource: client.resource_for(url),
        audience: exchange.audience.clone(),
        scope: (!client.scopes.is_empty()).then(|| client.scopes.join(" ")),
        max_cached: exchange.max_cached_tokens,
        http,
        cache: Mutex::default(),
        clock: AtomicU64::new(0),
    })
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Exchanger {
    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, Cached>> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The upstream's token for `caller`: the cached one while fresh, else a new exchange.
    pub(crate) async fn token_for(&self, caller: &Caller) -> Result<String, String> {
        let Some(subject_token) = caller.token() else {
            return Err(
                "this upstream is called as each caller, with a token exchanged for the \
                 caller's own, and this call has no caller's token (a local call: stdio \
                 `toolwright serve`, `toolwright call`); call it through `toolwright serve` \
                 over HTTP with authentication"
                    .to_owned(),
            );
        };
        let digest = digest(subject_token.expose());
        let now = Instant::now();
        {
            let mut cache = self.cache();
            if let Some(hit) = cache.get_mut(caller.subject())
                && hit.digest == digest
                && now < hit.fresh_until
            {
                hit.last_used = self.clock.fetch_add(1, Ordering::Relaxed);
                return Ok(hit.token.clone());
            }
        }
        let (token, lifetime) = self.exchange(subject_token.expose()).await?;
        let margin = EXPIRY_MARGIN.min(lifetime / 2);
        let fresh_until = now + lifetime.saturating_sub(margin);
        if fresh_until > now {
            self.keep(caller.subject(), digest, token.clone(), fresh_until);
        }
        Ok(token)
    }

    /// Keeps `subject`'s token: its own entry replaced, or a new one in a full cache in
    /// place of an expired one, else of the one used longest ago.
    fn keep(&self, subject: &str, digest: [u8; 32], token: String, fresh_until: Instant) {
        let mut cache = self.cache();
        if !cache.contains_key(subject) && cache.len() >= self.max_cached {
            let now = Instant::now();
            let victim = cache
                .iter()
                .find(|(_, entry)| entry.fresh_until <= now)
                .or_else(|| cache.iter().min_by_key(|(_, entry)| entry.last_used))
                .map(|(subject, _)| subject.clone());
            if let Some(victim) = victim {
                cache.remove(&victim);
            }
        }
        let last_used = self.clock.fetch_add(1, Ordering::Relaxed);
        cache.insert(
            subject.to_owned(),
            Cached {
                digest,
                token,
                fresh_until,
                last_used,
            },
        );
    }

    /// Forgets `subject`'s token if it is `rejected` (the upstream answered 401 to it).
    pub(crate) fn rejected(&self, subject: &str, rejected: &str) {
        let mut cache = self.cache();
        if cache.get(subject).is_some_and(|hit| hit.token == rejected) {
            cache.remove(subject);
        }
    }

    /// One RFC 8693 request: the upstream's token and how long it lives.
    async fn exchange(&self, subject_token: &str) -> Result<(String, Duration), String> {
        let mut form: Vec<(&str, &str)> = vec![
            ("grant_type", GRANT_TYPE),
            ("subject_token", subject_token),
            ("subject_token_type", ACCESS_TOKEN_TYPE),
            ("requested_token_type", ACCESS_TOKEN_TYPE),
            ("resource", &self.resource),
        ];
        if let Some(audience) = &self.audience {
            form.push(("audience", audience));
        }
        if let Some(scope) = &self.scope {
            form.push(("scope", scope));
        }
        let mut request = self.http.post(&self.endpoint);
        if self.basic_auth {
            request = request.basic_auth(&self.client_id, Some(&self.secret));
        } else {
            form.push(("client_id", &self.client_id));
            form.push(("client_secret", &self.secret));
        }
        let body = form_encode(&form);
        let response = request
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| self.failed(format!("the authorization server did not answer: {e}")))?;
        let status = response.status();
        let bytes = read_bounded(response)
            .await
            .map_err(|reason| self.failed(reason))?;
        let answer: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
            self.failed(format!(
                "the authorization server's answer ({status}) is not JSON: {e}"
            ))
        })?;
        if !status.is_success() {
            let error = answer["error"].as_str().unwrap_or("no `error` given");
            let description = answer["error_description"].as_str().unwrap_or("");
            return Err(self.failed(format!(
                "the authorization server refused to exchange the caller's token ({status}): \
                 {error} {description}"
            )));
        }
        let Some(token) = answer["access_token"].as_str().filter(|t| !t.is_empty()) else {
            return Err(self.failed("the authorization server's answer has no `access_token`"));
        };
        let token_type = answer["token_type"].as_str().unwrap_or_default();
        if !token_type.eq_ignore_ascii_case("bearer") {
            return Err(self.failed(format!(
                "the authorization server issued a token of type `{token_type}`, not a \
                 bearer token"
            )));
        }
        let lifetime = answer["expires_in"]
            .as_u64()
            .map_or(DEFAULT_LIFETIME, Duration::from_secs);
        Ok((token.to_owned(), lifetime))
    }

    /// A failure of the exchange, said of this upstream, escaped and bounded.
    fn failed(&self, reason: impl std::fmt::Display) -> String {
        let reason = reason.to_string();
        let reason: String = reason.chars().take(500).collect();
        format!(
            "the token exchange for the upstream `{}` at `{}` failed: {}",
            self.label,
            toolwright_names::escape::escape(&self.endpoint),
            toolwright_names::escape::escape(&reason)
        )
    }
}

/// The body of `response`, at most [`MAX_RESPONSE_BYTES`].
async fn read_bounded(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("the authorization server's answer was cut: {e}"))?
    {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!(
                "the authorization server's answer is over {MAX_RESPONSE_BYTES} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `application/x-www-form-urlencoded`.
fn form_encode(pairs: &[(&str, &str)]) -> String {
    fn encode(text: &str, out: &mut String) {
        for byte in text.bytes() {
            match byte {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                    out.push(char::from(byte));
                }
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{byte:02X}")),
            }
        }
    }
    let mut out = String::new();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        encode(name, &mut out);
        out.push('=');
        encode(value, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::form_encode;

    #[test]
    fn the_form_is_encoded() {
        assert_eq!(
            form_encode(&[("a b", "c&d=e"), ("scope", "x:y z")]),
            "a+b=c%26d%3De&scope=x%3Ay+z"
        );
    }
}
