//! `resources/subscribe` (the handshake-era revisions): which session wants
//! `notifications/resources/updated` for which URI, and the pool those subscriptions are.
//!
//! A subscription is memory a client chooses to make the server keep, so it is a pool like
//! any other (ARCHITECTURE's pool invariant): at most `max_per_session` URIs per session,
//! and at most `max_per_principal` over every session of one caller; over either, the
//! subscription is refused at once, naming the limit and its value. A closed session's
//! subscriptions leave both counts when its server value is dropped.
//!
//! One hub per server tells the sessions: the registry's `notify_resource_updated(uri)`
//! becomes a notification to each open session subscribed to that URI, each in a task of
//! its own (a client that does not read cannot hold up the others).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::Peer;
use tokio::sync::broadcast::error::RecvError;
use toolwright_runtime::ToolRegistry;

/// URIs one session may subscribe to, unless the server is told otherwise.
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION: usize = 256;

/// URIs one caller may subscribe to over all its sessions, unless told otherwise.
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_PRINCIPAL: usize = 1024;

/// Why a subscription was refused: which pool is full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SubscribeRefused {
    /// The session holds its share.
    #[error(
        "this session is subscribed to {max} resources, its limit \
         (`max_subscriptions_per_session`); unsubscribe from one first"
    )]
    Session {
        /// The limit.
        max: usize,
    },
    /// The caller holds its share over its sessions.
    #[error(
        "your sessions are subscribed to {max} resources, your share \
         (`max_subscriptions_per_principal`); unsubscribe from one first"
    )]
    Principal {
        /// The limit.
        max: usize,
    },
}

/// One session's subscriptions; dropped with the session's server value.
pub(crate) struct SessionSubscriptions {
    hub: Weak<SubscriptionHub>,
    state: Mutex<SessionState>,
}

#[derive(Default)]
struct SessionState {
    peer: Option<Peer<RoleServer>>,
    owner: Option<String>,
    uris: HashSet<String>,
}

impl SessionSubscriptions {
    fn lock(&self) -> MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for SessionSubscriptions {
    fn drop(&mut self) {
        let state = std::mem::take(&mut *self.lock());
        if let (Some(hub), Some(owner)) = (self.hub.upgrade(), state.owner) {
            // Forget this session's URIs now: else each URI ever watched stays in `by_uri`.
            hub.forget(&state.uris);
            hub.release(&owner, state.uris.len());
        }
    }
}

/// Every session's subscriptions, over every clone of a server.
pub(crate) struct SubscriptionHub {
    max_per_session: usize,
    max_per_principal: usize,
    state: Mutex<HubState>,
}

#[derive(Default)]
struct HubState {
    /// Whether the task that listens to the registry runs (started by the first subscription).
    started: bool,
    /// Who is subscribed to each URI (entries of closed sessions are dropped when seen).
    by_uri: HashMap<String, Vec<Weak<SessionSubscriptions>>>,
    /// URIs subscribed per caller, over its sessions.
    per_owner: HashMap<String, usize>,
}

impl Default for SubscriptionHub {
    fn default() -> Self {
        SubscriptionHub::new(
            DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
            DEFAULT_MAX_SUBSCRIPTIONS_PER_PRINCIPAL,
        )
    }
}

impl SubscriptionHub {
    /// A hub with these limits (each at least 1).
    pub(crate) fn new(max_per_session: usize, max_per_principal: usize) -> Self {
        SubscriptionHub {
            max_per_session: max_per_session.max(1),
            max_per_principal: max_per_principal.max(1),
            state: Mutex::default(),
        }
    }

    /// The most URIs one session may subscribe to.
    pub(crate) fn max_per_session(&self) -> usize {
        self.max_per_session
    }

    fn lock(&self) -> MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new session's (empty) subscriptions.
    pub(crate) fn session(self: &Arc<Self>) -> Arc<SessionSubscriptions> {
        Arc::new(SessionSubscriptions {
            hub: Arc::downgrade(self),
            state: Mutex::default(),
        })
    }

    /// Drops the closed sessions' entries of `uris` (and a URI nobody watches any more).
    fn forget(&self, uris: &HashSet<String>) {
        let mut state = self.lock();
        for uri in uris {
            if let Some(watchers) = state.by_uri.get_mut(uri) {
                watchers.retain(|weak| weak.strong_count() > 0);
                if watchers.is_empty() {
                    state.by_uri.remove(uri);
                }
            }
        }
    }

