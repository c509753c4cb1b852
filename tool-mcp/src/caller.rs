//! Who made a request, read from what the HTTP layers left in its extensions: the
//! authenticated [`Principal`], its share of calls in flight, and the highest safety level it
//! may use. Read by the server's handlers and by the tasks extension alike.
//!
//! Only the HTTP server with authentication (feature `auth`) puts a caller there; without it
//! every request (stdio, or HTTP without authentication) comes from the local user: no
//! principal, no share, every safety level the executor allows.

use rmcp::ErrorData as McpError;
use toolwright_runtime::SafetyLevel;

use crate::Principal;

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

/// A call's slot in its caller's share of calls in flight, held while the call runs.
#[cfg(feature = "auth")]
pub(crate) type ShareSlot = crate::owners::CallShareGuard;

/// A call's slot in its caller's share of calls in flight: without authentication there are
/// no shares, so there is never one.
#[cfg(not(feature = "auth"))]
pub(crate) enum ShareSlot {}

/// A slot in the caller's share of calls in flight (put in the request's extensions by the
/// authentication middleware), `None` for a caller without a share.
///
/// # Errors
///
/// When the caller has its share of calls running: the call is refused at once, so one
/// token cannot take every slot of the executor.
#[cfg(feature = "auth")]
pub(crate) fn enter_share(
    extensions: &rmcp::model::Extensions,
) -> Result<Option<ShareSlot>, McpError> {
    let Some(share) = extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<crate::owners::CallShare>())
    else {
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
                    "your access token already has {} tool calls running on this server, its \
                     share; wait for one to finish, then call again",
                    share.shares.max()
                ),
                None,
            ))
        }
    }
}

/// A slot in the caller's share of calls in flight: without authentication, no caller has a
/// share.
#[cfg(not(feature = "auth"))]
#[allow(clippy::unnecessary_wraps)] // the signature of the `auth` build
pub(crate) fn enter_share(
    _extensions: &rmcp::model::Extensions,
) -> Result<Option<ShareSlot>, McpError> {
    Ok(None)
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
