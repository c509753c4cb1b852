//! Keys fetched from a JWKS URL (feature `jwks-url`), which must be https unless loopback.

use std::sync::Arc;

use jsonwebtoken::Algorithm;
use reqwest::StatusCode;
use toolwright_mcp::{AuthConfig, HttpOptions, JwtConfig, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

use crate::common::initialize;
use crate::support::{AUDIENCE, ISSUER, claims, data, jwt};

/// Serves the test JWKS on 127.0.0.1; its URL.
async fn serve_jwks() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let jwks = std::fs::read_to_string(data("jwks.json")).unwrap();
    let router = axum::Router::new().route(
        "/jwks.json",
        axum::routing::get(move || {
            let jwks = jwks.clone();
            async move { jwks }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/jwks.json")
}

#[tokio::test]
async fn keys_are_fetched_from_a_jwks_url() {
    let url = serve_jwks().await;
    let jwt_config = JwtConfig::from_jwks_url(&url, ISSUER, AUDIENCE)
        .await
        .unwrap();
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    let http = McpServer::new(executor)
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().auth(AuthConfig::new().jwt(jwt_config)),
        )
        .await
        .unwrap();
    let web = reqwest::Client::new();
    let token = jwt(Algorithm::RS256, "rsa-1.pem", "rsa-1", &claims(|_| {}));
    let response = initialize(&web, &http.url(), Some(&token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let forged = jwt(
        Algorithm::ES256,
        "ec-2-not-in-jwks.pem",
        "ec-1",
        &claims(|_| {}),
    );
    let response = initialize(&web, &http.url(), Some(&forged)).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    http.shutdown();
}

#[tokio::test]
async fn a_jwks_url_must_be_https_unless_loopback() {
    let error = JwtConfig::from_jwks_url("http://login.example.test/jwks.json", ISSUER, AUDIENCE)
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("is not https; signing keys must be fetched over TLS"),
        "{error}"
    );
    // Nothing listens there: the error says it could not be fetched.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    drop(listener);
    let error = JwtConfig::from_jwks_url(&url, ISSUER, AUDIENCE)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("it cannot be fetched"),
        "{error}"
    );
}
