//! Per-tool call limits: how many times a tool may run per executor, or per session when a
//! front end gives each session its own [`CallCounts`].

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// How many times each tool has been run, for per-tool call limits (`#[tool(max_calls =
/// n)]`, [`ExecutorBuilder::max_calls`](crate::executor::ExecutorBuilder::max_calls)). The executor
/// keeps one for all its calls; a front end that serves sessions (an MCP server) gives each
/// session its own with [`CallOptions::call_counts`](crate::executor::CallOptions::call_counts), so
/// the limit is per session.
///
/// A call counts when it is admitted to run (after the policy and approval), so refused
/// calls do not use up the limit.
///
/// ```
/// use toolwright_runtime::executor::CallCounts;
///
/// let counts = CallCounts::new();
/// assert_eq!(counts.count("search"), 0);
/// ```
#[derive(Debug, Default)]
pub struct CallCounts {
    counts: Mutex<HashMap<String, u32>>,
}

impl CallCounts {
    /// No calls counted yet.
    pub fn new() -> Self {
        CallCounts::default()
    }

    /// How many times `tool` has run under these counts.
    pub fn count(&self, tool: &str) -> u32 {
        self.lock().get(tool).copied().unwrap_or(0)
    }

    /// Forgets every count (a new conversation on the same session, say).
    ///
    /// ```
    /// use toolwright_runtime::executor::CallCounts;
    /// let counts = CallCounts::new();
    /// counts.reset();
    /// assert_eq!(counts.count("search"), 0);
    /// ```
    pub fn reset(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, u32>> {
        // Nothing panics while the lock is held.
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts one more run of `tool` unless it already ran `limit` times (then the count so
    /// far). Checked and counted at once, so concurrent calls cannot overshoot.
    pub(super) fn take(&self, tool: &str, limit: u32) -> Result<(), u32> {
        let mut counts = self.lock();
        let count = counts.entry(tool.to_owned()).or_insert(0);
        if *count >= limit {
            return Err(*count);
        }
        *count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn concurrent_takes_never_exceed_the_limit() {
        let counts = Arc::new(CallCounts::new());
        let granted: usize = (0..8)
            .map(|_| {
                let counts = Arc::clone(&counts);
                std::thread::spawn(move || {
                    (0..50).filter(|_| counts.take("t", 100).is_ok()).count()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|thread| thread.join().unwrap())
            .sum();
        assert_eq!(granted, 100);
        assert_eq!(counts.count("t"), 100);
        assert_eq!(counts.take("t", 100), Err(100));
        assert_eq!(counts.count("other"), 0);
    }
}
