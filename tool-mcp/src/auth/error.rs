//! Why an authentication setting could not be used, and why a token was rejected.

use std::path::PathBuf;

use super::rules::{ALL_SCOPES, MIN_STATIC_TOKEN_LEN};

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

/// Why a token was refused; its message goes to the client as the `error_description`.
///
/// ```
/// let rejected = toolwright_mcp::TokenRejected::new("the token has expired");
/// assert_eq!(rejected.to_string(), "the token has expired");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct TokenRejected {
    pub(super) reason: String,
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

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
