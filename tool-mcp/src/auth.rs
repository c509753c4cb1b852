//! Authentication for the streamable HTTP server: an OAuth 2.1 resource server, as the MCP
//! authorization specification asks.
//!
//! Every request to `/mcp` must carry `Authorization: Bearer <token>`. The token is either
//! one of a list of **static tokens** (compared in constant time) or a **JWT access token**
//! signed by a key of a JWKS (checked: signature, `iss`, `aud`, `exp`, `nbf`). A request
//! without a valid token gets `401` with a `WWW-Authenticate` header that points to the
//! [RFC 9728](https://www.rfc-editor.org/rfc/rfc9728) protected resource metadata, served at
//! `/.well-known/oauth-protected-resource`.
//!
//! What a caller may do comes from the token's **scopes**:
//!
//! | scope | grants |
//! |---|---|
//! | [`tools:safe`](SCOPE_SAFE) | safe tools |
//! | [`tools:cautious`](SCOPE_CAUTIOUS) | safe and cautious tools |
//! | [`tools:dangerous`](SCOPE_DANGEROUS) | every tool (dangerous ones still need an approval) |
//! | [`tools:approve`](SCOPE_APPROVE) | the caller may approve its own dangerous calls (MCP elicitation) |
//!
//! The highest of the first three sets the caller's safety ceiling: `tools/list` shows only
//! the tools under it and `tools/call` refuses the others. A token with none of them is
//! refused with `403 insufficient_scope`. A static token listed without scopes has them all.
//!
//! ```
//! use toolwright_mcp::{AuthConfig, HttpOptions, JwtConfig};
//!
//! # fn main() -> Result<(), toolwright_mcp::AuthError> {
//! // Your identity provider's public keys.
//! let jwks = r#"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1",
//!     "x": "GC04on51ZRaPxpq8C6P6T4Y15B78wQaYpCR5Si1FT9s",
//!     "y": "KxmWpEuI5uPaf2Kfn7XK8kzfvDgC2THPHhfFqKBfi7s"}]}"#;
//! let auth = AuthConfig::new()
//!     .token("a-long-random-token-for-the-ci-bot", ["tools:safe"])?
//!     .jwt(JwtConfig::from_jwks_json(jwks, "https://login.example.com", "https://tools.example.com")?);
//! let options = HttpOptions::new()
//!     .auth(auth)
//!     .resource_url("https://tools.example.com");
//! # let _ = options;
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::owners::{CallShare, CallShares, Ownership, REQUEST_OWNER, SessionOwners};
pub use crate::principal::{Principal, SCOPE_APPROVE, SCOPE_CAUTIOUS, SCOPE_DANGEROUS, SCOPE_SAFE};

/// Every scope this server knows, from the lowest ceiling up, then approval (what a static
/// token listed without scopes gets, and the metadata's `scopes_supported`).
///
/// ```
/// assert_eq!(
///     toolwright_mcp::auth::ALL_SCOPES,
///     ["tools:safe", "tools:cautious", "tools:dangerous", "tools:approve"]
/// );
/// ```
pub const ALL_SCOPES: [&str; 4] = [SCOPE_SAFE, SCOPE_CAUTIOUS, SCOPE_DANGEROUS, SCOPE_APPROVE];

/// Static tokens shorter than this are refused when loaded: they could be guessed.
///
/// ```
/// use toolwright_mcp::{AuthConfig, auth::MIN_STATIC_TOKEN_LEN};
/// assert!(AuthConfig::new().token("x".repeat(MIN_STATIC_TOKEN_LEN - 1), ["tools:safe"]).is_err());
/// assert!(AuthConfig::new().token("x".repeat(MIN_STATIC_TOKEN_LEN), ["tools:safe"]).is_ok());
/// ```
pub const MIN_STATIC_TOKEN_LEN: usize = 16;

/// The HTTP header rmcp gives a session's id in.
const SESSION_HEADER: &str = "mcp-session-id";

