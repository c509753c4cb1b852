//! The HTTP layers of authentication: the bearer token read and checked for every request
//! to `/mcp` (a `401` or `403` with its `WWW-Authenticate` challenge otherwise), and the
//! RFC 9728 protected resource metadata.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::config::AuthConfig;
use super::rules::{ALL_SCOPES, quoted};
use crate::owners::{CallShare, CallShares, Ownership, REQUEST_OWNER, SessionOwners};
use crate::principal::{SCOPE_CAUTIOUS, SCOPE_DANGEROUS, SCOPE_SAFE};

/// The HTTP header rmcp gives a session's id in.
pub(super) const SESSION_HEADER: &str = "mcp-session-id";

/// What the authentication middleware needs.
pub(crate) struct AuthState {
    pub(crate) config: AuthConfig,
    /// The resource identifier (RFC 9728 `resource`).
    pub(crate) resource: String,
    /// Where the metadata document is, for `WWW-Authenticate`.
    pub(crate) metadata_url: String,
    /// Who owns which session, here and in the shared store.
    pub(crate) owners: Arc<SessionOwners>,
    /// Each caller's share of calls in flight.
    pub(crate) calls: Arc<CallShares>,
}

impl AuthState {
    /// The RFC 9728 protected resource metadata.
    pub(crate) fn metadata(&self) -> serde_json::Value {
        let mut metadata = serde_json::json!({
            "resource": self.resource,
            "bearer_methods_supported": ["header"],
            "scopes_supported": ALL_SCOPES,
        });
        if let Some(issuer) = self.config.issuer() {
            metadata["authorization_servers"] = serde_json::json!([issuer]);
        }
        metadata
    }

    pub(super) fn challenge(&self, error: Option<(&str, &str)>) -> HeaderValue {
        let mut value = String::from("Bearer");
        if let Some((code, description)) = error {
            value.push_str(&format!(
                " error=\"{code}\", error_description=\"{}\",",
                quoted(description)
            ));
            if code == "insufficient_scope" {
                value.push_str(&format!(
                    " scope=\"{SCOPE_SAFE} {SCOPE_CAUTIOUS} {SCOPE_DANGEROUS}\","
                ));
            }
        }
        value.push_str(&format!(
            " resource_metadata=\"{}\"",
            quoted(&self.metadata_url)
        ));
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    fn refuse(&self, status: StatusCode, error: Option<(&str, &str)>, message: String) -> Response {
        let mut response = (status, message).into_response();
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, self.challenge(error));
        response
    }
}

/// The bearer token of a request, if it has one.
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// The middleware in front of `/mcp`: authenticates, checks the scopes, keeps sessions to
/// their owner, and hands the [`Principal`] to the MCP handler in the request's extensions.
pub(crate) async fn authenticate(
    State(state): State<Arc<AuthState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let Some(token) = bearer(request.headers()) else {
        return state.refuse(
            StatusCode::UNAUTHORIZED,
            None,
            format!(
                "this MCP server needs an access token: send `Authorization: Bearer <token>` \
                 (how to get one: {})\n",
                state.metadata_url
            ),
        );
    };
    let principal = match state.config.verify(token).await {
        Ok(principal) => principal,
        Err(rejected) => {
            tracing::info!(reason = %rejected, "refused a request with an invalid token");
            return state.refuse(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", &rejected.to_string())),
                format!("invalid access token: {rejected}; get a new token and try again\n"),
            );
        }
    };
    if principal.max_safety().is_none() {
        tracing::info!(
            subject = principal.subject(),
            "refused a token without a tools scope"
        );
        return state.refuse(
            StatusCode::FORBIDDEN,
            Some((
                "insufficient_scope",
                "the token grants none of tools:safe, tools:cautious, tools:dangerous",
            )),
            format!(
                "the token of `{}` grants no tools: it needs one of the scopes {SCOPE_SAFE}, \
                 {SCOPE_CAUTIOUS} or {SCOPE_DANGEROUS}\n",
                principal.subject()
            ),
        );
    }
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if let Some(session) = &session {
        let refusal = match state.owners.check(session, principal.owner()).await {
            Ok(Ownership::Own | Ownership::Unknown) => None,
            Ok(Ownership::Foreign) => Some((
                StatusCode::FORBIDDEN,
                "this MCP session was started with another access token; start a session of \
                 your own (send initialize without Mcp-Session-Id)\n",
            )),
            Ok(Ownership::Unowned) => Some((
                StatusCode::FORBIDDEN,
                "this MCP session has no recorded owner (it was opened without a token, or by \
                 an older version of the server); start a new session (send initialize \
                 without Mcp-Session-Id)\n",
            )),
            Err(error) => {
                tracing::error!(%error, "cannot read the owner of a session from the session store");
                Some((
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the session store cannot be read, so this session's owner cannot be \
                     checked; try again shortly\n",
                ))
            }
        };
        if let Some((status, message)) = refusal {
            if status == StatusCode::FORBIDDEN {
                tracing::warn!(
                    subject = principal.subject(),
                    "refused a request for another caller's session"
                );
            }
            return (status, message).into_response();
        }
    }
    let owner = principal.owner().to_owned();
    request.extensions_mut().insert(CallShare {
        owner: owner.clone(),
        shares: Arc::clone(&state.calls),
    });
    request.extensions_mut().insert(principal);
    REQUEST_OWNER.scope(owner, next.run(request)).await
}

/// `GET /.well-known/oauth-protected-resource`: the RFC 9728 metadata.
pub(crate) async fn metadata(State(state): State<Arc<AuthState>>) -> Response {
    let mut response = state.metadata().to_string().into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
