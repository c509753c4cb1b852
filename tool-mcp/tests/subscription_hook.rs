//! A resource's subscription hook (`ResourceBuilder::on_subscribe`) under `McpServer`: told
//! once per URI over every session (the first subscriber that may read it, after the last
//! one leaves, a closed session included); a refusing or panicking hook refuses the
//! subscription and the server goes on. No sleeps: each wait has a generous deadline.

// `resources/subscribe` is legacy-only in rmcp (the 2026-07-28 revision listens instead).
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use tokio::sync::mpsc;
use toolwright_core::{
    Resource, ResourceRequest, SafetyLevel, Subscription, ToolContext, ToolError,
};
use toolwright_mcp::{HttpServer, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

/// A feed whose hook reports each change on `told`; `feed://bad` is refused, `feed://boom`
/// panics.
fn feed(told: mpsc::UnboundedSender<(String, Subscription)>) -> Resource {
    Resource::builder("feed", "feed://{id}")
        .handler(|request: ResourceRequest, _: ToolContext| async move {
            Ok::<_, ToolError>(format!("feed {}", request.variable("id")?))
        })
        .on_subscribe(move |uri: String, change: Subscription| {
            let told = told.clone();
            async move {
                match uri.as_str() {
                    "feed://bad" => return Err(ToolError::new("the feed is closed")),
                    "feed://boom" => panic!("the hook panicked"),
                    _ => {}
                }
                let _ = told.send((uri, change));
                Ok(())
            }
        })
        .build()
        .unwrap()
}

fn vault(told: mpsc::UnboundedSender<(String, Subscription)>) -> Resource {
    Resource::builder("vault", "vault://secrets")
        .safety(SafetyLevel::Cautious)
        .handler(|_: ResourceRequest, _: ToolContext| async { Ok::<_, ToolError>("hunter2") })
        .on_subscribe(move |uri: String, change: Subscription| {
            let told = told.clone();
            async move {
                let _ = told.send((uri, change));
                Ok(())
            }
        })
        .build()
        .unwrap()
}

async fn start(
    told: mpsc::UnboundedSender<(String, Subscription)>,
    max_safety: SafetyLevel,
) -> HttpServer {
    let registry = ToolRegistry::new();
    registry.register_resource(feed(told.clone())).unwrap();
    registry.register_resource(vault(told)).unwrap();
    let executor = Executor::builder(Arc::new(registry))
        .max_safety(max_safety)
        .build();
    McpServer::new(executor)
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap()
}

async fn connect(http: &HttpServer) -> RunningService<RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap()
}

async fn next(
    told: &mut mpsc::UnboundedReceiver<(String, Subscription)>,
) -> (String, Subscription) {
    tokio::time::timeout(DEADLINE, told.recv())
        .await
        .expect("the hook was not told within the deadline")
        .expect("the hook's channel closed")
}

fn message(error: ServiceError) -> String {
    match error {
        ServiceError::McpError(error) => error.message.to_string(),
        other => panic!("not an MCP error: {other:?}"),
    }
}

