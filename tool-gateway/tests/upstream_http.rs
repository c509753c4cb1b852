//! An upstream over streamable HTTP (feature `upstream-http`): our own `McpServer` behind a
//! static bearer token, mounted with the token from a file and from an environment
//! variable; refused without it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolwright_core::{SafetyLevel, Tool, ToolCall};
use toolwright_gateway::upstream::{MountOptions, MountUpstream, Upstream, UpstreamError};
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

const TOKEN: &str = "upstream-test-token-0123456789";
const DEADLINE: Duration = Duration::from_secs(60);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

async fn serve() -> HttpServer {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Tool::builder("echo")
                .description("Echo the text.")
                .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
                .handler(|args: Map<String, Value>| async move {
                    args["text"].as_str().unwrap_or_default().to_owned()
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let auth = AuthConfig::new().token(TOKEN, ["tools:safe"]).unwrap();
    McpServer::new(Executor::builder(registry).build())
        .serve_http_with(([127, 0, 0, 1], 0).into(), HttpOptions::new().auth(auth))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mounts_over_http_with_a_bearer_token() {
    let http = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();

    let upstream = within(
        "connect with the token file",
        Upstream::http(http.url())
            .bearer_token_file(&token_file)
            .connect(),
    )
    .await
    .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount",
        registry.mount(&upstream, MountOptions::new("web").trusted(true)),
    )
    .await
    .unwrap();
    assert_eq!(
        registry.get("web_echo").unwrap().safety(),
        SafetyLevel::Safe
    );
    let result = within(
        "call",
        Executor::builder(registry.clone())
            .build()
            .execute(ToolCall::new("1", "web_echo", json!({"text": "over http"}))),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "over http");
    upstream.close().await;

    // From an environment variable (a name no other test uses).
    // SAFETY: this test binary's only test that touches the environment.
    unsafe { std::env::set_var("TOOLWRIGHT_UPSTREAM_TEST_TOKEN", TOKEN) };
    let upstream = within(
        "connect with the token variable",
        Upstream::http(http.url())
            .bearer_token_env("TOOLWRIGHT_UPSTREAM_TEST_TOKEN")
            .connect(),
    )
    .await
    .unwrap();
    upstream.close().await;

    // Without a token: refused at the handshake.
    let error = within("connect without", Upstream::http(http.url()).connect())
        .await
        .unwrap_err();
    assert!(matches!(error, UpstreamError::Handshake { .. }), "{error}");

    // A token file that is not there: said so, before any request.
    let error = Upstream::http(http.url())
        .bearer_token_file(dir.path().join("missing"))
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(error, UpstreamError::Token { .. }), "{error}");
    assert!(error.to_string().contains("the file"), "{error}");
}

/// The attack, scaled down: an HTTP upstream lists a tool whose definition is larger than
/// a message may be. The page is refused as it is read, before it is decoded: the mount
/// fails, saying why, instead of holding it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_larger_than_a_message_may_be_is_refused_before_decoding() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Tool::builder("huge")
                .description("x".repeat(200 * 1024))
                .handler(|_| async { "ok" })
                .build()
                .unwrap(),
        )
        .unwrap();
    let auth = AuthConfig::new().token(TOKEN, ["tools:safe"]).unwrap();
    let http = McpServer::new(Executor::builder(registry).build())
        .serve_http_with(([127, 0, 0, 1], 0).into(), HttpOptions::new().auth(auth))
        .await
        .unwrap();
    // SAFETY: a variable no other test reads.
    unsafe { std::env::set_var("TOOLWRIGHT_UPSTREAM_TEST_TOKEN_HUGE", TOKEN) };
    let upstream = within(
        "connect",
        Upstream::http(http.url())
            .bearer_token_env("TOOLWRIGHT_UPSTREAM_TEST_TOKEN_HUGE")
            .max_message_bytes(64 * 1024)
            .connect(),
    )
    .await
    .unwrap();
    let mounted = Arc::new(ToolRegistry::new());
    let error = within("mount", mounted.mount(&upstream, MountOptions::new("web")))
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("65536 bytes a message (`max_message_bytes`)"),
        "{error}"
    );
    assert!(mounted.get("web_huge").is_none());
    upstream.close().await;
}
