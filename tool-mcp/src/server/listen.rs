//! `subscriptions/listen` (MCP 2026-07-28, SEP-2575): how a client without a session hears
//! that the tools it may see changed.
//!
//! A client of the handshake-era revisions gets `notifications/tools/list_changed` on its
//! session once it sent `initialized` (`McpServer::on_initialized`). A client of the
//! 2026-07-28 revision has no session: it opens a `subscriptions/listen` request, and the
//! notifications it asked for ride that request's stream, each tagged with the request's
//! id. rmcp sends the acknowledgment, keeps notifications the client did not ask for off
//! the stream and ends it when the client cancels; this module accepts the tools category
//! (the only list the server has) and sends a change when one concerns the client.

use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter, ToolListChangedNotification};
use rmcp::service::SubscriptionContext;
use tokio::sync::broadcast::error::RecvError;
use toolwright_runtime::{ToolFilter, ToolRegistry};

/// The part of `requested` the server serves: tool list changes, and nothing else (no
/// prompts, no resources).
pub(crate) fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    if requested.tools_list_changed == Some(true) {
        SubscriptionFilter::builder().tools_list_changed().build()
    } else {
        SubscriptionFilter::new()
    }
}

/// Sends `notifications/tools/list_changed` on `subscription`'s stream whenever a change
/// in `registry` concerns the tools `visible` lets the client see (`None`: the client may
/// see none, so nothing is sent), until the client cancels the subscription or the stream
/// closes.
pub(crate) async fn tool_changes(
    registry: &ToolRegistry,
    visible: Option<ToolFilter>,
    subscription: SubscriptionContext,
) {
    let wanted = subscription.accepted().tools_list_changed == Some(true);
    let Some(visible) = visible.filter(|_| wanted) else {
        subscription.cancelled().await;
        return;
    };
    let mut changes = registry.subscribe_changes();
    let sink = subscription.sink().clone();
    loop {
        tokio::select! {
            () = subscription.cancelled() => return,
            change = changes.recv() => {
                let concerns = match change {
                    Ok(change) => change.concerns(&visible),
                    // Missed changes may have concerned this client.
                    Err(RecvError::Lagged(_)) => true,
                    Err(RecvError::Closed) => {
                        subscription.cancelled().await;
                        return;
                    }
                };
                let notification = ServerNotification::ToolListChangedNotification(
                    ToolListChangedNotification::default(),
                );
                if concerns && sink.send(notification).await.is_err() {
                    // The subscription ended, or its stream is gone.
                    return;
                }
            }
            // A closed stream is noticed even while nothing changes.
            () = tokio::time::sleep(Duration::from_secs(10)) => {
                if subscription.request_context().peer.is_transport_closed() {
                    return;
                }
            }
        }
    }
}
