//! The HTTP upstream hop keeps its connections (feature `http`): 100 calls of a mounted tool
//! through a proxy that counts TCP connections take a few, not one per call (rmcp's own
//! client, which the gateway used before, opens and closes one per request), and every
//! socket of ours to the upstream has `TCP_NODELAY` set, the option whose absence (Nagle's
//! algorithm waiting for a delayed acknowledgement) makes a kept connection stall ~40 ms.
//! And the redirects it follows are rmcp's: none to another origin. Counts and socket
//! options only: no timing.

#[path = "support/counting_proxy.rs"]
mod counting_proxy;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolwright_core::{SafetyLevel, Tool, ToolCall};
use toolwright_gateway::upstream::{MountOptions, MountUpstream, Upstream};
use toolwright_mcp::{HttpServer, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

use counting_proxy::CountingProxy;

const DEADLINE: Duration = Duration::from_secs(60);
/// Sequential calls made through the gateway's upstream hop.
const CALLS: usize = 100;
/// The most connections those calls may take. rmcp hands a call's result over before it
/// reads the rest of that response (the stream's end), so the next call may find its
/// connection still busy and open another one: a handful in all (the handshake's, the
/// server's event stream, those), however many calls; one per call would be over 100.
const MOST_CONNECTIONS: usize = CALLS / 4;

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
    McpServer::new(Executor::builder(registry).build())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_reuse_a_few_connections_with_nodelay() {
    let http = serve().await;
    let proxy = CountingProxy::start(&http.url()).await;
    let upstream = within("connect", Upstream::http(proxy.url()).connect())
        .await
        .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("web").safety("echo", SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    let executor = Executor::builder(registry.clone()).build();
    let before = proxy.connections();
    for n in 0..CALLS {
        let text = format!("call {n}");
        let result = within(
            "call",
            executor.execute(ToolCall::new(
                n.to_string(),
                "web_echo",
                json!({"text": text}),
            )),
        )
        .await;
        assert!(result.success, "{result:?}");
        assert_eq!(result.content, text);
    }
    let connections = proxy.connections();
    eprintln!("{CALLS} calls: {connections} connections ({before} before the calls)");
    assert!(
        connections <= MOST_CONNECTIONS,
        "{CALLS} calls took {connections} connections ({before} before the calls): \
         the upstream hop does not keep them"
    );
    let nodelay = proxy.our_sockets_nodelay();
    assert!(
        !nodelay.is_empty(),
        "no open socket of ours to the upstream"
    );
    assert!(
        nodelay.iter().all(|&set| set),
        "a socket to the upstream without TCP_NODELAY: {nodelay:?}"
    );
    upstream.close().await;
}

/// The kept-alive client follows redirects as rmcp's did: a 307 to another origin is not
/// followed (the session and the token would go to another host), so the handshake fails
/// and the other host is never asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_origin_is_not_followed() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    let elsewhere = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let elsewhere_addr = elsewhere.local_addr().unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = elsewhere.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    let redirector = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let redirector_addr = redirector.local_addr().unwrap();
    let location = format!("http://{elsewhere_addr}/mcp");
    let app = axum::Router::new().fallback(move || {
        let location = location.clone();
        async move {
            axum::http::Response::builder()
                .status(axum::http::StatusCode::TEMPORARY_REDIRECT)
                .header(axum::http::header::LOCATION, location)
                .body(axum::body::Body::empty())
                .unwrap()
        }
    });
    tokio::spawn(async move { axum::serve(redirector, app).await.unwrap() });

    let result = within(
        "connect",
        Upstream::http(format!("http://{redirector_addr}/mcp")).connect(),
    )
    .await;
    assert!(
        result.is_err(),
        "the handshake went through a cross-origin redirect"
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the other origin was asked"
    );
}
