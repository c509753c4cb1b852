//! The server as one session, one stateless request or one call sees it.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use crate::ask::rounds::Round;
use crate::client::{McpClient, SessionLog};
use crate::server::setup::McpServer;

impl McpServer {
    /// The server as one session sees it: shared options and executor, its own log level
    /// and its own counts for per-tool call limits.
    pub(crate) fn for_session(&self) -> McpServer {
        let mut server = self.clone();
        server.log = SessionLog::default();
        server.call_counts = Some(Arc::default());
        server.subscriptions = server.subscription_hub.session();
        server
    }

    /// The server for one stateless request: no session, so call limits count on the
    /// executor (a fresh count per request would be no limit at all).
    #[cfg(feature = "http")]
    pub(crate) fn for_stateless_request(&self) -> McpServer {
        let mut server = self.clone();
        server.log = SessionLog::default();
        server.call_counts = None;
        server.notifies = false;
        server.subscriptions = server.subscription_hub.session();
        server
    }

    /// The client powers of one `tools/call`: the session's peer, with what it declared
    /// (in the handshake, or in the request's `_meta` from a 2026-07-28 client). With a
    /// `round`, questions go to the caller in the call's result instead of as requests.
    pub(crate) fn client_for_call(
        &self,
        context: &RequestContext<RoleServer>,
        round: Option<Arc<Round>>,
    ) -> McpClient {
        McpClient::for_call(context, round, &self.log)
    }
}
