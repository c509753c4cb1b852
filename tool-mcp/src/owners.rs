//! Who owns which MCP session, here and in a shared session store, and the per-caller
//! shares (sessions, calls in flight) of an authenticated server.
//!
//! The authentication middleware runs the rest of each request inside [`REQUEST_OWNER`], the
//! [`Principal::owner`](crate::Principal::owner) of its token. The session manager records
//! the owner of every session it makes or restores; [`OwnedStore`] writes it into the
//! session's entry of the shared store (in the stored `initialize` parameters' `_meta`,
//! under [`OWNER_META_KEY`], so any [`SessionStore`] keeps it with the session), and reads it
//! back for a replica that does not hold the session, before the request reaches rmcp.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

tokio::task_local! {
    /// The owner of the request being handled (set by the authentication middleware).
    pub(crate) static REQUEST_OWNER: String;
}

/// The owner of the request being handled, when it was authenticated.
pub(crate) fn request_owner() -> Option<String> {
    REQUEST_OWNER.try_with(Clone::clone).ok()
}

/// Where a session's owner is kept in its stored state: a key of the stored `initialize`
/// parameters' `_meta`. Whatever a client sent under this key is replaced.
pub(crate) const OWNER_META_KEY: &str = "dev.toolbox/sessionOwner";

/// Counts of requests refused by a limit, for `/metrics` (`mcp_refusals_total`).
#[derive(Debug, Default)]
pub(crate) struct Refusals {
    /// Connections over `max_connections`.
    pub(crate) connections: AtomicU64,
    /// Sessions over the server's `max_sessions`.
    pub(crate) sessions: AtomicU64,
    /// Sessions over one caller's `max_sessions_per_principal`.
    pub(crate) principal_sessions: AtomicU64,
    /// Tool calls over one caller's `max_calls_per_principal` (only callers authenticated
    /// with the `auth` feature have a share; `/metrics`, feature `metrics`, reads the count).
    #[cfg_attr(not(any(feature = "auth", feature = "metrics")), allow(dead_code))]
    pub(crate) principal_calls: AtomicU64,
    // Shares of the HTTP pools (connections, listen streams) and slow bodies.
    /// Connections over one peer address's `max_connections_per_address`.
    pub(crate) address_connections: AtomicU64,
    /// Requests on a connection over one caller's `max_connections_per_principal`.
    #[cfg_attr(not(any(feature = "auth", feature = "metrics")), allow(dead_code))]
    pub(crate) principal_connections: AtomicU64,
    /// Connections closed to make room for another caller's (not a refusal of the
    /// newcomer: its connection was taken).
    pub(crate) evicted_connections: AtomicU64,
    /// `subscriptions/listen` streams over one caller's `max_listen_streams_per_caller`.
    pub(crate) listen_streams: AtomicU64,
    /// Request bodies that did not arrive within `body_read_timeout`.
    pub(crate) body_timeouts: AtomicU64,
    /// Sessions over one peer address's `max_sessions_per_address` (without
    /// authentication).
    pub(crate) address_sessions: AtomicU64,
}

impl Refusals {
    pub(crate) fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Connections refused at accept so far, for the log's back-off.
    pub(crate) fn refused_connections(&self) -> u64 {
        self.connections.load(Ordering::Relaxed) + self.address_connections.load(Ordering::Relaxed)
    }

    /// `(reason, count)` for each kind of refusal.
    #[cfg(feature = "metrics")]
    pub(crate) fn snapshot(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("connections", self.connections.load(Ordering::Relaxed)),
            ("sessions", self.sessions.load(Ordering::Relaxed)),
            (
                "principal_sessions",
                self.principal_sessions.load(Ordering::Relaxed),
            ),
            (
                "principal_calls",
                self.principal_calls.load(Ordering::Relaxed),
            ),
            // The HTTP pools' shares.
            (
                "address_connections",
                self.address_connections.load(Ordering::Relaxed),
            ),
            (
                "principal_connections",
                self.principal_connections.load(Ordering::Relaxed),
            ),
            (
                "evicted_connections",
                self.evicted_connections.load(Ordering::Relaxed),
            ),
            (
                "listen_streams",
                self.listen_streams.load(Ordering::Relaxed),
            ),
            ("body_timeout", self.body_timeouts.load(Ordering::Relaxed)),
            (
                "address_sessions",
                self.address_sessions.load(Ordering::Relaxed),
            ),
        ]
    }
}

/// What the owner check found for a session id.
#[cfg(feature = "auth")]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// The session belongs to the caller.
    Own,
    /// The session belongs to someone else.
    Foreign,
    /// The session exists (in the store) but has no recorded owner: opened without a token,
    /// or by a version that did not record owners.
    Unowned,
    /// The session is neither here nor in the store (rmcp answers `404`).
    Unknown,
}

/// The owners of sessions: those this process holds, and the shared store for the others.
#[derive(Default)]
pub(crate) struct SessionOwners {
    local: Mutex<HashMap<String, String>>,
    /// Where the owners of sessions held by other replicas are read (by the owner check of
    /// authenticated requests).
    #[cfg(feature = "auth")]
    store: Option<Arc<OwnedStore>>,
}

