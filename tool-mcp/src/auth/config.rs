//! `AuthConfig`: the static tokens and the JWT issuers a server accepts.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::error::{AuthError, TokenRejected};
use super::jwt::JwtConfig;
use super::rules::{ALL_SCOPES, MIN_STATIC_TOKEN_LEN};
use crate::principal::Principal;

/// A static token, as its SHA-256 digest (so comparisons take the same time whatever the
/// token's length), with the principal it stands for.
#[derive(Clone)]
pub(super) struct StaticToken {
    pub(super) digest: [u8; 32],
    pub(super) principal: Principal,
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
    pub(super) tokens: Vec<StaticToken>,
    pub(super) jwt: Option<Arc<JwtConfig>>,
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

pub(super) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}
