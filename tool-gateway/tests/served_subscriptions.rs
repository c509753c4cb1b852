//! A mounted upstream's resource subscribed to through `McpServer`: our client's
//! `resources/subscribe` of a mounted URI subscribes upstream once (the resource's
//! subscription hook), the upstream's `resources/updated` reaches our client under the
//! mounted URI, and the last unsubscribe unsubscribes upstream. No sleeps: every wait has a
//! generous deadline that fails the test.

// `resources/subscribe` is legacy-only in rmcp (the 2026-07-28 revision listens instead).
#![allow(deprecated)]

#[path = "support/library.rs"]
mod library;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use library::{Library, connect, updated};
use rmcp::model::{
    ResourceUpdatedNotificationParam, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use toolwright_gateway::upstream::{MountOptions, MountUpstream};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

/// Our client: records the updates it hears.
#[derive(Clone, Default)]
struct Watcher {
    updated: Arc<Mutex<Vec<String>>>,
    told: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Watcher {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
        self.told.notify_one();
    }
}

async fn client(url: &str, watcher: Watcher) -> RunningService<RoleClient, Watcher> {
    within(
        "connect",
        watcher.serve(StreamableHttpClientTransport::from_uri(url.to_owned())),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_mounted_resources_subscription_is_forwarded_once_and_its_updates_come_back() {
    let (library, mut events) = Library::new();
    let upstream = connect(library.clone()).await;
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let http = McpServer::new(Executor::builder(Arc::clone(&registry)).build())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    let url = http.url().to_string();
    let watcher = Watcher::default();
    let first = client(&url, watcher.clone()).await;
    let second = client(&url, Watcher::default()).await;

    within(
        "subscribe",
        first.subscribe(SubscribeRequestParams::new("lib+demo://static/2")),
    )
    .await
    .unwrap();
    // The upstream is subscribed under its own URI (before our client's answer).
    assert_eq!(
        within("the upstream's event", events.recv()).await.unwrap(),
        "subscribe demo://static/2"
    );
    // A second session subscribes to the same URI: the upstream is not asked again.
    within(
        "subscribe again",
        second.subscribe(SubscribeRequestParams::new("lib+demo://static/2")),
    )
    .await
    .unwrap();
    assert!(
        events.try_recv().is_err(),
        "the upstream was subscribed twice"
    );

    // The upstream's update reaches our client under the mounted URI.
    updated(&library, "demo://static/2").await;
    within("the update", watcher.told.notified()).await;
    assert_eq!(*watcher.updated.lock().unwrap(), ["lib+demo://static/2"]);

    // The first leaves: the second still subscribes, the upstream is not told.
    within(
        "unsubscribe",
        first.unsubscribe(UnsubscribeRequestParams::new("lib+demo://static/2")),
    )
    .await
    .unwrap();
    assert!(
        events.try_recv().is_err(),
        "unsubscribed with a subscriber left"
    );
    // The last leaves: the upstream is unsubscribed (before our client's answer).
    within(
        "unsubscribe the last",
        second.unsubscribe(UnsubscribeRequestParams::new("lib+demo://static/2")),
    )
    .await
    .unwrap();
    assert_eq!(
        within("the upstream's event", events.recv()).await.unwrap(),
        "unsubscribe demo://static/2"
    );
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_uri_the_mount_does_not_have_subscribes_as_an_unknown_one_and_is_not_forwarded() {
    let (library, mut events) = Library::new();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let http = McpServer::new(Executor::builder(Arc::clone(&registry)).build())
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    let url = http.url().to_string();
    let client = client(&url, Watcher::default()).await;
    // What the conformance suite does: subscribe to a URI of its own; accepted, not forwarded.
    within(
        "subscribe",
        client.subscribe(SubscribeRequestParams::new("test://watched-resource")),
    )
    .await
    .unwrap();
    within(
        "unsubscribe",
        client.unsubscribe(UnsubscribeRequestParams::new("test://watched-resource")),
    )
    .await
    .unwrap();
    assert!(
        events.try_recv().is_err(),
        "forwarded a URI that is not the mount's"
    );
    client.cancel().await.unwrap();
    http.shutdown();
}