/// Why an authentication setting could not be used. Each message says what is wrong and
/// what to do.
///
/// ```
/// let error = toolwright_mcp::AuthConfig::new()
///     .token("0123456789abcdef0123", ["tools:everything"])
///     .unwrap_err();
/// assert!(matches!(error, toolwright_mcp::AuthError::UnknownScope { .. }));
/// assert!(error.to_string().starts_with("unknown scope `tools:everything`"));
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A token file could not be read.
    #[error(
        "cannot read the token file {}: {source}; give a readable file with one token per line",
        path.display()
    )]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// A token file has no tokens.
    #[error(
        "the token file {} has no tokens; put one token per line, optionally followed by \
         space-separated scopes ({})",
        path.display(),
        ALL_SCOPES.join(", ")
    )]
    NoTokens {
        /// The file.
        path: PathBuf,
    },
    /// The environment variable meant to hold a token is not set.
    #[error(
        "the environment variable {var} is not set or is empty; export the token in it \
         (tokens are never given on the command line)"
    )]
    MissingEnv {
        /// The variable.
        var: String,
    },
    /// A static token is too short to be safe.
    #[error(
        "the token from {origin} is shorter than {MIN_STATIC_TOKEN_LEN} characters; use a long \
         random token (for example the output of `openssl rand -hex 32`)"
    )]
    WeakToken {
        /// Where the token came from.
        origin: String,
    },
    /// A static token lists a scope this server does not know.
    #[error("unknown scope `{scope}` for the token from {origin}; known scopes: {}", ALL_SCOPES.join(", "))]
    UnknownScope {
        /// Where the token came from.
        origin: String,
        /// The scope.
        scope: String,
    },
    /// The JWT issuer or audience is empty.
    #[error("the JWT {what} is empty; give the {what} your identity provider puts in its tokens")]
    MissingClaim {
        /// `issuer` or `audience`.
        what: &'static str,
    },
    /// A JWKS could not be read or has no usable key.
    #[error("cannot use the JWKS from {origin}: {reason}")]
    Jwks {
        /// The file or URL.
        origin: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A JWKS URL would be fetched without TLS from another host.
    #[error(
        "the JWKS URL {url} is not https; signing keys must be fetched over TLS (plain http is \
         accepted for loopback addresses only)"
    )]
    InsecureJwksUrl {
        /// The URL.
        url: String,
    },
}

/// A static token, as its SHA-256 digest (so comparisons take the same time whatever the
/// token's length), with the principal it stands for.
#[derive(Clone)]
struct StaticToken {
    digest: [u8; 32],
    principal: Principal,
}

/// How requests to `/mcp` are authenticated: static bearer tokens, JWT access tokens, or
/// both. Give it to [`HttpOptions::auth`](crate::HttpOptions::auth).
///
/// ```
/// use toolwright_mcp::AuthConfig;
///
/// # fn main() -> Result<(), toolwright_mcp::AuthError> {
/// let auth = AuthConfig::new()
///     .token("0123456789abcdef0123456789abcdef", ["tools:safe", "tools:cautious"])?
///     .token("fedcba9876543210fedcba9876543210", Vec::<String>::new())?; // every scope
/// assert!(!auth.is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct AuthConfig {
    tokens: Vec<StaticToken>,
    jwt: Option<Arc<JwtConfig>>,
}

impl fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthConfig")
            .field("static_tokens", &self.tokens.len())
            .field("jwt", &self.jwt)
            .finish()
    }
}

impl AuthConfig {
    /// No way to authenticate yet: add tokens or a JWT configuration.
    ///
    /// ```
    /// let auth = toolwright_mcp::AuthConfig::new();
    /// assert!(auth.is_empty());
    /// ```
    pub fn new() -> Self {
        AuthConfig::default()
    }

