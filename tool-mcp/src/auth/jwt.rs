//! JWT access tokens: the issuer, audience and keys a token is checked against.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{DecodingKey, Validation};
use serde::Deserialize;

use super::error::{AuthError, TokenRejected};
#[cfg(feature = "jwks-url")]
use super::jwks::remote;
use super::jwks::{algorithm_fits, parse_jwks, pick_key};
use super::rules::quoted;
use crate::principal::Principal;

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
    pub(super) issuer: String,
    pub(super) audience: String,
    pub(super) leeway: u64,
    pub(super) keys: Keys,
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
pub(super) struct Keys {
    pub(super) origin: String,
    pub(super) current: Mutex<Arc<JwkSet>>,
    #[cfg(feature = "jwks-url")]
    pub(super) remote: Option<remote::Remote>,
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

    pub(super) async fn verify(&self, token: &str) -> Result<Principal, TokenRejected> {
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
pub(super) fn check_crit(token: &str) -> Result<(), TokenRejected> {
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
pub(super) struct Claims {
    pub(super) sub: Option<String>,
    /// RFC 9068 / RFC 8693: space-separated.
    pub(super) scope: Option<String>,
    /// What some identity providers use instead: a list, or space-separated text.
    pub(super) scp: Option<Scp>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Scp {
    List(Vec<String>),
    Text(String),
}
