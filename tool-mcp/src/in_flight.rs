//! Counts of things in progress (tool calls, requests) that can be waited on: what the HTTP
//! server's drain waits for.

use std::sync::Arc;

use tokio::sync::watch;

/// A count of things in progress that can be waited on until it is zero. Clones share it.
#[derive(Clone, Debug)]
pub(crate) struct InFlight(Arc<watch::Sender<usize>>);

impl Default for InFlight {
    fn default() -> Self {
        InFlight(Arc::new(watch::Sender::new(0)))
    }
}

impl InFlight {
    pub(crate) fn enter(&self) -> InFlightGuard {
        self.0.send_modify(|count| *count += 1);
        InFlightGuard(Arc::clone(&self.0))
    }

    #[cfg(feature = "http")]
    pub(crate) fn count(&self) -> usize {
        *self.0.borrow()
    }

    /// Returns once nothing is in progress.
    #[cfg(feature = "http")]
    pub(crate) async fn idle(&self) {
        let mut receiver = self.0.subscribe();
        // The sender lives in `self`: `wait_for` cannot fail while we hold it.
        let _ = receiver.wait_for(|count| *count == 0).await;
    }
}

/// One thing in progress, until dropped.
#[derive(Debug)]
pub(crate) struct InFlightGuard(Arc<watch::Sender<usize>>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.send_modify(|count| *count = count.saturating_sub(1));
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn in_flight_counts_until_the_guards_drop() {
        let in_flight = InFlight::default();
        let first = in_flight.enter();
        let second = in_flight.clone().enter();
        assert_eq!(in_flight.count(), 2);
        drop(first);
        let waiter = tokio::spawn({
            let in_flight = in_flight.clone();
            async move { in_flight.idle().await }
        });
        drop(second);
        waiter.await.unwrap();
        assert_eq!(in_flight.count(), 0);
    }
}
