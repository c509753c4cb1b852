//! Each caller's share of the open `subscriptions/listen` streams.

/// Open `subscriptions/listen` streams per caller (token, or peer address without
/// authentication), under a share each: every stream holds a connection and a task.
#[cfg(feature = "http")]
pub(crate) struct ListenShares {
    max: usize,
    open: std::sync::Mutex<std::collections::HashMap<crate::http::pool::Holder, usize>>,
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
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<crate::http::pool::Holder, usize>>
    {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A slot for one stream of `holder`, or `None` (counted) when it has its share open.
    pub(crate) fn enter(
        self: &std::sync::Arc<Self>,
        holder: crate::http::pool::Holder,
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
    holder: crate::http::pool::Holder,
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
    use crate::http::pool::Holder;
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
