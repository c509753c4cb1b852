//! Who made a request, read from what the HTTP layers left in its extensions: the
//! authenticated [`Principal`], its share of calls in flight, and the highest safety level it
//! may use. Read by the server's handlers and by the tasks extension alike.
//!
//! Only the HTTP server with authentication (feature `auth`) puts a caller there; without it
//! every request (stdio, or HTTP without authentication) comes from the local user: no
//! principal, no share, every safety level the executor allows.

use rmcp::ErrorData as McpError;
use toolwright_core::SafetyLevel;

use crate::principal::Principal;

/// Who made the request, when the HTTP server authenticated it: rmcp puts the request's
/// `http::request::Parts` in the context's extensions, and the authentication middleware put
/// the [`Principal`] in the extensions of those parts.
#[cfg(feature = "auth")]
pub(crate) fn principal(extensions: &rmcp::model::Extensions) -> Option<&Principal> {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>())
}

/// Who made the request: without authentication (feature `auth`), no one but the local user.
#[cfg(not(feature = "auth"))]
pub(crate) fn principal(_extensions: &rmcp::model::Extensions) -> Option<&Principal> {
    None
}

/// Who made the request, for the executor's [`CallOptions::caller`](toolwright_runtime::CallOptions::caller):
/// the authenticated principal's subject and the bearer token it presented (which the
/// executor gives only to a tool that asked for it: a gateway's upstream that exchanges it).
#[cfg(feature = "auth")]
pub(crate) fn caller(extensions: &rmcp::model::Extensions) -> Option<toolwright_core::Caller> {
    let parts = extensions.get::<axum::http::request::Parts>()?;
    let principal = parts.extensions.get::<Principal>()?;
    let caller = toolwright_core::Caller::new(principal.subject());
    // The token the middleware authenticated: `Authorization: Bearer <token>`.
    let token = parts
        .headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|token| !token.is_empty());
    Some(match token {
        Some(token) => caller.with_token(toolwright_core::CallerToken::new(token)),
        None => caller,
    })
}

/// Who made the request: without authentication (feature `auth`), the local user.
#[cfg(not(feature = "auth"))]
pub(crate) fn caller(_extensions: &rmcp::model::Extensions) -> Option<toolwright_core::Caller> {
    None
}

/// A call's slot in its caller's share of calls in flight, held while the call runs.
#[cfg(feature = "auth")]
pub(crate) type ShareSlot = crate::owners::CallShareGuard;

/// A call's slot in its caller's share of calls in flight: without authentication there are
/// no shares, so there is never one.
#[cfg(not(feature = "auth"))]
pub(crate) enum ShareSlot {}

/// The caller's share of calls in flight, kept to take a slot in it later: when a task's
/// call is resumed after its approval, long after the request that made it.
#[cfg(feature = "auth")]
#[derive(Clone, Default)]
pub(crate) struct ShareTicket(Option<crate::owners::CallShare>);

/// The caller's share of calls in flight: without authentication there are no shares.
#[cfg(not(feature = "auth"))]
#[derive(Clone, Default)]
pub(crate) struct ShareTicket;

/// The share of the request's caller (put in the request's extensions by the
/// authentication middleware), to enter now or later.
#[cfg(feature = "auth")]
pub(crate) fn share_ticket(extensions: &rmcp::model::Extensions) -> ShareTicket {
    ShareTicket(
        extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::owners::CallShare>())
            .cloned(),
    )
}

/// The share of the request's caller: without authentication, none.
#[cfg(not(feature = "auth"))]
pub(crate) fn share_ticket(_extensions: &rmcp::model::Extensions) -> ShareTicket {
    ShareTicket
}

impl ShareTicket {
    /// A slot in the share, `None` for a caller without one.
    ///
    /// # Errors
    ///
    /// When the caller has its share of calls running: the call is refused at once (never
    /// left waiting), naming the share, so one token cannot take every slot of the executor.
    #[cfg(feature = "auth")]
    pub(crate) fn enter(&self) -> Result<Option<ShareSlot>, McpError> {
        let Some(share) = &self.0 else {
            return Ok(None);
        };
        match share.shares.enter(&share.owner) {
            Some(guard) => Ok(Some(guard)),
            None => {
                tracing::warn!(
                    max = share.shares.max(),
                    "refused a tool call: the caller has its share of calls in flight"
                );
                Err(McpError::new(
                    rmcp::model::ErrorCode(-32000),
                    format!(
                        "your access token already has {} tool calls running on this server, \
                         its share (`max_calls_per_principal`); wait for one to finish, then \
                         call again",
                        share.shares.max()
                    ),
                    None,
                ))
            }
        }
    }

    /// A slot in the share: without authentication no caller has one.
    #[cfg(not(feature = "auth"))]
    #[allow(clippy::unnecessary_wraps, clippy::unused_self)] // the signature of the `auth` build
    pub(crate) fn enter(&self) -> Result<Option<ShareSlot>, McpError> {
        Ok(None)
    }
}

/// A slot in the caller's share of calls in flight, `None` for a caller without a share.
///
/// # Errors
///
/// When the caller has its share of calls running ([`ShareTicket::enter`]).
pub(crate) fn enter_share(
    extensions: &rmcp::model::Extensions,
) -> Result<Option<ShareSlot>, McpError> {
    share_ticket(extensions).enter()
}

/// The owner of tasks created by callers that were not authenticated (stdio, or HTTP
/// without authentication): they share one namespace, and a task's unguessable id is what
/// keeps it to whoever created it.
pub const ANONYMOUS_OWNER: &str = "anonymous";
// (Defined here, where every call's owner is decided; `tasks` re-exports it.)

/// Whose the caller's tasks, waiting approvals and used request states are: its
/// [`Principal::owner`], or, for a caller that was not authenticated (stdio, HTTP without
/// authentication), the local user's [`ANONYMOUS_OWNER`].
pub(crate) fn owner(principal: Option<&Principal>) -> &str {
    principal.map_or(ANONYMOUS_OWNER, Principal::owner)
}

/// The highest safety level the caller may use: its token's, or every level for a caller
/// that was not authenticated (stdio, or HTTP without authentication).
pub(crate) fn ceiling(principal: Option<&Principal>) -> Result<SafetyLevel, McpError> {
    match principal {
        None => Ok(SafetyLevel::Dangerous),
        Some(principal) => principal.max_safety().ok_or_else(|| {
            McpError::invalid_request(
                format!(
                    "the access token of `{}` grants no tools: it needs one of the scopes \
                     tools:safe, tools:cautious or tools:dangerous",
                    principal.subject()
                ),
                None,
            )
        }),
    }
}