    /// Whether no token and no JWT configuration was added (every request would be refused).
    ///
    /// ```
    /// assert!(toolwright_mcp::AuthConfig::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty() && self.jwt.is_none()
    }

    /// Accepts `token` with `scopes` (none: every scope). Its subject is `static token #N`.
    ///
    /// ```
    /// # fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// let auth = toolwright_mcp::AuthConfig::new()
    ///     .token("0123456789abcdef0123", ["tools:safe", "tools:approve"])?;
    /// # let _ = auth;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the token is shorter than [`MIN_STATIC_TOKEN_LEN`] or has whitespace, or a scope
    /// is not one of [`ALL_SCOPES`].
    pub fn token(
        self,
        token: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Result<Self, AuthError> {
        let origin = format!("static token #{}", self.tokens.len() + 1);
        self.add_token(&token.into(), scopes, origin.clone(), origin)
    }

    /// Accepts the tokens of a file: one per line, optionally followed by space-separated
    /// scopes (a token without scopes has every scope). Blank lines and lines starting with
    /// `#` are skipped. A token's subject is `<file name>:<line>`.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("tokens");
    /// std::fs::write(&path, "# the team\n\
    ///     0123456789abcdef0123456789abcdef tools:safe\n\
    ///     fedcba9876543210fedcba9876543210\n")?;
    /// let auth = toolwright_mcp::AuthConfig::new().tokens_from_file(&path)?;
    /// assert!(!auth.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the file cannot be read, has no token, or a line is not valid (see
    /// [`token`](Self::token)).
    pub fn tokens_from_file(mut self, path: impl AsRef<Path>) -> Result<Self, AuthError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| AuthError::TokenFile {
            path: path.to_owned(),
            source,
        })?;
        crate::secret::warn_if_readable_by_others(path, "the token file");
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let before = self.tokens.len();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let Some(token) = words.next() else { continue };
            let origin = format!("line {} of {}", index + 1, path.display());
            self = self.add_token(token, words, origin, format!("{name}:{}", index + 1))?;
        }
        if self.tokens.len() == before {
            return Err(AuthError::NoTokens {
                path: path.to_owned(),
            });
        }
        Ok(self)
    }

    /// Accepts the token in the environment variable `var`, with every scope. Its subject is
    /// `env:<var>`.
    ///
    /// ```
    /// let error = toolwright_mcp::AuthConfig::new().token_from_env("NO_SUCH_VARIABLE_HERE").unwrap_err();
    /// assert!(error.to_string().contains("NO_SUCH_VARIABLE_HERE is not set"));
    /// ```
    ///
    /// # Errors
    ///
    /// When the variable is not set, is empty, or holds a token that is too short.
    pub fn token_from_env(self, var: &str) -> Result<Self, AuthError> {
        let token = std::env::var(var)
            .ok()
            .filter(|value| !value.trim().is_empty())
            .ok_or_else(|| AuthError::MissingEnv {
                var: var.to_owned(),
            })?;
        self.add_token(
            token.trim(),
            Vec::<String>::new(),
            format!("the environment variable {var}"),
            format!("env:{var}"),
        )
    }

    /// Accepts JWT access tokens as `jwt` says.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// use toolwright_mcp::{AuthConfig, JwtConfig};
    /// let auth = AuthConfig::new().jwt(JwtConfig::from_jwks_file(
    ///     "/etc/toolwright/jwks.json", "https://login.example.com", "https://tools.example.com")?);
    /// assert!(!auth.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn jwt(mut self, jwt: JwtConfig) -> Self {
        self.jwt = Some(Arc::new(jwt));
        self
    }

    /// The JWT issuer, when JWTs are accepted (the authorization server in the metadata).
    pub(crate) fn issuer(&self) -> Option<&str> {
        self.jwt.as_ref().map(|jwt| jwt.issuer.as_str())
    }

    fn add_token(
        mut self,
        token: &str,
        scopes: impl IntoIterator<Item = impl Into<String>>,
        origin: String,
        subject: String,
    ) -> Result<Self, AuthError> {
        if token.chars().count() < MIN_STATIC_TOKEN_LEN || token.chars().any(char::is_whitespace) {
            return Err(AuthError::WeakToken { origin });
        }
        let mut scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        if let Some(unknown) = scopes.iter().find(|s| !ALL_SCOPES.contains(&s.as_str())) {
            return Err(AuthError::UnknownScope {
                origin,
                scope: unknown.clone(),
            });
        }
        if scopes.is_empty() {
            scopes = ALL_SCOPES.iter().map(|s| (*s).to_owned()).collect();
        }
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        self.tokens.push(StaticToken {
            digest,
            principal: Principal::for_static_token(subject, scopes, &digest),
        });
        Ok(self)
    }

    /// Who `token` stands for, or why it is refused. Static tokens are compared in constant
    /// time (every configured token is compared, whichever matches); then, if JWTs are
    /// accepted, the token is validated as a JWT.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// let auth = toolwright_mcp::AuthConfig::new().token("0123456789abcdef0123456789abcdef", ["tools:safe"])?;
    /// let principal = auth.verify("0123456789abcdef0123456789abcdef").await.unwrap();
    /// assert_eq!(principal.subject(), "static token #1");
    /// assert!(auth.verify("guess").await.is_err());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`TokenRejected`] with the reason, for the `error_description` of the answer.
    pub async fn verify(&self, token: &str) -> Result<Principal, TokenRejected> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let mut found: Option<&Principal> = None;
        for candidate in &self.tokens {
            if bool::from(candidate.digest.ct_eq(&digest)) && found.is_none() {
                found = Some(&candidate.principal);
            }
        }
        if let Some(principal) = found {
            return Ok(principal.clone());
        }
        match &self.jwt {
            Some(jwt) if looks_like_jwt(token) => jwt.verify(token).await,
            _ => Err(TokenRejected::new("the token is not valid for this server")),
        }
    }
}

fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

/// Why a token was refused; its message goes to the client as the `error_description`.
///
/// ```
/// let rejected = toolwright_mcp::TokenRejected::new("the token has expired");
/// assert_eq!(rejected.to_string(), "the token has expired");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct TokenRejected {
    reason: String,
}

impl TokenRejected {
    /// A refusal for `reason`.
    ///
    /// ```
    /// let rejected = toolwright_mcp::TokenRejected::new("the token has expired");
    /// # let _ = rejected;
    /// ```
    pub fn new(reason: impl Into<String>) -> Self {
        TokenRejected {
            reason: reason.into(),
        }
    }
}

