//! Tests of static tokens and the challenges.

use super::config::AuthConfig;
use super::middleware::{AuthState, bearer};
use std::sync::Arc;

use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, HeaderValue};

use super::rules::{ALL_SCOPES, quoted};
use crate::owners::CallShares;

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
