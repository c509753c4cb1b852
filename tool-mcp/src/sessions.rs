//! Sessions with a limit: rmcp's in-memory session manager, counted.
//!
//! rmcp answers a failed `create_session` with `500`; the middleware here runs each request
//! to `/mcp` with a flag the manager raises when it refuses a session for the limit, and turns
//! that answer into `503` with a message that says so.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
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

use crate::auth::SessionOwners;

tokio::task_local! {
    /// Raised when this request was refused a session because of the limit.
    static REFUSED_FOR_LIMIT: Arc<AtomicBool>;
}

/// Why a session could not be made or used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionError {
    #[error(
        "this server already has its maximum of {max} open sessions; close a session (HTTP \
         DELETE with its Mcp-Session-Id) or try again later"
    )]
    Limit { max: usize },
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// rmcp's [`LocalSessionManager`] with a limit on open sessions, and a count that goes down
/// when a session ends for any reason (closed by the client, idle for too long, its worker
/// failed, the server shutting down).
pub(crate) struct LimitedSessionManager {
    inner: LocalSessionManager,
    max: usize,
    open: Mutex<Open>,
    owners: Arc<SessionOwners>,
}

#[derive(Default)]
struct Open {
    /// Sessions made and not yet closed.
    ids: HashSet<SessionId>,
    /// Slots taken by sessions being made (their id is not known yet).
    reserved: usize,
}

impl LimitedSessionManager {
    pub(crate) fn new(inner: LocalSessionManager, max: usize, owners: Arc<SessionOwners>) -> Self {
        LimitedSessionManager {
            inner,
            max,
            open: Mutex::default(),
            owners,
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

    /// Takes a slot, or says why not.
    fn reserve(&self) -> Result<(), SessionError> {
        let mut open = self.lock();
        if open.ids.len() + open.reserved >= self.max {
            drop(open);
            let _ = REFUSED_FOR_LIMIT.try_with(|flag| flag.store(true, Ordering::Relaxed));
            tracing::warn!(
                max = self.max,
                "refused a new MCP session: the limit is reached"
            );
            return Err(SessionError::Limit { max: self.max });
        }
        open.reserved += 1;
        Ok(())
    }

    /// Turns a reserved slot into `id`'s (or gives it back when `id` is `None`).
    fn settle(&self, id: Option<&SessionId>) {
        let mut open = self.lock();
        open.reserved = open.reserved.saturating_sub(1);
        if let Some(id) = id {
            open.ids.insert(id.clone());
        }
    }
}

impl SessionManager for LimitedSessionManager {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.reserve()?;
        match self.inner.create_session().await {
            Ok((id, transport)) => {
                self.settle(Some(&id));
                Ok((id, transport))
            }
            Err(error) => {
                self.settle(None);
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
        // ending): the set counts it once.
        if self.lock().ids.remove(id) {
            tracing::debug!(session = %id, "MCP session closed");
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
        self.reserve()?;
        match self.inner.restore_session(id.clone()).await {
            Ok(RestoreOutcome::Restored(transport)) => {
                self.settle(Some(&id));
                Ok(RestoreOutcome::Restored(transport))
            }
            Ok(other) => {
                self.settle(None);
                Ok(other)
            }
            Err(error) => {
                self.settle(None);
                Err(error.into())
            }
        }
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

/// The middleware in front of `/mcp` that turns rmcp's `500` for a session refused because
/// of the limit into `503` with the reason.
pub(crate) async fn limit_answers(
    State(max): State<usize>,
    request: Request,
    next: Next,
) -> Response {
    let refused = Arc::new(AtomicBool::new(false));
    let response = REFUSED_FOR_LIMIT
        .scope(Arc::clone(&refused), next.run(request))
        .await;
    if !refused.load(Ordering::Relaxed) {
        return response;
    }
    let mut response = (
        StatusCode::SERVICE_UNAVAILABLE,
        format!("{}\n", SessionError::Limit { max }),
    )
        .into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, axum::http::HeaderValue::from_static("5"));
    response
}
