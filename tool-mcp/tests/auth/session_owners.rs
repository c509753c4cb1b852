//! A session belongs to the token that started it; JWT and static-token owners live in
//! separate namespaces.

use jsonwebtoken::Algorithm;
use reqwest::StatusCode;
use serde_json::json;
use toolwright_mcp::HttpOptions;

use crate::common::{initialize, post, session_id};
use crate::support::{ALL_TOKEN, SAFE_TOKEN, claims, jwt, start};

#[tokio::test]
async fn a_session_belongs_to_the_token_that_started_it() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let started = initialize(&web, &http.url(), Some(SAFE_TOKEN)).await;
    assert_eq!(started.status(), StatusCode::OK);
    let session = session_id(&started).unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let stolen = post(&web, &http.url(), &list)
        .bearer_auth(ALL_TOKEN)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stolen.status(), StatusCode::FORBIDDEN);
    assert!(
        stolen
            .text()
            .await
            .unwrap()
            .contains("started with another access token")
    );
    http.shutdown();
}

/// Owners of JWTs and of static tokens live in separate namespaces: a JWT whose `sub` is a
/// static token's subject (`tokens:2`, line 2 of the token file) does not own that
/// token's sessions.
#[tokio::test]
async fn a_jwt_named_like_a_static_token_does_not_own_its_sessions() {
    let http = start(HttpOptions::new(), |s| s).await;
    let web = reqwest::Client::new();
    let started = initialize(&web, &http.url(), Some(SAFE_TOKEN)).await;
    assert_eq!(started.status(), StatusCode::OK);
    let session = session_id(&started).unwrap();
    let impostor = jwt(
        Algorithm::ES256,
        "ec-1.pem",
        "ec-1",
        &claims(|c| {
            c["sub"] = json!("tokens:2");
            c["scope"] = json!("tools:safe");
        }),
    );
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let answer = post(&web, &http.url(), &list)
        .bearer_auth(&impostor)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    let ended = web
        .delete(http.url())
        .bearer_auth(&impostor)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), StatusCode::FORBIDDEN);
    // The token's own requests still work.
    let answer = post(&web, &http.url(), &list)
        .bearer_auth(SAFE_TOKEN)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_ne!(answer.status(), StatusCode::FORBIDDEN);
    http.shutdown();
}
