//! `resources/subscribe` (the handshake-era revisions): which session wants
//! `notifications/resources/updated` for which URI, and the pool those subscriptions are.
//!
//! A subscription is memory a client chooses to make the server keep, so it is a pool like
//! any other (ARCHITECTURE's pool invariant): at most `max_per_session` URIs per session,
//! and at most `max_per_principal` over every session of one caller; over either, the
//! subscription is refused at once, naming the limit and its value. A closed session's
//! subscriptions leave both counts when its server value is dropped.
//!
//! A well-formed URI that names nothing (yet) is accepted and counted like any other: a
//! resource may appear later (a mount's refresh), and a URI the caller may not read answers
//! exactly as an unknown one (no existence leak). An update goes to a session only when its
//! caller may read the URI at the time of the update.
//!
//! The resource's subscription hook (`ResourceBuilder::on_subscribe`) is told when a URI
//! gains its first subscriber that may read it and after it loses its last subscriber, over
//! every session of the server (a mounted upstream is subscribed once per URI); a URI
//! subscribed before its resource appeared starts the hook when it appears. A URI's
//! transitions are serialised by a gate of its own, so a slow hook holds up only its URI.
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
use toolwright_core::{Resource, Subscription};
use toolwright_runtime::ToolRegistry;
use toolwright_runtime::registry::{ChangeKind, Primitive};

/// URIs one session may subscribe to, unless the server is told otherwise.
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION: usize = 256;

/// URIs one caller may subscribe to over all its sessions, unless told otherwise.
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_PRINCIPAL: usize = 1024;

/// The resource a session's caller may read at a URI now, if any (checked at each update,
/// and when resources appear).
pub(crate) type MayRead = Arc<dyn Fn(&str) -> Option<Resource> + Send + Sync>;

/// Who subscribes: its caller (whose share it counts in), how it is told, and what it may
/// read.
pub(crate) struct Subscriber<'a> {
    /// The caller's pool key.
    pub(crate) owner: &'a str,
    /// The session's peer.
    pub(crate) peer: Peer<RoleServer>,
    /// Checked at each update.
    pub(crate) may_read: MayRead,
}

/// Why a subscription was refused: which pool is full, or the resource said no.
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
    /// The resource's subscription hook refused (or failed): nothing would send updates.
    #[error("the resource `{uri}` cannot be watched now: {reason}; read it again instead")]
    Hook {
        /// The URI.
        uri: String,
        /// What the hook said.
        reason: String,
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
    may_read: Option<MayRead>,
    uris: HashSet<String>,
    /// Subscriptions reserved while their hook runs (counted against the session's limit).
    pending: usize,
}

impl SessionSubscriptions {
    fn lock(&self) -> MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for SessionSubscriptions {
    fn drop(&mut self) {
        let state = std::mem::take(&mut *self.lock());
        let Some(hub) = self.hub.upgrade() else {
            return;
        };
        if let Some(owner) = &state.owner {
            hub.release(owner, state.uris.len());
        }
        if state.uris.is_empty() {
            return;
        }
        // Forget this session's URIs now (else each URI ever watched stays in `by_uri`);
        // only a URI whose hook was started needs the async leave that tells it `Ended`.
        let hooked = hub.forget(&state.uris);
        if hooked.is_empty() {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    for uri in hooked {
                        hub.leave(&uri).await;
                    }
                });
            }
            Err(_) => tracing::warn!(
                uris = hooked.len(),
                "a session closed outside a runtime: its resources' subscription hooks are \
                 not told"
            ),
        }
    }
}

/// Who watches one URI.
#[derive(Default)]
struct Watched {
    /// The sessions subscribed (entries of closed sessions are dropped when seen).
    sessions: Vec<Weak<SessionSubscriptions>>,
    /// The resource whose hook was told `Started` for this URI (told `Ended` after the last
    /// subscriber leaves).
    hooked: Option<Resource>,
}

