//! JSON-RPC hygiene for streamable HTTP: a POST whose body is not one JSON-RPC message gets
//! `400 Bad Request` with the JSON-RPC error in the body (rmcp, 3.9 to 3.11, answers malformed JSON,
//! batches and `id: null` with a plain-text `415`), and `tools/call` arguments that are not
//! an object get `-32602` (rmcp answers `-32601`, "method not found"); a `DELETE` of a
//! session nobody knows gets `404`, and one that was closed `200` (rmcp answers `202 Accepted`
//! whatever the id).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::listen::ListenShares;
use crate::http::pool::{ConnHandle, Holder};
use crate::jsonrpc::{self, INVALID_PARAMS, Rejection};
use crate::owners::Refusals;

/// What [`check_post`] enforces.
pub(crate) struct PostLimits {
    /// The largest body taken (`413` above it).
    pub(crate) max_body: usize,
    /// How long the whole body may take to arrive (`408` past it).
    pub(crate) body_timeout: Duration,
    /// Each caller's share of `subscriptions/listen` streams.
    pub(crate) listens: Arc<ListenShares>,
    pub(crate) refusals: Arc<Refusals>,
}

/// Checks the body of every POST before rmcp reads it: its size, how long it takes to
/// arrive, that it is one JSON-RPC message, and that a `subscriptions/listen` is within its
/// caller's share. A `GET` (a session's stream of server messages) marks its connection as
/// holding a standing stream; other methods pass untouched.
pub(crate) async fn check_post(
    State(limits): State<Arc<PostLimits>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == Method::GET {
        let standing = request
            .extensions()
            .get::<ConnHandle>()
            .map(ConnHandle::standing);
        let response = next.run(request).await;
        return match standing {
            Some(standing) => crate::http::body::hold_until_sent(response, standing),
            None => response,
        };
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let max_body = limits.max_body;
    let bytes = match tokio::time::timeout(limits.body_timeout, to_bytes(body, max_body)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than {max_body} bytes"),
            )
                .into_response();
        }
        Err(_) => {
            Refusals::count(&limits.refusals.body_timeouts);
            let mut response = (
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {:?} (body_read_timeout); send \
                     the whole body at once\n",
                    limits.body_timeout
                ),
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
    };
    // One scan: the checks, and the method for the share of listen streams.
    let listening = match jsonrpc::scan(&bytes) {
        Err(rejection) => return reject(&rejection),
        Ok(message) => (message.method.as_deref() == Some("subscriptions/listen"))
            .then(|| message.id.map(|id| id.get().to_owned())),
    };
    let mut slot = None;
    let mut standing = None;
    if let Some(id) = listening
        && let Some(holder) = caller(&parts)
    {
        match limits.listens.enter(holder) {
            Some(entered) => slot = Some(entered),
            None => return refuse_listen(&limits.listens, id.as_deref()),
        }
        standing = parts
            .extensions
            .get::<ConnHandle>()
            .map(ConnHandle::standing);
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    match slot {
        Some(slot) => crate::http::body::hold_until_sent(response, (slot, standing)),
        None => response,
    }
}

/// Whom a request's share counts against: its principal, else its peer's address.
fn caller(parts: &axum::http::request::Parts) -> Option<Holder> {
    #[cfg(feature = "auth")]
    if let Some(principal) = parts.extensions.get::<crate::principal::Principal>() {
        return Some(Holder::Principal(principal.owner().to_owned()));
    }
    parts
        .extensions
        .get::<ConnHandle>()
        .map(|conn| Holder::Address(conn.peer()))
}

/// `429` with the JSON-RPC error for a `subscriptions/listen` over its caller's share.
fn refuse_listen(listens: &ListenShares, id: Option<&str>) -> Response {
    let max = listens.max();
    tracing::warn!(
        max,
        "refused a subscriptions/listen: the caller has its share of streams"
    );
    let id = id
        .and_then(|id| serde_json::from_str::<serde_json::Value>(id).ok())
        .unwrap_or(serde_json::Value::Null);
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32000,
            "message": format!(
                "you already have {max} subscriptions/listen streams open on this MCP server, \
                 your share (max_listen_streams_per_principal = {max}); cancel one before \
                 opening another"
            ),
        },
    });
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// The JSON-RPC error as the response: `400` for a message that is not a valid request,
/// `200` for a valid request with invalid parameters (an ordinary error response).
fn reject(rejection: &Rejection) -> Response {
    let status = if rejection.code == INVALID_PARAMS {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        rejection.to_json().to_string(),
    )
        .into_response()
}

/// Whether a session id is known here or in the shared store.
pub(crate) type SessionKnown =
    Arc<dyn Fn(String) -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// `404 Not Found` for a `DELETE` of a session that is neither open here nor in the shared
/// session store (the specification's answer for an unknown session), `200 OK` once a
/// session is closed; other methods pass untouched.
pub(crate) async fn check_delete(
    State(known): State<SessionKnown>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::DELETE {
        return next.run(request).await;
    }
    let id = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = id
        && !known(id).await
    {
        return (
            StatusCode::NOT_FOUND,
            "no such session: it ended, expired, or never existed; start a new one with `initialize`",
        )
            .into_response();
    }
    let mut response = next.run(request).await;
    // The session is closed when rmcp answers: say so with `200 OK` (rmcp's `202 Accepted`
    // reads to the Python SDK as a failed termination).
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}