/// How JWT access tokens are validated: the issuer and audience they must name, and the
/// keys (a JWKS) that may sign them. Only asymmetric algorithms are accepted (RS*, PS*,
/// ES256, ES384, EdDSA), each only with a key of its kind.
///
/// ```
/// use toolwright_mcp::JwtConfig;
///
/// # fn main() -> Result<(), toolwright_mcp::AuthError> {
/// let jwks = r#"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1",
///     "x": "GC04on51ZRaPxpq8C6P6T4Y15B78wQaYpCR5Si1FT9s",
///     "y": "KxmWpEuI5uPaf2Kfn7XK8kzfvDgC2THPHhfFqKBfi7s"}]}"#;
/// let jwt = JwtConfig::from_jwks_json(jwks, "https://login.example.com", "https://tools.example.com")?
///     .leeway_secs(30);
/// assert_eq!(jwt.issuer(), "https://login.example.com");
/// # Ok(())
/// # }
/// ```
pub struct JwtConfig {
    issuer: String,
    audience: String,
    leeway: u64,
    keys: Keys,
}

impl fmt::Debug for JwtConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtConfig")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("leeway", &self.leeway)
            .field("keys", &self.keys.origin)
            .finish()
    }
}

/// The signing keys, and where they come from (to fetch them again on an unknown key id).
struct Keys {
    origin: String,
    current: Mutex<Arc<JwkSet>>,
    #[cfg(feature = "jwks-url")]
    remote: Option<remote::Remote>,
}

impl JwtConfig {
    /// Validates against the keys of a JWKS document (`{"keys": [...]}`).
    ///
    /// ```
    /// let error = toolwright_mcp::JwtConfig::from_jwks_json(
    ///     r#"{"keys": []}"#, "https://login.example.com", "https://tools.example.com",
    /// )
    /// .unwrap_err();
    /// assert!(error.to_string().contains("has no RSA, EC (P-256, P-384) or Ed25519 public key"));
    /// ```
    ///
    /// # Errors
    ///
    /// When the issuer or audience is empty, the text is not a JWKS, or it has no key this
    /// server can verify signatures with.
    pub fn from_jwks_json(
        jwks: &str,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        let set = parse_jwks(jwks, "the given JWKS")?;
        JwtConfig::with_keys(issuer.into(), audience.into(), "the given JWKS".into(), set)
    }