impl SessionOwners {
    #[cfg(feature = "auth")]
    pub(crate) fn new(store: Option<Arc<OwnedStore>>) -> Self {
        SessionOwners {
            local: Mutex::default(),
            store,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.local
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records that `session` belongs to `owner` here.
    pub(crate) fn record(&self, session: &str, owner: String) {
        self.lock().insert(session.to_owned(), owner);
    }

    /// Forgets `session` here (it was closed).
    pub(crate) fn forget(&self, session: &str) {
        self.lock().remove(session);
    }

    /// Whether `owner` may use `session`: the owner recorded here, else the one stored with
    /// the session in the shared store.
    ///
    /// # Errors
    ///
    /// When the store cannot be read.
    #[cfg(feature = "auth")]
    pub(crate) async fn check(
        &self,
        session: &str,
        owner: &str,
    ) -> Result<Ownership, SessionStoreError> {
        let recorded = self.lock().get(session).cloned();
        if let Some(recorded) = recorded {
            return Ok(if recorded == owner {
                Ownership::Own
            } else {
                Ownership::Foreign
            });
        }
        let Some(store) = &self.store else {
            return Ok(Ownership::Unknown);
        };
        match store.load_with_owner(session).await? {
            None => Ok(Ownership::Unknown),
            Some((_, None)) => Ok(Ownership::Unowned),
            // Recorded here when rmcp restores the session (by the session manager), not now:
            // a request that never restores it leaves nothing behind.
            Some((_, Some(stored))) if stored == owner => Ok(Ownership::Own),
            Some(_) => Ok(Ownership::Foreign),
        }
    }
}

/// A [`SessionStore`] that keeps each session's owner with its state: the owner of the
/// request that stores it ([`REQUEST_OWNER`]) goes into the stored `initialize` parameters'
/// `_meta` under [`OWNER_META_KEY`], and is taken out again when rmcp loads the state to
/// restore the session.
pub(crate) struct OwnedStore {
    inner: Arc<dyn SessionStore>,
}

impl OwnedStore {
    pub(crate) fn new(inner: Arc<dyn SessionStore>) -> Self {
        OwnedStore { inner }
    }

    /// The state without the owner, and the owner.
    pub(crate) async fn load_with_owner(
        &self,
        session: &str,
    ) -> Result<Option<(SessionState, Option<String>)>, SessionStoreError> {
        let Some(mut state) = self.inner.load(session).await? else {
            return Ok(None);
        };
        let owner = match &mut state.initialize_params.meta {
            Some(meta) => {
                let owner = meta.0.0.remove(OWNER_META_KEY);
                if meta.0.0.is_empty() {
                    state.initialize_params.meta = None;
                }
                owner.and_then(|owner| owner.as_str().map(str::to_owned))
            }
            None => None,
        };
        Ok(Some((state, owner)))
    }
}

#[async_trait::async_trait]
impl SessionStore for OwnedStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        Ok(self
            .load_with_owner(session_id)
            .await?
            .map(|(state, _)| state))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let mut state = state.clone();
        let meta = state
            .initialize_params
            .meta
            .get_or_insert_with(Default::default);
        match request_owner() {
            Some(owner) => {
                meta.0
                    .0
                    .insert(OWNER_META_KEY.to_owned(), serde_json::Value::String(owner));
            }
            None => {
                meta.0.0.remove(OWNER_META_KEY);
            }
        }
        if meta.0.0.is_empty() {
            state.initialize_params.meta = None;
        }
        self.inner.store(session_id, &state).await
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.inner.delete(session_id).await
    }
}

/// Calls in flight per owner, under a limit each.
#[cfg(feature = "auth")]
#[derive(Debug)]
pub(crate) struct CallShares {
    max: usize,
    running: Mutex<HashMap<String, usize>>,
    refusals: Arc<Refusals>,
}

#[cfg(feature = "auth")]
impl CallShares {
    pub(crate) fn new(max: usize, refusals: Arc<Refusals>) -> Self {
        CallShares {
            max,
            running: Mutex::default(),
            refusals,
        }
    }

    pub(crate) fn max(&self) -> usize {
        self.max
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A slot for one call of `owner`, or `None` (counted) when it has `max` running.
    pub(crate) fn enter(self: &Arc<Self>, owner: &str) -> Option<CallShareGuard> {
        let mut running = self.lock();
        let count = running.entry(owner.to_owned()).or_insert(0);
        if *count >= self.max {
            drop(running);
            Refusals::count(&self.refusals.principal_calls);
            return None;
        }
        *count += 1;
        Some(CallShareGuard {
            shares: Arc::clone(self),
            owner: owner.to_owned(),
        })
    }
}

/// One call's slot in its owner's share, until dropped.
#[cfg(feature = "auth")]
#[derive(Debug)]
pub(crate) struct CallShareGuard {
    shares: Arc<CallShares>,
    owner: String,
}

#[cfg(feature = "auth")]
impl Drop for CallShareGuard {
    fn drop(&mut self) {
        let mut running = self.shares.lock();
        if let Some(count) = running.get_mut(&self.owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                running.remove(&self.owner);
            }
        }
    }
}

/// The caller's share of calls in flight, put in each authenticated request's extensions.
#[cfg(feature = "auth")]
#[derive(Debug, Clone)]
pub(crate) struct CallShare {
    pub(crate) owner: String,
    pub(crate) shares: Arc<CallShares>,
}

#[cfg(all(test, feature = "auth"))]
mod tests {
    use super::*;

    #[test]
    fn each_owner_has_its_own_share_of_calls() {
        let refusals = Arc::new(Refusals::default());
        let shares = Arc::new(CallShares::new(2, Arc::clone(&refusals)));
        let a1 = shares.enter("a").unwrap();
        let _a2 = shares.enter("a").unwrap();
        assert!(shares.enter("a").is_none());
        let _b1 = shares.enter("b").unwrap();
        drop(a1);
        assert!(shares.enter("a").is_some());
        assert_eq!(refusals.principal_calls.load(Ordering::Relaxed), 1);
    }
}
