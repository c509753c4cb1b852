//! What each scope lets a caller see and call, approve (`tools:approve`), and hear of
//! (list changes), in stateful and stateless mode.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use jsonwebtoken::Algorithm;
use reqwest::StatusCode;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use toolwright_core::SafetyLevel;
use toolwright_mcp::{HttpOptions, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

use crate::common::post;
use crate::support::{
    ALL_TOKEN, APPROVER_TOKEN, Client, DANGEROUS_TOKEN, SAFE_TOKEN, WIPES, auth, claims, connect,
    jwt, start, toolwright_names,
};

#[tokio::test]
async fn scopes_set_which_tools_a_caller_sees_and_calls() {
    let http = start(HttpOptions::new(), |s| s.allow_dangerous(true)).await;
    let before = WIPES.load(Ordering::SeqCst);

    let safe = connect(&http, SAFE_TOKEN, Client::default()).await;
    assert_eq!(toolwright_names(&safe).await, ["look"]);
    for name in ["tweak", "wipe"] {
        let result = safe
            .call_tool(CallToolRequestParams::new(name))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{name}");
        let text = &result.content[0].as_text().unwrap().text;
        assert!(text.contains("above this caller's limit of safe"), "{text}");
    }
    let result = safe
        .call_tool(CallToolRequestParams::new("look"))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "looked");
    safe.cancel().await.unwrap();

    // A JWT with `tools:cautious`.
    let token = jwt(Algorithm::ES256, "ec-1.pem", "ec-1", &claims(|_| {}));
    let cautious = connect(&http, &token, Client::default()).await;
    assert_eq!(toolwright_names(&cautious).await, ["look", "tweak"]);
    let result = cautious
        .call_tool(CallToolRequestParams::new("tweak"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    cautious.cancel().await.unwrap();

    let all = connect(&http, ALL_TOKEN, Client::default()).await;
    assert_eq!(toolwright_names(&all).await, ["look", "tweak", "wipe"]);
    all.cancel().await.unwrap();
    assert_eq!(WIPES.load(Ordering::SeqCst), before);
    http.shutdown();
}

#[tokio::test]
async fn a_caller_s_own_approval_counts_only_with_tools_approve() {
    let http = start(HttpOptions::new(), |s| s).await;
    let before = WIPES.load(Ordering::SeqCst);

    // Without tools:approve: not asked, refused, not run.
    let client = Client {
        elicitation: true,
        ..Client::default()
    };
    let asked = Arc::clone(&client.asked);
    let dangerous = connect(&http, DANGEROUS_TOKEN, client).await;
    let result = dangerous
        .call_tool(CallToolRequestParams::new("wipe"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(
        text.contains("lacks the `tools:approve` scope needed to approve it"),
        "{text}"
    );
    assert!(asked.lock().unwrap().is_empty());
    assert_eq!(WIPES.load(Ordering::SeqCst), before);
    dangerous.cancel().await.unwrap();

    // With it: asked, approved, run.
    let client = Client {
        elicitation: true,
        ..Client::default()
    };
    let asked = Arc::clone(&client.asked);
    let approver = connect(&http, APPROVER_TOKEN, client).await;
    let result = approver
        .call_tool(CallToolRequestParams::new("wipe"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(asked.lock().unwrap().len(), 1);
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 1);
    approver.cancel().await.unwrap();
    http.shutdown();

    // A server that allows dangerous tools runs it for the caller without tools:approve.
    let http = start(HttpOptions::new(), |s| s.allow_dangerous(true)).await;
    let dangerous = connect(&http, DANGEROUS_TOKEN, Client::default()).await;
    let result = dangerous
        .call_tool(CallToolRequestParams::new("wipe"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(WIPES.load(Ordering::SeqCst), before + 2);
    dangerous.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn scopes_apply_in_stateless_mode_too() {
    let http = start(HttpOptions::new().stateless(true), |s| s).await;
    let web = reqwest::Client::new();
    let request = |id: u32, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let list = post(&web, &http.url(), &request(1, "tools/list", json!({})))
        .bearer_auth(SAFE_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(list.status(), StatusCode::OK);
    let list: Value = list.json().await.unwrap();
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["look"]);
    let call = post(
        &web,
        &http.url(),
        &request(2, "tools/call", json!({"name": "tweak", "arguments": {}})),
    )
    .bearer_auth(SAFE_TOKEN)
    .send()
    .await
    .unwrap();
    let call: Value = call.json().await.unwrap();
    assert_eq!(call["result"]["isError"], true, "{call}");
    assert!(
        call["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("above this caller's limit of safe"),
        "{call}"
    );
    http.shutdown();
}

#[tokio::test]
async fn list_changed_goes_only_to_sessions_whose_token_sees_the_tool() {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    let http = McpServer::new(executor.clone())
        .serve_http_with(([127, 0, 0, 1], 0).into(), HttpOptions::new().auth(auth()))
        .await
        .unwrap();
    let (safe_watch, dangerous_watch) = (Client::default(), Client::default());
    let safe = connect(&http, SAFE_TOKEN, safe_watch.clone()).await;
    let dangerous = connect(&http, DANGEROUS_TOKEN, dangerous_watch.clone()).await;
    // A round trip each: the sessions are initialized and subscribed.
    assert_eq!(toolwright_names(&safe).await, ["look"]);
    assert_eq!(
        toolwright_names(&dangerous).await,
        ["look", "tweak", "wipe"]
    );

    // Each phase ends with a change both see; a notification sent for a change a session
    // cannot see would arrive before that one and show in the counts.
    let registry = executor.registry();
    registry.set_enabled("wipe", false).unwrap();
    registry.set_enabled("tweak", false).unwrap();
    registry.set_enabled("look", false).unwrap();
    assert_eq!(dangerous_watch.list_changes(3).await, 3);
    assert_eq!(safe_watch.list_changes(1).await, 1);

    registry.set_enabled("wipe", true).unwrap();
    registry.set_enabled("tweak", true).unwrap();
    registry.set_enabled("look", true).unwrap();
    assert_eq!(dangerous_watch.list_changes(6).await, 6);
    assert_eq!(safe_watch.list_changes(2).await, 2);

    safe.cancel().await.unwrap();
    dangerous.cancel().await.unwrap();
    http.shutdown();
}
