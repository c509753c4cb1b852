//! JSON-RPC hygiene for streamable HTTP: a POST whose body is not one JSON-RPC message gets
//! `400 Bad Request` with the JSON-RPC error in the body (rmcp, 3.9 to 3.11, answers malformed JSON,
//! batches and `id: null` with a plain-text `415`), and `tools/call` arguments that are not
//! an object get `-32602` (rmcp answers `-32601`, "method not found"); a `DELETE` of a
//! session nobody knows gets `404`, and one that was closed `200` (rmcp answers `202 Accepted`
//! whatever the id).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::jsonrpc::{self, INVALID_PARAMS, Rejection};

/// Checks the body of every POST before rmcp reads it; other methods pass untouched.
/// `limit` is the largest body taken (`413` above it).
pub(crate) async fn check_post(limit: usize, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than {limit} bytes"),
            )
                .into_response();
        }
    };
    if let Err(rejection) = jsonrpc::check(&bytes) {
        return reject(&rejection);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
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
