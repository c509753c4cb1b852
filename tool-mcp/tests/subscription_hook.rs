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
