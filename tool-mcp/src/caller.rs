//! Who made a request, read from what the HTTP layers left in its extensions: the
//! authenticated [`Principal`], its share of calls in flight, and the highest safety level it
//! may use. Read by the server's handlers and by the tasks extension alike.

use rmcp::ErrorData as McpError;
use toolwright_runtime::SafetyLevel;

use crate::Principal;

/// Who made the request, when the HTTP server authenticated it: rmcp puts the request's
/// `http::request::Parts` in the context's extensions, and the authentication middleware put
/// the [`Principal`] in the extensions of those parts.
pub(crate) fn principal(extensions: &rmcp::model::Extensions) -> Option<&Principal> {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>())
}

/// The caller's share of calls in flight, put there by the authentication middleware.
pub(crate) fn call_share(
    extensions: &rmcp::model::Extensions,
) -> Option<&crate::owners::CallShare> {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<crate::owners::CallShare>())
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