    fn release(&self, owner: &str, count: usize) {
        let mut state = self.lock();
        if let Some(held) = state.per_owner.get_mut(owner) {
            *held = held.saturating_sub(count);
            if *held == 0 {
                state.per_owner.remove(owner);
            }
        }
    }

    /// Subscribes `session` (of `owner`, told through `peer`) to `uri`. Subscribing again
    /// to a URI it has is a no-op.
    pub(crate) fn subscribe(
        self: &Arc<Self>,
        registry: &Arc<ToolRegistry>,
        session: &Arc<SessionSubscriptions>,
        owner: &str,
        peer: Peer<RoleServer>,
        uri: &str,
    ) -> Result<(), SubscribeRefused> {
        // Lock order: the session, then the hub (`Drop` takes them one after the other).
        let mut mine = session.lock();
        if mine.uris.contains(uri) {
            return Ok(());
        }
        if mine.uris.len() >= self.max_per_session {
            return Err(SubscribeRefused::Session {
                max: self.max_per_session,
            });
        }
        let mut state = self.lock();
        let held = state.per_owner.entry(owner.to_owned()).or_insert(0);
        if *held >= self.max_per_principal {
            return Err(SubscribeRefused::Principal {
                max: self.max_per_principal,
            });
        }
        *held += 1;
        // A session's owner is its first subscriber's (a session belongs to one caller).
        mine.owner.get_or_insert_with(|| owner.to_owned());
        mine.peer = Some(peer);
        mine.uris.insert(uri.to_owned());
        let watchers = state.by_uri.entry(uri.to_owned()).or_default();
        watchers.retain(|weak| weak.strong_count() > 0);
        watchers.push(Arc::downgrade(session));
        if !state.started {
            state.started = true;
            let changes = registry.subscribe_changes();
            tokio::spawn(Arc::clone(self).run(changes));
        }
        Ok(())
    }

    /// Unsubscribes `session` from `uri` (a URI it has not subscribed to is a no-op).
    pub(crate) fn unsubscribe(&self, session: &Arc<SessionSubscriptions>, uri: &str) {
        let mut mine = session.lock();
        if !mine.uris.remove(uri) {
            return;
        }
        let owner = mine.owner.clone();
        drop(mine);
        let mut state = self.lock();
        if let Some(watchers) = state.by_uri.get_mut(uri) {
            watchers.retain(|weak| {
                weak.upgrade()
                    .is_some_and(|other| !Arc::ptr_eq(&other, session))
            });
            if watchers.is_empty() {
                state.by_uri.remove(uri);
            }
        }
        drop(state);
        if let Some(owner) = owner {
            self.release(&owner, 1);
        }
    }

    /// The sessions to tell that `uri` changed: open, still subscribed.
    fn peers_for(&self, uri: &str) -> Vec<Peer<RoleServer>> {
        let watchers: Vec<Arc<SessionSubscriptions>> = {
            let mut state = self.lock();
            let Some(watchers) = state.by_uri.get_mut(uri) else {
                return Vec::new();
            };
            watchers.retain(|weak| weak.strong_count() > 0);
            let live = watchers.iter().filter_map(Weak::upgrade).collect();
            if watchers.is_empty() {
                state.by_uri.remove(uri);
            }
            live
        };
        watchers
            .iter()
            .filter_map(|session| {
                let state = session.lock();
                state
                    .uris
                    .contains(uri)
                    .then(|| state.peer.clone())
                    .flatten()
                    .filter(|peer| !peer.is_transport_closed())
            })
            .collect()
    }

    /// The watcher: each resource update of the registry goes to its subscribers. Ends
    /// with the registry.
    async fn run(
        self: Arc<Self>,
        mut changes: tokio::sync::broadcast::Receiver<toolwright_runtime::registry::RegistryChange>,
    ) {
        loop {
            let uri = match changes.recv().await {
                Ok(change) => match crate::server::watch::updated_uri(&change) {
                    Some(uri) => uri.to_owned(),
                    None => continue,
                },
                // Missed updates cannot be named again; the next ones still go out.
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(
                        missed,
                        "resource update notifications were missed (too many changes at once)"
                    );
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            for peer in self.peers_for(&uri) {
                let uri = uri.clone();
                tokio::spawn(async move {
                    let _ = peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await;
                });
            }
        }
        self.lock().started = false;
    }
}