    /// Validates against the keys of a JWKS file.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// let jwt = toolwright_mcp::JwtConfig::from_jwks_file(
    ///     "/etc/toolwright/jwks.json", "https://login.example.com", "https://tools.example.com")?;
    /// # let _ = jwt;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the file cannot be read, or as [`from_jwks_json`](Self::from_jwks_json).
    pub fn from_jwks_file(
        path: impl AsRef<Path>,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| AuthError::Jwks {
            origin: origin.clone(),
            reason: format!("{error}; give a readable JWKS file"),
        })?;
        let set = parse_jwks(&text, &origin)?;
        JwtConfig::with_keys(issuer.into(), audience.into(), origin, set)
    }

    /// Validates against the keys published at `url`, fetched now and again when a token
    /// names a key id they do not have (at most once a minute). The URL must be `https`,
    /// except on a loopback address.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolwright_mcp::AuthError> {
    /// let jwt = toolwright_mcp::JwtConfig::from_jwks_url(
    ///     "https://login.example.com/.well-known/jwks.json",
    ///     "https://login.example.com",
    ///     "https://tools.example.com",
    /// )
    /// .await?;
    /// # let _ = jwt;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the URL is not acceptable, cannot be fetched, or does not hold a usable JWKS.
    #[cfg(feature = "jwks-url")]
    #[cfg_attr(docsrs, doc(cfg(feature = "jwks-url")))]
    pub async fn from_jwks_url(
        url: &str,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Result<Self, AuthError> {
        let remote = remote::Remote::new(url)?;
        let set = remote.fetch().await?;
        let mut config = JwtConfig::with_keys(issuer.into(), audience.into(), url.to_owned(), set)?;
        config.keys.remote = Some(remote);
        Ok(config)
    }

    fn with_keys(
        issuer: String,
        audience: String,
        origin: String,
        set: JwkSet,
    ) -> Result<Self, AuthError> {
        if issuer.trim().is_empty() {
            return Err(AuthError::MissingClaim { what: "issuer" });
        }
        if audience.trim().is_empty() {
            return Err(AuthError::MissingClaim { what: "audience" });
        }
        Ok(JwtConfig {
            issuer,
            audience,
            leeway: 60,
            keys: Keys {
                origin,
                current: Mutex::new(Arc::new(set)),
                #[cfg(feature = "jwks-url")]
                remote: None,
            },
        })
    }

    /// Seconds of clock difference allowed when checking `exp` and `nbf` (default 60).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// let jwt = toolwright_mcp::JwtConfig::from_jwks_file(
    ///     "jwks.json", "https://login.example.com", "https://tools.example.com")?
    ///     .leeway_secs(5);
    /// # let _ = jwt;
    /// # Ok(())
    /// # }
    /// ```
    pub fn leeway_secs(mut self, seconds: u64) -> Self {
        self.leeway = seconds;
        self
    }

    /// The issuer tokens must name (`iss`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// let jwt = toolwright_mcp::JwtConfig::from_jwks_file("jwks.json", "https://login.example.com", "aud")?;
    /// assert_eq!(jwt.issuer(), "https://login.example.com");
    /// # Ok(())
    /// # }
    /// ```
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The audience tokens must name (`aud`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), toolwright_mcp::AuthError> {
    /// let jwt = toolwright_mcp::JwtConfig::from_jwks_file("jwks.json", "iss", "https://tools.example.com")?;
    /// assert_eq!(jwt.audience(), "https://tools.example.com");
    /// # Ok(())
    /// # }
    /// ```
    pub fn audience(&self) -> &str {
        &self.audience
    }

    fn current_keys(&self) -> Arc<JwkSet> {
        Arc::clone(
            &self
                .keys
                .current
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    async fn verify(&self, token: &str) -> Result<Principal, TokenRejected> {
        check_crit(token)?;
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| TokenRejected::new("the token is not a well-formed JWT"))?;
        let keys = self.current_keys();
        let jwk = match pick_key(&keys, header.kid.as_deref()) {
            Some(jwk) => jwk.clone(),
            None => self.refetched_key(header.kid.as_deref()).await?,
        };
        let key = DecodingKey::from_jwk(&jwk)
            .map_err(|_| TokenRejected::new("the signing key of the token cannot be used"))?;
        if !algorithm_fits(header.alg, &jwk) {
            return Err(TokenRejected::new(format!(
                "the token's algorithm {:?} does not match its signing key",
                header.alg
            )));
        }
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|error| {
            use jsonwebtoken::errors::ErrorKind;
            TokenRejected::new(match error.kind() {
                ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
                ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
                ErrorKind::InvalidIssuer => "the token was issued by another issuer".to_owned(),
                ErrorKind::InvalidAudience => "the token is meant for another audience".to_owned(),
                ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
                ErrorKind::MissingRequiredClaim(claim) => {
                    format!("the token has no `{claim}` claim")
                }
                _ => "the token is not valid".to_owned(),
            })
        })?;
        let claims = data.claims;
        // Required above: every token names whom it was issued to, and that (with the
        // issuer) is who owns its sessions. A token without `sub` is refused rather than
        // sharing one owner with every other such token.
        let Some(subject) = claims.sub.filter(|sub| !sub.is_empty()) else {
            return Err(TokenRejected::new(
                "the token has no `sub` claim; ask the authorization server for tokens that \
                 name their subject",
            ));
        };
        let mut scopes: Vec<String> = claims
            .scope
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        match claims.scp {
            Some(Scp::List(list)) => scopes.extend(list),
            Some(Scp::Text(text)) => scopes.extend(text.split_whitespace().map(str::to_owned)),
            None => {}
        }
        Ok(Principal::for_jwt(&self.issuer, subject, scopes))
    }

    #[cfg(feature = "jwks-url")]
    async fn refetched_key(&self, kid: Option<&str>) -> Result<Jwk, TokenRejected> {
        let unknown =
            || TokenRejected::new("the token is signed with a key this server does not know");
        let Some(remote) = &self.keys.remote else {
            return Err(unknown());
        };
        let Some(set) = remote.refetch().await else {
            return Err(unknown());
        };
        let jwk = pick_key(&set, kid).cloned();
        *self
            .keys
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(set);
        jwk.ok_or_else(unknown)
    }

    #[cfg(not(feature = "jwks-url"))]
    async fn refetched_key(&self, _kid: Option<&str>) -> Result<Jwk, TokenRejected> {
        Err(TokenRejected::new(
            "the token is signed with a key this server does not know",
        ))
    }
}

/// Refuses a JWT whose protected header has `crit` (RFC 7515, section 4.1.11): it names
/// extensions the recipient must understand, and this server understands none. A `crit`
/// that is not a non-empty list of strings is malformed, and refused too.
fn check_crit(token: &str) -> Result<(), TokenRejected> {
    use base64::Engine as _;
    let malformed = || TokenRejected::new("the token is not a well-formed JWT");
    let encoded = token.split('.').next().ok_or_else(malformed)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .map_err(|_| malformed())?;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes).map_err(|_| malformed())?;
    let Some(crit) = header.get("crit") else {
        return Ok(());
    };
    let names = crit
        .as_array()
        .filter(|names| !names.is_empty())
        .and_then(|names| names.iter().map(|n| n.as_str()).collect::<Option<Vec<_>>>());
    match names {
        None => Err(TokenRejected::new(
            "the token's header has a malformed `crit` (RFC 7515 wants a non-empty list of \
             extension names)",
        )),
        Some(names) => Err(TokenRejected::new(format!(
            "the token's header marks extensions as critical that this server does not \
             understand ({}); ask for tokens without `crit`",
            quoted(&names.join(", "))
        ))),
    }
}

