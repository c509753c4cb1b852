//! What a caller without a usable token is told: 401 pointing to fetchable RFC 9728
//! metadata naming the public resource URL, `invalid_token`, 403 `insufficient_scope`.

use jsonwebtoken::Algorithm;
use reqwest::StatusCode;
use serde_json::{Value, json};
use toolwright_mcp::HttpOptions;

use crate::common::initialize;
use crate::support::{ISSUER, NO_TOOLS_TOKEN, claims, jwt, start, www_authenticate};

#[tokio::test]
async fn a_missing_token_gets_401_pointing_to_fetchable_metadata() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let response = initialize(&web, &http.url(), None).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource",
        http.local_addr()
    );
    assert_eq!(
        www_authenticate(&response),
        format!("Bearer resource_metadata=\"{metadata_url}\"")
    );
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("Authorization: Bearer")
    );

    let metadata = web.get(&metadata_url).send().await.unwrap();
    assert_eq!(metadata.status(), StatusCode::OK);
    let metadata: Value = metadata.json().await.unwrap();
    assert_eq!(
        metadata,
        json!({
            "resource": format!("http://{}", http.local_addr()),
            "authorization_servers": [ISSUER],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["tools:safe", "tools:cautious", "tools:dangerous", "tools:approve"],
        })
    );
    // The ops endpoints are not behind authentication.
    let health = web
        .get(format!("http://{}/healthz", http.local_addr()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    http.shutdown();
}

#[tokio::test]
async fn the_public_resource_url_is_what_the_metadata_names() {
    let http = start(
        HttpOptions::new().resource_url("https://tools.example.test/team/"),
        |s| s,
    )
    .await;
    let web = reqwest::Client::new();
    let response = initialize(&web, &http.url(), None).await;
    assert_eq!(
        www_authenticate(&response),
        "Bearer resource_metadata=\"https://tools.example.test/.well-known/oauth-protected-resource/team\""
    );
    // Served on both well-known paths (RFC 9728's, and the bare one).
    for path in [
        "/.well-known/oauth-protected-resource/team",
        "/.well-known/oauth-protected-resource",
    ] {
        let metadata: Value = web
            .get(format!("http://{}{path}", http.local_addr()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(metadata["resource"], "https://tools.example.test/team");
    }
    http.shutdown();
}

#[tokio::test]
async fn a_wrong_token_gets_401_invalid_token() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    for token in ["not-a-token-we-know-0123456789", "a.b.c"] {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{token}");
        let challenge = www_authenticate(&response);
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\", error_description="),
            "{challenge}"
        );
        assert!(
            challenge.contains("resource_metadata=\"http://"),
            "{challenge}"
        );
    }
    http.shutdown();
}

#[tokio::test]
async fn a_token_without_a_tools_scope_gets_403_insufficient_scope() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let jwt_without_tools = jwt(
        Algorithm::ES256,
        "ec-1.pem",
        "ec-1",
        &claims(|c| c["scope"] = json!("openid profile")),
    );
    for token in [NO_TOOLS_TOKEN, jwt_without_tools.as_str()] {
        let response = initialize(&web, &http.url(), Some(token)).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let challenge = www_authenticate(&response);
        assert!(
            challenge.starts_with("Bearer error=\"insufficient_scope\""),
            "{challenge}"
        );
        assert!(
            challenge.contains("scope=\"tools:safe tools:cautious tools:dangerous\""),
            "{challenge}"
        );
    }
    http.shutdown();
}
