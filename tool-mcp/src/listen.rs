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

/// Open `subscriptions/listen` streams per caller (token, or peer address without
/// authentication), under a share each: every stream holds a connection and a task.
#[cfg(feature = "http")]
pub(crate) struct ListenShares {
    max: usize,
    open: std::sync::Mutex<std::collections::HashMap<crate::conn::Holder, usize>>,
    refusals: std::sync::Arc<crate::owners::Refusals>,
}

#[cfg(feature = "http")]
impl ListenShares {
    pub(crate) fn new(max: usize, refusals: std::sync::Arc<crate::owners::Refusals>) -> Self {
        ListenShares {
            max,
            open: std::sync::Mutex::default(),
            refusals,
        }
    }

    pub(crate) fn max(&self) -> usize {
        self.max
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<crate::conn::Holder, usize>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A slot for one stream of `holder`, or `None` (counted) when it has its share open.
    pub(crate) fn enter(
        self: &std::sync::Arc<Self>,
        holder: crate::conn::Holder,
    ) -> Option<ListenSlot> {
        let mut open = self.lock();
        let count = open.entry(holder.clone()).or_insert(0);
        if *count >= self.max {
            drop(open);
            crate::owners::Refusals::count(&self.refusals.listen_streams);
            return None;
        }
        *count += 1;
        Some(ListenSlot {
            shares: std::sync::Arc::clone(self),
            holder,
        })
    }

    /// Callers with a stream open (the table holds no entry for a caller without one).
    #[cfg(test)]
    fn callers(&self) -> usize {
        self.lock().len()
    }

    /// Streams open now.
    #[cfg(feature = "metrics")]
    pub(crate) fn open(&self) -> usize {
        self.lock().values().sum()
    }
}

/// One stream's slot in its caller's share, until dropped (with the stream's answer).
#[cfg(feature = "http")]
pub(crate) struct ListenSlot {
    shares: std::sync::Arc<ListenShares>,
    holder: crate::conn::Holder,
}

#[cfg(feature = "http")]
impl Drop for ListenSlot {
    fn drop(&mut self) {
        let mut open = self.shares.lock();
        if let Some(count) = open.get_mut(&self.holder) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.holder);
            }
        }
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::conn::Holder;
    use crate::owners::Refusals;

    #[test]
    fn each_caller_has_its_share_of_streams_and_closed_ones_leave_nothing() {
        let refusals = Arc::new(Refusals::default());
        let shares = Arc::new(ListenShares::new(2, Arc::clone(&refusals)));
        let a = Holder::Principal("a".to_owned());
        let first = shares.enter(a.clone()).unwrap();
        let _second = shares.enter(a.clone()).unwrap();
        assert!(shares.enter(a.clone()).is_none());
        let b = shares
            .enter(Holder::Address([127, 0, 0, 1].into()))
            .unwrap();
        drop(first);
        assert!(shares.enter(a).is_some());
        assert_eq!(refusals.listen_streams.load(Ordering::Relaxed), 1);
        drop(b);
        drop(_second);
        assert_eq!(shares.callers(), 0);
    }
}
