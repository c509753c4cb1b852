//! Counts of things in progress (tool calls, requests) that can be waited on: what the HTTP
//! server's drain waits for.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// A count of things in progress that can be waited on until it is zero. Clones share it.
///
/// Entered and left on every request and every call, from every worker thread: two atomic
/// additions, and a wake only when the count reaches zero while a drain waits (a
/// `watch` channel took a lock and woke its waiters at each step).
#[derive(Clone, Debug, Default)]
pub(crate) struct InFlight(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    count: AtomicUsize,
    /// Callers of `idle` waiting now: a guard that ends the count wakes them only then.
    waiting: AtomicUsize,
    idle: Notify,
}

impl InFlight {
    pub(crate) fn enter(&self) -> InFlightGuard {
        self.0.count.fetch_add(1, Ordering::SeqCst);
        InFlightGuard(Arc::clone(&self.0))
    }

    #[cfg(feature = "http")]
    pub(crate) fn count(&self) -> usize {
        self.0.count.load(Ordering::SeqCst)
    }

    /// Returns once nothing is in progress.
    #[cfg(feature = "http")]
    pub(crate) async fn idle(&self) {
        // Registered as waiting before the count is read: a guard that brings it to zero
        // after the read sees the waiter and wakes it (both orders are sequentially
        // consistent).
        self.0.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.0);
        loop {
            let woken = self.0.idle.notified();
            let mut woken = std::pin::pin!(woken);
            woken.as_mut().enable();
            if self.0.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            woken.await;
        }
    }
}

/// One caller of `idle`, until it returns or is dropped.
#[cfg(feature = "http")]
struct Waiting<'a>(&'a Shared);

#[cfg(feature = "http")]
impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One thing in progress, until dropped.
#[derive(Debug)]
pub(crate) struct InFlightGuard(Arc<Shared>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        let before = self.0.count.fetch_sub(1, Ordering::SeqCst);
        if before == 1 && self.0.waiting.load(Ordering::SeqCst) > 0 {
            self.0.idle.notify_waiters();
        }
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