#[tokio::test]
async fn the_hook_is_told_once_per_uri_over_every_session() {
    let (tx, mut told) = mpsc::unbounded_channel();
    let http = start(tx, SafetyLevel::Safe).await;
    let first = connect(&http).await;
    let second = connect(&http).await;
    first
        .subscribe(SubscribeRequestParams::new("feed://1"))
        .await
        .unwrap();
    assert_eq!(
        next(&mut told).await,
        ("feed://1".into(), Subscription::Started)
    );
    // A second subscriber (another session), and the same one again: not told.
    second
        .subscribe(SubscribeRequestParams::new("feed://1"))
        .await
        .unwrap();
    first
        .subscribe(SubscribeRequestParams::new("feed://1"))
        .await
        .unwrap();
    // The first leaves: one subscriber is left, not told (the hook runs before the answer).
    first
        .unsubscribe(UnsubscribeRequestParams::new("feed://1"))
        .await
        .unwrap();
    assert!(told.try_recv().is_err(), "told while a subscriber is left");
    // Above the ceiling: accepted (as an unknown URI), its hook never told.
    first
        .subscribe(SubscribeRequestParams::new("vault://secrets"))
        .await
        .unwrap();
    // The second's session closes: the last subscriber is gone, the hook is told.
    second.cancel().await.unwrap();
    assert_eq!(
        next(&mut told).await,
        ("feed://1".into(), Subscription::Ended)
    );
    // A new first subscriber is told again.
    first
        .subscribe(SubscribeRequestParams::new("feed://1"))
        .await
        .unwrap();
    assert_eq!(
        next(&mut told).await,
        ("feed://1".into(), Subscription::Started)
    );
    first
        .unsubscribe(UnsubscribeRequestParams::new("feed://1"))
        .await
        .unwrap();
    assert_eq!(
        next(&mut told).await,
        ("feed://1".into(), Subscription::Ended)
    );
    // The vault's hook was never told (it came after every feed event, or not at all).
    assert!(
        told.try_recv().is_err(),
        "a hidden resource's hook was told"
    );
    first.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_refusing_or_panicking_hook_refuses_the_subscription_and_the_server_goes_on() {
    let (tx, mut told) = mpsc::unbounded_channel();
    let http = start(tx, SafetyLevel::Safe).await;
    let client = connect(&http).await;
    let refused = client
        .subscribe(SubscribeRequestParams::new("feed://bad"))
        .await
        .unwrap_err();
    assert!(message(refused).contains("the feed is closed"));
    let panicked = client
        .subscribe(SubscribeRequestParams::new("feed://boom"))
        .await
        .unwrap_err();
    assert!(message(panicked).contains("panicked"));
    // Refused subscriptions are not held: unsubscribing them tells nobody, and the server
    // still answers.
    client
        .unsubscribe(UnsubscribeRequestParams::new("feed://bad"))
        .await
        .unwrap();
    client
        .subscribe(SubscribeRequestParams::new("feed://2"))
        .await
        .unwrap();
    assert_eq!(
        next(&mut told).await,
        ("feed://2".into(), Subscription::Started)
    );
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_cautious_caller_starts_the_hidden_resources_hook() {
    let (tx, mut told) = mpsc::unbounded_channel();
    let http = start(tx, SafetyLevel::Cautious).await;
    let client = connect(&http).await;
    client
        .subscribe(SubscribeRequestParams::new("vault://secrets"))
        .await
        .unwrap();
    assert_eq!(
        next(&mut told).await,
        ("vault://secrets".into(), Subscription::Started)
    );
    client.cancel().await.unwrap();
    http.shutdown();
}

/// Opens a 2026-07-28 `subscriptions/listen` stream naming `uri` on a connection of its
/// own, and reads up to its acknowledgment.
async fn listen(http: &HttpServer, uri: &str) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {
            "notifications": {"resourceSubscriptions": [uri]},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "hook-test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(http.local_addr())
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 2048];
    while !String::from_utf8_lossy(&seen).contains("subscriptions/acknowledged") {
        let n = tokio::time::timeout(DEADLINE, stream.read(&mut buffer))
            .await
            .expect("no acknowledgment within the deadline")
            .unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..n]);
    }
    stream
}

#[tokio::test]
async fn a_listen_stream_counts_as_a_subscriber_while_it_lasts() {
    let (tx, mut told) = mpsc::unbounded_channel();
    let http = start(tx, SafetyLevel::Safe).await;
    let stream = listen(&http, "feed://3").await;
    assert_eq!(
        next(&mut told).await,
        ("feed://3".into(), Subscription::Started)
    );
    // A session's subscription of the same URI: not told again.
    let client = connect(&http).await;
    client
        .subscribe(SubscribeRequestParams::new("feed://3"))
        .await
        .unwrap();
    client
        .unsubscribe(UnsubscribeRequestParams::new("feed://3"))
        .await
        .unwrap();
    assert!(told.try_recv().is_err(), "told while the stream listens");
    // The stream closes: the last subscriber is gone.
    drop(stream);
    assert_eq!(
        next(&mut told).await,
        ("feed://3".into(), Subscription::Ended)
    );
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_resource_that_appears_after_its_subscription_starts_its_hook() {
    let (tx, mut told) = mpsc::unbounded_channel();
    let registry = Arc::new(ToolRegistry::new());
    let http = McpServer::new(Executor::builder(Arc::clone(&registry)).build())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    let client = connect(&http).await;
    // Nothing there yet (a mount not refreshed yet): accepted, nobody to tell.
    client
        .subscribe(SubscribeRequestParams::new("feed://late"))
        .await
        .unwrap();
    assert!(told.try_recv().is_err());
    // The resource appears: its hook is told for the waiting subscriber.
    registry.register_resource(feed(tx)).unwrap();
    assert_eq!(
        next(&mut told).await,
        ("feed://late".into(), Subscription::Started)
    );
    client
        .unsubscribe(UnsubscribeRequestParams::new("feed://late"))
        .await
        .unwrap();
    assert_eq!(
        next(&mut told).await,
        ("feed://late".into(), Subscription::Ended)
    );
    client.cancel().await.unwrap();
    http.shutdown();
}
