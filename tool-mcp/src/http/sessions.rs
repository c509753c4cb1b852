//! Sessions with limits: rmcp's in-memory session manager, counted, in all and per caller.
//!
//! rmcp answers a failed `create_session` with `500`; the middleware here runs each request
//! to `/mcp` with a flag the manager raises when it refuses a session for a limit, and turns
//! that answer into `503` (the server's limit) or `429` (the caller's share) with a message
//! that says so.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::RETRY_AFTER;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

use crate::owners::{Refusals, SessionOwners, request_owner};

/// Values of [`REFUSED_FOR_LIMIT`]: not refused, refused for the server's limit, refused for
/// the caller's share.
const NOT_REFUSED: u8 = 0;
const REFUSED_SERVER: u8 = 1;
const REFUSED_PRINCIPAL: u8 = 2;
const REFUSED_ADDRESS: u8 = 3;

tokio::task_local! {
    /// Set when this request was refused a session because of a limit (a cell in the
    /// request's own task: nothing allocated per request).
    static REFUSED_FOR_LIMIT: Cell<u8>;
    /// The peer address of the request being handled (set by [`limit_answers`]): the share
    /// a session of an unauthenticated request counts against.
    static REQUEST_ADDRESS: std::net::IpAddr;
}

/// Whom a new session counts against: the request's owner (authenticated), else its peer
/// address (marked so that it cannot be taken for an owner).
fn share_key(owner: Option<&String>) -> Option<ShareKey> {
    match owner {
        Some(owner) => Some(ShareKey::Principal(owner.clone())),
        None => REQUEST_ADDRESS.try_with(|ip| ShareKey::Address(*ip)).ok(),
    }
}

/// Who a session's slot in the shares belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum ShareKey {
    Principal(String),
    Address(std::net::IpAddr),
}

/// Why a session could not be made or used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionError {
    #[error(
        "this server already has its maximum of {max} open sessions; close a session (HTTP \
         DELETE with its Mcp-Session-Id) or try again later"
    )]
    Limit { max: usize },
    #[error(
        "your access token already has its share of {max} open sessions on this server; close \
         one of them (HTTP DELETE with its Mcp-Session-Id) or let it expire, then try again"
    )]
    PrincipalLimit { max: usize },
    #[error(
        "your address already has its share of {max} open sessions on this server \
         (max_sessions_per_address = {max}); close one of them (HTTP DELETE with its \
         Mcp-Session-Id) or let it expire, then try again"
    )]
    AddressLimit { max: usize },
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// rmcp's [`LocalSessionManager`] with a limit on open sessions, and a count that goes down
/// when a session ends for any reason (closed by the client, idle for too long, its worker
/// failed, the server shutting down).
/// A session made on behalf of an authenticated caller counts against that caller's share
/// too (`max_per_owner`), so one token cannot take every slot.
pub(crate) struct LimitedSessionManager {
    inner: LocalSessionManager,
    max: usize,
    max_per_owner: usize,
    max_per_address: usize,
    open: Mutex<Open>,
    owners: Arc<SessionOwners>,
    refusals: Arc<Refusals>,
}

#[derive(Default)]
struct Open {
    /// Sessions made and not yet closed, with whom they count against.
    ids: HashMap<SessionId, Option<ShareKey>>,
    /// Slots taken by sessions being made (their id is not known yet).
    reserved: usize,
    /// Sessions (made or being made) per owner, or per address without authentication.
    per_owner: HashMap<ShareKey, usize>,
}

impl Open {
    fn release_owner(&mut self, owner: Option<&ShareKey>) {
        if let Some(owner) = owner
            && let Some(count) = self.per_owner.get_mut(owner)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.per_owner.remove(owner);
            }
        }
    }
}

