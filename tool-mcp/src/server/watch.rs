//! `notifications/{tools,prompts,resources}/list_changed` for every session of a server
//! from one task: a
//! session registers its peer and its ceiling, and the server's one watcher of the
//! registry tells each open session whose tools changed. A session costs an entry in a
//! list, not a task of its own with a timer (what an idle session holds is what rmcp's
//! session holds, plus this entry).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::RoleServer;
use rmcp::service::Peer;
use tokio::sync::broadcast::error::RecvError;
use toolwright_core::SafetyLevel;
use toolwright_runtime::registry::{ChangeKind, Primitive, RegistryChange};
use toolwright_runtime::{ToolFilter, ToolRegistry};

/// The sessions to tell, shared by every clone of a server.
#[derive(Default)]
pub(crate) struct ListWatch {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Whether the watcher task runs (started by the first session).
    started: bool,
    /// Each session's peer and the highest safety level it may see.
    sessions: Vec<(Peer<RoleServer>, SafetyLevel)>,
    /// Sessions after the last sweep of closed ones: the next sweep comes when the list has
    /// doubled, so sweeping costs O(1) per session and closed sessions are not kept.
    swept: usize,
}

impl ListWatch {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells `peer` about changes to the tools at or under `ceiling`, for as long as it is
    /// connected. Starts the watcher on the first session (on the caller's runtime).
    pub(crate) fn add(
        self: &Arc<Self>,
        registry: &Arc<ToolRegistry>,
        peer: Peer<RoleServer>,
        ceiling: SafetyLevel,
    ) {
        let mut state = self.lock();
        if state.sessions.len() >= 2 * state.swept.max(16) {
            state
                .sessions
                .retain(|(peer, _)| !peer.is_transport_closed());
            state.swept = state.sessions.len();
        }
        state.sessions.push((peer, ceiling));
        if !state.started {
            state.started = true;
            let changes = registry.subscribe_changes();
            tokio::spawn(Arc::clone(self).run(changes));
        }
    }

    /// The watcher: on each change, each open session it concerns is told (each in a task of
    /// its own, so a client that does not read cannot hold up the others). Ends with the
    /// registry.
    async fn run(self: Arc<Self>, mut changes: tokio::sync::broadcast::Receiver<RegistryChange>) {
        loop {
            let change = match changes.recv().await {
                // A resource's update goes to its subscribers (`subscriptions.rs`), and a
                // skill is listed by `skills/list`, which has no list_changed.
                Ok(change)
                    if updated_uri(&change).is_some() || change.primitive == Primitive::Skill =>
                {
                    continue;
                }
                Ok(change) => Some(change),
                // Missed changes may have concerned every session.
                Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => break,
            };
            let told: Vec<Peer<RoleServer>> = {
                let mut state = self.lock();
                state
                    .sessions
                    .retain(|(peer, _)| !peer.is_transport_closed());
                state.swept = state.sessions.len();
                state
                    .sessions
                    .iter()
                    .filter(|(_, ceiling)| {
                        change.as_ref().is_none_or(|change| {
                            change.concerns(&ToolFilter::new().max_safety(*ceiling))
                        })
                    })
                    .map(|(peer, _)| peer.clone())
                    .collect()
            };
            let primitive = change.as_ref().map(|change| change.primitive);
            for peer in told {
                tokio::spawn(async move {
                    // Missed changes (no change known): every list may have changed.
                    if primitive.is_none_or(|p| p == Primitive::Tool) {
                        let _ = peer.notify_tool_list_changed().await;
                    }
                    if primitive.is_none_or(|p| p == Primitive::Prompt) {
                        let _ = peer.notify_prompt_list_changed().await;
                    }
                    if primitive.is_none_or(|p| p == Primitive::Resource) {
                        let _ = peer.notify_resource_list_changed().await;
                    }
                });
            }
        }
        self.lock().started = false;
    }
}

/// The URI a change says was updated (`ToolRegistry::notify_resource_updated`): what
/// subscribers of that URI are told. `None` for every other change.
pub(crate) fn updated_uri(change: &RegistryChange) -> Option<&str> {
    (change.kind == ChangeKind::Updated && change.primitive == Primitive::Resource)
        .then_some(change.name.as_str())
}