/// The claims read from a JWT besides the ones `jsonwebtoken` checks.
#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    /// RFC 9068 / RFC 8693: space-separated.
    scope: Option<String>,
    /// What some identity providers use instead: a list, or space-separated text.
    scp: Option<Scp>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scp {
    List(Vec<String>),
    Text(String),
}

fn parse_jwks(text: &str, origin: &str) -> Result<JwkSet, AuthError> {
    let set: JwkSet = serde_json::from_str(text).map_err(|error| AuthError::Jwks {
        origin: origin.to_owned(),
        reason: format!("it is not a JWKS document ({error}); expected {{\"keys\": [...]}}"),
    })?;
    let usable = set
        .keys
        .iter()
        .filter(|jwk| usable_key(jwk))
        .cloned()
        .collect::<Vec<_>>();
    if usable.is_empty() {
        return Err(AuthError::Jwks {
            origin: origin.to_owned(),
            reason: "it has no RSA, EC (P-256, P-384) or Ed25519 public key for signatures"
                .to_owned(),
        });
    }
    Ok(JwkSet { keys: usable })
}

/// An asymmetric key meant for signatures (symmetric keys in a JWKS are refused: anyone who
/// can read the JWKS could sign with them).
fn usable_key(jwk: &Jwk) -> bool {
    use jsonwebtoken::jwk::{AlgorithmParameters, PublicKeyUse};
    let for_signatures = !matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    );
    let asymmetric = matches!(
        jwk.algorithm,
        AlgorithmParameters::RSA(_)
            | AlgorithmParameters::EllipticCurve(_)
            | AlgorithmParameters::OctetKeyPair(_)
    );
    for_signatures && asymmetric && DecodingKey::from_jwk(jwk).is_ok()
}

/// The key a token names by `kid`; without a `kid`, the only key there is.
fn pick_key<'a>(set: &'a JwkSet, kid: Option<&str>) -> Option<&'a Jwk> {
    match kid {
        Some(kid) => set.find(kid),
        None if set.keys.len() == 1 => set.keys.first(),
        None => None,
    }
}

/// Whether a token signed with `alg` may be checked with `jwk`: same family of algorithm, the
/// curve that goes with it, and the key's own `alg` when it names one.
fn algorithm_fits(alg: Algorithm, jwk: &Jwk) -> bool {
    use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve};
    let family_fits = match (&jwk.algorithm, alg) {
        (
            AlgorithmParameters::RSA(_),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512,
        ) => true,
        (AlgorithmParameters::EllipticCurve(ec), Algorithm::ES256) => {
            ec.curve == EllipticCurve::P256
        }
        (AlgorithmParameters::EllipticCurve(ec), Algorithm::ES384) => {
            ec.curve == EllipticCurve::P384
        }
        (AlgorithmParameters::OctetKeyPair(_), Algorithm::EdDSA) => true,
        _ => false,
    };
    let named_fits = jwk
        .common
        .key_algorithm
        .is_none_or(|named| format!("{named:?}") == format!("{alg:?}"));
    family_fits && named_fits
}

#[cfg(feature = "jwks-url")]
mod remote {
    //! Fetching a JWKS over HTTPS.

    use std::time::{Duration, Instant};

    use jsonwebtoken::jwk::JwkSet;

    use super::{AuthError, parse_jwks};

    /// Not more often than this, whatever tokens arrive.
    const MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(60);
    const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
    const MAX_JWKS_BYTES: usize = 1024 * 1024;

    pub(super) struct Remote {
        url: String,
        client: reqwest::Client,
        last_fetch: tokio::sync::Mutex<Option<Instant>>,
    }

    impl Remote {
        pub(super) fn new(url: &str) -> Result<Self, AuthError> {
            let parsed = reqwest::Url::parse(url).map_err(|error| AuthError::Jwks {
                origin: url.to_owned(),
                reason: format!("it is not a URL ({error})"),
            })?;
            let loopback = parsed.host_str().is_some_and(|host| {
                let host = host.trim_start_matches('[').trim_end_matches(']');
                host.eq_ignore_ascii_case("localhost")
                    || host
                        .parse::<std::net::IpAddr>()
                        .is_ok_and(|ip| ip.is_loopback())
            });
            match parsed.scheme() {
                "https" => {}
                "http" if loopback => {}
                _ => {
                    return Err(AuthError::InsecureJwksUrl {
                        url: url.to_owned(),
                    });
                }
            }
            let client = reqwest::Client::builder()
                .timeout(FETCH_TIMEOUT)
                .build()
                .map_err(|error| AuthError::Jwks {
                    origin: url.to_owned(),
                    reason: format!("cannot make an HTTP client ({error})"),
                })?;
            Ok(Remote {
                url: url.to_owned(),
                client,
                last_fetch: tokio::sync::Mutex::new(None),
            })
        }

