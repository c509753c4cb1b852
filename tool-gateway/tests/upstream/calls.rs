//! Calls through a mount: content of every kind passes through; cancellation reaches the
//! upstream and its progress comes back.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolwright_core::{CancellationToken, Content};
use toolwright_gateway::upstream::{MountOptions, MountUpstream};
use toolwright_runtime::{CallOptions, ToolRegistry};

use crate::support::{PNG, Paging, Raw, approving, call, connect, standard_tools, within};

#[tokio::test]
async fn content_passes_through() {
    let (raw, _events) = Raw::new(standard_tools(), Paging::Pages(4));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    within("mount", registry.mount(&upstream, MountOptions::new("c")))
        .await
        .unwrap();
    let executor = approving(&registry);
    let result = within(
        "structured",
        executor.execute(call("c_structured", json!({}))),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"temperature": 21})));

    let result = within("image", executor.execute(call("c_image", json!({})))).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.blocks.len(), 3);
    match &result.blocks[0] {
        Content::Image(image) => {
            assert_eq!(image.data, PNG);
            assert_eq!(image.mime_type, "image/png");
        }
        other => panic!("not an image: {other:?}"),
    }
    assert!(
        matches!(&result.blocks[1], Content::ResourceLink(link) if link.uri == "file:///a.txt")
    );
    assert!(matches!(&result.blocks[2], Content::Resource(r) if r.uri == "file:///b.txt"));

    let result = within("failing", executor.execute(call("c_failing", json!({})))).await;
    assert!(!result.success);
    assert!(
        result
            .error
            .as_deref()
            .unwrap()
            .contains("upstream says no"),
        "{result:?}"
    );
}

#[tokio::test]
async fn cancellation_reaches_the_upstream_and_progress_comes_back() {
    let (raw, mut events) = Raw::new(standard_tools(), Paging::Pages(100));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    within("mount", registry.mount(&upstream, MountOptions::new("p")))
        .await
        .unwrap();
    let executor = approving(&registry);

    let token = CancellationToken::new();
    let running = tokio::spawn({
        let executor = executor.clone();
        let token = token.clone();
        async move {
            executor
                .execute_with(
                    call("p_slow", json!({})),
                    CallOptions::new().cancellation(token),
                )
                .await
        }
    });
    assert_eq!(
        within("the slow tool starts", events.recv()).await,
        Some("slow started")
    );
    token.cancel();
    assert_eq!(
        within("the upstream sees the cancellation", events.recv()).await,
        Some("slow cancelled")
    );
    let report = within("the call ends", running).await.unwrap();
    assert!(!report.result.success);

    let progress = Arc::new(Mutex::new(Vec::new()));
    let report = within(
        "progress",
        executor.execute_with(
            call("p_progress", json!({})),
            CallOptions::new().progress({
                let progress = progress.clone();
                move |p| progress.lock().unwrap().push(p)
            }),
        ),
    )
    .await;
    assert!(report.result.success, "{:?}", report.result);
    let progress = progress.lock().unwrap();
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert_eq!(progress[0].progress, 1.0);
    assert_eq!(progress[0].total, Some(2.0));
    assert_eq!(progress[0].message.as_deref(), Some("half way"));
}