/// Every session's subscriptions, over every clone of a server.
pub(crate) struct SubscriptionHub {
    max_per_session: usize,
    max_per_principal: usize,
    state: Mutex<HubState>,
}

#[derive(Default)]
struct HubState {
    /// Whether a task that starts the hooks of resources that appeared is due.
    rehook_due: bool,
    /// Whether the task that listens to the registry runs (started by the first subscription).
    started: bool,
    /// Who is subscribed to each URI.
    by_uri: HashMap<String, Watched>,
    /// One gate per URI in transition (subscribe, unsubscribe, a session's close).
    gates: HashMap<String, Arc<tokio::sync::Mutex<()>>>,
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

/// Runs a hook in a task of its own: a panic becomes a refusal, not a crash.
async fn run_hook(resource: &Resource, uri: &str, change: Subscription) -> Result<(), String> {
    let Some(hook) = resource.subscription_changed(uri, change) else {
        return Ok(());
    };
    match tokio::spawn(hook).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(joined) if joined.is_panic() => Err("its subscription hook panicked".to_owned()),
        Err(_) => Err("its subscription hook was cancelled".to_owned()),
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

    /// Drops the closed sessions' entries of `uris`, and a URI nobody watches any more
    /// unless its hook was started: those are returned, for [`Self::leave`] to end in turn.
    fn forget(&self, uris: &HashSet<String>) -> Vec<String> {
        let mut state = self.lock();
        let mut hooked = Vec::new();
        for uri in uris {
            if let Some(watched) = state.by_uri.get_mut(uri) {
                watched.sessions.retain(|weak| weak.strong_count() > 0);
                if watched.sessions.is_empty() {
                    if watched.hooked.is_some() {
                        hooked.push(uri.clone());
                    } else {
                        state.by_uri.remove(uri);
                    }
                }
            }
        }
        hooked
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

    /// `uri`'s gate (created when none is open).
    fn gate(&self, uri: &str) -> Arc<tokio::sync::Mutex<()>> {
        Arc::clone(self.lock().gates.entry(uri.to_owned()).or_default())
    }

    /// Drops `uri`'s gate when nobody else holds or waits on it.
    fn close_gate(&self, uri: &str, gate: Arc<tokio::sync::Mutex<()>>) {
        let mut state = self.lock();
        // Ours and the map's: nobody else waits.
        if Arc::strong_count(&gate) <= 2 {
            state.gates.remove(uri);
        }
    }

    /// Subscribes `session` (of `owner`, told through `peer`, reading what `may_read` says)
    /// to `uri`; `readable` is the resource the caller may read there, if any (whose hook
    /// is told when it is the URI's first such subscriber). Subscribing again to a URI it
    /// has is a no-op.
    pub(crate) async fn subscribe(
        self: &Arc<Self>,
        registry: &Arc<ToolRegistry>,
        session: &Arc<SessionSubscriptions>,
        subscriber: Subscriber<'_>,
        uri: &str,
        readable: Option<Resource>,
    ) -> Result<(), SubscribeRefused> {
        let gate = self.gate(uri);
        let turn = gate.lock().await;
        let subscribed = self
            .subscribe_in_turn(registry, session, subscriber, uri, readable)
            .await;
        drop(turn);
        self.close_gate(uri, gate);
        subscribed
    }

    async fn subscribe_in_turn(
        self: &Arc<Self>,
        registry: &Arc<ToolRegistry>,
        session: &Arc<SessionSubscriptions>,
        subscriber: Subscriber<'_>,
        uri: &str,
        readable: Option<Resource>,
    ) -> Result<(), SubscribeRefused> {
        let Subscriber {
            owner,
            peer,
            may_read,
        } = subscriber;
        // Reserve a place in both pools (lock order: the session, then the hub, as `Drop`).
        let hook = {
            let mut mine = session.lock();
            if mine.uris.contains(uri) {
                return Ok(());
            }
            if mine.uris.len() + mine.pending >= self.max_per_session {
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
            mine.pending += 1;
            let hooked = state
                .by_uri
                .get(uri)
                .is_some_and(|watched| watched.hooked.is_some());
            readable.filter(|resource| !hooked && resource.has_subscription_hook())
        };
        // The first subscriber that may read the URI: the hook subscribes where updates
        // come from; its refusal is this subscription's (the caller may read it: no leak).
        if let Some(resource) = &hook
            && let Err(reason) = run_hook(resource, uri, Subscription::Started).await
        {
            session.lock().pending -= 1;
            self.release(owner, 1);
            tracing::warn!(uri, %reason, "a resource's subscription hook refused");
            return Err(SubscribeRefused::Hook {
                uri: toolwright_names::escape::escape(uri).into_owned(),
                reason,
            });
        }
        let mut mine = session.lock();
        mine.pending -= 1;
        // A session's owner is its first subscriber's (a session belongs to one caller).
        mine.owner.get_or_insert_with(|| owner.to_owned());
        mine.peer = Some(peer);
        mine.may_read = Some(may_read);
        mine.uris.insert(uri.to_owned());
        let mut state = self.lock();
        let watched = state.by_uri.entry(uri.to_owned()).or_default();
        watched.sessions.retain(|weak| weak.strong_count() > 0);
        watched.sessions.push(Arc::downgrade(session));
        if hook.is_some() {
            watched.hooked = hook;
        }
        if !state.started {
            state.started = true;
            let changes = registry.subscribe_changes();
            tokio::spawn(Arc::clone(self).run(changes));
        }
        Ok(())
    }

    /// The subscriptions of a `subscriptions/listen` stream (2026-07-28), held while the
    /// stream lasts: each of `uris` (with the resource its caller may read there) counts
    /// as a subscriber for the hooks, in the caller's share. The stream sends its own
    /// updates, so these are never told through a peer. A refusal (a full share, a hook's
    /// no) is logged: the stream was already accepted, it just hears nothing of that URI.
    pub(crate) async fn hold_for_stream(
        self: &Arc<Self>,
        registry: &Arc<ToolRegistry>,
        owner: &str,
        peer: Peer<RoleServer>,
        uris: Vec<(String, Resource)>,
    ) -> Arc<SessionSubscriptions> {
        let held = self.session();
        let never: MayRead = Arc::new(|_| None);
        for (uri, resource) in uris {
            let subscribed = self
                .subscribe(
                    registry,
                    &held,
                    Subscriber {
                        owner,
                        peer: peer.clone(),
                        may_read: Arc::clone(&never),
                    },
                    &uri,
                    Some(resource),
                )
                .await;
            if let Err(refused) = subscribed {
                tracing::warn!(%refused, "a listen stream's resource is not watched");
            }
        }
        held
    }

    /// Unsubscribes `session` from `uri` (a URI it has not subscribed to is a no-op).
    pub(crate) async fn unsubscribe(&self, session: &Arc<SessionSubscriptions>, uri: &str) {
        let gate = self.gate(uri);
        let turn = gate.lock().await;
        // Under the gate: a subscription of the same URI in flight is before or after this.
        let owner = {
            let mut mine = session.lock();
            mine.uris.remove(uri).then(|| mine.owner.clone())
        };
        if let Some(owner) = owner {
            if let Some(owner) = owner {
                self.release(&owner, 1);
            }
            self.leave_in_turn(uri, Some(session)).await;
        }
        drop(turn);
        self.close_gate(uri, gate);
    }

    /// A closed session's `uri`: its watcher entry goes, and the hook is told if it was the
    /// last.
    async fn leave(&self, uri: &str) {
        let gate = self.gate(uri);
        let turn = gate.lock().await;
        self.leave_in_turn(uri, None).await;
        drop(turn);
        self.close_gate(uri, gate);
    }

    /// Drops `session` (or closed sessions only, for `None`) from `uri`'s watchers; when
    /// none is left, the hook that was told `Started` is told `Ended` (a failure logged).
    /// Called under `uri`'s gate.
    async fn leave_in_turn(&self, uri: &str, session: Option<&Arc<SessionSubscriptions>>) {
        let ended = {
            let mut state = self.lock();
            match state.by_uri.get_mut(uri) {
                None => None,
                Some(watched) => {
                    watched.sessions.retain(|weak| {
                        weak.upgrade()
                            .is_some_and(|other| session.is_none_or(|s| !Arc::ptr_eq(&other, s)))
                    });
                    if watched.sessions.is_empty() {
                        state.by_uri.remove(uri).and_then(|watched| watched.hooked)
                    } else {
                        None
                    }
                }
            }
        };
        if let Some(resource) = ended
            && let Err(reason) = run_hook(&resource, uri, Subscription::Ended).await
        {
            tracing::warn!(uri, %reason, "a resource's subscription hook failed to end");
        }
    }

    /// The sessions to tell that `uri` changed: open, still subscribed, and whose caller
    /// may read it now.
    fn peers_for(&self, uri: &str) -> Vec<Peer<RoleServer>> {
        let watchers: Vec<Arc<SessionSubscriptions>> = {
            let state = self.lock();
            let Some(watched) = state.by_uri.get(uri) else {
                return Vec::new();
            };
            watched.sessions.iter().filter_map(Weak::upgrade).collect()
        };
        watchers
            .iter()
            .filter_map(|session| {
                let (peer, may_read) = {
                    let state = session.lock();
                    if !state.uris.contains(uri) {
                        return None;
                    }
                    (state.peer.clone()?, state.may_read.clone()?)
                };
                (!peer.is_transport_closed() && may_read(uri).is_some()).then_some(peer)
            })
            .collect()
    }

    /// Schedules [`rehook`](Self::rehook), once for any number of changes at once.
    fn rehook_soon(self: &Arc<Self>) {
        let mut state = self.lock();
        if !state.rehook_due {
            state.rehook_due = true;
            tokio::spawn(Arc::clone(self).rehook());
        }
    }

    /// Resources appeared (a mount's refresh, a registration): each watched URI whose hook
    /// was never started starts it now, for its first subscriber that may read it. A
    /// refusal is logged (the subscription was accepted before).
    async fn rehook(self: Arc<Self>) {
        let unhooked: Vec<String> = {
            let mut state = self.lock();
            state.rehook_due = false;
            state
                .by_uri
                .iter()
                .filter(|(_, watched)| watched.hooked.is_none())
                .map(|(uri, _)| uri.clone())
                .collect()
        };
        for uri in unhooked {
            let gate = self.gate(&uri);
            let turn = gate.lock().await;
            let sessions: Vec<Arc<SessionSubscriptions>> = match self.lock().by_uri.get(&uri) {
                Some(watched) if watched.hooked.is_none() => {
                    watched.sessions.iter().filter_map(Weak::upgrade).collect()
                }
                _ => Vec::new(),
            };
            let resource = sessions.iter().find_map(|session| {
                let may_read = session.lock().may_read.clone()?;
                may_read(&uri).filter(Resource::has_subscription_hook)
            });
            if let Some(resource) = resource {
                match run_hook(&resource, &uri, Subscription::Started).await {
                    Ok(()) => {
                        if let Some(watched) = self.lock().by_uri.get_mut(&uri) {
                            watched.hooked = Some(resource);
                        }
                    }
                    Err(reason) => {
                        tracing::warn!(uri, %reason, "a resource's subscription hook refused")
                    }
                }
            }
            drop(turn);
            self.close_gate(&uri, gate);
        }
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
                    None => {
                        if change.primitive == Primitive::Resource
                            && matches!(
                                change.kind,
                                ChangeKind::Added | ChangeKind::Enabled | ChangeKind::Replaced
                            )
                        {
                            self.rehook_soon();
                        }
                        continue;
                    }
                },
                // Missed updates cannot be named again; the next ones still go out.
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(
                        missed,
                        "resource update notifications were missed (too many changes at once)"
                    );
                    self.rehook_soon();
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