        pub(super) async fn fetch(&self) -> Result<JwkSet, AuthError> {
            *self.last_fetch.lock().await = Some(Instant::now());
            let failed = |reason: String| AuthError::Jwks {
                origin: self.url.clone(),
                reason,
            };
            let response = self
                .client
                .get(&self.url)
                .header("accept", "application/json")
                .send()
                .await
                .map_err(|error| failed(format!("it cannot be fetched ({error})")))?;
            if !response.status().is_success() {
                return Err(failed(format!("the server answered {}", response.status())));
            }
            if response
                .content_length()
                .is_some_and(|length| length > MAX_JWKS_BYTES as u64)
            {
                return Err(failed("it is larger than 1 MiB".to_owned()));
            }
            let body = response
                .bytes()
                .await
                .map_err(|error| failed(format!("it cannot be read ({error})")))?;
            if body.len() > MAX_JWKS_BYTES {
                return Err(failed("it is larger than 1 MiB".to_owned()));
            }
            let text = String::from_utf8_lossy(&body);
            parse_jwks(&text, &self.url)
        }

        /// The keys fetched again, unless they were fetched less than a minute ago or the
        /// fetch fails (the old keys stay).
        pub(super) async fn refetch(&self) -> Option<JwkSet> {
            {
                let last = self.last_fetch.lock().await;
                if last.is_some_and(|at| at.elapsed() < MIN_REFETCH_INTERVAL) {
                    return None;
                }
            }
            match self.fetch().await {
                Ok(set) => Some(set),
                Err(error) => {
                    tracing::warn!(%error, "could not fetch the JWKS again; keeping the old keys");
                    None
                }
            }
        }
    }
}

/// What the authentication middleware needs.
pub(crate) struct AuthState {
    pub(crate) config: AuthConfig,
    /// The resource identifier (RFC 9728 `resource`).
    pub(crate) resource: String,
    /// Where the metadata document is, for `WWW-Authenticate`.
    pub(crate) metadata_url: String,
    /// Who owns which session, here and in the shared store.
    pub(crate) owners: Arc<SessionOwners>,
    /// Each caller's share of calls in flight.
    pub(crate) calls: Arc<CallShares>,
}

impl AuthState {
    /// The RFC 9728 protected resource metadata.
    pub(crate) fn metadata(&self) -> serde_json::Value {
        let mut metadata = serde_json::json!({
            "resource": self.resource,
            "bearer_methods_supported": ["header"],
            "scopes_supported": ALL_SCOPES,
        });
        if let Some(issuer) = self.config.issuer() {
            metadata["authorization_servers"] = serde_json::json!([issuer]);
        }
        metadata
    }

    fn challenge(&self, error: Option<(&str, &str)>) -> HeaderValue {
        let mut value = String::from("Bearer");
        if let Some((code, description)) = error {
            value.push_str(&format!(
                " error=\"{code}\", error_description=\"{}\",",
                quoted(description)
            ));
            if code == "insufficient_scope" {
                value.push_str(&format!(
                    " scope=\"{SCOPE_SAFE} {SCOPE_CAUTIOUS} {SCOPE_DANGEROUS}\","
                ));
            }
        }
        value.push_str(&format!(
            " resource_metadata=\"{}\"",
            quoted(&self.metadata_url)
        ));
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    fn refuse(&self, status: StatusCode, error: Option<(&str, &str)>, message: String) -> Response {
        let mut response = (status, message).into_response();
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, self.challenge(error));
        response
    }
}

/// Text safe inside a quoted-string of a header: visible ASCII and spaces only (what
/// `HeaderValue` takes), no quotes or backslashes. Characters
/// [`toolwright_names::escape::escape_class`] flags and every other character outside ASCII are
/// written `U+XXXX`, so a description cannot end the string, add a header line, or reorder or
/// hide what a client logs or shows.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {}
            ' '..='~' if !toolwright_names::escape::must_escape(c) => out.push(c),
            c => out.push_str(&format!("U+{:04X}", c as u32)),
        }
    }
    out
}

