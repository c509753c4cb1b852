//! JSON Web Key Sets: reading one, picking the key a token names, fetching one from a URL
//! (feature `jwks-url`).

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey};

use super::error::AuthError;

pub(super) fn parse_jwks(text: &str, origin: &str) -> Result<JwkSet, AuthError> {
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
pub(super) fn usable_key(jwk: &Jwk) -> bool {
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
pub(super) fn pick_key<'a>(set: &'a JwkSet, kid: Option<&str>) -> Option<&'a Jwk> {
    match kid {
        Some(kid) => set.find(kid),
        None if set.keys.len() == 1 => set.keys.first(),
        None => None,
    }
}

/// Whether a token signed with `alg` may be checked with `jwk`: same family of algorithm, the
/// curve that goes with it, and the key's own `alg` when it names one.
pub(super) fn algorithm_fits(alg: Algorithm, jwk: &Jwk) -> bool {
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
pub(super) mod remote {
    //! Fetching a JWKS over HTTPS.

    use std::time::{Duration, Instant};

    use jsonwebtoken::jwk::JwkSet;

    use super::{AuthError, parse_jwks};

    /// Not more often than this, whatever tokens arrive.
    const MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(60);
    const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
    const MAX_JWKS_BYTES: usize = 1024 * 1024;

    pub(crate) struct Remote {
        url: String,
        client: reqwest::Client,
        last_fetch: tokio::sync::Mutex<Option<Instant>>,
    }

    impl Remote {
        pub(crate) fn new(url: &str) -> Result<Self, AuthError> {
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

        pub(crate) async fn fetch(&self) -> Result<JwkSet, AuthError> {
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
        pub(crate) async fn refetch(&self) -> Option<JwkSet> {
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
