//! `subscriptions/listen` (MCP 2026-07-28, SEP-2575): how a client without a session hears
//! that the tools it may see changed.
//!
//! A client of the handshake-era revisions gets `notifications/tools/list_changed` on its
//! session once it sent `initialized` (`McpServer::on_initialized`). A client of the
//! 2026-07-28 revision has no session: it opens a `subscriptions/listen` request, and the
//! notifications it asked for ride that request's stream, each tagged with the request's
//! id. rmcp sends the acknowledgment, keeps notifications the client did not ask for off
//! the stream and ends it when the client cancels; this module accepts the list changes of
//! tools, prompts and resources, and updates of at most the per-session number of resource
//! URIs (a stream's subscriptions are a pool like a session's), and sends each change that
//! concerns the client.

use std::collections::HashSet;
use std::time::Duration;

use rmcp::model::{
    PromptListChangedNotification, ResourceListChangedNotification, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParam, ServerNotification, SubscriptionFilter,
    ToolListChangedNotification,
};
use rmcp::service::SubscriptionContext;
use tokio::sync::broadcast::error::RecvError;
use toolwright_runtime::registry::{Primitive, RegistryChange};
use toolwright_runtime::{ToolFilter, ToolRegistry};

/// The part of `requested` the server serves: list changes of tools, prompts and
/// resources, and updates of the first `max_uris` resource URIs asked for.
pub(crate) fn accepted(requested: &SubscriptionFilter, max_uris: usize) -> SubscriptionFilter {
    let mut accepted = SubscriptionFilter::new();
    accepted.tools_list_changed = requested.tools_list_changed.filter(|&on| on);
    accepted.prompts_list_changed = requested.prompts_list_changed.filter(|&on| on);
    accepted.resources_list_changed = requested.resources_list_changed.filter(|&on| on);
    accepted.resource_subscriptions = requested
        .resource_subscriptions
        .as_ref()
        .map(|uris| uris.iter().take(max_uris).cloned().collect::<Vec<_>>())
        .filter(|uris| !uris.is_empty());
    accepted
}

/// The notification a change is, for a client that accepted `filter`, may see what
/// `visible` lets it (`None`: nothing of the registry's lists) and may read `readable`.
fn notification_for(
    change: Option<&RegistryChange>,
    filter: &SubscriptionFilter,
    visible: Option<&ToolFilter>,
    readable: &HashSet<String>,
) -> Vec<ServerNotification> {
    let on = |flag: Option<bool>| flag == Some(true);
    let Some(change) = change else {
        // Missed changes may have concerned this client: every list it follows changed.
        let mut all = Vec::new();
        if visible.is_some() && on(filter.tools_list_changed) {
            all.push(ServerNotification::ToolListChangedNotification(
                ToolListChangedNotification::default(),
            ));
        }
        if visible.is_some() && on(filter.prompts_list_changed) {
            all.push(ServerNotification::PromptListChangedNotification(
                PromptListChangedNotification::default(),
            ));
        }
        if visible.is_some() && on(filter.resources_list_changed) {
            all.push(ServerNotification::ResourceListChangedNotification(
                ResourceListChangedNotification::default(),
            ));
        }
        return all;
    };
    if let Some(uri) = crate::server::watch::updated_uri(change) {
        return if readable.contains(uri) {
            vec![ServerNotification::ResourceUpdatedNotification(
                ResourceUpdatedNotification::new(ResourceUpdatedNotificationParam::new(uri)),
            )]
        } else {
            Vec::new()
        };
    }
    let Some(visible) = visible else {
        return Vec::new();
    };
    if !change.concerns(visible) {
        return Vec::new();
    }
    let notification = match change.primitive {
        Primitive::Tool if on(filter.tools_list_changed) => {
            ServerNotification::ToolListChangedNotification(ToolListChangedNotification::default())
        }
        Primitive::Prompt if on(filter.prompts_list_changed) => {
            ServerNotification::PromptListChangedNotification(
                PromptListChangedNotification::default(),
            )
        }
        Primitive::Resource if on(filter.resources_list_changed) => {
            ServerNotification::ResourceListChangedNotification(
                ResourceListChangedNotification::default(),
            )
        }
        _ => return Vec::new(),
    };
    vec![notification]
}

/// Sends the notifications `subscription` accepted on its stream (list changes that
/// concern what `visible` lets the client see, `None`: no list; updates of the resources
/// it named and may read, `readable`), until the client cancels the subscription or the
/// stream closes.
pub(crate) async fn tool_changes(
    registry: &ToolRegistry,
    visible: Option<ToolFilter>,
    readable: HashSet<String>,
    subscription: SubscriptionContext,
) {
    let filter = subscription.accepted().clone();
    let wants_lists = filter.tools_list_changed == Some(true)
        || filter.prompts_list_changed == Some(true)
        || filter.resources_list_changed == Some(true);
    let wants_updates = !readable.is_empty();
    if !(wants_updates || wants_lists && visible.is_some()) {
        subscription.cancelled().await;
        return;
    }
    let mut changes = registry.subscribe_changes();
    let sink = subscription.sink().clone();
    loop {
        tokio::select! {
            () = subscription.cancelled() => return,
            change = changes.recv() => {
                let notifications = match change {
                    Ok(change) => {
                        notification_for(Some(&change), &filter, visible.as_ref(), &readable)
                    }
                    Err(RecvError::Lagged(_)) => {
                        notification_for(None, &filter, visible.as_ref(), &readable)
                    }
                    Err(RecvError::Closed) => {
                        subscription.cancelled().await;
                        return;
                    }
                };
                for notification in notifications {
                    if sink.send(notification).await.is_err() {
                        // The subscription ended, or its stream is gone.
                        return;
                    }
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