/// The bearer token of a request, if it has one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// The middleware in front of `/mcp`: authenticates, checks the scopes, keeps sessions to
/// their owner, and hands the [`Principal`] to the MCP handler in the request's extensions.
pub(crate) async fn authenticate(
    State(state): State<Arc<AuthState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let Some(token) = bearer(request.headers()) else {
        return state.refuse(
            StatusCode::UNAUTHORIZED,
            None,
            format!(
                "this MCP server needs an access token: send `Authorization: Bearer <token>` \
                 (how to get one: {})\n",
                state.metadata_url
            ),
        );
    };
    let principal = match state.config.verify(token).await {
        Ok(principal) => principal,
        Err(rejected) => {
            tracing::info!(reason = %rejected, "refused a request with an invalid token");
            return state.refuse(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", &rejected.to_string())),
                format!("invalid access token: {rejected}; get a new token and try again\n"),
            );
        }
    };
    if principal.max_safety().is_none() {
        tracing::info!(
            subject = principal.subject(),
            "refused a token without a tools scope"
        );
        return state.refuse(
            StatusCode::FORBIDDEN,
            Some((
                "insufficient_scope",
                "the token grants none of tools:safe, tools:cautious, tools:dangerous",
            )),
            format!(
                "the token of `{}` grants no tools: it needs one of the scopes {SCOPE_SAFE}, \
                 {SCOPE_CAUTIOUS} or {SCOPE_DANGEROUS}\n",
                principal.subject()
            ),
        );
    }
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if let Some(session) = &session {
        let refusal = match state.owners.check(session, principal.owner()).await {
            Ok(Ownership::Own | Ownership::Unknown) => None,
            Ok(Ownership::Foreign) => Some((
                StatusCode::FORBIDDEN,
                "this MCP session was started with another access token; start a session of \
                 your own (send initialize without Mcp-Session-Id)\n",
            )),
            Ok(Ownership::Unowned) => Some((
                StatusCode::FORBIDDEN,
                "this MCP session has no recorded owner (it was opened without a token, or by \
                 an older version of the server); start a new session (send initialize \
                 without Mcp-Session-Id)\n",
            )),
            Err(error) => {
                tracing::error!(%error, "cannot read the owner of a session from the session store");
                Some((
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the session store cannot be read, so this session's owner cannot be \
                     checked; try again shortly\n",
                ))
            }
        };
        if let Some((status, message)) = refusal {
            if status == StatusCode::FORBIDDEN {
                tracing::warn!(
                    subject = principal.subject(),
                    "refused a request for another caller's session"
                );
            }
            return (status, message).into_response();
        }
    }
    let owner = principal.owner().to_owned();
    request.extensions_mut().insert(CallShare {
        owner: owner.clone(),
        shares: Arc::clone(&state.calls),
    });
    request.extensions_mut().insert(principal);
    REQUEST_OWNER.scope(owner, next.run(request)).await
}

/// `GET /.well-known/oauth-protected-resource`: the RFC 9728 metadata.
pub(crate) async fn metadata(State(state): State<Arc<AuthState>>) -> Response {
    let mut response = state.metadata().to_string().into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A description with quotes, a line break, bidirectional and invisible characters stays
    /// one quoted-string a header can hold, with nothing hidden or reordered.
    #[test]
    fn hostile_text_in_a_challenge_is_escaped() {
        let shown = quoted("bad \"token\"\r\nX-Evil: 1 \u{202e}nimda\u{200b}\u{e0041} é\\");
        assert_eq!(
            shown,
            "bad tokenU+000DU+000AX-Evil: 1 U+202EnimdaU+200BU+E0041 U+00E9"
        );
        assert!(HeaderValue::from_str(&format!("Bearer error_description=\"{shown}\"")).is_ok());
    }

    #[test]
    fn bearer_tokens_are_read_case_insensitively() {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_static("bearer  abc "));
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }

    #[test]
    fn static_tokens_are_checked_when_loaded() {
        let short = AuthConfig::new()
            .token("short", ["tools:safe"])
            .unwrap_err();
        assert!(short.to_string().contains("shorter than 16"), "{short}");
        let typo = AuthConfig::new()
            .token("0123456789abcdef0123", ["tools:dangerus"])
            .unwrap_err();
        assert!(
            typo.to_string().contains("unknown scope `tools:dangerus`"),
            "{typo}"
        );
    }

    #[tokio::test]
    async fn a_token_without_scopes_has_them_all() {
        let auth = AuthConfig::new()
            .token("0123456789abcdef0123", Vec::<String>::new())
            .unwrap();
        let principal = auth.verify("0123456789abcdef0123").await.unwrap();
        assert_eq!(
            principal.scopes().collect::<Vec<_>>().len(),
            ALL_SCOPES.len()
        );
        assert!(principal.can_approve());
    }

    #[test]
    fn challenges_name_the_metadata_and_the_error() {
        let state = AuthState {
            config: AuthConfig::new(),
            resource: "http://127.0.0.1:1".into(),
            metadata_url: "http://127.0.0.1:1/.well-known/oauth-protected-resource".into(),
            owners: Arc::default(),
            calls: Arc::new(CallShares::new(1, Arc::default())),
        };
        assert_eq!(
            state.challenge(None),
            "Bearer resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource\""
        );
        let value = state.challenge(Some(("invalid_token", "the \"token\" has expired")));
        assert_eq!(
            value,
            "Bearer error=\"invalid_token\", error_description=\"the token has expired\", \
             resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource\""
        );
    }
}
