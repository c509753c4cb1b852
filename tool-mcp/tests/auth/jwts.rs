//! JWTs: signed by a key of the JWKS or refused; a `crit` header or a missing subject
//! makes a token invalid.

use jsonwebtoken::{Algorithm, EncodingKey};
use reqwest::StatusCode;
use serde_json::{Value, json};
use toolwright_mcp::HttpOptions;

use crate::common::initialize;
use crate::support::{AUDIENCE, claims, data, jwt, start, www_authenticate};

#[tokio::test]
async fn jwts_signed_by_a_jwks_key_are_accepted_and_others_refused() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let accepted = [
        jwt(Algorithm::ES256, "ec-1.pem", "ec-1", &claims(|_| {})),
        jwt(Algorithm::RS256, "rsa-1.pem", "rsa-1", &claims(|_| {})),
        // `scp` as a list, as some identity providers send it.
        jwt(
            Algorithm::ES256,
            "ec-1.pem",
            "ec-1",
            &claims(|c| {
                c.as_object_mut().unwrap().remove("scope");
                c["scp"] = json!(["tools:safe"]);
            }),
        ),
        // An audience list that names this server.
        jwt(
            Algorithm::ES256,
            "ec-1.pem",
            "ec-1",
            &claims(|c| c["aud"] = json!(["https://other.example.test", AUDIENCE])),
        ),
    ];
    for token in &accepted {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::OK, "{token}");
    }

    let now = jsonwebtoken::get_current_timestamp();
    let refused = [
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| {
                    c["iat"] = json!(now - 7200);
                    c["nbf"] = json!(now - 7200);
                    c["exp"] = json!(now - 3600);
                }),
            ),
            "the token has expired",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| c["aud"] = json!("https://other.example.test")),
            ),
            "the token is meant for another audience",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| c["iss"] = json!("https://evil.example.test")),
            ),
            "the token was issued by another issuer",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| c["nbf"] = json!(now + 7200)),
            ),
            "the token is not valid yet (nbf)",
        ),
        // Signed with a key the JWKS does not have, under the name of one it has.
        (
            jwt(
                Algorithm::ES256,
                "ec-2-not-in-jwks.pem",
                "ec-1",
                &claims(|_| {}),
            ),
            "the token's signature does not verify",
        ),
        // A key id the JWKS does not have.
        (
            jwt(
                Algorithm::ES256,
                "ec-2-not-in-jwks.pem",
                "ec-9",
                &claims(|_| {}),
            ),
            "the token is signed with a key this server does not know",
        ),
        // HMAC with a key the attacker can read, under the name of a public key.
        (
            jwt(Algorithm::HS256, "jwks.json", "ec-1", &claims(|_| {})),
            "does not match its signing key",
        ),
        // An RSA key's name on an EC signature.
        (
            jwt(Algorithm::ES256, "ec-1.pem", "rsa-1", &claims(|_| {})),
            "does not match its signing key",
        ),
        (
            jwt(
                Algorithm::ES256,
                "ec-1.pem",
                "ec-1",
                &claims(|c| {
                    c.as_object_mut().unwrap().remove("exp");
                }),
            ),
            "the token has no `exp` claim",
        ),
    ];
    for (token, reason) in &refused {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{reason}");
        let challenge = www_authenticate(&response);
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
        assert!(challenge.contains(reason), "{reason}: {challenge}");
    }
    http.shutdown();
}

/// A JWT signed like [`jwt`], with `extra` added to its header (what `Header` cannot hold).
fn jwt_with_header(extra: Value, claims: &Value) -> String {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut header = json!({"alg": "ES256", "typ": "JWT", "kid": "ec-1"});
    for (name, value) in extra.as_object().unwrap() {
        header[name] = value.clone();
    }
    let message = format!(
        "{}.{}",
        engine.encode(header.to_string()),
        engine.encode(claims.to_string())
    );
    let pem = std::fs::read(data("ec-1.pem")).unwrap();
    let key = EncodingKey::from_ec_pem(&pem).unwrap();
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &key, Algorithm::ES256).unwrap();
    format!("{message}.{signature}")
}

/// RFC 7515, 4.1.11: a header whose `crit` names an extension the server does not
/// understand (it understands none), or a malformed `crit`, makes the token invalid.
#[tokio::test]
async fn a_jwt_with_a_crit_header_is_refused() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    // The control: the same token without `crit` is accepted.
    let plain = jwt_with_header(json!({}), &claims(|_| {}));
    let response = initialize(&web, &http.url(), Some(&plain)).await;
    assert_eq!(response.status(), StatusCode::OK);
    for (extra, reason) in [
        (
            json!({"crit": ["https://example.test/must-check"], "https://example.test/must-check": true}),
            "does not understand",
        ),
        (
            json!({"crit": ["b64"], "b64": false}),
            "does not understand",
        ),
        (json!({"crit": []}), "malformed `crit`"),
        (json!({"crit": "exp"}), "malformed `crit`"),
        (json!({"crit": [1]}), "malformed `crit`"),
    ] {
        let token = jwt_with_header(extra.clone(), &claims(|_| {}));
        let response = initialize(&web, &http.url(), Some(&token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{extra}");
        let challenge = www_authenticate(&response);
        assert!(challenge.contains("invalid_token"), "{extra}: {challenge}");
        assert!(challenge.contains(reason), "{extra}: {challenge}");
    }
    http.shutdown();
}

/// A JWT without `sub` is refused (it would share one owner with every other such token).
#[tokio::test]
async fn a_jwt_without_a_subject_is_refused() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    for change in [
        (|c: &mut Value| {
            c.as_object_mut().unwrap().remove("sub");
        }) as fn(&mut Value),
        |c: &mut Value| {
            c.as_object_mut().unwrap().remove("sub");
            c["client_id"] = json!("some-client");
        },
        |c: &mut Value| c["sub"] = json!(""),
    ] {
        let token = jwt(Algorithm::ES256, "ec-1.pem", "ec-1", &claims(change));
        let response = initialize(&web, &http.url(), Some(&token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let challenge = www_authenticate(&response);
        assert!(challenge.contains("`sub`"), "{challenge}");
    }
    http.shutdown();
}