impl LimitedSessionManager {
    pub(crate) fn new(
        inner: LocalSessionManager,
        max: usize,
        max_per_owner: usize,
        max_per_address: usize,
        owners: Arc<SessionOwners>,
        refusals: Arc<Refusals>,
    ) -> Self {
        LimitedSessionManager {
            inner,
            max,
            max_per_owner,
            max_per_address,
            open: Mutex::default(),
            owners,
            refusals,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Open sessions now.
    pub(crate) fn open_sessions(&self) -> usize {
        let open = self.lock();
        open.ids.len() + open.reserved
    }

    /// Takes a slot for the request's owner (if any), or says why not.
    fn reserve(&self, owner: Option<&ShareKey>) -> Result<(), SessionError> {
        let mut open = self.lock();
        if open.ids.len() + open.reserved >= self.max {
            drop(open);
            let _ = REFUSED_FOR_LIMIT.try_with(|flag| flag.set(REFUSED_SERVER));
            Refusals::count(&self.refusals.sessions);
            tracing::warn!(
                max = self.max,
                "refused a new MCP session: the limit is reached"
            );
            return Err(SessionError::Limit { max: self.max });
        }
        if let Some(key @ ShareKey::Address(_)) = owner {
            let count = open.per_owner.entry(key.clone()).or_insert(0);
            if *count >= self.max_per_address {
                drop(open);
                let _ = REFUSED_FOR_LIMIT.try_with(|flag| flag.set(REFUSED_ADDRESS));
                Refusals::count(&self.refusals.address_sessions);
                tracing::warn!(
                    max = self.max_per_address,
                    "refused a new MCP session: the address has its share of sessions"
                );
                return Err(SessionError::AddressLimit {
                    max: self.max_per_address,
                });
            }
            *count += 1;
        } else if let Some(owner) = owner {
            let count = open.per_owner.entry(owner.clone()).or_insert(0);
            if *count >= self.max_per_owner {
                drop(open);
                let _ = REFUSED_FOR_LIMIT.try_with(|flag| flag.set(REFUSED_PRINCIPAL));
                Refusals::count(&self.refusals.principal_sessions);
                tracing::warn!(
                    max = self.max_per_owner,
                    "refused a new MCP session: the caller has its share of sessions"
                );
                return Err(SessionError::PrincipalLimit {
                    max: self.max_per_owner,
                });
            }
            *count += 1;
        }
        open.reserved += 1;
        Ok(())
    }

    /// Turns a reserved slot into `id`'s (or gives it back when `id` is `None`).
    fn settle(&self, id: Option<&SessionId>, owner: Option<String>, key: Option<ShareKey>) {
        let mut open = self.lock();
        open.reserved = open.reserved.saturating_sub(1);
        match id {
            Some(id) => {
                if let Some(owner) = owner {
                    self.owners.record(id, owner);
                }
                // A session already counted (restored twice) keeps one slot.
                if let Some(Some(previous)) = open.ids.insert(id.clone(), key) {
                    open.release_owner(Some(&previous));
                }
            }
            None => open.release_owner(key.as_ref()),
        }
    }
}

impl SessionManager for LimitedSessionManager {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let owner = request_owner();
        let key = share_key(owner.as_ref());
        self.reserve(key.as_ref())?;
        match self.inner.create_session().await {
            Ok((id, transport)) => {
                self.settle(Some(&id), owner, key);
                Ok((id, transport))
            }
            Err(error) => {
                self.settle(None, owner, key);
                Err(error.into())
            }
        }
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let result = self.inner.close_session(id).await;
        // rmcp closes a session twice when a client ends it (the DELETE, then its worker
        // ending): the map counts it once.
        {
            let mut open = self.lock();
            if let Some(owner) = open.ids.remove(id) {
                open.release_owner(owner.as_ref());
                tracing::debug!(session = %id, "MCP session closed");
            }
        }
        self.owners.forget(id);
        Ok(result?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let owner = request_owner();
        let key = share_key(owner.as_ref());
        self.reserve(key.as_ref())?;
        match self.inner.restore_session(id.clone()).await {
            Ok(RestoreOutcome::Restored(transport)) => {
                self.settle(Some(&id), owner, key);
                Ok(RestoreOutcome::Restored(transport))
            }
            Ok(other) => {
                self.settle(None, owner, key);
                Ok(other)
            }
            Err(error) => {
                self.settle(None, owner, key);
                Err(error.into())
            }
        }
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

/// The limits [`limit_answers`] names in its answers: the server's, and a caller's share.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionLimits {
    pub(crate) max: usize,
    pub(crate) max_per_principal: usize,
    pub(crate) max_per_address: usize,
}

/// The middleware in front of `/mcp` that turns rmcp's `500` for a session refused because
/// of a limit into `503` (the server is full) or `429` (the caller has its share) with the
/// reason.
pub(crate) async fn limit_answers(
    State(limits): State<SessionLimits>,
    request: Request,
    next: Next,
) -> Response {
    let address = request
        .extensions()
        .get::<crate::http::pool::ConnHandle>()
        .map(crate::http::pool::ConnHandle::peer);
    let run = next.run(request);
    // The flag is read back from the finished scope.
    let (response, refused) = match address {
        Some(address) => {
            let scoped = REFUSED_FOR_LIMIT
                .scope(Cell::new(NOT_REFUSED), REQUEST_ADDRESS.scope(address, run));
            let mut scoped = std::pin::pin!(scoped);
            let response = scoped.as_mut().await;
            (response, scoped.as_mut().take_value())
        }
        None => {
            let scoped = REFUSED_FOR_LIMIT.scope(Cell::new(NOT_REFUSED), run);
            let mut scoped = std::pin::pin!(scoped);
            let response = scoped.as_mut().await;
            (response, scoped.as_mut().take_value())
        }
    };
    let (status, error) = match refused.map_or(NOT_REFUSED, Cell::into_inner) {
        REFUSED_SERVER => (
            StatusCode::SERVICE_UNAVAILABLE,
            SessionError::Limit { max: limits.max },
        ),
        REFUSED_PRINCIPAL => (
            StatusCode::TOO_MANY_REQUESTS,
            SessionError::PrincipalLimit {
                max: limits.max_per_principal,
            },
        ),
        REFUSED_ADDRESS => (
            StatusCode::TOO_MANY_REQUESTS,
            SessionError::AddressLimit {
                max: limits.max_per_address,
            },
        ),
        _ => return response,
    };
    let mut response = (status, format!("{error}\n")).into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, axum::http::HeaderValue::from_static("5"));
    response
}
