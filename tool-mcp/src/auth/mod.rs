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

// The layers, lowest first (no module imports one listed after it): rules, error, jwks,
// jwt, config, middleware.
pub(crate) mod config;
pub(crate) mod error;
pub(crate) mod jwks;
pub(crate) mod jwt;
pub(crate) mod middleware;
pub(crate) mod rules;
#[cfg(test)]
mod tests;

pub use crate::principal::{Principal, SCOPE_APPROVE, SCOPE_CAUTIOUS, SCOPE_DANGEROUS, SCOPE_SAFE};
pub use config::AuthConfig;
pub use error::{AuthError, TokenRejected};
pub use jwt::JwtConfig;
pub use rules::{ALL_SCOPES, MIN_STATIC_TOKEN_LEN};
